/**
 * Request bodies checked against Google's own API definitions, so a fake refuses (400, as Google
 * does) what the real service would refuse: unknown fields, wrong JSON types, enum values that do
 * not exist. Two kinds of definition, whichever Google publishes in a form available offline:
 *
 * - BigQuery v2: the API's discovery document (test/fixtures/google-api/bigquery.v2.json, see the
 *   README there for its source and revision);
 * - Discovery Engine v1 and Generative Language v1beta: the protocol buffer definitions Google
 *   ships in its client packages (`@google-cloud/discoveryengine`, `@google-ai/generativelanguage`,
 *   build/protos/protos.json), read with protobufjs. The REST API is their JSON mapping:
 *   lowerCamelCase field names, enums by name or number, 64-bit integers as strings.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import protobuf from 'protobufjs';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

// ---------------------------------------------------------------------------------------------
// Discovery documents
// ---------------------------------------------------------------------------------------------

interface DiscoverySchema {
  type?: string;
  format?: string;
  $ref?: string;
  properties?: Record<string, DiscoverySchema>;
  additionalProperties?: DiscoverySchema;
  items?: DiscoverySchema;
  enum?: string[];
}

interface DiscoveryDocument {
  name: string;
  version: string;
  revision: string;
  schemas: Record<string, DiscoverySchema>;
}

const FIXTURES = path.join(__dirname, '..', 'fixtures', 'google-api');

export function loadDiscoveryDocument(file: string): DiscoveryDocument {
  return JSON.parse(readFileSync(path.join(FIXTURES, file), 'utf8')) as DiscoveryDocument;
}

/**
 * What the discovery document's `schemaName` rejects in `body`; empty when it is valid. `tolerated`
 * lists paths (e.g. `Job.configuration.query.types`) known to be sent by Google's own client and
 * accepted by the service although the document does not name them.
 */
export function discoveryProblems(
  doc: DiscoveryDocument,
  schemaName: string,
  body: unknown,
  tolerated: string[] = [],
): string[] {
  const problems: string[] = [];
  const check = (schema: DiscoverySchema, value: unknown, at: string) => {
    if (schema.$ref) {
      const target = doc.schemas[schema.$ref];
      if (!target) return void problems.push(`${at}: unknown schema ${schema.$ref}`);
      return check(target, value, at);
    }
    if (value === null || value === undefined) return;
    switch (schema.type) {
      case 'object': {
        if (!isObject(value)) return void problems.push(`${at}: expected an object`);
        for (const [key, v] of Object.entries(value)) {
          const property = schema.properties?.[key] ?? schema.additionalProperties;
          if (!property) {
            if (!tolerated.includes(`${at}.${key}`)) problems.push(`${at}.${key}: unknown field`);
          } else check(property, v, `${at}.${key}`);
        }
        return;
      }
      case 'array':
        if (!Array.isArray(value)) return void problems.push(`${at}: expected an array`);
        value.forEach((v, i) => check(schema.items ?? {}, v, `${at}[${i}]`));
        return;
      case 'string':
        // int64/uint64 travel as strings; a number is accepted by Google's JSON parser too.
        if (typeof value !== 'string' && !(/int64/.test(schema.format ?? '') && typeof value === 'number'))
          return void problems.push(`${at}: expected a string`);
        if (schema.enum && typeof value === 'string' && !schema.enum.includes(value))
          problems.push(`${at}: "${value}" is not one of ${schema.enum.join(', ')}`);
        return;
      case 'integer':
      case 'number':
        if (typeof value !== 'number' && !(typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value)))
          problems.push(`${at}: expected a number`);
        return;
      case 'boolean':
        if (typeof value !== 'boolean') problems.push(`${at}: expected a boolean`);
        return;
      case 'any':
      default:
        return;
    }
  };
  const root = doc.schemas[schemaName];
  if (!root) return [`unknown schema ${schemaName}`];
  check(root, body, schemaName);
  return problems;
}

// ---------------------------------------------------------------------------------------------
// Protocol buffer definitions (JSON mapping)
// ---------------------------------------------------------------------------------------------

// Shared on purpose: a package's shipped definitions, parsed once per process and only read after.
// eslint-disable-next-line no-restricted-syntax
const roots = new Map<string, protobuf.Root>();

