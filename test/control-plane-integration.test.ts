/**
 * The control plane over real HTTP with real registration (the scenarios of docs/discovery-api.md) and real
 * Temporal: our worker's manifest (flows and activities found at run time), health from the
 * task queue's pollers, execution of a discovered reasoner, cache invalidation, 1000 concurrent
 * requests, pagination through 1200 agents, and the worker process registering at start and
 * deregistering at shutdown.
 */
import { Client, Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { discoveryResponseSchema, executeResponseSchema } from '../contracts/capabilities';
import { createActivities, flows } from '../flows/registry';
import { platformCheckOutput } from '../flows/platform/contract';
import { buildControlPlane, type ControlPlane } from '../server/app';
import { startAgentRegistration, type AgentRegistrationHandle } from '../workers/agent-registration';
import { buildLocalManifest, jsonSchemaOf } from '../server/manifest';
import { syntheticAgent, syntheticAgentId } from '../bench/synthetic-agents';
import { lazyTemporal } from '../server/temporal';
import { tempStorePath } from './control-plane-fixtures';
import { createHarness, type Harness } from './helpers/harness';
import { waitFor } from './helpers/wait';
import { logLines } from './helpers/log-lines';

const ROOT = path.resolve(__dirname, '..');
const API = '/api/v1/discovery/capabilities';

/** The control plane and the workers it waits for may take a while to come up and answer. */
const waitLong = <T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 90_000) =>
  waitFor(probe, what, { timeoutMs, everyMs: 250, retryErrors: true });

