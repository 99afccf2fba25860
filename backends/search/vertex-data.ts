/**
 * Vertex AI Search results as plain JSON: protobuf Struct values converted, and the text of a
 * result from an unstructured data store. Pure, and apart from ./vertex.ts so that code and tests
 * that only read results do not load `@google-cloud/discoveryengine` (its generated client and
 * protobuf definitions: a few hundred milliseconds of a process's start).
 */

type ProtoValue = {
  nullValue?: unknown;
  numberValue?: number;
  stringValue?: string;
  boolValue?: boolean;
  structValue?: { fields?: Record<string, ProtoValue> };
  listValue?: { values?: ProtoValue[] };
  kind?: string;
};

/** protobuf Struct/Value → plain JSON. Plain objects (already JSON) pass through. */
export function structToJson(struct: unknown): Record<string, unknown> {
  if (!struct || typeof struct !== 'object') return {};
  const fields = (struct as { fields?: Record<string, ProtoValue> }).fields;
  if (!fields) return struct as Record<string, unknown>;
  return Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, valueToJson(v)]));
}

function valueToJson(value: ProtoValue): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (value.structValue !== undefined && value.structValue !== null) return structToJson(value.structValue);
  if (value.listValue !== undefined && value.listValue !== null) return (value.listValue.values ?? []).map(valueToJson);
  if (value.stringValue !== undefined && value.stringValue !== null) return value.stringValue;
  if (value.numberValue !== undefined && value.numberValue !== null) return value.numberValue;
  if (value.boolValue !== undefined && value.boolValue !== null) return value.boolValue;
  return null;
}

/**
 * A result's data as plain JSON: the structured document as stored, or, for a data store of
 * unstructured documents (markdown, PDF), what Vertex AI Search derives: title, link, and the
 * snippets and extractive answers joined as `text`, the field the activities read prose from.
 */
export function hitData(doc: { derivedStructData?: unknown; structData?: unknown }): Record<string, unknown> {
  const derived = structToJson(doc.derivedStructData);
  const data: Record<string, unknown> = { ...derived, ...structToJson(doc.structData) };
  if (data.text === undefined) {
    const pieces = [
      ...(Array.isArray(derived.extractive_answers) ? derived.extractive_answers : []).map(
        (a) => (a as { content?: unknown }).content,
      ),
      ...(Array.isArray(derived.snippets) ? derived.snippets : []).map((s) => (s as { snippet?: unknown }).snippet),
    ].filter((p): p is string => typeof p === 'string' && p.trim().length > 0);
    if (pieces.length) data.text = pieces.map((p) => p.replace(/<\/?b>/g, '')).join('\n');
  }
  return data;
}
