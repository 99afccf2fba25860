/**
 * `scheduleFromScr`: an EADS interview's SCR (plus orders) as a MiniZinc model, a schedule
 * solved by OR-Tools CP-SAT on the Python solver worker, and a Gantt chart. Re-run it with new
 * orders without repeating the interview. Also the shapes the solver activity exchanges.
 *
 * Imported by workflow code: deterministic, no I/O.
 */
import { defineSignal } from '@temporalio/workflow';
import { z } from 'zod';
import { oneLine, type FlowDefinition } from '../../contracts/common';
import type { JsonObject } from '../../domain/eads-structure';
import {
  formatTime,
  scheduleWorkIssues,
  staticConflicts,
  TIME_UNITS,
  type ProblemConflict,
  type ScheduleProblem,
  type TimeUnit,
} from '../../domain/schedule-model';

/** The Python solver worker's task queue (solver/worker.py), apart from the flows' `agent-flows`. */
export const SOLVER_TASK_QUEUE = 'agent-flows-solver';
/** The solver activity's name, as the Python worker registers it. */
export const SOLVE_SCHEDULE_ACTIVITY = 'solveSchedule';

/**
 * The longest solve a request may ask for (`timeLimitSeconds`), in seconds. The solver worker may
 * cap it lower (SOLVER_TIME_LIMIT_SECONDS, default 30). Every solve also ends: an infeasible
 * instance's explanation takes at most the same time again.
 */
export const MAX_TIME_LIMIT_SECONDS = 60;
/** The bound before MAX_TIME_LIMIT_SECONDS: runs recorded with it are read with their limit lowered. */
const LEGACY_MAX_TIME_LIMIT_SECONDS = 600;
/** The `patched()` id of rejecting time limits above MAX_TIME_LIMIT_SECONDS at the workflow's start. */
export const SCHEDULE_TIME_LIMIT_CAP_PATCH = 'schedule-time-limit-cap';

/**
 * The raw input of a run recorded before the cap, with a `timeLimitSeconds` between the cap and
 * the old bound lowered to the cap (at `path`, e.g. ['schedule'] in an interview's input), so
 * that it passes the schema again on replay instead of failing a run that is already under way.
 * Anything else is returned as it is (the same object), for the schema to judge.
 */
export function lowerLegacyTimeLimit(raw: unknown, path: string[] = []): unknown {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return raw;
  const record = raw as Record<string, unknown>;
  if (path.length > 0) {
    const [head, ...rest] = path as [string, ...string[]];
    const inner = lowerLegacyTimeLimit(record[head], rest);
    return inner === record[head] ? raw : { ...record, [head]: inner };
  }
  const limit = record.timeLimitSeconds;
  return typeof limit === 'number' && limit > MAX_TIME_LIMIT_SECONDS && limit <= LEGACY_MAX_TIME_LIMIT_SECONDS
    ? { ...record, timeLimitSeconds: MAX_TIME_LIMIT_SECONDS }
    : raw;
}

/**
 * Where a request stands on the solver worker, sent by the worker to the requesting workflow
 * (solver/worker.py): waiting for a slot with `ahead` requests to be served first, or solving
 * (`admitted`: its turn on that worker). `lane` is long when its time limit is above the worker's
 * short-job bound: long jobs share `longSlots` of the `slots`, the rest are kept for short ones.
 */
export const solverQueueUpdateSchema = z.object({
  seq: z.number().int().min(0).max(1e9),
  state: z.enum(['waiting', 'solving']),
  ahead: z.number().int().min(0).max(1e6).optional(),
  admitted: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
  lane: z.enum(['short', 'long']),
  slots: z.number().int().min(1).max(1e4),
  longSlots: z.number().int().min(1).max(1e4),
  running: z.number().int().min(0).max(1e4),
});
export type SolverQueueUpdate = z.infer<typeof solverQueueUpdateSchema>;
/** The solver worker's signal to a waiting or solving `scheduleFromScr` run. */
export const solverQueueSignal = defineSignal<[unknown]>('solverQueue');

