/** Error bodies shared by the routes: `{error, message, details?, request_id?}`, never a stack trace. */
import type { FastifyError, FastifyInstance } from 'fastify';
import type { z } from 'zod';
import { formatIssues, zodIssues, type FieldIssue } from '../../contracts/common';
import { validationErrorBody } from './validation';

/** The issues of a rejected body or input, capped like every validation error (keys and values are the caller's). */
export function issuesOf(error: z.ZodError, root = '(body)'): { issues: FieldIssue[]; text: string } {
  const issues = zodIssues(error, root);
  return { issues, text: formatIssues(issues, error.issues.length) };
}

/** The service's paths and their methods, to answer other methods with 405 and an Allow header. */
const ROUTES: Array<[RegExp, string[]]> = [
  [/^\/api\/v1\/discovery\/capabilities$/, ['GET', 'HEAD']],
  [/^\/api\/v1\/agents$/, ['POST']],
  [/^\/api\/v1\/agents\/[^/]+\/heartbeat$/, ['POST']],
  [/^\/api\/v1\/agents\/[^/]+$/, ['DELETE']],
  [/^\/api\/v1\/execute\/[^/]+$/, ['POST']],
  [/^\/(openapi\.json|metrics|healthz)$/, ['GET', 'HEAD']],
];

const CODES: Record<number, string> = {
  400: 'invalid_request',
  401: 'unauthorized',
  404: 'not_found',
  405: 'method_not_allowed',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  503: 'unavailable',
};

export function installErrorHandlers(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const invalid = validationErrorBody(error, request);
    if (invalid) return reply.code(400).send(invalid);
    const status = error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
    if (status >= 500) {
      request.log.error({ err: error.message, stack: error.stack }, 'request failed');
      return reply.code(500).send({ error: 'internal_error', message: 'Internal error', request_id: request.id });
    }
    // Fastify's own 413 does not say what the limit is.
    const limit = request.routeOptions.bodyLimit ?? 'configured';
    const message = status === 413 ? `Request body over the ${limit} bytes this route accepts` : error.message;
    return reply.code(status).send({ error: CODES[status] ?? 'invalid_request', message, request_id: request.id });
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0];
    const allowed = ROUTES.find(([pattern]) => pattern.test(path))?.[1];
    if (allowed) {
      return reply
        .code(405)
        .header('allow', allowed.join(', '))
        .send({
          error: 'method_not_allowed',
          message: `${request.method.slice(0, 20)} is not allowed on ${path.slice(0, 200)}; use ${allowed.join(' or ')}`,
        });
    }
    return reply
      .code(404)
      .send({ error: 'not_found', message: `No route ${request.method.slice(0, 20)} ${path.slice(0, 200)}` });
  });
}
