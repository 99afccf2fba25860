/**
 * What route-schema validation changed: unknown parameters, repeated scalars, oversized values
 * and type-coercion surprises are 400s naming the parameter (with a short excerpt of the input),
 * and the served OpenAPI document lists every route in Fastify's route table with its parameters.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { researchAgent, testControlPlane, type TestControlPlane } from '../control-plane-fixtures';

const API = '/api/v1/discovery/capabilities';
const EXECUTE = '/api/v1/execute/agent-research-001:deep_research';

/** Fastify's route table (printRoutes draws it as a tree of path segments) as method + url pairs. */
function routeTable(app: FastifyInstance): Array<{ method: string; url: string }> {
  const routes: Array<{ method: string; url: string }> = [];
  const stack: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const m = /^((?:[│ ] {3})*)[├└]── (\S+)(?: \(([^)]*)\))?/.exec(line);
    if (!m) continue;
    stack.length = m[1].length / 4;
    stack.push(m[2]);
    for (const method of m[3]?.split(', ') ?? []) routes.push({ method, url: stack.join('') });
  }
  return routes;
}

describe('route-schema validation', () => {
  let cp: TestControlPlane;
  const call = async (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object) => {
    const res = await cp.app.inject({ method, url, ...(payload ? { payload } : {}) });
    return { status: res.statusCode, body: res.body, json: JSON.parse(res.body) };
  };
  beforeAll(async () => {
    cp = await testControlPlane({ logLevel: 'silent' });
    await cp.register(researchAgent);
  });
  afterAll(async () => cp?.close());

  it('refuses unknown and extra parameters on every route that takes a query, naming them', async () => {
    for (const [method, url, allowed] of [
      ['GET', `${API}?limit=5&colour=red`, 'limit'],
      ['POST', `${EXECUTE}?wait=true&colour=red`, 'wait'],
      ['DELETE', '/api/v1/agents/agent-x?instance_id=i&colour=red', 'instance_id'],
    ] as const) {
      const { status, json } = await call(method, url, method === 'POST' ? { input: {} } : undefined);
      expect(status, url).toBe(400);
      expect(json).toMatchObject({ error: 'invalid_parameter', details: { parameter: 'colour', provided: 'red' } });
      expect(json.message).toContain('colour');
      expect(json.details.allowed).toContain(allowed);
    }
  });

  it('refuses a repeated scalar parameter (an array where one value is expected), but joins repeated lists', async () => {
    for (const [method, url, parameter] of [
      ['GET', `${API}?limit=1&limit=2`, 'limit'],
      ['GET', `${API}?include_examples=true&include_examples=false`, 'include_examples'],
      ['POST', `${EXECUTE}?wait=true&wait=false`, 'wait'],
      ['DELETE', '/api/v1/agents/agent-x?instance_id=a&instance_id=b', 'instance_id'],
    ] as const) {
      const { status, json } = await call(method, url, method === 'POST' ? { input: {} } : undefined);
      expect(status, url).toBe(400);
      expect(json.details).toMatchObject({ parameter, allowed: ['a single value'] });
      expect(json.message).toContain('give it once');
    }
    const joined = await call('GET', `${API}?agent_ids=agent-research-001&agent_ids=nobody`);
    expect(joined.status).toBe(200);
    expect(joined.json.total_agents).toBe(1);
  });

  it('echoes at most a short excerpt of oversized values and names', async () => {
    const huge = 'x'.repeat(100_000);
    for (const url of [
      `${API}?reasoner=${huge}`,
      `${API}?limit=${'9'.repeat(10_000)}`,
      `${API}?agent=${huge}`,
      `${API}?tags=${Array.from({ length: 5000 }, (_, i) => `t${i}`).join(',')}`,
      `${API}?${huge}=1`,
      `/api/v1/agents/agent-x?instance_id=${'i'.repeat(201)}`,
    ]) {
      const res = await cp.app.inject({ method: url.startsWith(API) ? 'GET' : 'DELETE', url });
      expect(res.statusCode, url.slice(0, 80)).toBe(400);
      expect(res.body.length, url.slice(0, 80)).toBeLessThan(2_000);
      const json = JSON.parse(res.body);
      expect(json.error).toBe('invalid_parameter');
      expect(json.details.parameter.length).toBeLessThanOrEqual(101);
      if (json.details.provided !== undefined) expect(json.details.provided.length).toBeLessThanOrEqual(201);
    }
  });

  it('does not coerce surprising spellings of numbers and booleans', async () => {
    // (`+5` is not tested: in a query string `+` is a space, so it reads ` 5`, which is fine.)
    for (const query of ['limit=1e3', 'limit=0x10', 'limit=1.0', 'limit=-0', 'offset=Infinity', 'limit=NaN']) {
      const { status, json } = await call('GET', `${API}?${query}`);
      expect(status, query).toBe(400);
      expect(json.details.parameter, query).toBe(query.split('=')[0]);
    }
    for (const query of ['include_examples=on', 'include_examples=null', 'format=JSON5']) {
      expect((await call('GET', `${API}?${query}`)).status, query).toBe(400);
    }
    // Empty means "not given"; spaces, leading zeros and any case are accepted, as documented.
    const empty = await call('GET', `${API}?limit=&offset=&format=&include_examples=`);
    expect(empty.status).toBe(200);
    expect(empty.json.pagination).toMatchObject({ limit: 100, offset: 0 });
    const spelled = await call('GET', `${API}?limit=%20007%20&format=JSON&include_examples=YES`);
    expect(spelled.status).toBe(200);
    expect(spelled.json.pagination.limit).toBe(7);
    for (const query of ['timeout=1e3', 'timeout=0', 'timeout=', 'wait=on']) {
      const { status, json } = await call('POST', `${EXECUTE}?${query}`, { input: {} });
      expect(status, query).toBe(400);
      expect(json.details.parameter, query).toBe(query.split('=')[0]);
    }
  });

  it('validates path parameters, headers and bodies with the documented error bodies', async () => {
    const badId = await call('POST', '/api/v1/agents/bad%20id/heartbeat', {});
    expect(badId.status).toBe(400);
    expect(badId.json).toMatchObject({
      error: 'invalid_parameter',
      details: { parameter: 'agent_id', provided: 'bad id' },
    });
    const shortSecret = await cp.app.inject({
      method: 'POST',
      url: '/api/v1/agents/agent-research-001/heartbeat',
      headers: { 'x-agent-secret': 'short' },
      payload: {},
    });
    expect(shortSecret.statusCode).toBe(400);
    expect(JSON.parse(shortSecret.body)).toMatchObject({
      error: 'invalid_header',
      details: { header: 'x-agent-secret' },
    });
    const noBody = await cp.app.inject({ method: 'POST', url: '/api/v1/agents/agent-research-001/heartbeat' });
    expect(noBody.statusCode).toBe(200);
    const badBody = await call('POST', '/api/v1/agents/agent-research-001/heartbeat', { health_status: 'sick' });
    expect(badBody.status).toBe(400);
    expect(badBody.json).toMatchObject({ error: 'invalid_body', details: { issues: [{ field: 'health_status' }] } });
  });
});

