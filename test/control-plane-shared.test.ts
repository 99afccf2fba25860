/**
 * Three control-plane instances sharing one registry (the `agentRegistry` workflow on Temporal):
 * two in this process, one a real `npm run control-plane` process that is SIGKILLed. A
 * (de)registration on one shows on the others within the poll interval, far inside the 30 s
 * cache TTL; killing an instance loses nothing; ownership holds across instances.
 */
import { NativeConnection } from '@temporalio/worker';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { AGENT_REGISTRY_WORKFLOW, registryAgentQuery, registryAgentsQuery } from '../contracts/agent-registry';
import { agentRegistrationSchema } from '../contracts/capabilities';
import { buildControlPlane, type ControlPlane } from '../server/app';
import { toStoredManifest } from '../server/registry-store';
import { registrySigner } from '../server/registry-signer';
import { SharedRegistryStore, shardOf, shardWorkflowId } from '../server/shared-registry-store';
import { lazyTemporal } from '../server/temporal';
import { opsAgent, researchAgent, tempStorePath, visionAgent } from './control-plane-fixtures';
import { createHarness, recordHistory, type Harness } from './helpers/harness';
import { logLines } from './helpers/log-lines';
import { waitFor } from './helpers/wait';
import { createFlowWorker } from '../workers/worker';

const ROOT = path.resolve(__dirname, '..');
const API = '/api/v1/discovery/capabilities';
const POLL_MS = 200;
const SHARDS = 4;
/** The secret the instances share: the registry accepts only changes signed with it. */
const REGISTRY_KEY = `registry-key-${randomUUID()}`;
/** The discovery cache TTL every instance keeps: visibility must come from invalidation, not expiry. */
const CACHE_TTL_MS = 30_000;

interface Instance {
  url: string;
  close(): Promise<void>;
}

let h: Harness;
const registryId = `agent-registry-test-${randomUUID().slice(0, 8)}`;
const instances: ControlPlane[] = [];
let child: ChildProcess | undefined;

async function inProcess(): Promise<Instance> {
  const cp = await buildControlPlane({
    storePath: tempStorePath(),
    temporal: lazyTemporal({ address: inject('temporalAddress') }),
    sharedRegistry: {
      workflowId: registryId,
      shards: SHARDS,
      taskQueue: h.taskQueue,
      pollMs: POLL_MS,
      key: REGISTRY_KEY,
    },
    cacheTtlMs: CACHE_TTL_MS,
    healthCheckMs: 0,
    logLevel: 'silent',
    processMetrics: false,
  });
  instances.push(cp);
  const url = await cp.listen('127.0.0.1', 0);
  return { url, close: () => cp.close() };
}

/** A separate control-plane process, as deployed: `node workers/launch.cjs server/main.ts`. */
async function separateProcess(): Promise<Instance & { kill(): Promise<void> }> {
  const proc = spawn(process.execPath, [path.join(ROOT, 'workers/launch.cjs'), 'server/main.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TEMPORAL_NAMESPACE: 'default',
      CONTROL_PLANE_HOST: '127.0.0.1',
      CONTROL_PLANE_PORT: '0',
      CONTROL_PLANE_STORE: tempStorePath(),
      CONTROL_PLANE_REGISTRY: 'temporal',
      CONTROL_PLANE_REGISTRY_ID: registryId,
      CONTROL_PLANE_REGISTRY_TASK_QUEUE: h.taskQueue,
      CONTROL_PLANE_REGISTRY_POLL_MS: String(POLL_MS),
      CONTROL_PLANE_REGISTRY_SHARDS: String(SHARDS),
      CONTROL_PLANE_REGISTRY_KEY: REGISTRY_KEY,
      CONTROL_PLANE_CACHE_TTL_MS: String(CACHE_TTL_MS),
      LOG_LEVEL: 'error',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child = proc;
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`control plane did not start: ${output.slice(-2000)}`)), 120_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const started = logLines(output).find(
        (l) => l.component === 'control-plane' && l.message === 'control plane started',
      );
      if (started) {
        clearTimeout(timer);
        resolve(String(started.url));
      }
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
    proc.once('exit', (code) => reject(new Error(`control plane exited (${code}): ${output.slice(-2000)}`)));
  });
  const kill = async () => {
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise((r) => proc.once('exit', r));
    proc.kill('SIGKILL');
    await exited;
  };
  return { url, close: kill, kill };
}

const agentIds = async (url: string): Promise<string[]> => {
  const res = await fetch(`${url}${API}?limit=100`);
  expect(res.status).toBe(200);
  const body = (await res.json()) as { capabilities: Array<{ agent_id: string }> };
  return body.capabilities.map((a) => a.agent_id).sort();
};

const register = async (url: string, manifest: object, headers: Record<string, string> = {}) => {
  const res = await fetch(`${url}/api/v1/agents`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(manifest),
  });
  return { status: res.status, json: (await res.json()) as any };
};

