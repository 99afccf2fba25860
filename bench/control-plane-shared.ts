/**
 * Three control-plane instances on one shared registry (CONTROL_PLANE_REGISTRY=temporal):
 * a local Temporal dev server, a worker running only the `agentRegistry` workflows, three
 * `npm run control-plane` processes, 500 agents × 20 capabilities registered round-robin through
 * them, then autocannon on all three at once with the no-schema query mix. Prints req/s (sum),
 * p50/p95/p99 over every response, how long a registration on one instance takes to show on
 * another (the consistency window), and each instance's RSS.
 *
 *   npx tsx bench/control-plane-shared.ts [seconds = 10] [connections per instance = 10]
 */
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, makeTelemetryFilterString, Runtime, Worker } from '@temporalio/worker';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { syntheticAgent } from './synthetic-agents';
import { freePort } from '../workers/dev-server';
import { resolveTemporalCli } from '../workers/temporal-cli';

type AutocannonResult = { requests: { average: number; total: number }; errors: number; non2xx: number };
type Instance = PromiseLike<AutocannonResult> & {
  on(event: 'response', fn: (c: unknown, s: number, b: number, ms: number) => void): void;
};
// autocannon ships no type declarations.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const autocannon = require('autocannon') as (opts: Record<string, unknown>) => Instance;

const ROOT = path.resolve(__dirname, '..');
const AGENTS = 500;
const CAPABILITIES = 20;
const INSTANCES = 3;
const POLL_MS = 1000;
const API = '/api/v1/discovery/capabilities';
const QUERY_MIX = [
  '?limit=20',
  '?tags=nlp*&limit=50',
  '?agent=agent-0042',
  '?reasoner=*research*&format=compact&limit=10',
  '?format=xml&limit=10',
  '?health_status=active&limit=20&include_descriptions=false',
];
const TASK_QUEUE = 'bench-agent-registry';

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
const rssMb = (pid: number) =>
  Number(/^VmRSS:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

async function waitUp(url: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    try {
      if ((await fetch(`${url}/healthz`)).ok) return;
    } catch {
      // not yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`control plane at ${url} did not come up`);
}

async function startInstance(address: string): Promise<{ url: string; proc: ChildProcess }> {
  const port = await freePort();
  const proc = spawn(process.execPath, [path.join(ROOT, 'workers', 'launch.cjs'), 'server/main.ts'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      TEMPORAL_ADDRESS: address,
      CONTROL_PLANE_HOST: '127.0.0.1',
      CONTROL_PLANE_PORT: String(port),
      CONTROL_PLANE_REGISTRY: 'temporal',
      CONTROL_PLANE_REGISTRY_TASK_QUEUE: TASK_QUEUE,
      CONTROL_PLANE_REGISTRY_POLL_MS: String(POLL_MS),
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  await waitUp(url);
  return { url, proc };
}

async function main() {
  const seconds = Number(process.argv[2] ?? 10);
  const connections = Number(process.argv[3] ?? 10);
  console.log(
    `# shared-registry bench: ${INSTANCES} control-plane instances, ` +
      `${AGENTS} agents × ${CAPABILITIES} capabilities; ` +
      `${os.cpus().length} cores (load average ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}), ${seconds} s, ${connections} connections per instance`,
  );
  // The worker's core warns about every registry answer over 512 KB; the figures are what matter here.
  Runtime.install({
    logger: new DefaultLogger('ERROR'),
    shutdownSignals: [],
    telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'ERROR', other: 'ERROR' }) } },
  });
  const env = await TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'existing-path', path: resolveTemporalCli().path },
      extraArgs: ['--log-level', 'error'],
    },
  });
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue: TASK_QUEUE,
    workflowsPath: path.join(ROOT, 'flows', 'agent-registry', 'workflow.ts'),
  });
  const running = worker.run();
  const procs: ChildProcess[] = [];
  try {
    const instances = [];
    for (let i = 0; i < INSTANCES; i++) {
      const instance = await startInstance(env.address);
      procs.push(instance.proc);
      instances.push(instance);
    }
    const urls = instances.map((x) => x.url);
    const t0 = performance.now();
    let next = 1;
    await Promise.all(
      Array.from({ length: 20 }, async () => {
        while (next <= AGENTS) {
          const i = next++;
          const res = await fetch(`${urls[i % INSTANCES]}/api/v1/agents`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(syntheticAgent(i, { capabilities: CAPABILITIES })),
          });
          if (res.status !== 201) throw new Error(`registration ${i}: HTTP ${res.status} ${await res.text()}`);
        }
      }),
    );
    const registerMs = performance.now() - t0;
    console.log(
      `registered ${AGENTS} agents through ${INSTANCES} instances in ${(registerMs / 1000).toFixed(1)} s ` +
        `(${(AGENTS / (registerMs / 1000)).toFixed(0)} registrations/s)`,
    );

    // The consistency window: register on one instance, poll another until it lists the agent.
    const windows: number[] = [];
    for (let k = 0; k < 5; k++) {
      const id = `agent-window-${k}`;
      for (const url of urls.slice(1)) await fetch(`${url}${API}?agent=${id}`);
      const started = performance.now();
      await fetch(`${urls[0]}/api/v1/agents`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ...syntheticAgent(1, { capabilities: 2 }), agent_id: id }),
      });
      for (;;) {
        const body = (await (await fetch(`${urls[1 + (k % (INSTANCES - 1))]}${API}?agent=${id}`)).json()) as {
          capabilities: unknown[];
        };
        if (body.capabilities.length) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      windows.push(performance.now() - started);
    }
    windows.sort((a, b) => a - b);
    console.log(
      `registration on one instance visible on another after ${windows.map((w) => w.toFixed(0)).join(', ')} ms ` +
        `(poll interval ${POLL_MS} ms; cache TTL 30 s)`,
    );

    const times: number[] = [];
    const results = await Promise.all(
      urls.map((url) => {
        const run = autocannon({
          url,
          connections,
          duration: seconds,
          requests: QUERY_MIX.map((p) => ({ method: 'GET', path: `${API}${p}` })),
        });
        run.on('response', (_c, _s, _b, ms) => times.push(ms));
        return run;
      }),
    );
    times.sort((a, b) => a - b);
    const rps = results.reduce((sum, r) => sum + r.requests.average, 0);
    const errors = results.reduce((sum, r) => sum + r.errors + r.non2xx, 0);
    console.log('| instances | req/s (sum) | p50 ms | p95 ms | p99 ms | errors |');
    console.log('|---:|---:|---:|---:|---:|---:|');
    console.log(
      `| ${INSTANCES} | ${rps.toFixed(0)} | ${[50, 95, 99].map((p) => percentile(times, p).toFixed(2)).join(' | ')} | ${errors} |`,
    );
    console.log(`RSS per instance: ${procs.map((p) => `${rssMb(p.pid!).toFixed(0)} MB`).join(', ')}`);
  } finally {
    for (const p of procs) p.kill('SIGTERM');
    await Promise.all(procs.map((p) => (p.exitCode === null ? new Promise((r) => p.once('exit', r)) : undefined)));
    worker.shutdown();
    await running;
    await env.teardown();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
