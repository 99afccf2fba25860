/**
 * The bare SDK's side of bench/open-interviews.ts, in its own process as the project's worker is:
 * a worker with the SDK's default options whose bundle holds only the bench's trivial workflows
 * (`bareInterview` among them). Prints `ready` once it polls.
 *
 *   TEMPORAL_ADDRESS=127.0.0.1:7233 npx tsx bench/bare-interview-worker.ts <task queue>
 */
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import path from 'node:path';
import trivialFlow from './flows/trivial';

async function main() {
  const taskQueue = process.argv[2] ?? 'bench-bare-interview';
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS ?? '127.0.0.1:7233' });
  const worker = await Worker.create({
    connection,
    taskQueue,
    // Bundled here (as the SDK would from workflowsPath) only to keep webpack's progress lines quiet.
    workflowBundle: await bundleWorkflowCode({
      workflowsPath: path.join(trivialFlow.folder, 'workflow.ts'),
      logger: { info() {}, warn() {}, error() {}, debug() {}, trace() {}, log() {} },
    }),
  });
  console.log('ready');
  await worker.run();
  await connection.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
