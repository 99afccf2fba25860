/**
 * The worker: every workflow and activity on task queue `agent-flows`.
 *
 * `npm run worker` runs it alone against the server named by the `temporal` CLI's variables
 * (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TLS, profiles), with the SDK's
 * Prometheus metrics on WORKER_METRICS_PORT, and shuts down gracefully on SIGINT/SIGTERM.
 */
import { Connection } from '@temporalio/client';
import { loadClientConnectConfig } from '@temporalio/envconfig';
import { IllegalStateError, type LogLevel } from '@temporalio/common';
import { NativeConnection, Runtime, Worker, type RuntimeOptions, type WorkerOptions } from '@temporalio/worker';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { FlowModule } from '../flows/lib';
import { createActivities, FLOWS } from '../flows/registry';
import { createBackends, type Backends } from '../backends';
import { TASK_QUEUE } from '../contracts/common';
import { loadConfigOrExit, parseConfig, type Config } from '../plumbing/config';
import { dataConverterFromEnv } from '../codec/payload-codec';
import { explainListenError } from '../plumbing/ports';
import { ensureSearchAttributes } from './search-attributes';
import { checkBuild, configuredWorkflowBundle, WORKFLOW_BUNDLE_FILE } from './build-stamp';
import { PROJECT_ROOT } from '../plumbing/project-root';
import { setupTracing, tracingWorkerOptions } from '../plumbing/tracing';
import { WORKFLOW_INTERCEPTOR_MODULES, workflowBundleOptions } from './workflow-bundle';
import { MODEL_LATENCY_BUCKETS_MS, ModelMetric } from '../flows/lib/activities/model-metrics';
import { errorText, logger, sdkLogger, useProcessLogging } from '../plumbing/logger';
// Only the process entry at the bottom uses it: the worker factory knows no control plane.
import { startWorkerRegistration } from './agent-registration';

/** The build this code belongs to: its own folder when compiled, else `dist/` beside the sources. */
const BUILD_DIR = __filename.endsWith('.js') ? path.resolve(__dirname, '..') : path.join(PROJECT_ROOT, 'dist');

/**
 * The workflow bundle made by `npm run build`, when it may be used: compiled code uses the bundle
 * built with it (warning when the sources have changed since); code run from the sources uses it
 * only when it matches them. Otherwise the worker bundles the workflows at start, as before.
 */
export function prebuiltWorkflowBundle(buildDir: string = BUILD_DIR): { codePath: string } | undefined {
  const compiled = buildDir === path.resolve(__dirname, '..');
  const check = checkBuild(buildDir);
  if (check.current && check.bundlePath) return { codePath: check.bundlePath };
  const bundle = path.join(buildDir, WORKFLOW_BUNDLE_FILE);
  if (compiled && existsSync(bundle)) {
    logger('worker').warn({ reason: check.reason, bundle }, 'the build is not current; running it as it is');
    return { codePath: bundle };
  }
  return undefined;
}

export interface FlowWorkerOptions {
  connection: NativeConnection;
  backends: Backends;
  namespace?: string;
  taskQueue?: string;
  /** A prebuilt bundle (tests build one per run); otherwise the workflows are bundled at start. */
  workflowBundle?: WorkerOptions['workflowBundle'];
  /** The flows whose workflows and activities it runs (default: every flow of flows/registry.ts). */
  flows?: readonly FlowModule[];
  maxConcurrentActivityTaskExecutions?: number;
  /** Workflows kept in memory between tasks (default: WORKER_MAX_CACHED_WORKFLOWS's default). */
  maxCachedWorkflows?: number;
  /** Workflow tasks run at once (default: WORKER_MAX_CONCURRENT_WORKFLOW_TASKS's default). */
  maxConcurrentWorkflowTaskExecutions?: number;
  identity?: string;
  /** Payload codecs (encryption): same as the clients'. Default: from AGENT_FLOWS_PAYLOAD_KEY. */
  dataConverter?: WorkerOptions['dataConverter'];
}

/** Defaults of the worker's sizing when no configuration is given (tests, benches). */
const DEFAULT_SIZING = parseConfig({});

/**
 * The worker's options, without activities' backends bound: `createFlowWorker` uses them and
 * bench/activity-overhead.ts compares them with a bare SDK worker.
 */
