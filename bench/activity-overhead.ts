/**
 * Temporal overhead per activity, bare SDK vs this project's worker, on one local dev server.
 *
 *   npx tsx bench/activity-overhead.ts [N,N,...=50] [repeats=3]
 *
 * A workflow of N sequential trivial activities, wall time / N. Two workers poll the same dev
 * server (started with the project's DEV_SERVER_TUNING_ARGS): a bare SDK worker with default
 * options and a bundle holding only the trivial workflow, and a worker with the project's options
 * (flowWorkerOptions: cache, concurrency, eager reservations, data converter) whose bundle holds
 * every project workflow plus the trivial one. Runs alternate bare/project so that the machine's
 * noise hits both alike; the ratio is the figure to read. Target: <= 10 ms per activity, ratio <= 1.1.
 */
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import path from 'node:path';
import { emitSummary } from './summary';
import { createActivities, FLOWS } from '../flows/registry';
import trivialFlow from './flows/trivial';
import { createBackends } from '../backends';
import { parseConfig } from '../plumbing/config';
import { freePort, startDevServer } from '../workers/dev-server';
import { flowWorkerOptions } from '../workers/worker';
import { workflowBundleOptions } from '../workers/workflow-bundle';

export interface OverheadRow {
  n: number;
  bareMs: number;
  projectMs: number;
  ratio: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
/** The trivial workflows alone, and beside the project's flows (as the project's worker bundles them), without webpack's progress output. */
const bareBundle = () =>
  bundleWorkflowCode({ workflowsPath: path.join(trivialFlow.folder, 'workflow.ts'), ...quietBundle });
const projectBundle = () => bundleWorkflowCode({ ...workflowBundleOptions([...FLOWS, trivialFlow]), ...quietBundle });
const quietBundle = { logger: { info() {}, warn() {}, error() {}, debug() {}, trace() {}, log() {} } };

/** Runs the comparison and returns the median per-activity ms of each worker for each N. */
export async function measureActivityOverhead(sizes: number[], repeats: number): Promise<OverheadRow[]> {
  const server = await startDevServer({ port: await freePort() });
  const nativeConnection = await NativeConnection.connect({ address: server.address });
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection });
  const backends = await createBackends(parseConfig({}));
  try {
    const [bareCode, projectCode] = await Promise.all([bareBundle(), projectBundle()]);
    const noop = async (i: number) => i;
    const bare = await Worker.create({
      connection: nativeConnection,
      taskQueue: 'bench-bare',
      workflowBundle: bareCode,
      activities: { noop },
    });
    const project = await Worker.create({
      ...flowWorkerOptions({ connection: nativeConnection, taskQueue: 'bench-project', workflowBundle: projectCode }),
      activities: { ...(await createActivities(backends)), noop },
    });
    const perActivity: Record<'bare' | 'project', Map<number, number[]>> = { bare: new Map(), project: new Map() };
    let id = 0;
    const run = async (taskQueue: string, n: number) => {
      const t0 = performance.now();
      await client.workflow.execute('trivialActivities', { taskQueue, workflowId: `overhead-${id++}`, args: [n] });
      return (performance.now() - t0) / n;
    };
    await bare.runUntil(
      project.runUntil(async () => {
        // Warm-up: the first workflow task of each worker loads its bundle into a VM context.
        await run('bench-bare', 5);
        await run('bench-project', 5);
        for (let r = 0; r < repeats; r++) {
          for (const n of sizes) {
            // Alternate which goes first so neither always follows the other's leftover work.
            const order = r % 2 === 0 ? (['bare', 'project'] as const) : (['project', 'bare'] as const);
            for (const kind of order) {
              const ms = await run(`bench-${kind}`, n);
              perActivity[kind].set(n, [...(perActivity[kind].get(n) ?? []), ms]);
            }
          }
        }
      }),
    );
    return sizes.map((n) => {
      const bareMs = median(perActivity.bare.get(n)!);
      const projectMs = median(perActivity.project.get(n)!);
      return { n, bareMs, projectMs, ratio: projectMs / bareMs };
    });
  } finally {
    await backends.close();
    await nativeConnection.close();
    await connection.close();
    await server.stop();
  }
}

async function main() {
  const sizes = (process.argv[2] ?? '50').split(',').map(Number);
  const repeats = Number(process.argv[3] ?? 3);
  Runtime.install({ logger: new DefaultLogger('WARN'), shutdownSignals: [] });
  const rows = await measureActivityOverhead(sizes, repeats);
  console.log(
    `Temporal overhead per sequential activity, same dev server, interleaved, median of ${repeats} runs each`,
  );
  console.log('  N     bare SDK      project       ratio   (target <= 10 ms, ratio <= 1.1)');
  for (const r of rows) {
    const met = r.projectMs <= 10 && r.ratio <= 1.1 ? 'met' : 'NOT met';
    const ms = (v: number) => `${v.toFixed(2)} ms`.padEnd(14);
    console.log(`  ${String(r.n).padEnd(5)} ${ms(r.bareMs)}${ms(r.projectMs)}${r.ratio.toFixed(2).padEnd(8)}${met}`);
  }
  const largest = rows.at(-1)!;
  emitSummary('activity-overhead', {
    n: largest.n,
    bareMs: largest.bareMs,
    projectMs: largest.projectMs,
    ratio: largest.ratio,
  });
}

if (require.main === module) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
