/**
 * Credentials never leave a backend in an error. A provider's error body can reflect the API key
 * (`key=...` in a quoted URL, a bearer token, the key itself), and backend errors become
 * workflow failures (stored in history) and log lines. Every BackendError message, and the
 * message of every error an activity lets through, passes through `redactCredentials`
 * (plumbing/redaction.ts).
 */
import { redactCredentials } from '../plumbing/redaction';

/** A copy of an error safe to keep as a cause: redacted message, no body or request (which can hold the key). */
function redactedCause(cause: unknown): unknown {
  if (!(cause instanceof Error)) return cause === undefined ? undefined : redactCredentials(String(cause));
  const copy = new Error(redactCredentials(cause.message));
  copy.name = cause.name;
  const { code, status } = cause as { code?: unknown; status?: unknown };
  Object.assign(copy, code !== undefined ? { code } : {}, status !== undefined ? { status } : {});
  copy.stack = `${copy.name}: ${copy.message}`;
  return copy;
}

export interface BackendErrorOptions {
  backend: 'model' | 'warehouse' | 'search';
  retryable: boolean;
  /** Stable machine-readable type, used as the Temporal failure type. */
  type: string;
  status?: number;
  /**
   * How long the server asked to wait before the next attempt (its `Retry-After`): the activity's
   * next retry waits that long instead of its policy's back-off.
   */
  retryAfterMs?: number;
  /**
   * Every reply of the call, repairs included, was cut at the token limit: the limit is below what
   * the model writes for this request. Waiting does not make a reply shorter, and the same prompt
   * under the same limit is cut again but for the sampling: the activity retries it once, at once,
   * and then gives up (toFailure in flows/lib/activities/support.ts).
   */
  cutOff?: boolean;
  /** Kept redacted: message, name, code and status only. */
  cause?: unknown;
}

/**
 * The one error type backends throw. Activities turn it into the right Temporal failure:
 * retryable faults (429, 5xx, time-outs, connection drops) are retried by Temporal's policy;
 * permanent ones (bad request, bad credentials, invalid configuration) fail at once.
 */
export class BackendError extends Error {
  readonly options: BackendErrorOptions;
  constructor(message: string, options: BackendErrorOptions) {
    const cause = redactedCause(options.cause);
    super(redactCredentials(message), { cause });
    this.name = 'BackendError';
    this.options = { ...options, cause };
  }
  get retryable(): boolean {
    return this.options.retryable;
  }
  get type(): string {
    return this.options.type;
  }
}

/** The longest `Retry-After` honoured: the longest back-off of the model steps' retry policies. */
export const MAX_RETRY_AFTER_MS = 120_000;
/** And waits at least this long: a retry at once is what the server asked to be spared. */
export const MIN_RETRY_AFTER_MS = 1_000;

/**
 * A response's `Retry-After` (seconds or an HTTP date) or `retry-after-ms` (OpenAI's) as
 * milliseconds, at most MAX_RETRY_AFTER_MS; undefined when absent or unreadable.
 */
export function retryAfterMs(
  headers: { get(name: string): string | null } | undefined,
  now = Date.now(),
): number | undefined {
  const ms = headers?.get('retry-after-ms');
  const value = headers?.get('retry-after');
  let wait: number | undefined;
  const number = /^\s*\d+(\.\d+)?\s*$/;
  // Only plain non-negative numbers count: a blank, a sign or a word falls back to Retry-After.
  if (ms && number.test(ms)) wait = Number(ms);
  else if (value && number.test(value)) wait = Number(value) * 1000;
  else if (value && !Number.isNaN(Date.parse(value))) wait = Date.parse(value) - now;
  if (wait === undefined || !(wait >= 0)) return undefined;
  // A server saying "0" would otherwise have every remaining attempt fired at once.
  return Math.min(Math.max(Math.round(wait), MIN_RETRY_AFTER_MS), MAX_RETRY_AFTER_MS);
}

/** HTTP statuses worth retrying: rate limits, server faults and gateway time-outs. */
export function isRetryableStatus(status: number | undefined): boolean {
  return status === undefined || status === 408 || status === 429 || status >= 500;
}

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** True for errors that mean "the request did not get an answer" rather than "the answer was no". */
export function isTransportError(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: string }).code ?? (err.cause as { code?: string } | undefined)?.code;
  if (code && NETWORK_CODES.has(code)) return true;
  return (
    err.name === 'AbortError' ||
    err.name === 'TimeoutError' ||
    /fetch failed|socket hang up|timed? ?out/i.test(err.message)
  );
}

/**
 * Waits for `work`, unless `signal` aborts first: then `onAbort` runs once (cancel the BigQuery
 * job, abort the HTTP request) and the wait ends with the signal's reason. Temporal's activity
 * cancellation reaches the provider this way instead of leaving a query running and billed.
 */
export async function untilAborted<T>(
  signal: AbortSignal | undefined,
  work: Promise<T>,
  onAbort: () => unknown,
): Promise<T> {
  if (!signal) return work;
  const reasonOf = () => signal.reason ?? Object.assign(new Error('aborted'), { name: 'AbortError' });
  if (signal.aborted) {
    work.catch(() => undefined);
    await Promise.resolve(onAbort()).catch(() => undefined);
    throw reasonOf();
  }
  let listener: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    listener = () => {
      Promise.resolve()
        .then(onAbort)
        .catch(() => undefined)
        .finally(() => reject(reasonOf()));
    };
    signal.addEventListener('abort', listener, { once: true });
  });
  try {
    return await Promise.race([work, aborted]);
  } finally {
    signal.removeEventListener('abort', listener!);
    // The abandoned side must not become an unhandled rejection.
    work.catch(() => undefined);
    aborted.catch(() => undefined);
  }
}
