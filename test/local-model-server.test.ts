/**
 * The local model server against hostile callers: a web page that rebinds its domain to 127.0.0.1
 * (its requests carry its own name as Host or Origin) is refused before any model work, and
 * schemas sent with requests are not all kept for the server's lifetime; more callers than its
 * queue holds are told to come back (429) instead of waiting for CPU time owed to others.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installLocalModel, localModelPath } from '../workers/local-model';
import {
  GrammarCache,
  startLocalModelServer,
  type CompletionEngine,
  type LocalModelServer,
} from '../workers/local-model-server';
import { waitFor } from './helpers/wait';

/** One raw HTTP/1.1 request (fetch does not let a test set Host or send an absolute-form target). */
function rawRequest(port: number, head: string, body = ''): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(`${head}\r\nConnection: close\r\n\r\n${body}`));
    let out = '';
    socket.on('data', (d) => (out += d));
    socket.on('end', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(out)?.[1] ?? 0)));
    socket.on('error', reject);
  });
}

describe('GrammarCache', () => {
  it('keeps a bounded number of grammars, dropping the least recently used', () => {
    const cache = new GrammarCache<string>(2);
    cache.set('a', 'A');
    cache.set('b', 'B');
    cache.get('a');
    cache.set('c', 'C');
    expect(cache.size).toBe(2);
    expect(cache.has('b')).toBe(false);
    expect(cache.get('a')).toBe('A');
    expect(cache.get('c')).toBe('C');
  });

  it('does not keep a schema too large to be a response schema', () => {
    const cache = new GrammarCache<string>(8, 100);
    cache.set('x'.repeat(101), 'big');
    cache.set('small', null);
    expect(cache.size).toBe(1);
    expect(cache.get('small')).toBeNull();
  });
});

describe('local model server: a bounded queue (a fake model that answers when told)', () => {
  let server: LocalModelServer;
  let release: () => void;
  const started: string[] = [];
  beforeAll(async () => {
    const gate = new Promise<void>((resolve) => (release = resolve));
    const engine: CompletionEngine = {
      contextSize: 512,
      async complete(job) {
        started.push(job.prompt);
        await gate;
        const figures = { promptTokens: 1, completionTokens: 1, ms: 5, grammar: 'none', finishReason: 'stop' } as const;
        return { response: '{}', figures };
      },
      close: async () => undefined,
    };
    server = await startLocalModelServer({ engine, maxQueue: 2 });
  });
  afterAll(() => server?.close());
  const post = (text: string, signal?: AbortSignal) =>
    fetch(`${server.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ role: 'user', content: text }] }),
      ...(signal ? { signal } : {}),
    });

  it('answers 429 with a Retry-After and an OpenAI error, without running the model, when max-queue requests wait', async () => {
    const running = post('r0');
    await waitFor(() => (started.length === 1 ? true : undefined), 'the first request to run');
    // A waiting request whose client goes away gives its place back.
    const gone = new AbortController();
    const leaving = post('gone', gone.signal).catch(() => 'aborted');
    await waitFor(() => (server.load().waiting === 1 ? true : undefined), 'one request waiting');
    gone.abort();
    expect(await leaving).toBe('aborted');
    await waitFor(() => (server.load().waiting === 0 ? true : undefined), 'the aborted request to leave the queue');
    const waiting = [post('r1'), post('r2')];
    await waitFor(() => (server.load().waiting === 2 ? true : undefined), 'two requests waiting');

    // Bounded: without a queue limit this request would wait behind the others for good.
    const refused = await post('r3', AbortSignal.timeout(30_000));
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await refused.json()).toMatchObject({
      error: { type: 'requests', code: 'rate_limit_exceeded', message: expect.stringMatching(/--max-queue/) },
    });
    expect(server.load()).toEqual({ running: 1, waiting: 2 });

    release();
    const answered = await Promise.all([running, ...waiting]);
    expect(answered.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(started).toEqual(['r0', 'r1', 'r2']);
    // With the queue empty again, the next request is served.
    expect((await post('r4')).status).toBe(200);
  });
});

// The model is installed like in the end-to-end test (first use, pinned sum); only when that
// cannot be done is the server's part skipped, with the reason printed.
const install = await installLocalModel({ quiet: true }).then(
  (r) => ({ ok: true as const, path: r.path }),
  (err: unknown) => ({ ok: false as const, reason: err instanceof Error ? err.message : String(err) }),
);
if (!install.ok)
  console.warn(`[local-model-server] skipped: the local model could not be installed: ${install.reason}`);
const model = install.ok ? install.path : localModelPath();
describe.skipIf(!install.ok)('local model server: Host and Origin', () => {
  let server: LocalModelServer;
  let port: number;
  const chat = JSON.stringify({ messages: [{ role: 'user', content: 'hi' }], max_tokens: 1 });
  const post = (host: string, extra = '') =>
    rawRequest(
      port,
      `POST /v1/chat/completions HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: ${chat.length}${extra}`,
      chat,
    );

  beforeAll(async () => {
    server = await startLocalModelServer({ modelPath: model, maxTokensCap: 1, contextSize: 512 });
    port = Number(new URL(server.url).port);
  }, 60_000);
  afterAll(() => server?.close());

  it('serves requests naming it by a local name', async () => {
    expect(await rawRequest(port, `GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1:${port}`)).toBe(200);
    expect(await rawRequest(port, `GET /v1/models HTTP/1.1\r\nHost: localhost:${port}`)).toBe(200);
    expect(await post(`localhost:${port}`)).toBe(200);
  });

  it('refuses a rebound domain in Host, in an absolute-form target, or in Origin', async () => {
    expect(await rawRequest(port, `GET /v1/models HTTP/1.1\r\nHost: evil.example:${port}`)).toBe(403);
    expect(await post(`evil.example:${port}`)).toBe(403);
    expect(await rawRequest(port, `GET http://evil.example/v1/models HTTP/1.1\r\nHost: 127.0.0.1:${port}`)).toBe(403);
    expect(await post(`127.0.0.1:${port}`, '\r\nOrigin: http://evil.example')).toBe(403);
    expect(await post(`127.0.0.1:${port}`, '\r\nOrigin: null')).toBe(403);
  });
});
