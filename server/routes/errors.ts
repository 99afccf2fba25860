/** Error bodies shared by the routes: `{error, message, details?, request_id?}`, never a stack trace. */
import type { FastifyError, FastifyInstance } from 'fastify';
import type { z } from 'zod';

export function issuesOf(error: z.ZodError): Array<{ field: string; message: string }> {
  return error.issues.map((i) => ({ field: i.path.length ? i.path.join('.') : '(body)', message: i.message }));
}

const CODES: Record<number, string> = { 400: 'invalid_request', 401: 'unauthorized', 404: 'not_found', 405: 'method_not_allowed', 413: 'payload_too_large', 415: 'unsupported_media_type', 503: 'unavailable' };

export function installErrorHandlers(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const status = error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
    if (status >= 500) {
      request.log.error({ err: error.message, stack: error.stack }, 'request failed');
      return reply.code(500).send({ error: 'internal_error', message: 'Internal error', request_id: request.id });
    }
    return reply.code(status).send({ error: CODES[status] ?? 'invalid_request', message: error.message, request_id: request.id });
  });
  app.setNotFoundHandler((request, reply) => {
    reply.code(404).send({ error: 'not_found', message: `No route ${request.method} ${request.url.split('?')[0].slice(0, 200)}` });
  });
}
