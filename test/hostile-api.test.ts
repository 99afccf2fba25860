/**
 * The control plane's write and execute endpoints under hostile input (they face the network). The
 * discovery query strings are fuzzed in test/control-plane-fuzz.test.ts; this covers the rest: the
 * registration body, heartbeats, deregistration, and execution (target, query, body, and each
 * flow's input). No request is answered with a 5xx other than the documented 503 "no Temporal" for
 * a valid execution; every 400 names what is wrong; execution input errors name the same fields as
 * the thin client; the registry stays consistent and survives a restart.
 *
 * No Temporal here: a control plane without a Temporal connection rejects everything it can
 * before touching Temporal, which is exactly the part under test.
 */
import fc from 'fast-check';
import { readFileSync, statSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateFlowInput, type InvalidFlowInput } from '../access/flow-client';
import { bomQuestionFlow } from '../flows/bom/contract';
import { flows } from '../flows/registry';
import { startAgentRegistration } from '../workers/agent-registration';
import { buildLocalManifest } from '../server/manifest';
import { researchAgent, testControlPlane, type TestControlPlane } from './control-plane-fixtures';
import { HOSTILE_STRINGS, hostileValue, mutationOf, rawHttp, SEED, shapeOf, withField } from './hostile-helpers';

/** Whether a value carries a `__proto__` own key at any depth (what Fastify's secure JSON parser refuses). */
function hasProtoKey(value: unknown): boolean {
  if (!value || typeof value !== 'object') return false;
  return Object.keys(value).some((k) => k === '__proto__' || hasProtoKey((value as Record<string, unknown>)[k]));
}

const OURS = buildLocalManifest({
  agentId: 'agent-flows',
  taskQueue: 'agent-flows',
  namespace: 'default',
  address: '127.0.0.1:7233',
  activityNames: ['resolveBomColumns'],
});