/** The protos a Google client package ships (`<package>/build/protos/protos.json`). */
export function protoRoot(packageName: string): protobuf.Root {
  let root = roots.get(packageName);
  if (!root) {
    const file = require.resolve(`${packageName}/build/protos/protos.json`);
    root = protobuf.Root.fromJSON(JSON.parse(readFileSync(file, 'utf8')) as protobuf.INamespace);
    roots.set(packageName, root);
  }
  return root;
}

/** Well-known types whose JSON form is free-form. */
const FREE_FORM = new Set([
  'google.protobuf.Struct',
  'google.protobuf.Value',
  'google.protobuf.ListValue',
  'google.protobuf.Any',
]);

/** What the message `typeName` rejects in `body` (proto3 JSON mapping); empty when it is valid. */
export function protoProblems(root: protobuf.Root, typeName: string, body: unknown): string[] {
  const problems: string[] = [];
  const scalar = (type: string, value: unknown, at: string) => {
    switch (type) {
      case 'string':
      case 'bytes':
        if (typeof value !== 'string') problems.push(`${at}: expected a string`);
        return;
      case 'bool':
        if (typeof value !== 'boolean') problems.push(`${at}: expected a boolean`);
        return;
      case 'int64':
      case 'uint64':
      case 'sint64':
      case 'fixed64':
      case 'sfixed64':
        if (typeof value !== 'number' && !(typeof value === 'string' && /^-?\d+$/.test(value)))
          problems.push(`${at}: expected an integer`);
        return;
      default:
        if (typeof value !== 'number' && !(typeof value === 'string' && /^-?(\d+(\.\d+)?|Infinity|NaN)$/.test(value)))
          problems.push(`${at}: expected a number`);
    }
  };
  const value = (resolved: protobuf.Type | protobuf.Enum | null, type: string, v: unknown, at: string) => {
    if (v === null) return;
    if (resolved instanceof protobuf.Enum) {
      if (typeof v === 'string' ? !(v in resolved.values) : typeof v !== 'number')
        problems.push(`${at}: ${JSON.stringify(v)} is not a ${resolved.name} value`);
    } else if (resolved instanceof protobuf.Type) message(resolved, v, at);
    else scalar(type, v, at);
  };
  const message = (type: protobuf.Type, v: unknown, at: string) => {
    if (FREE_FORM.has(type.fullName.replace(/^\./, ''))) return;
    if (type.fullName === '.google.protobuf.Duration' || type.fullName === '.google.protobuf.Timestamp') {
      if (typeof v !== 'string') problems.push(`${at}: expected a string`);
      return;
    }
    if (!isObject(v)) return void problems.push(`${at}: expected an object`);
    const byJsonName = new Map<string, protobuf.Field>();
    for (const field of type.fieldsArray) {
      byJsonName.set(field.name, field);
      byJsonName.set(protobuf.util.camelCase(field.name), field);
    }
    for (const [key, fieldValue] of Object.entries(v)) {
      const field = byJsonName.get(key);
      if (!field) {
        problems.push(`${at}.${key}: unknown field of ${type.name}`);
        continue;
      }
      field.resolve();
      const resolved = field.resolvedType as protobuf.Type | protobuf.Enum | null;
      if (field instanceof protobuf.MapField || field.map) {
        if (!isObject(fieldValue)) problems.push(`${at}.${key}: expected a map`);
        else for (const [k, item] of Object.entries(fieldValue)) value(resolved, field.type, item, `${at}.${key}.${k}`);
      } else if (field.repeated) {
        if (!Array.isArray(fieldValue)) problems.push(`${at}.${key}: expected an array`);
        else fieldValue.forEach((item, i) => value(resolved, field.type, item, `${at}.${key}[${i}]`));
      } else value(resolved, field.type, fieldValue, `${at}.${key}`);
    }
  };
  message(root.lookupType(typeName), body, typeName.split('.').pop()!);
  return problems;
}

/** Google's error body for a request its definition rejects. */
export function invalidArgument(problems: string[]): { error: { code: number; message: string; status: string } } {
  return {
    error: {
      code: 400,
      message: `Invalid JSON payload received. ${problems.slice(0, 5).join('; ')}`,
      status: 'INVALID_ARGUMENT',
    },
  };
}
