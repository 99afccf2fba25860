/**
 * Parses the discovery API's query string into filters, or throws a ParameterError naming the
 * first invalid parameter (the documented 400 body: `{error, message, details:{parameter, provided,
 * allowed}}`). Rules follow the reference implementation; see docs/discovery-api.md.
 */
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

export class ParameterError extends Error {
  constructor(
    readonly parameter: string,
    message: string,
    readonly provided?: string,
    readonly allowed?: string[],
  ) {
    super(message);
    this.name = 'ParameterError';
  }

  toBody() {
    return {
      error: 'invalid_parameter' as const,
      message: this.message,
      details: {
        parameter: this.parameter,
        ...(this.provided !== undefined ? { provided: this.provided } : {}),
        ...(this.allowed ? { allowed: this.allowed } : {}),
      },
    };
  }
}

export const DISCOVERY_PARAMETERS = [
  'agent',
  'node_id',
  'agent_ids',
  'node_ids',
  'reasoner',
  'skill',
  'tags',
  'include_input_schema',
  'include_output_schema',
  'include_descriptions',
  'include_examples',
  'format',
  'health_status',
  'limit',
  'offset',
] as const;
const KNOWN = new Set<string>(DISCOVERY_PARAMETERS);
/** Parameters that take a comma-separated list; repeating them adds to the list. */
const LIST_PARAMETERS = new Set(['agent_ids', 'node_ids', 'tags']);

export const MAX_LIMIT = 500;
export const DEFAULT_LIMIT = 100;
export const MAX_OFFSET = 1_000_000;
export const MAX_PATTERN_LENGTH = 256;
export const MAX_LIST_ENTRIES = 1000;
export const MAX_TAG_PATTERNS = 50;
const BOOLEAN_VALUES = ['true', 'false', '1', '0', 'yes', 'no'];
const CONTROL_CHARS = /[\u0000-\u001f\u007f]/;

type RawQuery = Record<string, string | string[] | undefined>;

/** Shortens what we echo back in `details.provided`, so a huge value does not bloat the error. */
function echo(value: string): string {
  return value.length > 200 ? `${value.slice(0, 200)}…` : value;
}

function single(raw: RawQuery, name: string): string | undefined {
  const value = raw[name];
  if (value === undefined) return undefined;
  if (Array.isArray(value)) {
    if (LIST_PARAMETERS.has(name)) return value.join(',');
    throw new ParameterError(
      name,
      `Parameter ${name} was given ${value.length} times; give it once`,
      echo(value.join(',')),
      ['a single value'],
    );
  }
  return value;
}

function parseBoolean(raw: RawQuery, name: string, fallback: boolean): boolean {
  const value = single(raw, name);
  if (value === undefined || value.trim() === '') return fallback;
  switch (value.trim().toLowerCase()) {
    case 'true':
    case '1':
    case 'yes':
      return true;
    case 'false':
    case '0':
    case 'no':
      return false;
    default:
      throw new ParameterError(
        name,
        `Invalid ${name} parameter. Must be one of: ${BOOLEAN_VALUES.join(', ')}`,
        echo(value),
        BOOLEAN_VALUES,
      );
  }
}

function parseInteger(raw: RawQuery, name: string, fallback: number, max: number): number {
  const value = single(raw, name);
  if (value === undefined || value.trim() === '') return fallback;
  const text = value.trim();
  // Leading zeros are fine; a huge number of digits becomes Infinity and fails the range check.
  const parsed = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isInteger(parsed) || parsed > max) {
    throw new ParameterError(name, `Invalid ${name} parameter. Must be an integer from 0 to ${max}`, echo(value), [
      `0-${max}`,
    ]);
  }
  return parsed;
}

function parsePattern(raw: RawQuery, name: string): string | undefined {
  const value = single(raw, name);
  if (value === undefined) return undefined;
  checkText(name, value, value);
  return value.trim() || undefined;
}

/** Checked before trimming, so a value padded with newlines or tabs is refused like any other control character. */
function checkText(name: string, text: string, provided: string): void {
  if (text.trim().length > MAX_PATTERN_LENGTH) {
    throw new ParameterError(
      name,
      `Invalid ${name} parameter. Values are at most ${MAX_PATTERN_LENGTH} characters`,
      echo(provided),
      [`at most ${MAX_PATTERN_LENGTH} characters`],
    );
  }
  if (CONTROL_CHARS.test(text)) {
    throw new ParameterError(name, `Invalid ${name} parameter. Control characters are not allowed`, echo(provided), [
      'printable characters',
    ]);
  }
}