describe('control plane over HTTP with our workers', () => {
  let h: Harness;
  let cp: ControlPlane;
  let url: string;
  let registration: AgentRegistrationHandle;
  const agentId = 'agent-flows-test';
  const get = async (query: string) => {
    const res = await fetch(`${url}${API}?${query}`);
    return { status: res.status, json: (await res.json()) as any };
  };
  const execute = async (target: string, body: object, query = '') => {
    const res = await fetch(`${url}/api/v1/execute/${target}${query}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, json: (await res.json()) as any };
  };

  beforeAll(async () => {
    h = await createHarness();
    cp = await buildControlPlane({
      storePath: tempStorePath(),
      temporal: lazyTemporal({ address: inject('temporalAddress') }),
      logLevel: 'silent',
      processMetrics: false,
    });
    url = await cp.listen('127.0.0.1', 0);
    registration = startAgentRegistration({
      url,
      manifest: buildLocalManifest({
        agentId,
        taskQueue: h.taskQueue,
        namespace: 'default',
        address: inject('temporalAddress'),
        activityNames: Object.keys(await createActivities(h.backends)),
        instanceId: 'test-instance',
      }),
      heartbeatMs: 60_000,
      log: () => undefined,
    });
  });
  afterAll(async () => {
    await registration?.stop();
    await cp?.close();
    await h?.close();
  });

  it('scenario 1: discovery lists our flows and activities, with the schemas the code validates with', async () => {
    expect(await registration.firstAttempt).toBe(true);
    await cp.registry.checkHealth();
    const { status, json } = await get(
      `agent=${agentId}&include_input_schema=true&include_output_schema=true&include_examples=true`,
    );
    expect(status).toBe(200);
    const body = discoveryResponseSchema.parse(json);
    const agent = body.capabilities[0];
    expect(agent).toMatchObject({ agent_id: agentId, deployment_type: 'long_running', health_status: 'active' });
    expect(agent.base_url).toBe(`temporal://${inject('temporalAddress')}/default/${h.taskQueue}`);
    // Every flow in flows/registry.ts, whatever has been added, and every registered activity.
    expect(agent.reasoners.map((r) => r.id)).toEqual(flows.map((f) => f.type));
    expect(agent.skills.map((s) => s.id)).toEqual(Object.keys(await createActivities(h.backends)).sort());
    for (const flow of flows) {
      const reasoner = agent.reasoners.find((r) => r.id === flow.type)!;
      expect(reasoner.input_schema).toEqual(jsonSchemaOf(flow.input, 'input'));
      expect(reasoner.output_schema).toEqual(jsonSchemaOf(flow.output, 'output'));
      expect(reasoner.examples!.map((e) => e.input)).toEqual(flow.examples);
      expect(reasoner.invocation_target).toBe(`${agentId}:${flow.type}`);
    }
    const search = agent.skills.find((s) => s.id === 'searchPlatformDocs')!;
    expect(search).toMatchObject({
      tags: ['platform', 'search', 'activity'],
      invocation_target: `${agentId}:skill:searchPlatformDocs`,
    });
    // One argument, the input object (every activity takes one object).
    const [arg, ...more] = (search.input_schema as any).prefixItems;
    expect(more).toEqual([]);
    expect(arg).toMatchObject({ type: 'object', required: ['topic', 'limit'] });
  });

  it('scenario 1 (cont.): executes a discovered reasoner through its invocation target', async () => {
    const target = (await get(`agent=${agentId}&reasoner=platformCheck&format=compact`)).json.reasoners[0].target;
    const done = await execute(target, { input: { topic: 'memory' } }, '?wait=true&timeout=60s');
    expect(done.status).toBe(200);
    const response = executeResponseSchema.parse(done.json);
    expect(response).toMatchObject({
      status: 'completed',
      agent_id: agentId,
      reasoner: 'platformCheck',
      task_queue: h.taskQueue,
      namespace: 'default',
      agent_health: 'active',
    });
    expect(response.workflow_id).toMatch(/^platform-check-memory-[0-9a-f]{6}$/);
    expect(response.web_ui).toContain(
      `/namespaces/default/workflows/${response.workflow_id}/${response.run_id}/history`,
    );
    expect(platformCheckOutput.parse(response.result).documents.map((d) => d.id)).toContain('pd-memory');

    const started = await execute(target, { input: { topic: 'battery' } });
    expect(started.status).toBe(202);
    expect(started.json.status).toBe('running');
    const result = await h.client.workflow.getHandle(started.json.workflow_id, started.json.run_id).result();
    expect(result.topic).toBe('battery');

    const bad = await execute(target, { input: { topic: '', extra: 1 } });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toBe('invalid_input');
    expect(bad.json.details.issues.map((i: any) => i.field).sort()).toEqual(['(input)', 'topic']);

    const impatient = await execute(target, { input: { topic: 'memory' } }, '?wait=true&timeout=1ms');
    expect(impatient.status).toBe(202);
    expect(impatient.json.status).toBe('running');
    await h.client.workflow.getHandle(impatient.json.workflow_id).result();
  });

  it('health follows the task queue: no pollers → degraded; 409 for a running workflow id', async () => {
    const queue = `cp-idle-${randomUUID().slice(0, 8)}`;
    const idle = buildLocalManifest({
      agentId: 'agent-idle',
      taskQueue: queue,
      namespace: 'default',
      address: 'x:1',
      activityNames: [],
    });
    expect(
      (
        await fetch(`${url}/api/v1/agents`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(idle),
        })
      ).status,
    ).toBe(201);
    await cp.registry.checkHealth();
    expect((await get('health_status=degraded')).json.capabilities.map((a: any) => a.agent_id)).toEqual(['agent-idle']);
    expect((await get('health_status=active')).json.capabilities.map((a: any) => a.agent_id)).toEqual([agentId]);

    // Nothing polls this queue, so the workflow stays running and its id stays taken.
    const workflowId = `cp-dup-${randomUUID().slice(0, 8)}`;
    const first = await execute('agent-idle:platformCheck', { input: { topic: 'x' }, workflow_id: workflowId });
    expect(first.status).toBe(202);
    expect(first.json.agent_health).toBe('degraded');
    const second = await execute('agent-idle:platformCheck', { input: { topic: 'x' }, workflow_id: workflowId });
    expect(second.status).toBe(409);
    expect(second.json.message).toBe(`A workflow with id ${workflowId} is already running`);
    await h.client.workflow.getHandle(workflowId).terminate('test over');
    // A flow whose id derives from its input: the 409 names that id, not "undefined".
    const eads = { projectId: `cp-dup-${randomUUID().slice(0, 8)}`, mode: 'surrogate', fixture: 'brewery-flow-shop' };
    const started = await execute('agent-idle:runEadsInterview', { input: eads });
    expect(started.status).toBe(202);
    const again = await execute('agent-idle:runEadsInterview', { input: eads });
    expect(again.status).toBe(409);
    expect(again.json.message).toBe(`A workflow with id ${started.json.workflow_id} is already running`);
    expect(again.json.details).toEqual({ workflow_id: started.json.workflow_id });
    await h.client.workflow.getHandle(started.json.workflow_id).terminate('test over');
    await fetch(`${url}/api/v1/agents/agent-idle`, { method: 'DELETE' });
  });

  it('scenario 3: registration updates show at once (cache invalidation); heartbeats do not cost reads', async () => {
    const manifest = syntheticAgent(9001, { capabilities: 4 });
    const post = (m: object) =>
      fetch(`${url}/api/v1/agents`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(m),
      });
    expect((await post({ ...manifest, version: '1.0.0' })).status).toBe(201);
    expect((await get(`agent=${manifest.agent_id}`)).json.capabilities[0].version).toBe('1.0.0');
    expect((await post({ ...manifest, version: '2.0.0', reasoners: [] })).status).toBe(200);
    const updated = (await get(`agent=${manifest.agent_id}`)).json.capabilities[0];
    expect(updated.version).toBe('2.0.0');
    expect(updated.reasoners).toEqual([]);
    const reads = cp.store.reads;
    for (let i = 0; i < 5; i++)
      await fetch(`${url}/api/v1/agents/${manifest.agent_id}/heartbeat`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
    await get(`agent=${manifest.agent_id}`);
    expect(cp.store.reads).toBe(reads);
    expect((await fetch(`${url}/api/v1/agents/${manifest.agent_id}`, { method: 'DELETE' })).status).toBe(200);
    expect((await get(`agent=${manifest.agent_id}`)).json.total_agents).toBe(0);
  });

  it('scenario 2: 1000 concurrent requests all succeed on one storage read', async () => {
    const post = (m: object) =>
      fetch(`${url}/api/v1/agents`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(m),
      });
    const statuses = await Promise.all(
      Array.from({ length: 100 }, (_, i) => post(syntheticAgent(i + 1)).then((r) => r.status)),
    );
    expect(statuses.every((s) => s === 201)).toBe(true);
    cp.registry.cache.invalidate();
    const reads = cp.store.reads;
    const queries = [
      'limit=20',
      'tags=ml*&limit=20',
      'format=compact&limit=50',
      'format=xml&limit=5',
      'reasoner=*research*&include_input_schema=true&limit=10',
    ];
    const results = await Promise.all(
      Array.from({ length: 1000 }, (_, i) =>
        fetch(`${url}${API}?${queries[i % queries.length]}`).then(async (r) => ({
          status: r.status,
          size: (await r.text()).length,
        })),
      ),
    );
    expect(results.filter((r) => r.status !== 200)).toEqual([]);
    expect(cp.store.reads - reads).toBe(1);
  });

  it('scenario 4: pages through 1200 agents, each exactly once', async () => {
    const post = (m: object) =>
      fetch(`${url}/api/v1/agents`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(m),
      });
    for (let start = 101; start <= 1200; start += 100) {
      await Promise.all(Array.from({ length: 100 }, (_, i) => post(syntheticAgent(start + i, { capabilities: 4 }))));
    }
    const expected = (await get('limit=0')).json.total_agents;
    expect(expected).toBeGreaterThanOrEqual(1201);
    const seen: string[] = [];
    let offset = 0;
    for (;;) {
      const page = (await get(`limit=500&offset=${offset}&format=json`)).json;
      expect(page.total_agents).toBe(expected);
      seen.push(...page.capabilities.map((a: any) => a.agent_id));
      if (!page.pagination.has_more) break;
      offset += 500;
    }
    expect(seen).toHaveLength(expected);
    expect(new Set(seen).size).toBe(expected);
    expect(seen).toEqual([...seen].sort());
    expect(seen).toContain(syntheticAgentId(1200));
    expect((await get('limit=501')).status).toBe(400);
  });
});