/** The progress detail for a request waiting on the solver worker. */
export function describeSolverWait(update: SolverQueueUpdate): string {
  const ahead = update.ahead ?? 0;
  const lane =
    update.lane === 'long' ? ` (long jobs share ${update.longSlots} of the solver's ${update.slots} slot(s))` : '';
  return `waiting for a solver slot, ${ahead} ahead${lane}`;
}

/** Longest caller key: Temporal's fairness keys are at most 64 bytes. */
const MAX_CALLER_CHARS = 64;

/**
 * Who is asking for a solve, for the solver worker's round robin between callers (sent as the
 * activity's Temporal fairness key): the fairness key the run was started with (a client may name
 * its tenant), else the workflow at the root of the run (an interview for its schedule step), else
 * the run's own workflow. A claim, not an authenticated identity: see docs/schedule.md.
 * Printable ASCII of at most 64 characters: a longer or unusual id keeps a readable prefix and a hash.
 */
export function solverCaller(info: {
  workflowId: string;
  root?: { workflowId: string } | null;
  priority?: { fairnessKey?: string } | null;
}): string {
  const key = info.priority?.fairnessKey || info.root?.workflowId || info.workflowId;
  if (/^[\x21-\x7e]{1,64}$/.test(key)) return key;
  // FNV-1a over the UTF-16 code units: stable, deterministic, no Node built-ins (workflow code).
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193) >>> 0;
  const prefix = key.replace(/[^\x21-\x7e]+/g, '_').slice(0, MAX_CALLER_CHARS - 10);
  return `${prefix}~${hash.toString(16).padStart(8, '0')}`;
}

const timeUnitSchema = z.enum(Object.keys(TIME_UNITS) as [TimeUnit, ...TimeUnit[]]);
const timeSchema = z.object({ value: z.number().min(0).max(1e6), units: timeUnitSchema }).strict();

export const orderSchema = z
  .object({
    id: z.string().trim().min(1).max(60).optional(),
    /** A product (flow shop) or a routing / kind of job (job shop), in the firm's words. */
    product: z.string().trim().min(1).max(120),
    quantity: z.number().int().min(1).max(1_000_000).default(1),
    /** Due, counted from the start of the schedule. */
    due: timeSchema.optional(),
    /** Earliest start, counted from the start of the schedule. */
    release: timeSchema.optional(),
  })
  .strict();
export type Order = z.input<typeof orderSchema>;

/** The schedule options `runEadsInterview` accepts too (its optional last step). */
export const scheduleOptionsSchema = z
  .object({
    orders: z.array(orderSchema).max(500).optional(),
    /** soft: lateness is minimised; hard: due dates are deadlines (missed ones make the instance infeasible). */
    dueDates: z.enum(['soft', 'hard']).default('soft'),
    /** Overrides the firm's objective. */
    objective: z.enum(['makespan', 'total-tardiness']).optional(),
    /** Solver time limit in seconds (at most MAX_TIME_LIMIT_SECONDS); capped by the solver worker's SOLVER_TIME_LIMIT_SECONDS. */
    timeLimitSeconds: z.number().min(0.1).max(MAX_TIME_LIMIT_SECONDS).optional(),
    /** Also write the Gantt chart (SVG and PNG) to the artifact folder. */
    chart: z.boolean().default(true),
  })
  .strict();
export type ScheduleOptions = z.input<typeof scheduleOptionsSchema>;

const MAX_SCR_CHARS = 200_000;

export const scheduleFromScrInput = z
  .object({
    projectId: z
      .string()
      .regex(/^[a-z0-9][a-z0-9-]{0,47}$/, 'expected lower-case letters, digits and dashes (at most 48)')
      .describe('The project the SCR belongs to (names the files)'),
    firm: z.string().trim().min(1).max(200).optional(),
    /** The interview's `scr` (with `merged_scr`) or the merged SCR itself. */
    scr: z
      .record(z.string(), z.unknown())
      .refine((v) => JSON.stringify(v).length <= MAX_SCR_CHARS, `must be at most ${MAX_SCR_CHARS} characters of JSON`),
  })
  .extend(scheduleOptionsSchema.shape)
  .strict()
  .superRefine((input, ctx) => {
    // The work the SCR implies (orders × steps, tasks × resources, table and name sizes), checked
    // here so that no workflow task builds a problem too large to schedule or to send anywhere.
    const merged = input.scr.merged_scr === mergedScrOf(input.scr);
    for (const issue of scheduleWorkIssues(mergedScrOf(input.scr) as JsonObject, input.orders?.length ?? 0))
      ctx.addIssue({
        code: 'custom',
        path: issue.path.length ? ['scr', ...(merged ? ['merged_scr'] : []), ...issue.path] : ['orders'],
        message: issue.message,
      });
  });
