/**
 * The OpenAI-compatible adapter against a wire-level fake of the Chat Completions API, through the
 * real `openai` client: what it sends (json_schema response format from the zod schema, the key as
 * a bearer token), the repair loop, usage into the model-call metrics, which errors Temporal retries,
 * time-outs and cancellation; and the worker settings that choose it.
 */
import type { MetricCounter, MetricHistogram, MetricMeter, MetricTags } from '@temporalio/common';
import { ApplicationFailure, CancelledFailure, noopMetricMeter } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createModel } from '../../backends';
import { BackendError, MAX_RETRY_AFTER_MS, retryAfterMs } from '../../backends/errors';
import { OpenAIModel, isStrictCompatible, schemaName } from '../../backends/model/openai';
import { readSections } from '../../backends/model/prompt';
import { ModelMetric } from '../../flows/lib/activities/model-metrics';
import { askModel } from '../../flows/lib/activities/support';
import { ConfigError, parseConfig } from '../../plumbing/config';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openai';
import { mockActivityEnvironment } from '../helpers/activity-env';

const KEY = 'sk-test-0123456789abcdefghijklmnop';
const schema = z.object({ answer: z.string(), score: z.number().min(0).max(1), note: z.string().optional() });
const request = {
  task: 'test.answer',
  instructions: 'Answer.',
  sections: { question: 'why?', data: { a: 1 } },
  schema,
};

let fake: OpenAIFake;
const model = (options: { timeoutMs?: number; maxRepairs?: number } = {}) =>
  new OpenAIModel({
    model: 'gpt-test',
    baseUrl: fake.url,
    apiKey: KEY,
    timeoutMs: options.timeoutMs ?? 5000,
    maxRepairs: options.maxRepairs ?? 2,
  });

beforeAll(async () => {
  fake = await startOpenAIFake();
});
beforeEach(() => {
  fake.requests.length = 0;
});
afterAll(async () => fake?.close());

interface Point {
  name: string;
  value: number;
  tags: MetricTags;
}
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

