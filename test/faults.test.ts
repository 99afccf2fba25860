import { ActivityFailure, ApplicationFailure, WorkflowFailedError } from '@temporalio/client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { platformCheckFlow } from '../flows/platform/contract';
import { createHarness, recordHistory, type Harness } from './helpers/harness';

describe('model faults from the stand-in, through Temporal retries', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
  });
  beforeEach(() => {
    h.standin.setFaults({});
    h.standin.resetStats();
  });
  afterAll(async () => h?.close());

  it('completes through a burst of 429s and 503s, retried by Temporal', async () => {
    h.standin.setFaults({ burst429: 2, burst503: 1 });
    const handle = await h.start(platformCheckFlow, { topic: 'battery' });
    const result = await handle.result();
    expect(result.summary).toMatch(/battery/);
    const stats = h.standin.stats();
    expect(stats.faults).toEqual({ '429': 2, '503': 1 });
    expect(stats.byTask['platform.summarize']).toBe(4);
    const history = await handle.fetchHistory();
    const failedAttempts = history.events!.filter(
      (e) => e.activityTaskStartedEventAttributes?.attempt && e.activityTaskStartedEventAttributes.attempt > 1,
    );
    expect(failedAttempts.length).toBeGreaterThanOrEqual(1);
    await recordHistory(handle, 'platform-check-model-retries');
  });

  it('repairs malformed and schema-violating replies inside the activity', async () => {
    h.standin.setFaults({ rateMalformed: 0.25, rateSchemaViolation: 0.25, seed: 11 });
    const results = await Promise.all(
      ['battery', 'memory', 'usb', 'flash', 'holder'].map((topic) => h.run(platformCheckFlow, { topic })),
    );
    expect(results.every((r) => r.summary.length > 0)).toBe(true);
    const stats = h.standin.stats();
    expect((stats.faults.malformed ?? 0) + (stats.faults.schema ?? 0)).toBeGreaterThan(0);
    // A repaired reply costs extra model turns, visible in the reported usage of that run.
    expect(results.some((r) => r.usage.calls > 1)).toBe(true);
    // Usage counts the successful attempt's turns; turns of attempts that exhausted their repairs are not billed twice.
    const calls = results.reduce((n, r) => n + r.usage.calls, 0);
    expect(calls).toBeLessThanOrEqual(stats.answered);
    expect(calls).toBeGreaterThan(5);
  });

  it('fails fast with a clear non-retryable error on a permanent fault (invalid key)', async () => {
    h.standin.setFaults({ permanentStatus: 403 });
    const handle = await h.start(platformCheckFlow, { topic: 'battery' });
    const error = await handle.result().catch((e) => e);
    expect(error).toBeInstanceOf(WorkflowFailedError);
    const activityFailure = error.cause as ActivityFailure;
    expect(activityFailure).toBeInstanceOf(ActivityFailure);
    const cause = activityFailure.cause as ApplicationFailure;
    expect(cause.type).toBe('ModelRequestRejected');
    expect(cause.message).toMatch(/HTTP 403.*GEMINI_API_KEY/);
    expect(h.standin.stats().byTask['platform.summarize']).toBe(1);
    await recordHistory(handle, 'platform-check-model-rejected');
  });
});
