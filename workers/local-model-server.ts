/**
 * A small OpenAI-compatible server for a local GGUF model on node-llama-cpp (CPU, prebuilt binary
 * from npm): `POST /v1/chat/completions` and `GET /v1/models`, enough for AGENT_FLOWS_MODEL=openai
 * to talk to a real model over HTTP exactly as to OpenAI, Ollama or llama.cpp's server.
 *
 * - `response_format: { type: 'json_schema' }` is honoured with a grammar from node-llama-cpp's
 *   `createGrammarForJsonSchema`, for the part of JSON Schema the grammar supports (types,
 *   properties, required, enum, const, items, min/maxItems, anyOf/oneOf, $defs/$ref); keywords it
 *   does not support (number bounds, patterns) are left to the client's validation. A schema it
 *   cannot turn into a grammar is answered without one (`json_object` asks for any JSON).
 * - `max_tokens` (or `max_completion_tokens`) is honoured up to the server's cap, and
 *   `finish_reason` is `length` when the reply was cut there.
 * - `usage` counts the whole prompt as the model's tokenizer sees it and the generated tokens.
 * - One request is evaluated at a time (2 cores); a request whose client has gone away before or
 *   while it runs is stopped, so a cancelled activity frees the model. At most `--max-queue`
 *   (16) wait behind it; one more is answered 429 `rate_limit_exceeded` with a Retry-After.
 * - A prompt longer than the context is refused with 400 `context_length_exceeded`, as OpenAI does.
 * - Only requests naming the server by a local name or its listen address (Host, an absolute-form
 *   target, a browser's Origin) are served: a web page on another domain that rebinds its name to
 *   127.0.0.1 would otherwise drive the model (CPU time) with its own requests.
 *
 *   npm run local-model -- [--port 8081] [--host 127.0.0.1] [--allow-host name]... [--max-tokens 512] [--max-queue 16] [--threads 1]
 *   AGENT_FLOWS_MODEL=openai OPENAI_BASE_URL=http://127.0.0.1:8081/v1 OPENAI_MODEL=smollm2-135m-instruct npm run worker
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { parseArgs } from 'node:util';
import type {
  ChatHistoryItem,
  Llama,
  LlamaContext,
  LlamaGrammar,
  LlamaModel,
  LlamaChatSession as LlamaChatSessionType,
} from 'node-llama-cpp';
import { z } from 'zod';
import { allowsNull } from '../backends/model/openai';
import { hostGuard } from '../server/http-guard';
import { installLocalModel, LOCAL_MODEL, localModelPath } from './local-model';

export interface LocalModelServerOptions {
  modelPath?: string;
  /** The name the server answers to (`model` in requests is not checked: one model is served). */
  modelName?: string;
  host?: string;
  /** Further names the server may be reached by (a container's name, a proxy's); local names always are. */
  allowedHosts?: string[];
  /** 0: any free port. */
  port?: number;
  /** Tokens of prompt and reply together (SmolLM2 was trained on 8192). */
  contextSize?: number;
  /** The most tokens one reply may have, whatever the request asks (bounds the CPU time of a call). */
  maxTokensCap?: number;
  /**
   * CPU threads of the evaluation; default 1. llama.cpp's threads wait for each other at every
   * step, so on a machine whose cores are busy with other work (the worker, Temporal, other
   * processes) two threads ran 15-20 times slower than one (1 against 20 tokens/s, measured here).
   */
  threads?: number;
  /**
   * The most requests that may wait for the model while it answers another (default 16, `--max-queue`).
   * One more is refused with 429 and a Retry-After, without running the model: queued work
   * is CPU time owed, and a caller whose request would only time out in the queue (the worker's
   * MODEL_TIMEOUT_MS) is better told to come back.
   */
  maxQueue?: number;
  /** Tests only: what answers instead of the GGUF model (no model is loaded). */
  engine?: CompletionEngine;
  /** Called with each answered request's figures, the request and the reply's text (tests, the log). */
  onCompletion?: (figures: CompletionFigures, request: ChatRequest, reply: string) => void;
}

export interface CompletionFigures {
  promptTokens: number;
  completionTokens: number;
  ms: number;
  grammar: 'json_schema' | 'json' | 'none';
  finishReason: 'stop' | 'length';
}