export type ScheduleFromScrInput = z.input<typeof scheduleFromScrInput>;

/** What the solver activity returns (solver/worker.py). */
export interface SolverReply {
  solver: string;
  status: 'optimal' | 'feasible' | 'infeasible' | 'unknown' | 'invalid';
  objectiveName: string;
  objective: number | null;
  bound: number | null;
  makespan: number | null;
  totalTardiness: number | null;
  solveSeconds: number;
  tasks: Array<{ job: string; step: string; start: number; end: number }>;
  conflicts: Array<ProblemConflict & { jobs?: string[] }>;
}

export type SolverProblem = ScheduleProblem & { timeLimitSeconds?: number; workers?: number };

const scheduledStepSchema = z.object({
  step: z.string(),
  start: z.number(),
  end: z.number(),
  resources: z.array(z.string()),
});

export const minizincResultsSchema = z.object({
  status: z.enum(['optimal', 'feasible', 'infeasible', 'unknown', 'invalid']),
  solver: z.string(),
  objective: z.object({
    name: z.string(),
    firm: z.string().nullable(),
    value: z.number().nullable(),
    bound: z.number().nullable(),
    gap: z.number().nullable(),
    note: z.string().optional(),
  }),
  timeUnit: z.string(),
  makespan: z.number().nullable(),
  makespanText: z.string().nullable(),
  totalTardiness: z.number().nullable(),
  solveSeconds: z.number(),
  jobs: z.array(
    z.object({
      id: z.string(),
      product: z.string(),
      quantity: z.number(),
      route: z.string(),
      due: z.number().nullable(),
      end: z.number().nullable(),
      late: z.number().nullable(),
      steps: z.array(scheduledStepSchema),
    }),
  ),
  resources: z.array(
    z.object({
      name: z.string(),
      quantity: z.number(),
      busy: z.number(),
      utilisation: z.number(),
      peak: z.number(),
      changeovers: z.number(),
      assumed: z.string().optional(),
    }),
  ),
  conflicts: z.array(z.object({ kind: z.string(), detail: z.string() }).loose()),
});
export type MinizincResults = z.infer<typeof minizincResultsSchema>;

export const scheduleFromScrOutput = z.object({
  projectId: z.string(),
  problemType: z.string(),
  jobsSource: z.string(),
  notes: z.array(z.string()),
  minizinc: z.object({
    model: z.string(),
    data: z.string(),
    files: z
      .object({
        model: z.string(),
        data: z.string(),
        /** Artifact references (`gs://bucket/key` or keys); runs from before references carry only the paths. */
        refs: z.object({ model: z.string(), data: z.string() }).optional(),
      })
      .nullable(),
  }),
  minizinc_results: minizincResultsSchema,
  chart: z
    .object({ svg: z.string(), png: z.string(), refs: z.object({ svg: z.string(), png: z.string() }).optional() })
    .nullable(),
});
export type ScheduleFromScrOutput = z.infer<typeof scheduleFromScrOutput>;

/** The merged SCR, whether given the interview's whole `scr` or the merged one. */
export function mergedScrOf(scr: Record<string, unknown>): Record<string, unknown> {
  const merged = scr.merged_scr;
  return merged && typeof merged === 'object' && !Array.isArray(merged) ? (merged as Record<string, unknown>) : scr;
}

