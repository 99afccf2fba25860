/**
 * What every activity shares: backend errors become the right Temporal failures, and long
 * backend calls heartbeat and stop when Temporal cancels the activity.
 */
import { Context, log } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { z } from 'zod';
import { BackendError } from '../../../backends/errors';
import { redactCredentials } from '../../../plumbing/redaction';
import type { ModelBackend, ModelRequest, WebSearchReply, WebSearchRequest } from '../../../backends/model/types';
import { capMessage, type TokenUsage } from '../../../contracts/common';
import type { ModelTaskId, ModelTaskSections } from '../../../contracts/model-tasks';
import { errorKind, recordModelCall } from './model-metrics';

/**
 * How many attempts a model step whose every reply was cut at the token limit gets: the second is
 * a new sample of the same prompt (sometimes shorter); after that, it fails for good instead of
 * waiting through the rest of its policy's attempts and back-offs (the proposal's stages on the
 * local model spent minutes so, and the EADS interview pursued EADS after EADS).
 */
export const CUT_OFF_ATTEMPTS = 2;
const CUT_OFF_RETRY_DELAY_MS = 500;

/**
 * Converts a BackendError into an ApplicationFailure Temporal understands; other errors pass
 * through. `attempt` is the activity's attempt (1 for the first).
 */
