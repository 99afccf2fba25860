/**
 * The agent registry: registrations go to the store and are applied to the cached discovery
 * snapshot; discovery reads go through the cache (one storage read per miss); a health monitor
 * asks Temporal for each task queue's pollers and re-derives the snapshot's health when it changes.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { AgentRegistration, HealthStatus } from '../contracts/capabilities';
import { ReadThroughCache, type CacheRead } from './cache';
import { deriveHealth, type PollerCounts } from './health';
import type { ControlPlaneMetrics } from './metrics';
import {
  INSTANCE_EXPIRY_MS,
  toStoredManifest,
  type AgentOwner,
  type RegistryStore,
  type StoredAgent,
  type StoredManifest,
  type StoredRemoval,
  type StoreIndexEntry,
} from './registry-store';
import { buildSnapshot, isoSeconds, refreshSnapshot, withAgent, type Snapshot } from './snapshot';
import type { TemporalAccess } from './temporal';

export interface RegistryLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface RegistryOptions {
  store: RegistryStore;
  metrics: ControlPlaneMetrics;
  log: RegistryLog;
  temporal?: TemporalAccess;
  cacheTtlMs?: number;
  heartbeatTimeoutMs?: number;
  /** Bytes of rendered responses memoised per snapshot. */
  memoBytes?: number;
  now?: () => number;
}

export interface RegistrationResult {
  agent_id: string;
  instance_id: string;
  created: boolean;
  registered_at: string;
  reasoners: number;
  skills: number;
}

const queueKey = (namespace: string, taskQueue: string) => `${namespace}\u0000${taskQueue}`;

/** Who is calling a registration route: a valid token, and/or the secret an agent instance holds. */
export interface RegistrationCaller {
  authenticated: boolean;
  /** The `x-agent-secret` header: binds an agent to the instance that registered it. */
  secret?: string;
}

/** A registration change the caller may not make (403). */
export class RegistrationForbidden extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RegistrationForbidden';
  }
}

const secretDigest = (secret: string) => createHash('sha256').update(secret).digest('hex');