/** One chat completion as the HTTP layer hands it to the model. */
export interface CompletionJob {
  request: ChatRequest;
  /** The turns before the last user turn, in node-llama-cpp's form (system first). */
  history: ChatHistoryItem[];
  /** The last user turn's text. */
  prompt: string;
  maxTokens: number;
}

export type CompletionResult = { tooLong: number } | { response: string; figures: CompletionFigures };

/** What answers the requests, one at a time: the GGUF model on node-llama-cpp, or a test's fake. */
export interface CompletionEngine {
  contextSize: number;
  complete(job: CompletionJob, signal: AbortSignal): Promise<CompletionResult>;
  close(): Promise<void>;
}

export interface LocalModelServer {
  url: string;
  /** The base URL for OPENAI_BASE_URL (`<url>/v1`). */
  baseUrl: string;
  modelName: string;
  /** Requests being answered (0 or 1) and waiting for their turn. */
  load(): { running: number; waiting: number };
  close(): Promise<void>;
}

const messageSchema = z.object({
  role: z.enum(['system', 'developer', 'user', 'assistant']),
  content: z.union([
    z.string(),
    z
      .array(z.object({ type: z.literal('text'), text: z.string() }))
      .transform((parts) => parts.map((p) => p.text).join('')),
  ]),
});
const requestSchema = z.object({
  model: z.string().optional(),
  messages: z.array(messageSchema).min(1),
  max_tokens: z.number().int().positive().optional(),
  max_completion_tokens: z.number().int().positive().optional(),
  temperature: z.number().min(0).max(2).optional(),
  seed: z.number().int().optional(),
  response_format: z
    .union([
      z.object({ type: z.literal('text') }),
      z.object({ type: z.literal('json_object') }),
      z.object({
        type: z.literal('json_schema'),
        json_schema: z.object({
          name: z.string(),
          schema: z.record(z.string(), z.unknown()).optional(),
          strict: z.boolean().nullish(),
        }),
      }),
    ])
    .optional(),
  stream: z.literal(false).optional(),
});

export type ChatRequest = z.output<typeof requestSchema>;

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const GRAMMAR_KEYWORDS = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'prefixItems',
  'minItems',
  'maxItems',
  'enum',
  'const',
  'oneOf',
  '$defs',
  '$ref',
  'minLength',
  'maxLength',
]);

/**
 * The most a length or item-count bound may be for the grammar to keep it. llama.cpp refuses a
 * grammar whose `{m,n}` repetition, times the symbols repeated, reaches 2000
 * (MAX_REPETITION_THRESHOLD in llama-grammar.cpp): node-llama-cpp writes `maxLength: 2000` as a
 * string character repeated up to 2000 times and the whole grammar fails to parse. A string
 * repeats one symbol, an array's items two (the comma and the item); bounds above this are left
 * to the client's validation.
 */
export const MAX_GRAMMAR_REPETITION = 900;
const BOUNDS = new Set(['minLength', 'maxLength', 'minItems', 'maxItems']);

/**
 * The schema as node-llama-cpp's grammar takes it:
 * - anyOf read as oneOf (a value matches one of them either way for the grammar's purpose);
 * - keywords it does not support dropped (the client validates the whole schema), string formats
 *   other than date/time dropped, and length and item bounds too large for llama.cpp's grammar
 *   (MAX_GRAMMAR_REPETITION) dropped;
 * - an optional property may also be null: node-llama-cpp's grammar writes every property of an
 *   object (it ignores `required`), so without a short way out the model had to invent a value
 *   for every optional field. Null stands for "absent", as in OpenAI's strict mode, and the
 *   OpenAI adapter drops such nulls before validating (`withoutNullOptionals` in
 *   backends/model/openai.ts).
 */
export function toGrammarSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(toGrammarSchema);
  if (!isObject(schema)) return schema;
  const out: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    const k = key === 'anyOf' ? 'oneOf' : key;
    if (k === 'format' && ['date-time', 'date', 'time'].includes(String(value))) out.format = value;
    if (!GRAMMAR_KEYWORDS.has(k)) continue;
    if (BOUNDS.has(k) && !(typeof value === 'number' && value <= MAX_GRAMMAR_REPETITION)) continue;
    if (k === 'properties' || k === '$defs') {
      out[k] = Object.fromEntries(Object.entries(value as Json).map(([name, s]) => [name, toGrammarSchema(s)]));
    } else if (k === 'items' || k === 'additionalProperties' || k === 'oneOf' || k === 'prefixItems') {
      out[k] = typeof value === 'boolean' ? value : toGrammarSchema(value);
    } else out[k] = value;
  }
  if (isObject(out.properties)) {
    const required = Array.isArray(out.required) ? out.required : [];
    for (const [name, s] of Object.entries(out.properties))
      if (!required.includes(name) && !allowsNull(s)) out.properties[name] = { oneOf: [s, { type: 'null' }] };
  }
  // An object or array with no type: what the grammar needs to tell it apart.
  if (out.type === undefined && out.properties) out.type = 'object';
  // A value with no constraint at all (zod's `unknown`): any JSON value.
  if (Object.keys(out).length === 0) return { type: ['string', 'number', 'boolean', 'null'] };
  return out;
}

