/**
 * A worker with the embedded backends on the run's shared dev server, one per test file, on a
 * task queue of its own. The model is the stand-in (its own instance, so faults stay local).
 */
import { sharedEmbedder } from '../../backends/embedding';
import {
  Client,
  Connection,
  type WorkflowHandle,
  type WorkflowHandleWithFirstExecutionRunId,
} from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { randomUUID } from 'node:crypto';
import { addToCorpus } from './replay-corpus';
import path from 'node:path';
import { inject } from 'vitest';
import { createBackends, type Backends } from '../../backends';
import type { FlowDefinition } from '../../contracts/common';
import { parseConfig, type Config } from '../../plumbing/config';
import { startFlow, type FlowOutput, type FlowWorkflow } from '../../access/flow-client';
import { dataConverterFromEnv } from '../../codec/payload-codec';
import { startStandin, type FaultSettingsInput, type StandinServer } from '../../standin/server';
import { standinRulesOf, type FlowModule } from '../../flows/lib';
import type { StandinRule } from '../../flows/lib/standin';
import { SEARCH_ATTRIBUTES } from '../../workers/dev-server';
import { INDEXED_TYPES } from '../../workers/search-attributes';
import { createFlowWorker } from '../../workers/worker';
import { installQuietRuntime } from '../setup/quiet-runtime';

export interface Harness {
  client: Client;
  taskQueue: string;
  standin: StandinServer;
  backends: Backends;
  config: Config;
  worker: Worker;
  /** Starts a flow through the thin client on this harness's task queue; `result()` has the flow's output type. */
  start<F extends FlowDefinition>(
    flow: F,
    input: unknown,
    workflowId?: string,
  ): Promise<WorkflowHandleWithFirstExecutionRunId<FlowWorkflow<F>>>;
  /** Starts a flow and waits for its result, typed with the flow's output. */
  run<F extends FlowDefinition>(flow: F, input: unknown, workflowId?: string): Promise<FlowOutput<F>>;
  close(): Promise<void>;
}

export function testConfig(overrides: Record<string, string> = {}): Config {
  return parseConfig({
    AGENT_FLOWS_MODEL: 'standin',
    AGENT_FLOWS_WAREHOUSE: 'duckdb',
    AGENT_FLOWS_SEARCH: 'embedded',
    DUCKDB_PATH: ':memory:',
    MODEL_TIMEOUT_MS: '5000',
    WORKER_METRICS_PORT: '0',
    ARTIFACT_DIR: path.join(process.cwd(), 'out', 'test'),
    ...overrides,
  });
}

export async function createHarness(
  options: {
    faults?: FaultSettingsInput;
    /** The stand-in's task rules (default: the project's), e.g. a deliberately obedient model. */
    rules?: StandinRule[];
    config?: Record<string, string>;
    backends?: (b: Backends) => Backends;
    /** Encrypt payloads (worker and client) with this base64 key. */
    payloadKey?: string;
    /**
     * Other flows than the registry's: the worker bundles their workflows at start and registers
     * their activities, and the stand-in answers their model tasks (unless `rules` says otherwise).
     */
    flows?: readonly FlowModule[];
    /** A namespace of the dev server's other than `default` (test/setup/global.ts lists them). */
    namespace?: string;
  } = {},
): Promise<Harness> {
  installQuietRuntime();
  const address = inject('temporalAddress');
  const rules = options.rules ?? (options.flows ? await standinRulesOf(options.flows) : undefined);
  const standin = await startStandin({ faults: options.faults, rules });
  const config = testConfig({ GOOGLE_GEMINI_BASE_URL: standin.url, ...options.config });
  const created = await createBackends(config);
  // Load the embedding model (when installed) before the first model call needs it, not inside it.
  await sharedEmbedder({ setting: config.AGENT_FLOWS_EMBEDDING_MODEL });
  const backends = options.backends ? options.backends(created) : created;
  const nativeConnection = await NativeConnection.connect({ address });
  const connection = await Connection.connect({ address });
  const dataConverter = options.payloadKey
    ? dataConverterFromEnv({ AGENT_FLOWS_PAYLOAD_KEY: options.payloadKey })
    : undefined;
  const namespace = options.namespace ?? 'default';
  const client = new Client({ connection, namespace, dataConverter });
  const taskQueue = `test-${randomUUID().slice(0, 8)}`;
  const worker = await createFlowWorker({
    connection: nativeConnection,
    backends,
    namespace,
    taskQueue,
    ...(options.flows ? { flows: options.flows } : { workflowBundle: { codePath: inject('workflowBundlePath') } }),
    dataConverter: dataConverter ?? {},
  });
  const running = worker.run();
  const start = <F extends FlowDefinition>(flow: F, input: unknown, workflowId?: string) =>
    startFlow(client, flow, input, { taskQueue, workflowId });
  return {
    client,
    taskQueue,
    standin,
    backends,
    config,
    worker,
    start,
    async run<F extends FlowDefinition>(flow: F, input: unknown, workflowId?: string) {
      return (await start(flow, input, workflowId)).result();
    },
    async close() {
      worker.shutdown();
      await running;
      await nativeConnection.close();
      await connection.close();
      await backends.close();
      await standin.close();
    },
  };
}

/**
 * A time-skipping test server (from the resolved binary) for timer-heavy tests, with the flows'
 * search attributes registered (the test server starts without them and does not implement the
 * list call `ensureSearchAttributes` makes, so they are added directly).
 */
export async function createTimeSkippingEnv(): Promise<TestWorkflowEnvironment> {
  installQuietRuntime();
  const env = await TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: inject('testServerPath') } },
  });
  await env.connection.operatorService.addSearchAttributes({
    namespace: 'default',
    searchAttributes: Object.fromEntries(
      Object.entries(SEARCH_ATTRIBUTES).map(([name, type]) => [name, INDEXED_TYPES[type]]),
    ),
  });
  return env;
}

export const REPLAY_DIR = path.resolve(__dirname, '..', 'replay');

/**
 * Saves a finished workflow's history into the replay corpus when RECORD_REPLAY=1, so
 * `RECORD_REPLAY=1 npx vitest run test/<file>.test.ts` adds histories from the tests' own runs.
 * The corpus only grows: each history is dated (`<name>-YYYY-MM-DD.json`, UTC) and never
 * replaces a file already there (a second recording the same day gets `-2`, `-3`...), because
 * the older files are the histories the previous releases wrote, which running workflows still
 * have and the current code must keep replaying (docs/versioning.md).
 */
export async function recordHistory(handle: WorkflowHandle, name: string): Promise<string | undefined> {
  if (!process.env.RECORD_REPLAY) return undefined;
  const history = await handle.fetchHistory();
  return addToCorpus(REPLAY_DIR, name, `${historyToJSON(history)}\n`);
}
