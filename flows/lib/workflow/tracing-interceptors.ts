/**
 * The workflow-side tracing interceptors, on only for a flow started with a trace context.
 *
 * Temporal's OpenTelemetry workflow interceptors wrap every activity, timer and child start in a
 * span, and every span and wrapper costs workflow-task time: in a discovery run of 80 validations
 * they were about a third of the workflow's own CPU time, spent for nobody when tracing is off.
 * Whether tracing is on is worker configuration, which workflow code cannot read, and a workflow
 * replayed on a worker configured otherwise must issue the same commands in the same order. So the
 * decision is made once per run from its history: traced when the start carried a valid W3C trace
 * context (a client with tracing on — the thin client, the control plane, MCP — sends one; the
 * `temporal` CLI does not), untraced otherwise. Activity spans do not depend on it: the worker
 * makes those when its own tracing is on.
 *
 * Runs recorded before this rule (no `TRACING_FOLLOWS_START` marker in their history) keep the
 * interceptors on, as they ran then.
 *
 * The OpenTelemetry modules are loaded only by a traced run: every workflow in the worker's cache
 * evaluates its own copy of the modules it loads, so an untraced run does not pay for them at all.
 */
import {
  defaultPayloadConverter,
  patched,
  type Next,
  type WorkflowInboundCallsInterceptor,
  type WorkflowInterceptors,
  type WorkflowInternalsInterceptor,
  type WorkflowOutboundCallsInterceptor,
} from '@temporalio/workflow';
import type { Payload } from '@temporalio/common';
import type * as OpenTelemetry from '@temporalio/interceptors-opentelemetry/lib/workflow';

/** The `patched()` id that marks runs deciding tracing from their start. */
export const TRACING_FOLLOWS_START = 'tracing-follows-start';

/** The header Temporal's OpenTelemetry interceptors carry the trace context in. */
const TRACE_HEADER = '_tracer-data';
const TRACEPARENT = /^[0-9a-f]{2}-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}$/;

/** True when the headers carry a valid W3C `traceparent` (an untraced client sends an empty one). */
export function startedWithTraceContext(headers: Record<string, Payload>): boolean {
  const payload = headers[TRACE_HEADER];
  if (!payload) return false;
  try {
    const carrier = defaultPayloadConverter.fromPayload<Record<string, unknown>>(payload);
    return typeof carrier?.traceparent === 'string' && TRACEPARENT.test(carrier.traceparent);
  } catch {
    return false;
  }
}

type Interceptor = Record<string, ((input: unknown, next: (input: unknown) => unknown) => unknown) | undefined>;

/**
 * The methods Temporal's OpenTelemetry workflow interceptors define (1.24), each passed through by
 * an untraced run. test/unit/tracing-interceptors.test.ts checks the lists against the package.
 */
export const TRACED_METHODS = {
  inbound: ['execute', 'handleSignal', 'handleUpdate', 'validateUpdate', 'handleQuery'],
  outbound: [
    'scheduleActivity',
    'scheduleLocalActivity',
    'startNexusOperation',
    'startChildWorkflowExecution',
    'continueAsNew',
    'signalWorkflow',
    'getLogAttributes',
    'getMetricTags',
  ],
  internals: ['dispose'],
} as const;

/** The OpenTelemetry interceptors for one run, loaded on first use (see the module comment). */
function openTelemetryInterceptors(): { inbound: Interceptor; outbound: Interceptor; internals: Interceptor } {
  // The bundler turns this into its own module require (deterministic): loaded only by a traced run.
  // eslint-disable-next-line @typescript-eslint/no-require-imports, no-restricted-globals
  const otel = require('@temporalio/interceptors-opentelemetry/lib/workflow') as typeof OpenTelemetry;
  return {
    inbound: new otel.OpenTelemetryInboundInterceptor() as unknown as Interceptor,
    outbound: new otel.OpenTelemetryOutboundInterceptor() as unknown as Interceptor,
    internals: new otel.OpenTelemetryInternalsInterceptor() as unknown as Interceptor,
  };
}

/**
 * One pass-through method per name: the OpenTelemetry interceptor's when the run is traced,
 * straight to `next` otherwise. Plain functions (not async): an untraced call adds no promise.
 */
function delegating<T extends object>(names: readonly string[], target: () => Interceptor | undefined): T {
  const methods: Interceptor = {};
  for (const name of names) {
    methods[name] = (input, next) => {
      const interceptor = target();
      const method = interceptor?.[name];
      return method ? method.call(interceptor, input, next) : next(input);
    };
  }
  return methods as T;
}

export const interceptors = (): WorkflowInterceptors => {
  // Per run: the factory is called once for each workflow the worker starts or replays.
  let traced: ReturnType<typeof openTelemetryInterceptors> | undefined;

  const inbound = delegating<WorkflowInboundCallsInterceptor>(TRACED_METHODS.inbound, () => traced?.inbound);
  // Signals and updates that arrive with the start are delivered once the workflow sets its
  // handlers, i.e. after `execute`, so every other interceptor call sees the decision made.
  inbound.execute = (input, next: Next<WorkflowInboundCallsInterceptor, 'execute'>) => {
    if (!patched(TRACING_FOLLOWS_START) || startedWithTraceContext(input.headers)) {
      traced = openTelemetryInterceptors();
      return (traced.inbound as unknown as Required<WorkflowInboundCallsInterceptor>).execute(input, next);
    }
    return next(input);
  };
  return {
    inbound: [inbound],
    outbound: [delegating<WorkflowOutboundCallsInterceptor>(TRACED_METHODS.outbound, () => traced?.outbound)],
    internals: [delegating<WorkflowInternalsInterceptor>(TRACED_METHODS.internals, () => traced?.internals)],
  };
};
