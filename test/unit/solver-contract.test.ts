/**
 * The schedule contract's side of sharing the solver: the time limit's documented maximum, runs
 * recorded before it, the caller key sent to the solver worker, and the worker's queue signal as
 * the run's progress reads it. Pure: no Temporal, no solver.
 */
import { describe, expect, it } from 'vitest';
import { runEadsInterviewInput } from '../../contracts/eads';
import {
  describeSolverWait,
  lowerLegacyTimeLimit,
  MAX_TIME_LIMIT_SECONDS,
  scheduleFromScrFlow,
  solverCaller,
  solverQueueUpdateSchema,
} from '../../contracts/schedule';

const example = scheduleFromScrFlow.examples[0]!;

describe('timeLimitSeconds', () => {
  it(`is at most ${MAX_TIME_LIMIT_SECONDS} s, a finite number above 0, for the flow and the interview`, () => {
    const flow = scheduleFromScrFlow.input;
    for (const ok of [0.1, 1, MAX_TIME_LIMIT_SECONDS])
      expect(flow.safeParse({ ...example, timeLimitSeconds: ok }).success).toBe(true);
    for (const bad of [61, 600, 1e308, Infinity, -Infinity, NaN, 0, -1, '10', true, null]) {
      const parsed = flow.safeParse({ ...example, timeLimitSeconds: bad });
      expect(parsed.success, String(bad)).toBe(false);
      expect(JSON.stringify(parsed.error?.issues[0]?.path)).toBe('["timeLimitSeconds"]');
    }
    const interview = { projectId: 'p', schedule: { timeLimitSeconds: 120 } };
    expect(runEadsInterviewInput.safeParse(interview).success).toBe(false);
    expect(runEadsInterviewInput.safeParse({ ...interview, schedule: { timeLimitSeconds: 60 } }).success).toBe(true);
  });

  it('of a run recorded before the cap is lowered to it; nothing else is touched', () => {
    const old = { ...example, timeLimitSeconds: 600 };
    expect(lowerLegacyTimeLimit(old)).toEqual({ ...example, timeLimitSeconds: MAX_TIME_LIMIT_SECONDS });
    expect(scheduleFromScrFlow.input.safeParse(lowerLegacyTimeLimit(old)).success).toBe(true);
    // Values the old bound refused too, and values within the cap, stay as they are (the same object).
    for (const raw of [
      { ...example, timeLimitSeconds: 601 },
      { ...example, timeLimitSeconds: 30 },
      example,
      null,
      'text',
      [1],
    ])
      expect(lowerLegacyTimeLimit(raw)).toBe(raw);
    const interview = { projectId: 'p', schedule: { timeLimitSeconds: 120 } };
    expect(lowerLegacyTimeLimit(interview, ['schedule'])).toEqual({
      projectId: 'p',
      schedule: { timeLimitSeconds: 60 },
    });
    for (const raw of [
      { projectId: 'p', schedule: true },
      { projectId: 'p' },
      { projectId: 'p', schedule: { orders: [] } },
    ])
      expect(lowerLegacyTimeLimit(raw, ['schedule'])).toBe(raw);
  });
});

describe('solverCaller', () => {
  it("is the run's fairness key, else its root workflow, else its own workflow", () => {
    expect(solverCaller({ workflowId: 'w', root: { workflowId: 'r' }, priority: { fairnessKey: 'tenant-a' } })).toBe(
      'tenant-a',
    );
    expect(solverCaller({ workflowId: 'w', root: { workflowId: 'eads-interview-x' }, priority: {} })).toBe(
      'eads-interview-x',
    );
    expect(solverCaller({ workflowId: 'schedule-x-1a2b3c' })).toBe('schedule-x-1a2b3c');
  });

  it('is printable ASCII of at most 64 characters, whatever the id, and tells long ids apart', () => {
    const ids = [
      'a'.repeat(1000),
      `${'a'.repeat(100)}b`,
      'ünïcødé-ワークフロー',
      'log\u001b[31m\nred {"level":"error"}',
      ' ',
    ];
    const keys = ids.map((workflowId) => solverCaller({ workflowId }));
    for (const key of keys) expect(key).toMatch(/^[\x21-\x7e]{1,64}$/);
    expect(new Set(keys).size).toBe(ids.length);
    expect(solverCaller({ workflowId: ids[0]! })).toBe(keys[0]);
  });
});

describe("the solver worker's queue signal", () => {
  const waiting = { seq: 1, state: 'waiting', ahead: 3, lane: 'short', slots: 2, longSlots: 1, running: 2 } as const;

  it('reads as a place in the queue', () => {
    expect(describeSolverWait(waiting)).toBe('waiting for a solver slot, 3 ahead');
    expect(describeSolverWait({ ...waiting, lane: 'long', ahead: 0 })).toBe(
      "waiting for a solver slot, 0 ahead (long jobs share 1 of the solver's 2 slot(s))",
    );
  });

  it('is numbers and fixed words only: text cannot ride on it into the progress', () => {
    expect(solverQueueUpdateSchema.safeParse(waiting).success).toBe(true);
    for (const forged of [
      { ...waiting, state: 'waiting\u001b[31m' },
      { ...waiting, ahead: '3 ahead\nfake line' },
      { ...waiting, ahead: -1 },
      { ...waiting, ahead: 1.5 },
      { ...waiting, lane: 'vip' },
      'waiting',
      null,
    ])
      expect(solverQueueUpdateSchema.safeParse(forged).success, JSON.stringify(forged)).toBe(false);
  });
});
