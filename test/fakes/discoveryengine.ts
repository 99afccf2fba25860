/**
 * A local fake of the Discovery Engine (Vertex AI Search) REST API v1 for tests, reached through
 * the real `@google-cloud/discoveryengine` SearchServiceClient in REST fallback mode. It serves
 * `POST /v1/{servingConfig}:search` over in-memory data stores, answers in the real JSON wire
 * format (structData as plain JSON, which the client turns into protobuf Struct form), records
 * requests, and can inject HTTP faults and malformed bodies.
 */
import Fastify from 'fastify';
import { STATUS_NAMES } from '../../standin/server';
import { OAuth2Client } from 'google-auth-library';
import { VertexSearch } from '../../backends/search/vertex';
import { invalidArgument, protoProblems, protoRoot } from './api-definitions';

const V1 = 'google.cloud.discoveryengine.v1';
const definitionProblems = (type: string, body: unknown) =>
  protoProblems(protoRoot('@google-cloud/discoveryengine'), `${V1}.${type}`, body);

export interface DiscoveryEngineFake {
  host: string;
  port: number;
  project: string;
  requests: Array<{ path: string; body: unknown }>;
  /** Adds or replaces a data store's documents (id + structData). */
  setDataStore(dataStoreId: string, documents: Array<Record<string, unknown>>): void;
  failNext(count: number, status: number, message?: string): void;
  malformNext(count: number): void;
  /** The next `count` searches get no answer until the client gives up (aborts the request). */
  hangNext(count: number): void;
  /** Paths of searches whose client closed the request before an answer. */
  aborted: string[];
  /** Resolves once a hung search has arrived. */
  hanging(): Promise<void>;
  /** Data stores created through dataStores.create (ids), in order. */
  created: string[];
  /** The documents of a data store, as a search would see them. */
  documentsOf(dataStoreId: string): Array<Record<string, unknown>> | undefined;
  /** A VertexSearch on the real client pointed at this fake (data store id = prefix + collection). */
  search(options?: { dataStorePrefix?: string; servingConfigs?: Record<string, string> }): VertexSearch;
  close(): Promise<void>;
}

const STATUS = STATUS_NAMES;

function words(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 1);
}

function flatten(value: unknown): string {
  if (typeof value === 'string' || typeof value === 'number') return String(value);
  if (Array.isArray(value)) return value.map(flatten).join(' ');
  if (value && typeof value === 'object')
    return Object.entries(value)
      .map(([k, v]) => `${k} ${flatten(v)}`)
      .join(' ');
  return '';
}