describe('OpenAI-compatible adapter against a Chat Completions fake (real openai client)', () => {
  it('asks for json_schema structured output from the zod schema, with the key as a bearer token', async () => {
    fake.script({ content: '{"answer":"because","score":0.5}', promptTokens: 30, completionTokens: 7 });
    const reply = await model().generate(request);
    expect(reply).toMatchObject({
      data: { answer: 'because', score: 0.5 },
      repairs: 0,
      model: 'gpt-test',
      usage: { promptTokens: 30, outputTokens: 7, totalTokens: 37, calls: 1 },
    });
    const sent = fake.requests[0];
    expect(sent.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(sent.body.model).toBe('gpt-test');
    const format = sent.body.response_format as { type: string; json_schema: Record<string, unknown> };
    expect(format.type).toBe('json_schema');
    // `note` is optional, so OpenAI's strict mode would refuse the schema: it is sent non-strict.
    expect(format.json_schema).toMatchObject({ name: 'test_answer', strict: false });
    expect(format.json_schema.schema).toMatchObject({
      type: 'object',
      required: ['answer', 'score'],
      properties: { score: { type: 'number', minimum: 0, maximum: 1 } },
    });
    expect(format.json_schema.schema).not.toHaveProperty('$schema');
    const messages = sent.body.messages as Array<{ role: string; content: string }>;
    expect(messages.map((m) => m.role)).toEqual(['system', 'user']);
    expect(messages[0].content).toContain('Task: test.answer');
    expect(readSections(messages[1].content)).toEqual({ question: 'why?', data: { a: 1 } });
  });

  it('marks a schema strict only when every property is required and no other is allowed', () => {
    const closed = z.strictObject({ a: z.string(), b: z.array(z.strictObject({ c: z.number() })) });
    expect(isStrictCompatible(z.toJSONSchema(closed))).toBe(true);
    expect(isStrictCompatible(z.toJSONSchema(z.looseObject({ a: z.string() })))).toBe(false);
    expect(isStrictCompatible(z.toJSONSchema(z.strictObject({ a: z.string().optional() })))).toBe(false);
    expect(schemaName('bom.focus_terms')).toBe('bom_focus_terms');
  });

  it('sends a reply that fails validation back with the error, and counts tokens of every turn', async () => {
    fake.script(
      { content: '{"answer":"x","score":7}', promptTokens: 10, completionTokens: 3 },
      { content: 'not json at all', promptTokens: 20, completionTokens: 4 },
      { content: '```json\n{"answer":"fixed","score":0.9}\n```', promptTokens: 30, completionTokens: 5 },
    );
    const reply = await model().generate(request);
    expect(reply.data.answer).toBe('fixed');
    expect(reply.repairs).toBe(2);
    expect(reply.usage).toEqual({ promptTokens: 60, outputTokens: 12, totalTokens: 72, calls: 3 });
    const turns = (fake.requests[2].body.messages as Array<{ role: string; content: string }>).slice(-4);
    expect(turns.map((t) => t.role)).toEqual(['assistant', 'user', 'assistant', 'user']);
    expect(turns[0].content).toBe('{"answer":"x","score":7}');
    expect(turns[1].content).toMatch(/rejected: .*score/);
    expect(turns[3].content).toContain('not JSON');
  });

  it('reads null for an optional field as absent (strict-mode style), at any depth; null elsewhere is refused', async () => {
    const nested = z.object({
      answer: z.string(),
      note: z.string().optional(),
      maybe: z.string().nullable().optional(),
      parts: z.array(z.object({ name: z.string(), unit: z.string().optional() })),
      update: z.union([z.string(), z.object({ size: z.number().optional() }).strict()]),
    });
    fake.script({
      content: JSON.stringify({
        answer: 'a',
        note: null,
        maybe: null,
        parts: [{ name: 'p', unit: null }],
        update: { size: null },
      }),
    });
    const reply = await model().generate({ ...request, schema: nested });
    expect(reply.repairs).toBe(0);
    // A nullable optional field keeps its null: it is a value there.
    expect(reply.data).toEqual({ answer: 'a', maybe: null, parts: [{ name: 'p' }], update: {} });

    fake.script({ content: '{"answer":null,"score":0.5}' }, { content: '{"answer":"b","score":0.5}' });
    const repaired = await model().generate(request);
    expect(repaired).toMatchObject({ data: { answer: 'b' }, repairs: 1 });
  });

  it('never lends a reply the fields of a "__proto__" key while reading its nulls', async () => {
    const strict = z.object({ answer: z.string(), note: z.string().optional() });
    // The first reply has no answer of its own: it must be sent back, never completed from the prototype.
    fake.script(
      { content: '{"__proto__":{"answer":"from the prototype"},"note":null}' },
      { content: '{"answer":"own"}' },
    );
    const reply = await model().generate({ ...request, schema: strict });
    expect(reply).toMatchObject({ data: { answer: 'own' }, repairs: 1 });
  });

  it('says when a reply was cut off at the token limit, and gives up after the repair bound (retryable)', async () => {
    fake.script(
      // Cut inside a value that holds a complete array: that fragment is not the reply.
      { content: '{"answer":"see [1, 2] and', finishReason: 'length' },
      { content: '{}' },
      { content: '{}' },
    );
    const error = await model()
      .generate(request)
      .catch((e) => e);
    expect(error).toBeInstanceOf(BackendError);
    expect(error).toMatchObject({ type: 'ModelOutputInvalid', retryable: true });
    expect(error.message).toMatch(/after 2 repair\(s\)/);
    expect(fake.requests).toHaveLength(3);
    const second = fake.requests[1].body.messages as Array<{ content: string }>;
    expect(second.at(-1)!.content).toMatch(/cut off at the token limit/);
  });

  it('retries a step whose every reply was cut off at the token limit once, at once, then gives up', async () => {
    const cut = { content: '{"answer":"on and on and on', finishReason: 'length' };
    fake.script(cut, cut, cut);
    const error = await model()
      .generate({ ...request, maxOutputTokens: 50 })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ type: 'ModelOutputInvalid', retryable: true, options: { cutOff: true } });
    expect((error as Error).message).toMatch(/after 2 repair\(s\).*every reply was cut off at the token limit \(50\)/);
    expect(fake.requests).toHaveLength(3);
    // Another sample may be shorter: the first attempt is retried at once (waiting does not shorten
    // a reply); the second one cut off fails for good instead of going through the policy's back-offs.
    const step = (attempt: number) => {
      fake.script(cut, cut, cut);
      return mockActivityEnvironment({ attempt })
        .run(() => askModel(model(), { ...request, task: 'platform.summarize', sections: {} as never }))
        .catch((e: unknown) => e);
    };
    expect(await step(1)).toMatchObject({ type: 'ModelOutputInvalid', nonRetryable: false, nextRetryDelay: 500 });
    const last = await step(2);
    expect(last).toMatchObject({ type: 'ModelOutputInvalid', nonRetryable: true });
    expect((last as Error).message).toMatch(
      /cut off at the token limit \(set by the server\) \(attempt 2\): not retried further/,
    );
    // A reply cut only once, then invalid otherwise, keeps the policy's retries (the test above).
  });

  it.each([
    [429, true, 'ModelUnavailable', /HTTP 429 \(rate limited/],
    [500, true, 'ModelUnavailable', /HTTP 500/],
    [503, true, 'ModelUnavailable', /HTTP 503/],
    [400, false, 'ModelRequestRejected', /HTTP 400 \(bad request/],
    [401, false, 'ModelRequestRejected', /HTTP 401 \(authentication failed: check OPENAI_API_KEY\)/],
    [403, false, 'ModelRequestRejected', /OPENAI_API_KEY/],
    [404, false, 'ModelRequestRejected', /check OPENAI_MODEL/],
  ])('maps HTTP %i to retryable=%s (%s), one attempt only', async (status, retryable, type, message) => {
    fake.script({ status });
    const error = await model()
      .generate(request)
      .catch((e) => e);
    expect(error).toMatchObject({ retryable, type, options: { status } });
    expect(error.message).toMatch(message);
    expect(fake.requests).toHaveLength(1);
  });

  it("waits as long as a 429's Retry-After says before the activity's next attempt", async () => {
    fake.script(
      { status: 429, headers: { 'retry-after': '7' } },
      { status: 503, headers: { 'retry-after-ms': '1500' } },
      { status: 429, headers: { 'retry-after': '86400' } },
      { status: 429 },
    );
    const errors: BackendError[] = [];
    for (let i = 0; i < 4; i++)
      errors.push(
        (await model()
          .generate(request)
          .then(
            () => undefined,
            (e: BackendError) => e,
          )) as BackendError,
      );
    expect(errors.map((e) => e.options.retryAfterMs)).toEqual([7000, 1500, MAX_RETRY_AFTER_MS, undefined]);
    // A hostile or sloppy server: "0" still waits a second; a blank or negative retry-after-ms falls back to Retry-After.
    expect(retryAfterMs(new Headers({ 'retry-after': '0' }))).toBe(1000);
    expect(retryAfterMs(new Headers({ 'retry-after-ms': ' ', 'retry-after': '10' }))).toBe(10_000);
    expect(retryAfterMs(new Headers({ 'retry-after-ms': '-5', 'retry-after': '10' }))).toBe(10_000);
    // The activity's failure carries it to Temporal, which waits that long instead of its back-off.
    fake.script({ status: 429, headers: { 'retry-after': '7' } });
    const failure = await mockActivityEnvironment()
      .run(() => askModel(model(), { ...request, task: 'platform.summarize', sections: {} as never }))
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure).toMatchObject({ type: 'ModelUnavailable', nonRetryable: false, nextRetryDelay: 7000 });
  });

  it('never puts the API key in an error, even when the server quotes it back', async () => {
    fake.script({
      status: 401,
      body: { error: { message: `Incorrect API key provided: ${KEY}.`, type: 'invalid_request_error' } },
    });
    const error = await model()
      .generate(request)
      .catch((e) => e);
    expect(error.message).toMatch(/HTTP 401/);
    expect(error.message).not.toContain(KEY);
    expect(JSON.stringify({ message: error.message, cause: String(error.cause) })).not.toContain(KEY);
  });

  it('never keeps the API key in the model name a server answers with (it goes into traces)', async () => {
    fake.script({
      status: 200,
      body: {
        id: 'chatcmpl-echo',
        object: 'chat.completion',
        created: 1_700_000_000,
        model: `echo Bearer ${KEY} ${'x'.repeat(5000)}`,
        choices: [
          { index: 0, message: { role: 'assistant', content: '{"answer":"a","score":1}' }, finish_reason: 'stop' },
        ],
      },
    });
    const reply = await model().generate(request);
    expect(reply.data).toEqual({ answer: 'a', score: 1 });
    expect(reply.model).not.toContain(KEY);
    expect(reply.model.length).toBeLessThanOrEqual(200);
  });

  it('turns a time-out into a retryable error naming MODEL_TIMEOUT_MS', async () => {
    fake.script({ delayMs: 3000, content: '{"answer":"late","score":1}' });
    const error = await model({ timeoutMs: 300 })
      .generate(request)
      .catch((e) => e);
    expect(error).toMatchObject({ retryable: true, type: 'ModelUnavailable' });
    expect(error.message).toMatch(/timed out \(MODEL_TIMEOUT_MS\)/);
    expect(fake.requests).toHaveLength(1);
  });

  it('turns an unreachable endpoint into a retryable error naming OPENAI_BASE_URL', async () => {
    const closed = await startOpenAIFake();
    const url = closed.url;
    await closed.close();
    const error = await new OpenAIModel({ model: 'm', baseUrl: url, timeoutMs: 2000, maxRepairs: 0 })
      .generate(request)
      .catch((e) => e);
    expect(error).toMatchObject({ retryable: true, type: 'ModelUnavailable' });
    expect(error.message).toMatch(/OPENAI_BASE_URL/);
  });

  it('aborts the request of a cancelled model step (the activity cancellation signal)', async () => {
    fake.script({ hang: true });
    const env = mockActivityEnvironment();
    const outcome = env
      .run(() =>
        askModel(model({ timeoutMs: 30_000 }), {
          task: 'platform.summarize',
          instructions: 'Answer.',
          sections: { topic: 'battery', search_hits: [], warehouse_rows: [] },
          schema: z.object({}),
        }),
      )
      .then(
        () => 'completed',
        (err: unknown) => err,
      );
    await fake.hanging();
    env.cancel();
    expect(await outcome).toBeInstanceOf(CancelledFailure);
    await expect.poll(() => fake.aborted.length, { timeout: 5000 }).toBe(1);
  });

  it('counts prompt and completion tokens and repairs in the model-call metrics', async () => {
    fake.script(
      { content: '{"terms":"bolt"}', promptTokens: 40, completionTokens: 6 },
      { content: '{"terms":["bolt"]}', promptTokens: 50, completionTokens: 8 },
    );
    const points: Point[] = [];
    const env = new MockActivityEnvironment(
      { workflowType: 'answerBomQuestion', activityType: 'focusTerms' },
      { logger: new DefaultLogger('ERROR'), metricMeter: recordingMeter(points) },
    );
    await env.run(() =>
      askModel(model(), {
        task: 'bom.focus_terms',
        instructions: 'Name the terms.',
        sections: { question: 'Which BOMs use bolts?' },
        schema: z.object({ terms: z.array(z.string()) }),
      }),
    );
    const values = (name: string) => points.filter((p) => p.name === name).map((p) => p.value);
    expect(values(ModelMetric.inputTokens)).toEqual([90]);
    expect(values(ModelMetric.outputTokens)).toEqual([14]);
    expect(values(ModelMetric.repairs)).toEqual([1]);
    expect(points.find((p) => p.name === ModelMetric.calls)?.tags).toMatchObject({
      backend: 'openai',
      model: 'gpt-test',
      outcome: 'repaired',
    });
  });
});

