/**
 * Where registrations live: an append-only JSON-lines journal on disk, so they survive a
 * control-plane restart without a database process or a native library (the control plane
 * stays well under its 100 MB memory budget).
 *
 *  - Each change is one line: `put` (a registration), `beat` (a heartbeat), `del` (a
 *    deregistration). Lines are written in order by one writer; lines arriving together are
 *    written and fsynced together (group commit).
 *  - `listAgents()` reads the file once and folds the lines: a single `ListAgents()`
 *    storage read per cache miss. A torn last line (crash mid-write) is ignored.
 *  - When the journal holds many more lines than live agents, or more bytes of replaced and
 *    deleted registrations than of live ones, it is rewritten atomically (temp file, fsync,
 *    rename) as one `put` per agent: deleting agents gives their space back.
 *  - Each agent may have an owner: the digest of the secret its first registering instance
 *    presented. The registry lets only that owner (or an authenticated caller) move the agent.
 *
 * The manifests are not kept in memory here (the discovery cache holds the only copy); only a
 * small index (agent ids and their instances) is, to answer heartbeats and deregistrations.
 */
import { createHash } from 'node:crypto';
import { createReadStream, mkdirSync } from 'node:fs';
import { open, rename, stat, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { INSTANCE_EXPIRY_MS, sameOwner, type AgentOwner } from '../contracts/agent-owner';
import type { StoredAgent, StoredCapability, StoredManifest } from '../flows/agent-registry/contract';
import { HEALTH_STATUSES, type AgentRegistration, type HealthStatus } from '../contracts/capabilities';

export type { AgentOwner, StoredAgent, StoredCapability, StoredManifest } from '../flows/agent-registry/contract';

type JournalLine =
  | {
      op: 'put';
      at: number;
      instance: string;
      agent: StoredManifest;
      instances?: Record<string, number>;
      registered_at?: number;
      owner?: AgentOwner;
      /** The registering instance's secret digest; a compacted line has every instance's in `secrets`. */
      secret?: string;
      secrets?: Record<string, string>;
    }
  | { op: 'beat'; at: number; id: string; instance: string; reported?: HealthStatus | null }
  | { op: 'del'; at: number; id: string; instance: string | null };

// The journal is ours, so lines are checked for shape only (no copying validator): this runs
// over every line on every cache miss.
const isString = (v: unknown): v is string => typeof v === 'string';
const optionalString = (v: unknown) => v === undefined || typeof v === 'string';
const isHealth = (v: unknown): v is HealthStatus => (HEALTH_STATUSES as readonly unknown[]).includes(v);

function isCapability(c: unknown): c is StoredCapability {
  if (!c || typeof c !== 'object') return false;
  const x = c as Record<string, unknown>;
  return (
    isString(x.id) &&
    Array.isArray(x.tags) &&
    x.tags.every(isString) &&
    optionalString(x.description) &&
    optionalString(x.input_schema) &&
    optionalString(x.output_schema) &&
    optionalString(x.examples)
  );
}

function isManifest(a: unknown): a is StoredManifest {
  if (!a || typeof a !== 'object') return false;
  const x = a as Record<string, unknown>;
  return (
    isString(x.agent_id) &&
    isString(x.base_url) &&
    isString(x.version) &&
    isString(x.deployment_type) &&
    optionalString(x.task_queue) &&
    optionalString(x.namespace) &&
    (x.reported_health === undefined || isHealth(x.reported_health)) &&
    Array.isArray(x.reasoners) &&
    x.reasoners.every(isCapability) &&
    Array.isArray(x.skills) &&
    x.skills.every(isCapability)
  );
}

function isStringRecord(r: unknown): r is Record<string, string> {
  return !!r && typeof r === 'object' && Object.values(r).every(isString);
}

function isOwner(o: unknown): o is AgentOwner {
  return !!o && typeof o === 'object' && isString((o as AgentOwner).secret) && isString((o as AgentOwner).instance);
}

function asJournalLine(value: unknown): JournalLine | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const x = value as Record<string, unknown>;
  if (typeof x.at !== 'number') return undefined;
  switch (x.op) {
    case 'put':
      return isString(x.instance) &&
        isManifest(x.agent) &&
        (x.owner === undefined || isOwner(x.owner)) &&
        optionalString(x.secret) &&
        (x.secrets === undefined || isStringRecord(x.secrets))
        ? (x as JournalLine)
        : undefined;
    case 'beat':
      return isString(x.id) &&
        isString(x.instance) &&
        (x.reported === undefined || x.reported === null || isHealth(x.reported))
        ? (x as JournalLine)
        : undefined;
    case 'del':
      return isString(x.id) && (x.instance === null || isString(x.instance)) ? (x as JournalLine) : undefined;
    default:
      return undefined;
  }
}

