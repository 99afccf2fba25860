import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FLOW_SEARCH_ATTRIBUTE } from '../contracts/common';
import { platformCheckFlow } from '../flows/platform/contract';
import { createHarness, recordHistory, type Harness } from './helpers/harness';
import { progressQuery } from '../contracts/progress-messages';

describe('platformCheck on the embedded backends', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(async () => h?.close());

  it('searches, queries and summarises through one activity per backend', async () => {
    const handle = await h.start(platformCheckFlow, { topic: 'memory' });
    const result = await handle.result();
    expect(result.backends).toEqual({ model: 'standin', warehouse: 'duckdb', search: 'embedded' });
    expect(result.documents.map((d) => d.id)).toContain('pd-memory');
    expect(result.rows.map((r) => r.part_number).sort()).toEqual(['PD-1003', 'PD-1004']);
    expect(result.summary).toMatch(/2 warehouse row/);
    expect(result.usage.totalTokens).toBeGreaterThan(0);
    expect(result.usage.calls).toBe(1);

    const progress = await handle.query(progressQuery);
    expect(progress).toMatchObject({ flow: 'platformCheck', status: 'completed', done: 3, total: 3 });
    const description = await handle.describe();
    expect(description.searchAttributes[FLOW_SEARCH_ATTRIBUTE]).toEqual(['platformCheck']);
    expect(handle.workflowId).toMatch(/^platform-check-memory-[0-9a-f]{6}$/);
    expect(await description.staticSummary()).toContain('memory');
    await recordHistory(handle, 'platform-check-ok');
  });

  it('tags flows started without the search attribute (as the temporal CLI does)', async () => {
    const handle = await h.client.workflow.start('platformCheck', {
      taskQueue: h.taskQueue,
      workflowId: `raw-${Date.now()}`,
      args: [{ topic: 'battery' }],
    });
    await handle.result();
    expect((await handle.describe()).searchAttributes[FLOW_SEARCH_ATTRIBUTE]).toEqual(['platformCheck']);
  });

  it('fails fast and non-retryably on bad input, naming the field', async () => {
    const handle = await h.client.workflow.start('platformCheck', {
      taskQueue: h.taskQueue,
      workflowId: `bad-${Date.now()}`,
      args: [{ topic: '', extra: 1 }],
    });
    const error = await handle.result().catch((e) => e);
    expect(error).toBeInstanceOf(WorkflowFailedError);
    const cause = (error as WorkflowFailedError).cause as ApplicationFailure;
    expect(cause.type).toBe('InvalidInput');
    expect(cause.nonRetryable).toBe(true);
    expect(cause.message).toContain('topic');
    expect(cause.message).toContain('extra');
    await recordHistory(handle, 'platform-check-invalid-input');
  });

  it('rejects bad input in the client before any workflow exists', async () => {
    await expect(h.start(platformCheckFlow, { topic: 42 })).rejects.toThrow(/topic/);
  });
});