/**
 * Grammars already built, by the schema they were built from. Bounded: every request may bring a
 * schema of its own (up to the body limit), and an unbounded map kept each one for the server's
 * lifetime (12 requests with 8 MB schemas held ~100 MB). A schema too large to be a flow's
 * response schema is built each time and not kept.
 */
export class GrammarCache<G> {
  private readonly entries = new Map<string, G | null>();
  constructor(
    private readonly maxEntries = 32,
    private readonly maxKeyChars = 64 * 1024,
  ) {}
  get size(): number {
    return this.entries.size;
  }
  has(key: string): boolean {
    return this.entries.has(key);
  }
  get(key: string): G | null | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      // Most recently used last, so the oldest is the one dropped.
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }
  set(key: string, value: G | null): void {
    if (key.length > this.maxKeyChars) return;
    this.entries.delete(key);
    this.entries.set(key, value);
    while (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
  }
}

/**
 * Runs jobs one after another (one model, one context sequence, 2 cores), with at most
 * `maxWaiting` waiting behind the running one. A waiting job whose signal aborts (its client went
 * away) leaves the queue at once instead of holding a place until its turn.
 */
export class BoundedQueue {
  private readonly queue: Array<() => void> = [];
  private busy = false;
  constructor(readonly maxWaiting: number) {
    // NaN would make every "is it full" check false: an unbounded queue from a typo.
    if (!Number.isInteger(maxWaiting) || maxWaiting < 0)
      throw new Error(
        `the queue bound must be a whole number of 0 or more (--max-queue), not ${String(maxWaiting).slice(0, 20)}`,
      );
  }

  get running(): number {
    return this.busy ? 1 : 0;
  }
  get waiting(): number {
    return this.queue.length;
  }

  /** The job's result when its turn has come; undefined, without running it, when the queue is full. */
  run<T>(job: () => Promise<T>, signal?: AbortSignal): Promise<T> | undefined {
    if (!this.busy) return this.start(job);
    if (this.queue.length >= this.maxWaiting) return undefined;
    return new Promise<T>((resolve, reject) => {
      const turn = () => {
        signal?.removeEventListener('abort', leave);
        this.start(job).then(resolve, reject);
      };
      const leave = () => {
        const at = this.queue.indexOf(turn);
        if (at >= 0) this.queue.splice(at, 1);
        reject(signal?.reason);
      };
      if (signal?.aborted) return reject(signal.reason);
      signal?.addEventListener('abort', leave, { once: true });
      this.queue.push(turn);
    });
  }

  private start<T>(job: () => Promise<T>): Promise<T> {
    this.busy = true;
    const result = Promise.resolve().then(job);
    void result
      .catch(() => undefined)
      .finally(() => {
        this.busy = false;
        this.queue.shift()?.();
      });
    return result;
  }
}