export { INSTANCE_EXPIRY_MS };
/** Garbage (replaced or deleted registrations) below this many bytes is not worth a rewrite. */
const MIN_GARBAGE_BYTES = 256 * 1024;
/** How long opening the journal may take before the control plane gives up. */
const OPEN_TIMEOUT_MS = 10_000;

/** A digest of a manifest's content: an identical re-registration is recorded as a heartbeat. */
export const manifestDigest = (m: StoredManifest) => createHash('sha256').update(JSON.stringify(m)).digest('base64');

export function toStoredManifest(m: AgentRegistration): StoredManifest {
  const capability = (c: AgentRegistration['reasoners'][number]): StoredCapability => ({
    id: c.id,
    ...(c.description?.trim() ? { description: c.description.trim() } : {}),
    tags: [...new Set(c.tags)],
    ...(c.input_schema ? { input_schema: JSON.stringify(c.input_schema) } : {}),
    ...(c.output_schema ? { output_schema: JSON.stringify(c.output_schema) } : {}),
    ...(c.examples.length ? { examples: JSON.stringify(c.examples) } : {}),
  });
  return {
    agent_id: m.agent_id,
    base_url: m.base_url,
    version: m.version,
    deployment_type: m.deployment_type,
    ...(m.task_queue ? { task_queue: m.task_queue } : {}),
    ...(m.namespace ? { namespace: m.namespace } : {}),
    ...(m.health_status ? { reported_health: m.health_status } : {}),
    reasoners: m.reasoners.map(capability),
    skills: m.skills.map(capability),
  };
}

export interface StoreIndexEntry {
  instances: Map<string, number>;
  task_queue?: string;
  namespace?: string;
  owner?: AgentOwner;
  /** instance id -> digest of its secret (instances that registered with one). */
  secrets: Map<string, string>;
  /** manifestDigest of the latest registration. */
  digest: string;
  /** What the agent last said about its own health, if anything. */
  reported_health?: HealthStatus;
  /** Bytes of its latest `put` line: the agent's share of a compact journal. */
  bytes: number;
}

/** What a registration did: `created` a new agent; `changed` anything more than a heartbeat would. */
export interface StoredPut {
  created: boolean;
  changed: boolean;
}

/** What a deregistration did, and how many instances of the agent are left. */
export interface StoredRemoval {
  removed: boolean;
  remainingInstances: number;
}

/**
 * What the registry needs from where registrations live: the local journal (one instance) or
 * the shared `agentRegistry` workflow (server/shared-registry-store.ts, many instances).
 */
export interface RegistryStore {
  /** How many times storage has been read in full (one per cache miss). */
  readonly reads: number;
  /**
   * Stores that are the only writer of their storage: a count that moves with every change
   * listAgents() would show (heartbeat times excepted: those come from the index). The same
   * count as at a read means that read is still what storage holds.
   */
  readonly changes?: number;
  listAgents(): Promise<StoredAgent[]>;
  has(agentId: string): boolean;
  entry(agentId: string): Readonly<StoreIndexEntry> | undefined;
  lastHeartbeat(agentId: string): number | undefined;
  /**
   * Shared stores: the agent as the source of truth holds it now, for decisions that must not
   * use a copy another instance may have changed (ownership, deregistration).
   */
  fresh?(agentId: string): Promise<Readonly<StoreIndexEntry> | undefined>;
  put(manifest: StoredManifest, instance: string, at: number, owner?: AgentOwner, secret?: string): Promise<StoredPut>;
  beat(agentId: string, instance: string, at: number, reported?: HealthStatus | null): Promise<boolean>;
  remove(agentId: string, instance: string | null, at: number): Promise<StoredRemoval>;
  /** Shared stores: calls `listener` when another instance changed what callers see. */
  onExternalChange?(listener: () => void): void;
  close(): Promise<void>;
}

