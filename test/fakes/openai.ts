/**
 * A scripted fake of OpenAI's Chat Completions API (`POST /v1/chat/completions`) for adapter
 * tests: each request takes the next scripted reply (a message, an HTTP error, a delay or a hang)
 * and every request is recorded, so tests check what the real `openai` client sent.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export type ScriptedCompletion =
  | { content: string; promptTokens?: number; completionTokens?: number; finishReason?: string }
  | { status: number; body?: unknown; headers?: Record<string, string> }
  | { delayMs: number; content: string; finishReason?: string }
  /** No answer until the client closes the request (recorded in `aborted`). */
  | { hang: true };

export interface OpenAIFake {
  /** The base URL to give the client (ends in /v1). */
  url: string;
  requests: Array<{ path: string; body: Record<string, unknown>; headers: IncomingHttpHeaders }>;
  script(...replies: ScriptedCompletion[]): void;
  aborted: string[];
  /** Resolves once a request scripted to hang has arrived. */
  hanging(): Promise<void>;
  close(): Promise<void>;
}

export async function startOpenAIFake(): Promise<OpenAIFake> {
  const requests: OpenAIFake['requests'] = [];
  const queue: ScriptedCompletion[] = [];
  const aborted: string[] = [];
  // Hung requests not yet waited for, and the waiter for the next one.
  let unclaimed = 0;
  let waiter: (() => void) | undefined;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '';
      const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(status, { ...headers, 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (req.method !== 'POST' || path !== '/v1/chat/completions') {
        return send(404, { error: { message: `no route ${path}`, type: 'invalid_request_error' } });
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      requests.push({ path, body, headers: req.headers });
      const next = queue.shift() ?? {
        status: 500,
        body: { error: { message: 'the fake has no scripted reply left' } },
      };
      const completion = (content: string, promptTokens = 11, completionTokens = 5, finishReason = 'stop') => ({
        id: `chatcmpl-${requests.length}`,
        object: 'chat.completion',
        created: 1_700_000_000,
        model: body.model,
        choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: finishReason, logprobs: null }],
        usage: {
          prompt_tokens: promptTokens,
          completion_tokens: completionTokens,
          total_tokens: promptTokens + completionTokens,
        },
      });
      if ('hang' in next) {
        res.on('close', () => {
          if (!res.writableEnded) aborted.push(path);
        });
        if (waiter) {
          waiter();
          waiter = undefined;
        } else unclaimed++;
        return;
      }
      if ('status' in next) {
        return send(
          next.status,
          next.body ?? { error: { message: `scripted ${next.status}`, type: 'error' } },
          next.headers,
        );
      }
      if ('delayMs' in next) {
        const timer = setTimeout(
          () => send(200, completion(next.content, undefined, undefined, next.finishReason)),
          next.delayMs,
        );
        res.on('close', () => clearTimeout(timer));
        return;
      }
      send(200, completion(next.content, next.promptTokens, next.completionTokens, next.finishReason));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    aborted,
    script: (...replies) => {
      queue.length = 0;
      queue.push(...replies);
    },
    hanging: () =>
      new Promise<void>((resolve) => {
        if (unclaimed > 0) {
          unclaimed--;
          resolve();
        } else waiter = resolve;
      }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
