/**
 * The model adapter on the official `openai` client: OpenAI, or any server that speaks its Chat
 * Completions API (Ollama, llama.cpp's server, vLLM, the project's local model server in
 * workers/local-model-server.ts) through `baseUrl`.
 *
 * Structured output is asked for with `response_format: json_schema`, from the same zod schema
 * the Gemini adapter sends; the reply is parsed tolerantly and validated with zod, and a reply
 * that does not conform goes back to the model with the validation error (at most `maxRepairs`
 * times), as in gemini.ts. HTTP retries are left to Temporal: the client makes one attempt.
 */
import OpenAI, {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
  type ClientOptions,
} from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { z } from 'zod';
import { formatZodError, zeroUsage, type TokenUsage } from '../../contracts/common';
import { FailureType } from '../../contracts/failures';
import { BackendError, isRetryableStatus, isTransportError, retryAfterMs } from '../errors';
import { inSpan } from '../traced';
import { redactCredentials } from '../../plumbing/redaction';
import { extractJson, parseWhole, renderSections, renderSystem } from './prompt';
import type { ModelBackend, ModelPrice, ModelReply, ModelRequest } from './types';

export interface OpenAIModelOptions {
  /** The model's name as the server knows it (OPENAI_MODEL). */
  model: string;
  /** The API's base URL, ending in `/v1` for most servers (OPENAI_BASE_URL). */
  baseUrl: string;
  /** OPENAI_API_KEY; local servers need none (a placeholder is sent, as their clients do). */
  apiKey?: string;
  timeoutMs: number;
  maxRepairs: number;
  price?: ModelPrice;
  /** Lets the proposal interview have the model phrase its questions (a general chat model can). */
  conversational?: boolean;
  /** Tests only: the client's fetch. */
  fetch?: ClientOptions['fetch'];
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The zod schema as JSON Schema for `response_format` (zod still checks the whole reply). */
export function toOpenAISchema(schema: z.ZodType): Json {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { unrepresentable: 'any' }) as Json;
  return rest;
}

/**
 * Whether OpenAI's strict mode would take the schema: it requires every object to list all its
 * properties as required and to forbid others. Project schemas have optional fields, so most are
 * sent with `strict: false` (the server then follows the schema as far as it can, and zod with the
 * repair loop does the rest), instead of being refused with a 400.
 */
export function isStrictCompatible(schema: unknown): boolean {
  const walk = (node: unknown): boolean => {
    if (Array.isArray(node)) return node.every(walk);
    if (!isObject(node)) return true;
    if (isObject(node.properties)) {
      const keys = Object.keys(node.properties);
      const required = Array.isArray(node.required) ? node.required : [];
      if (node.additionalProperties !== false || keys.some((k) => !required.includes(k))) return false;
    }
    return Object.values(node).every(walk);
  };
  return walk(schema);
}

/** Whether a JSON Schema lets a value be null (an empty schema allows anything). */
export function allowsNull(schema: unknown): boolean {
  if (!isObject(schema)) return schema === true;
  if (Object.keys(schema).length === 0) return true;
  const type = schema.type;
  if (type === 'null' || (Array.isArray(type) && type.includes('null'))) return true;
  if ('const' in schema && schema.const === null) return true;
  if (Array.isArray(schema.enum) && schema.enum.includes(null)) return true;
  return [schema.anyOf, schema.oneOf].some(
    (alternatives) => Array.isArray(alternatives) && alternatives.some(allowsNull),
  );
}

/** The JSON kind of a value, as JSON Schema's `type` names it. */
function kindOf(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
}

/**
 * The reply with `null` taken out where the schema has an optional property that may not be null:
 * null there means "absent", as in OpenAI's strict mode (which has every property written, and
 * optional ones as nullable). Servers that build a grammar from the schema write every property
 * too (the local model server, node-llama-cpp), and offer null for the optional ones. Everything
 * else is left for zod to judge.
 */
