/**
 * Memory of an MCP HTTP session flood: `initialize` calls (default 2,000) against a server
 * with a session cap (default 100, the MCP_MAX_SESSIONS default). Prints the answers' statuses,
 * the sessions left open and the RSS growth after a warm-up. Run it once per cap (a fresh
 * process each, RSS rarely shrinks). No Temporal server is needed: no tool is called.
 *
 *   node --expose-gc --import tsx bench/mcp-sessions.ts [calls] [maxSessions]
 */
import { Client, Connection } from '@temporalio/client';
import { startMcpHttpServer } from '../client/mcp/http';

const calls = Number(process.argv[2] ?? 2000);
const cap = Number(process.argv[3] ?? 100);
const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'flood', version: '1' } },
};
const post = (url: string) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify(initialize),
  });
const gc = () => (globalThis as { gc?: () => void }).gc?.();

async function flood(maxSessions: number): Promise<void> {
  const client = new Client({ connection: Connection.lazy({ address: '127.0.0.1:1' }) });
  const server = await startMcpHttpServer({ client, taskQueue: 'unused' }, { port: 0, maxSessions });
  // Warm-up (module loading, JIT) in a session that is then closed.
  const warm = await post(server.url);
  await warm.text();
  const session = warm.headers.get('mcp-session-id') ?? '';
  await fetch(server.url, { method: 'DELETE', headers: { 'mcp-session-id': session } });
  gc();
  const before = process.memoryUsage().rss;
  const statuses: Record<number, number> = {};
  for (let i = 0; i < calls; i++) {
    const res = await post(server.url);
    statuses[res.status] = (statuses[res.status] ?? 0) + 1;
    await res.text();
  }
  gc();
  const growth = (process.memoryUsage().rss - before) / 1e6;
  const open = server.sessions();
  console.log(JSON.stringify({ calls, maxSessions, statuses, open_sessions: open, rss_growth_mb: +growth.toFixed(1) }));
  await server.close();
}

void (async () => {
  await flood(cap);
  process.exit(0);
})();
