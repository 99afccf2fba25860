import { OAuth2Client } from 'google-auth-library';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { BackendError } from '../../backends/errors';
import { GeminiModel } from '../../backends/model/gemini';
import { extractJson, readSections, renderSections } from '../../backends/model/prompt';
import { startGeminiFake, type GeminiFake } from '../fakes/gemini';

const schema = z.object({ answer: z.string(), score: z.number().min(0).max(1) });
const request = {
  task: 'test.answer',
  instructions: 'Answer.',
  sections: { question: 'why?', data: { a: 1 } },
  schema,
};

describe('Gemini adapter against a Gemini REST fake (real @google/genai client)', () => {
  let fake: GeminiFake;
  let model: GeminiModel;
  beforeAll(async () => {
    fake = await startGeminiFake();
    model = new GeminiModel({
      label: 'gemini',
      model: 'gemini-2.5-flash',
      apiKey: 'test-key',
      baseUrl: fake.url,
      timeoutMs: 1000,
      maxRepairs: 2,
    });
  });
  beforeEach(() => {
    fake.requests.length = 0;
  });
  afterAll(async () => fake?.close());

  it('asks for structured output with the JSON schema and the task in the system instruction', async () => {
    fake.script({ text: '{"answer":"because","score":0.5}', promptTokens: 30, outputTokens: 7 });
    const reply = await model.generate(request);
    expect(reply).toMatchObject({
      data: { answer: 'because', score: 0.5 },
      repairs: 0,
      usage: { promptTokens: 30, outputTokens: 7, totalTokens: 37, calls: 1 },
    });
    const sent = fake.requests[0];
    expect(sent.path).toBe('v1beta/models/gemini-2.5-flash:generateContent');
    expect(sent.headers['x-goog-api-key']).toBe('test-key');
    const config = sent.body.generationConfig as Record<string, unknown>;
    expect(config.responseMimeType).toBe('application/json');
    expect(config.responseJsonSchema).toMatchObject({ type: 'object', required: ['answer', 'score'] });
    expect(JSON.stringify(sent.body.systemInstruction)).toContain('Task: test.answer');
    const text = (sent.body.contents as Array<{ parts: Array<{ text: string }> }>)[0].parts[0].text;
    expect(readSections(text)).toEqual({ question: 'why?', data: { a: 1 } });
  });

  it('parses fenced JSON and JSON wrapped in prose', async () => {
    fake.script(
      { text: 'Here you go:\n```json\n{"answer":"x","score":1}\n```' },
      { text: 'Sure! {"answer":"y","score":0} Hope it helps.' },
    );
    expect((await model.generate(request)).data.answer).toBe('x');
    expect((await model.generate(request)).data.answer).toBe('y');
  });

  it('sends a reply that fails validation back with the error, and counts tokens of every turn', async () => {
    fake.script(
      { text: '{"answer":"x","score":7}' },
      { text: 'not json at all' },
      { text: '{"answer":"fixed","score":0.9}' },
    );
    const reply = await model.generate(request);
    expect(reply.data.answer).toBe('fixed');
    expect(reply.repairs).toBe(2);
    expect(reply.usage.calls).toBe(3);
    const lastTurns = (fake.requests[2].body.contents as Array<{ role: string; parts: Array<{ text: string }> }>).slice(
      -4,
    );
    expect(lastTurns.map((t) => t.role)).toEqual(['model', 'user', 'model', 'user']);
    expect(lastTurns[1].parts[0].text).toMatch(/score: .*1/);
    expect(lastTurns[3].parts[0].text).toContain('not JSON');
  });

  it('gives up after the repair bound with a retryable ModelOutputInvalid', async () => {
    fake.script({ text: '{}' }, { text: '{}' }, { text: '{}' });
    const error = await model.generate(request).catch((e) => e);
    expect(error).toBeInstanceOf(BackendError);
    expect(error).toMatchObject({ type: 'ModelOutputInvalid', retryable: true });
    expect(fake.requests).toHaveLength(3);
  });

  it('reads a reply cut at the token limit whole or not at all, says so in the repair, and marks the failure as cut off', async () => {
    // The inner object is complete JSON: the tolerant extraction would read it as the reply.
    const cut = { text: '{"answer":"a long answer that goes on and {"x":1} and', finishReason: 'MAX_TOKENS' };
    fake.script(cut, cut, cut);
    const error = await model.generate({ ...request, maxOutputTokens: 64 }).catch((e) => e);
    expect(error).toBeInstanceOf(BackendError);
    expect(error).toMatchObject({ type: 'ModelOutputInvalid', retryable: true, options: { cutOff: true } });
    expect(error.message).toMatch(/every reply was cut off at the token limit \(64\)/);
    const repair = (fake.requests[1].body.contents as Array<{ parts: Array<{ text: string }> }>).at(-1)!.parts[0].text;
    expect(repair).toMatch(/cut off at the token limit/);
    // One reply that was not cut: not a cut-off failure (the step keeps its own retries).
    fake.requests.length = 0;
    fake.script(cut, { text: '{}' }, cut);
    const mixed = await model.generate(request).catch((e) => e);
    expect(mixed).toMatchObject({ type: 'ModelOutputInvalid', retryable: true });
    expect(mixed.options.cutOff).toBeUndefined();
  });

  it('repairs a reply with no text (the limit spent before any was written) with a request the API takes', async () => {
    fake.script(
      { text: '', finishReason: 'MAX_TOKENS' },
      { text: '', finishReason: 'STOP' },
      { text: '{"answer":"ok","score":1}' },
    );
    const reply = await model.generate(request);
    expect(reply).toMatchObject({ data: { answer: 'ok' }, repairs: 2, usage: { calls: 3 } });
    const repair = JSON.stringify(fake.requests[1].body.contents);
    expect(repair).toMatch(/cut off at the token limit/);
    // Every reply cut off with no text: still the cut-off failure, not the API refusing the repair.
    fake.requests.length = 0;
    const none = { text: '', finishReason: 'MAX_TOKENS' };
    fake.script(none, none, none);
    const error = await model.generate(request).catch((e) => e);
    expect(error).toMatchObject({ type: 'ModelOutputInvalid', retryable: true, options: { cutOff: true } });
  });

  it.each([
    [429, true, 'ModelUnavailable', /HTTP 429/],
    [503, true, 'ModelUnavailable', /HTTP 503/],
    [500, true, 'ModelUnavailable', /HTTP 500/],
    [400, false, 'ModelRequestRejected', /bad request/],
    [403, false, 'ModelRequestRejected', /GEMINI_API_KEY/],
    [404, false, 'ModelRequestRejected', /GEMINI_MODEL/],
  ])('maps HTTP %i to retryable=%s (%s), one attempt only', async (status, retryable, type, message) => {
    fake.script({ status });
    const error = await model.generate(request).catch((e) => e);
    expect(error).toMatchObject({ retryable, type });
    expect(error.message).toMatch(message);
    expect(fake.requests).toHaveLength(1);
  });

  it('turns a time-out into a retryable error', async () => {
    fake.script({ delayMs: 1500, text: '{"answer":"late","score":1}' });
    const error = await model.generate(request).catch((e) => e);
    expect(error).toMatchObject({ retryable: true, type: 'ModelUnavailable' });
  });

  it('speaks the Vertex AI path with OAuth credentials in Vertex mode', async () => {
    const authClient = new OAuth2Client();
    authClient.setCredentials({ access_token: 'vertex-token', expiry_date: Date.now() + 3_600_000 });
    const vertex = new GeminiModel({
      label: 'vertex',
      model: 'gemini-2.5-flash',
      vertex: { project: 'p1', location: 'europe-west4' },
      baseUrl: fake.url,
      timeoutMs: 1000,
      maxRepairs: 0,
      googleAuthOptions: { authClient: authClient as never },
    });
    fake.script({ text: '{"answer":"v","score":0.1}' });
    expect((await vertex.generate(request)).data.answer).toBe('v');
    expect(fake.requests[0].path).toBe(
      'v1beta1/projects/p1/locations/europe-west4/publishers/google/models/gemini-2.5-flash:generateContent',
    );
    expect(fake.requests[0].headers.authorization).toBe('Bearer vertex-token');
  });

  it('prompt helpers round-trip sections and extract JSON tolerantly', () => {
    expect(readSections(renderSections({ a: 'text\nwith lines', b: [1, 2] }))).toEqual({
      a: 'text\nwith lines',
      b: [1, 2],
    });
    expect(extractJson('[1,2]')).toEqual([1, 2]);
    expect(extractJson('no json')).toBeUndefined();
  });
});
