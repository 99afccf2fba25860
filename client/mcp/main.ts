/**
 * The agent-flows MCP server.
 *
 *   npm run mcp                  stdio (what Claude Desktop and most MCP clients launch)
 *   npm run mcp:http             Streamable HTTP on http://127.0.0.1:8787/mcp
 *     --host <host> --port <n>   listen elsewhere (MCP_HOST / MCP_PORT)
 *
 * Connects to Temporal with the `temporal` CLI's settings (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE,
 * TEMPORAL_API_KEY, TLS, profiles) and starts flows on task queue `agent-flows`, where
 * `npm run worker` (or `npm start`) runs them. Logs go to stderr: stdout is the MCP channel.
 *
 * A closed stdin, SIGINT or SIGTERM cancels the workflows of calls still running, then exits.
 */
import { loadTracingSettings, setupTracing } from '../../workers/tracing';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { Command } from 'commander';
import { TASK_QUEUE } from '../../contracts/common';
import { loadConfigOrExit } from '../../contracts/config';
import { flows } from '../../contracts/flows';
import { connectClient } from '../flow-client';
import { listening } from '../../workers/ports';
import { useProcessLogging } from '../../workers/logger';
import { startMcpHttpServer } from './http';
import { createMcpServer, FlowCalls } from './server';

// JSON lines like every long-running process, on stderr: over stdio, stdout is the MCP protocol.
const mcpLog = useProcessLogging('mcp', { stderr: true });
const log = (line: string) => mcpLog.info(line);

interface Options {
  http?: boolean;
  host: string;
  port: string;
  taskQueue: string;
}

async function main(argv: string[]): Promise<void> {
  // Every variable (MCP_PORT, TEMPORAL_ADDRESS, MCP_TOKEN...) is validated first: exit 2 naming a bad one.
  const config = loadConfigOrExit();
  const program = new Command('agent-flows-mcp')
    .description('MCP server exposing every agent-flows flow as a tool')
    .option('--http', 'serve Streamable HTTP instead of stdio')
    .option('--host <host>', 'HTTP listen address', config.MCP_HOST)
    .option('--port <port>', 'HTTP port (0 picks a free one)', String(config.MCP_PORT))
    // Tests run their own worker on a queue of their own; everyone else uses agent-flows.
    .option('--task-queue <queue>', 'task queue to start flows on (tests only)', config.MCP_TASK_QUEUE ?? TASK_QUEUE)
    .parse(argv, { from: 'user' });
  const opts = program.opts<Options>();

  const client = await connectClient();
  const ctx = { client, taskQueue: opts.taskQueue };
  const tools = flows.map((f) => f.mcpTool).join(', ');
  let stopping = false;

  if (opts.http) {
    const limits = {
      maxSessions: config.MCP_MAX_SESSIONS,
      maxSessionsPerClient: config.MCP_MAX_SESSIONS_PER_CLIENT,
      sessionIdleMs: config.MCP_SESSION_IDLE_MS,
    };
    const server = await listening('The MCP HTTP server', `${opts.host}:${opts.port}`, 'MCP_PORT (or --port)', () =>
      startMcpHttpServer(ctx, {
        host: opts.host,
        port: Number(opts.port),
        log,
        bearerToken: config.MCP_TOKEN,
        workflowIdSecret: config.MCP_WORKFLOW_ID_SECRET,
        ...limits,
      }),
    );
    log(`listening on ${server.url} (tools: ${tools}; task queue ${opts.taskQueue})`);
    const shutdown = async (why: string) => {
      if (stopping) return;
      stopping = true;
      log(`${why}: closing sessions`);
      await server.close();
      await client.connection.close();
      process.exit(0);
    };
    process.on('SIGINT', () => void shutdown('SIGINT'));
    process.on('SIGTERM', () => void shutdown('SIGTERM'));
    return;
  }

  const disconnected = new AbortController();
  const calls = new FlowCalls(log);
  const server = createMcpServer(ctx, {
    calls,
    log,
    disconnectSignal: () => disconnected.signal,
    workflowIdSecret: config.MCP_WORKFLOW_ID_SECRET,
  });
  const shutdown = async (why: string) => {
    if (stopping) return;
    stopping = true;
    log(`${why}: cancelling ${calls.active} running call(s)`);
    disconnected.abort(new Error(why));
    await calls.settled();
    await server.close().catch(() => undefined);
    await client.connection.close().catch(() => undefined);
    process.exit(0);
  };
  // The SDK's stdio transport does not notice the client going away: a closed stdin is the sign.
  process.stdin.once('end', () => void shutdown('stdin closed'));
  process.stdin.once('close', () => void shutdown('stdin closed'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  await server.connect(new StdioServerTransport());
  log(`serving on stdio (tools: ${tools}; task queue ${opts.taskQueue})`);
}

// OTEL_EXPORTER_OTLP_ENDPOINT set: each tool's workflow start is the root of that flow's trace.
setupTracing(loadTracingSettings(), 'agent-flows-mcp');
main(process.argv.slice(2)).catch((err) => {
  mcpLog.error(`failed to start: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
