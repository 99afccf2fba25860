/**
 * The activity-option groups the flows share: what a kind of call needs (a quick read, a search,
 * a warehouse query, a model call, a long model call) lives here once; a flow spreads a preset
 * and overrides what its calls need differently, with `withOptions`.
 *
 * Timeouts and retries are behaviour: a flow's effective options must stay what they were when a
 * preset changes, so change a preset only when every flow using it should change.
 */
import type { ActivityOptions, LocalActivityOptions, RetryPolicy } from '@temporalio/workflow';

/** Options whose retry policy is always given (so an override can add to it). */
export type ActivityPreset = ActivityOptions & { retry: RetryPolicy };

/** Reading a local file or the library: quick, and a broken file will not heal. */
export const QUICK_READ: ActivityPreset = {
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumAttempts: 3 },
};

/** A search call: quick and cheap, so it fails over fast. */
export const SEARCH: ActivityPreset = {
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumAttempts: 5 },
};

/** A warehouse query: its rows are the answer, so more patience; it heartbeats while it runs. */
export const WAREHOUSE: ActivityPreset = {
  startToCloseTimeout: '1 minute',
  heartbeatTimeout: '20 seconds',
  retry: {
    initialInterval: '500 milliseconds',
    backoffCoefficient: 2,
    maximumInterval: '10 seconds',
    maximumAttempts: 5,
  },
};

/** A model call: patient retries with backoff (the model's 429/503 are retried here, not in the client). */
export const MODEL: ActivityPreset = {
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '20 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '20 seconds', maximumAttempts: 5 },
};

/** A long model call (a whole document in or out): a longer time-out and slower backoff. */
export const LONG_MODEL: ActivityPreset = {
  startToCloseTimeout: '3 minutes',
  heartbeatTimeout: '15 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 7, maximumInterval: '2 minutes', maximumAttempts: 5 },
};

/** A preset with some options changed; `retry` is merged into the preset's retry policy, not replacing it. */
export function withOptions(
  preset: ActivityPreset,
  overrides: Omit<ActivityOptions, 'retry'> & { retry?: RetryPolicy },
): ActivityPreset {
  return { ...preset, ...overrides, retry: { ...preset.retry, ...overrides.retry } };
}

/**
 * The same call as a local activity: run by the worker that runs the workflow, inside its
 * workflow task, so the result needs no round trip through the server. For the quick steps a
 * person waits on. Local activities do not heartbeat (the workflow task is kept alive instead).
 */
export function asLocal({ startToCloseTimeout, scheduleToCloseTimeout, retry }: ActivityPreset): LocalActivityOptions {
  return { startToCloseTimeout, scheduleToCloseTimeout, retry };
}