/**
 * The index every store keeps in memory beside its storage: what it knows about an agent
 * (routing, owner, instances, last heartbeat) without a storage read.
 */
export abstract class IndexedRegistryStore {
  protected readonly index = new Map<string, StoreIndexEntry>();

  has(agentId: string): boolean {
    return this.index.has(agentId);
  }

  entry(agentId: string): Readonly<StoreIndexEntry> | undefined {
    return this.index.get(agentId);
  }

  lastHeartbeat(agentId: string): number | undefined {
    const entry = this.index.get(agentId);
    return entry && entry.instances.size ? Math.max(...entry.instances.values()) : undefined;
  }
}

export class JournalRegistryStore extends IndexedRegistryStore implements RegistryStore {
  /** How many times the journal has been read (tests check "one read per cache miss"). */
  reads = 0;
  changes = 0;
  private handle: FileHandle | undefined;
  private pending: Array<{ line: string; done: () => void; fail: (e: unknown) => void }> = [];
  private writing: Promise<void> = Promise.resolve();
  private flushScheduled = false;
  private lines = 0;
  /** Bytes in the journal file, and bytes its live agents' latest `put` lines take. */
  private fileBytes = 0;
  private liveBytes = 0;
  private closed = false;
  private compacting = false;

  private constructor(readonly file: string) {
    super();
  }