/** The solver's reply, read against the problem: per job and step, per resource, status and reasons. */
export function summariseSchedule(problem: ScheduleProblem, reply: SolverReply): MinizincResults {
  const byKey = new Map<string, { start: number; end: number }[]>();
  for (const t of reply.tasks) {
    const key = `${t.job}\u0000${t.step}`;
    byKey.set(key, [...(byKey.get(key) ?? []), t]);
  }
  const solved = reply.tasks.length > 0;
  const jobs = problem.jobs.map((job) => {
    const seen = new Map<string, number>();
    const steps = solved
      ? job.tasks.map((task) => {
          const n = seen.get(task.step) ?? 0;
          seen.set(task.step, n + 1);
          const slot = byKey.get(`${job.id}\u0000${task.step}`)?.[n];
          return {
            step: task.step,
            start: slot?.start ?? NaN,
            end: slot?.end ?? NaN,
            resources: task.uses.map((u) => u.resource),
          };
        })
      : [];
    const end = steps.length ? steps[steps.length - 1]!.end : null;
    return {
      id: job.id,
      product: job.product,
      quantity: job.quantity,
      route: job.route,
      due: job.due ?? null,
      end,
      late: end !== null && job.due !== undefined ? Math.max(0, end - job.due) : null,
      steps,
    };
  });
  const makespan = reply.makespan;
  // Each resource's uses, gathered in one pass over the tasks (jobs and problem jobs share their order).
  const usesOf = new Map<string, Array<{ start: number; end: number; units: number; product: string }>>();
  jobs.forEach((job, j) => {
    job.steps.forEach((s, i) => {
      for (const u of problem.jobs[j]!.tasks[i]!.uses) {
        const list = usesOf.get(u.resource) ?? [];
        list.push({ start: s.start, end: s.end, units: u.units, product: job.product });
        usesOf.set(u.resource, list);
      }
    });
  });
  const resources = problem.resources.map((r) => {
    const uses = usesOf.get(r.name) ?? [];
    const busy = uses.reduce((n, u) => n + (u.end - u.start) * u.units, 0);
    const peak = peakUnits(uses);
    // A changeover: consecutive uses of the resource (in start order) for different products.
    const ordered = [...uses].sort((a, b) => a.start - b.start);
    const changeovers = ordered.reduce((n, u, i) => n + (i > 0 && ordered[i - 1]!.product !== u.product ? 1 : 0), 0);
    const capacityTime = r.quantity * (makespan ?? 0);
    return {
      name: r.name,
      quantity: r.quantity,
      busy,
      utilisation: capacityTime > 0 ? Math.round((busy / capacityTime) * 1000) / 1000 : 0,
      peak,
      changeovers,
      ...(r.assumed ? { assumed: r.assumed } : {}),
    };
  });
  const gap =
    reply.objective !== null && reply.bound !== null
      ? Math.round(((reply.objective - reply.bound) / Math.max(1, Math.abs(reply.objective))) * 10000) / 10000
      : null;
  return {
    status: reply.status,
    solver: reply.solver,
    objective: {
      name: problem.objective.solved,
      firm: problem.objective.firm,
      value: reply.objective,
      bound: reply.bound,
      gap,
      ...(problem.objective.note ? { note: problem.objective.note } : {}),
    },
    timeUnit: problem.timeUnit,
    makespan,
    makespanText: makespan !== null ? formatTime(makespan, problem.timeUnit) : null,
    totalTardiness: reply.totalTardiness,
    solveSeconds: reply.solveSeconds,
    jobs,
    resources,
    conflicts: reply.conflicts.map((c) => ({ ...c })),
  };
}

/**
 * The most units in use at once: at each use's start, the units of the uses running then
 * (start <= t < end). A sweep over the sorted starts and ends, not a scan of all uses per use:
 * this runs in workflow code, on up to SCHEDULE_LIMITS.tasks tasks. Uses without a slot (NaN)
 * count nowhere, as before.
 */
