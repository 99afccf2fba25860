/**
 * The model-call metrics: askModel records each call's outcome, tokens, repairs, latency and (with
 * a configured price) estimated cost on the activity's metric meter, labelled by flow and task.
 */
import type { MetricCounter, MetricHistogram, MetricMeter, MetricTags } from '@temporalio/common';
import { noopMetricMeter } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { BackendError } from '../../backends/errors';
import type { ModelBackend, ModelPrice, ModelReply } from '../../backends/model/types';
import { FailureType } from '../../contracts/failures';
import { askModel, askWeb } from '../../flows/lib/activities/support';
import { ModelMetric } from '../../flows/lib/activities/model-metrics';
import { parseConfig } from '../../plumbing/config';

interface Point {
  name: string;
  value: number;
  tags: MetricTags;
}

/** A meter that keeps every value it is given, with the tags in force when it was given. */
function recordingMeter(points: Point[], tags: MetricTags = {}): MetricMeter {
  const metric = (name: string, metricTags: MetricTags) => {
    const record = (value: number, extra: MetricTags = {}) =>
      points.push({ name, value, tags: { ...metricTags, ...extra } });
    return { name, record, add: record, withTags: (more: MetricTags) => metric(name, { ...metricTags, ...more }) };
  };
  return {
    createCounter: (name) => ({ ...metric(name, tags), kind: 'counter', valueType: 'int' }) as unknown as MetricCounter,
    createHistogram: (name) =>
      ({ ...metric(name, tags), kind: 'histogram', valueType: 'int' }) as unknown as MetricHistogram,
    createGauge: (name, valueType, unit, description) =>
      noopMetricMeter.createGauge(name, valueType, unit, description),
    withTags: (more) => recordingMeter(points, { ...tags, ...more }),
  };
}

function model(reply: () => Promise<Pick<ModelReply<unknown>, 'repairs'>>, price?: ModelPrice): ModelBackend {
  return {
    name: 'fake',
    modelName: 'fake-1',
    ...(price ? { price } : {}),
    async generate(request) {
      const { repairs } = await reply();
      return {
        data: request.schema.parse({ terms: ['bolt'] }),
        usage: { promptTokens: 10, outputTokens: 5, totalTokens: 15, calls: repairs + 1 },
        model: 'fake-1',
        repairs,
      };
    },
  };
}

async function call(backend: ModelBackend): Promise<{ points: Point[]; error?: unknown }> {
  const points: Point[] = [];
  const env = new MockActivityEnvironment(
    { workflowType: 'answerBomQuestion', activityType: 'focusTerms' },
    { logger: new DefaultLogger('ERROR'), metricMeter: recordingMeter(points) },
  );
  try {
    await env.run(() =>
      askModel(backend, {
        task: 'bom.focus_terms',
        instructions: 'Name the terms.',
        sections: { question: 'Which BOMs use bolts?' },
        schema: z.object({ terms: z.array(z.string()) }),
      }),
    );
    return { points };
  } catch (error) {
    return { points, error };
  }
}

const named = (points: Point[], name: string) => points.filter((p) => p.name === name);

