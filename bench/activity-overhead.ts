/**
 * Temporal overhead per activity on the local dev server: a workflow of N trivial activities,
 * wall time divided by N. Target: under 15 ms per activity.
 *
 *   npx tsx bench/activity-overhead.ts [N,N,...=10,50,200] [repeats=3]
 *
 * Several N because the dev server's cost per workflow task grows with the history length
 * (dispatch of the next workflow task slows as events accumulate), so short flows, like ours,
 * pay less per activity than a 200-activity history does.
 */
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import path from 'node:path';
import { freePort, startDevServer } from '../workers/dev-server';

async function main() {
  const sizes = (process.argv[2] ?? '10,50,200').split(',').map(Number);
  const repeats = Number(process.argv[3] ?? 3);
  Runtime.install({ logger: new DefaultLogger('WARN'), shutdownSignals: [] });
  const server = await startDevServer({ port: await freePort() });
  const nativeConnection = await NativeConnection.connect({ address: server.address });
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection });
  const worker = await Worker.create({
    connection: nativeConnection,
    taskQueue: 'bench-overhead',
    workflowsPath: path.join(__dirname, 'workflows', 'trivial-activities.ts'),
    activities: { noop: async (i: number) => i },
  });
  const rows: Array<{ kind: string; n: number; ms: number; perActivity: number }> = [];
  let id = 0;
  await worker.runUntil(async () => {
    // Warm-up: the first workflow task loads the bundle into the VM.
    await client.workflow.execute('trivialActivities', { taskQueue: 'bench-overhead', workflowId: 'warmup', args: [5] });
    for (const n of sizes) {
      for (const useLocal of [false, true]) {
        for (let r = 0; r < repeats; r++) {
          const t0 = performance.now();
          await client.workflow.execute('trivialActivities', { taskQueue: 'bench-overhead', workflowId: `bench-${id++}`, args: [n, useLocal] });
          const ms = performance.now() - t0;
          rows.push({ kind: useLocal ? 'local activity' : 'activity', n, ms, perActivity: ms / n });
        }
      }
    }
  });
  await nativeConnection.close();
  await connection.close();
  await server.stop();
  console.log(`Temporal overhead per activity (local dev server, sequential trivial activities, median of ${repeats} runs)`);
  for (const n of sizes) {
    for (const kind of ['activity', 'local activity']) {
      const per = rows.filter((r) => r.kind === kind && r.n === n).map((r) => r.perActivity).sort((a, b) => a - b);
      const median = per[Math.floor(per.length / 2)];
      const verdict = kind === 'activity' ? `  target < 15 ms: ${median < 15 ? 'met' : 'NOT met'}` : '';
      console.log(`  N=${String(n).padEnd(4)} ${kind.padEnd(15)} ${median.toFixed(2)} ms/activity (min ${per[0].toFixed(2)}, max ${per[per.length - 1].toFixed(2)})${verdict}`);
    }
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
