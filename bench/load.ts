/**
 * Load and soak against real worker processes on a local dev server.
 *
 *   npx tsx bench/load.ts [--flows 200] [--workers 1] [--fault-rate 0]
 *   npx tsx bench/load.ts --soak-minutes 10 --rate 30 [--workers 1]
 *
 * Load: starts --flows workflows of mixed types at once (round-robin over every registered
 * flow's examples), against --workers worker processes, and reports flows per minute, p50/p95
 * completion time, worker RSS, and failed activity attempts beyond the injected faults.
 * Soak: starts flows at a steady --rate per minute for --soak-minutes, sampling worker and
 * control-plane RSS every 10 s, and reports whether memory stayed flat.
 */
import { Client, Connection } from '@temporalio/client';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startFlow } from '../access/flow-client';
import { emitSummary } from './summary';
import { flows } from '../flows/registry';
import { startStandin } from '../standin/server';
import { freePort, startDevServer } from '../workers/dev-server';
import { startSolverWorker } from '../workers/solver-worker';
import { checkBuild } from '../workers/build-stamp';
import { npmScriptLaunch } from './npm-script';

const ROOT = path.resolve(__dirname, '..');
const { values: args } = parseArgs({
  options: {
    flows: { type: 'string', default: '200' },
    workers: { type: 'string', default: '1' },
    'fault-rate': { type: 'string', default: '0' },
    'soak-minutes': { type: 'string' },
    rate: { type: 'string', default: '30' },
    'control-plane': { type: 'boolean', default: true },
    /** Node flags added to the worker's, to try one (e.g. `--worker-flags=--max-semi-space-size=4`). */
    'worker-flags': { type: 'string', default: '' },
  },
});

