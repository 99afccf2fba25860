/**
 * Warehouse and search faults at the wire, through the real Google clients:
 *
 * - BOM on the BigQuery REST fake: 5xx, rate limits (BigQuery's own 403 rateLimitExceeded and
 *   429) and unparseable bodies are retried and give the same answer as the DuckDB run; an
 *   outage that outlasts the retries, and a permanent error (access denied, invalid query), end
 *   the flow with a clear error — never an answer built on a failed query.
 * - Data discovery on the Discovery Engine REST fake: 5xx, 429 and unparseable bodies are
 *   retried and give the same result; failures past the retries, permanent errors, and a data
 *   store whose documents are not table descriptions are reported in their step, never an
 *   empty step presented as a successful search.
 */
import { ActivityFailure, ApplicationFailure, WorkflowFailedError } from '@temporalio/client';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DATA_DIR } from '../backends';
import { bomQuestionFlow, type BomQuestionOutput } from '../flows/bom/contract';
import { discoverFromPrpFlow, type DiscoverFromPrpOutput } from '../flows/discovery/contract';
import { startBigQueryFake, type BigQueryFake } from './fakes/bigquery';
import { startDiscoveryEngineFake, type DiscoveryEngineFake } from './fakes/discoveryengine';
import { activityRuns } from './faults-support';
import { createHarness, recordHistory, type Harness } from './helpers/harness';
import { DISCOVERY_TASKS, NFL_ACCURACY } from './helpers/scripted-discovery';
import { ScriptedModel } from './helpers/scripted-model';

const catalog = JSON.parse(readFileSync(path.join(DATA_DIR, 'search', 'table-catalog.json'), 'utf8')) as Array<
  Record<string, unknown>
>;
const literature = JSON.parse(readFileSync(path.join(DATA_DIR, 'search', 'literature.json'), 'utf8')) as Array<
  Record<string, unknown>
>;
const prp = readFileSync(path.join(DATA_DIR, 'prp', 'nfl-prediction-accuracy.md'), 'utf8');

/** What a BOM answer is made of, apart from the SQL text (BigQuery and DuckDB quote differently). */
function answerFacts(out: BomQuestionOutput) {
  const s = out.pipeline_state;
  return {
    outcome: out.outcome,
    summaryAndRows: out.final_answer.split('\nSQL used')[0],
    rows: s.rows,
    total_rows: s.total_rows,
    strategy: s.strategy,
    attempts_log: s.attempts_log,
    chosen_params: s.chosen_params,
    reuse: s.reuse,
    fallbacks: s.fallbacks,
  };
}

/** The activity failure behind a failed workflow. */
function activityCause(error: unknown): ApplicationFailure {
  expect(error).toBeInstanceOf(WorkflowFailedError);
  const activity = (error as WorkflowFailedError).cause as ActivityFailure;
  expect(activity).toBeInstanceOf(ActivityFailure);
  expect(activity.cause).toBeInstanceOf(ApplicationFailure);
  return activity.cause as ApplicationFailure;
}

