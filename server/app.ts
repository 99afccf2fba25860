/**
 * Builds the control-plane HTTP service (Fastify): discovery, registration, execution,
 * /openapi.json, /metrics, /healthz; JSON logs; optional bearer token on /api/*.
 * `server/main.ts` runs it alone; `workers/stack.ts` runs it inside `npm start`.
 */
import Fastify, { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { randomBytes } from 'node:crypto';
import type { FlowDefinition } from '../contracts/common';
import { bearerCheck, hostGuard } from './http-guard';
import { ControlPlaneMetrics } from './metrics';
import { registerOpenApi } from './openapi';
import { Registry } from './registry';
import { JournalRegistryStore, type RegistryStore } from './registry-store';
import { agentRoutes } from './routes/agents';
import { discoveryRoutes } from './routes/discovery';
import { installErrorHandlers } from './routes/errors';
import { executeRoutes } from './routes/execute';
import type { TemporalAccess } from './temporal';
import { consolePlugin } from './console/plugin';
import type { ArtifactStore } from '../backends/artifacts';
import type { ConsoleSessionOptions } from './console/sessions';
import { logDestination, loggerOptions } from '../plumbing/logger';

export interface ControlPlaneOptions {
  /** The registration journal (created if missing); unused with `sharedRegistry`. */
  storePath: string;
  /**
   * Share registrations with other instances through the `agentRegistry` workflow on Temporal
   * (needs `temporal`, and a worker polling `taskQueue`) instead of the local journal.
   */
  sharedRegistry?: {
    workflowId: string;
    shards: number;
    taskQueue: string;
    pollMs: number;
    /** The secret every instance shares; the registry's changes are signed with a key derived from it. */
    key: string;
  };
  temporal?: TemporalAccess;
  /** When set, every /api/* request needs `Authorization: Bearer <token>`. */
  token?: string;
  /**
   * Required on the registration routes (register, heartbeat, deregister) when set; `token` is
   * accepted there too. A caller presenting either counts as authenticated and may move an
   * existing agent to another task queue or namespace.
   */
  registrationToken?: string;
  /** Host names accepted besides the local ones and the listen address (DNS-rebinding protection). */
  allowedHosts?: string[];
  /** Largest registration body accepted (413 above it). */
  maxManifestBytes?: number;
  /** Deepest nesting of objects and arrays accepted in a registration (400 above it). */
  maxManifestDepth?: number;
  cacheTtlMs?: number;
  heartbeatTimeoutMs?: number;
  /** How often task-queue pollers are checked; 0 disables the background check. */
  healthCheckMs?: number;
  memoBytes?: number;
  logLevel?: 'debug' | 'info' | 'warn' | 'error' | 'silent';
  /** Where JSON log lines go (default stdout). */
  logStream?: { write(line: string): void };
  flows?: FlowDefinition[];
  processMetrics?: boolean;
  /** Serve the web console at /console/ (needs `temporal`); it reads artifacts through `artifacts`, else from ARTIFACT_DIR. */
  console?: { artifactDir: string; artifacts?: ArtifactStore; taskQueue?: string; sessions?: ConsoleSessionOptions };
  now?: () => number;
}

export interface ControlPlane {
  app: FastifyInstance;
  registry: Registry;
  metrics: ControlPlaneMetrics;
  store: RegistryStore;
  /** Starts listening; returns the base URL. */
  listen(host: string, port: number): Promise<string>;
  close(): Promise<void>;
}

/** The routes an agent (worker) calls; every other /api route is the caller-facing API. */
const REGISTRATION_ROUTES = new Set([
  'POST /api/v1/agents',
  'POST /api/v1/agents/:agent_id/heartbeat',
  'DELETE /api/v1/agents/:agent_id',
]);

declare module 'fastify' {
  interface FastifyRequest {
    /** True when the request carried a valid API or registration token. */
    authenticated?: boolean;
  }
}

export async function buildControlPlane(options: ControlPlaneOptions): Promise<ControlPlane> {
  const app = Fastify({
    // The processes' shared logger configuration (plumbing/logger.ts): same fields, redaction, stdout.
    logger: {
      ...loggerOptions({ component: 'control-plane', level: options.logLevel ?? 'info' }),
      stream: options.logStream ?? logDestination(),
    },
    genReqId: () => `req_${randomBytes(6).toString('hex')}`,
    // One line per request, written by our hooks (discovery writes its own, richer one).
    logController: new LogController({ requestIdLogLabel: 'request_id', disableRequestLogging: true }),
    bodyLimit: 8 * 1024 * 1024,
    forceCloseConnections: true,
    // Errors the router raises before any hook (a malformed URL, a path parameter over the length
    // limit): a short body in the API's shape, never the caller's path.
    frameworkErrors: (error, _request, reply) =>
      (reply as FastifyReply).code(error.statusCode ?? 400).send({
        error: error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 'path_too_long' : 'invalid_request',
        message: error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 'A path segment is too long' : 'Malformed request URL',
      }),
  });
  const metrics = new ControlPlaneMetrics({ processMetrics: options.processMetrics });
  let store: RegistryStore;
  if (options.sharedRegistry) {
    if (!options.temporal) throw new Error('a shared registry needs Temporal access');
    const client = await options.temporal.client();
    // Loaded only here: it brings the workflow library (the registry's Update and Query definitions).
    const { SharedRegistryStore } = await import('./shared-registry-store');
    store = await SharedRegistryStore.open({
      client,
      ...options.sharedRegistry,
      onPollError: (err) => app.log.warn({ err: String(err).slice(0, 200) }, 'shared registry poll failed'),
      onDistrust: ({ workflowId, runId }) =>
        app.log.warn(
          { workflow_id: workflowId, run_id: runId },
          'shared registry shard answered under another signing key (started by someone else, or before ' +
            'changes were signed): its answer is not used and the run is replaced',
        ),
    });
  } else {
    store = await JournalRegistryStore.open(options.storePath);
  }
  const registry = new Registry({
    store,
    metrics,
    log: app.log,
    temporal: options.temporal,
    cacheTtlMs: options.cacheTtlMs,
    heartbeatTimeoutMs: options.heartbeatTimeoutMs,
    memoBytes: options.memoBytes,
    now: options.now,
  });

  installErrorHandlers(app);
  await registerOpenApi(app);
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  // Before any route: a browser page on another name (DNS rebinding) or origin is turned away.
  const hosts = hostGuard(options.allowedHosts);
  app.addHook('onRequest', async (request, reply) => {
    if (!hosts.requestAllowed(request.headers.host, request.raw.url)) {
      const host = String(request.headers.host ?? '(none)').slice(0, 100);
      const message = `Host ${host} is not allowed; add it to CONTROL_PLANE_ALLOWED_HOSTS`;
      return reply.code(403).send({ error: 'forbidden_host', message });
    }
    if (!hosts.originAllowed(request.headers.origin)) {
      const message = `Origin ${String(request.headers.origin).slice(0, 100)} is not allowed`;
      return reply.code(403).send({ error: 'forbidden_origin', message });
    }
  });

  // Authentication is attached to the routes themselves, so it applies to whatever request
  // target reached them (absolute-form, percent-encoded, trailing slash...), and every /api
  // route added later is protected unless it says otherwise.
  const apiToken = bearerCheck([options.token]);
  const registrationToken = options.registrationToken ?? options.token;
  const registrationCheck = bearerCheck([registrationToken, options.token]);
  const maxManifestBytes = options.maxManifestBytes ?? 1024 * 1024;
  app.decorateRequest('authenticated', false);
  app.addHook('onRoute', (route) => {
    if (!route.url.startsWith('/api/')) return;
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const registration = methods.some((m) => REGISTRATION_ROUTES.has(`${m} ${route.url}`));
    if (methods.includes('POST') && route.url === '/api/v1/agents') route.bodyLimit = maxManifestBytes;
    const required = (registration ? registrationToken : options.token) !== undefined;
    const check = registration ? registrationCheck : apiToken;
    const authenticate = async (request: FastifyRequest, reply: FastifyReply) => {
      request.authenticated = required && check(request.headers.authorization);
      if (required && !request.authenticated) {
        return reply
          .code(401)
          .header('www-authenticate', 'Bearer')
          .send({ error: 'unauthorized', message: 'Missing or invalid bearer token' });
      }
    };
    route.onRequest = [...(route.onRequest ? [route.onRequest].flat() : []), authenticate];
  });
  app.addHook('onResponse', async (request, reply) => {
    if (request.routeOptions.url === '/api/v1/discovery/capabilities' && reply.statusCode < 500) return;
    request.log.info(
      {
        method: request.method,
        path: request.url.split('?')[0].slice(0, 200),
        status: reply.statusCode,
        duration_ms: +reply.elapsedTime.toFixed(3),
      },
      'request completed',
    );
  });

  discoveryRoutes(app, registry, metrics);
  agentRoutes(app, registry, metrics, { maxDepth: options.maxManifestDepth ?? 64 });
  executeRoutes(app, registry, metrics, { temporal: options.temporal, flows: options.flows });

  app.get('/metrics', { schema: { operationId: 'metrics', summary: 'Prometheus metrics' } }, async (_request, reply) =>
    reply.header('content-type', metrics.registry.contentType).send(await metrics.registry.metrics()),
  );
  app.get('/healthz', { schema: { operationId: 'healthz', summary: 'Liveness' } }, async () => ({ status: 'ok' }));
  if (options.console && options.temporal) {
    await app.register(consolePlugin, {
      ...options.console,
      sessions: { now: options.now, ...options.console.sessions },
      temporal: options.temporal,
      token: options.token,
    });
  }

  if (options.healthCheckMs) registry.startMonitor(options.healthCheckMs);

  let closed = false;
  return {
    app,
    registry,
    metrics,
    store,
    async listen(host, port) {
      hosts.addListenHost(host);
      await app.listen({ host, port });
      const address = app.server.address();
      const actualPort = typeof address === 'object' && address ? address.port : port;
      return `http://${host.includes(':') ? `[${host}]` : host}:${actualPort}`;
    },
    async close() {
      if (closed) return;
      closed = true;
      registry.stopMonitor();
      await app.close();
      await store.close();
      await options.temporal?.close();
    },
  };
}
