/**
 * The discovery cache applies registrations, health changes and revalidations to its snapshot
 * without reading storage: these cases (found by two rounds of attacking that change) check that
 * what follows the snapshot stays right: journal compaction, polled task queues, gauges, failed
 * writes, health reports racing a reload, the memory of patched-in agents, odd instance names,
 * and reads that stay one at a time under a stream of changes.
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
/** Heap in use after full collections (memory tests). */
const heap = () => {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};

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
  const second = cp.get(API); // a second load, after the first: it sees the agent and is kept
  release();
  await first; // the first load is discarded
  expect((await second).json.total_agents).toBe(1);
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

it('an instance named __proto__ is kept alike by the index and the journal fold', async () => {
  const cp = await make();
  await cp.get(FULL);
  expect((await cp.register({ ...researchAgent, instance_id: '__proto__' })).status).toBe(201);
  // Removing an instance the agent does not have leaves the agent (index: one instance left).
  const del = await cp.app.inject({
    method: 'DELETE',
    url: `/api/v1/agents/${researchAgent.agent_id}?instance_id=gone`,
  });
  expect(del.json()).toMatchObject({ removed: false, remaining_instances: 1 });
  const cached = await cp.get(FULL);
  expect(cached.json.total_agents).toBe(1);
  expect((await freshRead(cp)).json).toEqual(cached.json);
});

it('a write that failed while a later registration was queued is still read at the next expiry', async () => {
  const cp = await make();
  await cp.get(FULL);
  const handle = (cp.store as any).handle;
  const datasync = handle.datasync.bind(handle);
  let failing!: () => void;
  const inSync = new Promise<void>((r) => (failing = r));
  handle.datasync = async () => {
    handle.datasync = datasync;
    failing();
    await new Promise((r) => setTimeout(r, 50));
    throw new Error('EIO: i/o error, fsync');
  };
  const first = post(cp, '/api/v1/agents', researchAgent); // written, then its fsync fails
  await inSync;
  const second = post(cp, '/api/v1/agents', visionAgent); // queued behind the failing batch
  expect((await first).statusCode).toBe(500);
  expect((await second).statusCode).toBe(201);
  cp.clock.advance(31_000);
  const cached = await cp.get(FULL); // revalidated: the store's count says nothing was missed
  const read = await freshRead(cp);
  expect(read.json.total_agents).toBe(2);
  expect(cached.json).toEqual(read.json);
});

it('re-registrations with new schemas do not keep every old schema in memory', async () => {
  const cp = await make();
  await cp.get(API);
  // One agent, re-registered 1,000 times with a different 20 kB schema: a worker rolling out
  // versions, or anyone allowed to register. No discovery request in between.
  for (let i = 0; i < 1_000; i++) {
    const properties = Object.fromEntries(
      Array.from({ length: 200 }, (_, f) => [`f_${f}`, { type: 'string', description: `v${i} field ${f} xx` }]),
    );
    await cp.register({
      ...researchAgent,
      version: `1.0.${i}`,
      reasoners: [{ id: 'work', tags: [`t${i}`], input_schema: { type: 'object', properties } }],
      skills: [],
    });
  }
  const patched = heap();
  await freshRead(cp, API); // the same registry, read from storage
  const read = heap();
  // One agent's data is ~13 kB; its 1,000 replaced schemas are ~13 MB.
  expect((patched - read) / 1e6).toBeLessThan(2);
}, 120_000);

it('task queues of agents deregistered while nothing is cached are no longer polled', async () => {
  const { temporal, pollers } = fakeTemporal();
  const cp = await make({ temporal }); // no discovery request yet: nothing cached
  for (let i = 0; i < 50; i++) {
    await cp.register({ ...visionAgent, agent_id: `churn-${i}`, task_queue: `queue-${i}` });
    await cp.app.inject({ method: 'DELETE', url: `/api/v1/agents/churn-${i}` });
  }
  await cp.registry.checkHealth();
  pollers.mockClear();
  await cp.registry.checkHealth();
  expect(pollers.mock.calls.map((c) => c[1])).toEqual([]);
});

it('a discarded reload does not set the cache size gauge', async () => {
  const cp = await make();
  await cp.register({ ...researchAgent });
  const { hasRead, release } = holdNextRead(cp);
  const first = cp.get(FULL); // reads one agent, then waits
  await hasRead;
  await cp.app.inject({ method: 'DELETE', url: `/api/v1/agents/${researchAgent.agent_id}` });
  const second = cp.get(FULL); // a second load (no agents), queued after the first read
  release();
  expect((await first).json.total_agents).toBe(1); // answered from the discarded read
  expect((await second).json.total_agents).toBe(0);
  const committed = cp.registry.cache.peek()!;
  expect(committed.agents).toHaveLength(0);
  expect(await metric(cp, 'agentfield_discovery_cache_size_bytes')).toBe(committed.bytes + committed.responses.size);
});

it('registrations during a slow storage read do not start one more full read each', async () => {
  const cp = await make();
  await cp.get(API);
  const store = cp.store as JournalRegistryStore;
  const real = store.listAgents.bind(store);
  let reading = 0;
  let most = 0;
  let release!: () => void;
  const slow = new Promise<void>((r) => (release = r));
  store.listAgents = async () => {
    reading += 1;
    most = Math.max(most, reading);
    try {
      const agents = await real();
      await slow; // storage is slow (a busy disk, or the shared store's query)
      return agents;
    } finally {
      reading -= 1;
    }
  };
  cp.registry.cache.invalidate();
  const waiting = [cp.get(API)];
  for (let i = 0; i < 20; i++) {
    await cp.register({ ...visionAgent, agent_id: `burst-${i}` });
    waiting.push(cp.get(API));
    await new Promise((r) => setTimeout(r, 5));
  }
  release();
  await Promise.all(waiting);
  expect(most).toBeLessThanOrEqual(2);
});

it('unchanged health reports during slow reads do not keep the cache from ever filling', async () => {
  const cp = await make();
  await cp.register({ ...visionAgent }); // reports "degraded"
  await cp.get(API);
  const store = cp.store as JournalRegistryStore;
  const real = store.listAgents.bind(store);
  store.listAgents = async () => {
    const agents = await real();
    await new Promise((r) => setTimeout(r, 30)); // a read slower than the heartbeat interval
    return agents;
  };
  // The agent's heartbeats always carry its (unchanged) report.
  let beating = true;
  const beats = (async () => {
    while (beating) {
      await post(cp, `/api/v1/agents/${visionAgent.agent_id}/heartbeat`, { health_status: 'degraded' });
      await new Promise((r) => setTimeout(r, 10));
    }
  })();
  cp.registry.cache.invalidate();
  const reads = store.reads;
  for (let i = 0; i < 10; i++) await cp.get(API);
  beating = false;
  await beats;
  // One read fills the cache; the next nine requests are hits.
  expect(store.reads - reads).toBeLessThanOrEqual(2);
});
