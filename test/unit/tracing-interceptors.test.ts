/**
 * Which starts turn workflow tracing on: only a valid W3C trace context in the start's trace header
 * (a client with tracing off still sends the header, empty).
 */
import { defaultPayloadConverter } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { startedWithTraceContext, TRACED_METHODS } from '../../flows/lib/workflow/tracing-interceptors';

const header = (carrier: unknown) => ({ '_tracer-data': defaultPayloadConverter.toPayload(carrier) });
const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

describe('startedWithTraceContext', () => {
  it('is true for a start carrying a valid traceparent', () => {
    expect(startedWithTraceContext(header({ traceparent: TRACEPARENT }))).toBe(true);
    expect(startedWithTraceContext(header({ traceparent: TRACEPARENT, tracestate: 'vendor=x' }))).toBe(true);
  });

  it('is false without the header, with an empty carrier (an untraced client) or an invalid context', () => {
    expect(startedWithTraceContext({})).toBe(false);
    expect(startedWithTraceContext(header({}))).toBe(false);
    expect(
      startedWithTraceContext(header({ traceparent: '00-00000000000000000000000000000000-00f067aa0ba902b7-01' })),
    ).toBe(false);
    expect(
      startedWithTraceContext(header({ traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01' })),
    ).toBe(false);
    expect(startedWithTraceContext(header({ traceparent: 'garbage' }))).toBe(false);
    expect(startedWithTraceContext(header('not an object'))).toBe(false);
    expect(
      startedWithTraceContext({
        '_tracer-data': { metadata: { encoding: new Uint8Array([1]) }, data: new Uint8Array([0xff]) },
      }),
    ).toBe(false);
  });
});

describe('TRACED_METHODS', () => {
  it("lists every method of Temporal's OpenTelemetry workflow interceptors (an SDK upgrade adding one fails here)", async () => {
    const otel = await import('@temporalio/interceptors-opentelemetry/lib/workflow');
    const methods = (proto: object) =>
      Object.getOwnPropertyNames(proto)
        .filter((n) => n !== 'constructor')
        .sort();
    expect([...TRACED_METHODS.inbound].sort()).toEqual(methods(otel.OpenTelemetryInboundInterceptor.prototype));
    expect([...TRACED_METHODS.outbound].sort()).toEqual(methods(otel.OpenTelemetryOutboundInterceptor.prototype));
    expect([...TRACED_METHODS.internals].sort()).toEqual(methods(otel.OpenTelemetryInternalsInterceptor.prototype));
  });
});
