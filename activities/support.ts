/**
 * What every activity shares: backend errors become the right Temporal failures, and long
 * backend calls heartbeat and stop when Temporal cancels the activity.
 */
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { z } from 'zod';
import { BackendError, redactCredentials } from '../backends/errors';
import type { ModelBackend, ModelRequest } from '../backends/model/types';
import { capMessage, type TokenUsage } from '../contracts/common';
import type { ModelTaskId, ModelTaskSections } from '../contracts/model-tasks';

/** Converts a BackendError into an ApplicationFailure Temporal understands; other errors pass through. */
export function toFailure(err: unknown): unknown {
  if (err instanceof BackendError) {
    return ApplicationFailure.create({
      // Capped: a provider's error body can be large, and the failure lands in history.
      message: capMessage(err.message),
      type: err.type,
      nonRetryable: !err.retryable,
      details: err.options.status !== undefined ? [{ status: err.options.status }] : undefined,
    });
  }
  // Any other error keeps its type, with credentials cut from its message and stack (both reach history).
  if (err instanceof Error) {
    err.message = capMessage(redactCredentials(err.message));
    if (err.stack) err.stack = capMessage(redactCredentials(err.stack), 8000);
  }
  return err;
}

/**
 * Runs a backend call inside an activity: heartbeats every few seconds (so a lost worker is
 * noticed at the heartbeat timeout, not the start-to-close timeout), passes the cancellation
 * signal on, and converts backend errors.
 */
export async function backendCall<T>(work: (signal: AbortSignal) => Promise<T>, heartbeatEveryMs = 2000): Promise<T> {
  // Activities run in an activity context; tests and benches give them one (MockActivityEnvironment).
  const ctx = Context.current();
  const timer = setInterval(() => ctx.heartbeat(), heartbeatEveryMs);
  try {
    ctx.heartbeat();
    return await work(ctx.cancellationSignal);
  } catch (err) {
    if (ctx.cancellationSignal.aborted) throw ctx.cancellationSignal.reason ?? err;
    throw toFailure(err);
  } finally {
    clearInterval(timer);
  }
}

export interface ModelAnswer<T> {
  data: T;
  usage: TokenUsage;
}

/** A model request for one of the contract's tasks: its sections are the ones the task declares. */
export type TaskRequest<T extends ModelTaskId, S extends z.ZodType> = Omit<
  ModelRequest<S>,
  'signal' | 'task' | 'sections'
> & { task: T; sections: ModelTaskSections[T] };

/** One structured model call as an activity step: returns the validated data and its token usage. */
export async function askModel<T extends ModelTaskId, S extends z.ZodType>(
  model: ModelBackend,
  request: TaskRequest<T, S>,
): Promise<ModelAnswer<z.output<S>>> {
  const reply = await backendCall((signal) => model.generate<S>({ ...request, signal }));
  return { data: reply.data, usage: reply.usage };
}
