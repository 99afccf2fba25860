/**
 * A worker fleet: two real worker processes (`npm run worker`) on the same task queue and
 * namespace share one stream of flows. Each has its own artifact folder and a small activity
 * slot count, so neither can take every task: the test shows the work spreads over both and
 * every flow completes. (Throughput figures: docs/scale-out.md; timing is never asserted here.)
 */
import { Client, Connection } from '@temporalio/client';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startFlow } from '../access/flow-client';
import { platformCheckFlow, type PlatformCheckOutput } from '../flows/platform/contract';
import { startStandin, type StandinServer } from '../standin/server';
import { workerProcessEnv } from './helpers/worker-process';
import { stopChild } from './helpers/wait';

const ROOT = path.resolve(__dirname, '..');
const NAMESPACE = 'fleet-test';
const FLOWS = 12;

function startWorkerProcess(standinUrl: string, name: string): ChildProcess {
  return spawn(process.execPath, [path.join(ROOT, 'workers', 'launch.cjs'), 'workers/worker.ts'], {
    cwd: ROOT,
    env: workerProcessEnv(NAMESPACE, standinUrl, {
      DUCKDB_PATH: ':memory:',
      // Per process: artifacts are written by whichever worker runs the activity.
      ARTIFACT_DIR: mkdtempSync(path.join(os.tmpdir(), `fleet-${name}-`)),
      WORKER_MAX_CONCURRENT_ACTIVITIES: '2',
    }),
    // Quiet, and never an unread pipe (it would stall a chatty worker once its buffer fills).
    stdio: 'ignore',
  });
}

describe('two worker processes on one task queue', () => {
  let client: Client;
  let standin: StandinServer;
  const workers: ChildProcess[] = [];

  beforeAll(async () => {
    const connection = await Connection.connect({ address: inject('temporalAddress') });
    client = new Client({ connection, namespace: NAMESPACE });
    // Model answers that take a while keep activities in flight, so both workers' slots fill.
    standin = await startStandin({ faults: { latencyMs: 300 } });
  });

  afterAll(async () => {
    await Promise.all(workers.map((w) => stopChild(w, 15_000)));
    await standin?.close();
    await client?.connection.close();
  });

  it('spreads the flows over both workers and completes every one', async () => {
    workers.push(startWorkerProcess(standin.url, 'a'), startWorkerProcess(standin.url, 'b'));
    const handles = await Promise.all(
      Array.from({ length: FLOWS }, (_, i) =>
        startFlow(client, platformCheckFlow, { topic: i % 2 ? 'memory' : 'battery' }),
      ),
    );
    const results = await Promise.all(handles.map((h) => h.result() as Promise<PlatformCheckOutput>));
    expect(results).toHaveLength(FLOWS);
    for (const r of results) expect(r.backends.model).toBe('standin');

    // Who ran each activity: the identity recorded when the activity started (pid@host per process).
    const identities = new Set<string>();
    for (const h of handles) {
      const history = await client.workflow.getHandle(h.workflowId).fetchHistory();
      for (const e of history.events ?? []) {
        const identity = e.activityTaskStartedEventAttributes?.identity;
        if (identity) identities.add(identity);
      }
    }
    expect(identities.size, [...identities].join(', ')).toBe(2);
  }, 300_000);
});