/** Waits until `probe` holds; returns how long it took. */
async function within(ms: number, what: string, probe: () => Promise<boolean>): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (await probe()) return Date.now() - started;
    if (Date.now() - started > ms) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

let a: Instance;
let b: Instance;
let c: Instance & { kill(): Promise<void> };

beforeAll(async () => {
  h = await createHarness();
  [a, b] = [await inProcess(), await inProcess()];
  c = await separateProcess();
}, 180_000);

afterAll(async () => {
  await Promise.allSettled(instances.map((cp) => cp.close()));
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await Promise.allSettled(
    Array.from({ length: SHARDS }, (_, i) =>
      h?.client.workflow.getHandle(shardWorkflowId(registryId, i)).terminate('test over'),
    ),
  );
  await h?.close();
});

describe('three control-plane instances on one shared registry', () => {
  it('a registration on one instance is visible on the others well inside the cache TTL', async () => {
    // Warm every instance's cache first: only a cross-instance invalidation can make them see the change.
    for (const i of [a, b, c]) expect(await agentIds(i.url)).toEqual([]);
    expect((await register(a.url, researchAgent)).status).toBe(201);
    expect(await agentIds(a.url)).toEqual([researchAgent.agent_id]);
    for (const other of [b, c]) {
      const took = await within(CACHE_TTL_MS / 3, 'registration seen on another instance', async () =>
        (await agentIds(other.url)).includes(researchAgent.agent_id),
      );
      expect(took).toBeLessThan(CACHE_TTL_MS / 3);
    }
    // A heartbeat to another instance than the one registered with is known there.
    const beat = await fetch(`${b.url}/api/v1/agents/${researchAgent.agent_id}/heartbeat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({}),
    });
    expect(beat.status).toBe(200);
  }, 60_000);

  it('a health report sent to one instance shows on the others', async () => {
    const healthOn = async (url: string) => {
      const res = await fetch(`${url}${API}?agent=${researchAgent.agent_id}`);
      return ((await res.json()) as { capabilities: Array<{ health_status: string }> }).capabilities[0]?.health_status;
    };
    for (const i of [a, b]) expect(await healthOn(i.url)).toBeDefined();
    const before = await healthOn(a.url);
    expect(before).not.toBe('degraded');
    const beat = await fetch(`${c.url}/api/v1/agents/${researchAgent.agent_id}/heartbeat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ health_status: 'degraded' }),
    });
    expect(beat.status).toBe(200);
    for (const other of [a, b])
      await within(
        10_000,
        'reported health on another instance',
        async () => (await healthOn(other.url)) === 'degraded',
      );
  }, 60_000);

  it('a deregistration on one instance is seen on the others', async () => {
    expect((await register(b.url, opsAgent)).status).toBe(201);
    await within(10_000, 'ops agent on a', async () => (await agentIds(a.url)).includes(opsAgent.agent_id));
    const res = await fetch(`${c.url}/api/v1/agents/${opsAgent.agent_id}`, { method: 'DELETE' });
    expect(res.status).toBe(200);
    for (const other of [a, b]) {
      await within(10_000, 'deregistration seen', async () => !(await agentIds(other.url)).includes(opsAgent.agent_id));
    }
  }, 60_000);

  it('an agent owned through one instance cannot be moved through another', async () => {
    const owned = { ...visionAgent, agent_id: 'agent-owned-shared', task_queue: 'owned-queue', instance_id: 'owner-1' };
    expect((await register(a.url, owned, { 'x-agent-secret': 'owner-secret-1234567890' })).status).toBe(201);
    await within(10_000, 'owned agent on b', async () => (await agentIds(b.url)).includes(owned.agent_id));
    const hijack = await register(b.url, { ...owned, task_queue: 'attacker-queue', instance_id: 'attacker' });
    expect(hijack.status).toBe(403);
  }, 60_000);

  it('killing an instance right after it acknowledged a registration loses nothing', async () => {
    expect((await register(c.url, visionAgent)).status).toBe(201);
    await c.kill();
    for (const other of [a, b]) {
      await within(10_000, 'registration made on the killed instance', async () =>
        (await agentIds(other.url)).includes(visionAgent.agent_id),
      );
    }
    // A fresh instance (as after replacing the dead one) starts from the same registrations.
    const d = await inProcess();
    expect(await agentIds(d.url)).toEqual([researchAgent.agent_id, visionAgent.agent_id, 'agent-owned-shared'].sort());
    // And the registry itself holds them: no instance keeps the only copy.
    const shards = Array.from({ length: SHARDS }, (_, i) =>
      h.client.workflow.getHandle(shardWorkflowId(registryId, i)),
    );
    const held = (await Promise.all(shards.map((s) => s.query(registryAgentsQuery)))).flatMap((s) => s.agents);
    expect(held.map((x) => x.agent_id).sort()).toEqual(await agentIds(d.url));
    for (const id of held.map((x) => x.agent_id)) {
      const owner = await shards[shardOf(id, SHARDS)].query(registryAgentQuery, id);
      expect(owner?.agent_id).toBe(id);
    }
    expect((await shards[0].describe()).type).toBe(AGENT_REGISTRY_WORKFLOW);
  }, 60_000);
});

