/**
 * The call to the shared CP-SAT solver worker (solver/worker.py, task queue agent-flows-solver):
 * who is asking (the caller the worker shares its slots between), how long the call may take,
 * and what the run's progress says meanwhile, from the worker's `solverQueue` signals:
 * "waiting for a solver slot, N ahead" until the search starts, then "solving".
 */
import {
  ApplicationFailure,
  isCancellation,
  patched,
  proxyActivities,
  rootCause,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import { FailureType } from '../../../contracts/failures';
import {
  describeSolverWait,
  SOLVE_SCHEDULE_ACTIVITY,
  solverCaller,
  solverQueueSignal,
  solverQueueUpdateSchema,
  SOLVER_TASK_QUEUE,
  type SolverProblem,
  type SolverReply,
} from '../contract';
import type { ProgressTracker } from '../../lib/workflow/progress';

/**
 * How long a request may wait in the solver worker's own queue (it takes more requests than it
 * runs at once, and orders them fairly). Waiting there counts against the activity's
 * start-to-close timeout; a dead worker is still noticed within the heartbeat timeout.
 */
const QUEUE_ALLOWANCE_SECONDS = 3600;

/** The solver runs on its own queue and may take its whole time limit twice (search, then explanation). */
function solverActivity(timeLimitSeconds: number, caller: string) {
  return proxyActivities<Record<typeof SOLVE_SCHEDULE_ACTIVITY, (problem: SolverProblem) => Promise<SolverReply>>>({
    taskQueue: SOLVER_TASK_QUEUE,
    // Waiting for a solver worker is not solving: a missing worker shows as a schedule-to-start timeout.
    scheduleToStartTimeout: '5 minutes',
    startToCloseTimeout: `${QUEUE_ALLOWANCE_SECONDS + Math.ceil(timeLimitSeconds * 2 + 60)} seconds`,
    // The worker heartbeats while the request waits and while it solves: a cancel reaches it (and
    // stops the search), and a worker that died is noticed in seconds.
    heartbeatTimeout: '10 seconds',
    // The caller the worker's round robin goes by; also Temporal's own fairness key for the queue.
    priority: { fairnessKey: caller },
    retry: {
      initialInterval: '1 second',
      maximumAttempts: 3,
      nonRetryableErrorTypes: [FailureType.ScheduleProblemInvalid],
    },
  })[SOLVE_SCHEDULE_ACTIVITY];
}

/** The `patched()` id of a cancelled schedule ending Cancelled (it used to fail with SolverFailed). */
export const SCHEDULE_CANCEL_PATCH = 'schedule-cancel-ends-cancelled';

/**
 * Solves `problem` on the solver worker with `timeLimitSeconds`, keeping `progress` on stage
 * `solve`: waiting (with the place in the worker's queue once it is known), then running.
 * A failure of the solver becomes a non-retryable SolverFailed. A cancelled run ends Cancelled,
 * as every flow does; runs started before SCHEDULE_CANCEL_PATCH failed with SolverFailed then too
 * (their histories end that way).
 */
export async function solveOnSharedSolver(
  problem: SolverProblem,
  timeLimitSeconds: number,
  progress: ProgressTracker,
): Promise<SolverReply> {
  const solving = `${problem.jobs.length} job(s) on CP-SAT, at most ${timeLimitSeconds} s`;
  let open = true;
  let lastSeq = -1;
  // Signals are read only while this call is open, and only as numbers: a forged or late one
  // cannot put text of its own into the progress, nor move a finished run back to waiting.
  setHandler(solverQueueSignal, (raw) => {
    const parsed = solverQueueUpdateSchema.safeParse(raw);
    if (!open || !parsed.success || parsed.data.seq <= lastSeq) return;
    lastSeq = parsed.data.seq;
    if (parsed.data.state === 'solving') progress.stage('solve', solving);
    else progress.waiting(describeSolverWait(parsed.data));
  });
  progress.stage('solve', solving);
  progress.waiting(`waiting for a solver slot (${solving})`);
  try {
    return await solverActivity(timeLimitSeconds, solverCaller(workflowInfo()))({ ...problem, timeLimitSeconds });
  } catch (err) {
    if (isCancellation(err) && patched(SCHEDULE_CANCEL_PATCH)) throw err;
    const cause = rootCause(err) ?? String(err);
    throw ApplicationFailure.create({
      message: `scheduleFromScr: the solver failed: ${cause}`,
      type: FailureType.SolverFailed,
      nonRetryable: true,
    });
  } finally {
    open = false;
  }
}