export function flowWorkerOptions(options: Omit<FlowWorkerOptions, 'backends'>): Omit<WorkerOptions, 'activities'> {
  const maxCachedWorkflows = options.maxCachedWorkflows ?? DEFAULT_SIZING.WORKER_MAX_CACHED_WORKFLOWS;
  const tracing = tracingWorkerOptions();
  return {
    connection: options.connection,
    namespace: options.namespace ?? 'default',
    taskQueue: options.taskQueue ?? TASK_QUEUE,
    ...(options.workflowBundle ? { workflowBundle: options.workflowBundle } : bundledAtStart(options.flows)),
    maxConcurrentActivityTaskExecutions: options.maxConcurrentActivityTaskExecutions ?? 100,
    // Set explicitly: the SDK's default cache size follows the heap and never evicts in practice.
    maxCachedWorkflows,
    maxConcurrentWorkflowTaskExecutions: Math.min(
      maxCachedWorkflows,
      options.maxConcurrentWorkflowTaskExecutions ?? DEFAULT_SIZING.WORKER_MAX_CONCURRENT_WORKFLOW_TASKS,
    ),
    // Fan-out flows (discovery validates dozens of candidates at once) start their activities in the
    // same round trip that schedules them instead of waiting for pollers; past the reserved slots the
    // rest wait for a poll (100: a step's whole candidate list; measured in bench/discovery.ts).
    maxEagerActivityReservationsPerWorkflowTask: 100,
    ...(options.identity ? { identity: options.identity } : {}),
    dataConverter: options.dataConverter ?? dataConverterFromEnv(),
    // Tracing: activity spans, and the sink for workflow spans (a no-op unless tracing is set up).
    // The workflow interceptors are in every bundle; a prebuilt bundle already has them.
    interceptors: {
      activity: tracing.interceptors!.activity,
      ...(options.workflowBundle ? {} : { workflowModules: WORKFLOW_INTERCEPTOR_MODULES }),
    },
    sinks: tracing.sinks,
  };
}

/** The worker's own bundling at start: the flows' generated entry and preload module. */
function bundledAtStart(flows?: readonly FlowModule[]): Pick<WorkerOptions, 'workflowsPath' | 'bundlerOptions'> {
  const { workflowsPath, preloadModules, webpackConfigHook } = workflowBundleOptions(flows);
  return { workflowsPath, bundlerOptions: { preloadModules, webpackConfigHook } };
}

export async function createFlowWorker(options: FlowWorkerOptions): Promise<Worker> {
  return Worker.create({
    ...flowWorkerOptions(options),
    activities: await createActivities(options.backends, options.flows ?? FLOWS),
  });
}

/** Installs the SDK runtime once per process: log level and the Prometheus endpoint. */
export function installRuntime(config: Config, options: { handleSignals?: boolean } = {}): void {
  try {
    Runtime.install(runtimeOptions(config, options));
  } catch (err) {
    // One runtime per process, and the first installer's settings hold: a process that already has
    // one (a test runner, a bench that made its own) keeps it. The SDK says so with this error
    // type, before it binds anything.
    if (err instanceof IllegalStateError) return;
    throw explainListenError(
      err,
      "The worker's metrics endpoint",
      `127.0.0.1:${config.WORKER_METRICS_PORT}`,
      'WORKER_METRICS_PORT (0 turns it off)',
    );
  }
}

/** The SDK level LOG_LEVEL asks for. */
function sdkLevel(config: Config): LogLevel {
  return config.LOG_LEVEL === 'debug'
    ? 'DEBUG'
    : config.LOG_LEVEL === 'error'
      ? 'ERROR'
      : config.LOG_LEVEL === 'warn'
        ? 'WARN'
        : 'INFO';
}

/**
 * The runtime's options: the SDK's, workflows' and activities' lines through the process's JSON
 * logger, and the Rust core's lines forwarded to the same logger. Left alone, the core writes its
 * own ANSI-coloured text to stderr, so its warnings (`Failing workflow task` on every retry of a
 * broken workflow task, `[TMPRL1103]` for an oversized payload) escape a `jq` filter on `level`.
 * Both follow LOG_LEVEL (the core's own chatter below it stays out).
 */
export function runtimeOptions(config: Config, options: { handleSignals?: boolean } = {}): RuntimeOptions {
  const level = sdkLevel(config);
  return {
    logger: sdkLogger(level),
    telemetryOptions: {
      logging: { filter: { core: level, other: 'ERROR' }, forward: {} },
      ...(config.WORKER_METRICS_PORT
        ? {
            metrics: {
              prometheus: {
                bindAddress: `${config.WORKER_METRICS_HOST}:${config.WORKER_METRICS_PORT}`,
                // The model-call metrics (flows/lib/activities/model-metrics.ts) come out here too.
                histogramBucketOverrides: { [ModelMetric.latency]: MODEL_LATENCY_BUCKETS_MS },
              },
            },
          }
        : {}),
    },
    ...(options.handleSignals === false ? { shutdownSignals: [] } : {}),
  };
}

/** What a running worker offers, for whoever announces it (the control plane registration). */
export interface RunningWorker {
  activityNames: string[];
  namespace: string;
  taskQueue: string;
  address: string;
}