describe('a control plane started before any worker runs the registry', () => {
  it('starts, and serves registrations once a worker runs the registry (npm start starts the worker after it)', async () => {
    const id = `agent-registry-late-${randomUUID().slice(0, 8)}`;
    const queue = `registry-late-${randomUUID().slice(0, 8)}`;
    // Before: opening read the registry, a query no worker answered, and the control plane never started.
    const late = await buildControlPlane({
      storePath: tempStorePath(),
      temporal: lazyTemporal({ address: inject('temporalAddress') }),
      sharedRegistry: { workflowId: id, shards: 2, taskQueue: queue, pollMs: POLL_MS, key: REGISTRY_KEY },
      cacheTtlMs: CACHE_TTL_MS,
      healthCheckMs: 0,
      logLevel: 'silent',
      processMetrics: false,
    });
    instances.push(late);
    const url = await late.listen('127.0.0.1', 0);
    const connection = await NativeConnection.connect({ address: inject('temporalAddress') });
    const worker = await createFlowWorker({
      connection,
      backends: h.backends,
      taskQueue: queue,
      workflowBundle: { codePath: inject('workflowBundlePath') },
    });
    const running = worker.run();
    try {
      await waitFor(
        async () => ((await register(url, researchAgent)).status === 201 ? true : undefined),
        'a registration once a worker runs the registry',
        { retryErrors: true },
      );
      expect(await agentIds(url)).toEqual([researchAgent.agent_id]);
    } finally {
      await late.close();
      await Promise.allSettled(
        [0, 1].map((i) => h.client.workflow.getHandle(shardWorkflowId(id, i)).terminate('test over')),
      );
      worker.shutdown();
      await running;
      await connection.close();
    }
  }, 120_000);
});

describe('the registry workflow', () => {
  it('continues as new before its history grows large, keeping every registration', async () => {
    const id = `agent-registry-can-${randomUUID().slice(0, 8)}`;
    const first = await h.client.workflow.start(AGENT_REGISTRY_WORKFLOW, {
      workflowId: shardWorkflowId(id, 0),
      taskQueue: h.taskQueue,
      args: [{ maxHistoryEvents: 30, key: registrySigner(REGISTRY_KEY).publicKey }],
    });
    const store = await SharedRegistryStore.open({
      client: h.client,
      workflowId: id,
      shards: 1,
      taskQueue: h.taskQueue,
      pollMs: 60_000,
      key: REGISTRY_KEY,
    });
    try {
      const at = Date.now();
      for (let i = 0; i < 25; i++) {
        const manifest = toStoredManifest(agentRegistrationSchema.parse({ ...opsAgent, agent_id: `agent-can-${i}` }));
        expect((await store.put(manifest, 'i-1', at + i)).created).toBe(true);
      }
      expect(await store.beat('agent-can-3', 'i-1', at + 100)).toBe(true);
      // As in the local journal, a heartbeat never adds an instance the agent does not have.
      expect(await store.beat('agent-can-3', 'i-2', at + 100)).toBe(false);
      expect(await store.beat('agent-can-unknown', 'i-2', at + 100)).toBe(false);
      expect(await store.remove('agent-can-0', null, at + 200)).toEqual({ removed: true, remainingInstances: 0 });
      const handle = h.client.workflow.getHandle(shardWorkflowId(id, 0));
      const latest = await handle.describe();
      expect(latest.runId).not.toBe(first.firstExecutionRunId);
      const agents = await store.listAgents();
      expect(agents.map((a) => a.agent_id).sort()).toEqual(
        Array.from({ length: 24 }, (_, i) => `agent-can-${i + 1}`).sort(),
      );
      expect(agents.find((a) => a.agent_id === 'agent-can-3')?.instances).toEqual({ 'i-1': at + 100 });
      // Signed changes in both runs: the replay corpus keeps them (RECORD_REPLAY=1).
      await recordHistory(
        h.client.workflow.getHandle(handle.workflowId, first.firstExecutionRunId),
        'agent-registry-signed-updates-continued-as-new',
      );
      await recordHistory(handle, 'agent-registry-signed-updates-after-continue-as-new');
    } finally {
      await store.close();
      await h.client.workflow
        .getHandle(shardWorkflowId(id, 0))
        .terminate('test over')
        .catch(() => undefined);
    }
  }, 120_000);
});
