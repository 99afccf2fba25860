/**
 * The registration API: any number of agents (our workers, or synthetic ones for scale tests).
 *
 *   POST   /api/v1/agents                       register or replace a manifest (201 new, 200 replaced)
 *   POST   /api/v1/agents/{agent_id}/heartbeat  { instance_id?, health_status? }; 404 = register again
 *   DELETE /api/v1/agents/{agent_id}?instance_id=…  deregister one instance (or the whole agent)
 *
 * A registering instance may send `x-agent-secret: <random secret>`: the agent is then bound to
 * it, and only a caller presenting the same secret (or a token) may move or remove it.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AGENT_ID_PATTERN, agentRegistrationSchema, heartbeatSchema } from '../../contracts/capabilities';
import type { ControlPlaneMetrics } from '../metrics';
import { tooDeepAt } from '../http-guard';
import { RegistrationForbidden, type Registry, type RegistrationCaller } from '../registry';
import { issuesOf } from './errors';

export const AGENT_SECRET_HEADER = 'x-agent-secret';

function callerOf(request: FastifyRequest): RegistrationCaller | string {
  const secret = request.headers[AGENT_SECRET_HEADER];
  if (secret === undefined) return { authenticated: request.authenticated === true };
  if (typeof secret !== 'string' || secret.length < 16 || secret.length > 512) {
    return `${AGENT_SECRET_HEADER} must be one value of 16 to 512 characters`;
  }
  return { authenticated: request.authenticated === true, secret };
}

/** Runs a registry change for the caller: 403 when the registry refuses it. */
async function asCaller<T>(
  request: FastifyRequest,
  reply: FastifyReply,
  run: (caller: RegistrationCaller) => Promise<T>,
): Promise<T | FastifyReply> {
  const caller = callerOf(request);
  if (typeof caller === 'string') {
    return reply.code(400).send({ error: 'invalid_header', message: caller, details: { header: AGENT_SECRET_HEADER } });
  }
  try {
    return await run(caller);
  } catch (err) {
    if (err instanceof RegistrationForbidden) return reply.code(403).send({ error: 'forbidden', message: err.message });
    throw err;
  }
}

export function agentRoutes(
  app: FastifyInstance,
  registry: Registry,
  metrics: ControlPlaneMetrics,
  limits: { maxDepth: number },
): void {
  const badAgentId = (agentId: string) => ({
    error: 'invalid_parameter',
    message: 'Invalid agent_id. Use letters, digits, ".", "_" or "-" (at most 128)',
    details: { parameter: 'agent_id', provided: agentId.slice(0, 200) },
  });

  app.post('/api/v1/agents', async (request, reply) => {
    // Before validation: a schema nested thousands deep would overflow the stack further on.
    const deep = tooDeepAt(request.body, limits.maxDepth);
    if (deep !== undefined) {
      metrics.registrations.inc({ operation: 'register', status: 'rejected' });
      const field = deep.length > 120 ? `${deep.slice(0, 120)}…` : deep;
      return reply.code(400).send({
        error: 'manifest_too_deep',
        message: `Manifest nested deeper than ${limits.maxDepth} levels at ${field}`,
        details: { field, max_depth: limits.maxDepth },
      });
    }
    const parsed = agentRegistrationSchema.safeParse(request.body);
    if (!parsed.success) {
      metrics.registrations.inc({ operation: 'register', status: 'rejected' });
      const { issues, text } = issuesOf(parsed.error);
      return reply
        .code(400)
        .send({ error: 'invalid_manifest', message: `Invalid manifest: ${text}`, details: { issues } });
    }
    return asCaller(request, reply, async (caller) => {
      const result = await registry.register(parsed.data, caller);
      metrics.registrations.inc({ operation: 'register', status: 'ok' });
      return reply.code(result.created ? 201 : 200).send(result);
    });
  });

  app.post<{ Params: { agent_id: string } }>('/api/v1/agents/:agent_id/heartbeat', async (request, reply) => {
    const agentId = request.params.agent_id;
    if (!AGENT_ID_PATTERN.test(agentId)) return reply.code(400).send(badAgentId(agentId));
    const parsed = heartbeatSchema.safeParse(request.body === undefined ? {} : request.body);
    if (!parsed.success) {
      const { issues, text } = issuesOf(parsed.error);
      return reply.code(400).send({ error: 'invalid_body', message: text, details: { issues } });
    }
    return asCaller(request, reply, async (caller) => {
      const known = await registry.heartbeat(agentId, parsed.data.instance_id, parsed.data.health_status, caller);
      metrics.registrations.inc({ operation: 'heartbeat', status: known ? 'ok' : 'unknown_agent' });
      if (!known) {
        const message = `Agent ${agentId} is not registered; register it first`;
        return reply.code(404).send({ error: 'not_found', message });
      }
      return { agent_id: agentId, ok: true };
    });
  });

  app.delete<{ Params: { agent_id: string }; Querystring: Record<string, string | string[] | undefined> }>(
    '/api/v1/agents/:agent_id',
    async (request, reply) => {
      const agentId = request.params.agent_id;
      if (!AGENT_ID_PATTERN.test(agentId)) return reply.code(400).send(badAgentId(agentId));
      const query = request.query ?? {};
      for (const name of Object.keys(query)) {
        if (name !== 'instance_id')
          return reply.code(400).send({
            error: 'invalid_parameter',
            message: `Unknown parameter "${name.slice(0, 100)}"`,
            details: { parameter: name.slice(0, 100), allowed: ['instance_id'] },
          });
      }
      const instance = query.instance_id;
      if (Array.isArray(instance) || (instance !== undefined && (instance.length === 0 || instance.length > 200))) {
        return reply.code(400).send({
          error: 'invalid_parameter',
          message: 'Invalid instance_id parameter: give one value of 1 to 200 characters',
          details: { parameter: 'instance_id' },
        });
      }
      return asCaller(request, reply, async (caller) => {
        const result = await registry.deregister(agentId, instance, caller);
        metrics.registrations.inc({ operation: 'deregister', status: result ? 'ok' : 'unknown_agent' });
        if (!result) return reply.code(404).send({ error: 'not_found', message: `Agent ${agentId} is not registered` });
        return { agent_id: agentId, removed: result.removed, remaining_instances: result.remainingInstances };
      });
    },
  );
}