describe('control plane: registration, heartbeat, deregistration and execution under hostile input', () => {
  let cp: TestControlPlane;
  const statuses = new Map<number, number>();

  beforeAll(async () => {
    cp = await testControlPlane({ logLevel: 'silent' });
    expect((await cp.register(OURS)).status).toBe(201);
    expect((await cp.register(researchAgent)).status).toBe(201);
  });
  afterAll(async () => cp?.close());

  /** Sends a request and checks the common rules: no 5xx (503 only where documented), JSON error bodies. */
  async function send(method: 'POST' | 'DELETE', url: string, payload?: unknown, raw = false, allow503 = false) {
    const res = await cp.app.inject({
      method,
      url,
      ...(payload === undefined
        ? {}
        : raw
          ? { payload: String(payload), headers: { 'content-type': 'application/json' } }
          : { payload: JSON.stringify(payload), headers: { 'content-type': 'application/json' } }),
    });
    statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
    const what = `${method} ${url.slice(0, 120)} ${String(raw ? payload : JSON.stringify(payload)).slice(0, 120)} → ${res.statusCode} ${res.body.slice(0, 200)}`;
    if (allow503 && res.statusCode === 503) return { status: 503, json: JSON.parse(res.body) };
    expect(res.statusCode, what).toBeLessThan(500);
    const json = res.body ? JSON.parse(res.body) : undefined;
    if (res.statusCode >= 400) {
      expect(typeof json?.error, what).toBe('string');
      expect(typeof json?.message, what).toBe('string');
    }
    return { status: res.statusCode, json };
  }

  const encode = (s: string) => {
    try {
      return encodeURIComponent(s);
    } catch {
      return 'x%ZZ'; // a lone surrogate cannot be percent-encoded: send a broken escape instead
    }
  };

  it('registration: hostile manifests are 400 naming the field; valid ones register', async () => {
    const keys = Object.keys(researchAgent).concat('task_queue', 'namespace', 'instance_id', 'health_status');
    const bodies = fc.sample(
      fc.oneof(
        mutationOf(researchAgent as unknown as Record<string, unknown>, keys).map((m) => m.input as unknown),
        hostileValue,
        fc.record({
          ...Object.fromEntries(Object.entries(researchAgent).map(([k, v]) => [k, fc.constant(v)])),
          reasoners: fc.array(fc.record({ id: hostileValue, description: hostileValue, tags: hostileValue }), {
            maxLength: 3,
          }),
        }),
      ),
      { numRuns: 60, seed: SEED },
    );
    for (const body of bodies) {
      const { status, json } = await send('POST', '/api/v1/agents', body);
      expect([200, 201, 400, 403]).toContain(status);
      // 403: a mutation that moves the registered agent to another task queue or namespace.
      if (status === 403) expect(json.error).toBe('forbidden');
      if (status === 400 && hasProtoKey(body))
        expect(json.error).toBe('invalid_request'); // refused by the JSON parser itself
      else if (status === 400) {
        expect(json.error).toBe('invalid_manifest');
        expect(json.details.issues.length).toBeGreaterThan(0);
      }
    }
    for (const raw of ['{nope', '', 'null', '[]', '"x"', '{"agent_id":', '\u0000', '{"__proto__":{"polluted":true}}']) {
      const { status } = await send('POST', '/api/v1/agents', raw, true);
      expect(status).toBe(400);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('heartbeat and deregistration: hostile ids, bodies and parameters are 400/404, never a crash', async () => {
    const ids = [...HOSTILE_STRINGS.slice(0, 40), 'agent-flows', 'no-such-agent', 'a'.repeat(129), '..', '.', '%2e%2e'];
    const bodies = fc.sample(
      fc.oneof(
        hostileValue,
        fc.record({ instance_id: hostileValue, health_status: hostileValue }, { requiredKeys: [] }),
      ),
      { numRuns: ids.length, seed: SEED },
    );
    for (const [i, id] of ids.entries()) {
      // 414: ids longer than the router takes are refused before the route (still a client error).
      const { status } = await send('POST', `/api/v1/agents/${encode(id)}/heartbeat`, bodies[i]);
      expect([200, 400, 404, 405, 414]).toContain(status); // 405: "." and ".." are resolved as path segments
      // Deregistration of the agents under test would change what the next tests see: only others.
      if (id === 'agent-flows') continue;
      const instance = HOSTILE_STRINGS[i % HOSTILE_STRINGS.length];
      const del = await send(
        'DELETE',
        `/api/v1/agents/${encode(id)}?instance_id=${encode(instance)}&${i % 3 === 0 ? `x${i}=1` : ''}`,
      );
      expect([200, 400, 404, 405, 414]).toContain(del.status);
    }
  });

  it('a heartbeat for an instance that never registered is 404 and adds nothing', async () => {
    const before = (await cp.app.inject({ method: 'GET', url: '/api/v1/discovery/capabilities?agent=agent-flows' }))
      .body;
    for (let i = 0; i < 20; i++) {
      const { status } = await send('POST', '/api/v1/agents/agent-flows/heartbeat', {
        instance_id: `stranger-${i}-${'x'.repeat(150)}`,
      });
      expect(status).toBe(404);
    }
    const after = (await cp.app.inject({ method: 'GET', url: '/api/v1/discovery/capabilities?agent=agent-flows' }))
      .body;
    expect(after).not.toContain('stranger-');
    expect(after.length).toBeLessThanOrEqual(before.length + 200);
  });

  it('execution and registration errors echo at most a short excerpt of an oversized key', async () => {
    const hugeKey = 'K'.repeat(1_000_000);
    const target = `/api/v1/execute/agent-flows:${bomQuestionFlow.type}`;
    for (const body of [{ input: { question: 'x', [hugeKey]: 1 } }, { input: { question: 'x' }, [hugeKey]: 1 }]) {
      const res = await cp.app.inject({
        method: 'POST',
        url: target,
        payload: JSON.stringify(body),
        headers: { 'content-type': 'application/json' },
      });
      expect(res.statusCode).toBe(400);
      expect(res.body.length, res.body.slice(0, 300)).toBeLessThan(5_000);
    }
    const manyKeys = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`k${i}`, i]));
    const res = await cp.app.inject({
      method: 'POST',
      url: target,
      payload: JSON.stringify({ input: { question: 'x', ...manyKeys } }),
      headers: { 'content-type': 'application/json' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.body.length).toBeLessThan(10_000);
  });

  it('execution: hostile targets, parameters and bodies are 4xx before Temporal', async () => {
    const targets = [
      ...HOSTILE_STRINGS.slice(0, 30),
      'agent-flows:',
      ':answerBomQuestion',
      'agent-flows:skill:resolveBomColumns',
      'agent-flows:noSuchFlow',
      'agent-flows:answerBomQuestion:x',
      'agent-research-001:deep_research',
    ];
    for (const target of targets) {
      const { status } = await send('POST', `/api/v1/execute/${encode(target)}`, {
        input: { question: 'Which BOMs use capacitor components?' },
      });
      expect([400, 404, 409, 414]).toContain(status);
    }
    const target = `/api/v1/execute/agent-flows:${bomQuestionFlow.type}`;
    for (const q of [
      '?wait=maybe',
      '?timeout=-1',
      '?timeout=11m',
      '?timeout=1e9',
      '?wait=true&wait=false',
      '?foo=bar',
      `?timeout=${encode("'; DROP TABLE x; --")}`,
    ]) {
      expect(
        (await send('POST', `${target}${q}`, { input: { question: 'Which BOMs use capacitor components?' } })).status,
      ).toBe(400);
    }
    for (const body of fc.sample(
      fc.oneof(
        hostileValue,
        fc.record({
          input: fc.constant({ question: 'Which BOMs use capacitor components?' }),
          workflow_id: hostileValue,
        }),
      ),
      { numRuns: 25, seed: SEED },
    )) {
      const { status } = await send('POST', target, body, false, true);
      expect([400, 503]).toContain(status);
    }
  });

  for (const flow of flows) {
    it(`execution of ${flow.type}: invalid input is 400 invalid_input naming the same fields as the thin client`, async () => {
      const base = (flow.examples[0] ?? {}) as Record<string, unknown>;
      const inputs = fc.sample(
        fc.oneof(
          mutationOf(base, Object.keys(shapeOf(flow))).map((m) => m.input as unknown),
          hostileValue,
        ),
        { numRuns: 25, seed: SEED },
      );
      for (const input of [...inputs, withField(base, '__proto__', { polluted: true })]) {
        const sent = JSON.parse(JSON.stringify({ input }) ?? '{}') as { input?: unknown };
        const { status, json } = await send('POST', `/api/v1/execute/agent-flows:${flow.type}`, { input }, false, true);
        let clientFields: string[] | undefined;
        try {
          validateFlowInput(flow, sent.input);
        } catch (err) {
          clientFields = (err as InvalidFlowInput).issues.map((i) => i.field);
        }
        if (hasProtoKey(input)) {
          // Fastify's JSON parser refuses __proto__ keys outright (prototype-poisoning protection).
          expect(status).toBe(400);
          expect(json.error).toBe('invalid_request');
        } else if (clientFields) {
          expect(status).toBe(400);
          expect(json.error).toBe('invalid_input');
          expect(json.details.issues.map((i: { field: string }) => i.field)).toEqual(clientFields);
        } else {
          expect(status).toBe(503); // valid: only Temporal is missing here
        }
      }
    });
  }

  it('the registry is still consistent, serves discovery, and survives a restart', async () => {
    const found = await cp.get('/api/v1/discovery/capabilities?format=compact');
    expect(found.status).toBe(200);
    expect(
      found.json.reasoners
        .filter((r: { agent_id: string }) => r.agent_id === 'agent-flows')
        .map((r: { id: string }) => r.id)
        .sort(),
    ).toEqual(flows.map((f) => f.type).sort());
    const storePath = cp.storePath;
    const before = found.json.reasoners.length;
    await cp.close();
    cp = await testControlPlane({ logLevel: 'silent', storePath });
    const again = await cp.get('/api/v1/discovery/capabilities?format=compact');
    expect(again.status).toBe(200);
    expect(again.json.reasoners.length).toBe(before);
    expect(statuses.get(400) ?? 0).toBeGreaterThan(100);
  });
});

/** Every form of request target an attacker tries for one route; each must reach the route's auth. */
function targetForms(port: number, path: string): string[] {
  const encoded = path.replace(/^\/api\//, '/%61pi/').replace('/v1/', '/%76%31/');
  return [
    path,
    `http://127.0.0.1:${port}${path}`, // absolute-form (RFC 9112 §3.2.2), as proxies send it
    `http://localhost${path}`,
    encoded,
    `${path}?`,
    `${path}/`,
    `/api/v1/../v1/${path.slice('/api/v1/'.length)}`,
  ];
}

describe('control plane: request targets, Host/Origin, tokens, limits and registration abuse', () => {
  const API = '/api/v1/discovery/capabilities';
  let cp: TestControlPlane;
  let port: number;

  beforeAll(async () => {
    cp = await testControlPlane({ logLevel: 'silent', token: 'api-token', registrationToken: 'reg-token' });
    port = Number(new URL(await cp.listen('127.0.0.1', 0)).port);
  });
  afterAll(async () => cp?.close());

  const json = (body: string) => {
    try {
      return JSON.parse(body);
    } catch {
      return undefined;
    }
  };

  it('decides auth on the routed path: absolute-form and percent-encoded targets get 401 without a token', async () => {
    const routes: Array<{ method: string; path: string; body?: string }> = [
      { method: 'GET', path: API },
      { method: 'HEAD', path: API },
      { method: 'POST', path: '/api/v1/agents', body: JSON.stringify(researchAgent) },
      { method: 'POST', path: '/api/v1/agents/agent-research-001/heartbeat', body: '{}' },
      { method: 'DELETE', path: '/api/v1/agents/agent-research-001' },
      { method: 'POST', path: '/api/v1/execute/agent-flows:platformCheck', body: '{"input":{"topic":"x"}}' },
    ];
    let reachedRoute = 0;
    for (const route of routes) {
      for (const target of targetForms(port, route.path)) {
        const headers: Record<string, string> = {
          host: `127.0.0.1:${port}`,
          ...(route.body ? { 'content-type': 'application/json' } : {}),
        };
        const res = await rawHttp(port, { method: route.method, target, headers, body: route.body });
        const what = `${route.method} ${target} → ${res.status} ${res.body.slice(0, 120)}`;
        // Either the target reaches no route (404/405), or the route asks for a token: nothing else.
        expect([401, 404, 405], what).toContain(res.status);
        if (res.status === 401) reachedRoute++;
        if (target.startsWith('http://') || target.includes('%61pi')) expect(res.status, what).toBe(401);
        // Absolute-form naming another host: refused like a foreign Host header.
        const foreign = await rawHttp(port, {
          method: route.method,
          target: `http://evil.example${route.path}`,
          headers,
          body: route.body,
        });
        expect(foreign.status, `${route.method} http://evil.example${route.path}`).toBe(403);
      }
    }
    expect(reachedRoute).toBeGreaterThan(20);
    // The same absolute-form target with the token is served: the route really was reached.
    const ok = await rawHttp(port, {
      target: `http://127.0.0.1:${port}${API}`,
      headers: { host: `127.0.0.1:${port}`, authorization: 'Bearer api-token' },
    });
    expect(ok.status).toBe(200);
    expect(json(ok.body).total_agents).toBe(0);
    const encoded = await rawHttp(port, {
      target: '/%61pi/v1/discovery/capabilities',
      headers: { host: 'localhost', authorization: 'bearer api-token' },
    });
    expect(encoded.status).toBe(200);
  });

  it(
    'registration has its own token; the API token is accepted there, the ' + 'registration token not on the API',
    async () => {
      const register = (authorization?: string, body: object = researchAgent) =>
        cp.app.inject({
          method: 'POST',
          url: '/api/v1/agents',
          payload: body,
          headers: authorization ? { authorization } : {},
        });
      expect((await register()).statusCode).toBe(401);
      expect((await register('Bearer api-token-but-longer')).statusCode).toBe(401);
      expect((await register('Basic cmVnLXRva2Vu')).statusCode).toBe(401);
      expect((await register('Bearer reg-token')).statusCode).toBe(201);
      expect((await register('BEARER api-token')).statusCode).toBe(200);
      expect((await cp.get(API, { authorization: 'Bearer reg-token' })).status).toBe(401);
      expect((await cp.get(API, { authorization: 'Bearer api-token' })).status).toBe(200);
      const heartbeat = await cp.app.inject({
        method: 'POST',
        url: '/api/v1/agents/agent-research-001/heartbeat',
        payload: {},
      });
      expect(heartbeat.statusCode).toBe(401);
      const del = await cp.app.inject({
        method: 'DELETE',
        url: '/api/v1/agents/agent-research-001',
        headers: { authorization: 'Bearer reg-token' },
      });
      expect(del.statusCode).toBe(200);
    },
  );

  it('checks Host and Origin on every route (DNS rebinding), before auth', async () => {
    const cases: Array<{ headers: Record<string, string>; status: number; version?: '1.0' }> = [
      { headers: { host: 'evil.example' }, status: 403 },
      { headers: { host: `evil.example:${port}` }, status: 403 },
      { headers: { host: 'localhost.evil.example' }, status: 403 },
      { headers: { host: '127.0.0.1.nip.io' }, status: 403 },
      { headers: { host: 'local host' }, status: 403 },
      { headers: { host: 'localhost@evil.example' }, status: 403 },
      { headers: {}, status: 403, version: '1.0' }, // HTTP/1.0 may omit Host: refused too
      { headers: { host: `localhost:${port}`, origin: 'http://evil.example' }, status: 403 },
      { headers: { host: `localhost:${port}`, origin: 'null' }, status: 403 },
      { headers: { host: `localhost:${port}`, origin: `http://evil.example:${port}` }, status: 403 },
      { headers: { host: `localhost:${port}` }, status: 200 },
      { headers: { host: `127.0.0.1:${port}` }, status: 200 },
      { headers: { host: `[::1]:${port}` }, status: 200 },
      { headers: { host: `LOCALHOST:${port}`, origin: `http://localhost:${port}` }, status: 200 },
    ];
    for (const { headers, status, version } of cases) {
      for (const target of ['/healthz', API]) {
        const res = await rawHttp(port, {
          target,
          headers: { ...headers, authorization: 'Bearer api-token' },
          version,
        });
        expect(res.status, `${target} ${JSON.stringify(headers)}`).toBe(status);
        if (status === 403) expect(json(res.body)?.error).toMatch(/^forbidden_(host|origin)$/);
      }
    }
    // A page on a rebound name cannot register either, even with no token configured.
    const open = await testControlPlane({ logLevel: 'silent' });
    try {
      const res = await open.app.inject({
        method: 'POST',
        url: '/api/v1/agents',
        payload: researchAgent as object,
        headers: { host: 'attacker.example' },
      });
      expect(res.statusCode).toBe(403);
      expect((await open.get(API)).json.total_agents).toBe(0);
      const proxied = await testControlPlane({ logLevel: 'silent', allowedHosts: ['cp.internal'] });
      expect(
        (await proxied.app.inject({ method: 'GET', url: API, headers: { host: 'cp.internal:8080' } })).statusCode,
      ).toBe(200);
      await proxied.close();
    } finally {
      await open.close();
    }
  });

  it('caps registration size (413) and nesting depth (400), and the journal does not grow', async () => {
    const headers = { authorization: 'Bearer reg-token', 'content-type': 'application/json', host: 'localhost' };
    const before = statSync(cp.storePath).size;
    const huge = {
      ...researchAgent,
      agent_id: 'agent-huge',
      reasoners: [{ id: 'r', input_schema: { type: 'object', description: 'x'.repeat(7 * 1024 * 1024) } }],
    };
    const tooBig = await cp.app.inject({
      method: 'POST',
      url: '/api/v1/agents',
      payload: JSON.stringify(huge),
      headers,
    });
    expect(tooBig.statusCode).toBe(413);
    expect(JSON.parse(tooBig.body)).toMatchObject({
      error: 'payload_too_large',
      message: expect.stringContaining('1048576 bytes'),
    });

    // The other entry points take at most 8 MB; beyond, a 413 naming the limit, never a 5xx.
    const nineMb = JSON.stringify({ input: { topic: 'x'.repeat(9 * 1024 * 1024) } });
    for (const url of ['/api/v1/execute/agent-flows:platformCheck', '/api/v1/agents/agent-huge/heartbeat']) {
      const auth = url.includes('execute') ? 'Bearer api-token' : 'Bearer reg-token';
      const res = await cp.app.inject({
        method: 'POST',
        url,
        payload: nineMb,
        headers: { ...headers, authorization: auth },
      });
      expect(res.statusCode, url).toBe(413);
      expect(JSON.parse(res.body).message).toContain('8388608 bytes');
    }

    // 3,000 nested anyOf (what gave a 500), and 100,000 nested arrays.
    const deepSchema = '{"anyOf":['.repeat(3000) + '{"type":"string"}' + ']}'.repeat(3000);
    const deep = `{"agent_id":"agent-deep","base_url":"http://x","version":"1","reasoners":[{"id":"r","input_schema":${deepSchema}}]}`;
    const deeper = `{"agent_id":"agent-deeper","base_url":"http://x","version":"1","reasoners":[{"id":"r","input_schema":{"x":${'['.repeat(100_000)}${']'.repeat(100_000)}}}]}`;
    for (const payload of [deep, deeper]) {
      const res = await cp.app.inject({ method: 'POST', url: '/api/v1/agents', payload, headers });
      expect(res.statusCode, res.body.slice(0, 200)).toBe(400);
      const body = JSON.parse(res.body);
      expect(body.error).toBe('manifest_too_deep');
      expect(body.message).toMatch(/deeper than 64 levels at reasoners\.0\.input_schema/);
      expect(res.body.length).toBeLessThan(1000);
    }
    // Just under both limits is accepted.
    let nested: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 25; i++) nested = { anyOf: [nested] }; // 2 levels each
    expect(
      (
        await cp.app.inject({
          method: 'POST',
          url: '/api/v1/agents',
          payload: { ...researchAgent, agent_id: 'agent-nested', reasoners: [{ id: 'r', input_schema: nested }] },
          headers,
        })
      ).statusCode,
    ).toBe(201);
    const discovered = await cp.get(`${API}?agent=agent-nested&include_input_schema=true`, {
      authorization: 'Bearer api-token',
    });
    expect(discovered.status).toBe(200);
    await new Promise((r) => setTimeout(r, 50));
    expect(statSync(cp.storePath).size - before).toBeLessThan(20_000);
    expect(readFileSync(cp.storePath, 'utf8')).not.toContain('agent-huge');
  });
});

describe('registration hijack: an agent is moved or removed only by its owner or a token holder', () => {
  const secret = 'owner-secret-0123456789abcdef';
  const ours = { ...OURS, instance_id: 'worker-1' };
  let cp: TestControlPlane;

  beforeAll(async () => {
    // No token at all: the loopback default, where ownership is the only protection.
    cp = await testControlPlane({ logLevel: 'silent' });
  });
  afterAll(async () => cp?.close());

  const register = (manifest: object, headers: Record<string, string> = {}) =>
    cp.app.inject({ method: 'POST', url: '/api/v1/agents', payload: manifest, headers });
  const routing = async () => {
    const agent = (await cp.registry.read()).value.byId.get('agent-flows');
    return agent && { task_queue: agent.task_queue, namespace: agent.namespace };
  };

  it('refuses another task queue or namespace from anyone but the owning instance', async () => {
    expect((await register(ours, { 'x-agent-secret': secret })).statusCode).toBe(201);
    for (const [change, headers] of [
      [{ task_queue: 'attacker-queue' }, {}],
      [{ namespace: 'attacker-ns' }, {}],
      [{ task_queue: 'attacker-queue', instance_id: 'worker-1' }, {}], // knowing the instance id is not enough
      [{ task_queue: 'attacker-queue' }, { 'x-agent-secret': 'another-secret-0123456789' }],
      [{ task_queue: undefined }, {}], // dropping the queue is a move too
    ] as Array<[object, Record<string, string>]>) {
      const res = await register({ ...ours, ...change }, headers);
      expect(res.statusCode, JSON.stringify(change)).toBe(403);
      expect(JSON.parse(res.body).message).toMatch(/only the instance that registered it/);
    }
    expect(await routing()).toEqual({ task_queue: 'agent-flows', namespace: 'default' });
    expect(readFileSync(cp.storePath, 'utf8')).not.toContain('attacker');
    const short = await register(ours, { 'x-agent-secret': 'short' });
    expect(short.statusCode).toBe(400);
  });

  it('lets anyone refresh it unchanged, without gaining the right to move it', async () => {
    const attacker = { 'x-agent-secret': 'attacker-secret-0123456789' };
    expect((await register({ ...ours, instance_id: 'intruder', version: '6.6.6' }, attacker)).statusCode).toBe(200);
    expect(
      (await register({ ...ours, instance_id: 'intruder', task_queue: 'attacker-queue' }, attacker)).statusCode,
    ).toBe(403);
    expect(await routing()).toEqual({ task_queue: 'agent-flows', namespace: 'default' });
  });

  it('refuses removal of the agent or its owner instance (which would free it for a hijacker)', async () => {
    for (const url of ['/api/v1/agents/agent-flows', '/api/v1/agents/agent-flows?instance_id=worker-1']) {
      const res = await cp.app.inject({
        method: 'DELETE',
        url,
        headers: { 'x-agent-secret': 'attacker-secret-0123456789' },
      });
      expect(res.statusCode, url).toBe(403);
    }
    // An instance that registered with a secret is removed only with it: the intruder can
    // remove its own instance, nobody else's (nor can others remove the intruder's).
    const intruder = { 'x-agent-secret': 'attacker-secret-0123456789' };
    expect(
      (await cp.app.inject({ method: 'DELETE', url: '/api/v1/agents/agent-flows?instance_id=intruder' })).statusCode,
    ).toBe(403);
    expect(
      (
        await cp.app.inject({
          method: 'DELETE',
          url: '/api/v1/agents/agent-flows?instance_id=intruder',
          headers: intruder,
        })
      ).statusCode,
    ).toBe(200);
    const report = await cp.app.inject({
      method: 'POST',
      url: '/api/v1/agents/agent-flows/heartbeat',
      payload: { instance_id: 'worker-1', health_status: 'inactive' },
    });
    expect(report.statusCode).toBe(403);
    expect(await routing()).toEqual({ task_queue: 'agent-flows', namespace: 'default' });
  });

  it('the owner survives a restart; the owner itself may move the agent; a token holder may too', async () => {
    await cp.close();
    cp = await testControlPlane({ logLevel: 'silent', storePath: cp.storePath, registrationToken: 'reg-token' });
    expect(
      (await register({ ...ours, task_queue: 'attacker-queue' }, { 'x-agent-secret': 'attacker-secret-0123456789' }))
        .statusCode,
    ).toBe(401);
    const auth = { authorization: 'Bearer reg-token' };
    expect(
      (
        await register(
          { ...ours, task_queue: 'attacker-queue' },
          { ...auth, 'x-agent-secret': 'attacker-secret-0123456789' },
        )
      ).statusCode,
    ).toBe(200);
    await cp.close();
    cp = await testControlPlane({ logLevel: 'silent', storePath: cp.storePath });
    expect((await register({ ...ours, task_queue: 'agent-flows' }, { 'x-agent-secret': secret })).statusCode).toBe(403); // ownership moved with the token
    expect(
      (await register({ ...ours, task_queue: 'next-queue' }, { 'x-agent-secret': 'attacker-secret-0123456789' }))
        .statusCode,
    ).toBe(200);
    expect(await routing()).toEqual({ task_queue: 'next-queue', namespace: 'default' });
  });

  it(
    'an agent whose owner has left is still not free: its instances with secrets ' + 'cannot be removed by others',
    async () => {
      const store = cp.storePath;
      await cp.close();
      cp = await testControlPlane({ logLevel: 'silent', storePath: store });
      const agent = { ...OURS, agent_id: 'agent-orphan', instance_id: 'w1' };
      const w1 = { 'x-agent-secret': 'first-worker-secret-0123' };
      const w2 = { 'x-agent-secret': 'second-worker-secret-012' };
      expect((await register(agent, w1)).statusCode).toBe(201);
      // A second worker process joins; the first one dies and is silent past the instance expiry.
      expect((await register({ ...agent, instance_id: 'w2' }, w2)).statusCode).toBe(200);
      cp.clock.advance(61 * 60 * 1000);
      expect((await register({ ...agent, instance_id: 'w2' }, w2)).statusCode).toBe(200);
      // Nobody owns it now, yet nobody without a token may move it, or delete it to take it over.
      expect((await register({ ...agent, instance_id: 'w2', task_queue: 'attacker-queue' }, w2)).statusCode).toBe(403);
      expect((await cp.app.inject({ method: 'DELETE', url: '/api/v1/agents/agent-orphan' })).statusCode).toBe(403);
      expect(
        (await cp.app.inject({ method: 'DELETE', url: '/api/v1/agents/agent-orphan?instance_id=w2' })).statusCode,
      ).toBe(403);
      // After a restart too (the instances' secrets are journalled).
      await cp.close();
      cp = await testControlPlane({ logLevel: 'silent', storePath: store });
      cp.clock.advance(61 * 60 * 1000 + 1000);
      expect(
        (await cp.app.inject({ method: 'DELETE', url: '/api/v1/agents/agent-orphan?instance_id=w2' })).statusCode,
      ).toBe(403);
      const own = await cp.app.inject({
        method: 'DELETE',
        url: '/api/v1/agents/agent-orphan?instance_id=w2',
        headers: w2,
      });
      expect(JSON.parse(own.body)).toMatchObject({ removed: true });
    },
  );

  it('the worker re-asserts its registration on every heartbeat, and its secret binds the agent to it', async () => {
    const open = await testControlPlane({ logLevel: 'silent' });
    const url = await open.listen('127.0.0.1', 0);
    const worker = startAgentRegistration({
      url,
      manifest: { ...OURS, instance_id: 'real-worker' },
      heartbeatMs: 1500,
      log: () => undefined,
    });
    try {
      expect(await worker.firstAttempt).toBe(true);
      // Someone replaces the manifest (same routing, which anyone may refresh) with an empty one.
      const vandal = await open.app.inject({
        method: 'POST',
        url: '/api/v1/agents',
        payload: { ...OURS, instance_id: 'vandal', reasoners: [], skills: [] },
      });
      expect(vandal.statusCode).toBe(200);
      expect((await open.registry.read()).value.byId.get('agent-flows')!.reasoners).toHaveLength(0);
      await expect
        .poll(async () => (await open.registry.read()).value.byId.get('agent-flows')?.reasoners.length, {
          timeout: 5000,
        })
        .toBe(OURS.reasoners!.length);
      // Without the worker's secret, nobody moves it.
      const move = await open.app.inject({
        method: 'POST',
        url: '/api/v1/agents',
        payload: { ...OURS, instance_id: 'real-worker', task_queue: 'attacker-queue' },
      });
      expect(move.statusCode).toBe(403);
      // Unchanged re-assertions are journalled as heartbeats, not as copies of the manifest.
      const size = statSync(open.storePath).size;
      await new Promise((r) => setTimeout(r, 3200)); // two more re-assertions
      expect(statSync(open.storePath).size - size).toBeLessThan(2000);
    } finally {
      await worker.stop();
      await open.close();
    }
    expect(readFileSync(open.storePath, 'utf8')).not.toContain('attacker-queue');
  });
});
