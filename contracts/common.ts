/**
 * Shapes shared by every flow: the task queue, token usage, progress, and the flow definition
 * that the worker, the thin client, the MCP server and the control plane all read.
 *
 * This module is imported by workflow code, so it must stay deterministic and free of I/O.
 */
import { ApplicationFailure, defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { z } from 'zod';
import { FailureType } from './failures';

/** The task queue every flow runs on: part of the public contract, not configurable. */
export const TASK_QUEUE = 'agent-flows';

/** Keyword search attribute naming the flow on every workflow (`AgentFlow = "answerBomQuestion"`). */
export const FLOW_SEARCH_ATTRIBUTE = 'AgentFlow';
export const flowSearchAttribute = defineSearchAttributeKey(FLOW_SEARCH_ATTRIBUTE, SearchAttributeType.KEYWORD);

export const tokenUsageSchema = z.object({
  promptTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
  totalTokens: z.number().int().nonnegative(),
  calls: z.number().int().nonnegative(),
});
export type TokenUsage = z.infer<typeof tokenUsageSchema>;
export const zeroUsage = (): TokenUsage => ({ promptTokens: 0, outputTokens: 0, totalTokens: 0, calls: 0 });
export function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  return {
    promptTokens: a.promptTokens + b.promptTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    totalTokens: a.totalTokens + b.totalTokens,
    calls: a.calls + b.calls,
  };
}

/** What every flow's `progress` query returns. */
export const progressSchema = z.object({
  flow: z.string(),
  /** The step the flow is in, named like the seed diagrams (e.g. "column resolver"). */
  stage: z.string(),
  status: z.enum(['running', 'waiting', 'completed', 'failed', 'cancelled']),
  /** Units of work done and planned, when the flow can count them. */
  done: z.number().int().nonnegative(),
  total: z.number().int().nonnegative().nullable(),
  detail: z.string(),
  tokens: z.number().int().nonnegative(),
});
export type Progress = z.infer<typeof progressSchema>;

/**
 * Everything the thin client, the MCP server and the control plane need to know about a flow.
 * Each flow's contracts file exports one of these; `flows/registry.ts` lists them all.
 */
// The callbacks are declared as methods: method parameters are checked bivariantly, so a flow's
// definition (FlowDefinition<ItsInput>) is a FlowDefinition of the list without casts.
export interface FlowDefinition<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> {
  /** Temporal workflow type. */
  type: string;
  /** Short kebab name, used as the workflow id prefix. */
  slug: string;
  /** The MCP tool that runs this flow (snake_case, e.g. `answer_bom_question`). */
  mcpTool: string;
  title: string;
  description: string;
  tags: string[];
  input: I;
  output: O;
  /** A readable key for the workflow id, e.g. the first words of the question. */
  idKey(input: z.output<I>): string;
  /**
   * The whole workflow id, for flows with a natural identity (one EADS interview per project):
   * every client then reaches the same workflow. Absent: `<slug>-<idKey>-<suffix>`.
   */
  workflowId?(input: z.output<I>): string;
  /** One line describing the input, shown as the workflow's summary in the Web UI. */
  summary(input: z.output<I>): string;
  /** Lines a person reads in the terminal when the flow completes. */
  describeResult(output: z.output<O>): string[];
  examples: Array<z.input<I>>;
}

/**
 * At most this many characters of any value a caller gave are echoed back in an error. Input
 * reaches the workflow as one payload of up to 2 MB; an error quoting it whole would not fit
 * in the failure Temporal records, and the workflow task would fail forever.
 */
export const MAX_ECHO_CHARS = 200;
/** At most this many characters in any failure message built from a caller's input. */
export const MAX_FAILURE_CHARS = 2000;
/** At most this many validation issues are listed (a 10,000-key object has 10,000 issues). */
const MAX_LISTED_ISSUES = 20;

