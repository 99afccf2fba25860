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
 *
 *  - Every change is signed (server/registry-signer.ts): the workflows accept no other, since
 *    anyone who reaches the Temporal frontend can send them Updates. Every answer names the key
 *    its run checks changes with; an answer under another key (a run someone else started, or one
 *    from before changes were signed) is not used, and that run is replaced by one under this
 *    instance's key. Agents in a replaced shard re-register with their next heartbeat.
 *
 *  - Opening needs the Temporal server only, not a worker: `npm start` starts the control plane
 *    before the worker that runs the registry, and a deployment may start them in any order.
 *    Reads wait for (or fail until) a worker runs the registry.
 */
import type { Client, WorkflowHandle } from '@temporalio/client';
import type { UpdateDefinition } from '@temporalio/common';
import {
  AGENT_REGISTRY_WORKFLOW,
  registryAgentCheckedQuery,
  registryAgentsQuery,
  registryBeatsUpdate,
  registryHeartbeatsQuery,
  registryPutUpdate,
  registryRemoveUpdate,
  registryVersionQuery,
  type AgentOwner,
  type RegistryAnswerKey,
  type RegistryBeat,
  type RegistryOperation,
  type SignedUpdate,
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
import { registrySigner, type RegistrySigner } from './registry-signer';

const HEARTBEAT_BATCH_MS = 100;
/** A shard answering under another key is replaced at most this often (two misconfigured fleets would otherwise fight). */
const RESET_INTERVAL_MS = 30_000;
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
  /**
   * The secret every control-plane instance of the deployment shares (CONTROL_PLANE_REGISTRY_KEY):
   * changes are signed with a key derived from it.
   */
  key: string;
  /** Told when polling starts failing (once per run of failures; the instance keeps serving its cache meanwhile). */
  onPollError?: (err: unknown) => void;
  /** Told when a shard answers under another key and is replaced. */
  onDistrust?: (detail: { workflowId: string; runId: string; key: string | null }) => void;
}

/** A shard that answered under another key than this instance's: its answer is not used. */
export class UntrustedRegistryShard extends Error {
  constructor(readonly workflowId: string) {
    super(
      `registry shard ${workflowId} answered under another signing key than this control plane's; ` +
        'it is being replaced (agents re-register with their next heartbeat)',
    );
    this.name = 'UntrustedRegistryShard';
  }
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
  private shardVersions: Array<string | undefined> = [];
  private shardAgents: StoredAgent[][] = [];
  private beatsSeen = '';
  private heartbeatsRefreshedAt = 0;
  private poller: NodeJS.Timeout | undefined;
  private polling = false;
  private pendingBeats: Array<{ beat: RegistryBeat; done: (known: boolean) => void; fail: (e: unknown) => void }> = [];
  private beatTimer: NodeJS.Timeout | undefined;
  private closed = false;
  private pollFailing = false;
  private readonly signer: RegistrySigner;
  private readonly namespace: string;
  /** Per shard: when this instance last replaced it. */
  private readonly resets = new Map<number, number>();
  /** Per shard: the execution chain its trusted run belongs to (changes are signed for it), once known. */
  private readonly chains: Array<string | undefined> = [];
  private readonly resetting = new Map<number, Promise<void>>();
  /** The poll under way, if any. */
  private polled: Promise<void> | undefined;

  private constructor(private readonly options: SharedRegistryOptions) {
    super();
    this.signer = registrySigner(options.key);
    this.namespace = options.client.options.namespace;
    this.handles = Array.from({ length: options.shards }, (_, i) =>
      options.client.workflow.getHandle(shardWorkflowId(options.workflowId, i)),
    );
  }

  /** The public key this instance signs with (the registry workflows hold it). */
  get publicKey(): string {
    return this.signer.publicKey;
  }

  private shardIndex(agentId: string): number {
    return shardOf(agentId, this.handles.length);
  }

  private handleOf(agentId: string): WorkflowHandle {
    return this.handles[this.shardIndex(agentId)];
  }

  /**
   * Starts the registry workflows no instance has started yet, and polls them. Reads nothing:
   * reading needs a worker running the registry, which may start after the control plane.
   */
  static async open(options: SharedRegistryOptions): Promise<SharedRegistryStore> {
    const store = new SharedRegistryStore(options);
    await store.ensureStarted();
    store.poller = setInterval(() => {
      store.polled ??= store.poll().finally(() => (store.polled = undefined));
    }, options.pollMs);
    store.poller.unref();
    return store;
  }

  onExternalChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  async listAgents(): Promise<StoredAgent[]> {
    this.reads += 1;
    const versions = await Promise.all(this.handles.map((h) => h.query(registryVersionQuery)));
    await this.refreshShards(versions.map((v, i) => this.versionOf(i, v)));
    return this.shardAgents.flat();
  }

