/**
 * Route schemas are zod objects: fastify-type-provider-zod validates requests with them and
 * @fastify/swagger turns them into the OpenAPI document (server/openapi.ts). This module turns a
 * failed validation into the API's documented 400 bodies:
 *
 *   query or path   {error:'invalid_parameter', message, details:{parameter, provided?, allowed?}}
 *   header          {error:'invalid_header', message, details:{header}}
 *   body            {error:<route's config.invalidBody.error or 'invalid_body'>, message, details:{issues}}
 *
 * Only a short excerpt of what the caller sent is echoed back.
 */
import type { FastifyError, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { issuesOf } from './errors';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** How a route names a rejected body (default `invalid_body`, message without prefix). */
    invalidBody?: { error: string; prefix?: string };
  }
}

/** Shortens what we echo back in `details.provided`, so a huge value does not bloat the error. */
export function echo(value: string, max = 200): string {
  return value.length > max ? `${value.slice(0, max)}…` : value;
}

type Validation = { keyword: string; instancePath: string; message?: string; params: Record<string, unknown> };

/** The parameter names a querystring or params schema accepts (through transforms and pipes). */
function knownKeys(schema: unknown): string[] {
  let s = schema as z.ZodType | undefined;
  while (s) {
    if (s instanceof z.ZodObject) return Object.keys(s.shape);
    if (s instanceof z.ZodPipe) s = s.in as z.ZodType;
    else return [];
  }
  return [];
}

function parameterError(request: FastifyRequest, source: 'querystring' | 'params', issues: Validation[]) {
  const raw = ((source === 'querystring' ? request.query : request.params) ?? {}) as Record<string, unknown>;
  const provided = (value: unknown) =>
    value === undefined ? {} : { provided: echo(Array.isArray(value) ? value.join(',') : String(value)) };
  // An unknown parameter is reported first: the caller probably misspelt a known one.
  const unknown = issues.find((i) => i.keyword === 'unrecognized_keys');
  if (unknown) {
    const name = String((unknown.params.keys as string[])[0]);
    return {
      error: 'invalid_parameter',
      message: `Unknown parameter "${echo(name, 100)}"`,
      details: {
        parameter: echo(name, 100),
        ...provided(raw[name]),
        allowed: knownKeys(request.routeOptions.schema?.[source]),
      },
    };
  }
  const issue = issues[0];
  const name = issue.instancePath.split('/')[1] ?? '';
  const value = raw[name];
  // The query parser turns a repeated parameter into an array; only list parameters accept one.
  if (Array.isArray(value) && issue.keyword === 'invalid_type') {
    return {
      error: 'invalid_parameter',
      message: `Parameter ${name} was given ${value.length} times; give it once`,
      details: { parameter: name, ...provided(value), allowed: ['a single value'] },
    };
  }
  const custom = issue.params.params as { allowed?: string[] } | undefined;
  const text = issue.message ?? 'invalid';
  const message = text.includes(name) ? text : `Invalid ${name} parameter: ${text}`;
  return {
    error: 'invalid_parameter',
    message: echo(message, 500),
    details: { parameter: name, ...provided(value), ...(custom?.allowed ? { allowed: custom.allowed } : {}) },
  };
}

/** The 400 body for a request Fastify's schema validation refused; undefined for any other error. */
export function validationErrorBody(error: FastifyError, request: FastifyRequest): object | undefined {
  if (!hasZodFastifySchemaValidationErrors(error)) return undefined;
  const issues = error.validation as unknown as Validation[];
  const source = error.validationContext;
  if (source === 'querystring' || source === 'params') return parameterError(request, source, issues);
  if (source === 'headers') {
    const header = issues[0].instancePath.split('/')[1] ?? '';
    return { error: 'invalid_header', message: echo(issues[0].message ?? 'invalid', 500), details: { header } };
  }
  // A body: the same capped "field: message" issues as the thin client and the workflows report.
  const zodError = new z.ZodError(
    issues.map((i) => ({
      ...i.params,
      code: 'custom' as const,
      path: i.instancePath.split('/').slice(1).filter(Boolean),
      message: i.message ?? 'invalid',
    })),
  );
  const { issues: fields, text } = issuesOf(zodError);
  const naming = request.routeOptions.config.invalidBody ?? { error: 'invalid_body' };
  return { error: naming.error, message: `${naming.prefix ?? ''}${text}`, details: { issues: fields } };
}

/** A documented response: what it means and the zod schema of its JSON body. */
export function json(description: string, schema: z.ZodType) {
  return { description, content: { 'application/json': { schema } } };
}
