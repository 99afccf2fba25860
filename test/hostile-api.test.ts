/**
 * The control plane's write and execute endpoints under hostile input (issue 9). The discovery
 * query strings are fuzzed in test/control-plane-fuzz.test.ts; this covers the rest: the
 * registration body, heartbeats, deregistration, and execution (target, query, body, and each
 * flow's input). No request is answered with a 5xx other than the documented 503 "no Temporal"
 * for a valid execution; every 400 names what is wrong; execution input errors name the same
 * fields as the thin client; the registry stays consistent and survives a restart.
 *
 * No Temporal here: a control plane without a Temporal connection rejects everything it can
 * before touching Temporal, which is exactly the part under test.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateFlowInput, type InvalidFlowInput } from '../client/flow-client';
import { bomQuestionFlow } from '../contracts/bom';
import { flows } from '../contracts/flows';
import { buildLocalManifest } from '../server/manifest';
import { researchAgent, testControlPlane, type TestControlPlane } from './control-plane-fixtures';
import { HOSTILE_STRINGS, hostileValue, mutationOf, SEED, shapeOf, withField } from './hostile-helpers';

/** Whether a value carries a `__proto__` own key at any depth (what Fastify's secure JSON parser refuses). */
function hasProtoKey(value: unknown): boolean {
  if (!value || typeof value !== 'object') return false;
  return Object.keys(value).some((k) => k === '__proto__' || hasProtoKey((value as Record<string, unknown>)[k]));
}

const OURS = buildLocalManifest({ agentId: 'agent-flows', taskQueue: 'agent-flows', namespace: 'default', address: '127.0.0.1:7233', activityNames: ['resolveBomColumns'] });

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
      ...(payload === undefined ? {} : raw ? { payload: String(payload), headers: { 'content-type': 'application/json' } } : { payload: JSON.stringify(payload), headers: { 'content-type': 'application/json' } }),
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
        fc.record({ ...Object.fromEntries(Object.entries(researchAgent).map(([k, v]) => [k, fc.constant(v)])), reasoners: fc.array(fc.record({ id: hostileValue, description: hostileValue, tags: hostileValue }), { maxLength: 3 }) }),
      ),
      { numRuns: 60, seed: SEED },
    );
    for (const body of bodies) {
      const { status, json } = await send('POST', '/api/v1/agents', body);
      expect([200, 201, 400]).toContain(status);
      if (status === 400 && hasProtoKey(body)) expect(json.error).toBe('invalid_request'); // refused by the JSON parser itself
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
    const bodies = fc.sample(fc.oneof(hostileValue, fc.record({ instance_id: hostileValue, health_status: hostileValue }, { requiredKeys: [] })), { numRuns: ids.length, seed: SEED });
    for (const [i, id] of ids.entries()) {
      // 414: ids longer than the router takes are refused before the route (still a client error).
      const { status } = await send('POST', `/api/v1/agents/${encode(id)}/heartbeat`, bodies[i]);
      expect([200, 400, 404, 405, 414]).toContain(status); // 405: "." and ".." are resolved as path segments
      // Deregistration of the agents under test would change what the next tests see: only others.
      if (id === 'agent-flows') continue;
      const instance = HOSTILE_STRINGS[i % HOSTILE_STRINGS.length];
      const del = await send('DELETE', `/api/v1/agents/${encode(id)}?instance_id=${encode(instance)}&${i % 3 === 0 ? `x${i}=1` : ''}`);
      expect([200, 400, 404, 405, 414]).toContain(del.status);
    }
  });

  it('execution: hostile targets, parameters and bodies are 4xx before Temporal', async () => {
    const targets = [...HOSTILE_STRINGS.slice(0, 30), 'agent-flows:', ':answerBomQuestion', 'agent-flows:skill:resolveBomColumns', 'agent-flows:noSuchFlow', 'agent-flows:answerBomQuestion:x', 'agent-research-001:deep_research'];
    for (const target of targets) {
      const { status } = await send('POST', `/api/v1/execute/${encode(target)}`, { input: { question: 'Which BOMs use capacitor components?' } });
      expect([400, 404, 409, 414]).toContain(status);
    }
    const target = `/api/v1/execute/agent-flows:${bomQuestionFlow.type}`;
    for (const q of ['?wait=maybe', '?timeout=-1', '?timeout=11m', '?timeout=1e9', '?wait=true&wait=false', '?foo=bar', `?timeout=${encode("'; DROP TABLE x; --")}`]) {
      expect((await send('POST', `${target}${q}`, { input: { question: 'Which BOMs use capacitor components?' } })).status).toBe(400);
    }
    for (const body of fc.sample(fc.oneof(hostileValue, fc.record({ input: fc.constant({ question: 'Which BOMs use capacitor components?' }), workflow_id: hostileValue })), { numRuns: 25, seed: SEED })) {
      const { status } = await send('POST', target, body, false, true);
      expect([400, 503]).toContain(status);
    }
  });

  for (const flow of flows) {
    it(`execution of ${flow.type}: invalid input is 400 invalid_input naming the same fields as the thin client`, async () => {
      const base = (flow.examples[0] ?? {}) as Record<string, unknown>;
      const inputs = fc.sample(fc.oneof(mutationOf(base, Object.keys(shapeOf(flow))).map((m) => m.input as unknown), hostileValue), { numRuns: 25, seed: SEED });
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
    expect(found.json.reasoners.filter((r: { agent_id: string }) => r.agent_id === 'agent-flows').map((r: { id: string }) => r.id).sort()).toEqual(flows.map((f) => f.type).sort());
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
