/**
 * MCP over HTTP (client/mcp/http.ts) under a session flood, without Temporal (no flow is
 * called): one client's `initialize` calls, bare or replayed, cost only that client; a full
 * server makes room from the biggest holder's idle sessions instead of refusing everyone; a
 * session with a call running is never closed to make room; sessions that never got past
 * `initialize` expire quickly; a session answers only the client that opened it.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Client, Connection } from '@temporalio/client';
import type { IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientOf, startMcpHttpServer, type McpHttpOptions, type McpHttpServer } from '../../client/mcp/http';

let temporal: Client;
const servers: McpHttpServer[] = [];
let clock = 1_000_000;

/** A tool that runs until its request is cancelled or its session closes: a call in progress. */
const waitTool = (server: McpServer) =>
  server.registerTool('wait', { description: 'waits until cancelled' }, (extra) => {
    return new Promise((resolve) =>
      extra.signal.addEventListener('abort', () => resolve({ content: [{ type: 'text', text: 'stopped' }] })),
    );
  });

async function serve(options: McpHttpOptions = {}): Promise<McpHttpServer> {
  const server = await startMcpHttpServer(
    { client: temporal, taskQueue: 'unused' },
    {
      port: 0,
      flows: [],
      registrars: [waitTool],
      now: () => clock,
      // Tests stand in for clients on other addresses with a header; the default groups by address.
      clientOf: (req: IncomingMessage) => String(req.headers['x-test-client'] ?? 'local'),
      ...options,
    },
  );
  servers.push(server);
  return server;
}

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

function post(server: McpHttpServer, body: unknown, headers: Record<string, string> = {}, signal?: AbortSignal) {
  return fetch(server.url, { method: 'POST', headers: { ...HEADERS, ...headers }, body: JSON.stringify(body), signal });
}

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'test', version: '1' } },
};

/** Opens a session as `who`; with `establish`, also sends what a real client sends next. */
async function open(server: McpHttpServer, who: string, establish = true): Promise<{ status: number; id: string }> {
  const res = await post(server, INITIALIZE, { 'x-test-client': who });
  await res.text();
  const id = res.headers.get('mcp-session-id') ?? '';
  if (res.status === 200 && establish) {
    const ack = await post(
      server,
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { 'x-test-client': who, 'mcp-session-id': id },
    );
    expect(ack.status).toBe(202);
  }
  return { status: res.status, id };
}

/** The status of a ping in the session (200 while it is open, 404 once closed). */
async function ping(server: McpHttpServer, who: string, id: string): Promise<number> {
  const res = await post(
    server,
    { jsonrpc: '2.0', id: 7, method: 'ping' },
    { 'x-test-client': who, 'mcp-session-id': id },
  );
  await res.text();
  return res.status;
}

/** Starts the `wait` tool in the session; the returned function ends the call (drops its connection). */
async function busy(server: McpHttpServer, who: string, id: string): Promise<() => void> {
  const abort = new AbortController();
  const res = await post(
    server,
    { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'wait', arguments: {} } },
    { 'x-test-client': who, 'mcp-session-id': id },
    abort.signal,
  );
  expect(res.status).toBe(200);
  return () => abort.abort();
}

