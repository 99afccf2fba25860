/**
 * Builds the control-plane HTTP service (Fastify): discovery, registration, execution,
 * /openapi.json, /metrics, /healthz; JSON logs; optional bearer token on /api/*.
 * `server/main.ts` runs it alone; `workers/stack.ts` runs it inside `npm start`.
 */
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { FlowDefinition } from '../contracts/common';
import { ControlPlaneMetrics } from './metrics';
import { buildOpenApi } from './openapi';
import { Registry } from './registry';
import { JournalRegistryStore } from './registry-store';
import { agentRoutes } from './routes/agents';
import { discoveryRoutes } from './routes/discovery';
import { installErrorHandlers } from './routes/errors';
import { executeRoutes } from './routes/execute';
import type { TemporalAccess } from './temporal';
import { consolePlugin } from './console/plugin';

export interface ControlPlaneOptions {
  /** The registration journal (created if missing). */
  storePath: string;
  temporal?: TemporalAccess;
  /** When set, every /api/* request needs `Authorization: Bearer <token>`. */
  token?: string;
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
  /** Serve the web console at /console/ (needs `temporal`); ARTIFACT_DIR is where its files are. */
  console?: { artifactDir: string; taskQueue?: string };
  now?: () => number;
}

export interface ControlPlane {
  app: FastifyInstance;
  registry: Registry;
  metrics: ControlPlaneMetrics;
  store: JournalRegistryStore;
  /** Starts listening; returns the base URL. */
  listen(host: string, port: number): Promise<string>;
  close(): Promise<void>;
}

function tokenCheck(token: string): (header: string | undefined) => boolean {
  const expected = createHash('sha256').update(token).digest();
  return (header) => {
    const match = /^Bearer\s+(.+)$/i.exec(header ?? '');
    if (!match) return false;
    return timingSafeEqual(createHash('sha256').update(match[1].trim()).digest(), expected);
  };
}

export async function buildControlPlane(options: ControlPlaneOptions): Promise<ControlPlane> {
  const app = Fastify({
    logger: {
      level: options.logLevel ?? 'info',
      messageKey: 'message',
      base: undefined,
      timestamp: () => `,"timestamp":"${new Date().toISOString()}"`,
      formatters: { level: (label: string) => ({ level: label }) },
      ...(options.logStream ? { stream: options.logStream } : {}),
    },
    genReqId: () => `req_${randomBytes(6).toString('hex')}`,
    // One line per request, written by our hooks (discovery writes its own, richer one).
    logController: new LogController({ requestIdLogLabel: 'request_id', disableRequestLogging: true }),
    bodyLimit: 8 * 1024 * 1024,
    forceCloseConnections: true,
  });
  const metrics = new ControlPlaneMetrics({ processMetrics: options.processMetrics });
  const store = await JournalRegistryStore.open(options.storePath);
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
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  if (options.token) {
    const valid = tokenCheck(options.token);
    app.addHook('onRequest', async (request, reply) => {
      if (!request.url.startsWith('/api/')) return;
      if (!valid(request.headers.authorization)) {
        return reply.code(401).header('www-authenticate', 'Bearer').send({ error: 'unauthorized', message: 'Missing or invalid bearer token' });
      }
    });
  }
  app.addHook('onResponse', async (request, reply) => {
    if (request.routeOptions.url === '/api/v1/discovery/capabilities' && reply.statusCode < 500) return;
    request.log.info({ method: request.method, path: request.url.split('?')[0].slice(0, 200), status: reply.statusCode, duration_ms: +reply.elapsedTime.toFixed(3) }, 'request completed');
  });

  discoveryRoutes(app, registry, metrics);
  agentRoutes(app, registry, metrics);
  executeRoutes(app, registry, metrics, { temporal: options.temporal, flows: options.flows });

  let openapi: string | undefined;
  app.get('/openapi.json', async (request, reply) => {
    openapi ??= JSON.stringify(buildOpenApi(`${request.protocol}://${request.host}`));
    return reply.header('content-type', 'application/json; charset=utf-8').send(openapi);
  });
  app.get('/metrics', async (_request, reply) => reply.header('content-type', metrics.registry.contentType).send(await metrics.registry.metrics()));
  app.get('/healthz', async () => ({ status: 'ok' }));
  if (options.console && options.temporal) {
    await app.register(consolePlugin, { ...options.console, temporal: options.temporal, token: options.token });
  }

  if (options.healthCheckMs) registry.startMonitor(options.healthCheckMs);

  let closed = false;
  return {
    app,
    registry,
    metrics,
    store,
    async listen(host, port) {
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
