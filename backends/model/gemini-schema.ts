/**
 * The JSON Schema Gemini takes as `responseJsonSchema`. Google's API reference (the
 * GenerationConfig.responseJsonSchema field of generativelanguage v1beta / aiplatform v1) lists the
 * only keywords it supports: $id, $defs, $ref, $anchor, type, format, title, description, enum
 * (strings and numbers), items, prefixItems, minItems, maxItems, minimum, maximum, anyOf, oneOf
 * (read as anyOf), properties, additionalProperties, required, and the non-standard
 * propertyOrdering; a sub-schema with $ref may hold no other keyword but `$`-keywords. Anything
 * else is not enforced by the model, and large or deep schemas are refused ("too many states").
 *
 * `toGeminiSchema` sends only that subset (zod still checks the reply against the whole schema,
 * and a reply that breaks a dropped rule goes back to the model with the reason), and
 * `geminiSchemaProblems` is the check the stand-in applies to every request, so a schema Google
 * would refuse fails a test here first.
 */

export const GEMINI_SCHEMA_KEYWORDS: ReadonlySet<string> = new Set([
  '$id',
  '$defs',
  '$ref',
  '$anchor',
  'type',
  'format',
  'title',
  'description',
  'enum',
  'items',
  'prefixItems',
  'minItems',
  'maxItems',
  'minimum',
  'maximum',
  'anyOf',
  'oneOf',
  'properties',
  'additionalProperties',
  'required',
  'propertyOrdering',
]);

/**
 * The project's own bounds, below which Gemini has served every schema we send: nesting depth
 * (objects and arrays inside each other) and the size of the schema as JSON. The EADS refinement
 * schemas, built from example data structures, are the largest.
 */
export const GEMINI_SCHEMA_LIMITS = { maxDepth: 12, maxBytes: 32_000, maxProperties: 400 } as const;

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Keywords whose value is one sub-schema, a list of them, or a map of them. */
const SUBSCHEMA = new Set(['items', 'additionalProperties']);
const SUBSCHEMA_LISTS = new Set(['prefixItems', 'anyOf', 'oneOf']);
const SUBSCHEMA_MAPS = new Set(['properties', '$defs']);

/** A JSON Schema reduced to the keywords Gemini supports (a new object; the input is unchanged). */
export function toGeminiSchema(schema: unknown): unknown {
  if (!isObject(schema)) return schema;
  if (typeof schema.$ref === 'string') {
    return Object.fromEntries(Object.entries(schema).filter(([k]) => k.startsWith('$') && k !== '$schema'));
  }
  const out: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    if (!GEMINI_SCHEMA_KEYWORDS.has(key)) continue;
    if (SUBSCHEMA.has(key)) out[key] = isObject(value) ? toGeminiSchema(value) : value;
    else if (SUBSCHEMA_LISTS.has(key)) out[key] = Array.isArray(value) ? value.map(toGeminiSchema) : value;
    else if (SUBSCHEMA_MAPS.has(key) && isObject(value))
      out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toGeminiSchema(v)]));
    else if (key === 'enum' && Array.isArray(value))
      out[key] = value.filter((v) => typeof v === 'string' || typeof v === 'number');
    else out[key] = value;
  }
  return out;
}

/** What Gemini would not take in a response schema; empty when it is within the supported subset. */
export function geminiSchemaProblems(schema: unknown): string[] {
  const problems: string[] = [];
  forEachSubschema(schema, (node, at) => {
    for (const key of Object.keys(node)) {
      if (!GEMINI_SCHEMA_KEYWORDS.has(key)) problems.push(`${at}: keyword "${key}" is not supported`);
    }
    if (typeof node.$ref === 'string') {
      const extra = Object.keys(node).filter((k) => !k.startsWith('$'));
      if (extra.length) problems.push(`${at}: $ref with other keywords (${extra.join(', ')})`);
    }
    if (Array.isArray(node.enum) && node.enum.some((v) => typeof v !== 'string' && typeof v !== 'number'))
      problems.push(`${at}: enum values must be strings or numbers`);
  });
  const { depth, bytes, properties } = geminiSchemaFigures(schema);
  const { maxDepth, maxBytes, maxProperties } = GEMINI_SCHEMA_LIMITS;
  if (depth > maxDepth) problems.push(`nesting depth ${depth} exceeds ${maxDepth}`);
  if (bytes > maxBytes) problems.push(`schema is ${bytes} bytes, over ${maxBytes}`);
  if (properties > maxProperties) problems.push(`${properties} properties in all, over ${maxProperties}`);
  return problems;
}

/** Calls `visit` for every sub-schema with its path and its nesting depth (objects and arrays). */
function forEachSubschema(schema: unknown, visit: (node: Json, at: string, depth: number) => void): void {
  const walk = (node: unknown, at: string, depth: number) => {
    if (!isObject(node)) return;
    visit(node, at, depth);
    for (const key of SUBSCHEMA) walk(node[key], `${at}.${key}`, depth + 1);
    for (const key of SUBSCHEMA_LISTS) {
      const list = node[key];
      if (Array.isArray(list)) list.forEach((s, i) => walk(s, `${at}.${key}[${i}]`, depth));
    }
    for (const key of SUBSCHEMA_MAPS) {
      const map = node[key];
      if (!isObject(map)) continue;
      for (const [name, s] of Object.entries(map))
        walk(s, `${at}.${key}.${name}`, depth + (key === 'properties' ? 1 : 0));
    }
  };
  walk(schema, '(schema)', 0);
}

/** Depth, size and property count of a schema: the figures the limits bound. */
export function geminiSchemaFigures(schema: unknown): { depth: number; bytes: number; properties: number } {
  let depth = 0;
  let properties = 0;
  forEachSubschema(schema, (node, _at, d) => {
    depth = Math.max(depth, d);
    if (isObject(node.properties)) properties += Object.keys(node.properties).length;
  });
  return { depth, bytes: Buffer.byteLength(JSON.stringify(schema ?? null)), properties };
}
