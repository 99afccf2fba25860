import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BackendError } from '../../backends/errors';
import type { BigQueryWarehouse } from '../../backends/warehouse/bigquery';
import { bigQueryDialect, sampleDistinctSql } from '../../backends/warehouse/sql';
import { bigQuerySyntaxError, startBigQueryFake, translateBigQuerySql, type BigQueryFake } from '../fakes/bigquery';

describe('BigQuery adapter against the BigQuery REST fake (real @google-cloud/bigquery client)', () => {
  let fake: BigQueryFake;
  let bq: BigQueryWarehouse;
  beforeAll(async () => {
    fake = await startBigQueryFake();
    bq = fake.warehouse();
  });
  afterAll(async () => fake?.close());

  it('lists columns from INFORMATION_SCHEMA with normalised types', async () => {
    const columns = await bq.listColumns('platform_demo');
    expect(columns).toContainEqual({ table: 'components', column: 'name', dataType: 'STRING' });
    expect(fake.queries.at(-1)).toContain('`fake-project.platform_demo`.INFORMATION_SCHEMA.COLUMNS');
  });

  it('runs a parameterised query with named scalar and array parameters, a cost cap and labels', async () => {
    const d = bq.dialect;
    const sql = `SELECT ${d.column('part_number')} FROM ${d.table('platform_demo', 'components')} WHERE ${d.inArray(`LOWER(${d.column('category')})`, 'cats')} AND ${d.regexpContains(d.column('name'), 'pattern')} ORDER BY 1`;
    const result = await bq.query<{ part_number: string }>({
      sql,
      params: { cats: ['power', 'memory'], pattern: '(?i)\\bbatter(y|ies)\\b' },
      label: 'Test Step',
    });
    expect(result.rows.map((r) => r.part_number)).toEqual(['PD-1001', 'PD-1002', 'PD-1006']);
    expect(result.bytesProcessed).toBeGreaterThan(0);
    const insert = fake.requests.filter((r) => r.method === 'POST').at(-1)!.body as {
      configuration: {
        query: {
          parameterMode: string;
          maximumBytesBilled: string;
          queryParameters: Array<{ name: string; parameterType: { type: string } }>;
        };
        labels: Record<string, string>;
      };
    };
    expect(insert.configuration.query.parameterMode.toUpperCase()).toBe('NAMED');
    expect(insert.configuration.query.maximumBytesBilled).toBe(String(100 * 1024 * 1024));
    expect(insert.configuration.query.queryParameters.map((p) => [p.name, p.parameterType.type])).toEqual([
      ['cats', 'ARRAY'],
      ['pattern', 'STRING'],
    ]);
    expect(insert.configuration.labels).toMatchObject({ app: 'agent-flows', step: 'test_step' });
  });

  it('sends an empty array parameter with its explicit element type', async () => {
    const d = bq.dialect;
    const sql = `SELECT COUNT(*) AS n FROM ${d.table('platform_demo', 'components')} WHERE ${d.inArray(d.column('name'), 'names')}`;
    const result = await bq.query<{ n: number }>({ sql, params: { names: [] }, arrayTypes: { names: 'STRING' } });
    expect(result.rows).toEqual([{ n: 0 }]);
  });

  it('samples distinct values', async () => {
    const values = await bq.sampleDistinct('platform_demo', 'components', 'category', 2);
    expect(values).toEqual([
      { value: 'power', count: 3 },
      { value: 'memory', count: 2 },
    ]);
  });

  it('classifies faults: 503/backendError and 429/rateLimitExceeded retryable, invalidQuery permanent', async () => {
    const sql = `SELECT 1 AS one`;
    fake.failNext(1, 503, 'backendError');
    const unavailable = await bq.query({ sql }).catch((e) => e);
    expect(unavailable).toBeInstanceOf(BackendError);
    expect(unavailable.retryable).toBe(true);
    fake.failNext(1, 429, 'rateLimitExceeded');
    expect((await bq.query({ sql }).catch((e) => e)).retryable).toBe(true);
    const invalid = await bq.query({ sql: 'SELECT * FROM nowhere' }).catch((e) => e);
    expect(invalid).toBeInstanceOf(BackendError);
    expect(invalid.retryable).toBe(false);
    expect(invalid.type).toBe('WarehouseQueryInvalid');
    expect((await bq.query({ sql })).rows).toEqual([{ one: 1 }]);
  });

  it('reports a malformed response as a retryable fault, never as rows', async () => {
    fake.malformNext(1);
    const error = await bq.query({ sql: 'SELECT 1 AS one' }).catch((e) => e);
    expect(error).toBeInstanceOf(BackendError);
    expect(error.retryable).toBe(true);
  });

  it('refuses a query over the maximum-bytes-billed cap with a permanent, named error', async () => {
    const capped = fake.warehouse({ maximumBytesBilled: 1024 });
    const error = await capped.query({ sql: 'SELECT 1 AS one' }).catch((e) => e);
    expect(error.type).toBe('WarehouseCostCapExceeded');
    expect(error.retryable).toBe(false);
    expect(error.message).toContain('BIGQUERY_MAX_BYTES_BILLED');
  });

  it('the fake translates only syntax, so the same builder output runs on both engines', () => {
    expect(
      translateBigQuerySql(
        'SELECT `a` FROM `p-1.ds.t` WHERE LOWER(`a`) IN UNNEST(@terms) AND REGEXP_CONTAINS(`a`, @re)',
      ),
    ).toBe('SELECT "a" FROM "ds"."t" WHERE LOWER("a") IN (SELECT unnest($terms)) AND regexp_matches("a", $re)');
  });
});

describe('BigQuery syntax of the statements the project builds', () => {
  it('the fake rejects a statement BigQuery could not parse, as BigQuery does (400 invalidQuery)', async () => {
    const fake = await startBigQueryFake();
    try {
      const error = await fake
        .warehouse()
        .query({
          sql: 'SELECT part_number FROM `fake-project.platform_demo.components` WHERE name ~ @x',
          params: { x: 'a' },
        })
        .catch((err: unknown) => err);
      expect(error).toBeInstanceOf(BackendError);
      expect((error as BackendError).message).toMatch(/HTTP 400, invalidQuery\): Syntax error/);
    } finally {
      await fake.close();
    }
  });

  it('the helper statements parse: INFORMATION_SCHEMA and distinct sampling (flows cover the rest)', () => {
    const d = bigQueryDialect('fake-project');
    expect(bigQuerySyntaxError(d.informationSchemaColumns('bom_demo').sql)).toBeNull();
    expect(bigQuerySyntaxError(sampleDistinctSql(d, 'bom_demo', 'item_master', 'category', 50).sql)).toBeNull();
    expect(bigQuerySyntaxError('SELECT 1 FROM')).toMatch(/Expected/);
  });
});
