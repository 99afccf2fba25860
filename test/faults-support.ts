/**
 * Shared by the fault tests (test/faults-*.test.ts): the flows under test with an input each,
 * the activity runs of a workflow read from its history (following continue-as-new and child
 * workflows), which activity makes which model call, the deterministic part of each result, a
 * seeded PRNG, and the real worker process (`workers/worker.ts`) started in its own process group.
 */
import type { Client } from '@temporalio/client';
import { spawn, type ChildProcess } from 'node:child_process';
import { inject } from 'vitest';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { DATA_DIR } from '../backends';
import { bomQuestionFlow } from '../flows/bom/contract';
import type { FlowDefinition } from '../contracts/common';
import { discoverFromPrpFlow } from '../flows/discovery/contract';
import { runEadsInterviewFlow } from '../flows/eads/contract';
import { platformCheckFlow } from '../flows/platform/contract';
import { researchProposalFlow } from '../flows/proposal/contract';
import { loadStandinRules } from '../flows/registry';
import type { StandinRule } from '../flows/lib/standin';
import { ScriptedModel } from './helpers/scripted-model';
import { IMPOSSIBLE_PROFILE, passingScript, PROPOSAL_STAGE_TASKS, scriptedQuality } from './proposal-helpers';
import { mulberry32 } from '../contracts/common';
import { waitFor } from './helpers/wait';

const defaultRules = await loadStandinRules();

export const ROOT = path.resolve(__dirname, '..');

export interface FlowCase {
  /** Short name used in logs and as the model-task prefix of the flow (`bom.`, `eads.`, ...). */
  name: 'platform' | 'bom' | 'discovery' | 'proposal' | 'eads';
  flow: FlowDefinition;
  /** The input; EADS gets its project id filled in per run (one interview per project and server). */
  input: (runKey: string) => Record<string, unknown>;
}

const prp = readFileSync(path.join(DATA_DIR, 'prp', 'nfl-prediction-accuracy.md'), 'utf8');

/** One input per flow, chosen to pass through the flow's long paths (ladder, refinements, pursuits). */
export const FLOW_CASES: FlowCase[] = [
  { name: 'platform', flow: platformCheckFlow as unknown as FlowDefinition, input: () => ({ topic: 'battery' }) },
  // Strategy 2 of the ladder: focus terms, schema search, resolver, two strategies, explainer.
  {
    name: 'bom',
    flow: bomQuestionFlow as unknown as FlowDefinition,
    input: () => ({ question: 'List BOMs using battery or memory components' }),
  },
  {
    name: 'discovery',
    flow: discoverFromPrpFlow as unknown as FlowDefinition,
    input: () => ({ prp, maxCandidatesPerStep: 5 }),
  },
  // Quality control never passes (a study that cannot fit a month at 4 hours a week; in the crash
  // tests, a scripted model that fails every version): three versions, 15 model calls, the PDF.
  {
    name: 'proposal',
    flow: researchProposalFlow as unknown as FlowDefinition,
    input: () => ({ mode: 'autonomous', profile: IMPOSSIBLE_PROFILE, maxRefinements: 2 }),
  },
  {
    name: 'eads',
    flow: runEadsInterviewFlow as unknown as FlowDefinition,
    input: (runKey) => ({ projectId: `faults-${runKey}`, mode: 'surrogate', fixture: 'brewery-flow-shop' }),
  },
];

export const caseByName = (name: FlowCase['name']): FlowCase => FLOW_CASES.find((c) => c.name === name)!;

/**
 * The model task each activity calls: one call per attempt when the stand-in has no faults, or
 * one per candidate for a step's validation (`modelCallsPerAttempt`).
 */
