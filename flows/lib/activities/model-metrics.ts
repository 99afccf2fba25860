/**
 * Prometheus metrics of the model calls, recorded through the activity's Temporal metric meter so
 * they come out on the worker's existing endpoint (WORKER_METRICS_PORT) beside the SDK's own:
 * the SDK's exporter owns that port, and a second registry would need a second port to scrape.
 *
 * Every label is bounded: the workflow type and the task id come from the flows' registry (the
 * worker runs only the workflows and tasks its flows declare), the backend and model name from the
 * configuration, the error kind from the failure types of contracts/failures.ts. No free text.
 * The meter adds its own `namespace`, `taskQueue` and `activityType` tags.
 */
import { Context } from '@temporalio/activity';
import type { MetricMeter } from '@temporalio/common';
import { ApplicationFailure } from '@temporalio/common';
import { BackendError } from '../../../backends/errors';
import type { ModelBackend } from '../../../backends/model/types';
import type { TokenUsage } from '../../../contracts/common';
import { FailureType } from '../../../contracts/failures';

/** The metric names, as the worker's /metrics shows them (docs/observability.md). */
export const ModelMetric = {
  calls: 'agent_flows_model_calls',
  inputTokens: 'agent_flows_model_input_tokens',
  outputTokens: 'agent_flows_model_output_tokens',
  repairs: 'agent_flows_model_repairs',
  latency: 'agent_flows_model_latency_ms',
  cost: 'agent_flows_model_estimated_cost_microdollars',
} as const;

/**
 * The latency histogram's buckets, in milliseconds: the SDK's default ones stop at 10 s, and a
 * real model call (repairs included) often takes longer (MODEL_TIMEOUT_MS is 60 s by default).
 */
export const MODEL_LATENCY_BUCKETS_MS = [100, 250, 500, 1000, 2500, 5000, 10_000, 20_000, 30_000, 60_000, 120_000];

export type ModelCallOutcome = 'ok' | 'repaired' | 'failed';

const failureTypes = new Set<string>(Object.values(FailureType));

/** What a failed call is counted as: a known failure type, `cancelled`, or `other` (never the message). */
export function errorKind(err: unknown, cancelled: boolean): string {
  if (cancelled) return 'cancelled';
  // backendCall has turned a BackendError into an ApplicationFailure of the same type.
  const type = err instanceof BackendError || err instanceof ApplicationFailure ? err.type : undefined;
  if (type && failureTypes.has(type)) return type;
  return 'other';
}

export interface ModelCallRecord {
  model: ModelBackend;
  task: string;
  durationMs: number;
  outcome: ModelCallOutcome;
  errorKind?: string;
  usage?: TokenUsage;
  repairs?: number;
}

/** The activity's meter, or none outside an activity (a direct call in a script has nowhere to record). */
function activityMeter(): { meter: MetricMeter; workflowType: string } | undefined {
  try {
    const ctx = Context.current();
    return { meter: ctx.metricMeter, workflowType: ctx.info.workflowType ?? 'none' };
  } catch {
    return undefined;
  }
}

/**
 * Records one model call. Metrics must never fail the call they describe: a recording error is
 * swallowed (the SDK's meter is marked experimental).
 */
export function recordModelCall(call: ModelCallRecord): void {
  const found = activityMeter();
  if (!found) return;
  try {
    const meter = found.meter.withTags({
      flow: found.workflowType,
      task: call.task,
      backend: call.model.name,
      model: call.model.modelName ?? call.model.name,
    });
    meter
      .createCounter(ModelMetric.calls, 'calls', 'Model calls by outcome (ok, repaired, failed) and error kind')
      .add(1, { outcome: call.outcome, error_kind: call.errorKind ?? 'none' });
    meter
      .createHistogram(ModelMetric.latency, 'int', 'ms', 'Time of one model call, repairs included')
      .record(Math.max(0, Math.round(call.durationMs)), { outcome: call.outcome });
    if (call.usage) {
      meter
        .createCounter(ModelMetric.inputTokens, 'tokens', 'Prompt tokens sent to the model')
        .add(call.usage.promptTokens);
      meter
        .createCounter(ModelMetric.outputTokens, 'tokens', 'Output tokens the model answered with')
        .add(call.usage.outputTokens);
      const price = call.model.price;
      if (price) {
        // Prices are per million tokens, so tokens x price is already in millionths of a dollar.
        const micro =
          call.usage.promptTokens * price.inputPerMillionTokens +
          call.usage.outputTokens * price.outputPerMillionTokens;
        meter
          .createCounter(ModelMetric.cost, 'microdollars', 'Estimated model cost from the configured prices')
          .add(Math.round(micro));
      }
    }
    if (call.repairs) {
      meter
        .createCounter(ModelMetric.repairs, 'repairs', 'Replies sent back to the model with their validation error')
        .add(call.repairs);
    }
  } catch {
    // Nothing to do: the call's own result matters more than its metric.
  }
}