describe('the served OpenAPI document', () => {
  let cp: TestControlPlane;
  beforeAll(async () => {
    cp = await testControlPlane({ logLevel: 'silent' });
  });
  afterAll(async () => cp?.close());

  it("lists every route of Fastify's route table with its path and query parameters", async () => {
    const doc = (await cp.get('/openapi.json')).json as any;
    expect(doc.openapi).toBe('3.1.0');
    // HEAD routes are Fastify's automatic twins of the GET routes.
    const routes = routeTable(cp.app).filter((r) => r.method !== 'HEAD');
    expect(routes.length).toBeGreaterThanOrEqual(8);
    for (const { method, url } of routes) {
      const path = url.replace(/:(\w+)/g, '{$1}');
      const operation = doc.paths[path]?.[method.toLowerCase()];
      // operationId and summary come only from a route's schema: a route without one fails here.
      expect(operation?.operationId, `${method} ${url}`).toBeTruthy();
      expect(operation.summary, `${method} ${url}`).toBeTruthy();
      const documented = (operation.parameters ?? []) as Array<{ name: string; in: string }>;
      const pathParams = [...url.matchAll(/:(\w+)/g)].map((m) => m[1]).sort();
      expect(
        documented
          .filter((p) => p.in === 'path')
          .map((p) => p.name)
          .sort(),
        url,
      ).toEqual(pathParams);
      // Every documented query parameter is accepted; an undocumented one is refused.
      const query = documented.filter((p) => p.in === 'query').map((p) => p.name);
      // Routes that take no query (registration, heartbeat, /metrics...) ignore one, as before.
      if (!query.length) continue;
      const concrete = url.replace(/:(\w+)/g, (_, name) => (name === 'invocation_target' ? 'a:b' : 'agent-x'));
      for (const name of query) {
        const res = await cp.app.inject({
          method: method as 'GET',
          url: `${concrete}?${name}=`,
          payload: { input: {} },
        });
        expect(JSON.parse(res.body).message ?? '', `${url} ${name}`).not.toMatch(/Unknown parameter/);
      }
      const res = await cp.app.inject({
        method: method as 'GET',
        url: `${concrete}?undocumented=1`,
        payload: { input: {} },
      });
      expect(res.statusCode, url).toBe(400);
      expect(JSON.parse(res.body).details.parameter, url).toBe('undocumented');
    }
  });

  it("answers router errors (over-long path segments) with a short body, not the caller's path", async () => {
    for (const [method, url] of [
      ['DELETE', `/api/v1/agents/${'a'.repeat(10_000)}`],
      ['POST', `/api/v1/execute/${'b'.repeat(3_000)}`],
    ] as const) {
      const res = await cp.app.inject({ method, url });
      expect(res.statusCode, method).toBe(414);
      expect(res.body.length).toBeLessThan(200);
      expect(JSON.parse(res.body)).toEqual({ error: 'path_too_long', message: 'A path segment is too long' });
    }
  });

  it('answers a path with a trailing slash as an unknown path, not with a 405 naming the same method', async () => {
    for (const [method, url] of [
      ['GET', '/api/v1/discovery/capabilities/'],
      ['POST', '/api/v1/agents/'],
      ['POST', '/api/v1/agents/x/heartbeat/'],
    ] as const) {
      const res = await cp.app.inject({ method, url, payload: {} });
      expect(res.statusCode, url).toBe(404);
    }
  });

  it('names the body itself "(body)" when the whole body is the wrong type', async () => {
    const res = await cp.app.inject({ method: 'POST', url: EXECUTE, payload: [1, 2] });
    expect(res.statusCode).toBe(400);
    const body = JSON.parse(res.body);
    expect(body.details.issues[0].field).toBe('(body)');
    expect(body.message).not.toMatch(/: :/);
  });
});
