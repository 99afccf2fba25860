/**
 * A throw-away offline stack in this process: a dev server, the model stand-in, and a worker on
 * the embedded backends (DuckDB, in-process search). The demo and the evaluation suite run on it
 * so they start the same way a user's first run does, with nothing running before.
 */
import type { Client } from '@temporalio/client';
import path from 'node:path';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { createBackends, type Backends } from '../backends';
import { sharedEmbedder } from '../backends/embedding';
import { parseConfig, type Config } from '../plumbing/config';
import { connectClient } from '../access/flow-client';
import { startStandin } from '../standin/server';
import { freePort, startDevServer, type DevServer } from './dev-server';
import { startSolverWorker, type SolverWorker } from './solver-worker';
import { ensureEmbeddingModel } from './embedding-model';
import { createFlowWorker, installRuntime } from './worker';

export interface OfflineStack {
  server: DevServer;
  standin: Awaited<ReturnType<typeof startStandin>>;
  config: Config;
  backends: Backends;
  worker: Worker;
  /** The Python CP-SAT worker on task queue agent-flows-solver. */
  solver: SolverWorker;
  client: Client;
  /** Stops the worker (after its in-flight tasks), then everything else. */
  close(): Promise<void>;
}

export async function startOfflineStack(options: {
  artifactDir: string;
  quiet?: boolean;
  /** A workflow bundle made before (the test run makes one); otherwise the worker bundles at start, ~6 s. */
  workflowBundle?: { codePath: string };
}): Promise<OfflineStack> {
  await ensureEmbeddingModel({ quiet: options.quiet });
  const server = await startDevServer({ port: await freePort(), quiet: options.quiet ?? false });
  const standin = await startStandin({ port: 0 });
  const config = parseConfig({
    ...process.env,
    AGENT_FLOWS_MODEL: 'standin',
    GOOGLE_GEMINI_BASE_URL: standin.url,
    AGENT_FLOWS_WAREHOUSE: 'duckdb',
    DUCKDB_PATH: ':memory:',
    AGENT_FLOWS_SEARCH: 'embedded',
    ARTIFACT_DIR: options.artifactDir,
    WORKER_METRICS_PORT: '0',
    LOG_LEVEL: 'warn',
    // The evaluation's held-out surrogate firms live apart from the bundled ones; both load by id.
    EADS_FIXTURES_DIR: [process.env.EADS_FIXTURES_DIR ?? 'data/eads-fixtures', 'eval/eads/firms'].join(path.delimiter),
  });
  installRuntime(config, { handleSignals: false });
  const connection = await NativeConnection.connect({ address: server.address });
  const backends = await createBackends(config);
  // The embedding model loads before the worker takes tasks, not inside the first one.
  await sharedEmbedder({ setting: config.AGENT_FLOWS_EMBEDDING_MODEL });
  const worker = await createFlowWorker({ connection, backends, workflowBundle: options.workflowBundle });
  const solver = await startSolverWorker({
    address: server.address,
    timeLimitSeconds: config.SOLVER_TIME_LIMIT_SECONDS,
    searchWorkers: config.SOLVER_WORKERS,
  });
  const client = await connectClient({ address: server.address, namespace: 'default' });
  // The worker polls from now until close(), so callers just start flows.
  const running = worker.run();
  return {
    server,
    standin,
    config,
    backends,
    worker,
    solver,
    client,
    async close() {
      worker.shutdown();
      await running;
      await solver.stop();
      await client.connection.close();
      await connection.close();
      await backends.close();
      await standin.close();
      await server.stop();
    },
  };
}