export function toFailure(err: unknown, attempt = 1): unknown {
  if (err instanceof BackendError) {
    const cutOff = err.retryable && err.options.cutOff === true;
    const lastCut = cutOff && attempt >= CUT_OFF_ATTEMPTS;
    return ApplicationFailure.create({
      // Capped: a provider's error body can be large, and the failure lands in history.
      message: capMessage(
        lastCut
          ? `${err.message} (attempt ${attempt}): not retried further, a higher token limit or a model that answers more briefly is needed`
          : err.message,
      ),
      type: err.type,
      nonRetryable: !err.retryable || lastCut,
      // A cut reply is tried again at once: waiting does not make it shorter.
      ...(cutOff && !lastCut ? { nextRetryDelay: CUT_OFF_RETRY_DELAY_MS } : {}),
      // The server said when to come back (429 or 503 with Retry-After): sooner is refused again.
      ...(err.retryable && err.options.retryAfterMs !== undefined ? { nextRetryDelay: err.options.retryAfterMs } : {}),
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

export interface BackendCallOptions {
  heartbeatEveryMs?: number;
  /**
   * What each heartbeat carries: an activity that resumes from its last heartbeat (a retry reads
   * it back) passes its progress here, since a heartbeat without details would erase it.
   */
  heartbeatDetails?: () => unknown;
}

/**
 * Runs a backend call inside an activity: heartbeats every few seconds (so a lost worker is
 * noticed at the heartbeat timeout, not the start-to-close timeout), passes the cancellation
 * signal on, and converts backend errors.
 */
export async function backendCall<T>(
  work: (signal: AbortSignal) => Promise<T>,
  { heartbeatEveryMs = 2000, heartbeatDetails }: BackendCallOptions = {},
): Promise<T> {
  // Activities run in an activity context; tests and benches give them one (MockActivityEnvironment).
  const ctx = Context.current();
  // A local activity runs inside its workflow task, which the worker keeps alive instead: the
  // server knows no such activity to heartbeat.
  const beat = () => (ctx.info.isLocal ? undefined : ctx.heartbeat(heartbeatDetails?.()));
  const timer = setInterval(beat, heartbeatEveryMs);
  try {
    beat();
    return await work(ctx.cancellationSignal);
  } catch (err) {
    if (ctx.cancellationSignal.aborted) throw ctx.cancellationSignal.reason ?? err;
    throw toFailure(err, ctx.info.attempt);
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

/** A model call through `backendCall`, recorded on the model metrics whether it answers or fails. */
async function recordedCall<R extends { usage: TokenUsage; repairs?: number }>(
  model: ModelBackend,
  task: string,
  call: (signal: AbortSignal) => Promise<R>,
  options?: BackendCallOptions,
): Promise<R> {
  const started = performance.now();
  let signal: AbortSignal | undefined;
  try {
    const reply = await backendCall((s) => {
      signal = s;
      return call(s);
    }, options);
    const repairs = reply.repairs ?? 0;
    recordModelCall({
      model,
      task,
      durationMs: performance.now() - started,
      outcome: repairs > 0 ? 'repaired' : 'ok',
      usage: reply.usage,
      repairs,
    });
    return reply;
  } catch (err) {
    recordModelCall({
      model,
      task,
      durationMs: performance.now() - started,
      outcome: 'failed',
      errorKind: errorKind(err, signal?.aborted === true),
    });
    throw err;
  }
}

/**
 * One structured model call as an activity step: returns the validated data and its token usage,
 * and records the call's outcome, tokens, repairs, latency and estimated cost (model-metrics.ts).
 */
export async function askModel<T extends ModelTaskId, S extends z.ZodType>(
  model: ModelBackend,
  request: TaskRequest<T, S>,
  options?: BackendCallOptions,
): Promise<ModelAnswer<z.output<S>>> {
  const reply = await recordedCall(model, request.task, (signal) => model.generate<S>({ ...request, signal }), options);
  return { data: reply.data, usage: reply.usage };
}

/**
 * One web search through the model (grounding with Google Search) as an activity step, recorded
 * like a structured call: it is a model call that costs tokens, so its calls, latency, tokens and
 * failures belong on the same metrics.
 */
export function askWeb(
  model: ModelBackend,
  search: NonNullable<ModelBackend['searchWeb']>,
  request: Omit<WebSearchRequest, 'signal'>,
  options?: BackendCallOptions,
): Promise<WebSearchReply> {
  return recordedCall(model, request.task, (signal) => search({ ...request, signal }), options);
}

/**
 * A legacy positional form the one-input-object form can always be told apart from: two or more
 * arguments, or a single argument that is not an object. (A legacy form whose only argument is an
 * object would look like the new call, so it does not type-check here.)
 */
export type DistinctLegacyArgs = [unknown, unknown, ...unknown[]] | [string | number | boolean | bigint];

/** A call with exactly one argument that is an object (not null, not an array): the one-input-object form. */
export function isInputObjectCall(args: readonly unknown[]): boolean {
  return args.length === 1 && typeof args[0] === 'object' && args[0] !== null && !Array.isArray(args[0]);
}

/**
 * An activity that takes one input object and, for ONE release, also its legacy positional
 * arguments (converted by `fromLegacy`). Its type is the object form only, so workflows
 * (`proxyActivities<typeof …>`) cannot call it the old way.
 *
 * Why: in the previous release these activities took positional arguments. An activity task keeps
 * the arguments it was scheduled with, so a task (or a retry of it) scheduled by a worker of the
 * previous release can run on a worker of this release after a deploy, where it would otherwise
 * read its input's fields off the first positional argument. (Workflow replay is not affected: the
 * SDK compares an activity's type and id with history, not its arguments; see docs/versioning.md.)
 *
 * A call is the object form when it has exactly one argument and that argument is an object (not
 * null, not an array); anything else is the legacy form. So an object-form call is never read as
 * legacy, and `DistinctLegacyArgs` keeps out legacy forms that could look like one.
 *
 * Remove it, and each `fromLegacy` converter, in the release after the one that introduced it:
 * once no workflow started before that deploy is still running, and the worker log no longer shows
 * "activity called with legacy positional arguments".
 */
export function acceptingLegacyPositionalArgs<I extends object, R, L extends DistinctLegacyArgs>(
  activity: (input: I) => Promise<R>,
  fromLegacy: (...legacy: L) => I,
): (input: I) => Promise<R> {
  return async (...args: unknown[]) => {
    if (isInputObjectCall(args)) return activity(args[0] as I);
    noteLegacyCall(args.length);
    return activity(fromLegacy(...(args as L)));
  };
}

function noteLegacyCall(argumentCount: number): void {
  try {
    // The activity logger adds the activity type, workflow id and attempt.
    log.warn('activity called with legacy positional arguments', { argumentCount });
  } catch {
    // Not in an activity context (a direct call): nothing to log to.
  }
}