  /**
   * Opens (or creates) the journal. Fails within seconds, naming the file, when it cannot be
   * written or is not a regular file (a FIFO or a device would block or never end a read).
   */
  static async open(file: string): Promise<JournalRegistryStore> {
    const resolved = path.resolve(file);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`did not open within ${OPEN_TIMEOUT_MS / 1000} s`)), OPEN_TIMEOUT_MS);
      timer.unref();
    });
    try {
      return await Promise.race([JournalRegistryStore.openUnchecked(resolved), timeout]);
    } catch (err) {
      throw new Error(`registration store ${resolved} (CONTROL_PLANE_STORE) is not usable: ${(err as Error).message}`);
    } finally {
      clearTimeout(timer);
    }
  }

  private static async openUnchecked(file: string): Promise<JournalRegistryStore> {
    mkdirSync(path.dirname(file), { recursive: true });
    const info = await stat(file).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return undefined;
      throw err;
    });
    if (info && !info.isFile()) throw new Error('not a regular file');
    const store = new JournalRegistryStore(file);
    const agents = await store.readAll(false);
    // Start from a compact file: one line per live agent (this also proves the folder writable).
    await store.rewrite(agents);
    store.handle = await open(store.file, 'a');
    return store;
  }

  /** The single storage read: every registered agent, folded from the journal. */
  async listAgents(): Promise<StoredAgent[]> {
    const agents = await this.readAll(true);
    this.compactIfWasteful();
    return agents;
  }

  /**
   * Registers (or replaces) an agent's manifest for one instance, with its owner. The same
   * manifest and owner again (a worker re-asserting its registration) is written as a heartbeat.
   */
  async put(
    manifest: StoredManifest,
    instance: string,
    at: number,
    owner?: AgentOwner,
    secret?: string,
  ): Promise<StoredPut> {
    const entry = this.index.get(manifest.agent_id);
    const digest = manifestDigest(manifest);
    // An instance keeps the secret it first registered with: a later caller cannot swap it.
    const instanceSecret = entry?.secrets.get(instance) ?? secret;
    const sameSecret = entry?.secrets.get(instance) === instanceSecret;
    const unchanged = entry?.digest === digest && sameOwner(entry.owner, owner) && entry.instances.has(instance);
    if (entry && unchanged && sameSecret) {
      const beat: JournalLine = { op: 'beat', at, id: manifest.agent_id, instance };
      await this.append(beat);
      this.applyToIndex(beat);
      return { created: false, changed: false };
    }
    const line: JournalLine = {
      op: 'put',
      at,
      instance,
      agent: manifest,
      ...(owner ? { owner } : {}),
      ...(instanceSecret ? { secret: instanceSecret } : {}),
    };
    await this.append(line);
    this.applyToIndex(line, digest);
    this.changes += 1;
    this.compactIfWasteful();
    return { created: !entry, changed: true };
  }

  /** Records a heartbeat; false when the agent is not registered (the caller should register). */
  async beat(agentId: string, instance: string, at: number, reported?: HealthStatus | null): Promise<boolean> {
    // An instance that never registered is unknown too: a heartbeat must not add instances (anyone
    // could otherwise grow the journal, or keep an abandoned agent alive for a hijacker).
    if (!this.index.get(agentId)?.instances.has(instance)) return false;
    const line: JournalLine = {
      op: 'beat',
      at,
      id: agentId,
      instance,
      ...(reported !== undefined ? { reported } : {}),
    };
    // A health report is part of the agent as listed; a plain heartbeat only moves the index.
    const listingChanges =
      reported !== undefined && (reported ?? undefined) !== this.index.get(agentId)?.reported_health;
    await this.append(line);
    this.applyToIndex(line);
    if (listingChanges) this.changes += 1;
    this.compactIfWasteful();
    return true;
  }

  /** Removes one instance (the agent goes when none is left) or, without an instance, the agent. */
  async remove(agentId: string, instance: string | null, at: number): Promise<StoredRemoval> {
    const entry = this.index.get(agentId);
    if (!entry) return { removed: false, remainingInstances: 0 };
    // An instance the agent does not have: nothing to write (anyone may ask, so it costs nothing).
    if (instance !== null && !entry.instances.has(instance))
      return { removed: false, remainingInstances: entry.instances.size };
    const line: JournalLine = { op: 'del', at, id: agentId, instance };
    await this.append(line);
    this.applyToIndex(line);
    const left = this.index.get(agentId);
    // An instance leaving only moves heartbeat times; the agent leaving changes the listing.
    if (!left) this.changes += 1;
    this.compactIfWasteful();
    return { removed: !left, remainingInstances: left?.instances.size ?? 0 };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.flushNow();
    await this.writing;
    await this.handle?.close();
    this.handle = undefined;
  }

  // ---- internals ----

  private async readAll(counted: boolean): Promise<StoredAgent[]> {
    if (counted) this.reads += 1;
    const agents = new Map<string, StoredAgent>();
    let lines = 0;
    let stream;
    try {
      stream = createReadStream(this.file, { encoding: 'utf8', highWaterMark: 256 * 1024 });
      // Line by line: the whole file is never one string, which keeps a cache miss's memory low.
      let carry = '';
      for await (const chunk of stream as AsyncIterable<string>) {
        const text = carry + chunk;
        let start = 0;
        for (let end = text.indexOf('\n'); end >= 0; end = text.indexOf('\n', start)) {
          const raw = text.slice(start, end);
          start = end + 1;
          if (!raw.trim()) continue;
          lines += 1;
          let parsed: JournalLine | undefined;
          try {
            parsed = asJournalLine(JSON.parse(raw));
          } catch {
            parsed = undefined;
          }
          if (parsed) fold(agents, parsed);
        }
        // A last line without its newline was torn by a crash mid-write: it stays in carry, unused.
        carry = text.slice(start);
      }
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    } finally {
      stream?.destroy();
    }
    this.lines = lines;
    return [...agents.values()];
  }

  private applyToIndex(line: JournalLine, digest?: string): void {
    this.lines += 1;
    switch (line.op) {
      case 'put': {
        const previous = this.index.get(line.agent.agent_id);
        const instances = previous?.instances ?? new Map<string, number>();
        const secrets = previous?.secrets ?? new Map<string, string>();
        for (const [id, seen] of instances) {
          if (seen < line.at - INSTANCE_EXPIRY_MS) {
            instances.delete(id);
            secrets.delete(id);
          }
        }
        instances.set(line.instance, line.at);
        if (line.secret) secrets.set(line.instance, line.secret);
        const bytes = Buffer.byteLength(JSON.stringify(line)) + 1;
        this.liveBytes += bytes - (previous?.bytes ?? 0);
        this.index.set(line.agent.agent_id, {
          instances,
          task_queue: line.agent.task_queue,
          namespace: line.agent.namespace,
          owner: line.owner,
          secrets,
          digest: digest ?? manifestDigest(line.agent),
          bytes,
          ...(line.agent.reported_health ? { reported_health: line.agent.reported_health } : {}),
        });
        break;
      }
      case 'beat': {
        const entry = this.index.get(line.id);
        entry?.instances.set(line.instance, line.at);
        if (entry && line.reported !== undefined) entry.reported_health = line.reported ?? undefined;
        break;
      }
      case 'del': {
        const entry = this.index.get(line.id);
        if (!entry) break;
        if (line.instance !== null) {
          entry.instances.delete(line.instance);
          entry.secrets.delete(line.instance);
        }
        if (line.instance === null || entry.instances.size === 0) {
          this.index.delete(line.id);
          this.liveBytes -= entry.bytes;
        }
        break;
      }
    }
  }

  /**
   * Rewrites the journal when most of its bytes belong to replaced or deleted registrations, or
   * when it holds many more lines than agents (heartbeats: a stable fleet only ever sends those,
   * and the discovery cache no longer reads the journal while it is unchanged).
   */
  private compactIfWasteful(): void {
    const garbage = this.fileBytes + this.pendingBytes() - this.liveBytes;
    const manyLines = this.lines > 2 * this.index.size + 1000;
    if (this.closed || this.compacting) return;
    if (!manyLines && garbage < Math.max(MIN_GARBAGE_BYTES, this.liveBytes)) return;
    this.compacting = true;
    this.enqueueRewrite()
      .catch(() => {
        // Compaction is housekeeping: the journal stays valid if it fails.
      })
      .finally(() => (this.compacting = false));
  }

  private pendingBytes(): number {
    return this.pending.reduce((sum, p) => sum + Buffer.byteLength(p.line), 0);
  }

  private append(line: JournalLine): Promise<void> {
    if (this.closed) return Promise.reject(new Error('registry store is closed'));
    return new Promise<void>((done, fail) => {
      this.pending.push({ line: `${JSON.stringify(line)}\n`, done, fail });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        // Lines arriving in the same tick share one write and one fsync.
        queueMicrotask(() => void this.flushNow());
      }
    });
  }

  private flushNow(): Promise<void> {
    this.flushScheduled = false;
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return this.writing;
    this.writing = this.writing.then(async () => {
      try {
        if (!this.handle) this.handle = await open(this.file, 'a');
        const text = batch.map((b) => b.line).join('');
        await this.handle.write(text);
        this.fileBytes += Buffer.byteLength(text);
        // Heartbeats alone are not worth an fsync: losing the last one only delays "active".
        if (batch.some((b) => !b.line.startsWith('{"op":"beat"'))) await this.handle.datasync();
        for (const b of batch) b.done();
      } catch (err) {
        // The lines may be in the file even though the write failed (a failed fsync): what
        // storage holds is no longer known, so the next cache expiry must read it.
        this.changes += 1;
        for (const b of batch) b.fail(err);
      }
    });
    return this.writing;
  }

  private enqueueRewrite(): Promise<void> {
    this.writing = this.writing.then(async () => {
      // Re-read inside the writer queue: no append can slip between the read and the rename.
      const agents = await this.readAll(false);
      await this.handle?.close();
      this.handle = undefined;
      await this.rewrite(agents);
      this.handle = await open(this.file, 'a');
    });
    return this.writing;
  }

  private async rewrite(agents: StoredAgent[]): Promise<void> {
    const tmp = `${this.file}.tmp`;
    const out = await open(tmp, 'w');
    let size = 0;
    try {
      const lines = agents.map((a) => {
        const { registered_at, updated_at, instances, owner, secrets, ...manifest } = a;
        const line: JournalLine = {
          op: 'put',
          at: updated_at,
          instance: Object.keys(instances)[0] ?? 'default',
          agent: manifest,
          instances,
          registered_at,
          ...(owner ? { owner } : {}),
          ...(secrets && Object.keys(secrets).length ? { secrets } : {}),
        };
        return `${JSON.stringify(line)}\n`;
      });
      // The index is rebuilt from what is written: each agent's bytes are its line's.
      this.index.clear();
      this.liveBytes = 0;
      agents.forEach((a, i) => {
        const bytes = Buffer.byteLength(lines[i]);
        size += bytes;
        this.liveBytes += bytes;
        const { registered_at: _r, updated_at: _u, instances, owner, secrets, ...manifest } = a;
        this.index.set(a.agent_id, {
          instances: new Map(Object.entries(instances)),
          task_queue: a.task_queue,
          namespace: a.namespace,
          owner,
          secrets: new Map(Object.entries(secrets ?? {})),
          digest: manifestDigest(manifest),
          bytes,
          ...(a.reported_health ? { reported_health: a.reported_health } : {}),
        });
      });
      const text = lines.join('');
      await out.write(text);
      await out.sync();
    } finally {
      await out.close();
    }
    await rename(tmp, this.file);
    const dir = await open(path.dirname(this.file), 'r');
    try {
      await dir.sync();
    } catch {
      // Some file systems do not support fsync on directories; the rename is still atomic.
    } finally {
      await dir.close();
    }
    this.lines = agents.length;
    this.fileBytes = size;
  }
}

