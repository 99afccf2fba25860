/**
 * answerBomQuestion with the BigQuery warehouse (`backends/warehouse/bigquery.ts`, the real
 * @google-cloud/bigquery client) against the local BigQuery REST fake: the same questions give
 * the same answers as on DuckDB, through BigQuery SQL with named parameters and the bytes cap.
 */
import { ApplicationFailure } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBomActivities } from '../flows/bom/activities';
import { bomQuestionFlow } from '../flows/bom/contract';
import { startBigQueryFake, type BigQueryFake } from './fakes/bigquery';
import { createHarness, recordHistory, type Harness } from './helpers/harness';
import { inActivityEnvironment } from './helpers/activity-env';

describe('answerBomQuestion on BigQuery (REST fake)', () => {
  let fake: BigQueryFake;
  let h: Harness;

  beforeAll(async () => {
    fake = await startBigQueryFake();
    h = await createHarness({ backends: (b) => ({ ...b, warehouse: fake.warehouse() }) });
  });
  afterAll(async () => {
    await h?.close();
    await fake?.close();
  });

  type QueryBody = {
    query: string;
    queryParameters?: Array<{ name: string; parameterValue: unknown }>;
    maximumBytesBilled?: string;
    labels?: Record<string, string>;
  };
  const queryBodies = (mark: number): QueryBody[] =>
    fake.requests
      .slice(mark)
      .filter((r) => r.method === 'POST')
      .map((r) => {
        const body = r.body as { configuration?: { query?: QueryBody; labels?: Record<string, string> } } & QueryBody;
        return body.configuration?.query ? { ...body.configuration.query, labels: body.configuration.labels } : body;
      });

  it('answers on each of the three strategies, and the indented where-used, with the same rows as DuckDB', async () => {
    // queries: how many strategy queries ran (the ladder starts where the grounding allows).
    const cases = [
      { question: 'Which BOMs use capacitor components?', strategy: 1, queries: 1, total: 350 },
      { question: 'Which BOMs use tantalum capacitors?', strategy: 2, queries: 1, total: 240 },
      { question: 'Which BOMs use fuse components?', strategy: 3, queries: 1, total: 115 },
      { question: 'Which finished goods ultimately contain an OLED display?', strategy: 2, queries: 1, total: 64 },
    ];
    for (const c of cases) {
      const mark = fake.requests.length;
      const handle = await h.start(bomQuestionFlow, { question: c.question });
      const out = await handle.result();
      expect(out.outcome, c.question).toBe('answered');
      expect(out.pipeline_state.strategy).toBe(c.strategy);
      expect(out.pipeline_state.total_rows).toBe(c.total);
      expect(out.pipeline_state.rows).toHaveLength(100 > c.total ? c.total : 100);
      expect(out.pipeline_state.chosen_sql).toContain('`fake-project.bom_demo.bom_details` bd');
      expect(out.final_answer).toContain(out.pipeline_state.chosen_sql!);

      const strategyQueries = queryBodies(mark).filter((b) => b.labels?.step?.startsWith('bom-strategy-'));
      expect(strategyQueries).toHaveLength(c.queries);
      for (const body of strategyQueries) {
        expect(body.maximumBytesBilled).toBe(String(100 * 1024 * 1024));
        expect(body.labels).toMatchObject({ app: 'agent-flows' });
        expect(body.query).toMatch(/\nLIMIT 100$/);
        expect(body.queryParameters?.length).toBeGreaterThan(0);
      }
      if (c.strategy === 2 && !out.pipeline_state.chosen_sql!.startsWith('WITH'))
        await recordHistory(handle, 'bom-question-bigquery-grounded-phrase');
    }
    const texts = fake.queries.join('\n');
    expect(texts).toContain('LOWER(c.`category`) IN UNNEST(@terms)');
    expect(texts).toContain('REGEXP_CONTAINS(c.`item_description`, @pattern)');
    expect(texts).toContain('STRPOS(LOWER(c.`item_description`), @term_0) > 0');
    expect(texts).toContain('WITH RECURSIVE matched AS');
    expect(texts).toContain('LOWER(p.`item_type`) IN UNNEST(@parent_kind)');
    expect(texts).toContain('`fake-project.bom_demo`.INFORMATION_SCHEMA.COLUMNS');
  });

  it('reuses a query pattern and reports no matching columns for a missing dataset, as on DuckDB', async () => {
    const reused = await h.run(bomQuestionFlow, { question: 'What components are in BOM SA-2003?' });
    expect(reused.pipeline_state.reuse).toMatchObject({
      matched: true,
      pattern_id: 'bom-explosion',
      params: { item: 'SA-2003' },
    });
    expect(reused.pipeline_state.total_rows).toBe(16);
    expect(reused.pipeline_state.chosen_sql).toContain('WHERE bd.`parent_item_number` = @item');

    const missing = await h.run(bomQuestionFlow, {
      question: 'Which BOMs use LEDs?',
      dataset: 'no_such_dataset',
    });
    expect(missing.outcome).toBe('no_matching_columns');
  });

  it('retries a transient BigQuery error inside the activity and still answers', async () => {
    fake.failNext(2, 503, 'backendError');
    const out = await h.run(bomQuestionFlow, {
      question: 'Which BOMs use sensor components?',
      ragEnabled: false,
    });
    expect(out.outcome).toBe('answered');
    expect(out.pipeline_state.strategy).toBe(1);
  });

  it('refuses a query above the maximum-bytes-billed cap with a non-retryable failure', async () => {
    const activities = inActivityEnvironment(
      createBomActivities({ ...h.backends, warehouse: fake.warehouse({ maximumBytesBilled: 1024 }) }),
    );
    const error = await activities
      .runBomStrategy({
        dataset: 'bom_demo',
        strategy: 1,
        candidateColumns: ['item_master.category'],
        searchTerms: ['capacitor'],
      })
      .catch((e) => e);
    expect(error).toBeInstanceOf(ApplicationFailure);
    expect((error as ApplicationFailure).type).toBe('WarehouseCostCapExceeded');
    expect((error as ApplicationFailure).nonRetryable).toBe(true);
  });

  it("reads the rows of a job still running after BigQuery's poll wait, and its bytes billed once done", async () => {
    const warehouse = fake.warehouse();
    const sql = 'SELECT COUNT(*) AS n FROM `fake-project.bom_demo.item_master`';
    const quick = await warehouse.query<{ n: number }>({ sql });
    fake.slowNext(1, 3);
    const before = fake.requests.length;
    const slow = await warehouse.query<{ n: number }>({ sql });
    // Four getQueryResults calls: three answered "not complete", the fourth with the rows.
    const polls = fake.requests.slice(before).filter((r) => r.method === 'GET' && r.path.includes('/queries/'));
    expect(polls).toHaveLength(4);
    expect(slow.rows).toEqual(quick.rows);
    expect(slow.rows[0].n).toBeGreaterThan(0);
    expect(slow.bytesBilled).toBeGreaterThan(0);
    expect(slow.bytesProcessed).toBe(slow.bytesBilled);
  });
});
