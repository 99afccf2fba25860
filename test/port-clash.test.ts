/**
 * A port clash names the component, the address and the setting that moves it, in every entry
 * point that listens: the stack, the stand-in, the control plane, the worker's metrics, the codec
 * endpoint, MCP HTTP and the dev server's Web UI.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { startDevServer, freePort } from '../workers/dev-server';

const ROOT = path.resolve(__dirname, '..');
let holder: net.Server;
let busy: number;

beforeAll(async () => {
  holder = net.createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  busy = (holder.address() as net.AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => holder.close(() => resolve())));

function run(
  script: string,
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(path.join(ROOT, 'node_modules', '.bin', 'tsx'), [script, ...args], {
      cwd: mkdtempSync(path.join(os.tmpdir(), 'port-clash-')),
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        TEMPORAL_ADDRESS: inject('temporalAddress'),
        WORKER_METRICS_PORT: '0',
        LOG_LEVEL: 'warn',
        ...env,
      },
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d));
    child.stderr.on('data', (d: Buffer) => (output += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

const named = (component: string, setting: string) =>
  new RegExp(
    `${component} cannot listen on 127\\.0\\.0\\.1:\\d+: the port is already in use \\(EADDRINUSE\\)\\. Stop what holds it, or set ${setting} to another port`,
  );

describe('a port clash', () => {
  it('is named by every entry point that listens', async () => {
    const script = (p: string) => path.join(ROOT, p);
    const key = Buffer.alloc(32, 7).toString('base64');
    const [standin, controlPlane, worker, mcp, stackStandin, stackCodec] = await Promise.all([
      run(script('standin/main.ts'), [], { STANDIN_PORT: String(busy) }),
      run(script('server/main.ts'), [], { CONTROL_PLANE_PORT: String(busy) }),
      run(script('workers/worker.ts'), [], { WORKER_METRICS_PORT: String(busy) }),
      run(script('client/mcp/main.ts'), ['--http', '--port', String(busy)], {}),
      run(script('workers/stack.ts'), [], { STANDIN_PORT: String(busy) }),
      run(script('workers/stack.ts'), [], { AGENT_FLOWS_PAYLOAD_KEY: key, CODEC_PORT: String(busy) }),
    ]);
    expect(standin.output).toMatch(named('The model stand-in', 'STANDIN_PORT'));
    expect(controlPlane.output).toMatch(named('The control plane', 'CONTROL_PLANE_PORT'));
    expect(worker.output).toMatch(named("The worker's metrics endpoint", 'WORKER_METRICS_PORT \\(0 turns it off\\)'));
    expect(mcp.output).toMatch(named('The MCP HTTP server', 'MCP_PORT \\(or --port\\)'));
    expect(stackStandin.output).toMatch(named('The model stand-in', 'STANDIN_PORT'));
    expect(stackCodec.output).toMatch(named('The codec endpoint', 'CODEC_PORT'));
    for (const r of [standin, controlPlane, worker, mcp, stackStandin, stackCodec]) expect(r.code, r.output).toBe(1);
  }, 120_000);

  it("of the dev server's Web UI names TEMPORAL_UI_PORT before the CLI starts", async () => {
    await expect(startDevServer({ port: await freePort(), uiPort: busy, quiet: true })).rejects.toThrow(
      named("The Temporal dev server's Web UI", 'TEMPORAL_UI_PORT'),
    );
  });

  it("of the stack's metrics port stops the stack before it starts anything", async () => {
    const stack = await run(path.join(ROOT, 'workers/stack.ts'), [], {
      WORKER_METRICS_PORT: String(busy),
      TEMPORAL_ADDRESS: `127.0.0.1:${await freePort()}`,
    });
    expect(stack.output).toMatch(named("The worker's metrics endpoint", 'WORKER_METRICS_PORT \\(0 turns it off\\)'));
    expect(stack.output).not.toMatch(/dev server started|stand-in started/);
    expect(stack.code).toBe(1);
  }, 60_000);
});
