/**
 * Registrations shared by every control-plane instance: kept by `agentRegistry` workflows
 * (flows/agent-registry/workflow.ts) on the Temporal cluster the workers already need.
 *
 *  - The agents are spread over CONTROL_PLANE_REGISTRY_SHARDS workflows by a hash of their id: a
 *    workflow's state travels whole in a query answer and a continue-as-new input, which Temporal
 *    caps (2 MB per payload by default), and 500 agents with 20 schema-rich capabilities each are
 *    ~12 MB of manifests. The default 32 shards keep each answer under Temporal's 512 KB warning
 *    size at 500 such agents and under 2 MB up to ~2,500; more agents need more shards.
 *
 *  - Writes are Updates: a registration or deregistration is acknowledged only once it is in the
 *    workflow's history, so killing any control-plane instance loses nothing.
 *  - A full read (cache miss) is one Query returning every agent.
 *  - Each instance polls a small version Query every CONTROL_PLANE_REGISTRY_POLL_MS. When another
 *    instance changed the registry, the version moved: this instance re-reads its index and drops
 *    its discovery cache. So a (de)registration made on one instance shows on the others within
 *    one poll interval (plus a query's round trip), not the 30 s cache TTL; on the instance that
 *    made it, at once.
 *  - Heartbeats are batched per instance (one Update per HEARTBEAT_BATCH_MS) and do not move the
 *    version; the others refresh last-heartbeat times from a small Query at most every few seconds.
 */
import type { Client, WorkflowHandle } from '@temporalio/client';
import type { UpdateDefinition } from '@temporalio/common';
import {
  AGENT_REGISTRY_WORKFLOW,
  registryAgentQuery,
  registryAgentsQuery,
  registryBeatsUpdate,
  registryHeartbeatsQuery,
  registryPutUpdate,
  registryRemoveUpdate,
  registryVersionQuery,
  type AgentOwner,
  type RegistryBeat,
  type StoredAgent,
  type StoredManifest,
} from '../flows/agent-registry/contract';
import type { HealthStatus } from '../contracts/capabilities';
import {
  IndexedRegistryStore,
  manifestDigest,
  type RegistryStore,
  type StoredPut,
  type StoredRemoval,
  type StoreIndexEntry,
} from './registry-store';

const HEARTBEAT_BATCH_MS = 100;
const HEARTBEAT_REFRESH_MS = 5000;
/** Updates that meet a run closing for continue-as-new are sent again, this many times. */
const UPDATE_ATTEMPTS = 4;

export interface SharedRegistryOptions {
  client: Client;
  /** Shard i is the workflow `<workflowId>-<i>`. */
  workflowId: string;
  /** How many registry workflows share the agents (fixed for a deployment: an agent's shard is a hash of its id). */
  shards: number;
  taskQueue: string;
  pollMs: number;
  /** Told when polling fails (the instance keeps serving its cache meanwhile). */
  onPollError?: (err: unknown) => void;
}

export const shardWorkflowId = (workflowId: string, shard: number) => `${workflowId}-${shard}`;

/** FNV-1a of the agent id: every instance puts an agent in the same shard. */
export function shardOf(agentId: string, shards: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < agentId.length; i++) hash = Math.imul(hash ^ agentId.charCodeAt(i), 0x01000193) >>> 0;
  return hash % shards;
}

function indexEntry(agent: StoredAgent): StoreIndexEntry {
  const { registered_at: _r, updated_at: _u, instances, owner, secrets, ...manifest } = agent;
  return {
    instances: new Map(Object.entries(instances)),
    task_queue: agent.task_queue,
    namespace: agent.namespace,
    owner,
    secrets: new Map(Object.entries(secrets ?? {})),
    digest: manifestDigest(manifest as StoredManifest),
    bytes: 0,
  };
}