export function withoutNullOptionals(value: unknown, schema: unknown): unknown {
  if (!isObject(schema)) return value;
  if (Array.isArray(value)) {
    const items = schema.items;
    return isObject(items) ? value.map((v) => withoutNullOptionals(v, items)) : value;
  }
  if (isObject(value) && isObject(schema.properties)) {
    const properties = schema.properties;
    const required = Array.isArray(schema.required) ? schema.required : [];
    const out: Json = {};
    for (const [key, v] of Object.entries(value)) {
      // JSON.parse makes "__proto__" an own key; assigned below it would set the prototype and
      // lend its fields to the reply. Kept as data, the schema sees it as the unknown key it is.
      if (key === '__proto__') {
        Object.defineProperty(out, key, { value: v, enumerable: true, configurable: true, writable: true });
        continue;
      }
      const property = Object.hasOwn(properties, key) ? properties[key] : undefined;
      if (v === null && property !== undefined && !required.includes(key) && !allowsNull(property)) continue;
      out[key] = property === undefined ? v : withoutNullOptionals(v, property);
    }
    return out;
  }
  // A union: the one alternative of the value's kind, when there is exactly one.
  const alternatives = [schema.anyOf, schema.oneOf].find(Array.isArray) as unknown[] | undefined;
  if (alternatives && value !== null && typeof value === 'object') {
    const kind = kindOf(value);
    const matching = alternatives.filter(
      (a) => isObject(a) && (a.type === kind || (kind === 'object' && a.type === undefined && isObject(a.properties))),
    );
    if (matching.length === 1) return withoutNullOptionals(value, matching[0]);
  }
  return value;
}

/** `response_format.json_schema.name` allows letters, digits, `_` and `-` (64 at most); task ids have dots. */
export function schemaName(task: string): string {
  return task.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64) || 'reply';
}

export class OpenAIModel implements ModelBackend {
  readonly name = 'openai';
  readonly modelName: string;
  readonly price?: ModelPrice;
  readonly canConverse: boolean;
  private readonly client: OpenAI;

