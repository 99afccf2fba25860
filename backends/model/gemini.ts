/**
 * The model adapter on `@google/genai`: Gemini API (key), Vertex AI, or any endpoint that speaks
 * Gemini's wire format (the offline stand-in, the test fakes) through `baseUrl`.
 *
 * It asks for structured output with the zod schema as `responseJsonSchema`, parses the reply
 * tolerantly, validates it with zod, and sends a non-conforming reply back with the validation
 * error (bounded by `maxRepairs`). HTTP retries are left to Temporal: the client makes one attempt.
 */
import { inSpan } from '../traced';
import { ApiError, FinishReason, GoogleGenAI, type Content } from '@google/genai';
import { z } from 'zod';
import { toGeminiSchema } from './gemini-schema';
import { formatZodError, zeroUsage, type TokenUsage } from '../../contracts/common';
import { BackendError, isRetryableStatus, isTransportError } from '../errors';
import { extractJson, parseWhole, renderSections, renderSystem } from './prompt';
import type {
  ModelBackend,
  ModelPrice,
  ModelReply,
  ModelRequest,
  WebSearchReply,
  WebSearchRequest,
  WebSource,
} from './types';
import { FailureType } from '../../contracts/failures';

export interface GeminiModelOptions {
  model: string;
  apiKey?: string;
  vertex?: { project: string; location: string };
  baseUrl?: string;
  timeoutMs: number;
  maxRepairs: number;
  /** Shown in logs and in the capability list: 'gemini', 'vertex' or 'standin'. */
  label: string;
  /** Offer `searchWeb` (grounding with Google Search): real Gemini only, never the stand-in. */
  webSearch?: boolean;
  /** A general model that may phrase interview questions (real Gemini; the stand-in is not). */
  conversational?: boolean;
  /** Vertex mode only: credentials other than Application Default Credentials (tests pass a fake token). */
  /** US dollars per million tokens, when configured: the model-call metrics estimate the cost. */
  price?: ModelPrice;
  googleAuthOptions?: NonNullable<ConstructorParameters<typeof GoogleGenAI>[0]>['googleAuthOptions'];
}

/** The zod schema as the JSON Schema subset Gemini supports (zod still checks the whole schema). */
export function toResponseSchema(schema: z.ZodType): Record<string, unknown> {
  return toGeminiSchema(z.toJSONSchema(schema, { unrepresentable: 'any' })) as Record<string, unknown>;
}

export class GeminiModel implements ModelBackend {
  readonly name: string;
  readonly modelName: string;
  readonly price?: ModelPrice;
  private readonly client: GoogleGenAI;
  readonly searchWeb?: (request: WebSearchRequest) => Promise<WebSearchReply>;
  readonly canConverse: boolean;

  constructor(private readonly options: GeminiModelOptions) {
    this.name = options.label;
    this.modelName = options.model;
    if (options.price) this.price = options.price;
    this.canConverse = options.conversational === true;
    if (options.webSearch) this.searchWeb = (request) => this.groundedSearch(request);
    const httpOptions = {
      timeout: options.timeoutMs,
      retryOptions: { attempts: 1 },
      ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
    };
    this.client = options.vertex
      ? new GoogleGenAI({
          vertexai: true,
          project: options.vertex.project,
          location: options.vertex.location,
          httpOptions,
          googleAuthOptions: options.googleAuthOptions,
        })
      : new GoogleGenAI({ apiKey: options.apiKey, httpOptions });
  }

