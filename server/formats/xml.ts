/**
 * The XML response, built with fast-xml-parser's XMLBuilder (which escapes text
 * and attributes). JSON Schemas become `<field>` elements: name, type, required, min, max,
 * default, enum as attributes, the description as text, nested fields for objects and arrays
 * of objects.
 */
import { XMLBuilder } from 'fast-xml-parser';
import type { DiscoveryResult } from '../filters';
import type { DiscoveryQuery } from '../query-params';
import type { SnapshotCapability } from '../snapshot';

const builder = new XMLBuilder({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  textNodeName: '#text',
  format: true,
  suppressEmptyNode: true,
  suppressBooleanAttributes: false,
});

/** XML 1.0 cannot carry most control characters, even escaped. */
const INVALID_XML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g;
const clean = (text: string) => text.replace(INVALID_XML, '');

type Json = Record<string, unknown>;
type XmlNode = Record<string, unknown>;

const MAX_DEPTH = 4;

function typeOf(schema: Json): string {
  if (typeof schema.type === 'string') return schema.type;
  if (Array.isArray(schema.type)) return schema.type.join('|');
  const union = (schema.anyOf ?? schema.oneOf) as Json[] | undefined;
  if (Array.isArray(union))
    return [...new Set(union.map((s) => (s && typeof s === 'object' ? typeOf(s) : 'any')))].join('|');
  if (schema.enum) return 'enum';
  if (schema.const !== undefined) return 'const';
  return 'any';
}

const scalar = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));

function field(name: string, schema: Json, required: boolean, depth: number): XmlNode {
  const node: XmlNode = { '@_name': clean(name), '@_type': typeOf(schema) };
  if (required) node['@_required'] = 'true';
  const min = schema.minimum ?? schema.exclusiveMinimum ?? schema.minLength ?? schema.minItems;
  const max = schema.maximum ?? schema.exclusiveMaximum ?? schema.maxLength ?? schema.maxItems;
  if (min !== undefined) node['@_min'] = scalar(min);
  if (max !== undefined) node['@_max'] = scalar(max);
  if (schema.default !== undefined) node['@_default'] = clean(scalar(schema.default));
  if (Array.isArray(schema.enum)) node['@_enum'] = clean(schema.enum.map(scalar).join(','));
  const items = schema.items && typeof schema.items === 'object' ? (schema.items as Json) : undefined;
  if (items) node['@_items'] = typeOf(items);
  if (typeof schema.description === 'string') node['#text'] = clean(schema.description);
  const children = depth < MAX_DEPTH ? fields(items && typeOf(items) === 'object' ? items : schema, depth + 1) : [];
  if (children.length) node.field = children;
  return node;
}

function fields(schema: Json, depth: number): XmlNode[] {
  const properties = schema.properties as Record<string, Json> | undefined;
  if (properties && typeof properties === 'object') {
    const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
    return Object.entries(properties).map(([name, s]) =>
      field(name, s && typeof s === 'object' ? s : {}, required.has(name), depth),
    );
  }
  // Positional arguments (activities): one field per position.
  if (Array.isArray(schema.prefixItems)) {
    return (schema.prefixItems as Json[]).map((s, i) =>
      field(String(i), s && typeof s === 'object' ? s : {}, true, depth),
    );
  }
  return [];
}

function schemaNode(text: string | undefined): XmlNode | undefined {
  if (!text) return undefined;
  try {
    const schema = JSON.parse(text) as Json;
    const list = fields(schema, 0);
    return list.length ? { field: list } : { '@_type': typeOf(schema) };
  } catch {
    return undefined;
  }
}

function examplesNode(text: string | undefined): XmlNode | undefined {
  if (!text) return undefined;
  try {
    const examples = JSON.parse(text) as Array<{ name: string; description?: string; input: unknown }>;
    return {
      example: examples.map((e) => ({
        '@_name': clean(e.name),
        ...(e.description ? { '@_description': clean(e.description) } : {}),
        '#text': clean(JSON.stringify(e.input) ?? ''),
      })),
    };
  } catch {
    return undefined;
  }
}

function capabilityNode(c: SnapshotCapability, q: DiscoveryQuery): XmlNode {
  const node: XmlNode = { '@_id': c.id, '@_target': c.target };
  if (q.includeDescriptions && c.description) node.description = clean(c.description);
  if (c.tags.length) node.tags = { tag: c.tags.map(clean) };
  if (q.includeInputSchema) {
    const input = schemaNode(c.inputSchema);
    if (input) node.input_schema = input;
  }
  if (q.includeOutputSchema) {
    const output = schemaNode(c.outputSchema);
    if (output) node.output_schema = output;
  }
  if (q.includeExamples) {
    const examples = examplesNode(c.examples);
    if (examples) node.examples = examples;
  }
  return node;
}

export function renderXml(result: DiscoveryResult, q: DiscoveryQuery): string {
  const doc = {
    '?xml': { '@_version': '1.0', '@_encoding': 'UTF-8' },
    discovery: {
      '@_discovered_at': result.discoveredAt,
      summary: {
        '@_total_agents': result.totalAgents,
        '@_total_reasoners': result.totalReasoners,
        '@_total_skills': result.totalSkills,
      },
      pagination: { '@_limit': result.limit, '@_offset': result.offset, '@_has_more': result.hasMore },
      capabilities: {
        agent: result.page.map(({ agent, reasoners, skills }) => ({
          '@_id': agent.agent_id,
          '@_base_url': clean(agent.base_url),
          '@_version': clean(agent.version),
          '@_health_status': agent.health_status,
          '@_deployment_type': agent.deployment_type,
          ...(agent.last_heartbeat ? { '@_last_heartbeat': agent.last_heartbeat } : {}),
          reasoners: { reasoner: reasoners.map((r) => capabilityNode(r, q)) },
          skills: { skill: skills.map((s) => capabilityNode(s, q)) },
        })),
      },
    },
  };
  return builder.build(doc) as string;
}
