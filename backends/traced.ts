/**
 * Spans around backend calls (model, warehouse, search). Without a registered tracer provider
 * (tracing off) the API hands out a no-op tracer, so this costs next to nothing.
 * The span is a child of the active one: inside an activity, the activity's span.
 */
import * as otel from '@opentelemetry/api';

export const tracer = () => otel.trace.getTracer('agent-flows');

/** Runs `fn` in a span; `after` adds attributes from the result (token counts, bytes billed...). */
export async function inSpan<T>(
  name: string,
  attributes: otel.Attributes,
  fn: () => Promise<T>,
  after?: (result: T) => otel.Attributes,
): Promise<T> {
  return tracer().startActiveSpan(name, { attributes, kind: otel.SpanKind.CLIENT }, async (span) => {
    try {
      const result = await fn();
      if (after) span.setAttributes(after(result));
      return result;
    } catch (err) {
      // The error's name and a short message only: error text may quote the backend's response.
      span.setAttribute('error.type', (err as Error)?.name ?? 'Error');
      span.setStatus({
        code: otel.SpanStatusCode.ERROR,
        message: String((err as Error)?.message ?? err).slice(0, 200),
      });
      throw err;
    } finally {
      span.end();
    }
  });
}
