/**
 * The Temporal server restarts (persistent database) while a flow runs: the worker reconnects,
 * the flow resumes and completes.
 */
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createBackends } from '../backends';
import { startFlow } from '../access/flow-client';
import { platformCheckFlow } from '../flows/platform/contract';
import { startStandin } from '../standin/server';
import { freePort, startDevServer, type DevServer } from '../workers/dev-server';
import { createFlowWorker } from '../workers/worker';
import { testConfig } from './helpers/harness';

describe('Temporal server restart mid-flow', () => {
  const cleanup: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    for (const fn of cleanup.reverse()) await fn().catch(() => undefined);
  });

  it('resumes and completes after the server comes back with its database', async () => {
    const port = await freePort();
    const dbFile = path.join(mkdtempSync(path.join(os.tmpdir(), 'restart-')), 'dev.db');
    let server: DevServer = await startDevServer({ port, dbFile, quiet: true });
    cleanup.push(() => server.stop());
    const standin = await startStandin({ faults: { latencyMs: 2500 } });
    cleanup.push(() => standin.close());
    const backends = await createBackends(testConfig({ GOOGLE_GEMINI_BASE_URL: standin.url }));
    cleanup.push(() => backends.close());
    const nativeConnection = await NativeConnection.connect({ address: server.address });
    const worker = await createFlowWorker({
      connection: nativeConnection,
      backends,
      taskQueue: 'restart-test',
      workflowBundle: { codePath: inject('workflowBundlePath') },
    });
    const running = worker.run();
    cleanup.push(async () => {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running.catch(() => undefined);
      await nativeConnection.close();
    });
    const connection = await Connection.connect({ address: server.address });
    const client = new Client({ connection });
    cleanup.push(() => connection.close());

    const handle = await startFlow(client, platformCheckFlow, { topic: 'battery' }, { taskQueue: 'restart-test' });
    while (!standin.stats().byTask['platform.summarize']) await new Promise((r) => setTimeout(r, 100));
    await server.stop();
    server = await startDevServer({ port, dbFile, quiet: true });

    const result = await handle.result();
    expect(result.rows).toHaveLength(3);
    expect(result.summary).toMatch(/battery/);
    const description = await handle.describe();
    expect(description.status.name).toBe('COMPLETED');
  }, 120_000);
});