export interface RunWorkerOptions {
  onReady?: (worker: Worker) => void;
  /**
   * Called once the worker polls; what it returns is stopped when the worker ends. The process
   * entry (`npm run worker`, the stack) passes the control plane registration here, so the worker
   * itself knows no control plane.
   */
  announce?: (running: RunningWorker) => Promise<{ stop(): Promise<void> } | undefined>;
}

/** Connects, registers missing search attributes, and runs the worker until shutdown. */
export async function runWorker(config: Config, options: RunWorkerOptions = {}): Promise<void> {
  const log = logger('worker');
  const { connectionOptions, namespace = 'default' } = loadClientConnectConfig();
  const connection = await NativeConnection.connect(connectionOptions);
  const backends = await createBackends(config);
  try {
    const client = await Connection.connect(connectionOptions as Parameters<typeof Connection.connect>[0]);
    try {
      const added = await ensureSearchAttributes(client, namespace);
      if (added.length) log.info({ searchAttributes: added, namespace }, 'registered search attributes');
    } catch (err) {
      log.warn(
        { error: errorText(err), namespace },
        'could not check search attributes; register AgentFlow=Keyword on the namespace',
      );
    } finally {
      await client.close();
    }
    // The user's own catalog and library are files of the embedded index: Vertex AI Search holds
    // what `npm run search:load` put in its data stores, so the settings would silently do nothing.
    if (config.AGENT_FLOWS_SEARCH === 'vertex' && (config.SEARCH_CATALOG || config.LITERATURE_FILE))
      log.warn(
        { searchCatalog: config.SEARCH_CATALOG, literatureFile: config.LITERATURE_FILE },
        'SEARCH_CATALOG and LITERATURE_FILE apply to the embedded index only; with Vertex AI Search load them with npm run search:load',
      );
    const prebuilt = configuredWorkflowBundle(config) ?? prebuiltWorkflowBundle();
    if (prebuilt) log.info({ bundle: path.relative(PROJECT_ROOT, prebuilt.codePath) }, 'prebuilt workflow bundle');
    else log.info('bundling the workflows at start (npm run build prebuilds them)');
    const worker = await createFlowWorker({
      connection,
      backends,
      namespace,
      maxConcurrentActivityTaskExecutions: config.WORKER_MAX_CONCURRENT_ACTIVITIES,
      maxCachedWorkflows: config.WORKER_MAX_CACHED_WORKFLOWS,
      maxConcurrentWorkflowTaskExecutions: config.WORKER_MAX_CONCURRENT_WORKFLOW_TASKS,
      ...(prebuilt ? { workflowBundle: prebuilt } : {}),
    });
    log.info(
      {
        taskQueue: TASK_QUEUE,
        address: connectionOptions.address ?? 'localhost:7233',
        namespace,
        model: backends.model.name,
        warehouse: backends.warehouse.name,
        search: backends.search.name,
        ...(config.SEARCH_CATALOG ? { searchCatalog: config.SEARCH_CATALOG } : {}),
        ...(config.LITERATURE_FILE ? { literatureFile: config.LITERATURE_FILE } : {}),
        ...(config.WORKER_METRICS_PORT
          ? { metricsUrl: `http://${config.WORKER_METRICS_HOST}:${config.WORKER_METRICS_PORT}/metrics` }
          : {}),
      },
      'polling task queue',
    );
    options.onReady?.(worker);
    const running = worker.run();
    running.catch(() => undefined); // handled below; keeps an early failure from being "unhandled" meanwhile
    // Best effort: an announcement that fails does not stop a worker that polls.
    const registration = await options
      .announce?.({
        activityNames: Object.keys(await createActivities(backends)),
        namespace,
        taskQueue: TASK_QUEUE,
        address: connectionOptions.address ?? 'localhost:7233',
      })
      .catch(() => undefined);
    try {
      await running;
    } finally {
      await registration?.stop();
    }
  } finally {
    await backends.close();
    await connection.close();
  }
}

/** Loads the configuration or exits with the list of invalid variables. */
export function configOrExit(): Config {
  return loadConfigOrExit();
}

if (require.main === module) {
  const config = configOrExit();
  const log = useProcessLogging('worker');
  try {
    installRuntime(config);
  } catch (err) {
    log.error(errorText(err));
    process.exit(1);
  }
  const tracing = setupTracing(config, 'agent-flows-worker');
  // With CONTROL_PLANE_URL set, the worker's flows and activities are announced to the control plane.
  runWorker(config, { announce: (running) => startWorkerRegistration(config, running) }).then(
    // Spans still buffered go to the collector before the process ends.
    () => tracing.shutdown().finally(() => process.exit(0)),
    (err) => {
      log.error({ err }, 'worker failed');
      process.exit(1);
    },
  );
}
