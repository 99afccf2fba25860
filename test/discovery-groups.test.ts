/**
 * `discoverFromPrp` validating a step's candidates in one activity, on a real dev server with
 * scripted activities around the real `discoveryValidateCandidates`: what the group keeps when
 * one candidate keeps failing and the last attempt is lost, and what a retrying sibling costs
 * the other candidates.
 */
import { Context } from '@temporalio/activity';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createDiscoveryActivities } from '../flows/discovery/activities';
import { BackendError } from '../backends/errors';
import type { DiscoverFromPrpOutput } from '../flows/discovery/contract';
import { flowWorkerOptions } from '../workers/worker';
import { fakeBackends, fakeModel } from './unit/fake-backends';

const table = (id: string) => ({ table_id: id, project_id: 'p', dataset_id: 'd', description: `${id}.`, schema: [] });
const usage = { promptTokens: 1, outputTokens: 1, totalTokens: 2, calls: 1 };
const overloaded = () =>
  new BackendError('model overloaded', { backend: 'model', retryable: true, type: 'ModelUnavailable', status: 503 });

// The two cases at the same time: each has its own worker, task queue and model, and most of
// each is spent waiting on retry back-offs and a heartbeat time-out.
describe.concurrent('discoverFromPrp: candidates validated in groups', () => {
  let nativeConnection: NativeConnection;
  let client: Client;
  beforeAll(async () => {
    nativeConnection = await NativeConnection.connect({ address: inject('temporalAddress') });
    client = new Client({ connection: await Connection.connect({ address: inject('temporalAddress') }) });
  });
  afterAll(async () => {
    await client.connection.close();
    await nativeConnection.close();
  });

  /** Runs one discovery of a single step over `ids` with this model (`answer` gets the candidate and the attempt). */
  async function discover(
    ids: string[],
    answer: (id: string, attempt: number) => Promise<unknown>,
    concurrency = 8,
  ): Promise<{ out: DiscoverFromPrpOutput; workflowId: string }> {
    const taskQueue = `groups-${randomUUID().slice(0, 8)}`;
    const model = fakeModel(async (r) => {
      const id = (JSON.parse(String((r.sections as Record<string, unknown>).candidate_table)) as { table_id: string })
        .table_id;
      return answer(id, Context.current().info.attempt);
    });
    const real = createDiscoveryActivities(fakeBackends({ model }));
    const worker = await Worker.create({
      ...flowWorkerOptions({
        connection: nativeConnection,
        taskQueue,
        workflowBundle: { codePath: inject('workflowBundlePath') },
        dataConverter: {},
      }),
      activities: {
        discoveryPlanSearch: async () => ({
          data: {
            steps: [
              { conceptual_group: 'stores', search_query: 'store tables', target_columns_for_validation: ['store_id'] },
            ],
          },
          usage,
        }),
        discoverySearchCatalog: async () => ({ candidates: ids.map(table), skipped: 0, totalSize: ids.length }),
        discoveryValidateCandidates: real.discoveryValidateCandidates,
      },
    });
    const workflowId = `groups-${randomUUID()}`;
    const out = await worker.runUntil(
      client.workflow.execute('discoverFromPrp', {
        taskQueue,
        workflowId,
        args: [
          {
            prp: 'A PRP about stores.',
            targetSchema: [{ name: 'store_id', type: 'STRING', description: 'The store.' }],
            maxCandidatesPerStep: ids.length,
            concurrency,
          },
        ],
      }),
    );
    return { out: out as DiscoverFromPrpOutput, workflowId };
  }

  const fit = (id: string) => ({
    is_good_fit: true,
    relevance_score: 0.9,
    reasoning: `fits ${id}`,
    matched_columns: ['store_id'],
  });

  it('a group whose last attempt is lost keeps the verdicts its heartbeat recorded: only the open candidate fails closed', async () => {
    const asked: string[] = [];
    const { out, workflowId } = await discover(['a', 'b', 'c'], async (id, attempt) => {
      asked.push(`${id}@${attempt}`);
      if (id !== 'b') return fit(id);
      if (attempt < 4) throw overloaded();
      // The last attempt: the worker is lost while b's call is open (no more heartbeats).
      const context = Context.current();
      (context as unknown as { heartbeat: () => void }).heartbeat = () => {};
      // Lost until the worker shuts down after the workflow has ended (the SDK cancels the
      // activities still running then): a plain 30 s timer held the shutdown, and the test, that long.
      await context.sleep(30_000);
      return fit(id);
    });
    expect(asked.filter((a) => !a.startsWith('b@'))).toEqual(['a@1', 'c@1']);
    expect(out.results[0].discovered_tables.map((t) => t.table_id).sort()).toEqual(['a', 'c']);
    expect(out.rejected).toEqual([
      expect.objectContaining({
        table: 'p.d.b',
        outcome: 'validation_error',
        reason: expect.stringMatching(/timeout/i),
      }),
    ]);
    expect(out.stats).toMatchObject({ candidates: 3, fits: 2, validations_failed: 1 });
    // The answers a and c cost are counted: the plan's call and theirs.
    expect(out.usage.calls).toBe(3);
    const history = await client.workflow.getHandle(workflowId).fetchHistory();
    expect(history.events?.some((e) => e.activityTaskTimedOutEventAttributes)).toBe(true);
  }, 120_000);

  it('a candidate retried by its group is asked again alone; its siblings answer once', async () => {
    const asked: string[] = [];
    const { out } = await discover(
      ['a', 'b', 'c', 'd'],
      async (id, attempt) => {
        asked.push(`${id}@${attempt}`);
        if (id === 'c' && attempt < 3) throw overloaded();
        return fit(id);
      },
      2,
    );
    // Concurrency 2: two groups of two; c's group retried twice, asking only c.
    expect(asked.filter((a) => a.startsWith('c@'))).toEqual(['c@1', 'c@2', 'c@3']);
    for (const id of ['a', 'b', 'd']) expect(asked.filter((a) => a.startsWith(`${id}@`))).toEqual([`${id}@1`]);
    expect(out.results[0]).toMatchObject({ status: 'ok', candidates_found: 4 });
    expect(out.stats).toMatchObject({ fits: 4, validations_failed: 0 });
  });
});