// The tests run at the same time: each question's faults are for the queries that carry its own
// term (`bq.matching`), so no test meets another's, and the retries' back-off waits overlap.
describe.concurrent('BOM questions on the BigQuery REST fake with faults', () => {
  let bq: BigQueryFake;
  let onBigQuery: Harness;
  let onDuckDb: Harness;
  beforeAll(async () => {
    bq = await startBigQueryFake();
    [onBigQuery, onDuckDb] = await Promise.all([
      createHarness({ backends: (b) => ({ ...b, warehouse: bq.warehouse() }) }),
      createHarness(),
    ]);
  }, 120_000);
  afterAll(async () => {
    await Promise.all([onBigQuery?.close(), onDuckDb?.close()]);
    await bq?.close();
  });

  it('retries 5xx, rate limits and unparseable replies and answers exactly as on DuckDB', async () => {
    const cases: Array<{ question: string; inject: () => void }> = [
      {
        question: 'Which BOMs use capacitor components?',
        inject: () =>
          bq
            .matching('capacitor')
            .failNext(2, 503, 'backendError', 'Error encountered during execution. Retrying may solve the problem.'),
      },
      // BigQuery reports rate limits as HTTP 403 with reason rateLimitExceeded: a retry, not "access denied".
      {
        question: 'List BOMs using battery or memory components',
        inject: () => (
          bq
            .matching('battery')
            .failNext(1, 403, 'rateLimitExceeded', 'Exceeded rate limits: too many concurrent queries'),
          bq.matching('battery').failNext(1, 429, 'rateLimitExceeded')
        ),
      },
      {
        question: 'Which BOMs use fuse components?',
        inject: () => (bq.matching('fuse').failNext(1, 500, 'internalError'), bq.matching('fuse').malformNext(1)),
      },
      { question: 'Where is part CMP-000023 used?', inject: () => bq.matching('CMP-000023').malformNext(2) },
    ];
    await Promise.all(
      cases.map(async (c) => {
        const expected = await onDuckDb.run(bomQuestionFlow, { question: c.question });
        c.inject();
        const handle = await onBigQuery.start(bomQuestionFlow, { question: c.question });
        const out = await handle.result();
        expect(answerFacts(out), c.question).toEqual(answerFacts(expected));
        expect(out.pipeline_state.chosen_sql).toContain('`fake-project.bom_demo.');
        const retried = (await activityRuns(onBigQuery.client, handle.workflowId)).filter((r) => r.attempt > 1);
        expect(retried.length, `${c.question}: retried activities`).toBeGreaterThan(0);
        if (c.question.startsWith('List')) await recordHistory(handle, 'bom-question-bigquery-retried');
      }),
    );
  });

  it('fails at once with a non-retryable error when BigQuery denies access or rejects the query', async () => {
    for (const [status, reason, type] of [
      [403, 'accessDenied', 'WarehouseQueryInvalid'],
      [400, 'invalidQuery', 'WarehouseQueryInvalid'],
    ] as const) {
      const question = status === 403 ? 'Which BOMs use sensor components?' : 'Which BOMs use led components?';
      bq.matching(status === 403 ? 'sensor' : 'led').failNext(1, status, reason, `injected ${reason}`);
      const handle = await onBigQuery.start(bomQuestionFlow, { question, ragEnabled: false });
      const error = await handle.result().catch((e) => e);
      const cause = activityCause(error);
      expect(cause.type).toBe(type);
      expect(cause.nonRetryable).toBe(true);
      expect(cause.message).toContain(`HTTP ${status}, ${reason}`);
      const runs = await activityRuns(onBigQuery.client, handle.workflowId);
      const failed = runs.filter((r) => r.outcome === 'failed');
      expect(failed).toHaveLength(1);
      expect(failed[0].attempt).toBe(1);
      // Not retried, and nothing ran after it: no explainer, no answer built on a failed query.
      expect(runs.filter((r) => r.scheduledAt > failed[0].closedAt!)).toEqual([]);
      if (status === 403) await recordHistory(handle, 'bom-question-bigquery-access-denied');
    }
  });

  // The outage may leave unused faults queued on the fake, for its question's term only.
  it('reports a BigQuery outage that outlasts the retries as a failed flow, not as an answer', async () => {
    bq.matching('connector').failNext(40, 503, 'backendError');
    const handle = await onBigQuery.start(bomQuestionFlow, {
      question: 'Which BOMs use connector components?',
      ragEnabled: false,
    });
    const error = await handle.result().catch((e) => e);
    const cause = activityCause(error);
    expect(cause.type).toBe('WarehouseUnavailable');
    expect(cause.message).toMatch(/HTTP 503, backendError/);
    const failed = (await activityRuns(onBigQuery.client, handle.workflowId)).filter((r) => r.outcome === 'failed');
    // The warehouse retry policy's five attempts, then the error — no explainer, no answer.
    expect(failed).toHaveLength(1);
    expect(failed[0].attempt).toBe(5);
    expect(['resolveBomColumns', 'runBomStrategy']).toContain(failed[0].type);
  }, 120_000);
});

