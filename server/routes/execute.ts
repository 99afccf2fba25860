/**
 * POST /api/v1/execute/{invocation_target}: discover, then execute. The target names a
 * registered agent and one of its reasoners; the input is validated against that reasoner's
 * zod schema (the flow definition, as the workflow itself does) and the workflow is started on
 * the agent's task queue through the thin client. With `?wait=true&timeout=30s` the call also
 * waits for the result (202 with status "running" if the timeout comes first).
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  AGENT_ID_PATTERN,
  apiErrorSchema,
  CAPABILITY_ID_PATTERN,
  executeRequestSchema,
  executeResponseSchema,
  parseInvocationTarget,
  type ExecuteResponse,
} from '../../contracts/capabilities';
import { safeParseFlowInput, type FlowDefinition } from '../../contracts/common';
import type { ControlPlaneMetrics } from '../metrics';
import { BOOLEAN_VALUES, caseInsensitive, matching } from '../query-params';
import type { Registry } from '../registry';
import { TemporalUnavailable, type TemporalAccess } from '../temporal';
import { issuesOf } from './errors';
import { json } from './validation';
import { loadOnce } from '../load-once';
import { failureReason } from '../../access/failure-reason';

/** 1-600 seconds (`30`, `30s`), 1-600000 ms (`500ms`) or 1-10 minutes (`2m`); also the OpenAPI pattern. */
export const TIMEOUT_PATTERN = /^(?:(?:[1-9]\d{0,4}|[1-5]\d{5}|600000)ms|(?:[1-9]\d?|[1-5]\d{2}|600)s?|(?:[1-9]|10)m)$/;

/** The wait timeout in ms; undefined when malformed or out of range. */
export function parseTimeout(text: string): number | undefined {
  if (!TIMEOUT_PATTERN.test(text)) return undefined;
  const m = /^(\d+)(ms|s|m)?$/.exec(text)!;
  return Number(m[1]) * (m[2] === 'ms' ? 1 : m[2] === 'm' ? 60_000 : 1000);
}

export interface ExecuteOptions {
  temporal?: TemporalAccess;
  /** The flows this control plane can start; default: flows/registry.ts. */
  flows?: FlowDefinition[];
}

