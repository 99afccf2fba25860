/**
 * EADS evaluation: surrogate interviews with firms the rules were not written around.
 *
 * Each firm in `firms/` describes itself in its own words, in the fixture format the surrogate
 * expert reads (the offline stack loads them by id, after the bundled fixtures). `truth.json`
 * holds the labels, written by hand from the firms' text: problem type, the challenges the firm
 * names, and its process steps in order (flow shop: the line's stages; job shop: each standard
 * routing; timetabling: the kinds of events, where order does not apply).
 *
 * Metrics: problem-type accuracy, challenge recall (named challenges found / named), challenge
 * precision (so tagging everything does not pass), and steps in order (firms whose steps all come
 * back, in order).
 *
 * The sealed set (`--set sealed`: `eval/sealed/eads/truth-<date>.json`, firms in
 * `eval/sealed/eads/firms/`) also reports how the type came out (right, left undetermined after
 * the interview asked about it, or wrong: a confident wrong type is the one outcome never
 * allowed), and the recall of the resources the firm shares out. Its truth may list
 * `acceptable-challenges` (not named, not wrong to read into the text: neither for nor against)
 * and empty `steps` where no process data structure applies (left out of "steps in order").
 */

import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startFlow } from '../../access/flow-client';
import { runEadsInterviewFlow, type RunEadsInterviewOutput } from '../../flows/eads/contract';
import type { FlowDefinition } from '../../contracts/common';
import { UNDETERMINED } from '../../domain/eads-structure';
import type { OfflineStack } from '../../workers/offline-stack';
import {
  readJson,
  datedFiles,
  sealedFiles,
  type EvalCaseFailure,
  type EvalMetric,
  type EvalReport,
  type EvalSet,
  type EvalSuite,
} from '../types';

export interface FirmTruth {
  'problem-type': string;
  challenges: Record<string, string>;
  /** Not named by the firm, but not wrong to read into its words: neither found nor extra. */
  'acceptable-challenges'?: string[];
  steps: string[][];
  /** Equipment, places and people the schedule shares out. */
  resources?: string[];
  quick?: boolean;
  'held-out'?: boolean;
}

export function loadTruth(set: EvalSet = 'dev'): Record<string, FirmTruth> {
  // Development: the first set and each spent sealed batch, moved here as it was measured.
  const files =
    set === 'sealed'
      ? sealedFiles('eads', 'truth')
      : [path.join(__dirname, 'truth.json'), ...datedFiles(__dirname, 'truth')];
  const raw: Record<string, unknown> = {};
  for (const f of files) Object.assign(raw, readJson(f));
  return Object.fromEntries(Object.entries(raw).filter(([k]) => !k.startsWith('_'))) as Record<string, FirmTruth>;
}

const STOP = new Set(['and', 'the', 'of', 'a', 'an', 'to', 'on', 'in', 'for', 'with']);
// "rising" and "rise", "baking" and "bake" meet once a final e goes as well.
const stem = (w: string) => (w.replace(/(?:ing|ed|es|s)$/, '') || w).replace(/(?<=\w\w)e$/, '');
const words = (name: string) =>
  name
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w && !STOP.has(w))
    .map(stem);

/** A recovered step names a labelled one when it carries at least half of its words. */
export function sameStep(recovered: string, truth: string): boolean {
  const got = new Set(words(recovered));
  const want = words(truth);
  const shared = want.filter((w) => got.has(w)).length;
  return want.length > 0 && shared >= Math.ceil(want.length / 2);
}

/** Every labelled step appears among the recovered ones, in the labelled order (extra steps allowed). */
export function inOrder(recovered: string[], truth: string[]): boolean {
  let from = 0;
  for (const step of truth) {
    const at = recovered.findIndex((r, i) => i >= from && sameStep(r, step));
    if (at < 0) return false;
    from = at + 1;
  }
  return true;
}

const asRows = (v: unknown): Array<Record<string, unknown>> =>
  (Array.isArray(v) ? v.filter((r) => r && typeof r === 'object') : []) as Array<Record<string, unknown>>;
const asNames = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/** The EADS that records the steps when the problem type was left open (it assumes no type). */
export const OPEN_TYPE_STEPS_EADS = 'process/work-steps';

/**
 * The steps the interview recovered, shaped like the truth's `steps`: from the process EADS of
 * the labelled type, or, when the interview left the type open, from the EADS that asked for the
 * steps without assuming one (read the way the labelled type's EADS is read).
 */