/** The GGUF model on node-llama-cpp's prebuilt CPU binary. */
async function llamaEngine(options: LocalModelServerOptions): Promise<CompletionEngine> {
  // node-llama-cpp is an ES module: loaded on demand, so importing this file costs nothing.
  const { getLlama, LlamaChatSession } = await import('node-llama-cpp');
  const modelPath = options.modelPath ?? (await installLocalModel({ quiet: true })).path;
  // The prebuilt CPU binary from npm; never a GPU probe or a source build (no network, no toolchain).
  const llama: Llama = await getLlama({ gpu: false, build: 'never' });
  const model: LlamaModel = await llama.loadModel({ modelPath });
  const context: LlamaContext = await model.createContext({
    contextSize: Math.min(options.contextSize ?? 8192, model.trainContextSize),
    threads: options.threads ?? 1,
  });
  const sequence = context.getSequence();
  const grammars = new GrammarCache<LlamaGrammar>();

  async function grammarFor(format: ChatRequest['response_format']) {
    if (!format || format.type === 'text') return { grammar: undefined, kind: 'none' as const };
    if (format.type === 'json_schema' && format.json_schema.schema) {
      // Keyed by what the grammar is built from: descriptions and other dropped keywords do not count.
      const grammarSchema = toGrammarSchema(format.json_schema.schema);
      const key = JSON.stringify(grammarSchema);
      let grammar = grammars.get(key);
      if (grammar === undefined) {
        try {
          grammar = await llama.createGrammarForJsonSchema(grammarSchema as never);
        } catch {
          // Not expressible as a grammar: plain JSON instead, the client validates the shape.
          grammar = null;
        }
        grammars.set(key, grammar);
      }
      if (grammar) return { grammar, kind: 'json_schema' as const };
    }
    return { grammar: await llama.getGrammarFor('json'), kind: 'json' as const };
  }

  return {
    contextSize: context.contextSize,
    async complete({ request, history, prompt, maxTokens }, signal) {
      const started = performance.now();
      const session: LlamaChatSessionType = new LlamaChatSession({
        contextSequence: sequence,
        autoDisposeSequence: false,
      });
      try {
        session.setChatHistory(history);
        const promptTokens = session.chatWrapper
          .generateContextState({ chatHistory: [...history, { type: 'user', text: prompt }] })
          .contextText.tokenize(model.tokenizer).length;
        if (promptTokens + maxTokens > context.contextSize) return { tooLong: promptTokens };
        const { grammar, kind } = await grammarFor(request.response_format);
        const before = sequence.tokenMeter.getState();
        const meta = await session.promptWithMeta(prompt, {
          maxTokens,
          ...(grammar ? { grammar } : {}),
          temperature: request.temperature ?? 0.2,
          ...(request.seed !== undefined ? { seed: request.seed } : {}),
          signal,
        });
        const used = sequence.tokenMeter.diff(before);
        return {
          response: meta.responseText,
          figures: {
            promptTokens,
            completionTokens: used.usedOutputTokens,
            ms: performance.now() - started,
            grammar: kind,
            finishReason: meta.stopReason === 'maxTokens' ? 'length' : 'stop',
          },
        };
      } finally {
        session.dispose({ disposeSequence: false });
      }
    },
    async close() {
      await context.dispose();
      await model.dispose();
      await llama.dispose();
    },
  };
}

