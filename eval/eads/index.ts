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
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { startFlow } from '../../access/flow-client';
import { runEadsInterviewFlow, type RunEadsInterviewOutput } from '../../flows/eads/contract';
import type { FlowDefinition } from '../../contracts/common';
import type { OfflineStack } from '../../workers/offline-stack';
import type { EvalCaseFailure, EvalReport, EvalSuite } from '../types';

export interface FirmTruth {
  'problem-type': string;
  challenges: Record<string, string>;
  steps: string[][];
  quick?: boolean;
  'held-out'?: boolean;
}

export function loadTruth(): Record<string, FirmTruth> {
  const raw = JSON.parse(readFileSync(path.join(__dirname, 'truth.json'), 'utf8')) as Record<string, unknown>;
  return Object.fromEntries(Object.entries(raw).filter(([k]) => !k.startsWith('_'))) as Record<string, FirmTruth>;
}

const STOP = new Set(['and', 'the', 'of', 'a', 'an', 'to', 'on', 'in', 'for', 'with']);
const stem = (w: string) => w.replace(/(?:ing|ed|es|s)$/, '') || w;
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

/** The steps the interview recovered, shaped like the truth's `steps`. */
export function recoveredSteps(result: RunEadsInterviewOutput, problemType: string): string[][] {
  const byEads = result.scr.scr_by_eads;
  if (problemType === 'FLOW-SHOP-SCHEDULING-PROBLEM') {
    return [asRows(byEads['process/flow-shop']?.subprocesses).map((r) => String(r['process-id'] ?? ''))];
  }
  if (problemType === 'JOB-SHOP-SCHEDULING-PROBLEM')
    return asRows(byEads['process/job-shop']?.routings).map((r) => asNames(r.steps));
  return [asRows(byEads['process/timetabling']?.['event-types']).map((r) => String(r['event-type-id'] ?? ''))];
}

export function stepsMatch(recovered: string[][], truth: FirmTruth): boolean {
  if (truth['problem-type'] === 'TIMETABLING-PROBLEM') {
    const got = recovered.flat();
    return truth.steps.flat().every((t) => got.some((r) => sameStep(r, t)));
  }
  return truth.steps.every((routing) => recovered.some((r) => inOrder(r, routing)));
}

export interface FirmScore {
  firm: string;
  typeOk: boolean;
  named: number;
  found: number;
  tagged: number;
  stepsOk: boolean;
  why: string[];
}

export function scoreFirm(firm: string, truth: FirmTruth, result: RunEadsInterviewOutput): FirmScore {
  const why: string[] = [];
  const typeOk = result.problemType === truth['problem-type'];
  if (!typeOk) why.push(`problem type ${result.problemType ?? 'none'}, expected ${truth['problem-type']}`);
  const named = Object.keys(truth.challenges);
  const got = new Set(result.schedulingChallenges);
  const found = named.filter((c) => got.has(c));
  const missed = named.filter((c) => !got.has(c));
  const extra = [...got].filter((c) => !named.includes(c));
  if (missed.length) why.push(`missed challenges ${missed.join(', ')}`);
  if (extra.length) why.push(`unnamed challenges tagged ${extra.join(', ')}`);
  // Steps are read from the process EADS of the labelled type, so a wrong type also loses the steps.
  const steps = recoveredSteps(result, truth['problem-type']);
  const stepsOk = stepsMatch(steps, truth);
  if (!stepsOk) why.push(`steps ${JSON.stringify(steps)} do not match ${JSON.stringify(truth.steps)}`);
  return { firm, typeOk, named: named.length, found: found.length, tagged: got.size, stepsOk, why };
}

export function summarise(scores: FirmScore[]): EvalReport {
  const n = scores.length;
  const named = scores.reduce((s, x) => s + x.named, 0);
  const found = scores.reduce((s, x) => s + x.found, 0);
  const tagged = scores.reduce((s, x) => s + x.tagged, 0);
  const failures: EvalCaseFailure[] = scores
    .filter((s) => s.why.length)
    .map((s) => ({ id: s.firm, why: s.why.join('; ') }));
  return {
    metrics: [
      {
        metric: 'problem-type accuracy',
        value: n ? scores.filter((s) => s.typeOk).length / n : 0,
        target: 1,
        cases: n,
      },
      { metric: 'challenge recall', value: named ? found / named : 0, target: 0.8, cases: n },
      { metric: 'challenge precision', value: tagged ? found / tagged : 0, target: 0.7, cases: n },
      { metric: 'steps in order', value: n ? scores.filter((s) => s.stepsOk).length / n : 0, target: 1, cases: n },
    ],
    failures,
  };
}

/** Runs one surrogate interview and returns its result. */
export async function interviewFirm(stack: OfflineStack, firm: string): Promise<RunEadsInterviewOutput> {
  const projectId = `eval-${firm}-${Date.now().toString(36)}`.slice(0, 60);
  const handle = await startFlow(stack.client, runEadsInterviewFlow as unknown as FlowDefinition, {
    projectId,
    mode: 'surrogate',
    fixture: firm,
  });
  return (await handle.result()) as RunEadsInterviewOutput;
}

const suite: EvalSuite = {
  name: 'eads',
  async run(stack, { quick }) {
    const truth = loadTruth();
    // EVAL_EXCLUDE_HELD_OUT=1 leaves the held-out cases out while rules are being developed.
    const firms = Object.keys(truth).filter(
      (f) => (!quick || truth[f].quick) && !(process.env.EVAL_EXCLUDE_HELD_OUT && truth[f]['held-out']),
    );
    const scores: FirmScore[] = [];
    // Two at a time: the machine is shared, and the interviews are sequential inside anyway.
    for (let i = 0; i < firms.length; i += 2) {
      const batch = firms.slice(i, i + 2);
      const results = await Promise.all(batch.map((f) => interviewFirm(stack, f)));
      batch.forEach((f, j) => scores.push(scoreFirm(f, truth[f], results[j])));
    }
    return summarise(scores);
  },
};

export default suite;