export class SharedRegistryStore extends IndexedRegistryStore implements RegistryStore {
  reads = 0;
  private readonly listeners: Array<() => void> = [];
  private readonly handles: WorkflowHandle[];
  /** Per shard: the version its agents below were read at (-1: never), and those agents. */
  private shardVersions: number[] = [];
  private shardAgents: StoredAgent[][] = [];
  private beatsSeen = '';
  private heartbeatsRefreshedAt = 0;
  private poller: NodeJS.Timeout | undefined;
  private polling = false;
  private pendingBeats: Array<{ beat: RegistryBeat; done: (known: boolean) => void; fail: (e: unknown) => void }> = [];
  private beatTimer: NodeJS.Timeout | undefined;
  private closed = false;

  private constructor(private readonly options: SharedRegistryOptions) {
    super();
    this.handles = Array.from({ length: options.shards }, (_, i) =>
      options.client.workflow.getHandle(shardWorkflowId(options.workflowId, i)),
    );
  }

  private handleOf(agentId: string): WorkflowHandle {
    return this.handles[shardOf(agentId, this.handles.length)];
  }

  /** Starts the registry workflow if no instance has yet, reads it, and starts polling. */
  static async open(options: SharedRegistryOptions): Promise<SharedRegistryStore> {
    const store = new SharedRegistryStore(options);
    await store.ensureStarted();
    await store.listAgents();
    store.reads = 0;
    store.poller = setInterval(() => void store.poll(), options.pollMs);
    store.poller.unref();
    return store;
  }

  onExternalChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  async listAgents(): Promise<StoredAgent[]> {
    this.reads += 1;
    const versions = await Promise.all(this.handles.map((h) => h.query(registryVersionQuery)));
    await this.refreshShards(versions.map((v) => v.version));
    return this.shardAgents.flat();
  }

  async fresh(agentId: string): Promise<Readonly<StoreIndexEntry> | undefined> {
    const agent = await this.handleOf(agentId).query(registryAgentQuery, agentId);
    if (!agent) {
      this.index.delete(agentId);
      return undefined;
    }
    const entry = indexEntry(agent);
    this.index.set(agentId, entry);
    return entry;
  }

  async put(
    manifest: StoredManifest,
    instance: string,
    at: number,
    owner?: AgentOwner,
    secret?: string,
  ): Promise<StoredPut> {
    const result = await this.update(this.handleOf(manifest.agent_id), registryPutUpdate, {
      manifest,
      instance,
      at,
      ...(owner ? { owner } : {}),
      ...(secret ? { secret } : {}),
    });
    this.index.set(manifest.agent_id, indexEntry(result.agent));
    return { created: result.created, changed: result.changed };
  }

  beat(agentId: string, instance: string, at: number, reported?: HealthStatus | null): Promise<boolean> {
    if (this.closed) return Promise.reject(new Error('registry store is closed'));
    return new Promise<boolean>((done, fail) => {
      this.pendingBeats.push({
        beat: { id: agentId, instance, at, ...(reported !== undefined ? { reported } : {}) },
        done,
        fail,
      });
      this.beatTimer ??= setTimeout(() => void this.flushBeats(), HEARTBEAT_BATCH_MS);
    }).then((known) => {
      if (known) this.index.get(agentId)?.instances.set(instance, at);
      return known;
    });
  }

