/**
 * `scheduleFromScr`: SCR + orders → scheduling problem → MiniZinc model (pure, here) → CP-SAT
 * solve (the Python worker's `solveSchedule` activity on task queue `agent-flows-solver`) →
 * Gantt chart and model files (an activity on this worker). Deterministic; re-run it with new
 * orders and the interview is not repeated.
 */
import { ApplicationFailure, proxyActivities, rootCause } from '@temporalio/workflow';
import type { createScheduleActivities } from './activities';
import {
  infeasibleReply,
  mergedScrOf,
  scheduleFromScrFlow,
  SOLVE_SCHEDULE_ACTIVITY,
  SOLVER_TASK_QUEUE,
  summariseSchedule,
  type ScheduleFromScrOutput,
  type SolverProblem,
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
import { beginFlow } from '../lib/workflow/flow';
import { FailureType } from '../../contracts/failures';

type ScheduleActivities = ReturnType<typeof createScheduleActivities>;

const { writeScheduleArtifacts } = proxyActivities<ScheduleActivities>({
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 3 },
});

/** The solver runs on its own queue and may take its whole time limit: the timeout follows it. */
function solverActivity(timeLimitSeconds: number) {
  return proxyActivities<Record<typeof SOLVE_SCHEDULE_ACTIVITY, (problem: SolverProblem) => Promise<SolverReply>>>({
    taskQueue: SOLVER_TASK_QUEUE,
    // Waiting for a solver worker is not solving: a missing worker shows as a schedule-to-start timeout.
    scheduleToStartTimeout: '5 minutes',
    startToCloseTimeout: `${Math.ceil(timeLimitSeconds * 2 + 60)} seconds`,
    retry: {
      initialInterval: '1 second',
      maximumAttempts: 3,
      nonRetryableErrorTypes: [FailureType.ScheduleProblemInvalid],
    },
  })[SOLVE_SCHEDULE_ACTIVITY];
}

/** Default solver time limit when the input gives none (the solver worker caps it with SOLVER_TIME_LIMIT_SECONDS). */
export const DEFAULT_TIME_LIMIT_SECONDS = 10;

export async function scheduleFromScr(rawInput: unknown): Promise<ScheduleFromScrOutput> {
  const { input, progress } = beginFlow(scheduleFromScrFlow.type, scheduleFromScrFlow.input, rawInput);
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
    progress.stage('solve', `${problem.jobs.length} job(s) on CP-SAT, at most ${timeLimitSeconds} s`);
    try {
      reply = await solverActivity(timeLimitSeconds)({ ...problem, timeLimitSeconds });
    } catch (err) {
      const cause = rootCause(err) ?? String(err);
      throw ApplicationFailure.create({
        message: `scheduleFromScr: the solver failed: ${cause}`,
        type: FailureType.SolverFailed,
        nonRetryable: true,
      });
    }
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
