/**
 * The discovery cache applies registrations, health changes and revalidations to its snapshot
 * without reading storage: these cases (found by attacking that change) check what follows the
 * snapshot stays right — journal compaction, polled task queues, gauges, failed writes, health
 * reports racing a reload, and the memory of patched-in agents.
 */
import { readFileSync } from 'node:fs';
import v8 from 'node:v8';
import vm from 'node:vm';
import { afterEach, expect, it, vi } from 'vitest';
import type { JournalRegistryStore } from '../server/registry-store';
import type { TemporalAccess } from '../server/temporal';
import { researchAgent, testControlPlane, visionAgent, type TestControlPlane } from './control-plane-fixtures';

const API = '/api/v1/discovery/capabilities';
const FULL = `${API}?include_input_schema=true&include_examples=true&limit=500`;
let planes: TestControlPlane[] = [];
afterEach(async () => {
  for (const cp of planes) await cp.close().catch(() => undefined);
  planes = [];
});
const make = async (options: Parameters<typeof testControlPlane>[0] = {}) => {
  const cp = await testControlPlane({ logLevel: 'silent', ...options });
  planes.push(cp);
  return cp;
};
const fakeTemporal = () => {
  const pollers = vi.fn(async (_namespace: string, _queue: string) => ({ workflow: 1, activity: 1 }));
  const unused = async () => {
    throw new Error('unused');
  };
  const temporal = {
    client: unused,
    runner: unused,
    defaultNamespace: () => 'default',
    pollers,
    close: async () => {},
  };
  return { temporal: temporal as unknown as TemporalAccess, pollers };
};
/** The next listAgents() reads the journal, then waits for release(). */
const holdNextRead = (cp: TestControlPlane) => {
  const store = cp.store as JournalRegistryStore;
  const real = store.listAgents.bind(store);
  let release!: () => void;
  let read!: () => void;
  let armed = true;
  const held = new Promise<void>((r) => (release = r));
  const hasRead = new Promise<void>((r) => (read = r));
  store.listAgents = async () => {
    const agents = await real();
    if (armed) {
      armed = false;
      read();
      await held;
    }
    return agents;
  };
  return { hasRead, release };
};
const metric = async (cp: TestControlPlane, name: string) =>
  Number(
    (await cp.app.inject({ url: '/metrics' })).body
      .split('\n')
      .find((l) => l.startsWith(`${name} `))
      ?.split(' ')[1],
  );
const freshRead = (cp: TestControlPlane, url = FULL) => (cp.registry.cache.invalidate(), cp.get(url));
const post = (cp: TestControlPlane, url: string, payload?: object) => cp.app.inject({ method: 'POST', url, payload });

it('heartbeats alone still compact the journal', async () => {
  const cp = await make();
  await cp.register({ ...researchAgent });
  for (let i = 0; i < 1_200; i++) {
    cp.clock.advance(1_000);
    expect((await post(cp, `/api/v1/agents/${researchAgent.agent_id}/heartbeat`)).statusCode).toBe(200);
    if (i % 31 === 0) await cp.get(API);
  }
  await cp.close(); // drains the writer queue, where compaction runs
  expect(readFileSync(cp.storePath, 'utf8').split('\n').filter(Boolean).length).toBeLessThan(1_000);
}, 60_000);

it('task queues of deregistered agents are no longer polled', async () => {
  const { temporal, pollers } = fakeTemporal();
  const cp = await make({ temporal });
  await cp.get(API);
  for (let i = 0; i < 20; i++) {
    await cp.register({ ...visionAgent, agent_id: `churn-${i}`, task_queue: `queue-${i}` });
    await cp.app.inject({ method: 'DELETE', url: `/api/v1/agents/churn-${i}` });
  }
  await cp.registry.checkHealth();
  cp.clock.advance(31_000);
  await cp.get(API);
  pollers.mockClear();
  await cp.registry.checkHealth();
  expect(pollers.mock.calls.map((c) => c[1])).toEqual([]);
});

