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
import { randomBytes } from 'node:crypto';
import { standinUrl } from '../backends';
import { sharedEmbedder } from '../backends/embedding';
import { startControlPlane } from '../server/main';
import { payloadCodecFromEnv } from '../codec/payload-codec';
import { startCodecServerFromConfig } from '../server/codec-server';
import { startStandin, type StandinServer } from '../standin/server';
import { isListening, startDevServer, splitAddress, type DevServer } from './dev-server';
import { startSolverWorker, type SolverWorker } from './solver-worker';
import { listening } from '../plumbing/ports';
import { ensureEmbeddingModel } from './embedding-model';
import { currentTracing, setupTracing } from '../plumbing/tracing';
import { startWorkerRegistration } from './agent-registration';
import { configOrExit, installRuntime, runWorker } from './worker';
import { errorText, useProcessLogging } from '../plumbing/logger';

const log = useProcessLogging('stack');

/** Whether an agent-flows control plane answers at this URL (its liveness route, within a second). */
async function answersAsControlPlane(url: string): Promise<boolean> {
  try {
    const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(1000) });
    return res.ok && ((await res.json()) as { status?: unknown }).status === 'ok';
  } catch {
    return false;
  }
}

async function main() {
  const config = configOrExit();
  // First start installs the search's embedding model (a missing Python only means keyword search).
  await ensureEmbeddingModel();
  // Loads it now and says once whether offline search ranks by meaning or by keywords.
  await sharedEmbedder({ setting: config.AGENT_FLOWS_EMBEDDING_MODEL });
  const address = config.TEMPORAL_ADDRESS ?? '127.0.0.1:7233';
  // One provider for the worker and the control plane in this process (off unless OTEL_EXPORTER_OTLP_ENDPOINT).
  setupTracing(config, 'agent-flows');
  let server: DevServer | undefined;
  let standin: StandinServer | undefined;
  let worker: Worker | undefined;
  let stopping = false;

  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    log.info('stopping');
    if (worker && worker.getState() === 'RUNNING') worker.shutdown();
    // runWorker's promise settles once the worker has drained; the rest is stopped after it.
    setTimeout(() => process.exit(code), 15_000).unref();
  };
  process.on('SIGINT', () => void stop(0));
  process.on('SIGTERM', () => void stop(0));

  // First, before anything is started: the metrics port is the worker runtime's to bind. The
  // SDK's INFO lines (and the workflow bundler's output) and the control plane's per-request
  // lines would bury the stack's few lines, so they show only when LOG_LEVEL asks for them.
  const quiet: typeof config = process.env.LOG_LEVEL ? config : { ...config, LOG_LEVEL: 'warn' };
  // Registration is always authenticated here: with no token configured, the control plane and the
  // worker (both in this process) share one made for this run, so no other local process can
  // register, heartbeat, re-route or delete agents (it could otherwise claim agent-flows while the
  // worker restarts).
  const registrationToken =
    config.CONTROL_PLANE_REGISTRATION_TOKEN ??
    config.CONTROL_PLANE_TOKEN ??
    (config.CONTROL_PLANE_URL ? undefined : randomBytes(32).toString('base64url'));
  // A second `npm start` would first meet the worker's metrics port and report that clash; the
  // person needs to hear that the stack already runs, and where.
  const controlPlaneUrl = `http://${config.CONTROL_PLANE_HOST === '0.0.0.0' ? '127.0.0.1' : config.CONTROL_PLANE_HOST}:${config.CONTROL_PLANE_PORT}`;
  if (await answersAsControlPlane(controlPlaneUrl)) {
    log.error(
      `agent-flows is already running on this machine (its control plane answers at ${controlPlaneUrl}). ` +
        'Use that stack, or stop it (Ctrl-C in its terminal) before starting another; a second stack ' +
        'needs its own ports (CONTROL_PLANE_PORT, WORKER_METRICS_PORT, STANDIN_PORT, TEMPORAL_ADDRESS).',
    );
    process.exit(1);
  }
  installRuntime(quiet, { handleSignals: false });
  // Declared before `abandon`, which closes it if a later component fails to start.
  // eslint-disable-next-line prefer-const
  let codecServer: Awaited<ReturnType<typeof startCodecServerFromConfig>> | undefined;
  // A component that cannot start (a port clash, say) stops the ones already running.
  const abandon = async (err: unknown): Promise<never> => {
    await standin?.close().catch(() => undefined);
    await codecServer?.close().catch(() => undefined);
    await server?.stop().catch(() => undefined);
    throw err;
  };

  // With a payload key, history holds ciphertext; the codec endpoint lets the Web UI show it to
  // people who can reach this machine's loopback.
  const codec = payloadCodecFromEnv();
  codecServer = codec
    ? await listening('The codec endpoint', `127.0.0.1:${config.CODEC_PORT}`, 'CODEC_PORT', () =>
        startCodecServerFromConfig(codec, config),
      )
    : undefined;
  if (codecServer) log.info({ url: codecServer.url }, 'payloads are encrypted; codec endpoint for the Web UI');

  if (await isListening(address)) {
    log.info({ address }, 'using the Temporal server already running');
  } else {
    const [, port] = splitAddress(address);
    server = await startDevServer({
      port,
      uiPort: config.TEMPORAL_UI_PORT,
      dbFile: config.TEMPORAL_DB_FILE,
      uiCodecEndpoint: codec ? `http://127.0.0.1:${config.CODEC_PORT}` : undefined,
    }).catch(abandon);
    log.info(
      { address: server.address, database: config.TEMPORAL_DB_FILE, webUi: server.uiUrl },
      'Temporal dev server started',
    );
  }
  process.env.TEMPORAL_ADDRESS = address;

  if (config.model === 'standin' && !config.GOOGLE_GEMINI_BASE_URL) {
    const faults = config.STANDIN_FAULTS;
    standin = await listening(
      'The model stand-in',
      `${config.STANDIN_HOST}:${config.STANDIN_PORT}`,
      'STANDIN_PORT',
      () => startStandin({ host: config.STANDIN_HOST, port: config.STANDIN_PORT, faults, log: config.VERBOSE_STANDIN }),
    ).catch(abandon);
    log.info({ url: standinUrl(config) }, 'offline model stand-in started (no Gemini credentials configured)');
  }

  let controlPlane: Awaited<ReturnType<typeof startControlPlane>> | undefined;
  try {
    controlPlane = await listening(
      'The control plane',
      `${config.CONTROL_PLANE_HOST}:${config.CONTROL_PLANE_PORT}`,
      'CONTROL_PLANE_PORT',
      () =>
        startControlPlane(
          { ...quiet, CONTROL_PLANE_REGISTRATION_TOKEN: registrationToken },
          { temporalAddress: address },
        ),
    );
    log.info(
      {
        url: controlPlane.url,
        capabilities: `${controlPlane.url}/api/v1/discovery/capabilities`,
        openapi: `${controlPlane.url}/openapi.json`,
        console: `${controlPlane.url}/console/`,
      },
      'control plane started',
    );
  } catch (err) {
    log.warn({ error: errorText(err) }, 'control plane not started; flows still run');
  }

  // The Python CP-SAT worker (scheduleFromScr's solver, task queue agent-flows-solver).
  let solver: SolverWorker | undefined;
  try {
    solver = await startSolverWorker({
      address,
      namespace: process.env.TEMPORAL_NAMESPACE,
      timeLimitSeconds: config.SOLVER_TIME_LIMIT_SECONDS,
      searchWorkers: config.SOLVER_WORKERS,
      verbose: config.LOG_LEVEL === 'debug',
    });
    log.info({ taskQueue: 'agent-flows-solver' }, 'solver worker started (CP-SAT, for scheduleFromScr)');
  } catch (err) {
    log.warn({ error: errorText(err) }, 'solver worker not started; scheduleFromScr will wait for one');
  }

  log.info(
    {
      command:
        'npm run temporal -- workflow start --task-queue agent-flows --type platformCheck ' +
        '--workflow-id platform-check-battery --input \'{"topic":"battery"}\'',
    },
    'try a flow',
  );
  let exitCode = 0;
  try {
    // The stack wires the worker to its control plane (or the configured one).
    const workerConfig = {
      ...config,
      CONTROL_PLANE_REGISTRATION_TOKEN: registrationToken,
      CONTROL_PLANE_URL: config.CONTROL_PLANE_URL ?? controlPlane?.url,
    };
    await runWorker(workerConfig, {
      onReady: (w) => (worker = w),
      announce: (running) => startWorkerRegistration(workerConfig, running),
    });
  } catch (err) {
    log.error({ error: errorText(err) }, 'worker failed');
    exitCode = 1;
  }
  await solver?.stop();
  await controlPlane?.close();
  await standin?.close();
  await codecServer?.close();
  await server?.stop();
  // Spans still buffered go to the collector before the process ends.
  await currentTracing()
    .shutdown()
    .catch(() => undefined);
  log.info('stopped');
  process.exit(exitCode);
}

main().catch((err) => {
  log.error(errorText(err));
  process.exit(1);
});