  async remove(agentId: string, instance: string | null, at: number): Promise<StoredRemoval> {
    const result = await this.update(this.handleOf(agentId), registryRemoveUpdate, { id: agentId, instance, at });
    if (result.agent) this.index.set(agentId, indexEntry(result.agent));
    else this.index.delete(agentId);
    return { removed: result.removed, remainingInstances: result.remainingInstances };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.poller) clearInterval(this.poller);
    await this.flushBeats();
  }

  // ---- internals ----

  private async ensureStarted(): Promise<void> {
    await Promise.all(
      this.handles.map((h) =>
        this.options.client.workflow.start(AGENT_REGISTRY_WORKFLOW, {
          workflowId: h.workflowId,
          taskQueue: this.options.taskQueue,
          args: [{}],
          // Every instance calls this at start: the first one starts the registry, the rest join it.
          workflowIdConflictPolicy: 'USE_EXISTING',
        }),
      ),
    );
  }

  private async update<Ret, Arg>(
    handle: WorkflowHandle,
    definition: UpdateDefinition<Ret, [Arg]>,
    arg: Arg,
  ): Promise<Ret> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await handle.executeUpdate<Ret, [Arg]>(definition, { args: [arg] });
      } catch (err) {
        // The run may be closing for continue-as-new, or (first use) not started yet.
        if (attempt >= UPDATE_ATTEMPTS || this.closed) throw err;
        if (/not found|NotFound/i.test(String((err as Error)?.message)))
          await this.ensureStarted().catch(() => undefined);
        await new Promise((r) => setTimeout(r, 50 * attempt));
      }
    }
  }

  private async flushBeats(): Promise<void> {
    if (this.beatTimer) clearTimeout(this.beatTimer);
    this.beatTimer = undefined;
    const batch = this.pendingBeats;
    this.pendingBeats = [];
    if (!batch.length) return;
    const byShard = new Map<WorkflowHandle, typeof batch>();
    for (const b of batch) {
      const handle = this.handleOf(b.beat.id);
      byShard.set(handle, [...(byShard.get(handle) ?? []), b]);
    }
    await Promise.all(
      [...byShard].map(async ([handle, beats]) => {
        try {
          const known = await this.update(
            handle,
            registryBeatsUpdate,
            beats.map((b) => b.beat),
          );
          beats.forEach((b, i) => b.done(known[i] ?? false));
        } catch (err) {
          for (const b of beats) b.fail(err);
        }
      }),
    );
  }

  /**
   * Re-reads the shards whose version moved (only those: a full read is megabytes with many
   * agents) and rebuilds the index from them. True when any had moved.
   */
  private async refreshShards(versions: number[]): Promise<boolean> {
    const stale = versions.map((v, i) => (v !== this.shardVersions[i] ? i : -1)).filter((i) => i >= 0);
    if (!stale.length) return false;
    const fresh = await Promise.all(stale.map((i) => this.handles[i].query(registryAgentsQuery)));
    // A poll and a cache miss may read one shard at once and the older answer may land last; the
    // next poll then sees the version differ and reads it again. (Keeping only the higher version
    // would never heal a shard that was reset to version 0.)
    stale.forEach((shard, k) => {
      for (const old of this.shardAgents[shard] ?? []) this.index.delete(old.agent_id);
      this.shardAgents[shard] = fresh[k].agents;
      this.shardVersions[shard] = fresh[k].version;
      for (const agent of fresh[k].agents) this.index.set(agent.agent_id, indexEntry(agent));
    });
    return true;
  }

  /** One version query; on a change by another instance, re-read the index and drop the caches. */
  private async poll(): Promise<void> {
    if (this.polling || this.closed) return;
    this.polling = true;
    try {
      const shards = await Promise.all(this.handles.map((h) => h.query(registryVersionQuery)));
      const beats = shards.map((s) => s.beats).join(',');
      if (await this.refreshShards(shards.map((s) => s.version))) {
        // Our own writes move the version too: that costs one extra read of the shard written to.
        for (const listener of this.listeners) listener();
      } else if (beats !== this.beatsSeen && Date.now() - this.heartbeatsRefreshedAt >= HEARTBEAT_REFRESH_MS) {
        for (const fresh of await Promise.all(this.handles.map((h) => h.query(registryHeartbeatsQuery)))) {
          for (const [id, instances] of Object.entries(fresh.instances)) {
            const entry = this.index.get(id);
            if (entry) for (const [instance, at] of Object.entries(instances)) entry.instances.set(instance, at);
          }
        }
        this.beatsSeen = beats;
        this.heartbeatsRefreshedAt = Date.now();
      }
    } catch (err) {
      this.options.onPollError?.(err);
    } finally {
      this.polling = false;
    }
  }
}