describe('worker registration lifecycle', () => {
  it('a worker without a control plane keeps trying, registers once one is up, and deregisters at stop', async () => {
    const store = tempStorePath();
    const first = await buildControlPlane({ storePath: store, logLevel: 'silent', processMetrics: false });
    const url = await first.listen('127.0.0.1', 0);
    await first.close();
    const lines: string[] = [];
    const handle = startAgentRegistration({
      url,
      manifest: syntheticAgent(1, { capabilities: 2 }),
      heartbeatMs: 200,
      log: (l) => lines.push(l),
    });
    expect(await handle.firstAttempt).toBe(false);
    expect(lines.join('\n')).toMatch(/not reachable/);

    const port = Number(new URL(url).port);
    const second = await buildControlPlane({ storePath: store, logLevel: 'silent', processMetrics: false });
    try {
      await second.listen('127.0.0.1', port);
      await waitLong(async () => (handle.isRegistered() ? true : undefined), 'registration', 10_000);
      expect((await second.app.inject({ url: `${API}?agent=agent-0001` })).json().total_agents).toBe(1);
      await handle.stop();
      expect((await second.app.inject({ url: `${API}?agent=agent-0001` })).json().total_agents).toBe(0);
    } finally {
      await handle.stop();
      await second.close();
    }
  });

  it('the real worker process registers at start, runs what is executed, deregisters at shutdown', async () => {
    const namespace = `cp-test-${randomUUID().slice(0, 8)}`;
    const connection = await Connection.connect({ address: inject('temporalAddress') });
    await connection.workflowService.registerNamespace({
      namespace,
      workflowExecutionRetentionPeriod: msToTs('1 day'),
    });
    const h = await createHarness(); // only for its stand-in
    const cp = await buildControlPlane({
      storePath: tempStorePath(),
      temporal: lazyTemporal({ address: inject('temporalAddress') }),
      logLevel: 'silent',
      processMetrics: false,
    });
    const url = await cp.listen('127.0.0.1', 0);
    let worker: ChildProcess | undefined;
    try {
      worker = spawn(path.join(ROOT, 'node_modules', '.bin', 'tsx'), ['workers/worker.ts'], {
        cwd: ROOT,
        env: {
          PATH: process.env.PATH,
          HOME: process.env.HOME,
          TEMPORAL_ADDRESS: inject('temporalAddress'),
          TEMPORAL_NAMESPACE: namespace,
          AGENT_FLOWS_MODEL: 'standin',
          GOOGLE_GEMINI_BASE_URL: h.standin.url,
          WORKER_METRICS_PORT: '0',
          WORKFLOW_BUNDLE: inject('workflowBundlePath'),
          LOG_LEVEL: 'warn',
          CONTROL_PLANE_URL: url,
          CONTROL_PLANE_AGENT_ID: 'agent-flows-proc',
          CONTROL_PLANE_HEARTBEAT_MS: '1000',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      });
      const output: string[] = [];
      worker.stdout!.on('data', (d) => output.push(String(d)));
      worker.stderr!.on('data', (d) => output.push(String(d)));
      const listed = await waitLong(
        async () => {
          await cp.registry.checkHealth();
          const body = (await cp.app.inject({ url: `${API}?agent=agent-flows-proc&health_status=active` })).json();
          return body.total_agents === 1 ? body : undefined;
        },
        `the worker to register (output: ${output.join('')})`,
      );
      expect(listed.capabilities[0].reasoners.map((r: any) => r.id)).toEqual(flows.map((f) => f.type));
      expect(listed.capabilities[0].base_url).toContain(`/${namespace}/agent-flows`);

      const res = await fetch(`${url}/api/v1/execute/agent-flows-proc:platformCheck?wait=1&timeout=60`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ input: { topic: 'battery' } }),
      });
      const body = (await res.json()) as any;
      expect(body).toMatchObject({ status: 'completed', namespace, task_queue: 'agent-flows' });
      const client = new Client({ connection, namespace });
      expect((await client.workflow.getHandle(body.workflow_id).describe()).status.name).toBe('COMPLETED');

      const exited = new Promise<number | null>((r) => worker!.once('exit', r));
      process.kill(worker.pid!, 'SIGTERM');
      expect(await exited).toBe(0);
      expect((await cp.app.inject({ url: `${API}?agent=agent-flows-proc` })).json().total_agents).toBe(0);
      expect(logLines(output.join(''))).toContainEqual(
        expect.objectContaining({ component: 'worker', message: 'deregistered agent', agentId: 'agent-flows-proc' }),
      );
    } finally {
      if (worker?.pid) {
        try {
          process.kill(-worker.pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      await cp.close();
      await h.close();
      await connection.close();
    }
  }, 150_000);
});