  async fresh(agentId: string): Promise<Readonly<StoreIndexEntry> | undefined> {
    const shard = this.shardIndex(agentId);
    const answer = await this.handles[shard].query(registryAgentCheckedQuery, agentId);
    // Ownership is decided on this answer: one under another key decides nothing.
    if (!this.trusted(shard, answer)) throw new UntrustedRegistryShard(this.handles[shard].workflowId);
    const agent = answer.agent;
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
    const result = await this.update(this.shardIndex(manifest.agent_id), registryPutUpdate, {
      op: 'put',
      arg: { manifest, instance, at, ...(owner ? { owner } : {}), ...(secret ? { secret } : {}) },
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
    const result = await this.update(this.shardIndex(agentId), registryRemoveUpdate, {
      op: 'remove',
      arg: { id: agentId, instance, at },
    });
    if (result.agent) this.index.set(agentId, indexEntry(result.agent));
    else this.index.delete(agentId);
    return { removed: result.removed, remainingInstances: result.remainingInstances };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.poller) clearInterval(this.poller);
    await this.flushBeats();
    // A poll or a shard's replacement already under way still calls Temporal, on the connection
    // the caller closes next: the client's retry of a call then fails with "Channel has been shut
    // down" in a timer, where nobody catches it. So they finish first.
    await Promise.allSettled([this.polled, ...this.resetting.values()]);
  }

  // ---- internals ----

  private async ensureStarted(shards: number[] = this.handles.map((_, i) => i)): Promise<void> {
    await Promise.all(
      shards.map((i) =>
        this.options.client.workflow.start(AGENT_REGISTRY_WORKFLOW, {
          workflowId: this.handles[i].workflowId,
          taskQueue: this.options.taskQueue,
          // The public key only: the run checks changes with it, and it may be read by anyone.
          args: [{ key: this.signer.publicKey }],
          // Every instance calls this at start: the first one starts the registry, the rest join it.
          workflowIdConflictPolicy: 'USE_EXISTING',
        }),
      ),
    );
  }

  /**
   * A trusted answer's version, with the run that gave it: a run that replaced another (or a
   * reset) counts from its own start, and may reach the very number the old one had.
   */
  private versionOf(shard: number, answer: RegistryAnswerKey & { version: number }): string | undefined {
    return this.trusted(shard, answer) ? `${answer.runId}:${answer.version}` : undefined;
  }

  /** The answer, when its run checks changes with this instance's key; otherwise replaces that run. */
  private trusted<T extends RegistryAnswerKey>(shard: number, answer: T): T | undefined {
    if (answer.key === this.signer.publicKey) {
      this.chains[shard] = answer.chain;
      return answer;
    }
    void this.replace(shard, answer);
    return undefined;
  }

  /**
   * Terminates the run that answered under another key (that run only: another instance may
   * already have replaced it) and starts one under this instance's key.
   */
  private replace(shard: number, answer: RegistryAnswerKey): Promise<void> {
    const running = this.resetting.get(shard);
    if (running) return running;
    if (this.closed || Date.now() - (this.resets.get(shard) ?? -Infinity) < RESET_INTERVAL_MS) return Promise.resolve();
    this.resets.set(shard, Date.now());
    this.chains[shard] = undefined;
    const workflowId = this.handles[shard].workflowId;
    this.options.onDistrust?.({ workflowId, runId: answer.runId, key: answer.key });
    const done = (async () => {
      await this.options.client.workflow
        .getHandle(workflowId, answer.runId)
        .terminate('answered under another signing key than the control planes')
        .catch(() => undefined);
      await this.ensureStarted([shard]).catch(() => undefined);
    })().finally(() => this.resetting.delete(shard));
    this.resetting.set(shard, done);
    return done;
  }

  private async update<Ret>(
    shard: number,
    definition: UpdateDefinition<Ret, [SignedUpdate]>,
    operation: RegistryOperation,
  ): Promise<Ret> {
    const handle = this.handles[shard];
    for (let attempt = 1; ; attempt++) {
      try {
        if (this.chains[shard] === undefined) await this.learnShard(shard);
        // Signed afresh for each attempt: a nonce is good for one change.
        const arg = this.signer.sign(operation, this.namespace, handle.workflowId, this.chains[shard] ?? '');
        return await handle.executeUpdate<Ret, [SignedUpdate]>(definition, { args: [arg] });
      } catch (err) {
        // The run may be closing for continue-as-new, (first use) not started yet, replaced, or
        // refusing this instance's key (started by someone else, or before changes were signed).
        if (attempt >= UPDATE_ATTEMPTS || this.closed) throw err;
        if (/not found|NotFound/i.test(String((err as Error)?.message)))
          await this.ensureStarted([shard]).catch(() => undefined);
        this.chains[shard] = undefined;
        await new Promise((r) => setTimeout(r, 50 * attempt));
      }
    }
  }

  /**
   * Asks the shard which key it checks with and which run chain it is: replaces it (and waits)
   * when the key is not this instance's, then asks the new run.
   */
  private async learnShard(shard: number): Promise<void> {
    const answer = await this.handles[shard].query(registryVersionQuery);
    if (this.trusted(shard, answer)) return;
    await this.replace(shard, answer);
    this.trusted(shard, await this.handles[shard].query(registryVersionQuery));
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
          const known = await this.update(this.handles.indexOf(handle), registryBeatsUpdate, {
            op: 'beats',
            arg: beats.map((b) => b.beat),
          });
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
  private async refreshShards(versions: Array<string | undefined>): Promise<boolean> {
    // A shard under another key (undefined here) counts as empty: none of its agents is served.
    const stale = versions.map((v, i) => (v !== this.shardVersions[i] ? i : -1)).filter((i) => i >= 0);
    if (!stale.length) return false;
    const fresh = await Promise.all(
      stale.map(async (i) => {
        if (versions[i] === undefined) return { version: undefined, agents: [] };
        const answer = await this.handles[i].query(registryAgentsQuery);
        const version = this.versionOf(i, answer);
        return version === undefined ? { version, agents: [] } : { version, agents: answer.agents };
      }),
    );
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
      this.pollFailing = false;
      if (await this.refreshShards(shards.map((s, i) => this.versionOf(i, s)))) {
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
      // Until a worker runs the registry (at start, say), every poll fails the same way: say it once.
      if (!this.pollFailing) this.options.onPollError?.(err);
      this.pollFailing = true;
    } finally {
      this.polling = false;
    }
  }
}