  constructor(private readonly options: OpenAIModelOptions) {
    this.modelName = options.model;
    if (options.price) this.price = options.price;
    this.canConverse = options.conversational !== false;
    this.client = new OpenAI({
      // The key comes only from the configuration (the worker's environment); the client would
      // otherwise read OPENAI_API_KEY and OPENAI_BASE_URL itself, and refuses to start without a key.
      apiKey: options.apiKey ?? 'no-key',
      baseURL: options.baseUrl,
      timeout: options.timeoutMs,
      maxRetries: 0,
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
  }

  generate<S extends z.ZodType>(request: ModelRequest<S>): Promise<ModelReply<z.output<S>>> {
    return inSpan(
      'model.generate',
      { 'gen_ai.system': 'openai', 'gen_ai.request.model': this.options.model, 'agent_flows.task': request.task },
      () => this.generateUntraced(request),
      (reply) => ({
        'gen_ai.response.model': reply.model,
        'gen_ai.usage.input_tokens': reply.usage.promptTokens,
        'gen_ai.usage.output_tokens': reply.usage.outputTokens,
        'gen_ai.usage.total_tokens': reply.usage.totalTokens,
        'agent_flows.model_calls': reply.usage.calls,
        'agent_flows.repairs': reply.repairs,
      }),
    );
  }

  private async generateUntraced<S extends z.ZodType>(request: ModelRequest<S>): Promise<ModelReply<z.output<S>>> {
    const schema = toOpenAISchema(request.schema);
    const strict = isStrictCompatible(schema);
    const messages: ChatCompletionMessageParam[] = [
      { role: 'system', content: renderSystem(request.task, request.instructions) },
      { role: 'user', content: renderSections(request.sections) },
    ];
    let usage: TokenUsage = zeroUsage();
    let model = this.options.model;
    // Turns whose reply was cut at the token limit: when every one was, the limit is below what the
    // model writes for this request (the activity retries that once, at once: see toFailure).
    let cutTurns = 0;
    for (let repairs = 0; ; repairs++) {
      const completion = await this.call(request, messages, schema, strict);
      // The server names the model it used; that name goes into traces, so a server quoting the
      // request back (an Authorization header, a key) or sending a page of text must not carry it.
      if (typeof completion.model === 'string' && completion.model) {
        model = redactCredentials(completion.model).slice(0, 200);
      }
      const u = completion.usage;
      usage = {
        promptTokens: usage.promptTokens + (u?.prompt_tokens ?? 0),
        outputTokens: usage.outputTokens + (u?.completion_tokens ?? 0),
        totalTokens: usage.totalTokens + (u?.total_tokens ?? (u?.prompt_tokens ?? 0) + (u?.completion_tokens ?? 0)),
        calls: usage.calls + 1,
      };
      const choice = completion.choices?.[0];
      const text = choice?.message?.content ?? '';
      // A reply cut at the token limit is read whole or not at all: the tolerant extraction would
      // find a complete fragment inside it (an inner array) and report that as the wrong type.
      const cut = choice?.finish_reason === 'length';
      if (cut) cutTurns++;
      const extracted = cut ? parseWhole(text) : extractJson(text);
      const parsed = extracted === undefined ? undefined : withoutNullOptionals(extracted, schema);
      const problem =
        parsed === undefined
          ? cut
            ? 'the reply was cut off at the token limit before its JSON was complete; reply with shorter values'
            : 'the reply was not JSON'
          : (() => {
              const result = request.schema.safeParse(parsed);
              return result.success ? undefined : formatZodError(result.error);
            })();
      if (problem === undefined) return { data: request.schema.parse(parsed), usage, model, repairs };
      if (repairs >= this.options.maxRepairs) {
        const cutOff = cutTurns === repairs + 1;
        throw new BackendError(
          `${request.task}: model reply did not match the schema after ${repairs} repair(s): ${problem}` +
            (cutOff
              ? `; every reply was cut off at the token limit${request.maxOutputTokens ? ` (${request.maxOutputTokens})` : ' (set by the server)'}`
              : ''),
          { backend: 'model', retryable: true, type: FailureType.ModelOutputInvalid, ...(cutOff ? { cutOff } : {}) },
        );
      }
      // The same repair turn as the Gemini adapter: the model sees its reply and why it was refused.
      messages.push({ role: 'assistant', content: text.slice(0, 4000) });
      messages.push({
        role: 'user',
        content: `Your reply was rejected: ${problem}. Reply again with only JSON that matches the response schema.`,
      });
    }
  }

  private async call(
    request: ModelRequest<z.ZodType>,
    messages: ChatCompletionMessageParam[],
    schema: Json,
    strict: boolean,
  ): Promise<OpenAI.Chat.Completions.ChatCompletion> {
    try {
      return await this.client.chat.completions.create(
        {
          model: this.options.model,
          messages,
          response_format: {
            type: 'json_schema',
            json_schema: { name: schemaName(request.task), schema, strict },
          },
          temperature: request.temperature ?? 0.2,
          ...(request.maxOutputTokens ? { max_tokens: request.maxOutputTokens } : {}),
        },
        request.signal ? { signal: request.signal } : undefined,
      );
    } catch (err) {
      throw classifyOpenAIError(request.task, err);
    }
  }
}

/**
 * Maps the client's errors to retryable or permanent BackendErrors, naming the setting to check.
 * 408, 409, 429 and 5xx are worth another attempt (Temporal's retry policy makes it); other 4xx
 * are not: the same request with the same settings would be refused again.
 */
export function classifyOpenAIError(task: string, err: unknown): BackendError {
  if (err instanceof APIUserAbortError) {
    // Only an aborted signal aborts a request: the activity was cancelled (backendCall rethrows the
    // cancellation itself); nothing to retry.
    return new BackendError(`${task}: model call aborted`, {
      backend: 'model',
      retryable: false,
      type: FailureType.ModelRequestRejected,
      cause: err,
    });
  }
  if (err instanceof APIConnectionTimeoutError || err instanceof APIConnectionError || isTransportError(err)) {
    const timedOut = err instanceof APIConnectionTimeoutError;
    return new BackendError(
      `${task}: model endpoint ${timedOut ? 'timed out (MODEL_TIMEOUT_MS)' : 'unreachable (check OPENAI_BASE_URL)'}: ${firstLine(
        (err as Error).message,
      )}`,
      { backend: 'model', retryable: true, type: FailureType.ModelUnavailable, cause: err },
    );
  }
  if (err instanceof APIError && typeof err.status === 'number') {
    const status = err.status;
    const retryable = isRetryableStatus(status);
    const wait = retryable ? retryAfterMs(err.headers) : undefined;
    const hint =
      status === 401
        ? ' (authentication failed: check OPENAI_API_KEY)'
        : status === 403
          ? ' (permission denied: check OPENAI_API_KEY and its access to OPENAI_MODEL)'
          : status === 404
            ? ' (not found: check OPENAI_MODEL and OPENAI_BASE_URL)'
            : status === 400 || status === 422
              ? ' (bad request: the server refused the request, e.g. the model, the schema or the prompt length)'
              : status === 429
                ? ' (rate limited or out of quota)'
                : '';
    return new BackendError(`${task}: model call failed with HTTP ${status}${hint}: ${firstLine(err.message)}`, {
      backend: 'model',
      retryable,
      type: retryable ? FailureType.ModelUnavailable : FailureType.ModelRequestRejected,
      status,
      ...(wait !== undefined ? { retryAfterMs: wait } : {}),
      cause: err,
    });
  }
  return new BackendError(
    `${task}: model call failed: ${err instanceof Error ? firstLine(err.message) : String(err)}`,
    {
      backend: 'model',
      retryable: false,
      type: FailureType.ModelRequestRejected,
      cause: err,
    },
  );
}

function firstLine(text: string): string {
  return text.split('\n')[0].slice(0, 300);
}