/** Cuts text to `max` characters, saying how long it was, so an error never carries a whole value. */
export function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}… (${text.length} characters)` : text;
}

/** A short, quoted excerpt of any value a caller gave (strings quoted, others as JSON). */
export function excerpt(value: unknown, max = MAX_ECHO_CHARS): string {
  if (typeof value === 'string') return JSON.stringify(truncate(value, max));
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = Object.prototype.toString.call(value);
  }
  return truncate(text, max);
}

/** Caps a failure message (and anything that quotes a caller's input) at MAX_FAILURE_CHARS. */
export function capMessage(message: string, max = MAX_FAILURE_CHARS): string {
  return truncate(message, max);
}

/** One validation problem: the field (dotted path) and what is wrong, both capped. */
export interface FieldIssue {
  field: string;
  message: string;
}

/** The issues of a zod error as capped field/message pairs: the one formatter every caller uses. */
export function zodIssues(error: z.ZodError, root = '(input)'): FieldIssue[] {
  return error.issues.slice(0, MAX_LISTED_ISSUES).map((i) => ({
    // A path segment can be a caller's key (an unknown key, a record key): cap each and the whole.
    field: i.path.length ? truncate(i.path.map((p) => truncate(String(p), 60)).join('.'), MAX_ECHO_CHARS) : root,
    message: truncate(i.message, MAX_ECHO_CHARS),
  }));
}

/** "field: message; field: message", capped, naming how many issues were left out. */
export function formatIssues(issues: FieldIssue[], total = issues.length): string {
  const text = issues.map((i) => `${i.field}: ${i.message}`).join('; ');
  const more = total > issues.length ? `; and ${total - issues.length} more issue(s)` : '';
  return capMessage(text + more);
}

export function formatZodError(error: z.ZodError, root = '(input)'): string {
  return formatIssues(zodIssues(error, root), error.issues.length);
}

/** How deep a flow's input may nest (objects in arrays in objects...): far more than any flow's shape needs. */
export const MAX_INPUT_DEPTH = 64;

/**
 * The path to the first value nested deeper than `max` levels, or undefined. Iterative, so that
 * input nested 100,000 deep (a few hundred KB of brackets) is refused here instead of exhausting
 * the stack of a recursive walk: zod's, JSON.stringify's, a flow's own.
 */
export function nestedTooDeep(value: unknown, max = MAX_INPUT_DEPTH): Array<string | number> | undefined {
  const stack: Array<{ value: unknown; path: Array<string | number> }> = [{ value, path: [] }];
  while (stack.length) {
    const { value: v, path } = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (path.length >= max) return path;
    for (const [key, child] of Object.entries(v)) {
      if (child !== null && typeof child === 'object')
        stack.push({ value: child, path: [...path, Array.isArray(v) ? Number(key) : key] });
    }
  }
  return undefined;
}

/** A flow's input checked as the workflow and every client check it: its nesting first, then its schema. */
export function safeParseFlowInput<S extends z.ZodType>(schema: S, raw: unknown): z.ZodSafeParseResult<z.output<S>> {
  const deep = nestedTooDeep(raw);
  if (deep) {
    const error = new z.ZodError([
      {
        code: 'custom',
        // The first few levels say where; the rest would only repeat them.
        path: deep.slice(0, 6).concat(deep.length > 6 ? ['…'] : []),
        message: `nested more than ${MAX_INPUT_DEPTH} levels deep`,
        input: undefined,
      },
    ]);
    return { success: false, error: error as z.ZodError<z.output<S>> };
  }
  return schema.safeParse(raw);
}

/** Validates a workflow's single JSON argument; a bad one fails the workflow at once, naming the field. */
export function parseFlowInput<S extends z.ZodType>(flow: string, schema: S, raw: unknown): z.output<S> {
  const result = safeParseFlowInput(schema, raw);
  if (result.success) return result.data;
  throw ApplicationFailure.nonRetryable(
    `${flow}: invalid input: ${formatZodError(result.error)}`,
    FailureType.InvalidInput,
    zodIssues(result.error),
  );
}

/** Makes a readable id fragment: lower-case words joined by dashes, at most `max` characters. */
export function slugify(text: string, max = 40): string {
  const slug = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|(?<!-)-+$/g, '');
  const cut = slug.slice(0, max).replace(/(?<!-)-+[^-]*$/, (m) => (slug.length > max ? '' : m));
  return cut.replace(/(?<!-)-+$/g, '') || 'run';
}

/** Shortens text to one line of at most `max` characters for summaries. */
export function oneLine(text: string, max = 120): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** A small seeded PRNG (mulberry32): the same seed gives the same sequence (fault injection, synthetic data). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
