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
 *
 * The sealed set (`--set sealed`: `eval/sealed/discovery/cases-<date>.json`, each PRP a markdown
 * file beside it whose column table is the target schema) also reports the lowest table precision
 * and recall of any one PRP (the targets hold on every PRP, not only pooled), and the runs that
 * end with no table while naming no column they could not source (a silent empty answer).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startFlow } from '../../access/flow-client';
import { discoverFromPrpFlow, tableName, type DiscoverFromPrpOutput } from '../../flows/discovery/contract';
import {
  readJson,
  sealedDir,
  datedFiles,
  sealedFiles,
  type EvalCaseFailure,
  type EvalMetric,
  type EvalReport,
  type EvalSuite,
} from '../types';
import { DEV_CASES, HELD_OUT_CASES, type DiscoveryCase, type LabelledColumn } from './cases';

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
  /** No table accepted, and no column reported as unsourced: an empty answer that says nothing. */
  silentEmpty?: boolean;
}

/** Scores one flow result against a case's labels; pure, so it is unit-tested on its own. */
export function scoreCase(
  c: DiscoveryCase,
  out: Pick<DiscoverFromPrpOutput, 'results'> &
    Partial<Pick<DiscoverFromPrpOutput, 'uncovered_columns' | 'unsourced_columns'>>,
): CaseScore {
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
    silentEmpty:
      accepted.length === 0 && (out.uncovered_columns?.length ?? 0) === 0 && (out.unsourced_columns?.length ?? 0) === 0,
  };
}

/** One PRP's table precision (nothing judged: 0 when it has relevant tables) and recall. */
export function perPrp(s: CaseScore): { precision: number; recall: number } {
  return {
    precision: s.judged ? s.truePositives / s.judged : s.relevant ? 0 : 1,
    recall: s.relevant ? s.truePositives / s.relevant : 1,
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
    if (s.silentEmpty) why.push('no table accepted and no column reported unsourced');
    if (why.length) failures.push({ id: s.id, why: why.join('; ') });
  }
  const metrics: EvalMetric[] = [
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
  ];
  // The lowest of any one PRP and the silent empty answers are reported for every set: a pooled
  // figure hides one PRP that gets nothing.
  if (scores.length > 0) {
    const each = scores.map(perPrp);
    metrics.push(
      {
        metric: 'lowest table precision of a PRP',
        value: Math.min(...each.map((e) => e.precision)),
        target: 0.8,
        cases: scores.length,
      },
      {
        metric: 'lowest table recall of a PRP',
        value: Math.min(...each.map((e) => e.recall)),
        target: 0.8,
        cases: scores.length,
      },
      {
        metric: 'silent empty answers',
        value: scores.filter((s) => s.silentEmpty).length,
        target: 0,
        higherIsBetter: false,
        cases: scores.length,
      },
    );
  }
  return { metrics, failures };
}

/**
 * The cases a run uses. DISCOVERY_EVAL_HELD_OUT=skip leaves the held-out PRPs out, for working on
 * the rules without looking at them (see docs/eval.md).
 */
export function selectCases(quick: boolean, env: NodeJS.ProcessEnv = process.env): DiscoveryCase[] {
  const all =
    env.DISCOVERY_EVAL_HELD_OUT === 'skip'
      ? DEV_CASES
      : [...DEV_CASES, ...HELD_OUT_CASES, ...loadDatedCases(__dirname, datedFiles(__dirname, 'cases'))];
  return quick ? all.filter((c) => c.quick) : all;
}

interface SealedCaseFile {
  cases: Array<{
    id: string;
    prp: string;
    relevant: string[];
    acceptable?: string[];
    sources: Record<string, string[]>;
  }>;
}

/** The column table of a PRP (`| Column | Type | Description |`), as the target schema. */
export function schemaFromPrp(prp: string): Array<{ name: string; type: string; description: string }> {
  const rows = prp.split(/\r?\n/).filter((l) => /^\s*\|/.test(l));
  const cells = (l: string) =>
    l
      .trim()
      .replace(/^\||\|$/g, '')
      .split('|')
      .map((c) => c.trim());
  const start = rows.findIndex((l) => /^column$/i.test(cells(l)[0] ?? ''));
  if (start < 0) return [];
  return rows
    .slice(start + 1)
    .map(cells)
    .filter((c) => c.length >= 2 && !/^-+$/.test(c[0]))
    .map(([name, type, description = '']) => ({ name, type, description }));
}

/** The sealed PRPs, with their labels; a column the labels miss is an error, not a silent gap. */
export function loadSealedCases(): DiscoveryCase[] {
  return loadDatedCases(sealedDir('discovery'), sealedFiles('discovery', 'cases'));
}

/** Labelled PRPs from dated case files, each PRP a markdown file beside them. */
function loadDatedCases(dir: string, files: string[]): DiscoveryCase[] {
  return files.flatMap((file) =>
    readJson<SealedCaseFile>(file).cases.map((c) => {
      const prp = readFileSync(path.join(dir, c.prp), 'utf8');
      const columns: LabelledColumn[] = schemaFromPrp(prp).map((col) => {
        const sources = c.sources[col.name];
        if (!sources) throw new Error(`${file}: ${c.id} has no sources label for column ${col.name}`);
        return { ...col, sources };
      });
      if (columns.length !== Object.keys(c.sources).length)
        throw new Error(
          `${file}: ${c.id} labels ${Object.keys(c.sources).length} columns, its PRP has ${columns.length}`,
        );
      return { id: c.id, prp, columns, relevant: c.relevant, acceptable: c.acceptable ?? [] };
    }),
  );
}

const suite: EvalSuite = {
  name: 'discovery',
  async run(stack, { quick, set = 'dev', outDir }) {
    const cases = set === 'sealed' ? loadSealedCases() : selectCases(quick);
    // Each development case's whole answer (verdicts, reasons, rejections), to read why a table
    // was accepted or missed; the sealed set's answers are never written here.
    const caseDir = set !== 'sealed' && outDir ? path.join(outDir, set, 'discovery') : undefined;
    if (caseDir) mkdirSync(caseDir, { recursive: true });
    const scores = await Promise.all(
      cases.map(async (c) => {
        const input = {
          prp: c.prp,
          targetSchema: c.columns.map(({ name, type, description }) => ({ name, type, description })),
        };
        const handle = await startFlow(stack.client, discoverFromPrpFlow, input);
        const out = discoverFromPrpFlow.output.parse(await handle.result());
        const score = scoreCase(c, out);
        if (caseDir) writeFileSync(path.join(caseDir, `${c.id}.json`), JSON.stringify({ score, out }, null, 2));
        return score;
      }),
    );
    const report = summarize(scores);
    if (process.env.DISCOVERY_EVAL_VERBOSE && set !== 'sealed') {
      for (const s of scores) {
        const { precision, recall } = perPrp(s);
        console.error(
          `[eval] discovery ${s.id}: precision ${precision.toFixed(2)} recall ${recall.toFixed(2)}; accepted ${s.accepted.join(', ') || '(none)'}`,
        );
      }
    }
    return report;
  },
};

export default suite;