describe('model-call metrics', () => {
  it('counts an answered call with its tokens and latency, labelled by flow, task and model', async () => {
    const { points } = await call(model(async () => ({ repairs: 0 })));
    const [calls] = named(points, ModelMetric.calls);
    expect(calls).toMatchObject({
      value: 1,
      tags: {
        flow: 'answerBomQuestion',
        task: 'bom.focus_terms',
        backend: 'fake',
        model: 'fake-1',
        outcome: 'ok',
        error_kind: 'none',
        activityType: 'focusTerms',
      },
    });
    expect(named(points, ModelMetric.inputTokens).map((p) => p.value)).toEqual([10]);
    expect(named(points, ModelMetric.outputTokens).map((p) => p.value)).toEqual([5]);
    expect(named(points, ModelMetric.latency)).toHaveLength(1);
    expect(named(points, ModelMetric.latency)[0].value).toBeGreaterThanOrEqual(0);
    expect(named(points, ModelMetric.repairs)).toEqual([]);
    // No price configured: no cost series at all.
    expect(named(points, ModelMetric.cost)).toEqual([]);
  });

  it('counts a repaired call and its repairs', async () => {
    const { points } = await call(model(async () => ({ repairs: 2 })));
    expect(named(points, ModelMetric.calls)[0].tags).toMatchObject({ outcome: 'repaired' });
    expect(named(points, ModelMetric.repairs).map((p) => p.value)).toEqual([2]);
  });

  it('counts a failed call by its failure type, never its message, and still fails the call', async () => {
    const unavailable = new BackendError('model down: 503 secret-ish body', {
      backend: 'model',
      retryable: true,
      type: FailureType.ModelUnavailable,
    });
    const { points, error } = await call(
      model(async () => {
        throw unavailable;
      }),
    );
    expect(error).toMatchObject({ type: FailureType.ModelUnavailable });
    const [calls] = named(points, ModelMetric.calls);
    expect(calls.tags).toMatchObject({ outcome: 'failed', error_kind: FailureType.ModelUnavailable });
    expect(JSON.stringify(points)).not.toContain('secret-ish');
    expect(named(points, ModelMetric.latency)[0].tags).toMatchObject({ outcome: 'failed' });
    expect(named(points, ModelMetric.inputTokens)).toEqual([]);

    const other = await call(
      model(async () => {
        throw new Error('free text from somewhere');
      }),
    );
    expect(named(other.points, ModelMetric.calls)[0].tags).toMatchObject({ error_kind: 'other' });
  });

  it('estimates the cost in microdollars when a price is configured', async () => {
    const price = { inputPerMillionTokens: 1.5, outputPerMillionTokens: 4 };
    const { points } = await call(model(async () => ({ repairs: 0 }), price));
    // 10 prompt tokens x $1.5/M + 5 output tokens x $4/M = $0.000035.
    expect(named(points, ModelMetric.cost).map((p) => p.value)).toEqual([35]);
  });
});

describe('model price settings', () => {
  it('take both prices, or neither', () => {
    expect(parseConfig({}).modelPrice).toBeUndefined();
    expect(
      parseConfig({ MODEL_PRICE_INPUT_USD_PER_MTOK: '0.3', MODEL_PRICE_OUTPUT_USD_PER_MTOK: '2.5' }).modelPrice,
    ).toEqual({ inputPerMillionTokens: 0.3, outputPerMillionTokens: 2.5 });
    expect(() => parseConfig({ MODEL_PRICE_INPUT_USD_PER_MTOK: '0.3' })).toThrow(
      /MODEL_PRICE_OUTPUT_USD_PER_MTOK: required when MODEL_PRICE_INPUT_USD_PER_MTOK is set/,
    );
    expect(() =>
      parseConfig({ MODEL_PRICE_INPUT_USD_PER_MTOK: 'cheap', MODEL_PRICE_OUTPUT_USD_PER_MTOK: '1' }),
    ).toThrow(/MODEL_PRICE_INPUT_USD_PER_MTOK/);
  });
});

describe('a web search through the model', () => {
  it('is recorded like a structured call: calls, tokens and failures by task', async () => {
    const points: Point[] = [];
    const env = new MockActivityEnvironment(
      { workflowType: 'writeResearchProposal', activityType: 'searchLiterature' },
      { logger: new DefaultLogger('ERROR'), metricMeter: recordingMeter(points) },
    );
    const backend = model(async () => ({ repairs: 0 }));
    const usage = { promptTokens: 30, outputTokens: 70, totalTokens: 100, calls: 1 };
    await env.run(() =>
      askWeb(backend, async () => ({ sources: [], queries: ['q'], usage }), {
        task: 'proposal.literature_search',
        query: 'pollinators',
        maxResults: 3,
      }),
    );
    await expect(
      env.run(() =>
        askWeb(
          backend,
          async () => {
            throw new BackendError('upstream down', {
              backend: 'model',
              retryable: true,
              type: FailureType.ModelUnavailable,
            });
          },
          { task: 'proposal.literature_search', query: 'pollinators', maxResults: 3 },
        ),
      ),
    ).rejects.toThrow(/upstream down/);
    const calls = points.filter((p) => p.name === ModelMetric.calls);
    expect(calls.map((p) => [p.tags.task, p.tags.flow, p.tags.outcome])).toEqual([
      ['proposal.literature_search', 'writeResearchProposal', 'ok'],
      ['proposal.literature_search', 'writeResearchProposal', 'failed'],
    ]);
    expect(points.find((p) => p.name === ModelMetric.outputTokens)?.value).toBe(70);
  });
});
