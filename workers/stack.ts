/**
 * `npm start`: the local stack in the foreground. Ctrl-C stops everything it started.
 *
 *  - the Temporal dev server (persistent TEMPORAL_DB_FILE, Web UI on TEMPORAL_UI_PORT), unless a
 *    server already answers at TEMPORAL_ADDRESS, which is then used instead;
 *  - the offline model stand-in, when no Gemini credentials are configured;
 *  - the worker (all flows, task queue agent-flows, metrics on WORKER_METRICS_PORT).
 */
import type { Worker } from '@temporalio/worker';
import { standinUrl } from '../backends';
import { faultSettingsSchema, startStandin, type StandinServer } from '../standin/server';
import { isListening, startDevServer, splitAddress, type DevServer } from './dev-server';
import { configOrExit, installRuntime, runWorker } from './worker';

async function main() {
  const config = configOrExit();
  const address = process.env.TEMPORAL_ADDRESS ?? '127.0.0.1:7233';
  let server: DevServer | undefined;
  let standin: StandinServer | undefined;
  let worker: Worker | undefined;
  let stopping = false;

  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    console.log('\n[stack] stopping…');
    if (worker && worker.getState() === 'RUNNING') worker.shutdown();
    // runWorker's promise settles once the worker has drained; the rest is stopped after it.
    setTimeout(() => process.exit(code), 15_000).unref();
  };
  process.on('SIGINT', () => void stop(0));
  process.on('SIGTERM', () => void stop(0));

  if (await isListening(address)) {
    console.log(`[stack] using the Temporal server already at ${address}`);
  } else {
    const [, port] = splitAddress(address);
    server = await startDevServer({ port, uiPort: config.TEMPORAL_UI_PORT, dbFile: config.TEMPORAL_DB_FILE });
    console.log(`[stack] Temporal dev server on ${server.address}, database ${config.TEMPORAL_DB_FILE}`);
    console.log(`[stack] Web UI: ${server.uiUrl}`);
  }
  process.env.TEMPORAL_ADDRESS = address;

  if (config.model === 'standin' && !config.GOOGLE_GEMINI_BASE_URL) {
    const faults = process.env.STANDIN_FAULTS ? faultSettingsSchema.parse(JSON.parse(process.env.STANDIN_FAULTS)) : undefined;
    standin = await startStandin({ host: config.STANDIN_HOST, port: config.STANDIN_PORT, faults, log: config.VERBOSE_STANDIN });
    console.log(`[stack] offline model stand-in on ${standinUrl(config)} (no Gemini credentials configured)`);
  }

  installRuntime(config, { handleSignals: false });
  console.log('[stack] try: npm run temporal -- workflow start --task-queue agent-flows --type platformCheck --input \'{"topic":"battery"}\'');
  let exitCode = 0;
  try {
    await runWorker(config, { onReady: (w) => (worker = w) });
  } catch (err) {
    console.error(`[stack] worker failed: ${err instanceof Error ? err.message : String(err)}`);
    exitCode = 1;
  }
  await standin?.close();
  await server?.stop();
  console.log('[stack] stopped');
  process.exit(exitCode);
}

main().catch((err) => {
  console.error(`[stack] ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
