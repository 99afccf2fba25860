/**
 * The console's sign-in sessions, kept in this process's memory: a random id in the browser's
 * cookie, never the token itself. A session ends when it has not been used for `idleMs`, when it
 * is `lifetimeMs` old, or at sign-out; at most `maxSessions` are kept, the least recently used
 * one giving way to a new sign-in (only someone who knows the token can sign in, so a full store
 * never locks the token's holders out).
 *
 * Ids are stored as SHA-256 digests: looking one up takes the same time whatever part of it is
 * right, and the store holds nothing a browser could present.
 */
import { createHash, randomBytes } from 'node:crypto';

export interface ConsoleSessionOptions {
  /** Sessions kept at most (default 1,000). */
  maxSessions?: number;
  /** A session unused for this long ends (default 2 hours). */
  idleMs?: number;
  /** A session ends this long after sign-in, however busy (default 12 hours). */
  lifetimeMs?: number;
  now?: () => number;
}

/** 32 random bytes, base64url: 43 characters. Anything much longer in a cookie is not ours. */
const ID_BYTES = 32;
export const MAX_SESSION_ID_LENGTH = 64;

const digest = (id: string) => createHash('sha256').update(id).digest('base64url');

export class ConsoleSessions {
  /** Digest of the id → times; kept in least-recently-used order (a use moves it to the end). */
  private readonly sessions = new Map<string, { created: number; lastSeen: number }>();
  readonly maxSessions: number;
  readonly idleMs: number;
  readonly lifetimeMs: number;
  private readonly now: () => number;

  constructor(options: ConsoleSessionOptions = {}) {
    this.maxSessions = Math.max(1, options.maxSessions ?? 1000);
    this.idleMs = options.idleMs ?? 2 * 60 * 60 * 1000;
    this.lifetimeMs = options.lifetimeMs ?? 12 * 60 * 60 * 1000;
    this.now = options.now ?? Date.now;
  }

  get size(): number {
    return this.sessions.size;
  }

  /** A new session; its id goes into the cookie and nowhere else. */
  create(): string {
    const now = this.now();
    if (this.sessions.size >= this.maxSessions) this.dropExpired(now);
    while (this.sessions.size >= this.maxSessions) {
      const oldest = this.sessions.keys().next().value as string;
      this.sessions.delete(oldest);
    }
    const id = randomBytes(ID_BYTES).toString('base64url');
    this.sessions.set(digest(id), { created: now, lastSeen: now });
    return id;
  }

  /** Whether the id names a live session; a live one counts as used now. */
  use(id: string): boolean {
    if (!id || id.length > MAX_SESSION_ID_LENGTH) return false;
    const key = digest(id);
    const session = this.sessions.get(key);
    if (!session) return false;
    const now = this.now();
    this.sessions.delete(key);
    if (this.expired(session, now)) return false;
    session.lastSeen = now;
    this.sessions.set(key, session);
    return true;
  }

  /** Ends the session (sign-out); unknown ids are ignored. */
  revoke(id: string): void {
    if (id && id.length <= MAX_SESSION_ID_LENGTH) this.sessions.delete(digest(id));
  }

  private expired(session: { created: number; lastSeen: number }, now: number): boolean {
    return now - session.lastSeen >= this.idleMs || now - session.created >= this.lifetimeMs;
  }

  private dropExpired(now: number): void {
    for (const [key, session] of this.sessions) if (this.expired(session, now)) this.sessions.delete(key);
  }
}
