/**
 * The MCP server over Streamable HTTP (`POST/GET/DELETE /mcp`), with sessions so that MCP
 * cancellation notifications reach the call they cancel.
 *
 * The SDK does not turn a dropped HTTP connection into an aborted tool call, so each `tools/call`
 * POST is watched here: if its response closes before the answer was written, the call's
 * disconnect signal aborts and the workflow is cancelled. Binds 127.0.0.1 by default and checks
 * the Host and Origin headers against local names (DNS-rebinding protection).
 *
 * Sessions are bounded without letting one client lock the others out: each client (remote
 * address; an IPv6 /64; every loopback address is one client) holds at most
 * `maxSessionsPerClient`, and a new `initialize` beyond that, or beyond `maxSessions` in all,
 * closes a session without a running call instead of being refused: first one that never got
 * past `initialize`, then the least recently used, taken from the client holding the most. Only
 * when every candidate has a call running is the newcomer refused (429 for its own quota, 503
 * for the server's). Sessions close when idle, and much sooner when they never got past
 * `initialize`. A session answers only the client that opened it.
 */
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { isIPv6, type AddressInfo } from 'node:net';
import { createMcpServer, FlowCalls, type McpServerOptions } from './server';
import type { McpContext } from './tools';

export interface McpHttpOptions extends Omit<McpServerOptions, 'disconnectSignal' | 'calls'> {
  host?: string;
  port?: number;
  path?: string;
  /** Extra Host header names to accept (e.g. a reverse proxy's); local names are always accepted. */
  allowedHosts?: string[];
  /** When set, every MCP request must carry `Authorization: Bearer <token>` (set MCP_TOKEN when exposing the server). */
  bearerToken?: string;
  maxBodyBytes?: number;
  /** Sessions with no request and no running call for this long are closed (clients often never send DELETE). */
  sessionIdleMs?: number;
  /** Open sessions at most (each holds an MCP server instance); default 100. */
  maxSessions?: number;
  /** Open sessions one client (remote address) holds at most; default a quarter of `maxSessions`. */
  maxSessionsPerClient?: number;
  /** A session that sent nothing after its `initialize` is closed after this long; default 30 s (at most `sessionIdleMs`). */
  handshakeMs?: number;
  /**
   * Which client a request comes from, for the per-client quota; default `clientOf` its remote
   * address (behind a reverse proxy every caller has the proxy's address: pass one that reads
   * the proxy's header).
   */
  clientOf?: (req: IncomingMessage) => string;
  now?: () => number;
}

export interface McpHttpServer {
  url: string;
  port: number;
  calls: FlowCalls;
  /** Number of open MCP sessions. */
  sessions(): number;
  close(): Promise<void>;
}

interface Session {
  transport: StreamableHTTPServerTransport;
  /** Who opened it (clientOf): only that client may use it. */
  client: string;
  /** False until a request after `initialize` arrives: a bare `initialize` is the cheapest flood. */
  established: boolean;
  lastSeen: number;
  /** Open `tools/call` requests of this session, by JSON-RPC id: aborted when their HTTP response closes early. */
  calls: Map<string, AbortController>;
}

/**
 * Whether `Authorization` carries the token. The scheme is case-insensitive (RFC 9110); the
 * tokens are compared as SHA-256 digests in constant time, so their length does not leak either.
 */
function tokenMatches(header: string | undefined, token: string): boolean {
  const match = /^bearer[ \t]+(\S+)[ \t]*$/i.exec(header ?? '');
  if (!match) return false;
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(match[1]), digest(token));
}

const LOCAL_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

/**
 * Who is asking, for the per-client session quota: the remote address; all of an IPv6 /64 is
 * one client (anyone holding one can use any address in it); every loopback address is one
 * client, as local processes cannot be told apart by address.
 */
export function clientOf(address: string | undefined): string {
  const ip = (address ?? '').replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '');
  if (/^127\./.test(ip) || ip === '::1') return 'loopback';
  if (!isIPv6(ip)) return ip || 'unknown';
  const [head, tail = ''] = ip.toLowerCase().split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = ip.includes('::') ? [...left, ...Array(8 - left.length - right.length).fill('0'), ...right] : left;
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

function jsonRpcError(res: ServerResponse, status: number, code: number, message: string): void {
  res
    .writeHead(status, { 'content-type': 'application/json' })
    .end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

/** Enough of a session id to follow it in the log, not enough to use it. */
const shortId = (id: string) => `${id.slice(0, 8)}…`;

async function readJson(req: IncomingMessage, limit: number): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw Object.assign(new Error(`request body over ${limit} bytes`), { status: 413 });
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw Object.assign(new Error('request body is not JSON'), { status: 400 });
  }
}

