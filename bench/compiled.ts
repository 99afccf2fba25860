/**
 * Memory of the processes compiled (`npm run build`: plain node, prebuilt workflow bundle) against
 * the same processes run from the sources under tsx (workflows bundled by webpack at start).
 * Prints RSS after start and the peak while N platformCheck flows run (worker), and RSS after
 * start and after a burst of discovery requests (control plane). Figures only, no assertions.
 *
 *   npx tsx bench/compiled.ts [flows = 50]
 *
 * Builds into a temporary folder inside the project. A current `dist/` would be used by the tsx
 * run too (that is what `npm start` does), so the tsx worker line says which bundle it loaded.
 */
import { Client, Connection } from '@temporalio/client';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { TASK_QUEUE } from '../contracts/common';
import { PROJECT_ROOT as ROOT } from '../plumbing/project-root';
import { startStandin } from '../standin/server';
import { build } from '../workers/build';
import { freePort, startDevServer } from '../workers/dev-server';

const FLOWS = Number(process.argv[2] ?? 50);

const rssMb = (pid: number, field: 'VmRSS' | 'VmHWM' = 'VmRSS'): number => {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith(field))!;
  return Math.round(Number(line.split(/\s+/)[1]) / 1024);
};

function start(args: string[], env: Record<string, string>): ChildProcess & { output: () => string } {
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  child.stdout!.on('data', (d) => (text += d));
  child.stderr!.on('data', (d) => (text += d));
  return Object.assign(child, { output: () => text });
}

async function until(check: () => boolean, what: string, ms = 120_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

async function main() {
  const outDir = mkdtempSync(path.join(ROOT, '.build-bench-'));
  const standin = await startStandin({ port: 0 });
  const server = await startDevServer({ port: await freePort(), quiet: true });
  const rows: string[][] = [];
  try {
    await build(outDir);
    const connection = await Connection.connect({ address: server.address });
    const client = new Client({ connection });
    const env = {
      TEMPORAL_ADDRESS: server.address,
      AGENT_FLOWS_MODEL: 'standin',
      GOOGLE_GEMINI_BASE_URL: standin.url,
      WORKER_METRICS_PORT: '0',
      LOG_LEVEL: 'warn',
    };

    for (const [mode, args] of [
      ['tsx (sources)', ['--import', 'tsx', 'workers/worker.ts']],
      ['compiled', [path.join(outDir, 'workers', 'worker.js')]],
    ] as const) {
      const worker = start([...args], env);
      await until(
        () => worker.output().includes('"message":"polling task queue"') || worker.exitCode !== null,
        `${mode} worker`,
      );
      if (worker.exitCode !== null) throw new Error(`${mode} worker exited: ${worker.output()}`);
      const bundle = worker.output().includes('"message":"prebuilt workflow bundle"')
        ? 'prebuilt bundle'
        : 'bundled at start';
      await new Promise((r) => setTimeout(r, 2000));
      const idle = rssMb(worker.pid!);
      const started = Date.now();
      await Promise.all(
        Array.from({ length: FLOWS }, (_, i) =>
          client.workflow.execute('platformCheck', {
            taskQueue: TASK_QUEUE,
            workflowId: `bench-compiled-${mode.split(' ')[0]}-${started}-${i}`,
            args: [{ topic: 'battery' }],
          }),
        ),
      );
      rows.push([
        `worker, ${mode}, ${bundle}`,
        `${idle} MB`,
        `${rssMb(worker.pid!, 'VmHWM')} MB`,
        `${FLOWS} flows in ${((Date.now() - started) / 1000).toFixed(1)} s`,
      ]);
      await stop(worker);
    }

    for (const [mode, args] of [
      ['tsx (sources)', ['--optimize-for-size', '--max-semi-space-size=1', '--import', 'tsx', 'server/main.ts']],
      ['compiled', ['--optimize-for-size', '--max-semi-space-size=1', path.join(outDir, 'server', 'main.js')]],
    ] as const) {
      const port = await freePort();
      const storeDir = mkdtempSync(path.join(outDir, 'cp-'));
      const cp = start([...args], {
        ...env,
        CONTROL_PLANE_PORT: String(port),
        CONTROL_PLANE_STORE: path.join(storeDir, 'agents.jsonl'),
      });
      await until(
        () => cp.output().includes('/api/v1/discovery/capabilities') || cp.exitCode !== null,
        `${mode} control plane`,
      );
      await new Promise((r) => setTimeout(r, 1000));
      const idle = rssMb(cp.pid!);
      for (let round = 0; round < 50; round++) {
        await Promise.all(
          Array.from({ length: 20 }, () =>
            fetch(`http://127.0.0.1:${port}/api/v1/discovery/capabilities?limit=20`).then((r) => r.arrayBuffer()),
          ),
        );
      }
      rows.push([`control plane, ${mode}`, `${idle} MB`, `${rssMb(cp.pid!, 'VmHWM')} MB`, '1,000 discovery requests']);
      await stop(cp);
    }
    await connection.close();
  } finally {
    await server.stop();
    await standin.close();
    rmSync(outDir, { recursive: true, force: true });
  }
  console.log(`\n| process | RSS after start | peak RSS | load |\n|---|---|---|---|`);
  for (const row of rows) console.log(`| ${row.join(' | ')} |`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
