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
 * the runtime settings), so the worker always registers that sink.
 */
import { Resource } from '@opentelemetry/resources';
import {
  BatchSpanProcessor,
  SimpleSpanProcessor,
  type ReadableSpan,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import {
  makeWorkflowExporter,
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
  OpenTelemetryWorkflowClientInterceptor,
} from '@temporalio/interceptors-opentelemetry';
import type { WorkerOptions } from '@temporalio/worker';
import { parseSettings, tracingSettings, type Config } from '../contracts/config';

/** The workflow interceptor module every workflow bundle includes (see the module comment). */
export const WORKFLOW_INTERCEPTOR_MODULES = [require.resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors')];

export interface Tracing {
  enabled: boolean;
  resource: Resource;
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
  const resource = new Resource({ 'service.name': config.OTEL_SERVICE_NAME ?? defaultServiceName });
  let processor: SpanProcessor | undefined;
  if (options.exporter) processor = new SimpleSpanProcessor(options.exporter);
  else if (config.OTEL_EXPORTER_OTLP_ENDPOINT) {
    // Loaded only when used: the exporter pulls in protobuf and HTTP code the default path does not need.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http');
    const url = `${config.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, '')}/v1/traces`;
    processor = new BatchSpanProcessor(new OTLPTraceExporter({ url }));
  }
  if (!processor) {
    installed = { enabled: false, resource, processor: droppingProcessor, shutdown: async () => {} };
    return installed;
  }
  const provider = new NodeTracerProvider({ resource, spanProcessors: [processor] });
  // Registers the global provider, the AsyncLocalStorage context manager and the W3C propagator:
  // a backend call inside an activity becomes a child of the activity's span.
  provider.register();
  installed = { enabled: true, resource, processor, shutdown: () => provider.shutdown() };
  return installed;
}

/** The tracing installed in this process, or an off one. */
export function currentTracing(): Tracing {
  return installed ?? { enabled: false, resource: new Resource({}), processor: droppingProcessor, shutdown: async () => {} };
}

/** Client interceptors: a workflow start carries the caller's span context in its headers. */
export function tracingClientInterceptors(): { workflow: OpenTelemetryWorkflowClientInterceptor[] } {
  return { workflow: [new OpenTelemetryWorkflowClientInterceptor()] };
}

/** Worker options for tracing: activity interceptors and the sink that receives workflow spans. */
export function tracingWorkerOptions(tracing: Tracing = currentTracing()): Pick<WorkerOptions, 'interceptors' | 'sinks'> {
  return {
    interceptors: {
      activity: [
        (ctx) => ({
          inbound: new OpenTelemetryActivityInboundInterceptor(ctx),
          outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
        }),
      ],
      workflowModules: WORKFLOW_INTERCEPTOR_MODULES,
    },
    sinks: { exporter: makeWorkflowExporter(tracing.processor, tracing.resource) },
  };
}

/** The tracing settings alone, from the environment (the thin clients load no other setting). */
export function loadTracingSettings(env: Record<string, string | undefined> = process.env) {
  return parseSettings(tracingSettings, env);
}