/** Resolves when the client closes the connection before the response was written (or after 30 s). */
export function closedByClient(response: import('node:http').ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, 30_000);
    response.on('close', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

const ANY = 'type.googleapis.com/google.cloud.discoveryengine.v1.';

/**
 * The admin side of the API, for `npm run search:load`: dataStores.get / dataStores.create and
 * documents.import, both long-running operations answered through operations.get (done on the
 * first poll, as a fast real operation would be).
 */
function registerAdminRoutes(
  app: import('fastify').FastifyInstance,
  dataStores: Map<string, Array<Record<string, unknown>>>,
  requests: Array<{ path: string; body: unknown }>,
  faults: Array<{ status: number; message: string }>,
  createdStores: string[],
): void {
  const operations = new Map<string, () => Record<string, unknown>>();
  let counter = 0;
  const storePath = /^projects\/[^/]+\/locations\/[^/]+\/collections\/[^/]+\/dataStores\/([^/:]+)$/;
  const startOperation = (resource: string, finish: () => Record<string, unknown>) => {
    const name = `${resource}/operations/op-${++counter}`;
    operations.set(name, finish);
    return { name, done: false };
  };
  const notFound = (reply: import('fastify').FastifyReply, message: string) =>
    reply.code(404).send({ error: { code: 404, message, status: 'NOT_FOUND' } });

  app.get('/v1/*', async (req, reply) => {
    const path = (req.params as { '*': string })['*'];
    requests.push({ path, body: undefined });
    const fault = faults.shift();
    if (fault)
      return reply
        .code(fault.status)
        .send({ error: { code: fault.status, message: fault.message, status: STATUS[fault.status] ?? 'UNKNOWN' } });
    const finish = operations.get(path);
    if (finish) return { name: path, done: true, response: finish() };
    const store = storePath.exec(path);
    if (store && dataStores.has(store[1]))
      return { name: path, displayName: store[1], industryVertical: 'GENERIC', contentConfig: 'NO_CONTENT' };
    return notFound(reply, `${path} not found.`);
  });

  app.addHook('preHandler', async (req, reply) => {
    if (req.method !== 'POST' || !req.url.startsWith('/v1/')) return;
    const path = decodeURIComponent(req.url.slice(4).split('?')[0]);
    const create = /^(projects\/[^/]+\/locations\/[^/]+\/collections\/[^/]+)\/dataStores$/.exec(path);
    if (create) {
      requests.push({ path, body: req.body });
      const invalid = definitionProblems('DataStore', req.body);
      if (invalid.length) return reply.code(400).send(invalidArgument(invalid));
      const id = (req.query as { dataStoreId?: string }).dataStoreId;
      if (!id || !/^[a-z0-9][a-z0-9_-]{0,62}$/.test(id))
        return reply
          .code(400)
          .send({ error: { code: 400, message: 'invalid dataStoreId', status: 'INVALID_ARGUMENT' } });
      if (dataStores.has(id))
        return reply
          .code(409)
          .send({ error: { code: 409, message: `${id} already exists`, status: 'ALREADY_EXISTS' } });
      return reply.send(
        startOperation(`${create[1]}/dataStores/${id}`, () => {
          dataStores.set(id, []);
          createdStores.push(id);
          return { '@type': `${ANY}DataStore`, name: `${create[1]}/dataStores/${id}` };
        }),
      );
    }
    const load =
      /^(projects\/[^/]+\/locations\/[^/]+\/collections\/[^/]+\/dataStores\/([^/]+))\/branches\/[^/]+\/documents:import$/.exec(
        path,
      );
    if (load) {
      requests.push({ path, body: req.body });
      const invalid = definitionProblems('ImportDocumentsRequest', req.body);
      if (invalid.length) return reply.code(400).send(invalidArgument(invalid));
      if (!dataStores.has(load[2])) return notFound(reply, `DataStore ${load[2]} not found.`);
      const body = req.body as {
        inlineSource?: { documents?: Array<{ id?: string; jsonData?: string; structData?: Record<string, unknown> }> };
        reconciliationMode?: string | number;
      };
      // The clients send enums as numbers (enum-encoding=int): FULL is 2, INCREMENTAL 1.
      const full = body.reconciliationMode === 'FULL' || body.reconciliationMode === 2;
      const incoming = (body.inlineSource?.documents ?? []).map((d) => ({
        id: String(d.id),
        ...(d.structData ?? (d.jsonData ? (JSON.parse(d.jsonData) as Record<string, unknown>) : {})),
      }));
      return reply.send(
        startOperation(load[1], () => {
          const current = full ? [] : (dataStores.get(load[2]) ?? []);
          const byId = new Map(current.map((d) => [String(d.id), d]));
          for (const d of incoming) byId.set(d.id, d);
          dataStores.set(load[2], [...byId.values()]);
          return { '@type': `${ANY}ImportDocumentsResponse`, errorSamples: [] };
        }),
      );
    }
  });
}

export async function startDiscoveryEngineFake(
  stores: Record<string, Array<Record<string, unknown>>> = {},
): Promise<DiscoveryEngineFake> {
  const dataStores = new Map(Object.entries(stores));
  const requests: Array<{ path: string; body: unknown }> = [];
  const faults: Array<{ status: number; message: string }> = [];
  let malformed = 0;
  let hang = 0;
  const aborted: string[] = [];
  // This fake's own: a list shared by every fake in the process showed one file's stores in the next.
  const createdStores: string[] = [];
  let arrived: (() => void) | undefined;
  const app = Fastify({ logger: false, forceCloseConnections: true });
  registerAdminRoutes(app, dataStores, requests, faults, createdStores);

  // The whole resource path is one wildcard: .../dataStores/{id}/servingConfigs/{id}:search
  app.post('/v1/*', async (req, reply) => {
    const path = (req.params as { '*': string })['*'];
    requests.push({ path, body: req.body });
    if (hang > 0) {
      hang--;
      arrived?.();
      await closedByClient(reply.raw);
      aborted.push(path);
      return reply;
    }
    const fault = faults.shift();
    if (fault)
      return reply
        .code(fault.status)
        .send({ error: { code: fault.status, message: fault.message, status: STATUS[fault.status] ?? 'UNKNOWN' } });
    if (malformed > 0) {
      malformed--;
      return reply.code(200).header('content-type', 'application/json').send('{"results": [{"id": ');
    }
    const match =
      /^projects\/[^/]+\/locations\/[^/]+\/(?:collections\/[^/]+\/)?dataStores\/([^/]+)\/servingConfigs\/[^/:]+:search$/.exec(
        path,
      );
    if (!match)
      return reply.code(404).send({ error: { code: 404, message: `no such method: ${path}`, status: 'NOT_FOUND' } });
    const invalid = definitionProblems('SearchRequest', req.body);
    if (invalid.length) return reply.code(400).send(invalidArgument(invalid));
    const docs = dataStores.get(match[1]);
    if (!docs)
      return reply
        .code(404)
        .send({ error: { code: 404, message: `DataStore ${match[1]} not found.`, status: 'NOT_FOUND' } });
    const body = req.body as { query?: string; pageSize?: number };
    const terms = new Set(words(body.query ?? ''));
    const scored = docs
      .map((doc) => ({ doc, score: words(flatten(doc)).filter((w) => terms.has(w)).length }))
      .filter((s) => s.score > 0)
      .sort((a, b) => b.score - a.score);
    const page = scored.slice(0, body.pageSize || 10);
    return {
      results: page.map(({ doc }) => {
        const { id, ...structData } = doc;
        return {
          id: String(id),
          document: {
            name: `${path.replace(/\/servingConfigs\/.*$/, '')}/branches/0/documents/${id}`,
            id: String(id),
            structData,
          },
        };
      }),
      totalSize: scored.length,
      attributionToken: 'fake-attribution',
    };
  });

  await app.listen({ host: '127.0.0.1', port: 0 });
  const port = (app.server.address() as { port: number }).port;
  return {
    host: '127.0.0.1',
    port,
    project: 'fake-project',
    requests,
    setDataStore: (id, documents) => void dataStores.set(id, documents),
    failNext(count, status, message = `injected ${status}`) {
      for (let i = 0; i < count; i++) faults.push({ status, message });
    },
    malformNext(count) {
      malformed += count;
    },
    hangNext(count) {
      hang += count;
    },
    aborted,
    hanging: () => new Promise<void>((resolve) => (arrived = resolve)),
    created: createdStores,
    documentsOf: (id) => dataStores.get(id),
    search(options = {}) {
      const authClient = new OAuth2Client();
      authClient.setCredentials({ access_token: 'fake-token', expiry_date: Date.now() + 3_600_000 });
      return new VertexSearch({
        project: 'fake-project',
        location: 'global',
        dataStorePrefix: options.dataStorePrefix ?? 'agent-flows-',
        servingConfigs: options.servingConfigs ?? {},
        apiEndpoint: { host: '127.0.0.1', port, protocol: 'http' },
        authClient,
      });
    },
    close: () => app.close(),
  };
}