export const MODEL_TASK_OF_ACTIVITY: Record<string, string> = {
  summarizeFindings: 'platform.summarize',
  extractBomFocusTerms: 'bom.focus_terms',
  explainBomAnswer: 'bom.explain',
  discoveryPlanSearch: 'discovery.plan',
  discoveryValidateCandidate: 'discovery.validate',
  discoveryValidateCandidates: 'discovery.validate',
  formulateProblem: 'proposal.problem_formulation',
  defineObjectives: 'proposal.objectives',
  recommendMethodology: 'proposal.methodology',
  planDataCollection: 'proposal.data_collection',
  checkQuality: 'proposal.quality_control',
  chooseNextEads: 'eads.orchestrate',
  generateEadsQuestion: 'eads.question',
  answerAsSurrogate: 'eads.surrogate_answer',
  refineEadsStructure: 'eads.refine',
};

/** The flow a model task belongs to: its prefix (`eads.refine` → `eads`). */
export const flowOfTask = (task: string): string => task.split('.')[0];

export interface ActivityRun {
  workflowId: string;
  type: string;
  activityId: string;
  scheduledAt: number;
  /** When it completed, failed or timed out for good (undefined while open). */
  closedAt?: number;
  /** The attempt that closed it: 2 means it ran twice. */
  attempt: number;
  /** At most this many model calls per attempt: a step's validation asks about each of its candidates. */
  modelCallsPerAttempt: number;
  outcome: 'completed' | 'failed' | 'timed-out' | 'cancelled' | 'open';
  /**
   * How long the server waits before it retries an attempt whose worker died: the heartbeat
   * time-out if the activity has one, else its start-to-close time-out.
   */
  lossDetectionMs: number;
  /** A local activity: run in its workflow task, recorded as a marker when that task completes. */
  local?: boolean;
}

const LOCAL_ACTIVITY_MARKER = 'core_local_activity';
/**
 * A local activity whose worker died is run again when its workflow task is retried: after the
 * task's time-out (the server's default, 10 s), or sooner when the worker's sticky queue is
 * found dead.
 */
const WORKFLOW_TASK_TIMEOUT_MS = 10_000;

/** A protobuf Timestamp or Duration, in milliseconds (0 when absent). */
type Timestamp = { seconds?: unknown; nanos?: number | null } | null | undefined;
const millis = (t: Timestamp): number => (t ? Number(t.seconds ?? 0) * 1000 + Math.floor((t.nanos ?? 0) / 1e6) : 0);

/**
 * Every activity run of a workflow, its continued-as-new runs and its child workflows (and
 * theirs), read from history. A local activity is a marker holding its type, its last attempt
 * and its outcome (`local`); an attempt cut short by a dead worker leaves no marker at all.
 */
