/**
 * Credentials never leave a backend in an error, because errors end up in history and logs. A model
 * endpoint whose error body reflects the API key (as the key itself, in a quoted `?key=` URL, as a
 * bearer token) used to have it copied into the activity failure, the workflow failure (history)
 * and the worker's log lines. The Gemini wire fake plays that endpoint here; the key must appear
 * nowhere.
 */
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { BackendError } from '../backends/errors';
import { redactCredentials, registerSecrets } from '../plumbing/redaction';
import { classifyBigQueryError } from '../backends/warehouse/bigquery';
import { GeminiModel } from '../backends/model/gemini';
import { platformCheckFlow } from '../flows/platform/contract';
import { startGeminiFake, type GeminiFake } from './fakes/gemini';
import { createHarness, type Harness } from './helpers/harness';
import { settle } from './hostile-helpers';

/** Not shaped like a Google key: only the configured-secret redaction can catch it. */
const API_KEY = 'plain-secret-value-0123456789abcdef';
/** Shaped like a Google key but configured nowhere: the pattern redaction must catch it. */
const STRAY_GOOGLE_KEY = `AIzaSy${'B'.repeat(33)}`;
const reflectingBody = (key: string) =>
  `API key not valid. Please pass a valid API key. key=${key}; ` +
  `request: https://generativelanguage.googleapis.com/v1beta/models/m:generateContent?alt=json&key=${key}; ` +
  `Authorization: Bearer ${key}; x-goog-api-key: ${key}; stray ${STRAY_GOOGLE_KEY}`;

describe('credential redaction', () => {
  it('cuts key= parameters, bearer tokens, Google keys and configured secrets from any text', () => {
    registerSecrets('configured-secret-0001');
    const text = redactCredentials(
      'GET /v1?alt=json&key=abc123def456&x=1 Authorization: Bearer eyJhbGciOi.abc-def "api_key": "zzz-111-222" ' +
        `access_token=ya29.a0AfH6SMB token ${STRAY_GOOGLE_KEY} and configured-secret-0001.`,
    );
    for (const secret of [
      'abc123def456',
      'eyJhbGciOi.abc-def',
      'zzz-111-222',
      'ya29.a0AfH6SMB',
      STRAY_GOOGLE_KEY,
      'configured-secret-0001',
    ]) {
      expect(text).not.toContain(secret);
    }
    expect(text).toContain('&x=1');
    expect(text).toContain('Authorization: Bearer [redacted]');
  });

  it('redacts BackendError messages and causes for every backend (BigQuery here)', () => {
    const err = classifyBigQueryError(
      Object.assign(new Error(`Access Denied: https://bigquery.googleapis.com/q?access_token=${STRAY_GOOGLE_KEY}`), {
        code: 403,
      }),
    );
    expect(err).toBeInstanceOf(BackendError);
    expect(err.message).not.toContain(STRAY_GOOGLE_KEY);
    expect(String((err.cause as Error).message)).not.toContain(STRAY_GOOGLE_KEY);
    expect(err.stack ?? '').not.toContain(STRAY_GOOGLE_KEY);
  });

  describe('a Gemini endpoint that reflects the API key in its error body', () => {
    let fake: GeminiFake;
    let h: Harness;
    const logged: string[] = [];

    beforeAll(async () => {
      fake = await startGeminiFake();
      h = await createHarness({
        config: { AGENT_FLOWS_MODEL: 'gemini', GEMINI_API_KEY: API_KEY, GOOGLE_GEMINI_BASE_URL: fake.url },
      });
      // Capture the worker's log lines (the runtime logger and anything printed).
      const logger = Runtime.instance().logger as DefaultLogger;
      vi.spyOn(logger, 'log').mockImplementation((level, message, meta) => {
        logged.push(`${level} ${message} ${JSON.stringify(meta ?? {})}`);
      });
      for (const method of ['log', 'info', 'warn', 'error'] as const) {
        vi.spyOn(console, method).mockImplementation(
          (...args: unknown[]) => void logged.push(args.map(String).join(' ')),
        );
      }
    });
    afterAll(async () => {
      vi.restoreAllMocks();
      await h?.close();
      await fake?.close();
    });

    it('the adapter error carries no credential', async () => {
      const model = new GeminiModel({
        label: 'gemini',
        model: 'm',
        apiKey: API_KEY,
        baseUrl: fake.url,
        timeoutMs: 2000,
        maxRepairs: 0,
      });
      registerSecrets(API_KEY);
      fake.script({ status: 400, message: reflectingBody(API_KEY) });
      const err = await model
        .generate({ task: 't', instructions: 'x', sections: { q: 'x' }, schema: (await import('zod')).z.object({}) })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(BackendError);
      const everything = `${(err as Error).message} ${(err as Error).stack} ${((err as Error).cause as Error)?.message}`;
      expect(everything).toContain('API key not valid');
      expect(everything).not.toContain(API_KEY);
      expect(everything).not.toContain(STRAY_GOOGLE_KEY);
    });

    it('the workflow failure, its history and the logs never hold the key', async () => {
      fake.script({ status: 400, message: reflectingBody(API_KEY) }, { status: 400, message: reflectingBody(API_KEY) });
      const handle = await h.start(platformCheckFlow, { topic: 'battery' });
      const settled = await settle(handle, 30_000);
      expect(fake.requests.length).toBeGreaterThan(0);
      expect(fake.requests[0].headers['x-goog-api-key']).toBe(API_KEY);
      const history = JSON.stringify(await handle.fetchHistory());
      // The rejection reached history (redacted), so the check below is about the key, not an empty history.
      expect(history).toContain('API key not valid');
      expect(history).toContain('[redacted]');
      expect(history).not.toContain(API_KEY);
      expect(history).not.toContain(STRAY_GOOGLE_KEY);
      expect(JSON.stringify(settled)).not.toContain(API_KEY);
      if (settled.status === 'FAILED')
        expect(`${settled.failure.message} ${settled.failure.stack}`).not.toContain(API_KEY);
      const logs = logged.join('\n');
      expect(logs).not.toContain(API_KEY);
      expect(logs).not.toContain(STRAY_GOOGLE_KEY);
    });
  });
});
