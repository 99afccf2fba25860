/**
 * The control plane's OpenAPI 3.1 document (served at /openapi.json), with component schemas
 * generated from contracts/capabilities.ts, so the document and the validation cannot drift.
 * Schema-based fuzzers (e.g. schemathesis) can be pointed at it.
 */
import { z } from 'zod';
import {
  agentRegistrationSchema,
  apiErrorSchema,
  compactDiscoveryResponseSchema,
  DISCOVERY_FORMATS,
  discoveryResponseSchema,
  executeRequestSchema,
  executeResponseSchema,
  HEALTH_STATUSES,
  heartbeatSchema,
  internalErrorSchema,
  parameterErrorSchema,
  registrationResultSchema,
} from '../contracts/capabilities';
import { DEFAULT_LIMIT, MAX_LIMIT, MAX_OFFSET, MAX_PATTERN_LENGTH, MAX_TAG_PATTERNS } from './query-params';
import { TIMEOUT_PATTERN } from './routes/execute';

// What the handlers accept, stated as patterns, so a schema-based fuzzer's "valid" requests are valid.
const ID = '[A-Za-z0-9][A-Za-z0-9._-]{0,127}';
const CAPABILITY = '[A-Za-z0-9_][A-Za-z0-9._-]{0,127}';
const agentIdPath = { type: 'string', pattern: `^${ID}$` };
/** In the query an empty value means "not given". */
const agentIdParam = { type: 'string', pattern: `^ *(${ID})? *$` };
const idList = { type: 'string', pattern: `^ *(${ID})? *(, *(${ID})? *)*$` };
const printable = `[^\\u0000-\\u001f\\u007f]`;
const pattern = { type: 'string', maxLength: MAX_PATTERN_LENGTH, pattern: `^${printable}*$` };
const tagList = {
  type: 'string',
  pattern: `^[^,\\u0000-\\u001f\\u007f]{0,${MAX_PATTERN_LENGTH}}(,[^,\\u0000-\\u001f\\u007f]{0,${MAX_PATTERN_LENGTH}}){0,${MAX_TAG_PATTERNS - 1}}$`,
};

function component(schema: z.ZodType, io: 'input' | 'output' = 'output'): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  return rest;
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
/** The registering instance's secret: binds the agent to it (server/routes/agents.ts). */
const agentSecret = {
  name: 'x-agent-secret',
  in: 'header',
  required: false,
  description: 'Secret of the registering instance: only it (or a token holder) may then move or remove the agent',
  schema: { type: 'string', minLength: 16, maxLength: 512 },
};
const json = (name: string) => ({ 'application/json': { schema: ref(name) } });
const booleanValues = ['true', 'false', '1', '0', 'yes', 'no'];

/** Any case, surrounding spaces allowed, empty = not given: what the handler accepts. */
function caseInsensitive(words: readonly string[]): Record<string, unknown> {
  const word = (w: string) =>
    [...w].map((c) => (/[a-z]/i.test(c) ? `[${c.toLowerCase()}${c.toUpperCase()}]` : c)).join('');
  return { type: 'string', pattern: `^\\s*(${words.map(word).join('|')})?\\s*$`, examples: [...words] };
}

function query(name: string, description: string, schema: Record<string, unknown>, example?: string) {
  return { name, in: 'query', required: false, description, schema, ...(example !== undefined ? { example } : {}) };
}

