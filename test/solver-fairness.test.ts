/**
 * One caller cannot take the solver from the others. With a solver worker of two slots (its own,
 * in namespace solver-test), caller A's two long schedules (60 s, an instance CP-SAT cannot close
 * in that time) hold one slot and a place in the queue; caller C's short schedule is given the
 * other slot at once and completes while both of A's are still open. Every waiting run's progress
 * says where it stands. Asserted on order and progress state only: no durations measured (the
 * figures are in bench/solver-fairness.ts). The one premise: A's first search, given 60 s on an
 * instance it cannot close, is still running when C's sub-second schedule has completed.
 *
 * Also: a time limit above the documented maximum fails at the workflow's start, naming the field,
 * and cancelling a run stops its search on the worker.
 */
import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { CancelledFailure } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { progressQuery } from '../contracts/progress-messages';
import { MAX_TIME_LIMIT_SECONDS, scheduleFromScrFlow, type ScheduleFromScrOutput } from '../flows/schedule/contract';
import { startSolverWorker, type SolverWorker } from '../workers/solver-worker';
import { createHarness, recordHistory, type Harness } from './helpers/harness';
import { hardShop } from './helpers/hard-shop';
import { logLines } from './helpers/log-lines';
import { waitFor } from './helpers/wait';

const NAMESPACE = 'solver-test';

describe('sharing the solver between callers', () => {
  let harness: Harness;
  let solver: SolverWorker;
  let solverOutput = '';
  let solverErrors = '';
  const handles: WorkflowHandle[] = [];

  beforeAll(async () => {
    // Two slots (long jobs may hold one), one search thread each, a cap at the schema's maximum.
    solver = await startSolverWorker({
      address: inject('temporalAddress'),
      namespace: NAMESPACE,
      timeLimitSeconds: MAX_TIME_LIMIT_SECONDS,
      searchWorkers: 1,
      slots: 2,
      shortJobSeconds: 10,
      readyTimeoutMs: 300_000,
    });
    solver.process.stdout!.on('data', (d: Buffer) => (solverOutput += d.toString()));
    solver.process.stderr!.on('data', (d: Buffer) => (solverErrors += d.toString()));
    harness = await createHarness({ namespace: NAMESPACE });
  });
  afterAll(async () => {
    for (const h of handles) await h.terminate('test over').catch(() => undefined);
    await harness?.close();
    await solver?.stop();
  });

  const start = (id: string, input: object, caller: string) =>
    harness.client.workflow
      .start(scheduleFromScrFlow.type, {
        taskQueue: harness.taskQueue,
        workflowId: `${id}-${Date.now()}`,
        args: [input],
        // The caller, as a client names its tenant: Temporal's fairness key, which the run hands on.
        priority: { fairnessKey: caller },
      })
      .then((h) => (handles.push(h), h));
  const progressOf = (h: WorkflowHandle) => h.query(progressQuery);

  it("gives a short schedule a slot at once while one caller's two long ones wait their turn", async () => {
    const long = { projectId: 'hard-shop', ...hardShop(7), timeLimitSeconds: MAX_TIME_LIMIT_SECONDS, chart: false };
    const a1 = await start('caller-a-first', long, 'caller-a');
    await waitFor(
      async () =>
        (await progressOf(a1)).status === 'running' && (await progressOf(a1)).stage === 'solve' ? true : undefined,
      "caller A's first long schedule to be solving",
    );
    const a2 = await start('caller-a-second', long, 'caller-a');
    // The second long job waits although a slot is free: that slot is kept for short jobs.
    const waiting = await waitFor(async () => {
      const p = await progressOf(a2);
      return p.status === 'waiting' && /, 0 ahead/.test(p.detail) ? p : undefined;
    }, "caller A's second long schedule to be told its place");
    expect(waiting).toMatchObject({ stage: 'solve' });
    expect(waiting.detail).toBe("waiting for a solver slot, 0 ahead (long jobs share 1 of the solver's 2 slot(s))");

    const c = await start('caller-c-short', { ...scheduleFromScrFlow.examples[0], timeLimitSeconds: 5 }, 'caller-c');
    const result = (await c.result()) as ScheduleFromScrOutput;
    expect(result.minizinc_results.status).toBe('optimal');

    // C finished while both of A's runs are still open: one still solving, the other still waiting.
    expect((await a1.describe()).status.name).toBe('RUNNING');
    expect((await a2.describe()).status.name).toBe('RUNNING');
    expect(await progressOf(a1)).toMatchObject({ stage: 'solve', status: 'running' });
    expect(await progressOf(a2)).toMatchObject({ stage: 'solve', status: 'waiting' });
    // C was given a slot on arrival, A's second run had to queue: the worker's own account.
    const started = logLines(solverOutput).filter((l) => l.message === 'solve started');
    expect(started.map((l) => [l.caller, l.lane, l.queued])).toEqual([
      ['caller-a', 'long', false],
      ['caller-c', 'short', false],
    ]);

    // Cancelled, A's waiting request leaves the queue (first, so the slot A1 frees cannot go to it),
    // and A's running one stops its search on the worker.
    await a2.cancel();
    await waitFor(
      () =>
        logLines(solverOutput).some((l) => l.message === 'request cancelled while waiting for a slot')
          ? true
          : undefined,
      "caller A's waiting request to leave the queue",
    );
    await a1.cancel();
    await waitFor(
      () =>
        logLines(solverOutput).some((l) => l.message === 'search cancelled' && l.caller === 'caller-a')
          ? true
          : undefined,
      "the worker to stop caller A's search",
    );
    // Both runs end Cancelled (they used to fail with SolverFailed), and say so in their progress.
    for (const a of [a1, a2]) {
      const err = await a.result().catch((e: unknown) => e);
      expect((err as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
      expect((await a.describe()).status.name).toBe('CANCELLED');
      expect(await progressOf(a)).toMatchObject({ stage: 'solve', status: 'cancelled' });
    }
    await recordHistory(a1, 'schedule-from-scr-cancelled-solving');
    expect(logLines(solverOutput).filter((l) => l.message === 'solve started')).toHaveLength(2);
    // The worker's output is JSON lines only, its SDK's and core's included: no colour codes.
    const whole = solverOutput.slice(0, solverOutput.lastIndexOf('\n'));
    expect(logLines(whole).length, whole).toBe(whole.split('\n').filter((l) => l.trim()).length);
    expect(`${solverOutput}${solverErrors}`.includes('\u001b'), solverErrors).toBe(false);
  });

  it(`refuses a time limit above ${MAX_TIME_LIMIT_SECONDS} s at the start, naming the field`, async () => {
    for (const limit of [600, MAX_TIME_LIMIT_SECONDS + 1]) {
      const h = await start('too-long', { ...scheduleFromScrFlow.examples[0], timeLimitSeconds: limit }, 'caller-x');
      const err = await h.result().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(WorkflowFailedError);
      const cause = (err as WorkflowFailedError).cause as { type?: string; message: string };
      expect(cause.type).toBe('InvalidInput');
      expect(cause.message).toMatch(/timeLimitSeconds/);
      if (limit === 600) await recordHistory(h, 'schedule-from-scr-time-limit-over-cap');
    }
  });
});