export function executeRoutes(
  app: FastifyInstance,
  registry: Registry,
  metrics: ControlPlaneMetrics,
  options: ExecuteOptions,
): void {
  const fail = (reply: FastifyReply, code: number, error: string, message: string, details?: unknown) => {
    metrics.executions.inc({ status: error });
    return reply.code(code).send({ error, message, ...(details !== undefined ? { details } : {}) });
  };
  // Every flow's zod schemas: loaded with the first execution, not when the control plane starts.
  const flowList = loadOnce((): Promise<FlowDefinition[]> =>
    options.flows ? Promise.resolve(options.flows) : import('../../flows/registry').then((m) => m.flows),
  );
  const ID = (pattern: RegExp) => pattern.source.slice(1, -1);

  app.withTypeProvider<ZodTypeProvider>().post(
    '/api/v1/execute/:invocation_target',
    {
      schema: {
        operationId: 'execute',
        summary: 'Start the workflow behind a reasoner target (optionally wait for its result)',
        params: z.strictObject({
          invocation_target: matching(
            new RegExp(`^${ID(AGENT_ID_PATTERN)}:(skill:)?${ID(CAPABILITY_ID_PATTERN)}$`),
            'Invalid invocation_target. Use <agent>:<reasoner> (or <agent>:skill:<skill>) as listed by discovery',
          )
            .transform((text) => parseInvocationTarget(text)!)
            .describe('<agent>:<reasoner> from discovery')
            .meta({ example: 'agent-flows:platformCheck' }),
        }),
        querystring: z.strictObject({
          wait: matching(
            caseInsensitive(BOOLEAN_VALUES),
            `Invalid wait parameter. Must be one of: ${BOOLEAN_VALUES.join(', ')}`,
            BOOLEAN_VALUES,
          )
            .transform((text) => ['true', '1', 'yes'].includes(text.trim().toLowerCase()))
            .optional()
            .describe('Wait for the result (default false)'),
          timeout: matching(
            TIMEOUT_PATTERN,
            'Invalid timeout parameter. Give seconds (30) or a duration (500ms, 30s, 2m), at most 10 minutes',
            ['1ms-10m'],
          )
            .transform((text) => parseTimeout(text)!)
            .optional()
            .describe('How long to wait: seconds or 500ms/30s/2m (default 30s, max 10m)'),
        }),
        body: executeRequestSchema,
        response: {
          200: json('Finished (status completed, failed, cancelled, terminated or timed_out)', executeResponseSchema),
          202: json('Started (or still running when the wait timed out)', executeResponseSchema),
          400: json('Invalid target, parameter, body or input (details name the field)', apiErrorSchema),
          404: json('Unknown agent or reasoner', apiErrorSchema),
          409: json(
            'Not executable (a skill, or a reasoner with no workflow or task queue behind ' +
              'it), or a workflow with that id is already running',
            apiErrorSchema,
          ),
          503: json('Temporal not reachable', apiErrorSchema),
        },
      },
      config: { invalidBody: { error: 'invalid_body', prefix: 'Invalid request body: ' } },
      // A rejected request never reaches the handler: count it here.
      onError: async (_request, _reply, error) => {
        if (!error.validation) return;
        metrics.executions.inc({ status: error.validationContext === 'body' ? 'invalid_body' : 'invalid_parameter' });
      },
    },
    async (request, reply) => {
      const target = request.params.invocation_target;
      const wait = request.query.wait ?? false;
      const timeoutMs = request.query.timeout ?? 30_000;
      const body = request.body;
      if (target.kind === 'skill') {
        return fail(
          reply,
          409,
          'not_executable',
          'Skills (activities) run inside their reasoners (workflows); execute a reasoner target instead',
        );
      }

      const { value: snapshot } = await registry.read();
      const agent = snapshot.byId.get(target.agentId);
      if (!agent) return fail(reply, 404, 'not_found', `No registered agent ${target.agentId}`);
      if (!agent.reasoners.some((r) => r.id === target.id))
        return fail(reply, 404, 'not_found', `Agent ${target.agentId} has no reasoner ${target.id}`);
      const flow = (await flowList()).find((f) => f.type === target.id);
      if (!flow || !agent.task_queue) {
        return fail(
          reply,
          409,
          'not_executable',
          `${target.agentId}:${target.id} is not a workflow this control plane can start${agent.task_queue ? '' : ' (the agent names no Temporal task queue)'}`,
        );
      }
      const input = safeParseFlowInput(flow.input, body.input);
      if (!input.success) {
        const { issues, text } = issuesOf(input.error, '(input)');
        return fail(reply, 400, 'invalid_input', `${flow.type}: invalid input: ${text}`, { issues });
      }
      if (!options.temporal)
        return fail(reply, 503, 'temporal_unavailable', 'This control plane has no Temporal connection configured');

      const namespace = agent.namespace ?? options.temporal.defaultNamespace();
      // The client library comes with the connection, on first use: discovery alone never loads it.
      const { startFlow, webUiLink, isGrpcCancelledError, WorkflowFailedError, WorkflowExecutionAlreadyStartedError } =
        await options.temporal.runner();
      let client;
      let handle;
      try {
        client = await options.temporal.client(namespace);
        handle = await startFlow(client, flow, body.input, {
          taskQueue: agent.task_queue,
          workflowId: body.workflow_id,
        });
      } catch (err) {
        if (err instanceof WorkflowExecutionAlreadyStartedError) {
          // The id Temporal reports: the caller may not have given one (it derives from the input).
          const message = `A workflow with id ${err.workflowId} is already running`;
          return fail(reply, 409, 'already_started', message, { workflow_id: err.workflowId });
        }
        if (err instanceof TemporalUnavailable) return fail(reply, 503, 'temporal_unavailable', err.message);
        request.log.warn({ err: (err as Error).message }, 'could not start workflow');
        return fail(reply, 503, 'temporal_unavailable', `Could not start the workflow: ${(err as Error).message}`);
      }

      const response: ExecuteResponse = {
        invocation_target: `${target.agentId}:${target.id}`,
        agent_id: agent.agent_id,
        reasoner: flow.type,
        namespace,
        task_queue: agent.task_queue,
        workflow_id: handle.workflowId,
        run_id: handle.firstExecutionRunId,
        web_ui: webUiLink(namespace, handle.workflowId, handle.firstExecutionRunId),
        status: 'running',
        agent_health: agent.health_status,
      };
      request.log.info(
        {
          invocation_target: response.invocation_target,
          workflow_id: response.workflow_id,
          run_id: response.run_id,
          wait,
        },
        'workflow started',
      );
      if (!wait) {
        metrics.executions.inc({ status: 'started' });
        return reply.code(202).send(response);
      }

      const timeout = AbortSignal.timeout(timeoutMs);
      try {
        const result = await client.withAbortSignal(timeout, () => handle.result());
        metrics.executions.inc({ status: 'completed' });
        return reply.code(200).send({ ...response, status: 'completed', result });
      } catch (err) {
        if (timeout.aborted || isGrpcCancelledError(err)) {
          metrics.executions.inc({ status: 'running' });
          return reply.code(202).send(response);
        }
        if (err instanceof WorkflowFailedError) {
          const cause = err.cause as (Error & { type?: string }) | undefined;
          const name = cause?.name ?? '';
          const status: ExecuteResponse['status'] =
            name === 'CancelledFailure'
              ? 'cancelled'
              : name === 'TerminatedFailure'
                ? 'terminated'
                : name === 'TimeoutFailure'
                  ? 'timed_out'
                  : 'failed';
          metrics.executions.inc({ status });
          return reply.code(200).send({
            ...response,
            status,
            error: { ...(cause?.type ? { type: cause.type } : {}), message: failureReason(err) },
          });
        }
        request.log.warn({ err: (err as Error).message }, 'lost track of the workflow while waiting');
        return fail(
          reply,
          503,
          'temporal_unavailable',
          `Started ${handle.workflowId} but could not wait for its result: ${(err as Error).message}`,
        );
      }
    },
  );
}