function fold(agents: Map<string, StoredAgent>, line: JournalLine): void {
  switch (line.op) {
    case 'put': {
      const previous = agents.get(line.agent.agent_id);
      const instances: Record<string, number> = Object.create(null);
      if (line.instances) Object.assign(instances, line.instances);
      else if (previous) {
        for (const [id, seen] of Object.entries(previous.instances))
          if (seen >= line.at - INSTANCE_EXPIRY_MS) instances[id] = seen;
      }
      if (!line.instances) instances[line.instance] = line.at;
      const secrets: Record<string, string> = Object.assign(Object.create(null), line.secrets ?? {});
      if (!line.secrets && previous?.secrets) {
        for (const [id, secret] of Object.entries(previous.secrets))
          if (Object.hasOwn(instances, id)) secrets[id] = secret;
      }
      if (line.secret) secrets[line.instance] = line.secret;
      agents.set(line.agent.agent_id, {
        ...line.agent,
        registered_at: line.registered_at ?? previous?.registered_at ?? line.at,
        updated_at: line.at,
        instances,
        ...(line.owner ? { owner: line.owner } : {}),
        ...(Object.keys(secrets).length ? { secrets } : {}),
      });
      break;
    }
    case 'beat': {
      const agent = agents.get(line.id);
      if (!agent) break;
      agent.instances[line.instance] = line.at;
      if (line.reported !== undefined) {
        if (line.reported === null) delete agent.reported_health;
        else agent.reported_health = line.reported;
      }
      break;
    }
    case 'del': {
      const agent = agents.get(line.id);
      if (!agent) break;
      if (line.instance !== null) {
        delete agent.instances[line.instance];
        if (agent.secrets) delete agent.secrets[line.instance];
      }
      if (line.instance === null || Object.keys(agent.instances).length === 0) agents.delete(line.id);
      break;
    }
  }
}
