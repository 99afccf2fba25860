// No Temporal library here: the console and the control plane's routes read failures before
// anything has loaded the client.
/**
 * Why a run failed, for a person: the innermost cause's message (an activity's "unknown fixture
 * …", not "Activity task failed"), after its type when the failure names one
 * (`TargetSchemaMissing: …`).
 */
export function failureReason(err: unknown): string {
  let cause: unknown = err;
  let type: string | undefined;
  while (cause instanceof Error) {
    const named = (cause as { type?: unknown }).type;
    if (typeof named === 'string' && named && named !== 'Error') type = named;
    if (!(cause.cause instanceof Error)) break;
    cause = cause.cause;
  }
  const message = cause instanceof Error ? cause.message : String(cause);
  return type && !message.startsWith(type) ? `${type}: ${message}` : message;
}
