/**
 * The BigQuery warehouse on `@google-cloud/bigquery`: named parameters only, a maximum-bytes-billed
 * cap and job labels on every query. Errors become retryable (rate limits, 5xx, backend errors)
 * or permanent (invalid query, access denied, bytes-billed limit exceeded) BackendErrors.
 */
import { BigQuery, type BigQueryOptions, type Query } from '@google-cloud/bigquery';
import { BackendError, isRetryableStatus, isTransportError, untilAborted } from '../errors';
import { SqlWarehouse } from './base';
import { assertIdentifier, bigQueryDialect, type SqlDialect } from './sql';
import type { QueryRequest, QueryResult, TableDescription } from './types';
import { FailureType } from '../../contracts/failures';

export interface BigQueryWarehouseOptions {
  projectId: string;
  location: string;
  maximumBytesBilled: number;
  apiEndpoint?: string;
  /** Tests pass a fake auth client; production uses Application Default Credentials. */
  authClient?: BigQueryOptions['authClient'];
  labels?: Record<string, string>;
}

/** One page of results: the flows read at most this many rows of any query. */
const RESULT_PAGE = { autoPaginate: false, maxResults: 10_000 } as const;

const RETRYABLE_REASONS = new Set(['rateLimitExceeded', 'backendError', 'internalError', 'jobRateLimitExceeded']);

export class BigQueryWarehouse extends SqlWarehouse {
  readonly name = 'bigquery';
  readonly dialect: SqlDialect;
  private readonly client: BigQuery;

  constructor(private readonly options: BigQueryWarehouseOptions) {
    super();
    this.dialect = bigQueryDialect(options.projectId);
    this.client = new BigQuery({
      projectId: options.projectId,
      location: options.location,
      // Temporal owns retries (with backoff and visibility in history): the client makes one attempt.
      autoRetry: false,
      ...(options.apiEndpoint ? { apiEndpoint: options.apiEndpoint } : {}),
      ...(options.authClient ? { authClient: options.authClient } : {}),
    });
  }

  protected async run<T>(request: QueryRequest): Promise<QueryResult<T>> {
    const types: Record<string, string[] | string> = {};
    for (const [name, value] of Object.entries(request.params ?? {})) {
      if (Array.isArray(value))
        types[name] = [request.arrayTypes?.[name] ?? (typeof value[0] === 'number' ? 'FLOAT64' : 'STRING')];
    }
    const query: Query = {
      query: request.sql,
      params: request.params ?? {},
      ...(Object.keys(types).length ? { types } : {}),
      location: this.options.location,
      useLegacySql: false,
      maximumBytesBilled: String(this.options.maximumBytesBilled),
      labels: {
        app: 'agent-flows',
        ...(request.label ? { step: sanitizeLabel(request.label) } : {}),
        ...this.options.labels,
      },
    };
    const { signal } = request;
    try {
      const created = this.client.createQueryJob(query);
      // Cancelled while the job is being created: cancel it as soon as BigQuery names it.
      const [job] = await untilAborted(signal, created, () => {
        void created.then(([late]) => late.cancel()).catch(() => undefined);
      });
      // Cancelled while the job runs (or right after it was created): cancel it at BigQuery too.
      const cancelJob = () => job.cancel();
      // getQueryResults waits at most ~10 s at BigQuery and then answers "not complete" with no rows:
      // poll again until the job is done, or a long query would read as an empty result.
      let [rows, , response] = await untilAborted(signal, job.getQueryResults(RESULT_PAGE), cancelJob);
      while (response?.jobComplete === false) {
        [rows, , response] = await untilAborted(signal, job.getQueryResults(RESULT_PAGE), cancelJob);
      }
      // The job resource carries the bytes billed once the job is done (the insert answer predates them).
      const [metadata] = await untilAborted(signal, job.getMetadata(), cancelJob);
      const bytes = Number(response?.totalBytesProcessed ?? metadata?.statistics?.totalBytesProcessed ?? NaN);
      const billed = Number(metadata?.statistics?.query?.totalBytesBilled ?? NaN);
      return {
        rows: rows.map(plainRow) as T[],
        bytesProcessed: Number.isFinite(bytes) ? bytes : undefined,
        ...(Number.isFinite(billed) ? { bytesBilled: billed } : {}),
        jobId: job.id,
      };
    } catch (err) {
      if (signal?.aborted) throw err;
      throw classifyBigQueryError(err);
    }
  }

  async catalogName(): Promise<string> {
    return this.options.projectId;
  }

