/**
 * `scheduleFromScr`: SCR + orders → scheduling problem → MiniZinc model (pure, here) → CP-SAT
 * solve (the Python worker's `solveSchedule` activity on task queue `agent-flows-solver`) →
 * Gantt chart and model files (an activity on this worker). Deterministic; re-run it with new
 * orders and the interview is not repeated.
 */
import { ApplicationFailure, patched, proxyActivities } from '@temporalio/workflow';
import type { createScheduleActivities } from './activities';
import {
  infeasibleReply,
  lowerLegacyTimeLimit,
  mergedScrOf,
  SCHEDULE_TIME_LIMIT_CAP_PATCH,
  scheduleFromScrFlow,
  summariseSchedule,
  type ScheduleFromScrOutput,
  type SolverReply,
} from './contract';
import {
  buildScheduleProblem,
  ScheduleModelError,
  staticConflicts,
  toMiniZinc,
  type ScheduleProblem,
} from '../../domain/schedule-model';
import type { JsonObject } from '../../domain/eads-structure';
import type { z } from 'zod';
import { endingAsEveryFlow } from '../lib/workflow/ending';
import { beginFlow } from '../lib/workflow/flow';
import type { ProgressTracker } from '../lib/workflow/progress';
import { FailureType } from '../../contracts/failures';
import { solveOnSharedSolver } from './workflow/solver-call';

type ScheduleActivities = ReturnType<typeof createScheduleActivities>;

const { writeScheduleArtifacts } = proxyActivities<ScheduleActivities>({
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 3 },
});

/** Default solver time limit when the input gives none (the solver worker caps it with SOLVER_TIME_LIMIT_SECONDS). */
export const DEFAULT_TIME_LIMIT_SECONDS = 10;

export async function scheduleFromScr(rawInput: unknown): Promise<ScheduleFromScrOutput> {
  // A time limit above the cap is refused, except in runs recorded before the cap: they keep going
  // with it lowered. (Asked only of such inputs: other runs' histories stay as they were.)
  const lowered = lowerLegacyTimeLimit(rawInput);
  const raw = lowered === rawInput || patched(SCHEDULE_TIME_LIMIT_CAP_PATCH) ? rawInput : lowered;
  const { input, progress } = beginFlow(scheduleFromScrFlow.type, scheduleFromScrFlow.input, raw);
  return endingAsEveryFlow(progress, () => schedule(input, progress));
}

async function schedule(
  input: z.output<typeof scheduleFromScrFlow.input>,
  progress: ProgressTracker,
): Promise<ScheduleFromScrOutput> {
  progress.stage('model', 'SCR to scheduling problem and MiniZinc');
  let problem: ScheduleProblem;
  try {
    problem = buildScheduleProblem(mergedScrOf(input.scr) as JsonObject, {
      orders: input.orders,
      dueDates: input.dueDates,
      objective: input.objective,
      firm: input.firm ?? null,
    });
  } catch (err) {
    if (err instanceof ScheduleModelError)
      throw ApplicationFailure.create({
        message: `scheduleFromScr: ${err.message}`,
        type: FailureType.ScheduleModelError,
        nonRetryable: true,
        details: [{ field: err.field }],
      });
    throw err;
  }
  const minizinc = toMiniZinc(problem);
  const timeLimitSeconds = input.timeLimitSeconds ?? DEFAULT_TIME_LIMIT_SECONDS;

  const conflicts = staticConflicts(problem);
  let reply: SolverReply;
  if (conflicts.length) {
    reply = infeasibleReply(problem, conflicts);
  } else {
    reply = await solveOnSharedSolver(problem, timeLimitSeconds, progress);
  }
  const results = summariseSchedule(problem, reply);
  progress.stage('draw', results.status);
  const title = `${input.firm ?? input.projectId}: ${problem.kind} schedule`;
  const artifacts = await writeScheduleArtifacts({
    projectId: input.projectId,
    title,
    minizinc: { model: minizinc.model, data: minizinc.data },
    results,
    chart: input.chart,
  });
  progress.finish('completed', `${results.status}; makespan ${results.makespanText ?? '-'}`);
  return {
    projectId: input.projectId,
    problemType: problem.kind,
    jobsSource: problem.jobsSource,
    notes: [...problem.notes, ...(problem.objective.note ? [problem.objective.note] : [])],
    minizinc: { model: minizinc.model, data: minizinc.data, files: artifacts.files },
    minizinc_results: results,
    chart: artifacts.chart,
  };
}
