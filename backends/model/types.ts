import type { z } from 'zod';
import type { TokenUsage } from '../../contracts/common';

export interface ModelRequest<S extends z.ZodType> {
  /** Task id, e.g. `bom.focus_terms`: names the call in logs, metrics and the stand-in's rules. */
  task: string;
  /** The system instruction: what to do and how to answer. */
  instructions: string;
  /**
   * The data the model works on, rendered as tagged sections (one per key). An object rather than
   * a record so that the section interfaces of `contracts/model-tasks.ts` fit as they are.
   */
  sections: object;
  /** The reply's shape: sent as `responseJsonSchema`, and the reply is validated against it. */
  schema: S;
  temperature?: number;
  maxOutputTokens?: number;
  signal?: AbortSignal;
}

export interface ModelReply<T> {
  data: T;
  usage: TokenUsage;
  model: string;
  /** How many times the reply was sent back with its validation error before it conformed. */
  repairs: number;
}

export interface WebSearchRequest {
  /** Task id, as for `generate`. */
  task: string;
  /** What to find, in words. */
  query: string;
  maxResults: number;
  signal?: AbortSignal;
}

/** A web page the model's search grounded its answer in. */
export interface WebSource {
  uri: string;
  title: string;
  /** The parts of the model's answer that this page supports. */
  snippet: string;
}

export interface WebSearchReply {
  /** Only pages named in the response's grounding metadata: never a URL the model wrote itself. */
  sources: WebSource[];
  /** The searches the model ran. */
  queries: string[];
  usage: TokenUsage;
}

/** A model that answers with structured output. Gemini (API key or Vertex) and the stand-in share one adapter. */
/** What a model charges, in US dollars per million tokens (MODEL_PRICE_* settings). */
export interface ModelPrice {
  inputPerMillionTokens: number;
  outputPerMillionTokens: number;
}

export interface ModelBackend {
  readonly name: string;
  /** The model's name (e.g. `gemini-2.5-flash`), from the configuration: a metrics label. */
  readonly modelName?: string;
  /** Set when a price is configured: the model-call metrics then estimate the cost. */
  readonly price?: ModelPrice;
  generate<S extends z.ZodType>(request: ModelRequest<S>): Promise<ModelReply<z.output<S>>>;
  /**
   * True for a general model (Gemini) that can hold a conversation: the proposal interview lets it
   * phrase its questions. The offline stand-in answers rules, not conversations: false or absent.
   */
  readonly canConverse?: boolean;
  /** Present when the model can search the web (Gemini's grounding with Google Search); offline it is absent. */
  searchWeb?: (request: WebSearchRequest) => Promise<WebSearchReply>;
}
