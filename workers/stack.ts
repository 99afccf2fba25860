/**
 * `npm start`: the local stack in the foreground. Ctrl-C stops everything it started.
 *
 *  - the Temporal dev server (persistent TEMPORAL_DB_FILE, Web UI on TEMPORAL_UI_PORT), unless a
 *    server already answers at TEMPORAL_ADDRESS, which is then used instead;
 *  - the offline model stand-in, when no Gemini credentials are configured;
 *  - the control plane (capability discovery, registration, execution) on CONTROL_PLANE_PORT;
 *  - the worker (all flows, task queue agent-flows, metrics on WORKER_METRICS_PORT), registered
 *    with that control plane.
 */
import type { Worker } from '@temporalio/worker';
import { standinUrl } from '../backends';
import { startControlPlane } from '../server/main';
import { payloadCodecFromEnv } from '../client/payload-codec';
import { startCodecServer } from '../server/codec-server';
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

  // With a payload key, history holds ciphertext; the codec endpoint lets the Web UI show it to
  // people who can reach this machine's loopback.
  const codec = payloadCodecFromEnv();
  const codecServer = codec
    ? await startCodecServer({ codec, port: config.CODEC_PORT, allowedOrigins: [`http://localhost:${config.TEMPORAL_UI_PORT}`, `http://127.0.0.1:${config.TEMPORAL_UI_PORT}`] })
    : undefined;
  if (codecServer) console.log(`[stack] payloads are encrypted; codec endpoint for the Web UI: ${codecServer.url}`);

  if (await isListening(address)) {
    console.log(`[stack] using the Temporal server already at ${address}`);
  } else {
    const [, port] = splitAddress(address);
    server = await startDevServer({
      port,
      uiPort: config.TEMPORAL_UI_PORT,
      dbFile: config.TEMPORAL_DB_FILE,
      uiCodecEndpoint: codec ? `http://127.0.0.1:${config.CODEC_PORT}` : undefined,
    });
    console.log(`[stack] Temporal dev server on ${server.address}, database ${config.TEMPORAL_DB_FILE}`);
    console.log(`[stack] Web UI: ${server.uiUrl}`);
  }
  process.env.TEMPORAL_ADDRESS = address;

  if (config.model === 'standin' && !config.GOOGLE_GEMINI_BASE_URL) {
    const faults = process.env.STANDIN_FAULTS ? faultSettingsSchema.parse(JSON.parse(process.env.STANDIN_FAULTS)) : undefined;
    standin = await startStandin({ host: config.STANDIN_HOST, port: config.STANDIN_PORT, faults, log: config.VERBOSE_STANDIN });
    console.log(`[stack] offline model stand-in on ${standinUrl(config)} (no Gemini credentials configured)`);
  }

  let controlPlane: Awaited<ReturnType<typeof startControlPlane>> | undefined;
  try {
    controlPlane = await startControlPlane(config, { temporalAddress: address });
    console.log(`[stack] control plane: ${controlPlane.url}/api/v1/discovery/capabilities (OpenAPI ${controlPlane.url}/openapi.json)`);
    console.log(`[stack] web console: ${controlPlane.url}/console/`);
  } catch (err) {
    console.warn(`[stack] control plane not started (${err instanceof Error ? err.message : String(err)}); flows still run`);
  }

  installRuntime(config, { handleSignals: false });
  console.log('[stack] try: npm run temporal -- workflow start --task-queue agent-flows --type platformCheck --input \'{"topic":"battery"}\'');
  let exitCode = 0;
  try {
    await runWorker({ ...config, CONTROL_PLANE_URL: config.CONTROL_PLANE_URL ?? controlPlane?.url }, { onReady: (w) => (worker = w) });
  } catch (err) {
    console.error(`[stack] worker failed: ${err instanceof Error ? err.message : String(err)}`);
    exitCode = 1;
  }
  await controlPlane?.close();
  await standin?.close();
  await codecServer?.close();
  await server?.stop();
  console.log('[stack] stopped');
  process.exit(exitCode);
}

main().catch((err) => {
  console.error(`[stack] ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
