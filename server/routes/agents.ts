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
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  AGENT_ID_PATTERN,
  agentRegistrationSchema,
  apiErrorSchema,
  heartbeatSchema,
  registrationResultSchema,
} from '../../contracts/capabilities';
import type { ControlPlaneMetrics } from '../metrics';
import { tooDeepAt } from '../http-guard';
import { RegistrationForbidden, type Registry, type RegistrationCaller } from '../registry';
import { matching } from '../query-params';
import { json } from './validation';

export const AGENT_SECRET_HEADER = 'x-agent-secret';

function callerOf(request: FastifyRequest): RegistrationCaller {
  const secret = request.headers[AGENT_SECRET_HEADER] as string | undefined;
  return { authenticated: request.authenticated === true, ...(secret !== undefined ? { secret } : {}) };
}

/** Runs a registry change for the caller: 403 when the registry refuses it. */
async function asCaller<T>(
  request: FastifyRequest,
  reply: FastifyReply,
  run: (caller: RegistrationCaller) => Promise<T>,
): Promise<T | FastifyReply> {
  try {
    return await run(callerOf(request));
  } catch (err) {
    if (err instanceof RegistrationForbidden) return reply.code(403).send({ error: 'forbidden', message: err.message });
    throw err;
  }
}

/** The registering instance's secret: binds the agent to it. Other headers pass through untouched. */
const secretHeader = z.looseObject({
  [AGENT_SECRET_HEADER]: z
    .string({ error: `${AGENT_SECRET_HEADER} must be one value of 16 to 512 characters` })
    .min(16, `${AGENT_SECRET_HEADER} must be one value of 16 to 512 characters`)
    .max(512, `${AGENT_SECRET_HEADER} must be one value of 16 to 512 characters`)
    .optional()
    .describe('Secret of the registering instance: only it (or a token holder) may then move or remove the agent'),
});

const agentIdParams = z.strictObject({
  agent_id: matching(AGENT_ID_PATTERN, 'Invalid agent_id. Use letters, digits, ".", "_" or "-" (at most 128)'),
});

const okBody = z.looseObject({});

export function agentRoutes(
  app: FastifyInstance,
  registry: Registry,
  metrics: ControlPlaneMetrics,
  limits: { maxDepth: number },
): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const notFound = json('Agent not registered: register it (again)', apiErrorSchema);
  /** The answers of a call on one registered agent: done, a bad request, not the caller's agent, or unknown. */
  const oneAgentResponses = (done: string, notTheCallers: string) => ({
    200: json(done, okBody),
    400: json('Invalid request', apiErrorSchema),
    403: json(notTheCallers, apiErrorSchema),
    404: notFound,
  });
  const forbidden = json('Would move or remove an agent the caller does not own', apiErrorSchema);

  api.post(
    '/api/v1/agents',
    {
      schema: {
        operationId: 'registerAgent',
        summary: 'Register (or replace) an agent manifest',
        headers: secretHeader,
        body: agentRegistrationSchema,
        response: {
          200: json('Replaced', registrationResultSchema),
          201: json('Registered', registrationResultSchema),
          400: json('Invalid manifest, or nested too deep (CONTROL_PLANE_MAX_SCHEMA_DEPTH)', apiErrorSchema),
          403: forbidden,
          413: json('Larger than CONTROL_PLANE_MAX_MANIFEST_BYTES', apiErrorSchema),
        },
      },
      config: { invalidBody: { error: 'invalid_manifest', prefix: 'Invalid manifest: ' } },
      // Before validation: a schema nested thousands deep would overflow the stack further on.
      preValidation: async (request, reply) => {
        const deep = tooDeepAt(request.body, limits.maxDepth);
        if (deep === undefined) return;
        metrics.registrations.inc({ operation: 'register', status: 'rejected' });
        const field = deep.length > 120 ? `${deep.slice(0, 120)}…` : deep;
        return reply.code(400).send({
          error: 'manifest_too_deep',
          message: `Manifest nested deeper than ${limits.maxDepth} levels at ${field}`,
          details: { field, max_depth: limits.maxDepth },
        });
      },
      onError: async (_request, _reply, error) => {
        if (error.validation) metrics.registrations.inc({ operation: 'register', status: 'rejected' });
      },
    },
    async (request, reply) =>
      asCaller(request, reply, async (caller) => {
        const result = await registry.register(request.body, caller);
        metrics.registrations.inc({ operation: 'register', status: 'ok' });
        return reply.code(result.created ? 201 : 200).send(result);
      }),
  );

  api.post(
    '/api/v1/agents/:agent_id/heartbeat',
    {
      schema: {
        operationId: 'heartbeat',
        summary: 'Heartbeat of one agent instance',
        params: agentIdParams,
        headers: secretHeader,
        // An empty request has no body: Fastify hands the validator null.
        body: heartbeatSchema.nullish(),
        response: oneAgentResponses('Recorded', 'A health report for an agent the caller does not own'),
      },
    },
    async (request, reply) => {
      const agentId = request.params.agent_id;
      const body = request.body ?? {};
      return asCaller(request, reply, async (caller) => {
        const known = await registry.heartbeat(agentId, body.instance_id, body.health_status, caller);
        metrics.registrations.inc({ operation: 'heartbeat', status: known ? 'ok' : 'unknown_agent' });
        if (!known) {
          const message = `Agent ${agentId} is not registered; register it first`;
          return reply.code(404).send({ error: 'not_found', message });
        }
        return { agent_id: agentId, ok: true };
      });
    },
  );

  api.delete(
    '/api/v1/agents/:agent_id',
    {
      schema: {
        operationId: 'deregisterAgent',
        summary: 'Deregister one instance (instance_id) or the whole agent',
        params: agentIdParams,
        headers: secretHeader,
        querystring: z.strictObject({
          instance_id: z
            .string()
            .min(1, 'Invalid instance_id parameter: give one value of 1 to 200 characters')
            .max(200, 'Invalid instance_id parameter: give one value of 1 to 200 characters')
            .optional(),
        }),
        response: oneAgentResponses('Deregistered', 'Removes an owned agent or instance without its secret or a token'),
      },
    },
    async (request, reply) => {
      const agentId = request.params.agent_id;
      return asCaller(request, reply, async (caller) => {
        const result = await registry.deregister(agentId, request.query.instance_id, caller);
        metrics.registrations.inc({ operation: 'deregister', status: result ? 'ok' : 'unknown_agent' });
        if (!result) return reply.code(404).send({ error: 'not_found', message: `Agent ${agentId} is not registered` });
        return { agent_id: agentId, removed: result.removed, remaining_instances: result.remainingInstances };
      });
    },
  );
}