  generate<S extends z.ZodType>(request: ModelRequest<S>): Promise<ModelReply<z.output<S>>> {
    return inSpan(
      'model.generate',
      { 'gen_ai.system': this.name, 'gen_ai.request.model': this.options.model, 'agent_flows.task': request.task },
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
    const contents: Content[] = [{ role: 'user', parts: [{ text: renderSections(request.sections) }] }];
    const responseJsonSchema = toResponseSchema(request.schema);
    let usage: TokenUsage = zeroUsage();
    // Turns whose reply stopped at the output token limit: when every one did, the limit is below
    // what the model writes for this request (the activity retries that once, at once).
    let cutTurns = 0;
    for (let repairs = 0; ; repairs++) {
      const response = await this.call(request, contents, responseJsonSchema);
      const meta = response.usageMetadata;
      usage = {
        promptTokens: usage.promptTokens + (meta?.promptTokenCount ?? 0),
        outputTokens: usage.outputTokens + (meta?.candidatesTokenCount ?? 0),
        totalTokens: usage.totalTokens + (meta?.totalTokenCount ?? 0),
        calls: usage.calls + 1,
      };
      const text = response.text ?? '';
      const cut = response.candidates?.[0]?.finishReason === FinishReason.MAX_TOKENS;
      if (cut) cutTurns++;
      const parsed = cut ? parseWhole(text) : extractJson(text);
      const problem =
        parsed === undefined
          ? cut
            ? 'the reply was cut off at the token limit before its JSON was complete; reply with shorter values'
            : 'the reply was not JSON'
          : (() => {
              const result = request.schema.safeParse(parsed);
              return result.success ? undefined : formatZodError(result.error);
            })();
      if (problem === undefined) {
        return { data: request.schema.parse(parsed), usage, model: this.options.model, repairs };
      }
      if (repairs >= this.options.maxRepairs) {
        const cutOff = cutTurns === repairs + 1;
        throw new BackendError(
          `${request.task}: model reply did not match the schema after ${repairs} repair(s): ${problem}` +
            (cutOff
              ? `; every reply was cut off at the token limit (${request.maxOutputTokens ?? "the model's own"})`
              : ''),
          {
            backend: 'model',
            retryable: true,
            type: FailureType.ModelOutputInvalid,
            ...(cutOff ? { cutOff } : {}),
          },
        );
      }
      // Feed the error back so the model can correct itself (the common complaint about
      // structured output is that it fails without ever telling the model why).
      const rejection = {
        text: `Your reply was rejected: ${problem}. Reply again with only JSON that matches the response schema.`,
      };
      // A reply with no text (a thinking model can spend the whole output limit before writing)
      // has no turn to quote: the API refuses a part without data, so the rejection joins the
      // user's last turn instead, and the turns still alternate.
      if (text) {
        contents.push({ role: 'model', parts: [{ text: text.slice(0, 4000) }] });
        contents.push({ role: 'user', parts: [rejection] });
      } else contents.at(-1)!.parts!.push(rejection);
    }
  }

  /**
   * Grounding with Google Search: the model searches and answers in prose; what counts is the
   * response's grounding metadata, the pages Google Search returned. A URL that appears only in
   * the prose is not a source.
   */
  private async groundedSearch(request: WebSearchRequest): Promise<WebSearchReply> {
    let response: Awaited<ReturnType<GoogleGenAI['models']['generateContent']>>;
    try {
      response = await this.client.models.generateContent({
        model: this.options.model,
        contents: [{ role: 'user', parts: [{ text: request.query }] }],
        config: {
          systemInstruction: renderSystem(
            request.task,
            `Search the web for up to ${request.maxResults} recent peer-reviewed studies or authoritative ` +
              'reports on the topic the user gives, and name each one you found with a sentence on what it shows.',
          ),
          tools: [{ googleSearch: {} }],
          temperature: 0.2,
          ...(request.signal ? { abortSignal: request.signal } : {}),
        },
      });
    } catch (err) {
      throw classifyModelError(request.task, err);
    }
    const grounding = response.candidates?.[0]?.groundingMetadata;
    const chunks = grounding?.groundingChunks ?? [];
    const supported = new Map<number, string[]>();
    for (const support of grounding?.groundingSupports ?? []) {
      for (const index of support.groundingChunkIndices ?? []) {
        if (support.segment?.text) supported.set(index, [...(supported.get(index) ?? []), support.segment.text]);
      }
    }
    const seen = new Set<string>();
    const sources: WebSource[] = [];
    chunks.forEach((chunk, index) => {
      const uri = chunk.web?.uri;
      if (!uri || !/^https?:\/\//i.test(uri) || seen.has(uri)) return;
      seen.add(uri);
      sources.push({
        uri,
        title: chunk.web?.title || new URL(uri).hostname,
        snippet: (supported.get(index) ?? []).join(' ').slice(0, 400),
      });
    });
    const meta = response.usageMetadata;
    return {
      sources: sources.slice(0, request.maxResults),
      queries: grounding?.webSearchQueries ?? [],
      usage: {
        promptTokens: meta?.promptTokenCount ?? 0,
        outputTokens: meta?.candidatesTokenCount ?? 0,
        totalTokens: meta?.totalTokenCount ?? 0,
        calls: 1,
      },
    };
  }

  private async call(
    request: ModelRequest<z.ZodType>,
    contents: Content[],
    responseJsonSchema: Record<string, unknown>,
  ) {
    try {
      return await this.client.models.generateContent({
        model: this.options.model,
        contents,
        config: {
          systemInstruction: renderSystem(request.task, request.instructions),
          responseMimeType: 'application/json',
          responseJsonSchema,
          temperature: request.temperature ?? 0.2,
          ...(request.maxOutputTokens ? { maxOutputTokens: request.maxOutputTokens } : {}),
          ...(request.signal ? { abortSignal: request.signal } : {}),
        },
      });
    } catch (err) {
      throw classifyModelError(request.task, err);
    }
  }
}

/** Maps client errors to retryable or permanent BackendErrors, with a message a person can act on. */
export function classifyModelError(task: string, err: unknown): BackendError {
  if (err instanceof ApiError) {
    const retryable = isRetryableStatus(err.status);
    const hint =
      err.status === 400
        ? ' (bad request: check GEMINI_MODEL and the request)'
        : err.status === 401 || err.status === 403
          ? ' (check GEMINI_API_KEY or the service account permissions)'
          : err.status === 404
            ? ' (model not found: check GEMINI_MODEL)'
            : '';
    return new BackendError(`${task}: model call failed with HTTP ${err.status}${hint}: ${firstLine(err.message)}`, {
      backend: 'model',
      retryable,
      type: retryable ? FailureType.ModelUnavailable : FailureType.ModelRequestRejected,
      status: err.status,
      cause: err,
    });
  }
  if (isTransportError(err)) {
    return new BackendError(`${task}: model endpoint unreachable or timed out: ${(err as Error).message}`, {
      backend: 'model',
      retryable: true,
      type: FailureType.ModelUnavailable,
      cause: err,
    });
  }
  return new BackendError(`${task}: model call failed: ${err instanceof Error ? err.message : String(err)}`, {
    backend: 'model',
    retryable: false,
    type: FailureType.ModelRequestRejected,
    cause: err,
  });
}

function firstLine(text: string): string {
  return text.split('\n')[0].slice(0, 300);
}
