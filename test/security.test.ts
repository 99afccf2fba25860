/**
 * Exposure and secrets: the MCP HTTP server asks for a bearer token when one is set, and an API
 * key given to the real worker process never shows up in its logs or in workflow history.
 */
import { Client, Connection } from '@temporalio/client';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startFlow } from '../access/flow-client';
import { startMcpHttpServer } from '../client/mcp/http';
import { platformCheckFlow } from '../flows/platform/contract';
import { startStandin, type StandinServer } from '../standin/server';

const ROOT = path.resolve(__dirname, '..');

describe('MCP over HTTP with a bearer token', () => {
  let client: Client;
  beforeAll(async () => {
    client = new Client({ connection: await Connection.connect({ address: inject('temporalAddress') }) });
  });
  afterAll(async () => client?.connection.close());

  it('refuses requests without the token and serves those with it', async () => {
    const server = await startMcpHttpServer({ client, taskQueue: 'unused' }, { port: 0, bearerToken: 's3cret' });
    try {
      const initialize = {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      };
      const post = (headers: Record<string, string>) =>
        fetch(server.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
          body: JSON.stringify(initialize),
        });
      expect((await post({})).status).toBe(401);
      expect((await post({ authorization: 'Bearer wrong!' })).status).toBe(401);
      const ok = await post({ authorization: 'Bearer s3cret' });
      expect(ok.status).toBe(200);
      expect(await ok.text()).toContain('"protocolVersion"');
    } finally {
      await server.close();
    }
  });
});

describe('an API key in the worker environment', () => {
  const SENTINEL = `sentinel-${randomBytes(8).toString('hex')}`;
  let standin: StandinServer;
  let client: Client;
  beforeAll(async () => {
    standin = await startStandin();
    client = new Client({
      connection: await Connection.connect({ address: inject('temporalAddress') }),
      namespace: 'security-test',
    });
  });
  afterAll(async () => {
    await standin?.close();
    await client?.connection.close();
  });

  it('never appears in the worker logs or in history, on the success or the rejected path', async () => {
    const child = spawn(path.join(ROOT, 'node_modules', '.bin', 'tsx'), ['workers/worker.ts'], {
      cwd: ROOT,
      detached: true,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        TEMPORAL_ADDRESS: inject('temporalAddress'),
        TEMPORAL_NAMESPACE: 'security-test',
        AGENT_FLOWS_MODEL: 'gemini',
        GEMINI_API_KEY: SENTINEL,
        GOOGLE_GEMINI_BASE_URL: standin.url,
        WORKER_METRICS_PORT: '0',
        LOG_LEVEL: 'debug',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    try {
      const ok = await startFlow(client, platformCheckFlow, { topic: 'battery' });
      await ok.result();
      standin.setFaults({ permanentStatus: 403 });
      const rejected = await startFlow(client, platformCheckFlow, { topic: 'memory' });
      await expect(rejected.result()).rejects.toThrow();
      // The worker ran on Gemini (its JSON startup line says so), so the key was in use.
      expect(output).toMatch(/"component":"worker"[^\n]*"model":"gemini"/);
      for (const handle of [ok, rejected]) {
        const history = JSON.stringify(await handle.fetchHistory(), (_k, v) =>
          v instanceof Uint8Array ? Buffer.from(v).toString('latin1') : v,
        );
        expect(history).not.toContain(SENTINEL);
      }
      expect(standin.stats().byTask['platform.summarize']).toBe(2);
    } finally {
      const exited = new Promise((r) => child.once('exit', r));
      process.kill(-child.pid!, 'SIGTERM');
      await exited;
    }
    expect(output).not.toContain(SENTINEL);
  }, 120_000);
});