export async function activityRuns(client: Client, workflowId: string, runId?: string): Promise<ActivityRun[]> {
  const runs: ActivityRun[] = [];
  const pending: Array<{ workflowId: string; runId?: string }> = [{ workflowId, runId }];
  while (pending.length) {
    const next = pending.shift()!;
    const history = await client.workflow.getHandle(next.workflowId, next.runId).fetchHistory();
    const bySchedule = new Map<string, ActivityRun>();
    for (const e of history.events ?? []) {
      const at = millis(e.eventTime as Timestamp);
      const scheduled = e.activityTaskScheduledEventAttributes;
      if (scheduled) {
        const lossDetectionMs =
          millis(scheduled.heartbeatTimeout as Timestamp) ||
          millis(scheduled.startToCloseTimeout as Timestamp) ||
          millis(scheduled.scheduleToCloseTimeout as Timestamp);
        const run: ActivityRun = {
          workflowId: next.workflowId,
          type: scheduled.activityType?.name ?? '?',
          activityId: scheduled.activityId ?? '',
          scheduledAt: at,
          attempt: 1,
          modelCallsPerAttempt: modelCallsPerAttempt(scheduled.activityType?.name, scheduled.input?.payloads),
          outcome: 'open',
          lossDetectionMs,
        };
        bySchedule.set(String(e.eventId), run);
        runs.push(run);
      }
      const marker = e.markerRecordedEventAttributes;
      if (marker?.markerName === LOCAL_ACTIVITY_MARKER) {
        const data = JSON.parse(Buffer.from(marker.details?.data?.payloads?.[0]?.data ?? []).toString('utf8')) as {
          activity_type: string;
          activity_id: string;
          attempt: number;
          original_schedule_time?: { seconds: number };
        };
        runs.push({
          workflowId: next.workflowId,
          type: data.activity_type,
          activityId: `local-${data.activity_id}`,
          scheduledAt: data.original_schedule_time ? data.original_schedule_time.seconds * 1000 : at,
          closedAt: at,
          attempt: data.attempt,
          modelCallsPerAttempt: 1,
          outcome: marker.failure ? 'failed' : 'completed',
          lossDetectionMs: WORKFLOW_TASK_TIMEOUT_MS,
          local: true,
        });
      }
      const started = e.activityTaskStartedEventAttributes;
      if (started) bySchedule.get(String(started.scheduledEventId))!.attempt = started.attempt ?? 1;
      const close = (sid: unknown, outcome: ActivityRun['outcome']) => {
        const run = bySchedule.get(String(sid))!;
        run.closedAt = at;
        run.outcome = outcome;
      };
      if (e.activityTaskCompletedEventAttributes)
        close(e.activityTaskCompletedEventAttributes.scheduledEventId, 'completed');
      if (e.activityTaskFailedEventAttributes) close(e.activityTaskFailedEventAttributes.scheduledEventId, 'failed');
      if (e.activityTaskTimedOutEventAttributes)
        close(e.activityTaskTimedOutEventAttributes.scheduledEventId, 'timed-out');
      if (e.activityTaskCanceledEventAttributes)
        close(e.activityTaskCanceledEventAttributes.scheduledEventId, 'cancelled');
      const child = e.childWorkflowExecutionStartedEventAttributes?.workflowExecution;
      if (child?.workflowId) pending.push({ workflowId: child.workflowId, runId: child.runId ?? undefined });
      const continued = e.workflowExecutionContinuedAsNewEventAttributes;
      if (continued?.newExecutionRunId)
        pending.push({ workflowId: next.workflowId, runId: continued.newExecutionRunId });
    }
  }
  return runs;
}

/** Activity types with how often each was scheduled: the same for the same input, whatever happened to the workers. */
export function scheduledCounts(runs: ActivityRun[]): Record<string, number> {
  const counts: Record<string, number> = {};
  // A step's candidates are validated in as many activities as the concurrency bound has slots
  // free when they arrive, which depends on when the other step's activities finish: what must
  // not change is how many candidates were validated, not how they were grouped.
  for (const r of runs)
    counts[r.type] = (counts[r.type] ?? 0) + (r.type === 'discoveryValidateCandidates' ? r.modelCallsPerAttempt : 1);
  return counts;
}

/** Model calls an activity history accounts for, by task: at most `modelCallsPerAttempt` per attempt of each model activity. */
export function modelCallsByTask(runs: ActivityRun[]): Record<string, number> {
  const calls: Record<string, number> = {};
  for (const r of runs) {
    const task = MODEL_TASK_OF_ACTIVITY[r.type];
    if (task) calls[task] = (calls[task] ?? 0) + r.attempt * r.modelCallsPerAttempt;
  }
  return calls;
}

/** One, or a step validation's candidates (read from its input: these tests run with plain JSON payloads). */
function modelCallsPerAttempt(
  type: string | null | undefined,
  payloads: Array<{ data?: Uint8Array | null }> | null | undefined,
) {
  if (type !== 'discoveryValidateCandidates') return 1;
  const input = JSON.parse(Buffer.from(payloads?.[0]?.data ?? []).toString('utf8')) as { candidates: unknown[] };
  return input.candidates.length;
}

/** The stand-in's per-task counters restricted to one flow's tasks. */
export function callsOfFlow(byTask: Record<string, number>, name: string): Record<string, number> {
  return Object.fromEntries(Object.entries(byTask).filter(([task]) => flowOfTask(task) === name));
}