function rssMb(pid: number): number {
  try {
    const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
    return kb / 1024;
  } catch {
    return 0;
  }
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

/** The node flags and variables `npm run worker` (and the image) start the worker with: the bench measures that process. */
const { env: WORKER_ENV, nodeFlags: WORKER_NODE_FLAGS } = npmScriptLaunch('worker');

function spawnNode(script: string, env: Record<string, string>, nodeFlags: string[] = []): ChildProcess {
  // As `npm run worker` starts it: the build in dist/ when current (run `npm run build` first),
  // else the sources through tsx; in this process either way, so the pid is the one measured.
  return spawn(process.execPath, [...nodeFlags, path.join(ROOT, 'workers', 'launch.cjs'), script], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

async function main() {
  const server = await startDevServer({ port: await freePort(), quiet: true });
  const faultRate = Number(args['fault-rate']);
  const standin = await startStandin({
    faults: faultRate > 0 ? { rate429: faultRate / 2, rate503: faultRate / 2, seed: 7 } : {},
  });
  const env = {
    TEMPORAL_ADDRESS: server.address,
    GOOGLE_GEMINI_BASE_URL: standin.url,
    AGENT_FLOWS_MODEL: 'standin',
    WORKER_METRICS_PORT: '0',
    ARTIFACT_DIR: path.join(ROOT, 'out', 'bench'),
  };
  const workers = Array.from({ length: Number(args.workers) }, () =>
    spawnNode('workers/worker.ts', { ...WORKER_ENV, ...env }, [
      ...WORKER_NODE_FLAGS,
      ...args['worker-flags'].split(/\s+/).filter(Boolean),
    ]),
  );
  // Schedules from SCR files are solved by the Python CP-SAT worker, as with `npm start`.
  const solver = await startSolverWorker({ address: server.address, readyTimeoutMs: 300_000 });
  let controlPlane: ChildProcess | undefined;
  let controlPlaneUrl: string | undefined;
  if (args['control-plane'] && args['soak-minutes']) {
    const port = await freePort();
    controlPlane = spawnNode('server/main.ts', { ...env, CONTROL_PLANE_PORT: String(port) });
    controlPlaneUrl = `http://127.0.0.1:${port}`;
  }
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection });
  const inputs = flows.flatMap((flow) => flow.examples.map((input) => ({ flow, input })));
  const startedAt: number[] = [];
  const durations: Array<{ flow: string; ms: number; ok: boolean }> = [];
  const rssSamples: Array<{ t: number; workers: number[]; controlPlane?: number }> = [];
  const sample = () =>
    rssSamples.push({
      t: performance.now(),
      workers: workers.map((w) => rssMb(w.pid!)),
      controlPlane: controlPlane ? rssMb(controlPlane.pid!) : undefined,
    });
  let peak = 0;
  const peakTimer = setInterval(() => {
    peak = Math.max(peak, ...workers.map((w) => rssMb(w.pid!)));
  }, 500);

  const runOne = async (i: number) => {
    const { flow, input: example } = inputs[i % inputs.length];
    // Flows with a natural identity (one EADS interview per project) need a distinct key per run.
    const input =
      flow.workflowId && typeof example === 'object' && example && 'projectId' in example
        ? { ...example, projectId: `${String(example.projectId)}-load-${i}` }
        : example;
    const t0 = performance.now();
    startedAt.push(t0);
    try {
      const handle = await startFlow(
        client,
        flow,
        input,
        flow.workflowId ? {} : { workflowId: `load-${flow.slug}-${i}-${Date.now().toString(36)}` },
      );
      await handle.result();
      durations.push({ flow: flow.type, ms: performance.now() - t0, ok: true });
      return handle.workflowId;
    } catch (err) {
      durations.push({ flow: flow.type, ms: performance.now() - t0, ok: false });
      console.error(
        `  ${flow.type} failed: ${(err as Error).cause instanceof Error ? ((err as Error).cause as Error).message : (err as Error).message}`,
      );
      return undefined;
    }
  };

  // Give the workers time to bundle their workflows and start polling.
  await new Promise((r) => setTimeout(r, 8000));
  const t0 = performance.now();
  let ids: Array<string | undefined>;
  if (args['soak-minutes']) {
    const minutes = Number(args['soak-minutes']);
    const intervalMs = 60_000 / Number(args.rate);
    const pending: Array<Promise<string | undefined>> = [];
    const sampler = setInterval(sample, 10_000);
    sample();
    let i = 0;
    while (performance.now() - t0 < minutes * 60_000) {
      pending.push(runOne(i++));
      if (controlPlaneUrl)
        void fetch(`${controlPlaneUrl}/api/v1/discovery/capabilities?include_input_schema=true`).catch(() => undefined);
      await new Promise((r) => setTimeout(r, intervalMs));
    }
    ids = await Promise.all(pending);
    clearInterval(sampler);
    sample();
  } else {
    sample();
    ids = await Promise.all(Array.from({ length: Number(args.flows) }, (_, i) => runOne(i)));
    sample();
  }
  const wallMs = performance.now() - t0;
  clearInterval(peakTimer);

  // Activities that failed for good, from the histories.
  let failedAttempts = 0;
  for (const id of ids.filter((x): x is string => !!x)) {
    const history = await client.workflow.getHandle(id).fetchHistory();
    failedAttempts += (history.events ?? []).filter(
      (e) => e.activityTaskFailedEventAttributes || e.activityTaskTimedOutEventAttributes,
    ).length;
  }
  const injected = Object.values(standin.stats().faults).reduce((a, b) => a + b, 0);

  const ok = durations.filter((d) => d.ok);
  const sorted = ok.map((d) => d.ms).sort((a, b) => a - b);
  console.log(
    `\n${args['soak-minutes'] ? `Soak ${args['soak-minutes']} min at ${args.rate}/min` : `Load: ${args.flows} flows started at once`} — ${args.workers} worker process(es), 2-core machine`,
  );
  const build = checkBuild(path.join(ROOT, 'dist'));
  console.log(
    `  worker run ${build.current ? 'from the build in dist/' : `from the sources through tsx (${build.reason})`}, ${Object.entries(
      WORKER_ENV,
    )
      .map(([k, v]) => `${k}=${v} `)
      .join('')}node ${[...WORKER_NODE_FLAGS, args['worker-flags']].join(' ').trim()}`,
  );
  console.log(
    `  completed ${ok.length}/${durations.length}; flows per minute ${((ok.length / wallMs) * 60_000).toFixed(1)}; wall ${(wallMs / 1000).toFixed(1)} s`,
  );
  console.log(
    `  completion time p50 ${(percentile(sorted, 50) / 1000).toFixed(2)} s, p95 ${(percentile(sorted, 95) / 1000).toFixed(2)} s`,
  );
  const byFlow = new Map<string, number[]>();
  for (const d of ok) byFlow.set(d.flow, [...(byFlow.get(d.flow) ?? []), d.ms]);
  for (const [flow, ms] of byFlow)
    console.log(
      `    ${flow.padEnd(24)} n=${String(ms.length).padEnd(4)} p50 ${(
        percentile(
          ms.sort((a, b) => a - b),
          50,
        ) / 1000
      ).toFixed(2)} s`,
    );
  console.log(
    `  worker RSS peak ${peak.toFixed(0)} MB; start ${rssSamples[0].workers.map((m) => m.toFixed(0)).join('/')} MB → end ${rssSamples
      .at(-1)!
      .workers.map((m) => m.toFixed(0))
      .join('/')} MB`,
  );
  if (rssSamples[0].controlPlane !== undefined)
    console.log(
      `  control plane RSS ${rssSamples[1]?.controlPlane?.toFixed(0)} MB (first sample after warm-up) → ${rssSamples.at(-1)!.controlPlane!.toFixed(0)} MB`,
    );
  if (args['soak-minutes']) {
    const series = rssSamples.map((s) => s.workers.reduce((a, b) => a + b, 0));
    const half = Math.floor(series.length / 2);
    const firstHalfMax = Math.max(...series.slice(1, half + 1));
    const secondHalfMax = Math.max(...series.slice(half));
    console.log(`  worker RSS samples (MB): ${series.map((m) => m.toFixed(0)).join(' ')}`);
    console.log(
      `  memory flat: ${secondHalfMax <= firstHalfMax * 1.1 ? 'yes' : 'NO'} (max first half ${firstHalfMax.toFixed(0)} MB, second half ${secondHalfMax.toFixed(0)} MB)`,
    );
  }
  emitSummary('load', {
    flows: durations.length,
    completed: ok.length,
    flowsPerMin: (ok.length / wallMs) * 60_000,
    p95S: percentile(sorted, 95) / 1000,
    workerRssPeakMb: peak,
    controlPlaneRssMb: rssSamples.at(-1)!.controlPlane,
  });
  // History records an activity's failure only once its retries are exhausted (or it is not retryable).
  console.log(
    `  activities failed after all retries ${failedAttempts} (the flows' fallbacks / fail-closed paths handle them); model faults injected ${injected}`,
  );

  for (const w of workers) w.kill('SIGTERM');
  controlPlane?.kill('SIGTERM');
  await solver.stop();
  await connection.close();
  await standin.close();
  await new Promise((r) => setTimeout(r, 2000));
  await server.stop();
  process.exit(ok.length === durations.length ? 0 : 1);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