export async function startMcpHttpServer(ctx: McpContext, options: McpHttpOptions = {}): Promise<McpHttpServer> {
  const host = options.host ?? '127.0.0.1';
  const mcpPath = options.path ?? '/mcp';
  const log = options.log ?? (() => undefined);
  const calls = new FlowCalls(log);
  const sessions = new Map<string, Session>();
  const maxSessions = options.maxSessions ?? 100;
  const perClient = Math.min(maxSessions, options.maxSessionsPerClient ?? Math.max(1, Math.ceil(maxSessions / 4)));
  const idleMs = options.sessionIdleMs ?? 10 * 60 * 1000;
  const handshakeMs = Math.min(idleMs, options.handshakeMs ?? 30_000);
  const now = options.now ?? Date.now;
  const clientOfRequest = options.clientOf ?? ((req: IncomingMessage) => clientOf(req.socket.remoteAddress));
  /** Sessions being opened (not yet in `sessions`), in all and per client: they count against the caps too. */
  let opening = 0;
  const openingBy = new Map<string, number>();
  let port = options.port ?? 0;

  const hostAllowed = (header: string | undefined): boolean => {
    if (!header) return false;
    const name = header.replace(/:\d+$/, '');
    return (
      LOCAL_HOSTS.has(name) ||
      name === host ||
      (options.allowedHosts ?? []).includes(name) ||
      (options.allowedHosts ?? []).includes(header)
    );
  };
  const originAllowed = (origin: string | undefined): boolean => {
    if (!origin) return true; // non-browser clients send none
    try {
      return hostAllowed(new URL(origin).host);
    } catch {
      return false;
    }
  };

  function closeSession(id: string, session: Session): void {
    sessions.delete(id); // at once: the slot may be needed by the caller
    void session.transport.close();
  }

  function closeIdle(at: number): void {
    for (const [id, session] of sessions) {
      const limit = session.established ? idleMs : handshakeMs;
      if (session.calls.size === 0 && at - session.lastSeen > limit) closeSession(id, session);
    }
  }

  const heldBy = (client: string) =>
    [...sessions.values()].filter((s) => s.client === client).length + (openingBy.get(client) ?? 0);

  /**
   * Closes one session without a running call to make room, from `client`'s own when given, else
   * from whichever client holds the most: one that never got past `initialize` first, then the
   * least recently used. False when every candidate has a call running.
   */
  function makeRoom(client?: string): boolean {
    const held = new Map<string, number>();
    for (const s of sessions.values()) held.set(s.client, (held.get(s.client) ?? 0) + 1);
    let victim: [string, Session] | undefined;
    const rank = (s: Session) => [client ? 0 : -(held.get(s.client) ?? 0), s.established ? 1 : 0, s.lastSeen];
    for (const entry of sessions) {
      const s = entry[1];
      if (s.calls.size > 0 || (client && s.client !== client)) continue;
      if (!victim) {
        victim = entry;
        continue;
      }
      const [a, b] = [rank(s), rank(victim[1])];
      const i = a.findIndex((v, k) => v !== b[k]);
      if (i >= 0 && a[i] < b[i]) victim = entry;
    }
    if (!victim) return false;
    log(`session ${shortId(victim[0])} closed to make room (client ${victim[1].client})`);
    closeSession(...victim);
    return true;
  }

  async function openSession(client: string): Promise<Session> {
    const session: Session = {
      client,
      established: false,
      lastSeen: now(),
      calls: new Map(),
      transport: new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          sessions.set(id, session);
          log(`session ${shortId(id)} opened (client ${client})`);
        },
      }),
    };
    session.transport.onclose = () => {
      const id = session.transport.sessionId;
      if (id) sessions.delete(id);
      for (const call of session.calls.values()) call.abort(new Error('MCP session closed'));
      session.calls.clear();
      if (id) log(`session ${shortId(id)} closed`);
    };
    const server = createMcpServer(ctx, {
      ...options,
      calls,
      disconnectSignal: (extra) => session.calls.get(String(extra.requestId))?.signal,
    });
    await server.connect(session.transport);
    return session;
  }

  /** Ties each `tools/call` in this POST to the POST's response: closing it early means the client went away. */
  function watchToolCalls(session: Session, body: unknown, res: ServerResponse): void {
    const messages = (Array.isArray(body) ? body : [body]) as JSONRPCMessage[];
    for (const message of messages) {
      if (!('method' in message) || message.method !== 'tools/call' || !('id' in message)) continue;
      const key = String(message.id);
      const controller = new AbortController();
      session.calls.set(key, controller);
      res.on('close', () => {
        if (!res.writableFinished) controller.abort(new Error('HTTP client disconnected'));
        if (session.calls.get(key) === controller) session.calls.delete(key);
      });
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname === '/healthz' && req.method === 'GET') {
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ ok: true, sessions: sessions.size, calls: calls.active }));
      return;
    }
    if (url.pathname !== mcpPath) {
      res.writeHead(404).end();
      return;
    }
    if (!hostAllowed(req.headers.host) || !originAllowed(req.headers.origin)) {
      jsonRpcError(res, 403, -32000, 'forbidden host or origin');
      return;
    }
    if (options.bearerToken && !tokenMatches(req.headers.authorization, options.bearerToken)) {
      res.setHeader('www-authenticate', 'Bearer');
      jsonRpcError(res, 401, -32001, 'missing or wrong bearer token');
      return;
    }
    const client = clientOfRequest(req);
    const sessionId = req.headers['mcp-session-id'];
    const found = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    // Another client's session id (leaked, or guessed) is answered as an unknown one.
    const existing = found?.client === client ? found : undefined;
    if (req.method === 'POST') {
      const body = await readJson(req, options.maxBodyBytes ?? 4 * 1024 * 1024);
      let session = existing;
      if (!session) {
        if (sessionId) return jsonRpcError(res, 404, -32001, 'session not found: initialize a new one');
        const initialize = Array.isArray(body) ? body.some((m) => isInitializeRequest(m)) : isInitializeRequest(body);
        if (!initialize) return jsonRpcError(res, 400, -32000, 'no session: send an initialize request first');
        const retryAfter = String(Math.ceil(Math.min(idleMs, 60_000) / 1000));
        closeIdle(now());
        // A client at its quota makes room from its own sessions: a replayed or forgotten
        // initialize costs only its sender.
        while (heldBy(client) >= perClient) {
          if (makeRoom(client)) continue;
          res.setHeader('retry-after', retryAfter);
          const why =
            `too many MCP sessions for this client (${perClient} busy or opening, ` +
            'MCP_MAX_SESSIONS_PER_CLIENT): end one with DELETE or retry later';
          return jsonRpcError(res, 429, -32000, why);
        }
        while (sessions.size + opening >= maxSessions) {
          if (makeRoom()) continue;
          res.setHeader('retry-after', retryAfter);
          const why =
            `too many MCP sessions (${maxSessions} busy or opening, MCP_MAX_SESSIONS): ` +
            'end one with DELETE or retry later';
          return jsonRpcError(res, 503, -32000, why);
        }
        // Counted from now until its initialize is handled (then it is in `sessions`, or failed).
        opening += 1;
        openingBy.set(client, (openingBy.get(client) ?? 0) + 1);
        try {
          session = await openSession(client);
          session.lastSeen = now();
          await session.transport.handleRequest(req, res, body);
        } finally {
          opening -= 1;
          const left = (openingBy.get(client) ?? 1) - 1;
          if (left > 0) openingBy.set(client, left);
          else openingBy.delete(client);
        }
        return;
      }
      session.lastSeen = now();
      session.established = true;
      watchToolCalls(session, body, res);
      await session.transport.handleRequest(req, res, body);
      return;
    }
    if (req.method === 'GET' || req.method === 'DELETE') {
      if (!existing)
        return jsonRpcError(
          res,
          sessionId ? 404 : 400,
          -32000,
          sessionId ? 'session not found' : 'missing mcp-session-id header',
        );
      existing.lastSeen = now();
      existing.established = true;
      await existing.transport.handleRequest(req, res);
      return;
    }
    res.writeHead(405, { allow: 'GET, POST, DELETE' }).end();
  }

  const httpServer = http.createServer((req, res) => {
    handle(req, res).catch((err: Error & { status?: number }) => {
      log(`HTTP ${req.method} ${req.url}: ${err.message}`);
      if (!res.headersSent) jsonRpcError(res, err.status ?? 500, err.status === 400 ? -32700 : -32603, err.message);
      else res.end();
    });
  });
  const sweeper = setInterval(() => closeIdle(now()), Math.min(handshakeMs, 60_000));
  sweeper.unref();
  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(port, host, () => resolve());
  });
  port = (httpServer.address() as AddressInfo).port;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}${mcpPath}`;

  return {
    url,
    port,
    calls,
    sessions: () => sessions.size,
    async close() {
      clearInterval(sweeper);
      // Closing the transports aborts their open calls, which cancels their workflows.
      await Promise.all([...sessions.values()].map((s) => s.transport.close()));
      await calls.settled();
      httpServer.closeAllConnections();
      await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    },
  };
}
