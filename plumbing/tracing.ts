/**
 * OpenTelemetry tracing with Temporal's own interceptors: one trace from the client's start
 * (CLI, control plane execute, MCP tool) through the workflow, each activity and each backend call.
 *
 * On only when OTEL_EXPORTER_OTLP_ENDPOINT is set (spans go over OTLP/HTTP to `<endpoint>/v1/traces`)
 * or a test hands in an exporter. Off, no tracer provider is registered: the interceptors and the
 * backend wrappers then get the API's no-op tracer and cost next to nothing.
 *
 * The workflow-side interceptors run inside the workflow sandbox and hand finished spans to the
 * worker through a sink (`exporter`); they are always bundled (a bundle is built once, whatever
 * the runtime settings), so the worker always registers that sink. They trace a run only when it
 * was started with a trace context (flows/lib/workflow/tracing-interceptors.ts says why).
 */
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan, SpanExporter, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { WorkerOptions } from '@temporalio/worker';
import { parseSettings, tracingSettings, type Config } from './config';

// The SDK's modules are loaded only where used: a control plane with tracing off stays as small
// as before (its memory budget is 100 MB).
/* eslint-disable @typescript-eslint/no-require-imports */
const sdk = () => require('@opentelemetry/sdk-trace-base') as typeof import('@opentelemetry/sdk-trace-base');
const resources = () => require('@opentelemetry/resources') as typeof import('@opentelemetry/resources');
const interceptors = () =>
  require('@temporalio/interceptors-opentelemetry') as typeof import('@temporalio/interceptors-opentelemetry');
/* eslint-enable @typescript-eslint/no-require-imports */

export interface Tracing {
  enabled: boolean;
  /** Set when enabled: the service name on every span. */
  resource?: Resource;
  processor: SpanProcessor;
  /** Flushes and stops the exporter (spans still buffered are sent). */
  shutdown(): Promise<void>;
}

/** Drops every span: the workflow sink still needs a processor when tracing is off. */
const droppingProcessor: SpanProcessor = {
  onStart() {},
  onEnd(_span: ReadableSpan) {},
  forceFlush: async () => {},
  shutdown: async () => {},
};

let installed: Tracing | undefined;

/**
 * Installs the process's tracer provider (once; later calls return the first). `exporter` is for
 * tests (an in-memory exporter); otherwise the OTLP endpoint decides.
 */
export function setupTracing(
  config: Partial<Pick<Config, 'OTEL_EXPORTER_OTLP_ENDPOINT' | 'OTEL_SERVICE_NAME'>>,
  defaultServiceName: string,
  options: { exporter?: SpanExporter } = {},
): Tracing {
  if (installed) return installed;
  if (!options.exporter && !config.OTEL_EXPORTER_OTLP_ENDPOINT) {
    installed = { enabled: false, processor: droppingProcessor, shutdown: async () => {} };
    return installed;
  }
  const resource = new (resources().Resource)({ 'service.name': config.OTEL_SERVICE_NAME ?? defaultServiceName });
  let processor: SpanProcessor;
  if (options.exporter) processor = new (sdk().SimpleSpanProcessor)(options.exporter);
  else {
    const { OTLPTraceExporter } =
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only when tracing is on
      require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http');
    const url = `${config.OTEL_EXPORTER_OTLP_ENDPOINT!.replace(/\/+$/, '')}/v1/traces`;
    processor = new (sdk().BatchSpanProcessor)(new OTLPTraceExporter({ url }));
  }
  const { NodeTracerProvider } =
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only when tracing is on
    require('@opentelemetry/sdk-trace-node') as typeof import('@opentelemetry/sdk-trace-node');
  const provider = new NodeTracerProvider({ resource, spanProcessors: [processor] });
  // Registers the global provider, the AsyncLocalStorage context manager and the W3C propagator:
  // a backend call inside an activity becomes a child of the activity's span.
  provider.register();
  installed = { enabled: true, resource, processor, shutdown: () => provider.shutdown() };
  return installed;
}

/** The tracing installed in this process, or an off one. */
export function currentTracing(): Tracing {
  return installed ?? { enabled: false, processor: droppingProcessor, shutdown: async () => {} };
}

/** Worker options for tracing: activity interceptors and the sink that receives workflow spans. */
export function tracingWorkerOptions(
  tracing: Tracing = currentTracing(),
): Pick<WorkerOptions, 'interceptors' | 'sinks'> {
  const { makeWorkflowExporter, OpenTelemetryActivityInboundInterceptor, OpenTelemetryActivityOutboundInterceptor } =
    interceptors();
  return {
    interceptors: {
      // Only when tracing is on: otherwise they would make a span per activity for nobody.
      activity: tracing.enabled
        ? [
            (ctx) => ({
              inbound: new OpenTelemetryActivityInboundInterceptor(ctx),
              outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
            }),
          ]
        : [],
    },
    sinks: { exporter: makeWorkflowExporter(tracing.processor, tracing.resource ?? new (resources().Resource)({})) },
  };
}

/** The tracing settings alone, from the environment (the thin clients load no other setting). */
export function loadTracingSettings(env: Record<string, string | undefined> = process.env) {
  return parseSettings(tracingSettings, env);
}
