/**
 * The real worker process (workers/worker.ts) shows the model-call metrics on its Prometheus
 * endpoint (WORKER_METRICS_PORT) beside the SDK's own: a platformCheck run's model call is counted
 * with its flow, task, outcome, tokens, latency and (prices set) estimated cost.
 */
import { Client, Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { TASK_QUEUE } from '../contracts/common';
import { platformCheckFlow } from '../flows/platform/contract';
import { ModelMetric } from '../flows/lib/activities/model-metrics';
import { startStandin, type StandinServer } from '../standin/server';
import { freePort } from '../workers/dev-server';
import { logLines } from './helpers/log-lines';
import { waitFor } from './helpers/wait';
import { workerProcessEnv } from './helpers/worker-process';

const ROOT = path.resolve(__dirname, '..');
// A namespace of its own: the real worker process polls agent-flows, which other tests use.
const NAMESPACE = 'metrics-test';

/** The samples of one metric on a Prometheus text page: its labels and value. */
function samples(page: string, name: string): Array<{ labels: string; value: number }> {
  return page
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `))
    .map((line) => {
      const cut = line.lastIndexOf(' ');
      return { labels: line.slice(name.length, cut), value: Number(line.slice(cut + 1)) };
    });
}

describe("the worker's metrics endpoint", () => {
  let connection: Connection;
  let standin: StandinServer;
  let worker: ChildProcess;
  let metricsUrl = '';
  let stdout = '';
  beforeAll(async () => {
    connection = await Connection.connect({ address: inject('temporalAddress') });
    await connection.workflowService
      .registerNamespace({ namespace: NAMESPACE, workflowExecutionRetentionPeriod: msToTs('1 day') })
      .catch((err: Error) => {
        if (!/already/i.test(err.message)) throw err;
      });
    await waitFor(
      () =>
        connection.workflowService.describeNamespace({ namespace: NAMESPACE }).then(
          () => true,
          () => undefined,
        ),
      'the namespace',
    );
    standin = await startStandin();
    const port = await freePort();
    metricsUrl = `http://127.0.0.1:${port}/metrics`;
    worker = spawn(path.join(ROOT, 'node_modules', '.bin', 'tsx'), ['workers/worker.ts'], {
      cwd: ROOT,
      env: workerProcessEnv(NAMESPACE, standin.url, {
        WORKER_METRICS_PORT: String(port),
        MODEL_PRICE_INPUT_USD_PER_MTOK: '0.3',
        MODEL_PRICE_OUTPUT_USD_PER_MTOK: '2.5',
        ARTIFACT_DIR: path.join(ROOT, 'out', 'test'),
      }),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    worker.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    await waitFor(
      () => (logLines(stdout).some((l) => l.message === 'polling task queue') ? true : undefined),
      'the worker to poll',
      { timeoutMs: 120_000 },
    );
  }, 150_000);
  afterAll(async () => {
    try {
      process.kill(-worker.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
    await standin?.close();
    await connection?.close();
  });

  it('shows the model calls of a platformCheck run beside the SDK metrics', async () => {
    const client = new Client({ connection, namespace: NAMESPACE });
    await client.workflow.execute(platformCheckFlow.type, {
      taskQueue: TASK_QUEUE,
      workflowId: `metrics-test-platform-check-${Date.now()}`,
      args: [platformCheckFlow.examples[0]],
      workflowExecutionTimeout: '60 seconds',
    });
    const page = await waitFor(async () => {
      const text = await (await fetch(metricsUrl)).text();
      return samples(text, ModelMetric.calls).length > 0 ? text : undefined;
    }, 'the model metrics on the endpoint');

    // The SDK's own metrics are still there.
    expect(page).toMatch(/^temporal_\w+/m);
    const labels = /flow="platformCheck".*task="platform\.summarize"|task="platform\.summarize".*flow="platformCheck"/;
    const calls = samples(page, ModelMetric.calls);
    expect(calls.length, page).toBeGreaterThan(0);
    for (const sample of calls) {
      expect(sample.labels).toMatch(labels);
      expect(sample.labels).toContain('backend="standin"');
      expect(sample.labels).toMatch(/outcome="(ok|repaired)"/);
    }
    expect(calls.reduce((sum, s) => sum + s.value, 0)).toBeGreaterThanOrEqual(1);
    expect(samples(page, ModelMetric.inputTokens)[0]?.value).toBeGreaterThan(0);
    expect(samples(page, ModelMetric.outputTokens)[0]?.value).toBeGreaterThan(0);
    expect(samples(page, `${ModelMetric.latency}_count`)[0]?.value).toBeGreaterThanOrEqual(1);
    // Buckets up to the model's time-out, not the SDK's default ones that stop at 10 s.
    expect(samples(page, `${ModelMetric.latency}_bucket`).map((s) => s.labels)).toContainEqual(
      expect.stringContaining('le="60000"'),
    );
    expect(samples(page, ModelMetric.cost)[0]?.value).toBeGreaterThan(0);
  });
});
