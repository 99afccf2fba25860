export type SqlDialectName = 'bigquery' | 'duckdb';

/** A named query parameter value. Arrays are typed by their first element (or `arrayType`). */
export type SqlParam = string | number | boolean | string[] | number[];

export interface QueryRequest {
  sql: string;
  params?: Record<string, SqlParam>;
  /** Element type of array parameters that may be empty: BigQuery needs it explicitly. */
  arrayTypes?: Record<string, 'STRING' | 'INT64' | 'FLOAT64'>;
  /** Job label, e.g. the flow and step that ran the query. */
  label?: string;
  /** Aborts the query: BigQuery cancels the job (jobs.cancel), so a cancelled step stops billing. */
  signal?: AbortSignal;
}

export interface QueryResult<T = Record<string, unknown>> {
  rows: T[];
  /** Bytes the warehouse scanned (BigQuery); undefined where the engine does not say. */
  bytesProcessed?: number;
  /** Bytes BigQuery billed for the job (at least 10 MB per query); undefined where the engine does not say. */
  bytesBilled?: number;
  jobId?: string;
}

export interface ColumnInfo {
  table: string;
  column: string;
  /** Normalised type name: STRING, INT64, FLOAT64, BOOL, DATE, TIMESTAMP, or the engine's own. */
  dataType: string;
}

/** A table or view with the descriptions its warehouse keeps (COMMENT ON, BigQuery descriptions). */
export interface TableDescription {
  dataset: string;
  table: string;
  description?: string;
  columns: Array<{ name: string; type: string; description?: string }>;
}

export interface ExecutedQuery {
  sql: string;
  params: Record<string, SqlParam>;
  label?: string;
  rows: number;
  ms: number;
  /** Bytes BigQuery billed for it (what a run cost); undefined on DuckDB. */
  bytesBilled?: number;
}

/** A SQL warehouse: BigQuery, or the embedded DuckDB default. */
export interface Warehouse {
  readonly name: string;
  readonly dialect: import('./sql').SqlDialect;
  query<T = Record<string, unknown>>(request: QueryRequest): Promise<QueryResult<T>>;
  /** The columns of every table in a dataset, from INFORMATION_SCHEMA. */
  listColumns(dataset: string): Promise<ColumnInfo[]>;
  /** The most frequent DISTINCT non-null values of a column (identifiers must come from listColumns). */
  sampleDistinct(
    dataset: string,
    table: string,
    column: string,
    limit: number,
  ): Promise<Array<{ value: string; count: number }>>;
  /**
   * Every table and view of a dataset (DuckDB: of every schema when none is named) with the
   * table and column descriptions the warehouse keeps: what a search catalog is built from.
   */
  describeTables(dataset?: string): Promise<TableDescription[]>;
  /** The project (BigQuery) or database (DuckDB) the tables belong to, as catalogs name it. */
  catalogName(): Promise<string>;
  /** Every statement this process sent, newest last (bounded): for audits and tests. */
  readonly executed: ExecutedQuery[];
  close(): Promise<void>;
}
