/**
 * A scripted fake of the Gemini REST API (`models/{model}:generateContent`, both the Gemini API
 * path and the Vertex AI `projects/.../publishers/google/models/...` path) for adapter tests:
 * each request takes the next scripted reply (a text body, an HTTP error, or a delay), and every
 * request body is recorded so tests can check what the real client sent.
 */
import Fastify from 'fastify';
import { STATUS_NAMES } from '../../standin/server';
import { invalidArgument, protoProblems, protoRoot } from './api-definitions';
import { closedByClient } from './discoveryengine';

/** Grounding metadata as Gemini returns it with the googleSearch tool. */
export interface ScriptedGrounding {
  chunks: Array<{ uri: string; title?: string }>;
  /** Parts of the answer and the chunks (by index) that support them. */
  supports?: Array<{ text: string; chunks: number[] }>;
  queries?: string[];
}

export type ScriptedReply =
  | {
      text: string;
      promptTokens?: number;
      outputTokens?: number;
      grounding?: ScriptedGrounding;
      /** Why the model stopped, as Gemini says it (STOP unless given; MAX_TOKENS: cut at the limit). */
      finishReason?: string;
    }
  | { status: number; message?: string }
  | { delayMs: number; text: string }
  /** No answer until the client aborts the request (recorded in `aborted`). */
  | { hang: true };

export interface GeminiFake {
  url: string;
  requests: Array<{ path: string; body: Record<string, unknown>; headers: Record<string, unknown> }>;
  script(...replies: ScriptedReply[]): void;
  /** Paths of requests the client closed before an answer. */
  aborted: string[];
  /** Resolves once a request scripted to hang has arrived. */
  hanging(): Promise<void>;
  close(): Promise<void>;
}

const STATUS = STATUS_NAMES;

export async function startGeminiFake(): Promise<GeminiFake> {
  const requests: GeminiFake['requests'] = [];
  const queue: ScriptedReply[] = [];
  const aborted: string[] = [];
  let arrived: (() => void) | undefined;
  const app = Fastify({ logger: false, forceCloseConnections: true });
  app.post('/*', async (req, reply) => {
    const path = (req.params as { '*': string })['*'];
    if (!/models\/[^/]+:generateContent$/.test(path))
      return reply.code(404).send({ error: { code: 404, message: `no route ${path}`, status: 'NOT_FOUND' } });
    requests.push({ path, body: req.body as Record<string, unknown>, headers: req.headers });
    // The Gemini API path: the body must be a GenerateContentRequest of Google's v1beta protos.
    if (path.startsWith('v1beta/models/')) {
      const problems = protoProblems(
        protoRoot('@google-ai/generativelanguage'),
        'google.ai.generativelanguage.v1beta.GenerateContentRequest',
        req.body,
      );
      if (problems.length) return reply.code(400).send(invalidArgument(problems));
    }
    // As the real API: a part must carry data, and an empty text is none.
    const contents = ((req.body as { contents?: unknown }).contents ?? []) as Array<{
      parts?: Array<{ text?: string }>;
    }>;
    const empty = contents.flatMap((c, i) =>
      (c.parts ?? []).flatMap((part, j) =>
        part.text === '' || Object.keys(part).length === 0
          ? [
              `GenerateContentRequest.contents[${i}].parts[${j}].data: required oneof field 'data' must have one initialized field`,
            ]
          : [],
      ),
    );
    if (empty.length) return reply.code(400).send(invalidArgument(empty));
    const next = queue.shift() ?? { status: 500, message: 'the fake has no scripted reply left' };
    if ('hang' in next) {
      arrived?.();
      await closedByClient(reply.raw);
      aborted.push(path);
      return reply;
    }
    if ('status' in next)
      return reply.code(next.status).send({
        error: {
          code: next.status,
          message: next.message ?? `scripted ${next.status}`,
          status: STATUS[next.status] ?? 'UNKNOWN',
        },
      });
    if ('delayMs' in next) await new Promise((r) => setTimeout(r, next.delayMs));
    const promptTokens = 'promptTokens' in next ? (next.promptTokens ?? 10) : 10;
    const outputTokens = 'outputTokens' in next ? (next.outputTokens ?? 5) : 5;
    const grounding = 'grounding' in next ? next.grounding : undefined;
    return {
      candidates: [
        {
          // An empty reply has no parts (a thinking model that spent the whole output limit thinking).
          content: next.text ? { role: 'model', parts: [{ text: next.text }] } : { role: 'model' },
          finishReason: ('finishReason' in next && next.finishReason) || 'STOP',
          index: 0,
          ...(grounding
            ? {
                groundingMetadata: {
                  webSearchQueries: grounding.queries ?? [],
                  groundingChunks: grounding.chunks.map((c) => ({ web: { uri: c.uri, title: c.title } })),
                  groundingSupports: (grounding.supports ?? []).map((s) => ({
                    segment: { text: s.text },
                    groundingChunkIndices: s.chunks,
                  })),
                },
              }
            : {}),
        },
      ],
      usageMetadata: {
        promptTokenCount: promptTokens,
        candidatesTokenCount: outputTokens,
        totalTokenCount: promptTokens + outputTokens,
      },
      modelVersion: 'fake',
    };
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const port = (app.server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    script: (...replies) => void queue.push(...replies),
    aborted,
    hanging: () => new Promise<void>((resolve) => (arrived = resolve)),
    close: () => app.close(),
  };
}
