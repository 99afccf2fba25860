/**
 * An error thrown by a flow's code fails its run, at once and for good, instead of failing the
 * workflow task, which Temporal retries without end while the run stays Running (the
 * `endsOnError` every flow is marked with, flows/lib/workflow/flow.ts). The worker is the flows' own
 * (createFlowWorker); the workflows are small fixtures that throw on their data, one of them
 * unmarked to show what every flow did before.
 */
import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { bundleWorkflowCode, NativeConnection, type Worker } from '@temporalio/worker';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { workflowBundleOptions } from '../workers/workflow-bundle';
import { flows } from '../flows/registry';
import { createFlowWorker } from '../workers/worker';
import { badDataSignal } from './fixtures/workflows/throwing';
import { createHarness, type Harness } from './helpers/harness';
import { waitFor } from './helpers/wait';

const FAILED = temporal.api.enums.v1.EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED;

async function failedTasks(handle: WorkflowHandle): Promise<number> {
  const history = await handle.fetchHistory();
  return (history.events ?? []).filter((e) => e.eventType === FAILED).length;
}

describe('an error in a flow’s code ends its run', () => {
  let h: Harness;
  let worker: Worker;
  let connection: NativeConnection;
  let running: Promise<void>;
  const taskQueue = `errors-end-${randomUUID().slice(0, 8)}`;

  beforeAll(async () => {
    h = await createHarness();
    const { code } = await bundleWorkflowCode({
      workflowsPath: path.join(__dirname, 'fixtures', 'workflows', 'throwing.ts'),
      logger: { info() {}, warn() {}, error: console.error, debug() {}, trace() {}, log() {} } as never,
    });
    connection = await NativeConnection.connect({ address: inject('temporalAddress') });
    worker = await createFlowWorker({
      connection,
      backends: h.backends,
      taskQueue,
      workflowBundle: { code },
    });
    running = worker.run();
  }, 120_000);
  afterAll(async () => {
    worker?.shutdown();
    await running;
    await connection?.close();
    await h?.close();
  });

  const start = (type: string, args: unknown[] = []) =>
    h.client.workflow.start(type, { taskQueue, workflowId: `errors-end-${type}-${randomUUID().slice(0, 6)}`, args });

  it('every flow, and every workflow the flows start, is marked in the bundle entry the worker runs', async () => {
    // The entry generated from the flow registry, loaded as the bundler loads it.
    const flowsIndex: unknown = await import(workflowBundleOptions().workflowsPath);
    const marked = (fn: unknown) =>
      (
        fn as { workflowDefinitionOptions?: { failureExceptionTypes?: unknown[] } }
      ).workflowDefinitionOptions?.failureExceptionTypes?.includes(Error) === true;
    for (const type of [...flows.map((f) => f.type), 'pursueEads', 'listEadsLibrary'])
      expect(marked((flowsIndex as Record<string, unknown>)[type]), type).toBe(true);
    // The registry runs for good: a failing task there waits for a fix instead of losing its state.
    expect(marked((flowsIndex as Record<string, unknown>).agentRegistry)).toBe(false);
  });

  it('a TypeError in the workflow function fails the run with its type and message', async () => {
    const handle = await start('throwsInItsCode', [{ columns: [] }]);
    const err = await handle.result().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(WorkflowFailedError);
    const cause = (err as WorkflowFailedError).cause as ApplicationFailure;
    expect(cause).toBeInstanceOf(ApplicationFailure);
    expect(cause.type).toBe('TypeError');
    expect(cause.message).toMatch(/length/);
    expect(await failedTasks(handle)).toBe(0);
  });

  it('an Error in a signal handler fails the run', async () => {
    const handle = await start('throwsInASignalHandler');
    await handle.signal(badDataSignal, 'x'.repeat(1_000));
    await expect(handle.result()).rejects.toMatchObject({
      cause: { type: 'Error', message: `cannot use ${'x'.repeat(20)}` },
    });
    expect(await failedTasks(handle)).toBe(0);
  });

  it('unmarked, the same error fails the workflow task again and again and the run stays Running', async () => {
    const handle = await start('throwsUnmarked', [{ columns: [] }]);
    await waitFor(async () => ((await failedTasks(handle)) > 0 ? true : undefined), 'a failed workflow task');
    expect((await handle.describe()).status.name).toBe('RUNNING');
    await handle.terminate('test over');
  });
});
