/**
 * The discovery API's querystring as a zod schema: Fastify validates the query with it (see
 * server/routes/validation.ts) and @fastify/swagger documents it, so the check and the
 * OpenAPI document come from the same object. Each parameter's JSON Schema `pattern` is the
 * very expression the value is checked with. Rules follow the reference implementation; see
 * docs/discovery-api.md. A rejected parameter becomes the documented 400 body
 * `{error, message, details:{parameter, provided, allowed}}` (server/routes/validation.ts).
 */
import { z } from 'zod';
import {
  AGENT_ID_PATTERN,
  DISCOVERY_FORMATS,
  HEALTH_STATUSES,
  type DiscoveryFormat,
  type HealthStatus,
} from '../contracts/capabilities';

export interface DiscoveryQuery {
  /** Exact agent ids (union of agent|node_id, agent_ids, node_ids), de-duplicated and sorted. */
  agentIds: string[];
  reasoner?: string;
  skill?: string;
  /** Tag patterns, de-duplicated and sorted. */
  tags: string[];
  includeInputSchema: boolean;
  includeOutputSchema: boolean;
  includeDescriptions: boolean;
  includeExamples: boolean;
  format: DiscoveryFormat;
  healthStatus?: HealthStatus;
  limit: number;
  offset: number;
}

export const MAX_LIMIT = 500;
export const DEFAULT_LIMIT = 100;
export const MAX_OFFSET = 1_000_000;
export const MAX_PATTERN_LENGTH = 256;
export const MAX_LIST_ENTRIES = 1000;
export const MAX_TAG_PATTERNS = 50;
export const BOOLEAN_VALUES = ['true', 'false', '1', '0', 'yes', 'no'];
const CONTROL_CHARS = /[\u0000-\u001f\u007f]/;

/** Any case, surrounding spaces allowed, empty = not given: what the discovery API accepts. */
export function caseInsensitive(words: readonly string[]): RegExp {
  const word = (w: string) =>
    [...w].map((c) => (/[a-z]/i.test(c) ? `[${c.toLowerCase()}${c.toUpperCase()}]` : c)).join('');
  // The trailing spaces belong to the word: `^\s*(w)?\s*$` let two runs trade spaces (quadratic).
  return new RegExp(`^\\s*(?:(${words.map(word).join('|')})\\s*)?$`);
}

/**
 * A string parameter accepted when it matches `pattern`, which the OpenAPI document shows as is.
 * The failure carries the message and the allowed values of the documented 400 body.
 */
export function matching(pattern: RegExp, message: string, allowed?: string[]) {
  return z
    .string()
    .refine((value) => pattern.test(value), { message, params: allowed ? { allowed } : undefined })
    .meta({ pattern: pattern.source });
}

function flag(name: string, fallback: boolean, what: string) {
  return matching(
    caseInsensitive(BOOLEAN_VALUES),
    `Invalid ${name} parameter. Must be one of: ${BOOLEAN_VALUES.join(', ')}`,
    BOOLEAN_VALUES,
  )
    .transform((value) => {
      const word = value.trim().toLowerCase();
      return word === '' ? fallback : ['true', '1', 'yes'].includes(word);
    })
    .optional()
    .describe(`${what} (default ${fallback}): ${BOOLEAN_VALUES.join(', ')}`);
}

function oneOf<T extends string>(name: string, words: readonly T[], description: string) {
  return matching(caseInsensitive(words), `Invalid ${name} parameter. Must be one of: ${words.join(', ')}`, [...words])
    .transform((value) => (value.trim().toLowerCase() || undefined) as T | undefined)
    .optional()
    .describe(description);
}

/** `digits` matches 0..max (leading zeros are fine); anything else, `1e3` or `1.5` included, is refused. */
function integer(name: string, digits: string, max: number, fallback: number, description: string) {
  return matching(
    new RegExp(`^\\s*(?:(0*(${digits}))\\s*)?$`),
    `Invalid ${name} parameter. Must be an integer from 0 to ${max}`,
    [`0-${max}`],
  )
    .transform((value) => (value.trim() === '' ? fallback : Number(value.trim())))
    .optional()
    .describe(description);
}