// Beside the BigQuery tests (a concurrent suite), but its own tests one after another: they share
// the fake's queue of faults and count the requests it received.
describe.concurrent('data discovery on the Discovery Engine REST fake with faults', () => {
  const model = new ScriptedModel().script(NFL_ACCURACY.script());
  let de: DiscoveryEngineFake;
  let h: Harness;
  let expected: DiscoverFromPrpOutput;
  const searches = () => de.requests.filter((r) => r.path.includes('/dataStores/agent-flows-table-catalog/'));
  beforeAll(async () => {
    de = await startDiscoveryEngineFake({ 'agent-flows-table-catalog': catalog });
    // The model is scripted (a plan and the table supplying each step): these tests are about
    // the search backend's faults, not what the stand-in would choose.
    h = await createHarness({ backends: (b) => ({ ...b, search: de.search() }), rules: model.rules(DISCOVERY_TASKS) });
    expected = await h.run(discoverFromPrpFlow, { prp, maxCandidatesPerStep: 4 });
    expect(expected.results.every((r) => r.status === 'ok' && r.discovered_tables.length > 0)).toBe(true);
  }, 120_000);
  afterEach(() => expect(model.unexpected).toEqual([]));
  afterAll(async () => {
    await h?.close();
    await de?.close();
  });

  it.sequential('retries 503, 429, 500 and an unparseable body and finds the same tables', async () => {
    const before = searches().length;
    de.failNext(1, 503, 'The service is currently unavailable.');
    de.failNext(1, 429, 'Quota exceeded for quota metric search requests.');
    de.failNext(1, 500, 'Internal error encountered.');
    de.malformNext(1);
    const handle = await h.start(discoverFromPrpFlow, { prp, maxCandidatesPerStep: 4 });
    const out = await handle.result();
    expect(out).toEqual(expected);
    // Three searches, plus the four failed attempts Temporal retried.
    expect(searches().length - before).toBe(out.results.length + 4);
    await recordHistory(handle, 'discover-from-prp-vertex-retried');
  });

  it.sequential(
    'records unparseable replies past the retries and a permanent 403 in their step; ' + 'the other steps complete',
    async () => {
      for (const inject of [
        () => de.malformNext(3),
        () => de.failNext(1, 403, 'Permission denied on resource project fake-project.'),
      ]) {
        const before = searches().length;
        inject();
        // One slot: the first step's search meets the faults on each of its attempts.
        const out = await h.run(discoverFromPrpFlow, {
          prp,
          maxCandidatesPerStep: 4,
          concurrency: 1,
        });
        expect(out.results[0]).toMatchObject({ status: 'failed', discovered_tables: [], candidates_found: 0 });
        expect(out.results[0].error).toMatch(/^search failed: Vertex AI Search (unavailable|rejected the request)/);
        expect(out.results.slice(1)).toEqual(expected.results.slice(1));
        expect(out.stats.searches_failed).toBe(1);
        // Retried three times when unparseable; once when permanent.
        expect(searches().length - before).toBe(
          out.results.length - 1 + (out.results[0].error!.includes('rejected') ? 1 : 3),
        );
      }
    },
  );

  it.sequential(
    'reports a data store whose documents are not table descriptions, instead of an ' + 'empty successful search',
    async () => {
      de.setDataStore('agent-flows-table-catalog', literature);
      try {
        const handle = await h.start(discoverFromPrpFlow, { prp, maxCandidatesPerStep: 4 });
        const out = await handle.result();
        expect(out.stats.candidates).toBe(0);
        for (const step of out.results) {
          expect(step.status, step.conceptual_group).toBe('failed');
          expect(step.error).toMatch(/none describing a table/);
        }
        expect(out.stats.searches_failed).toBe(out.results.length);
        await recordHistory(handle, 'discover-from-prp-no-tables-in-store');
      } finally {
        de.setDataStore('agent-flows-table-catalog', catalog);
      }
    },
  );
});