export async function startLocalModelServer(options: LocalModelServerOptions = {}): Promise<LocalModelServer> {
  const modelName = options.modelName ?? LOCAL_MODEL.name;
  const maxTokensCap = options.maxTokensCap ?? 512;
  const engine = options.engine ?? (await llamaEngine(options));
  const queue = new BoundedQueue(options.maxQueue ?? 16);
  // The time one answer takes, smoothed: what a refused caller is told to wait per request ahead.
  let typicalMs = 10_000;

  const app: FastifyInstance = Fastify({ logger: false, bodyLimit: 16 * 1024 * 1024, forceCloseConnections: true });
  const openAIError = (message: string, type: string, code: string | null = null) => ({
    error: { message, type, param: null, code },
  });
  const host = options.host ?? '127.0.0.1';
  const guard = hostGuard(options.allowedHosts ?? []);
  guard.addListenHost(host);
  app.addHook('onRequest', async (req, reply) => {
    if (!guard.requestAllowed(req.headers.host, req.raw.url) || !guard.originAllowed(req.headers.origin)) {
      return reply
        .code(403)
        .send(openAIError('the Host or Origin does not name this server', 'invalid_request_error', 'forbidden_host'));
    }
  });

  app.get('/v1/models', async () => ({
    object: 'list',
    data: [{ id: modelName, object: 'model', created: 0, owned_by: 'local' }],
  }));

  app.post('/v1/chat/completions', async (req, reply) => {
    const parsed = requestSchema.safeParse(req.body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return reply
        .code(400)
        .send(openAIError(`${issue?.path.join('.') || 'body'}: ${issue?.message}`, 'invalid_request_error'));
    }
    const body = parsed.data;
    const last = body.messages.at(-1)!;
    if (last.role !== 'user') {
      return reply.code(400).send(openAIError('the last message must be the user turn', 'invalid_request_error'));
    }
    // The client going away (a time-out, a cancelled activity) stops the work, queued or running.
    const abort = new AbortController();
    reply.raw.on('close', () => {
      if (!reply.raw.writableEnded) abort.abort(new Error('client closed the request'));
    });
    const system = body.messages
      .filter((m) => m.role === 'system' || m.role === 'developer')
      .map((m) => m.content)
      .join('\n\n');
    const history: ChatHistoryItem[] = [
      ...(system ? [{ type: 'system' as const, text: system }] : []),
      ...body.messages
        .slice(0, -1)
        .filter((m) => m.role === 'user' || m.role === 'assistant')
        .map((m): ChatHistoryItem =>
          m.role === 'user' ? { type: 'user', text: m.content } : { type: 'model', response: [m.content] },
        ),
    ];
    const maxTokens = Math.min(body.max_completion_tokens ?? body.max_tokens ?? maxTokensCap, maxTokensCap);
    const pending = queue.run(async () => {
      abort.signal.throwIfAborted();
      const result = await engine.complete({ request: body, history, prompt: last.content, maxTokens }, abort.signal);
      if ('figures' in result) {
        typicalMs = Math.round(0.7 * typicalMs + 0.3 * result.figures.ms);
        options.onCompletion?.(result.figures, body, result.response);
      }
      return result;
    }, abort.signal);
    if (!pending) {
      // Full: told at once, before any model work, with when to come back (the requests ahead of it).
      const seconds = Math.min(60, Math.max(1, Math.ceil(((queue.waiting + 1) * typicalMs) / 1000)));
      return reply
        .code(429)
        .header('retry-after', String(seconds))
        .send(
          openAIError(
            `the local model has ${queue.waiting} requests waiting, its limit (--max-queue); try again in ${seconds} s`,
            'requests',
            'rate_limit_exceeded',
          ),
        );
    }
    try {
      const result = await pending;
      if ('tooLong' in result) {
        return reply
          .code(400)
          .send(
            openAIError(
              `This model's maximum context length is ${engine.contextSize} tokens. However, your messages resulted in ${result.tooLong} tokens and max_tokens asks for ${maxTokens}.`,
              'invalid_request_error',
              'context_length_exceeded',
            ),
          );
      }
      const { response, figures } = result;
      return {
        id: `chatcmpl-local-${Date.now().toString(36)}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: modelName,
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: response, refusal: null },
            finish_reason: figures.finishReason,
            logprobs: null,
          },
        ],
        usage: {
          prompt_tokens: figures.promptTokens,
          completion_tokens: figures.completionTokens,
          total_tokens: figures.promptTokens + figures.completionTokens,
        },
      };
    } catch (err) {
      if (abort.signal.aborted) return reply; // nobody is listening
      return reply
        .code(500)
        .send(openAIError(`local model failed: ${err instanceof Error ? err.message : String(err)}`, 'server_error'));
    }
  });

  await app.listen({ host, port: options.port ?? 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const url = `http://${host}:${port}`;
  return {
    url,
    baseUrl: `${url}/v1`,
    modelName,
    load: () => ({ running: queue.running, waiting: queue.waiting }),
    async close() {
      await app.close();
      await engine.close();
    },
  };
}

if (require.main === module) {
  const { values } = parseArgs({
    options: {
      host: { type: 'string', default: '127.0.0.1' },
      'allow-host': { type: 'string', multiple: true, default: [] },
      port: { type: 'string', default: '8081' },
      'max-tokens': { type: 'string', default: '512' },
      'max-queue': { type: 'string', default: '16' },
      threads: { type: 'string', default: '1' },
      model: { type: 'string' },
    },
  });
  startLocalModelServer({
    host: values.host,
    allowedHosts: values['allow-host'],
    port: Number(values.port),
    maxTokensCap: Number(values['max-tokens']),
    maxQueue: Number(values['max-queue']),
    threads: Number(values.threads),
    modelPath: values.model ?? localModelPath(),
    onCompletion: (f) => process.stderr.write(`[local-model] ${JSON.stringify(f)}\n`),
  }).then(
    (server) => {
      process.stderr.write(
        `[local-model] serving ${server.modelName} at ${server.baseUrl} ` +
          `(AGENT_FLOWS_MODEL=openai OPENAI_BASE_URL=${server.baseUrl} OPENAI_MODEL=${server.modelName})\n`,
      );
      const stop = () => void server.close().finally(() => process.exit(0));
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    },
    (err) => {
      process.stderr.write(`[local-model] ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