/** Checked before trimming, so a value padded with newlines or tabs is refused like any other control character. */
function textIssue(name: string, text: string): { message: string; allowed: string[] } | undefined {
  if (text.trim().length > MAX_PATTERN_LENGTH) {
    return {
      message: `Invalid ${name} parameter. Values are at most ${MAX_PATTERN_LENGTH} characters`,
      allowed: [`at most ${MAX_PATTERN_LENGTH} characters`],
    };
  }
  if (CONTROL_CHARS.test(text)) {
    return {
      message: `Invalid ${name} parameter. Control characters are not allowed`,
      allowed: ['printable characters'],
    };
  }
  return undefined;
}

const printable = '[^\\u0000-\\u001f\\u007f]';

/** A glob pattern (`*` is the only wildcard); empty = not given. */
function pattern(name: string, description: string) {
  return z
    .string()
    .superRefine((value, ctx) => {
      const issue = textIssue(name, value);
      if (issue) ctx.addIssue({ code: 'custom', message: issue.message, params: { allowed: issue.allowed } });
    })
    .meta({ pattern: `^${printable}*$`, maxLength: MAX_PATTERN_LENGTH })
    .transform((value) => value.trim() || undefined)
    .optional()
    .describe(description);
}

const ID = AGENT_ID_PATTERN.source.slice(1, -1);
const AGENT_IDS_ALLOWED = ['agent ids: letters, digits, ".", "_", "-"; at most 128 characters'];
const notAnAgentId = (name: string, id: string) =>
  `Invalid ${name} parameter. "${id.length > 200 ? `${id.slice(0, 200)}…` : id}" is not an agent id (letters, digits, ".", "_", "-")`;

/** One agent id; empty = not given. */
function agentId(name: string, description: string) {
  return z
    .string()
    .superRefine((value, ctx) => {
      const id = value.trim();
      if (id && !AGENT_ID_PATTERN.test(id)) {
        ctx.addIssue({ code: 'custom', message: notAnAgentId(name, id), params: { allowed: AGENT_IDS_ALLOWED } });
      }
    })
    .meta({ pattern: `^ *(${ID})? *$` })
    .transform((value) => value.trim() || undefined)
    .optional()
    .describe(description);
}

/**
 * A comma-separated list; repeating the parameter adds to the list (`?tags=a&tags=b`), which is
 * why it also accepts an array. Entries are trimmed, empty entries dropped.
 */
function list(name: string, maxEntries: number, check: (entry: string) => string | undefined, description: string) {
  return z
    .union([z.string(), z.array(z.string())])
    .transform((value, ctx) => {
      const text = Array.isArray(value) ? value.join(',') : value;
      const fail = (message: string, allowed: string[]) => {
        ctx.addIssue({ code: 'custom', message, params: { allowed } });
        return z.NEVER;
      };
      const control = CONTROL_CHARS.test(text) ? textIssue(name, text) : undefined;
      if (control) return fail(control.message, control.allowed);
      const entries = text
        .split(',')
        .map((p) => p.trim())
        .filter((p) => p.length > 0);
      if (entries.length > maxEntries) {
        return fail(`Invalid ${name} parameter. At most ${maxEntries} comma-separated values`, [
          `at most ${maxEntries} values`,
        ]);
      }
      for (const entry of entries) {
        const issue = textIssue(name, entry);
        if (issue) return fail(issue.message, issue.allowed);
        const bad = check(entry);
        if (bad) return fail(bad, AGENT_IDS_ALLOWED);
      }
      return entries;
    })
    .optional()
    .describe(description);
}

const agentIdList = (name: string, description: string) =>
  list(name, MAX_LIST_ENTRIES, (id) => (AGENT_ID_PATTERN.test(id) ? undefined : notAnAgentId(name, id)), description);

