/**
 * The MCP server over Streamable HTTP (`POST/GET/DELETE /mcp`), with sessions so that MCP
 * cancellation notifications reach the call they cancel.
 *
 * The SDK does not turn a dropped HTTP connection into an aborted tool call, so each `tools/call`
 * POST is watched here: if its response closes before the answer was written, the call's
 * disconnect signal aborts and the workflow is cancelled. Binds 127.0.0.1 by default and checks
 * the Host and Origin headers against local names (DNS-rebinding protection). Sessions are
 * capped (an `initialize` beyond `maxSessions` is answered 503) and closed when idle.
 */
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
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

function jsonRpcError(res: ServerResponse, status: number, code: number, message: string): void {
  res
    .writeHead(status, { 'content-type': 'application/json' })
    .end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

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
  const idleMs = options.sessionIdleMs ?? 10 * 60 * 1000;
  /** Sessions being opened (not yet in `sessions`): they count against the cap too. */
  let opening = 0;
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

  function closeIdle(now: number): void {
    for (const [id, session] of sessions) {
      if (session.calls.size === 0 && now - session.lastSeen > idleMs) {
        sessions.delete(id); // at once: the slot may be needed by the caller
        void session.transport.close();
      }
    }
  }

  async function openSession(): Promise<Session> {
    const session: Session = {
      lastSeen: Date.now(),
      calls: new Map(),
      transport: new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          sessions.set(id, session);
          log(`session ${id} opened`);
        },
      }),
    };
    session.transport.onclose = () => {
      const id = session.transport.sessionId;
      if (id) sessions.delete(id);
      for (const call of session.calls.values()) call.abort(new Error('MCP session closed'));
      session.calls.clear();
      if (id) log(`session ${id} closed`);
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
    const sessionId = req.headers['mcp-session-id'];
    const existing = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    if (req.method === 'POST') {
      const body = await readJson(req, options.maxBodyBytes ?? 4 * 1024 * 1024);
      let session = existing;
      if (!session) {
        if (sessionId) return jsonRpcError(res, 404, -32001, 'session not found: initialize a new one');
        const initialize = Array.isArray(body) ? body.some((m) => isInitializeRequest(m)) : isInitializeRequest(body);
        if (!initialize) return jsonRpcError(res, 400, -32000, 'no session: send an initialize request first');
        if (sessions.size + opening >= maxSessions) closeIdle(Date.now());
        if (sessions.size + opening >= maxSessions) {
          res.setHeader('retry-after', String(Math.ceil(Math.min(idleMs, 60_000) / 1000)));
          const why =
            `too many MCP sessions (${maxSessions} open, MCP_MAX_SESSIONS): ` + 'end one with DELETE or retry later';
          return jsonRpcError(res, 503, -32000, why);
        }
        // Counted from now until its initialize is handled (then it is in `sessions`, or failed).
        opening += 1;
        try {
          session = await openSession();
          session.lastSeen = Date.now();
          await session.transport.handleRequest(req, res, body);
        } finally {
          opening -= 1;
        }
        return;
      }
      session.lastSeen = Date.now();
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
      existing.lastSeen = Date.now();
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
  const sweeper = setInterval(() => closeIdle(Date.now()), Math.min(idleMs, 60_000));
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