function parseList(raw: RawQuery, name: string, maxEntries: number): string[] {
  const value = single(raw, name);
  if (value === undefined) return [];
  if (CONTROL_CHARS.test(value)) checkText(name, value, value);
  const entries = value
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p.length > 0);
  if (entries.length > maxEntries) {
    throw new ParameterError(
      name,
      `Invalid ${name} parameter. At most ${maxEntries} comma-separated values`,
      echo(value),
      [`at most ${maxEntries} values`],
    );
  }
  for (const entry of entries) checkText(name, entry, value);
  return entries;
}

function checkAgentIds(name: string, ids: string[], provided: string): void {
  for (const id of ids) {
    if (!AGENT_ID_PATTERN.test(id)) {
      throw new ParameterError(
        name,
        `Invalid ${name} parameter. "${echo(id)}" is not an agent id (letters, digits, ".", "_", "-")`,
        echo(provided),
        ['agent ids: letters, digits, ".", "_", "-"; at most 128 characters'],
      );
    }
  }
}

function agentIdParameter(raw: RawQuery, name: string): string[] {
  const value = single(raw, name);
  const text = value?.trim();
  if (!text) return [];
  checkAgentIds(name, [text], value!);
  return [text];
}

function agentIdList(raw: RawQuery, name: string): string[] {
  const ids = parseList(raw, name, MAX_LIST_ENTRIES);
  checkAgentIds(name, ids, single(raw, name) ?? '');
  return ids;
}

const sortedUnique = (values: string[]) => [...new Set(values)].sort();

export function parseDiscoveryQuery(raw: RawQuery): DiscoveryQuery {
  for (const name of Object.keys(raw)) {
    if (!KNOWN.has(name)) {
      throw new ParameterError(name, `Unknown parameter "${echo(name)}"`, echo(String(raw[name] ?? '')), [
        ...DISCOVERY_PARAMETERS,
      ]);
    }
  }

  const formatText = (single(raw, 'format') ?? '').trim().toLowerCase() || 'json';
  if (!(DISCOVERY_FORMATS as readonly string[]).includes(formatText)) {
    throw new ParameterError(
      'format',
      `Invalid format parameter. Must be one of: ${DISCOVERY_FORMATS.join(', ')}`,
      echo(single(raw, 'format') ?? ''),
      [...DISCOVERY_FORMATS],
    );
  }

  const includeDescriptions = parseBoolean(raw, 'include_descriptions', true);
  const includeExamples = parseBoolean(raw, 'include_examples', false);
  const includeInputSchema = parseBoolean(raw, 'include_input_schema', false);
  const includeOutputSchema = parseBoolean(raw, 'include_output_schema', false);
  const limit = parseInteger(raw, 'limit', DEFAULT_LIMIT, MAX_LIMIT);
  const offset = parseInteger(raw, 'offset', 0, MAX_OFFSET);

  let healthStatus: HealthStatus | undefined;
  const health = single(raw, 'health_status');
  if (health !== undefined && health.trim() !== '') {
    const normalized = health.trim().toLowerCase();
    if (!(HEALTH_STATUSES as readonly string[]).includes(normalized)) {
      throw new ParameterError(
        'health_status',
        `Invalid health_status parameter. Must be one of: ${HEALTH_STATUSES.join(', ')}`,
        echo(health),
        [...HEALTH_STATUSES],
      );
    }
    healthStatus = normalized as HealthStatus;
  }

  // `agent` wins over its alias `node_id`; both lists add to it.
  const agentParam = agentIdParameter(raw, 'agent');
  const nodeParam = agentIdParameter(raw, 'node_id');
  const agentIds = sortedUnique([
    ...(agentParam.length ? agentParam : nodeParam),
    ...agentIdList(raw, 'agent_ids'),
    ...agentIdList(raw, 'node_ids'),
  ]);

  return {
    agentIds,
    reasoner: parsePattern(raw, 'reasoner'),
    skill: parsePattern(raw, 'skill'),
    tags: sortedUnique(parseList(raw, 'tags', MAX_TAG_PATTERNS)),
    includeInputSchema,
    includeOutputSchema,
    includeDescriptions,
    includeExamples,
    format: formatText as DiscoveryFormat,
    healthStatus,
    limit,
    offset,
  };
}

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