function matchesDigest(digest: string | undefined, secret: string | undefined): boolean {
  if (!digest || !secret) return false;
  const given = Buffer.from(secretDigest(secret));
  const expected = Buffer.from(digest);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

const holdsOwnerSecret = (owner: AgentOwner | undefined, secret: string | undefined) =>
  matchesDigest(owner?.secret, secret);
const ANONYMOUS: RegistrationCaller = { authenticated: false };

/** The owner, unless its instance has left (deregistered, or silent past the instance expiry). */
function liveOwner(entry: Readonly<StoreIndexEntry> | undefined, now: number): AgentOwner | undefined {
  const seen = entry?.owner ? entry.instances.get(entry.owner.instance) : undefined;
  return seen !== undefined && seen >= now - INSTANCE_EXPIRY_MS ? entry!.owner : undefined;
}

export class Registry {
  readonly cache: ReadThroughCache<Snapshot>;
  readonly heartbeatTimeoutMs: number;
  private readonly now: () => number;
  private readonly pollers = new Map<string, PollerCounts | null>();
  /** Task queues of the registered agents, kept from each storage read and each registration. */
  private readonly queues = new Map<string, { namespace: string; taskQueue: string }>();
  private monitor: NodeJS.Timeout | undefined;
  private checking: Promise<string[]> | undefined;
  private nextCheck: Promise<string[]> | undefined;

  constructor(private readonly options: RegistryOptions) {
    this.now = options.now ?? Date.now;
    this.heartbeatTimeoutMs = options.heartbeatTimeoutMs ?? 30_000;
    this.cache = new ReadThroughCache(
      () => this.load(),
      options.cacheTtlMs ?? 30_000,
      this.now,
      (stale) => this.revalidate(stale),
      (snapshot) => this.committed(snapshot),
    );
    // A shared store: another instance's (de)registration invalidates this instance's cache too.
    options.store.onExternalChange?.(() => this.cache.invalidate());
  }

  get store(): RegistryStore {
    return this.options.store;
  }

  /** The current snapshot through the cache; `hit` is false when this call read storage. */
  async read(): Promise<CacheRead<Snapshot>> {
    const result = await this.cache.get();
    if (result.hit) this.options.metrics.cacheHits.inc();
    else this.options.metrics.cacheMisses.inc();
    return result;
  }

  /**
   * Registers or replaces an agent. An existing agent's routing (task queue, namespace) is what
   * `execute` starts workflows on, so only its owner (the instance that registered it with a
   * secret) or an authenticated caller may change it; anyone allowed to register may refresh it
   * unchanged. Throws RegistrationForbidden otherwise.
   */
  async register(manifest: AgentRegistration, caller = ANONYMOUS): Promise<RegistrationResult> {
    const at = this.now();
    const instance = manifest.instance_id ?? 'default';
    const entry = await this.entry(manifest.agent_id);
    const owner = liveOwner(entry, at);
    const isOwner = holdsOwnerSecret(owner, caller.secret);
    const moved =
      entry !== undefined && (entry.task_queue !== manifest.task_queue || entry.namespace !== manifest.namespace);
    if (moved && !caller.authenticated && !isOwner) {
      this.options.log.warn(
        { agent_id: manifest.agent_id, instance_id: instance },
        'agent re-registration refused: routing change by a caller that does not own the agent',
      );
      throw new RegistrationForbidden(
        `Agent ${manifest.agent_id} is registered on task queue ${entry.task_queue ?? '(none)'}, ` +
          `namespace ${entry.namespace ?? '(default)'}; only the instance that registered it ` +
          '(same x-agent-secret) or a caller with the registration token may change that',
      );
    }
    // A new agent belongs to the instance that registered it with a secret; later, ownership
    // moves only to whoever proves the right to move the agent. An agent whose owner has left
    // stays unowned (claiming it would let anyone who re-registers it then move it).
    const secret = caller.secret ? secretDigest(caller.secret) : undefined;
    const claimed = secret && (!entry || isOwner || caller.authenticated) ? { secret, instance } : undefined;
    const stored = toStoredManifest(manifest);
    const changesBefore = this.store.changes;
    const { created, changed } = await this.store.put(stored, instance, at, claimed ?? owner, secret);
    const result: RegistrationResult = {
      agent_id: manifest.agent_id,
      instance_id: instance,
      created,
      registered_at: isoSeconds(at),
      reasoners: manifest.reasoners.length,
      skills: manifest.skills.length,
    };
    if (!changed) {
      this.afterBeat(manifest.agent_id, undefined);
      return result;
    }
    this.patchSnapshot(manifest.agent_id, stored, changesBefore);
    if (manifest.task_queue) this.trackQueue(manifest.namespace, manifest.task_queue);
    this.options.log.info(
      {
        agent_id: manifest.agent_id,
        instance_id: instance,
        created,
        reasoners: manifest.reasoners.length,
        skills: manifest.skills.length,
      },
      'agent registered',
    );
    if (manifest.task_queue) void this.checkHealth().catch(() => undefined);
    return result;
  }

  /** False when the agent is unknown (the sender should register again). */
  async heartbeat(
    agentId: string,
    instance: string | undefined,
    reported: HealthStatus | undefined,
    caller = ANONYMOUS,
  ): Promise<boolean> {
    // Only a health report needs the owner: plain heartbeats skip the shared store's extra read.
    const owner = reported !== undefined ? liveOwner(await this.entry(agentId), this.now()) : undefined;
    // A health report changes what callers see: on an owned agent, only its owner may send one.
    if (reported !== undefined && owner && !caller.authenticated && !holdsOwnerSecret(owner, caller.secret)) {
      throw new RegistrationForbidden(
        `Only the instance that registered agent ${agentId} (same x-agent-secret) may report its health`,
      );
    }
    const changesBefore = this.store.changes;
    const known = await this.store.beat(agentId, instance ?? 'default', this.now(), reported);
    if (!known) return false;
    this.afterBeat(agentId, reported, changesBefore === undefined || this.store.changes !== changesBefore);
    return true;
  }

  /** The agent's routing and ownership: from the source of truth when the store is shared. */
  private async entry(agentId: string): Promise<Readonly<StoreIndexEntry> | undefined> {
    return this.store.fresh ? this.store.fresh(agentId) : this.store.entry(agentId);
  }

  private afterBeat(agentId: string, reported: HealthStatus | undefined, storeMoved = true): void {
    const snapshot = this.cache.peek();
    const current = snapshot?.byId.get(agentId);
    // A changed self-report, or an agent coming back, shows at once rather than after the TTL.
    // With no snapshot, a reload may be under way that read storage before this report: it is
    // invalidated if the report changed what storage holds (not for the same report again).
    const reportChanged = snapshot ? reported !== current?.reported_health || !current : storeMoved;
    if (reported !== undefined && reportChanged) this.cache.invalidate();
    else if (current && this.health(current).status !== current.health_status) this.refreshHealth();
  }

  /**
   * Removes one instance, or the whole agent. Deleting it would free the agent for a hijacker,
   * so without a token: an instance that registered with a secret is removed only with that
   * secret (or the owner's), and the whole agent only by its owner, or by anyone when none of
   * its instances has a secret.
   */
  async deregister(
    agentId: string,
    instance: string | undefined,
    caller = ANONYMOUS,
  ): Promise<StoredRemoval | undefined> {
    const entry = await this.entry(agentId);
    if (!entry) return undefined;
    if (!caller.authenticated && !holdsOwnerSecret(liveOwner(entry, this.now()), caller.secret)) {
      const allowed =
        instance === undefined
          ? entry.secrets.size === 0 && !liveOwner(entry, this.now())
          : !entry.secrets.has(instance) || matchesDigest(entry.secrets.get(instance), caller.secret);
      if (!allowed) {
        throw new RegistrationForbidden(
          `${instance === undefined ? `Agent ${agentId}` : `Instance ${instance.slice(0, 200)} of agent ${agentId}`} ` +
            'may be removed only ' +
            'by the instance that registered it (same x-agent-secret) or a caller with the registration token',
        );
      }
    }
    const changesBefore = this.store.changes;
    const result = await this.store.remove(agentId, instance ?? null, this.now());
    if (result.removed) this.patchSnapshot(agentId, undefined, changesBefore);
    // An instance left: the agent stays, its last heartbeat may have moved.
    else this.refreshHealth();
    this.options.log.info(
      {
        agent_id: agentId,
        instance_id: instance ?? null,
        removed: result.removed,
        remaining_instances: result.remainingInstances,
      },
      'agent deregistered',
    );
    return result;
  }

  /**
   * Refreshes task-queue pollers and re-derives every cached agent's health; invalidates the
   * cache if any changed. Never reads storage: it works on the cached snapshot.
   * Returns the ids of agents whose health changed.
   */
  checkHealth(): Promise<string[]> {
    if (this.checking) {
      // A check already running may predate what the caller just changed: queue one more after it.
      this.nextCheck ??= this.checking
        .catch(() => [])
        .then(() => {
          this.nextCheck = undefined;
          return this.checkHealth();
        });
      return this.nextCheck;
    }
    this.checking = this.runHealthCheck().finally(() => (this.checking = undefined));
    return this.checking;
  }

  startMonitor(intervalMs: number): void {
    this.stopMonitor();
    this.monitor = setInterval(() => {
      this.checkHealth().catch((err) => this.options.log.warn({ err: String(err) }, 'health check failed'));
    }, intervalMs);
    this.monitor.unref();
  }

  stopMonitor(): void {
    if (this.monitor) clearInterval(this.monitor);
    this.monitor = undefined;
  }

  private async runHealthCheck(): Promise<string[]> {
    // The queues to poll follow the cached snapshot: with none (at start, after an
    // invalidation), read one first rather than poll queues of agents that have gone.
    if (!this.cache.peek()) await this.cache.get().catch(() => undefined);
    const temporal = this.options.temporal;
    if (temporal) {
      await Promise.all(
        [...this.queues.values()].map(async ({ namespace, taskQueue }) => {
          try {
            this.pollers.set(queueKey(namespace, taskQueue), await temporal.pollers(namespace, taskQueue));
          } catch (err) {
            if (this.pollers.get(queueKey(namespace, taskQueue)) !== null) {
              this.options.log.warn(
                { namespace, task_queue: taskQueue, err: (err as Error).message },
                'could not read task-queue pollers',
              );
            }
            this.pollers.set(queueKey(namespace, taskQueue), null);
          }
        }),
      );
    }
    const current = this.cache.peek();
    if (!current) return [];
    const changed = current.agents.filter((a) => this.health(a).status !== a.health_status).map((a) => a.agent_id);
    if (changed.length) {
      this.options.log.info({ agents: changed.slice(0, 20), count: changed.length }, 'agent health changed');
      this.refreshHealth();
    }
    return changed;
  }

  private health(agent: Pick<StoredAgent, 'agent_id' | 'task_queue' | 'namespace' | 'reported_health'>): {
    status: HealthStatus;
    lastHeartbeat: number | undefined;
  } {
    const lastHeartbeat = this.store.lastHeartbeat(agent.agent_id);
    const namespace = agent.namespace ?? this.options.temporal?.defaultNamespace() ?? 'default';
    const status = deriveHealth({
      now: this.now(),
      lastHeartbeat,
      heartbeatTimeoutMs: this.heartbeatTimeoutMs,
      reported: agent.reported_health,
      hasTaskQueue: agent.task_queue !== undefined,
      pollers: agent.task_queue ? this.pollers.get(queueKey(namespace, agent.task_queue)) : undefined,
    });
    return { status, lastHeartbeat };
  }

  private trackQueue(namespace: string | undefined, taskQueue: string): void {
    const ns = namespace ?? this.options.temporal?.defaultNamespace() ?? 'default';
    this.queues.set(queueKey(ns, taskQueue), { namespace: ns, taskQueue });
  }

  private get memoBytes(): number {
    return this.options.memoBytes ?? 4 * 1024 * 1024;
  }

  /**
   * Applies this instance's own registration change to the cached snapshot instead of reading
   * storage again. The snapshot stays "as read at the store's change count" only if it was in
   * step before the change; otherwise its next expiry reads storage.
   */
  private patchSnapshot(agentId: string, manifest: StoredManifest | undefined, changesBefore: number | undefined) {
    const changesAfter = this.store.changes;
    const current = this.cache.peek();
    if (current && current.patches >= Math.max(100, current.agents.length)) return this.cache.invalidate();
    this.cache.replace((snapshot) => {
      snapshot.responses.clear();
      const patched = withAgent(snapshot, agentId, manifest, (a) => this.health(a), this.now(), this.memoBytes);
      const own = changesBefore === undefined || changesAfter === changesBefore + 1;
      patched.storeChanges = own && snapshot.storeChanges === changesBefore ? changesAfter : snapshot.storeChanges;
      return patched;
    });
  }

  /** Health is derived, not stored: a change needs no storage read, only the snapshot re-derived. */
  private refreshHealth(): void {
    // A load under way derives health itself, after its read: nothing to invalidate.
    this.cache.update((snapshot) => {
      snapshot.responses.clear();
      return refreshSnapshot(snapshot, (a) => this.health(a), this.now(), this.memoBytes);
    });
  }

  /**
   * An expired snapshot of a store that has not changed since: re-derive health, keep the rest.
   * After about a registry's worth of patches, read storage anyway: the interned text of
   * replaced registrations is dropped only with a fresh snapshot.
   */
  private revalidate(stale: Snapshot): Snapshot | undefined {
    const changes = this.store.changes;
    if (changes === undefined || stale.storeChanges !== changes) return undefined;
    if (stale.patches > Math.max(100, stale.agents.length)) return undefined;
    stale.responses.clear();
    return refreshSnapshot(stale, (a) => this.health(a), this.now(), this.memoBytes);
  }

  /** What follows the cached snapshot: the task queues health checks poll, and the gauges. */
  private committed(snapshot: Snapshot): void {
    this.queues.clear();
    for (const a of snapshot.agents) if (a.task_queue) this.trackQueue(a.namespace, a.task_queue);
    for (const key of this.pollers.keys()) if (!this.queues.has(key)) this.pollers.delete(key);
    this.options.metrics.registeredAgents.set(snapshot.agents.length);
    this.options.metrics.cacheSize.set(snapshot.bytes);
  }

  private async load(): Promise<Snapshot> {
    // The old snapshot's rendered responses are stale: free them before reading the new data.
    this.cache.peek()?.responses.clear();
    const changes = this.store.changes;
    const stored = await this.store.listAgents();
    // Health is derived from the pollers of these queues: track them before deriving it.
    for (const a of stored) if (a.task_queue) this.trackQueue(a.namespace, a.task_queue);
    const snapshot = buildSnapshot(stored, (a) => this.health(a), this.now(), this.memoBytes);
    // Changes during the read may be missing from it: the count from before makes the next
    // expiry read again.
    snapshot.storeChanges = changes;
    return snapshot;
  }
}
