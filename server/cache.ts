/**
 * The discovery cache: read-through, 30 s TTL. Registrations and deregistrations through this
 * process update the cached value in place; anything else that changes storage invalidates it.
 * Concurrent misses share one load, so a burst of requests after an invalidation costs one
 * storage read, not one per request.
 *
 * An expired value may be revalidated instead of reloaded: when storage has not changed since
 * it was read, only what moves with time (health, heartbeat times) is derived again. Re-reading
 * and re-parsing every manifest twice a minute cost a burst of memory the size of the registry.
 *
 * Plus a small memo of rendered response bodies per snapshot: identical queries within a
 * snapshot's life are answered from the memo (bounded by bytes, least recently used first out).
 */
export interface CacheRead<T> {
  value: T;
  /** False only for the request that had to read storage. */
  hit: boolean;
}

interface Load<T> {
  promise: Promise<T>;
  /** The cache generation the result is for: a change after the read makes it stale. */
  generation: number;
  /** Whether it has begun reading storage (one that has not will see every change so far). */
  started: boolean;
}

const ignore = () => undefined;

export class ReadThroughCache<T> {
  private current: { value: T; loadedAt: number } | undefined;
  private inflight: Load<T> | undefined;
  private generation = 0;

  constructor(
    private readonly load: () => Promise<T>,
    readonly ttlMs: number,
    private readonly now: () => number = Date.now,
    /** The expired value brought up to date without a storage read, or undefined to reload. */
    private readonly revalidate: (stale: T) => T | undefined = () => undefined,
    /** Called with each value that becomes the cached one (a load kept, a revalidation, a replace). */
    private readonly onCommit: (value: T) => void = () => undefined,
  ) {}

  private commit(value: T, loadedAt: number): void {
    this.current = { value, loadedAt };
    this.onCommit(value);
  }

  async get(): Promise<CacheRead<T>> {
    const current = this.current;
    const age = current ? this.now() - current.loadedAt : -1;
    // A clock set back gives a negative age: expired, rather than fresh for longer than the TTL.
    if (current && age >= 0 && age < this.ttlMs) return { value: current.value, hit: true };
    if (current && !this.inflight) {
      const fresh = this.revalidate(current.value);
      if (fresh !== undefined) {
        this.commit(fresh, this.now());
        return { value: fresh, hit: true };
      }
      // Requests waiting for the reload do not need the expired value: let it be collected.
      this.current = undefined;
    }
    const inflight = this.inflight;
    if (inflight && (inflight.generation === this.generation || !inflight.started)) {
      inflight.generation = this.generation;
      return { value: await inflight.promise, hit: true };
    }
    // None under way, or one that read storage before the latest change: one more, after it.
    // Never two reads at once, however many changes arrive during a slow one.
    const load: Load<T> = { promise: undefined as unknown as Promise<T>, generation: this.generation, started: false };
    load.promise = (inflight ? inflight.promise.then(ignore, ignore) : Promise.resolve())
      .then(() => {
        load.started = true;
        return this.load();
      })
      .then((value) => {
        // A registration during the read may not be in it: keep the result only if none happened.
        if (load.generation === this.generation) this.commit(value, this.now());
        return value;
      });
    this.inflight = load;
    try {
      return { value: await load.promise, hit: false };
    } finally {
      if (this.inflight === load) this.inflight = undefined;
    }
  }

  /** The cached value if there is one, fresh or not (never reads storage). */
  peek(): T | undefined {
    return this.current?.value;
  }

  /**
   * Swaps the cached value for `update(value)`, keeping its age (the storage read it came from
   * is as old as before). Without a value, or with a reload under way, invalidates instead.
   */
  replace(update: (value: T) => T): void {
    if (!this.current || this.inflight) {
      this.invalidate();
      return;
    }
    this.commit(update(this.current.value), this.current.loadedAt);
  }

  /**
   * Re-derives the cached value, if there is one, keeping its age. For what a load derives
   * itself when it builds its value (nothing to invalidate when none is cached).
   */
  update(update: (value: T) => T): void {
    if (this.current) this.commit(update(this.current.value), this.current.loadedAt);
  }

  invalidate(): void {
    this.generation += 1;
    this.current = undefined;
  }
}

export interface RenderedBody {
  /** Encoded once, then written to every socket as-is. */
  body: Buffer;
  contentType: string;
  agents: number;
  reasoners: number;
  skills: number;
}

/** Rendered responses for one snapshot, bounded by total bytes. */
export class ResponseMemo {
  private readonly entries = new Map<string, RenderedBody>();
  private bytes = 0;
  hits = 0;

  constructor(private readonly maxBytes: number) {}

  get size(): number {
    return this.bytes;
  }

  clear(): void {
    this.entries.clear();
    this.bytes = 0;
  }

  get(key: string): RenderedBody | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    // Re-insert: Map order is the LRU order.
    this.entries.delete(key);
    this.entries.set(key, entry);
    this.hits += 1;
    return entry;
  }

  set(key: string, entry: RenderedBody): void {
    const cost = entry.body.byteLength + key.length;
    if (cost > this.maxBytes / 4) return;
    const previous = this.entries.get(key);
    if (previous) {
      this.bytes -= previous.body.byteLength + key.length;
      this.entries.delete(key);
    }
    this.entries.set(key, entry);
    this.bytes += cost;
    for (const [oldKey, old] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(oldKey);
      this.bytes -= old.body.byteLength + oldKey.length;
    }
  }
}