it('a reload that is discarded leaves the gauges and the polled queues alone', async () => {
  const { temporal, pollers } = fakeTemporal();
  const cp = await make({ temporal });
  const { hasRead, release } = holdNextRead(cp);
  const first = cp.get(API); // reads the empty journal, then waits
  await hasRead;
  expect((await cp.register({ ...visionAgent, task_queue: 'q-vision' })).status).toBe(201);
  await cp.get(API); // a second load sees the agent and is kept
  release();
  await first; // the first load is discarded
  cp.clock.advance(31_000);
  expect((await cp.get(API)).json.total_agents).toBe(1);
  expect(await metric(cp, 'agentfield_registered_agents')).toBe(1);
  pollers.mockClear();
  await cp.registry.checkHealth();
  expect(pollers.mock.calls.map((c) => c[1])).toContain('q-vision');
});

it('the cache size gauge is the same after a patch or a revalidation as after a storage read', async () => {
  const cp = await make();
  await cp.get(FULL);
  await cp.register({ ...researchAgent });
  await cp.get(FULL);
  const patched = [cp.registry.cache.peek()!.bytes, await metric(cp, 'agentfield_discovery_cache_size_bytes')];
  await freshRead(cp);
  expect(patched).toEqual([cp.registry.cache.peek()!.bytes, await metric(cp, 'agentfield_discovery_cache_size_bytes')]);
  cp.clock.advance(40_000); // the heartbeat times out: active → inactive, a longer JSON head
  await cp.get(FULL); // revalidated
  const revalidated = cp.registry.cache.peek()!.bytes;
  await freshRead(cp);
  expect(revalidated).toBe(cp.registry.cache.peek()!.bytes);
});

it('a line written but not synced (fsync failed) is read at the next expiry', async () => {
  const cp = await make();
  await cp.get(FULL);
  const handle = (cp.store as any).handle;
  const datasync = handle.datasync.bind(handle);
  handle.datasync = async () => {
    handle.datasync = datasync;
    throw new Error('EIO: i/o error, fsync');
  };
  expect((await post(cp, '/api/v1/agents', researchAgent)).statusCode).toBe(500);
  cp.clock.advance(31_000);
  const cached = await cp.get(FULL);
  const read = await freshRead(cp);
  expect(read.json.total_agents).toBe(1);
  expect(cached.json).toEqual(read.json);
});

it('a health report that arrives during a reload is not lost', async () => {
  const first = await make();
  await first.register({ ...visionAgent }); // reports "degraded"
  await first.close();
  const cp = await make({ storePath: first.storePath }); // the journal is compacted at open
  const beat = (health_status: string) =>
    post(cp, `/api/v1/agents/${visionAgent.agent_id}/heartbeat`, { health_status });
  await cp.get(FULL);
  const reads = cp.store.reads;
  await beat('degraded'); // the same report as before: nothing to read again
  cp.clock.advance(31_000);
  await cp.get(FULL);
  expect(cp.store.reads).toBe(reads);
  cp.clock.advance(31_000);
  cp.registry.cache.invalidate();
  const { hasRead, release } = holdNextRead(cp);
  const reload = cp.get(FULL);
  await hasRead;
  expect((await beat('inactive')).statusCode).toBe(200);
  release();
  await reload;
  const cached = await cp.get(FULL);
  expect(cached.json.capabilities[0].health_status).toBe('inactive');
  expect(cached.json.capabilities[0].health_status).toBe((await freshRead(cp)).json.capabilities[0].health_status);
});

it('agents patched in share schema text as a storage read would', async () => {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;
  const heap = () => (gc(), gc(), process.memoryUsage().heapUsed);
  const cp = await make();
  await cp.get(API);
  const properties = Object.fromEntries(
    Array.from({ length: 400 }, (_, i) => [`f_${i}`, { type: 'string', description: `Field ${i} of the schema` }]),
  );
  const input_schema = { type: 'object', properties };
  for (let i = 0; i < 300; i++)
    await cp.register({
      agent_id: `fleet-${i}`,
      base_url: 'http://fleet:8080',
      version: '1.0.0',
      reasoners: [{ id: 'work', tags: ['fleet'], input_schema }],
      skills: [],
    });
  await cp.get(API);
  const patched = heap();
  await freshRead(cp, API);
  // Each agent's own copy of the 40 kB schema would be ~8-10 MB more.
  expect((patched - heap()) / 1e6).toBeLessThan(2);
}, 60_000);