export function recoveredSteps(result: RunEadsInterviewOutput, problemType: string): string[][] {
  const byEads = result.scr.scr_by_eads;
  const open = byEads[OPEN_TYPE_STEPS_EADS];
  const pick = (eads: string) => byEads[eads] ?? open;
  if (problemType === 'FLOW-SHOP-SCHEDULING-PROBLEM') {
    const line = [asRows(pick('process/flow-shop')?.subprocesses).map((r) => String(r['process-id'] ?? ''))];
    // Left open, the one route of a line may have been told as a routing instead of a table of steps.
    return byEads['process/flow-shop'] ? line : [...line, ...asRows(open?.routings).map((r) => asNames(r.steps))];
  }
  if (problemType === 'JOB-SHOP-SCHEDULING-PROBLEM')
    return asRows(pick('process/job-shop')?.routings).map((r) => asNames(r.steps));
  return [asRows(pick('process/timetabling')?.['event-types']).map((r) => String(r['event-type-id'] ?? ''))];
}

/** Resource names the interview recovered: the resource pools, and the equipment the steps use. */
export function recoveredResources(result: RunEadsInterviewOutput): string[] {
  const byEads = result.scr.scr_by_eads;
  const names = asRows(byEads['resources/resource-pools']?.['resource-pools']).map((r) =>
    String(r['resource-id'] ?? ''),
  );
  for (const id of ['process/flow-shop', 'process/job-shop', OPEN_TYPE_STEPS_EADS]) {
    names.push(...asNames(byEads[id]?.resources));
    for (const key of ['subprocesses', 'unit-processes'])
      for (const row of asRows(byEads[id]?.[key])) names.push(...asNames(row.resources));
  }
  for (const id of ['process/timetabling', OPEN_TYPE_STEPS_EADS])
    for (const row of asRows(byEads[id]?.['event-types'])) names.push(...asNames(row.constituents));
  return [...new Set(names.filter(Boolean))];
}

export function stepsMatch(recovered: string[][], truth: FirmTruth): boolean {
  if (truth['problem-type'] === 'TIMETABLING-PROBLEM') {
    const got = recovered.flat();
    return truth.steps.flat().every((t) => got.some((r) => sameStep(r, t)));
  }
  return truth.steps.every((routing) => recovered.some((r) => inOrder(r, routing)));
}

/**
 * How the problem type came out: right; undetermined after asking (no type, but the interview put
 * the problem-type question to the firm: the honest outcome when the answers leave it open); or
 * wrong (another type, or none without having asked).
 */
export type TypeOutcome = 'right' | 'undetermined' | 'wrong';

export interface FirmScore {
  firm: string;
  typeOk: boolean;
  typeOutcome: TypeOutcome;
  named: number;
  found: number;
  /** Tagged challenges that count for precision (acceptable ones left out). */
  tagged: number;
  /** null: no steps labelled (no process data structure applies to the type). */
  stepsOk: boolean | null;
  resourcesNamed: number;
  resourcesFound: number;
  why: string[];
}

export function typeOutcome(result: RunEadsInterviewOutput, expected: string): TypeOutcome {
  if (result.problemType === expected) return 'right';
  const asked = result.pursuits.some((p) => p.eadsId === 'process/scheduling-problem-type' && p.questions > 0);
  // No type, or the interview's explicit "undetermined" (a choice still open after it was asked).
  const open = !result.problemType || result.problemType === UNDETERMINED;
  return open && asked ? 'undetermined' : 'wrong';
}

export function scoreFirm(firm: string, truth: FirmTruth, result: RunEadsInterviewOutput): FirmScore {
  const why: string[] = [];
  const outcome = typeOutcome(result, truth['problem-type']);
  const typeOk = outcome === 'right';
  if (!typeOk)
    why.push(
      `problem type ${result.problemType ?? 'none'}${outcome === 'undetermined' ? ' (undetermined after asking)' : ''}, expected ${truth['problem-type']}`,
    );
  const named = Object.keys(truth.challenges);
  const acceptable = new Set(truth['acceptable-challenges'] ?? []);
  const got = new Set(result.schedulingChallenges);
  const found = named.filter((c) => got.has(c));
  const missed = named.filter((c) => !got.has(c));
  const extra = [...got].filter((c) => !named.includes(c) && !acceptable.has(c));
  if (missed.length) why.push(`missed challenges ${missed.join(', ')}`);
  if (extra.length) why.push(`unnamed challenges tagged ${extra.join(', ')}`);
  // Steps are read from the process EADS of the labelled type, so a wrong type also loses the steps.
  let stepsOk: boolean | null = null;
  if (truth.steps.some((r) => r.length > 0)) {
    const steps = recoveredSteps(result, truth['problem-type']);
    stepsOk = stepsMatch(steps, truth);
    if (!stepsOk) why.push(`steps ${JSON.stringify(steps)} do not match ${JSON.stringify(truth.steps)}`);
  }
  const wantResources = truth.resources ?? [];
  const gotResources = recoveredResources(result);
  const resourcesMissed = wantResources.filter((r) => !gotResources.some((g) => sameStep(g, r)));
  if (resourcesMissed.length) why.push(`resources not recovered: ${resourcesMissed.join(', ')}`);
  return {
    firm,
    typeOk,
    typeOutcome: outcome,
    named: named.length,
    found: found.length,
    tagged: found.length + extra.length,
    stepsOk,
    resourcesNamed: wantResources.length,
    resourcesFound: wantResources.length - resourcesMissed.length,
    why,
  };
}