/**
 * The part of a result that must not depend on workers or servers: everything except the
 * proposal's transition timestamps and PDF path, reference and size (the path and the artifact
 * reference hold the workflow and run ids, the size the creation date), with the run's project id
 * replaced by a placeholder. Token usage is deterministic too, except under model faults: repaired
 * replies cost extra turns.
 */
export function deterministicPart(result: unknown, runKey?: string, options: { withoutUsage?: boolean } = {}): unknown {
  const dropped = new Set([
    'at',
    'generatedAt',
    'path',
    'ref',
    'refs',
    'bytes',
    ...(options.withoutUsage ? ['usage'] : []),
  ]);
  const text = JSON.stringify(result, (key, value) => (dropped.has(key) ? undefined : value));
  return JSON.parse(runKey ? text.split(runKey).join('<run>') : text);
}

/** A small seeded PRNG: the same seed gives the same kill points. */
export const seededRandom = mulberry32;

/**
 * The model for the crash tests: the stand-in's rules, except the proposal's stages, which answer
 * from a script (quality control fails every version, so the flow runs its three versions). The
 * crash tests are about orchestration: they compare a run with kills against an undisturbed one,
 * and need neither to depend on the offline model's wording nor to wait on its embedding work.
 */
export const CRASH_TEST_RULES: StandinRule[] = [
  ...new ScriptedModel()
    .script({ ...passingScript(), 'proposal.quality_control': { always: scriptedQuality(false) } })
    .rules(PROPOSAL_STAGE_TASKS),
  ...defaultRules.filter((r) => !r.task.startsWith('proposal.') || r.task === 'proposal.interview_question'),
];

/** The crash tests' rules, each calling `onAnswer(task)` just before it answers (to count or to act at an exact call). */
export function observedRules(onAnswer: (task: string) => void): StandinRule[] {
  return CRASH_TEST_RULES.map((rule) => ({
    ...rule,
    answer(ctx) {
      onAnswer(ctx.task);
      return rule.answer(ctx);
    },
  }));
}

export interface WorkerProcess {
  child: ChildProcess;
  /** Resolves when the worker logs that it polls (workflows bundled, connected). */
  ready: Promise<void>;
  exited: Promise<number | null>;
  output(): string;
  kill(signal: NodeJS.Signals): void;
}

/**
 * The real worker (`tsx workers/worker.ts`) as a child process in its own process group: tsx
 * runs node as a child of its own, and a kill must reach the node process that runs the worker.
 */
export function startWorkerProcess(env: Record<string, string>): WorkerProcess {
  const child = spawn(path.join(ROOT, 'node_modules', '.bin', 'tsx'), ['workers/worker.ts'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      AGENT_FLOWS_MODEL: 'standin',
      WORKER_METRICS_PORT: '0',
      LOG_LEVEL: 'warn',
      ARTIFACT_DIR: path.join(ROOT, 'out', 'test'),
      // The run's workflow bundle (test/setup/global.ts), not one bundled again at each start.
      WORKFLOW_BUNDLE: inject('workflowBundlePath'),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  let onReady: () => void;
  const ready = new Promise<void>((resolve) => (onReady = resolve));
  const take = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-8000);
    if (/polling task queue/.test(output)) onReady();
  };
  child.stdout!.on('data', take);
  child.stderr!.on('data', take);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    ready: Promise.race([
      ready,
      exited.then((code) => Promise.reject(new Error(`worker exited (${code}) before it was ready:\n${output}`))),
    ]),
    exited,
    output: () => output,
    kill(signal) {
      try {
        process.kill(-child.pid!, signal);
      } catch {
        // already gone
      }
    },
  };
}

export async function waitUntil<T>(
  probe: () => T | undefined | Promise<T | undefined>,
  what: string,
  timeoutMs = 60_000,
): Promise<T> {
  // `false` is "not yet" here too (probes written as conditions).
  return waitFor(
    async () => {
      const value = await probe();
      return value === false ? undefined : value;
    },
    what,
    { timeoutMs, everyMs: 50 },
  );
}
