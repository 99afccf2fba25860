/**
 * Start-of-workflow chores shared by every flow: validate the single JSON argument and tag the
 * execution with the `AgentFlow` search attribute (so `temporal workflow list --query
 * 'AgentFlow="..."'` works for flows started by any client, including the `temporal` CLI).
 */
import { setWorkflowOptions, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { z } from 'zod';
import { flowSearchAttribute, parseFlowInput } from '../../../contracts/common';
import { ProgressTracker } from './progress';

export function beginFlow<S extends z.ZodType>(
  flow: string,
  schema: S,
  raw: unknown,
): { input: z.output<S>; progress: ProgressTracker } {
  const progress = new ProgressTracker(flow);
  const input = parseFlowInput(flow, schema, raw);
  if (workflowInfo().typedSearchAttributes.get(flowSearchAttribute) !== flow) {
    upsertSearchAttributes([{ key: flowSearchAttribute, value: flow }]);
  }
  return { input, progress };
}

/**
 * Every flow ends: an error a flow's code throws (a bug, data no check foresaw) fails the run,
 * with the error's type and message, instead of failing the workflow task, which Temporal retries
 * without end while the run stays Running and burns the worker. The same holds for an error thrown
 * in a signal handler (it fails the run) and in an update handler (it fails that update).
 *
 * The SDK's per-workflow `failureExceptionTypes` does this. Its worker-wide twin,
 * `WorkerOptions.workflowFailureErrorTypes`, cannot: it names error types as strings, and the only
 * string that covers a plain `Error` ("Error") also fails runs on non-determinism. Non-determinism
 * (a worker running code that no longer matches a run's history) must keep failing the task: the
 * run waits, and carries on once the right code is deployed. `[Error]` here leaves it so.
 *
 * What this cannot end: a task that runs past the worker's 5-second limit (a deadlock, as the SDK
 * calls it) or whose commands exceed Temporal's payload limit (PayloadsTooLarge) fails in the
 * worker, outside workflow code, and is retried. Inputs are bounded so that neither can happen.
 */
export function endsOnError<F extends (...args: never[]) => Promise<unknown>>(workflow: F): F {
  setWorkflowOptions({ failureExceptionTypes: [Error] }, workflow);
  return workflow;
}