const sortedUnique = (values: string[]) => [...new Set(values)].sort();

/** The parameters, in the order the OpenAPI document lists them; any other parameter is refused. */
export const discoveryParameters = z.strictObject({
  agent: agentId('agent', 'One agent id (wins over node_id)').meta({ example: 'agent-flows' }),
  node_id: agentId('node_id', 'Alias of agent'),
  agent_ids: agentIdList('agent_ids', 'Comma-separated agent ids').meta({ example: 'agent-1,agent-2' }),
  node_ids: agentIdList('node_ids', 'Alias of agent_ids (adds to it)'),
  reasoner: pattern('reasoner', 'Reasoner id pattern (filters reasoners only)').meta({ example: '*research*' }),
  skill: pattern('skill', 'Skill id pattern (filters skills only)').meta({ example: 'web_*' }),
  tags: list(
    'tags',
    MAX_TAG_PATTERNS,
    () => undefined,
    'Comma-separated tag patterns; a capability matches if any tag matches any pattern',
  ).meta({ example: 'ml*,*research' }),
  include_input_schema: flag('include_input_schema', false, 'Include input schemas'),
  include_output_schema: flag('include_output_schema', false, 'Include output schemas'),
  include_descriptions: flag(
    'include_descriptions',
    true,
    'Include descriptions (format=compact leaves them out unless this is given as true)',
  ),
  include_examples: flag('include_examples', false, 'Include examples'),
  format: oneOf('format', DISCOVERY_FORMATS, 'Response format (default json): json, xml, compact'),
  health_status: oneOf(
    'health_status',
    HEALTH_STATUSES,
    'Only agents with this health: active, inactive, degraded, unknown',
  ),
  limit: integer(
    'limit',
    '500|[1-4]\\d\\d|\\d\\d?',
    MAX_LIMIT,
    DEFAULT_LIMIT,
    `Agents per page, 0-${MAX_LIMIT} (default ${DEFAULT_LIMIT})`,
  ),
  offset: integer('offset', '1000000|\\d{1,6}', MAX_OFFSET, 0, `Agents to skip, 0-${MAX_OFFSET}`),
});

export const DISCOVERY_PARAMETERS = Object.keys(discoveryParameters.shape) as Array<
  keyof typeof discoveryParameters.shape
>;

/** The route's querystring schema: validated parameters turned into the filters the handler runs. */
export const discoveryQuerySchema = discoveryParameters.transform((p): DiscoveryQuery => ({
  // `agent` wins over its alias `node_id`; both lists add to it.
  agentIds: sortedUnique([
    ...[p.agent ?? p.node_id].filter((id) => id !== undefined),
    ...(p.agent_ids ?? []),
    ...(p.node_ids ?? []),
  ]),
  reasoner: p.reasoner,
  skill: p.skill,
  tags: sortedUnique(p.tags ?? []),
  includeInputSchema: p.include_input_schema ?? false,
  includeOutputSchema: p.include_output_schema ?? false,
  // The compact format is for small budgets: descriptions only when asked for by name (a tool
  // registry built for a model needs them); the other formats carry them unless told not to.
  includeDescriptions: p.include_descriptions ?? p.format !== 'compact',
  includeExamples: p.include_examples ?? false,
  format: p.format ?? 'json',
  healthStatus: p.health_status,
  limit: p.limit ?? DEFAULT_LIMIT,
  offset: p.offset ?? 0,
}));

/** Two queries with the same key produce the same response (used to memoise rendered bodies). */
export function queryKey(q: DiscoveryQuery): string {
  return JSON.stringify([
    q.format,
    q.agentIds,
    q.reasoner ?? null,
    q.skill ?? null,
    q.tags,
    q.healthStatus ?? null,
    q.limit,
    q.offset,
    q.includeDescriptions,
    q.includeExamples,
    q.includeInputSchema,
    q.includeOutputSchema,
  ]);
}
