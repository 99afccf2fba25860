/**
 * Discovery evaluation: new PRPs (eval/discovery/cases.ts) run through `discoverFromPrp` on the
 * offline stack; the tables it accepts are scored against hand-set labels.
 *
 * - table precision: accepted tables that are relevant, over accepted tables (tables labelled
 *   "acceptable" are left out of both counts);
 * - table recall: relevant tables accepted, over relevant tables;
 * - columns covered: target columns (derived ones excepted) that some accepted table can supply
 *   according to the labels, over those columns.
 * Figures are pooled over all cases. `quick` runs only the cases marked quick.
 */
import { startFlow } from '../../access/flow-client';
import { discoverFromPrpFlow, tableName, type DiscoverFromPrpOutput } from '../../flows/discovery/contract';
import type { EvalCaseFailure, EvalReport, EvalSuite } from '../types';
import { DEV_CASES, HELD_OUT_CASES, type DiscoveryCase } from './cases';

export interface CaseScore {
  id: string;
  accepted: string[];
  truePositives: number;
  /** Accepted tables that count for precision (accepted minus the "acceptable" ones). */
  judged: number;
  relevant: number;
  columns: number;
  covered: number;
  missedTables: string[];
  wrongTables: string[];
  uncoveredColumns: string[];
}

/** Scores one flow result against a case's labels; pure, so it is unit-tested on its own. */
export function scoreCase(c: DiscoveryCase, out: Pick<DiscoverFromPrpOutput, 'results'>): CaseScore {
  const accepted = [...new Set(out.results.flatMap((r) => r.discovered_tables.map((t) => tableName(t))))].sort();
  const relevant = new Set(c.relevant);
  const acceptable = new Set(c.acceptable ?? []);
  const judgedTables = accepted.filter((t) => !acceptable.has(t) || relevant.has(t));
  const truePositives = judgedTables.filter((t) => relevant.has(t)).length;
  const labelled = c.columns.filter((col) => col.sources.length > 0);
  const uncovered = labelled.filter((col) => !col.sources.some((s) => accepted.includes(s))).map((col) => col.name);
  return {
    id: c.id,
    accepted,
    truePositives,
    judged: judgedTables.length,
    relevant: relevant.size,
    columns: labelled.length,
    covered: labelled.length - uncovered.length,
    missedTables: c.relevant.filter((t) => !accepted.includes(t)),
    wrongTables: judgedTables.filter((t) => !relevant.has(t)),
    uncoveredColumns: uncovered,
  };
}

export function summarize(scores: CaseScore[]): EvalReport {
  const sum = (f: (s: CaseScore) => number) => scores.reduce((n, s) => n + f(s), 0);
  const judged = sum((s) => s.judged);
  const relevant = sum((s) => s.relevant);
  const columns = sum((s) => s.columns);
  const failures: EvalCaseFailure[] = [];
  for (const s of scores) {
    const why = [
      s.missedTables.length ? `missed ${s.missedTables.join(', ')}` : '',
      s.wrongTables.length ? `wrongly accepted ${s.wrongTables.join(', ')}` : '',
      s.uncoveredColumns.length ? `columns not covered: ${s.uncoveredColumns.join(', ')}` : '',
    ].filter(Boolean);
    if (why.length) failures.push({ id: s.id, why: why.join('; ') });
  }
  return {
    metrics: [
      {
        metric: 'table precision',
        value: judged ? sum((s) => s.truePositives) / judged : 0,
        target: 0.8,
        cases: scores.length,
      },
      {
        metric: 'table recall',
        value: relevant ? sum((s) => s.truePositives) / relevant : 0,
        target: 0.8,
        cases: scores.length,
      },
      {
        metric: 'columns covered',
        value: columns ? sum((s) => s.covered) / columns : 0,
        target: 0.8,
        cases: scores.length,
      },
    ],
    failures,
  };
}

/**
 * The cases a run uses. DISCOVERY_EVAL_HELD_OUT=skip leaves the held-out PRPs out, for working on
 * the rules without looking at them (see docs/eval.md).
 */
export function selectCases(quick: boolean, env: NodeJS.ProcessEnv = process.env): DiscoveryCase[] {
  const all = env.DISCOVERY_EVAL_HELD_OUT === 'skip' ? DEV_CASES : [...DEV_CASES, ...HELD_OUT_CASES];
  return quick ? all.filter((c) => c.quick) : all;
}

const suite: EvalSuite = {
  name: 'discovery',
  async run(stack, { quick }) {
    const cases = selectCases(quick);
    const scores = await Promise.all(
      cases.map(async (c) => {
        const input = {
          prp: c.prp,
          targetSchema: c.columns.map(({ name, type, description }) => ({ name, type, description })),
        };
        const handle = await startFlow(stack.client, discoverFromPrpFlow, input);
        const out = discoverFromPrpFlow.output.parse(await handle.result());
        return scoreCase(c, out);
      }),
    );
    const report = summarize(scores);
    if (process.env.DISCOVERY_EVAL_VERBOSE) {
      for (const s of scores) console.error(`[eval] discovery ${s.id}: accepted ${s.accepted.join(', ') || '(none)'}`);
    }
    return report;
  },
};

export default suite;