/**
 * Targets: those for unseen firms, on both sets. The development set once had a lower precision
 * bar (0.7), and its table then said "yes" to figures the targets for unseen firms miss.
 */
export const SEALED_TARGETS = { challengeRecall: 0.8, challengePrecision: 0.9, resourceRecall: 0.8 } as const;
export const TARGETS = SEALED_TARGETS;

export function summarise(scores: FirmScore[], set: EvalSet = 'dev'): EvalReport {
  const targets = set === 'sealed' ? SEALED_TARGETS : TARGETS;
  const n = scores.length;
  const named = scores.reduce((s, x) => s + x.named, 0);
  const found = scores.reduce((s, x) => s + x.found, 0);
  const tagged = scores.reduce((s, x) => s + x.tagged, 0);
  const withSteps = scores.filter((s) => s.stepsOk !== null);
  const failures: EvalCaseFailure[] = scores
    .filter((s) => s.why.length)
    .map((s) => ({ id: s.firm, why: s.why.join('; ') }));
  const share = (k: TypeOutcome) => (n ? scores.filter((s) => s.typeOutcome === k).length / n : 0);
  const metrics: EvalMetric[] = [{ metric: 'problem-type accuracy', value: share('right'), target: 1, cases: n }];
  // Both sets: never confidently wrong is the target that matters most.
  metrics.push(
    {
      metric: 'problem type right or undetermined after asking',
      value: share('right') + share('undetermined'),
      target: 1,
      cases: n,
    },
    { metric: 'problem type wrong', value: share('wrong'), target: 0, higherIsBetter: false, cases: n },
  );
  metrics.push(
    { metric: 'challenge recall', value: named ? found / named : 0, target: targets.challengeRecall, cases: n },
    // Tagging nothing is not precise: with nothing tagged, precision is 0 when the firm named any.
    {
      metric: 'challenge precision',
      value: tagged ? found / tagged : named ? 0 : 1,
      target: targets.challengePrecision,
      cases: n,
    },
    {
      metric: 'steps in order',
      value: withSteps.length ? withSteps.filter((s) => s.stepsOk).length / withSteps.length : 0,
      target: 1,
      cases: withSteps.length,
    },
  );
  const resourcesNamed = scores.reduce((s, x) => s + x.resourcesNamed, 0);
  if (resourcesNamed > 0) {
    const resourcesFound = scores.reduce((s, x) => s + x.resourcesFound, 0);
    metrics.push({
      metric: 'resource recall',
      value: resourcesFound / resourcesNamed,
      target: targets.resourceRecall,
      cases: scores.filter((s) => s.resourcesNamed > 0).length,
    });
  }
  return { metrics, failures };
}

/** Runs one surrogate interview and returns its result. (A project id holds at most 48 characters: the firm's name is cut to fit beside the time.) */
export async function interviewFirm(stack: OfflineStack, firm: string): Promise<RunEadsInterviewOutput> {
  const projectId = `${`eval-${firm}`.slice(0, 39)}-${Date.now().toString(36)}`;
  const handle = await startFlow(stack.client, runEadsInterviewFlow as unknown as FlowDefinition, {
    projectId,
    mode: 'surrogate',
    fixture: firm,
  });
  return (await handle.result()) as RunEadsInterviewOutput;
}

const suite: EvalSuite = {
  name: 'eads',
  async run(stack, { quick, set = 'dev', outDir }) {
    const truth = loadTruth(set);
    // EVAL_EXCLUDE_HELD_OUT=1 leaves the held-out cases out while rules are being developed;
    // EVAL_ONLY=a,b runs only those firms (a development run, to read their interviews).
    const only = process.env.EVAL_ONLY?.split(',').map((f) => f.trim());
    const firms = Object.keys(truth).filter(
      (f) =>
        (!quick || truth[f].quick) &&
        !(process.env.EVAL_EXCLUDE_HELD_OUT && truth[f]['held-out']) &&
        (!only || only.includes(f)),
    );
    // Each development firm's interview, as the discovery suite keeps each PRP's answer; never a sealed one.
    const caseDir = set !== 'sealed' && outDir ? path.join(outDir, set, 'eads') : undefined;
    if (caseDir) mkdirSync(caseDir, { recursive: true });
    const scores: FirmScore[] = [];
    // Two at a time: the machine is shared, and the interviews are sequential inside anyway.
    for (let i = 0; i < firms.length; i += 2) {
      const batch = firms.slice(i, i + 2);
      const results = await Promise.all(batch.map((f) => interviewFirm(stack, f)));
      batch.forEach((f, j) => {
        const score = scoreFirm(f, truth[f], results[j]);
        scores.push(score);
        if (caseDir)
          writeFileSync(path.join(caseDir, `${f}.json`), JSON.stringify({ score, out: results[j] }, null, 2));
      });
    }
    return summarise(scores, set);
  },
};

export default suite;
