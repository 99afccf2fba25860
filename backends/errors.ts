/**
 * The one error type backends throw. Activities turn it into the right Temporal failure:
 * retryable faults (429, 5xx, time-outs, connection drops) are retried by Temporal's policy;
 * permanent ones (bad request, bad credentials, invalid configuration) fail at once.
 */
export class BackendError extends Error {
  constructor(
    message: string,
    readonly options: {
      backend: 'model' | 'warehouse' | 'search';
      retryable: boolean;
      /** Stable machine-readable type, used as the Temporal failure type. */
      type: string;
      status?: number;
      cause?: unknown;
    },
  ) {
    super(message, { cause: options.cause });
    this.name = 'BackendError';
  }
  get retryable(): boolean {
    return this.options.retryable;
  }
  get type(): string {
    return this.options.type;
  }
}

/** HTTP statuses worth retrying: rate limits, server faults and gateway time-outs. */
export function isRetryableStatus(status: number | undefined): boolean {
  return status === undefined || status === 408 || status === 429 || status >= 500;
}

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EAI_AGAIN', 'UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT']);

/** True for errors that mean "the request did not get an answer" rather than "the answer was no". */
export function isTransportError(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: string }).code ?? (err.cause as { code?: string } | undefined)?.code;
  if (code && NETWORK_CODES.has(code)) return true;
  return err.name === 'AbortError' || err.name === 'TimeoutError' || /fetch failed|socket hang up|timed? ?out/i.test(err.message);
}
