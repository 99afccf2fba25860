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
import type { QueryRequest, QueryResult } from './types';
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

  static async open(options: { path: string; seedDir?: string }): Promise<DuckDbWarehouse> {
    const instance = await DuckDBInstance.create(options.path);
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

  async close(): Promise<void> {
    this.connection.closeSync();
    this.instance.closeSync();
  }
}
