/**
 * The embedded warehouse: DuckDB in process. Each dataset is a DuckDB schema; the demo datasets
 * are built at start from the SQL files in `data/warehouse/` (each file is idempotent).
 */
import {
  DuckDBInstance,
  LIST,
  VARCHAR,
  BIGINT,
  DOUBLE,
  listValue,
  type DuckDBConnection,
  type DuckDBType,
  type DuckDBValue,
} from '@duckdb/node-api';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { BackendError } from '../errors';
import { SqlWarehouse } from './base';
import { duckDbDialect } from './sql';
import type { QueryRequest, QueryResult, TableDescription } from './types';
import { FailureType } from '../../contracts/failures';

const LIST_TYPES = { STRING: LIST(VARCHAR), INT64: LIST(BIGINT), FLOAT64: LIST(DOUBLE) } as const;

/** DuckDB hands back BIGINT as bigint and dates as objects: make rows plain JSON, as BigQuery's are. */
function plainValue(value: unknown): unknown {
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(plainValue);
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plainValue(v)]));
  return value;
}

function plainRow(row: Record<string, unknown>): Record<string, unknown> {
  return plainValue(row) as Record<string, unknown>;
}

export class DuckDbWarehouse extends SqlWarehouse {
  readonly name = 'duckdb';
  readonly dialect = duckDbDialect;

  private constructor(
    private readonly instance: DuckDBInstance,
    private readonly connection: DuckDBConnection,
  ) {
    super();
  }

  static async open(options: { path: string; seedDir?: string; readOnly?: boolean }): Promise<DuckDbWarehouse> {
    // Read-only: importing a catalog from someone's database file must never change it.
    const instance = await DuckDBInstance.create(
      options.path,
      options.readOnly ? { access_mode: 'READ_ONLY' } : undefined,
    );
    const connection = await instance.connect();
    const warehouse = new DuckDbWarehouse(instance, connection);
    if (options.seedDir) await warehouse.loadSqlDir(options.seedDir);
    return warehouse;
  }

  /** Runs every `*.sql` file of a folder in name order (demo datasets). */
  async loadSqlDir(dir: string): Promise<string[]> {
    const files = (await readdir(dir).catch(() => [] as string[])).filter((f) => f.endsWith('.sql')).sort();
    for (const file of files) {
      await this.connection.run(await readFile(path.join(dir, file), 'utf8'));
    }
    return files;
  }

  protected async run<T>(request: QueryRequest): Promise<QueryResult<T>> {
    const values: Record<string, DuckDBValue> = {};
    const types: Record<string, DuckDBType> = {};
    for (const [name, value] of Object.entries(request.params ?? {})) {
      if (Array.isArray(value)) {
        values[name] = listValue(value as DuckDBValue[]);
        const elementType = request.arrayTypes?.[name] ?? (typeof value[0] === 'number' ? 'FLOAT64' : 'STRING');
        types[name] = LIST_TYPES[elementType];
      } else {
        values[name] = value;
      }
    }
    try {
      const reader = await this.connection.runAndReadAll(request.sql, values, types);
      return { rows: reader.getRowObjectsJS().map(plainRow) as T[] };
    } catch (err) {
      // A DuckDB error is a problem with the statement, not a transient fault: do not retry.
      throw new BackendError(`warehouse query failed: ${err instanceof Error ? err.message : String(err)}`, {
        backend: 'warehouse',
        retryable: false,
        type: FailureType.WarehouseQueryInvalid,
        cause: err,
      });
    }
  }

  async catalogName(): Promise<string> {
    const { rows } = await this.query<{ name: string }>({ sql: 'SELECT current_database() AS name', label: 'catalog' });
    return String(rows[0]?.name ?? 'duckdb');
  }

  async describeTables(dataset?: string): Promise<TableDescription[]> {
    // The schema name is bound as a parameter; names and comments come back as data.
    const params: Record<string, string> = dataset === undefined ? {} : { dataset };
    const inDataset = dataset === undefined ? '' : ' AND schema_name = $dataset';
    const where = `database_name = current_database() AND NOT internal AND NOT temporary${inDataset}`;
    const { rows: tables } = await this.query<{ schema_name: string; table_name: string; comment: string | null }>({
      sql:
        `SELECT schema_name, table_name, comment FROM duckdb_tables() WHERE ${where} ` +
        `UNION ALL SELECT schema_name, view_name AS table_name, comment FROM duckdb_views() WHERE ${where} ` +
        'ORDER BY schema_name, table_name',
      params,
      label: 'describe-tables',
    });
    const { rows: columns } = await this.query<{
      schema_name: string;
      table_name: string;
      column_name: string;
      data_type: string;
      comment: string | null;
    }>({
      sql:
        'SELECT schema_name, table_name, column_name, data_type, comment FROM duckdb_columns() ' +
        `WHERE database_name = current_database() AND NOT internal${inDataset} ` +
        'ORDER BY schema_name, table_name, column_index',
      params,
      label: 'describe-columns',
    });
    const key = (schema: string, table: string) => JSON.stringify([schema, table]);
    const byTable = new Map<string, TableDescription>(
      tables.map((t) => [
        key(t.schema_name, t.table_name),
        {
          dataset: t.schema_name,
          table: t.table_name,
          ...(t.comment ? { description: t.comment } : {}),
          columns: [],
        },
      ]),
    );
    for (const c of columns) {
      byTable.get(key(c.schema_name, c.table_name))?.columns.push({
        name: c.column_name,
        type: this.dialect.normaliseType(c.data_type),
        ...(c.comment ? { description: c.comment } : {}),
      });
    }
    return [...byTable.values()];
  }

  async close(): Promise<void> {
    this.connection.closeSync();
    this.instance.closeSync();
  }
}
