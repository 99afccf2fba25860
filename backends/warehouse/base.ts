import { inSpan } from '../traced';
import { sampleDistinctSql, type SqlDialect } from './sql';
import type { ColumnInfo, ExecutedQuery, QueryRequest, QueryResult, TableDescription, Warehouse } from './types';

const MAX_LOG = 1000;

/** What both warehouses share: INFORMATION_SCHEMA listing, distinct sampling, the executed-SQL log. */
export abstract class SqlWarehouse implements Warehouse {
  abstract readonly name: string;
  abstract readonly dialect: SqlDialect;
  readonly executed: ExecutedQuery[] = [];

  protected abstract run<T>(request: QueryRequest): Promise<QueryResult<T>>;
  abstract close(): Promise<void>;
  abstract describeTables(dataset?: string): Promise<TableDescription[]>;
  abstract catalogName(): Promise<string>;

  query<T = Record<string, unknown>>(request: QueryRequest): Promise<QueryResult<T>> {
    return inSpan(
      'warehouse.query',
      { 'db.system': this.name, ...(request.label ? { 'agent_flows.step': request.label } : {}) },
      () => this.queryUntraced<T>(request),
      (result) => ({
        'db.rows': result.rows.length,
        ...(result.jobId ? { 'bigquery.job_id': result.jobId } : {}),
        ...(result.bytesProcessed !== undefined ? { 'bigquery.bytes_processed': result.bytesProcessed } : {}),
        ...(result.bytesBilled !== undefined ? { 'bigquery.bytes_billed': result.bytesBilled } : {}),
      }),
    );
  }

  private async queryUntraced<T>(request: QueryRequest): Promise<QueryResult<T>> {
    const started = performance.now();
    const result = await this.run<T>(request);
    this.executed.push({
      sql: request.sql,
      params: request.params ?? {},
      label: request.label,
      rows: result.rows.length,
      ms: performance.now() - started,
      ...(result.bytesBilled !== undefined ? { bytesBilled: result.bytesBilled } : {}),
    });
    if (this.executed.length > MAX_LOG) this.executed.splice(0, this.executed.length - MAX_LOG);
    return result;
  }

  async listColumns(dataset: string): Promise<ColumnInfo[]> {
    const { sql, params } = this.dialect.informationSchemaColumns(dataset);
    const { rows } = await this.query<{ table_name: string; column_name: string; data_type: string }>({
      sql,
      params,
      label: 'list-columns',
    });
    return rows.map((r) => ({
      table: r.table_name,
      column: r.column_name,
      dataType: this.dialect.normaliseType(r.data_type),
    }));
  }

  async sampleDistinct(dataset: string, table: string, column: string, limit: number) {
    const { sql } = sampleDistinctSql(this.dialect, dataset, table, column, limit);
    const { rows } = await this.query<{ value: string; count: number | string | bigint }>({
      sql,
      label: 'sample-distinct',
    });
    return rows.map((r) => ({ value: String(r.value), count: Number(r.count) }));
  }
}