  async describeTables(dataset?: string): Promise<TableDescription[]> {
    if (dataset === undefined) throw new Error('BigQuery: name the dataset to describe');
    // The dataset is checked as an identifier (and the project by the dialect) before it is quoted.
    const from = (view: string) =>
      `\`${this.options.projectId}.${assertIdentifier('dataset', dataset)}\`.INFORMATION_SCHEMA.${view}`;
    const { rows: tables } = await this.query<{ table_name: string }>({
      sql: `SELECT table_name FROM ${from('TABLES')} ORDER BY table_name`,
      label: 'describe-tables',
    });
    const { rows: options } = await this.query<{ table_name: string; option_value: string | null }>({
      sql: `SELECT table_name, option_value FROM ${from('TABLE_OPTIONS')} WHERE option_name = @option`,
      params: { option: 'description' },
      label: 'describe-table-options',
    });
    const { rows: paths } = await this.query<{
      table_name: string;
      column_name: string;
      field_path: string;
      data_type: string;
      description: string | null;
    }>({
      sql: `SELECT table_name, column_name, field_path, data_type, description FROM ${from('COLUMN_FIELD_PATHS')}`,
      label: 'describe-columns',
    });
    // COLUMN_FIELD_PATHS has no column order: the columns' order comes from INFORMATION_SCHEMA.COLUMNS.
    const ordered = await this.listColumns(dataset);
    const rank = new Map(ordered.map((c, i) => [JSON.stringify([c.table, c.column]), i]));
    const descriptions = new Map(options.map((o) => [o.table_name, optionString(o.option_value)]));
    const byTable = new Map<string, TableDescription>(
      tables.map((t) => {
        const description = descriptions.get(t.table_name);
        return [t.table_name, { dataset, table: t.table_name, ...(description ? { description } : {}), columns: [] }];
      }),
    );
    const order = (p: { table_name: string; column_name: string }) =>
      rank.get(JSON.stringify([p.table_name, p.column_name])) ?? Number.MAX_SAFE_INTEGER;
    for (const p of [...paths].sort((a, b) => order(a) - order(b) || a.field_path.localeCompare(b.field_path))) {
      // Nested STRUCT fields are columns of their own (`address.city`), as BigQuery's schema shows them.
      byTable.get(p.table_name)?.columns.push({
        name: p.field_path,
        type: this.dialect.normaliseType(p.data_type),
        ...(p.description ? { description: p.description } : {}),
      });
    }
    return [...byTable.values()];
  }

  async close(): Promise<void> {}
}

/** TABLE_OPTIONS holds a string option as a quoted literal (`"Orders, one row per order"`). */
function optionString(value: string | null): string | undefined {
  if (!value) return undefined;
  if (/^".*"$/s.test(value)) {
    try {
      return JSON.parse(value) as string;
    } catch {
      return value.slice(1, -1);
    }
  }
  return value;
}

/** Label values: lowercase letters, digits, '_' and '-', at most 63 characters. */
function sanitizeLabel(value: string): string {
  return value
    .toLowerCase()
    .replace(/[^a-z0-9_-]/g, '_')
    .slice(0, 63);
}

/** BigQuery returns DATE/TIMESTAMP/NUMERIC as wrapper objects: flatten them to JSON values. */
function plainRow(row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row)) {
    out[key] =
      value && typeof value === 'object' && 'value' in (value as object) && Object.keys(value as object).length === 1
        ? (value as { value: unknown }).value
        : typeof value === 'bigint'
          ? Number(value)
          : value;
  }
  return out;
}

export function classifyBigQueryError(err: unknown): BackendError {
  const e = err as { code?: number; errors?: Array<{ reason?: string; message?: string }>; message?: string };
  const reason = e.errors?.[0]?.reason;
  const status = typeof e.code === 'number' ? e.code : undefined;
  const message = e.errors?.[0]?.message ?? e.message ?? String(err);
  if (reason === 'bytesBilledLimitExceeded') {
    return new BackendError(
      `BigQuery refused the query: it would bill more than the configured cap (BIGQUERY_MAX_BYTES_BILLED): ${message}`,
      {
        backend: 'warehouse',
        retryable: false,
        type: FailureType.WarehouseCostCapExceeded,
        status,
        cause: err,
      },
    );
  }
  // A reply that is not valid JSON comes from a proxy or an interrupted response, not from the
  // query: retry it rather than fail the step.
  const garbled = err instanceof SyntaxError || (err as Error)?.name === 'SyntaxError';
  const retryable =
    garbled ||
    (reason !== undefined && RETRYABLE_REASONS.has(reason)) ||
    (status !== undefined ? isRetryableStatus(status) && status !== 501 : isTransportError(err));
  return new BackendError(
    `BigQuery ${retryable ? 'unavailable' : 'rejected the query'}${status ? ` (HTTP ${status}${reason ? `, ${reason}` : ''})` : ''}: ${message}`,
    {
      backend: 'warehouse',
      retryable,
      type: retryable ? FailureType.WarehouseUnavailable : FailureType.WarehouseQueryInvalid,
      status,
      cause: err,
    },
  );
}
