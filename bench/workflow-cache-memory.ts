/**
 * Worker memory per cached workflow: the project's workflow bundle vs a bare bundle.
 *
 *   node --expose-gc --import tsx bench/workflow-cache-memory.ts [workflows=100] [rounds=2]
 *
 * Each round, for each bundle in turn: a worker with the project's options (cache raised to hold
 * every workflow) takes K idle workflows; once all K are cached, RSS after a GC is compared with
 * the figure before. RSS, not this thread's V8 heap: the workflows run in the SDK's worker threads.
 * Each workflow gets its own copy of the bundle's module state
 * (the SDK evaluates the modules per workflow), so what the workflow code imports (zod, the flow
 * contracts) is paid per cached workflow, unless the bundle preloads it once for all workflows.
 * Bundles: bare (the bench's trivial workflows only); the project's workflows bundled without
 * preloading; and the project's workflows bundled as the project does (workers/workflow-bundle.ts).
 */
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import path from 'node:path';
import { freePort, startDevServer } from '../workers/dev-server';
import { emitSummary } from './summary';
import { flowWorkerOptions } from '../workers/worker';
import { workflowBundleOptions } from '../workers/workflow-bundle';
import { FLOWS } from '../flows/registry';
import trivialFlow from './flows/trivial';

const benchFlows = [...FLOWS, trivialFlow];
const withoutPreload = <T extends { preloadModules?: unknown }>({ preloadModules: _, ...rest }: T) => rest;

const quietBundle = { logger: { info() {}, warn() {}, error() {}, debug() {}, trace() {}, log() {} } };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const mb = (bytes: number) => bytes / 2 ** 20;

function settledMemory() {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().rss;
}

async function main() {
  const count = Number(process.argv[2] ?? 100);
  const rounds = Number(process.argv[3] ?? 2);
  if (!(globalThis as { gc?: unknown }).gc) console.warn('run with node --expose-gc for settled figures');
  Runtime.install({ logger: new DefaultLogger('WARN'), shutdownSignals: [] });
  const server = await startDevServer({ port: await freePort() });
  const nativeConnection = await NativeConnection.connect({ address: server.address });
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection });
  const bundles = {
    // The trivial workflows alone; beside the project's flows without preloading; as the worker bundles them.
    bare: await bundleWorkflowCode({ workflowsPath: path.join(trivialFlow.folder, 'workflow.ts'), ...quietBundle }),
    unshared: await bundleWorkflowCode({ ...withoutPreload(workflowBundleOptions(benchFlows)), ...quietBundle }),
    project: await bundleWorkflowCode({ ...workflowBundleOptions(benchFlows), ...quietBundle }),
  };
  const perWorkflow: Record<keyof typeof bundles, number[]> = { bare: [], unshared: [], project: [] };
  let id = 0;
  try {
    for (let round = 0; round < rounds; round++) {
      for (const kind of Object.keys(bundles) as Array<keyof typeof bundles>) {
        const taskQueue = `cache-memory-${kind}-${round}`;
        const worker = await Worker.create({
          ...flowWorkerOptions({
            connection: nativeConnection,
            taskQueue,
            workflowBundle: bundles[kind],
            maxCachedWorkflows: count + 10,
          }),
          activities: { noop: async () => undefined },
        });
        await worker.runUntil(async () => {
          // One workflow first: the bundle's shared VM context is created then, not counted per workflow.
          const first = await client.workflow.start('idleUntilTerminated', { taskQueue, workflowId: `cache-${id++}` });
          while (worker.getStatus().numCachedWorkflows < 1) await sleep(50);
          const before = settledMemory();
          const handles = [first];
          for (let i = 0; i < count; i++) {
            const workflowId = `cache-${id++}`;
            handles.push(await client.workflow.start('idleUntilTerminated', { taskQueue, workflowId }));
          }
          while (worker.getStatus().numCachedWorkflows < count + 1) await sleep(100);
          const after = settledMemory();
          perWorkflow[kind].push((after - before) / count);
          await Promise.all(handles.map((h) => h.terminate('bench done')));
        });
      }
    }
  } finally {
    await nativeConnection.close();
    await connection.close();
    await server.stop();
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  console.log(`Memory per cached workflow, ${count} idle workflows, median of ${rounds} rounds (target <= 1 MB)`);
  const [bare, unshared, project] = [perWorkflow.bare, perWorkflow.unshared, perWorkflow.project].map((xs) =>
    mb(median(xs)),
  );
  console.log(`  bare bundle                          ${bare.toFixed(2)} MB RSS per workflow`);
  console.log(`  project, contracts per workflow      ${unshared.toFixed(2)} MB RSS per workflow`);
  console.log(`  project, contracts preloaded (used)  ${project.toFixed(2)} MB RSS per workflow`);
  emitSummary('workflow-cache-memory', { bareMb: bare, unsharedMb: unshared, projectMb: project });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
