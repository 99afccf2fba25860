/**
 * GET /api/v1/discovery/capabilities: parse → cached snapshot → filter → render (memoised per
 * snapshot) → one structured log line with request_id, filters, counts, duration and cache hit.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  compactDiscoveryResponseSchema,
  DISCOVERY_FORMATS,
  discoveryResponseSchema,
  internalErrorSchema,
  parameterErrorSchema,
} from '../../contracts/capabilities';
import { discover } from '../filters';
import { renderCompact } from '../formats/compact';
import { renderJson } from '../formats/json';
import { renderXml } from '../formats/xml';
import type { ControlPlaneMetrics } from '../metrics';
import { discoveryQuerySchema, queryKey, type DiscoveryQuery } from '../query-params';
import type { Registry } from '../registry';
import type { RenderedBody } from '../cache';
import { json } from './validation';

export const DISCOVERY_PATH = '/api/v1/discovery/capabilities';

/** The format label for metrics, also for requests whose parameters were invalid. */
function formatLabel(raw: unknown): string {
  const value = typeof raw === 'string' ? raw.trim().toLowerCase() : '';
  return (DISCOVERY_FORMATS as readonly string[]).includes(value) ? value : 'json';
}

function logFilters(q: DiscoveryQuery) {
  return {
    ...(q.agentIds.length ? { agent_ids: q.agentIds } : {}),
    ...(q.reasoner !== undefined ? { reasoner: q.reasoner } : {}),
    ...(q.skill !== undefined ? { skill: q.skill } : {}),
    ...(q.tags.length ? { tags: q.tags } : {}),
    ...(q.healthStatus ? { health_status: q.healthStatus } : {}),
    format: q.format,
    limit: q.limit,
    offset: q.offset,
  };
}

export function discoveryRoutes(app: FastifyInstance, registry: Registry, metrics: ControlPlaneMetrics): void {
  app.withTypeProvider<ZodTypeProvider>().get(
    DISCOVERY_PATH,
    {
      schema: {
        operationId: 'discoverCapabilities',
        summary: 'Discover agent capabilities (reasoners and skills)',
        description:
          'All filters combine with AND. Patterns: `*` is the only wildcard, ' +
          'case-sensitive, anchored at both ends. Unknown parameters are rejected.',
        querystring: discoveryQuerySchema,
        response: {
          200: {
            description: 'Matching capabilities (JSON, compact JSON or XML per `format`)',
            content: {
              'application/json': { schema: z.union([discoveryResponseSchema, compactDiscoveryResponseSchema]) },
              'application/xml': { schema: z.string() },
            },
          },
          400: json('An invalid parameter, named in details.parameter', parameterErrorSchema),
          500: json('Agent capabilities could not be read', internalErrorSchema),
        },
      },
      // A rejected query never reaches the handler: count and log it here.
      onError: async (request, _reply, error) => {
        if (!error.validation) return;
        const raw = request.query as unknown as Record<string, unknown> | undefined;
        metrics.requests.inc({ format: formatLabel(raw?.format), status: 'error' });
        const parameter = error.validation[0]?.instancePath.split('/')[1] || 'unknown parameter';
        request.log.warn({ parameter }, 'discovery request rejected');
      },
    },
    async (request, reply) => {
      const started = performance.now();
      const q = request.query;
      metrics.countFilters(q);

      let read;
      try {
        read = await registry.read();
      } catch (err) {
        metrics.requests.inc({ format: q.format, status: 'error' });
        request.log.error(
          { err: (err as Error).message, filters: logFilters(q) },
          'failed to retrieve agent capabilities',
        );
        return reply
          .code(500)
          .send({ error: 'internal_error', message: 'Failed to retrieve agent capabilities', request_id: request.id });
      }
      const snapshot = read.value;
      const key = queryKey(q);
      let rendered = snapshot.responses.get(key);
      const memoHit = rendered !== undefined;
      if (rendered) metrics.responseMemoHits.inc();
      else {
        const result = discover(snapshot, q);
        const body =
          q.format === 'xml'
            ? renderXml(result, q)
            : q.format === 'compact'
              ? renderCompact(result, q)
              : renderJson(result, q);
        rendered = {
          body: Buffer.from(body),
          contentType: q.format === 'xml' ? 'application/xml; charset=utf-8' : 'application/json; charset=utf-8',
          agents: result.totalAgents,
          reasoners: result.totalReasoners,
          skills: result.totalSkills,
        } satisfies RenderedBody;
        snapshot.responses.set(key, rendered);
        if (registry.cache.peek() === snapshot) metrics.cacheSize.set(snapshot.bytes + snapshot.responses.size);
      }

      const seconds = (performance.now() - started) / 1000;
      metrics.requests.inc({ format: q.format, status: 'success' });
      metrics.duration.observe({ format: q.format }, seconds);
      request.log.info(
        {
          filters: logFilters(q),
          results: { agents: rendered.agents, reasoners: rendered.reasoners, skills: rendered.skills },
          duration_ms: +(seconds * 1000).toFixed(3),
          cache_hit: read.hit,
          response_memo_hit: memoHit,
        },
        'discovery request completed',
      );
      return reply.header('content-type', rendered.contentType).send(rendered.body);
    },
  );
}