export function buildOpenApi(serverUrl?: string): Record<string, unknown> {
  const flag = (name: string, def: boolean, what: string) =>
    query(name, `${what} (default ${def}): ${booleanValues.join(', ')}`, caseInsensitive(booleanValues));
  const integer = (max: string) => ({ type: 'string', pattern: `^\\s*(0*(${max}))?\\s*$` });
  return {
    openapi: '3.1.0',
    info: {
      title: 'agent-flows control plane',
      version: '1.0.0',
      description:
        'Capability discovery over the registered agents (worker groups): their reasoners ' +
        '(workflows) and skills (activities), ' +
        'with filters, three formats and pagination; agent registration; and execution of ' +
        'a discovered reasoner as a Temporal workflow. ' +
        'Filter rules: docs/discovery-api.md.',
    },
    ...(serverUrl ? { servers: [{ url: serverUrl }] } : {}),
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description:
            'Required on /api/* when CONTROL_PLANE_TOKEN is set; the registration routes take ' +
            'CONTROL_PLANE_REGISTRATION_TOKEN too',
        },
      },
      schemas: {
        DiscoveryResponse: component(discoveryResponseSchema),
        CompactDiscoveryResponse: component(compactDiscoveryResponseSchema),
        ParameterError: component(parameterErrorSchema),
        InternalError: component(internalErrorSchema),
        Error: component(apiErrorSchema),
        AgentRegistration: component(agentRegistrationSchema, 'input'),
        RegistrationResult: component(registrationResultSchema),
        Heartbeat: component(heartbeatSchema, 'input'),
        ExecuteRequest: component(executeRequestSchema, 'input'),
        ExecuteResponse: component(executeResponseSchema),
      },
    },
    security: [{}, { bearer: [] }],
    paths: {
      '/api/v1/discovery/capabilities': {
        get: {
          operationId: 'discoverCapabilities',
          summary: 'Discover agent capabilities (reasoners and skills)',
          description:
            'All filters combine with AND. Patterns: `*` is the only wildcard, ' +
            'case-sensitive, anchored at both ends. Unknown parameters are rejected.',
          parameters: [
            query('agent', 'One agent id (wins over node_id)', agentIdParam, 'agent-flows'),
            query('node_id', 'Alias of agent', agentIdParam),
            query('agent_ids', 'Comma-separated agent ids', idList, 'agent-1,agent-2'),
            query('node_ids', 'Alias of agent_ids (adds to it)', idList),
            query('reasoner', 'Reasoner id pattern (filters reasoners only)', pattern, '*research*'),
            query('skill', 'Skill id pattern (filters skills only)', pattern, 'web_*'),
            query(
              'tags',
              'Comma-separated tag patterns; a capability matches if any tag matches any pattern',
              tagList,
              'ml*,*research',
            ),
            flag('include_input_schema', false, 'Include input schemas'),
            flag('include_output_schema', false, 'Include output schemas'),
            flag('include_descriptions', true, 'Include descriptions'),
            flag('include_examples', false, 'Include examples'),
            query('format', 'Response format (default json): json, xml, compact', caseInsensitive(DISCOVERY_FORMATS)),
            query(
              'health_status',
              'Only agents with this health: active, inactive, degraded, unknown',
              caseInsensitive(HEALTH_STATUSES),
            ),
            query(
              'limit',
              `Agents per page, 0-${MAX_LIMIT} (default ${DEFAULT_LIMIT})`,
              integer('500|[1-4]\\d\\d|\\d\\d?'),
            ),
            query('offset', `Agents to skip, 0-${MAX_OFFSET}`, integer('1000000|\\d{1,6}')),
          ],
          responses: {
            200: {
              description: 'Matching capabilities (JSON, compact JSON or XML per `format`)',
              content: {
                'application/json': { schema: { oneOf: [ref('DiscoveryResponse'), ref('CompactDiscoveryResponse')] } },
                'application/xml': { schema: { type: 'string' } },
              },
            },
            400: { description: 'An invalid parameter, named in details.parameter', content: json('ParameterError') },
            401: { description: 'Missing or wrong bearer token', content: json('Error') },
            500: { description: 'Agent capabilities could not be read', content: json('InternalError') },
          },
        },
      },
      '/api/v1/agents': {
        post: {
          operationId: 'registerAgent',
          summary: 'Register (or replace) an agent manifest',
          parameters: [agentSecret],
          requestBody: { required: true, content: json('AgentRegistration') },
          responses: {
            200: { description: 'Replaced', content: json('RegistrationResult') },
            201: { description: 'Registered', content: json('RegistrationResult') },
            400: {
              description: 'Invalid manifest, or nested too deep (CONTROL_PLANE_MAX_SCHEMA_DEPTH)',
              content: json('Error'),
            },
            401: { description: 'Missing or wrong bearer token', content: json('Error') },
            403: {
              description: 'Would move an agent the caller does not own (task queue, namespace)',
              content: json('Error'),
            },
            413: { description: 'Larger than CONTROL_PLANE_MAX_MANIFEST_BYTES', content: json('Error') },
          },
        },
      },
      '/api/v1/agents/{agent_id}/heartbeat': {
        post: {
          operationId: 'heartbeat',
          summary: 'Heartbeat of one agent instance',
          parameters: [{ name: 'agent_id', in: 'path', required: true, schema: agentIdPath }, agentSecret],
          requestBody: { required: false, content: json('Heartbeat') },
          responses: {
            200: { description: 'Recorded', content: { 'application/json': { schema: { type: 'object' } } } },
            400: { description: 'Invalid request', content: json('Error') },
            403: { description: 'A health report for an agent the caller does not own', content: json('Error') },
            404: { description: 'Agent not registered: register again', content: json('Error') },
          },
        },
      },
      '/api/v1/agents/{agent_id}': {
        delete: {
          operationId: 'deregisterAgent',
          summary: 'Deregister one instance (instance_id) or the whole agent',
          parameters: [
            { name: 'agent_id', in: 'path', required: true, schema: agentIdPath },
            {
              name: 'instance_id',
              in: 'query',
              required: false,
              schema: { type: 'string', minLength: 1, maxLength: 200 },
            },
            agentSecret,
          ],
          responses: {
            200: { description: 'Deregistered', content: { 'application/json': { schema: { type: 'object' } } } },
            400: { description: 'Invalid request', content: json('Error') },
            403: {
              description: 'Removes an owned agent or instance without its secret or a token',
              content: json('Error'),
            },
            404: { description: 'Agent not registered', content: json('Error') },
          },
        },
      },
      '/api/v1/execute/{invocation_target}': {
        post: {
          operationId: 'execute',
          summary: 'Start the workflow behind a reasoner target (optionally wait for its result)',
          parameters: [
            {
              name: 'invocation_target',
              in: 'path',
              required: true,
              description: '<agent>:<reasoner> from discovery',
              schema: { type: 'string', pattern: `^${ID}:(skill:)?${CAPABILITY}$` },
              example: 'agent-flows:platformCheck',
            },
            { name: 'wait', in: 'query', required: false, schema: { type: 'string', enum: booleanValues } },
            {
              name: 'timeout',
              in: 'query',
              required: false,
              description: 'How long to wait: seconds or 500ms/30s/2m (default 30s, max 10m)',
              schema: { type: 'string', pattern: TIMEOUT_PATTERN.source },
            },
          ],
          requestBody: { required: true, content: json('ExecuteRequest') },
          responses: {
            200: {
              description: 'Finished (status completed, failed, cancelled, terminated or timed_out)',
              content: json('ExecuteResponse'),
            },
            202: {
              description: 'Started (or still running when the wait timed out)',
              content: json('ExecuteResponse'),
            },
            400: {
              description: 'Invalid target, parameter, body or input (details name the field)',
              content: json('Error'),
            },
            404: { description: 'Unknown agent or reasoner', content: json('Error') },
            409: {
              description:
                'Not executable (a skill, or a reasoner with no workflow or task queue behind ' +
                'it), or a workflow with that id is already running',
              content: json('Error'),
            },
            503: { description: 'Temporal not reachable', content: json('Error') },
          },
        },
      },
      '/metrics': {
        get: {
          operationId: 'metrics',
          summary: 'Prometheus metrics',
          responses: {
            200: { description: 'Text exposition format', content: { 'text/plain': { schema: { type: 'string' } } } },
          },
        },
      },
      '/healthz': {
        get: {
          operationId: 'healthz',
          summary: 'Liveness',
          responses: { 200: { description: 'Up', content: { 'application/json': { schema: { type: 'object' } } } } },
        },
      },
    },
  };
}