export function peakUnits(uses: ReadonlyArray<{ start: number; end: number; units: number }>): number {
  const events: Array<[time: number, delta: number]> = [];
  for (const u of uses) {
    if (!(u.start < u.end)) continue; // NaN, or a use that holds nothing at any instant
    events.push([u.start, u.units], [u.end, -u.units]);
  }
  // Ends before starts at the same instant: a use that ends at t is not running at t.
  events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let running = 0;
  let peak = 0;
  for (let i = 0; i < events.length; i++) {
    running += events[i]![1];
    const last = i + 1 === events.length || events[i + 1]![0] !== events[i]![0];
    if (last && events[i]![1] > 0) peak = Math.max(peak, running);
  }
  return peak;
}

/** One line: status, objective in the firm's time units, gap when not proven optimal, jobs. */
export function describeSchedule(r: MinizincResults): string {
  const unit = r.timeUnit as TimeUnit;
  const late =
    r.objective.name === 'total-tardiness' && r.totalTardiness !== null
      ? `total lateness ${formatTime(r.totalTardiness, unit)}, `
      : '';
  const gap =
    r.status === 'feasible' && r.objective.gap !== null ? ` (gap ${(r.objective.gap * 100).toFixed(1)}%)` : '';
  return `${r.status}${gap}, ${late}makespan ${r.makespanText ?? '-'}, ${r.jobs.length} job(s)`;
}

/** The reply when the problem is infeasible before any search (conflicts found statically). */
export function infeasibleReply(problem: ScheduleProblem, conflicts = staticConflicts(problem)): SolverReply {
  return {
    solver: 'static check (no search needed)',
    status: 'infeasible',
    objectiveName: problem.objective.solved,
    objective: null,
    bound: null,
    makespan: null,
    totalTardiness: null,
    solveSeconds: 0,
    tasks: [],
    conflicts,
  };
}

export const scheduleFromScrFlow: FlowDefinition<typeof scheduleFromScrInput, typeof scheduleFromScrOutput> = {
  type: 'scheduleFromScr',
  slug: 'schedule',
  mcpTool: 'schedule_from_scr',
  title: 'Schedule from an SCR',
  description:
    "Turns an EADS interview's SCR (flow shop or job shop) and a list of orders into " +
    'a MiniZinc model, a schedule solved by OR-Tools CP-SAT, and a Gantt chart (SVG ' +
    'and PNG); re-run it with new orders without repeating the interview.',
  tags: ['eads', 'scheduling', 'minizinc', 'cp-sat', 'gantt'],
  input: scheduleFromScrInput,
  output: scheduleFromScrOutput,
  idKey: (input) => input.projectId,
  summary: (input) =>
    `Schedule for ${oneLine(input.firm ?? input.projectId, 60)} (${input.orders?.length ?? 'SCR'} order(s), due dates ${input.dueDates})`,
  describeResult: (out) => [
    `${out.problemType}: ${describeSchedule(out.minizinc_results)}, solved in ${out.minizinc_results.solveSeconds} s`,
    ...out.minizinc_results.conflicts.map((c) => `conflict: ${c.detail}`),
    ...(out.chart ? [`Gantt chart: ${out.chart.svg} and ${out.chart.png}`] : []),
    ...(out.minizinc.files ? [`MiniZinc: ${out.minizinc.files.model} ${out.minizinc.files.data}`] : []),
    ...out.notes.map((n) => `note: ${n}`),
  ],
  examples: [
    {
      projectId: 'demo-harrow',
      firm: 'Harrow Precision Engineering',
      scr: {
        'principal-problem-type': 'JOB-SHOP-SCHEDULING-PROBLEM',
        'unit-processes': [
          { 'process-id': 'saw-cut', resources: ['bandsaw'], duration: { units: 'minutes', 'value-string': '10' } },
          {
            'process-id': 'cnc-turning',
            resources: ['cnc lathe'],
            duration: { units: 'minutes', 'value-string': '35' },
          },
        ],
        routings: [{ 'routing-id': 'shaft', steps: ['saw-cut', 'cnc-turning'] }],
        'resource-pools': [
          { 'resource-id': 'bandsaw', quantity: '1' },
          { 'resource-id': 'cnc lathe', quantity: '3' },
        ],
      },
      orders: [{ product: 'shaft', due: { value: 2, units: 'hours' } }],
    },
  ],
};