beforeAll(() => {
  temporal = new Client({ connection: Connection.lazy({ address: '127.0.0.1:1' }) });
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

describe('MCP HTTP sessions under a flood', () => {
  it('100 bare initialize calls (all defaults) lock no other client out', async () => {
    // The defaults of `npm run mcp:http`: every local caller is one client (loopback).
    const server = await serve({ clientOf: undefined });
    const open200 = async (establish: boolean) => {
      const res = await post(server, INITIALIZE);
      await res.text();
      if (establish) {
        const id = res.headers.get('mcp-session-id')!;
        await post(server, { jsonrpc: '2.0', method: 'notifications/initialized' }, { 'mcp-session-id': id });
      }
      return { status: res.status, id: res.headers.get('mcp-session-id') ?? '' };
    };
    const victim = await open200(true);
    const flood = [];
    for (let i = 0; i < 100; i++) flood.push((await open200(false)).status);
    expect(flood.every((s) => s === 200)).toBe(true);
    expect(server.sessions()).toBeLessThanOrEqual(100);
    // The session opened before the flood still works, and a newcomer still gets one.
    expect(await ping(server, 'local', victim.id)).toBe(200);
    const newcomer = await open200(true);
    expect(newcomer.status).toBe(200);
    expect(await ping(server, 'local', newcomer.id)).toBe(200);
    // The flood kept to one client's quota (a quarter of MCP_MAX_SESSIONS).
    expect(server.sessions()).toBeLessThanOrEqual(25);
  });

  it("one client's flood, bare or established, costs only that client its sessions", async () => {
    const server = await serve({ maxSessions: 8, maxSessionsPerClient: 2 });
    const victim = await open(server, 'victim');
    for (let i = 0; i < 30; i++) {
      // Established and kept busy with pings, as a determined flooder would.
      const s = await open(server, 'flooder', i % 2 === 0);
      expect(s.status).toBe(200);
      clock += 1;
      expect(await ping(server, 'flooder', s.id)).toBe(200);
    }
    expect(server.sessions()).toBe(3);
    expect(await ping(server, 'victim', victim.id)).toBe(200);
    for (const who of ['a', 'b', 'c']) expect((await open(server, who)).status).toBe(200);
    expect(await ping(server, 'victim', victim.id)).toBe(200);
    // Concurrent initialize calls cannot slip past the quota either.
    const burst = await Promise.all(Array.from({ length: 20 }, () => open(server, 'burst', false)));
    expect(burst.every((r) => r.status === 200 || r.status === 429)).toBe(true);
    expect(burst.filter((r) => r.status === 200).length).toBeGreaterThan(0);
    expect(server.sessions()).toBeLessThanOrEqual(8);
  });

  it('a full server closes an idle session of the biggest holder, never a smaller one', async () => {
    const server = await serve({ maxSessions: 4, maxSessionsPerClient: 3 });
    const big = [];
    for (let i = 0; i < 3; i++) {
      big.push(await open(server, 'big'));
      clock += 1000;
    }
    const small = await open(server, 'small');
    clock += 1000;
    // Used last, yet the biggest holder's: its least recently used goes first.
    expect(await ping(server, 'big', big[0].id)).toBe(200);
    expect((await open(server, 'newcomer')).status).toBe(200);
    expect(server.sessions()).toBe(4);
    expect(await ping(server, 'small', small.id)).toBe(200);
    expect(await ping(server, 'big', big[0].id)).toBe(200);
    expect(await ping(server, 'big', big[1].id)).toBe(404);
    expect(await ping(server, 'big', big[2].id)).toBe(200);
  });

  it('never closes a session with a call running: then the newcomer is told to come back', async () => {
    const server = await serve({ maxSessions: 3, maxSessionsPerClient: 2 });
    const a1 = await open(server, 'a');
    const a2 = await open(server, 'a');
    const stopA1 = await busy(server, 'a', a1.id);
    const stopA2 = await busy(server, 'a', a2.id);
    const own = await post(server, INITIALIZE, { 'x-test-client': 'a' });
    expect(own.status).toBe(429);
    expect(own.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(((await own.json()) as { error: { message: string } }).error.message).toMatch(/MCP_MAX_SESSIONS_PER_CLIENT/);
    const b = await open(server, 'b');
    const stopB = await busy(server, 'b', b.id);
    const full = await post(server, INITIALIZE, { 'x-test-client': 'c' });
    expect(full.status).toBe(503);
    expect(full.headers.get('retry-after')).toMatch(/^\d+$/);
    await full.text();
    // A call ends: its session is idle again and gives way.
    stopA1();
    await expect.poll(async () => (await open(server, 'c')).status).toBe(200);
    expect(await ping(server, 'a', a2.id)).toBe(200);
    expect(await ping(server, 'b', b.id)).toBe(200);
    stopA2();
    stopB();
  });

  it('closes a session that never got past initialize after the handshake time, an idle one later', async () => {
    const server = await serve({ sessionIdleMs: 600_000, handshakeMs: 30_000 });
    const bare = await open(server, 'x', false);
    const used = await open(server, 'x');
    clock += 30_001;
    // Expired sessions are swept before any new one opens.
    expect((await open(server, 'y')).status).toBe(200);
    expect(await ping(server, 'x', bare.id)).toBe(404);
    expect(await ping(server, 'x', used.id)).toBe(200);
    clock += 600_001;
    expect((await open(server, 'y')).status).toBe(200);
    expect(await ping(server, 'x', used.id)).toBe(404);
  });
});

describe('MCP HTTP session ids', () => {
  it('are random, and answer only the client that opened them', async () => {
    const server = await serve({ maxSessions: 200, maxSessionsPerClient: 200 });
    const ids = new Set<string>();
    for (let i = 0; i < 60; i++) ids.add((await open(server, 'owner', false)).id);
    expect(ids.size).toBe(60);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const id = [...ids][0];
    // Another client holding the id (from a log, a proxy, a guess) gets what an unknown id gets.
    expect(await ping(server, 'thief', id)).toBe(404);
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(server.url, {
        method,
        headers: { ...HEADERS, 'x-test-client': 'thief', 'mcp-session-id': id },
      });
      expect(res.status, method).toBe(404);
      await res.text();
    }
    expect(await ping(server, 'owner', id)).toBe(200);
    expect(await ping(server, 'owner', crypto.randomUUID())).toBe(404);
    expect(await ping(server, 'owner', id.toUpperCase())).toBe(404);
  });

  it('a replayed initialize inside a session opens nothing', async () => {
    const server = await serve();
    const s = await open(server, 'r');
    const before = server.sessions();
    const replay = await post(server, INITIALIZE, { 'x-test-client': 'r', 'mcp-session-id': s.id });
    await replay.text();
    expect(replay.status).toBe(400);
    expect(server.sessions()).toBe(before);
    expect(await ping(server, 'r', s.id)).toBe(200);
  });

  it('groups addresses into clients: loopback is one, an IPv6 /64 is one', () => {
    expect(clientOf('127.0.0.1')).toBe('loopback');
    expect(clientOf('127.9.8.7')).toBe('loopback');
    expect(clientOf('::ffff:127.0.0.1')).toBe('loopback');
    expect(clientOf('::1')).toBe('loopback');
    expect(clientOf('10.1.2.3')).toBe('10.1.2.3');
    expect(clientOf('::ffff:10.1.2.3')).toBe('10.1.2.3');
    expect(clientOf('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64');
    expect(clientOf('2001:0db8:0001:0002::9')).toBe('2001:db8:1:2::/64');
    expect(clientOf('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(clientOf('fe80::1')).toBe('fe80:0:0:0::/64');
    expect(clientOf(undefined)).toBe('unknown');
  });
});