describe('AGENT_FLOWS_MODEL=openai settings', () => {
  const problems = (env: Record<string, string>) => {
    try {
      parseConfig(env);
      return [];
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      return (err as ConfigError).problems;
    }
  };

  it('builds the OpenAI adapter from the settings', () => {
    const config = parseConfig({
      AGENT_FLOWS_MODEL: 'openai',
      OPENAI_BASE_URL: 'http://127.0.0.1:8081/v1',
      OPENAI_MODEL: 'smollm2',
    });
    const backend = createModel(config);
    expect(backend).toBeInstanceOf(OpenAIModel);
    expect(backend).toMatchObject({ name: 'openai', modelName: 'smollm2' });
  });

  it('requires the model name, naming the setting', () => {
    expect(problems({ AGENT_FLOWS_MODEL: 'openai', OPENAI_BASE_URL: 'http://127.0.0.1:8081/v1' })).toEqual([
      expect.stringMatching(/^OPENAI_MODEL: required when AGENT_FLOWS_MODEL=openai/),
    ]);
  });

  it.each(['not a url', 'ftp://example.com/v1', '127.0.0.1:8081'])('refuses OPENAI_BASE_URL=%s', (url) => {
    expect(problems({ AGENT_FLOWS_MODEL: 'openai', OPENAI_MODEL: 'm', OPENAI_BASE_URL: url })).toEqual([
      expect.stringMatching(/^OPENAI_BASE_URL: expected an http\(s\) URL/),
    ]);
  });

  it('refuses credentials in OPENAI_BASE_URL without showing them', () => {
    const shown = problems({
      AGENT_FLOWS_MODEL: 'openai',
      OPENAI_MODEL: 'm',
      OPENAI_BASE_URL: 'https://bob:hunter2-password@proxy.example/v1',
    });
    expect(shown).toEqual([expect.stringMatching(/^OPENAI_BASE_URL: must not contain credentials/)]);
    expect(shown.join('\n')).not.toContain('hunter2');
  });

  it("requires a key for OpenAI's own API, and never shows the key's value", () => {
    expect(problems({ AGENT_FLOWS_MODEL: 'openai', OPENAI_MODEL: 'gpt-4o-mini' })).toEqual([
      expect.stringMatching(
        /^OPENAI_API_KEY: required when AGENT_FLOWS_MODEL=openai and OPENAI_BASE_URL is api\.openai/,
      ),
    ]);
    const shown = problems({ AGENT_FLOWS_MODEL: 'openai', OPENAI_API_KEY: KEY, OPENAI_BASE_URL: 'bad' });
    expect(shown.join('\n')).not.toContain(KEY);
    expect(shown).toEqual([expect.stringMatching(/^OPENAI_BASE_URL/), expect.stringMatching(/^OPENAI_MODEL/)]);
  });
});
