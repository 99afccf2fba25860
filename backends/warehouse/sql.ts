/**
 * The dialect-aware SQL builder. Flows build SQL from these pieces, never by rewriting strings,
 * so the same query logic runs on BigQuery and DuckDB. Identifiers are validated and quoted here;
 * values are always named parameters.
 */
import type { SqlDialectName } from './types';

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
const PROJECT = /^[a-z][a-z0-9-]{4,61}[a-z0-9]$|^[a-z0-9.:-]{1,100}$/;
const PARAM = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

export class UnsafeIdentifierError extends Error {
  constructor(kind: string, value: string) {
    super(`unsafe ${kind} identifier ${JSON.stringify(value).slice(0, 80)}`);
    this.name = 'UnsafeIdentifierError';
  }
}

export function assertIdentifier(kind: string, value: string): string {
  if (!IDENTIFIER.test(value)) throw new UnsafeIdentifierError(kind, value);
  return value;
}

export interface SqlDialect {
  readonly name: SqlDialectName;
  /** A quoted column identifier. */
  column(name: string): string;
  /** A quoted, fully qualified table reference. */
  table(dataset: string, table: string): string;
  /** The placeholder for a named parameter. */
  param(name: string): string;
  /** `expr` is one of the values of array parameter `name`. */
  inArray(expr: string, name: string): string;
  /** `expr` matches the RE2 pattern in parameter `name` anywhere. */
  regexpContains(expr: string, name: string): string;
  /** `expr` contains the text in parameter `name`. */
  containsText(expr: string, name: string): string;
  /** The columns of a dataset: rows of (table_name, column_name, data_type). */
  informationSchemaColumns(dataset: string): { sql: string; params: Record<string, string> };
  /** Maps the engine's type name to the normalised one. */
  normaliseType(engineType: string): string;
}

function checkParam(name: string): string {
  if (!PARAM.test(name)) throw new UnsafeIdentifierError('parameter', name);
  return name;
}

export function bigQueryDialect(project: string): SqlDialect {
  if (!PROJECT.test(project)) throw new UnsafeIdentifierError('project', project);
  return {
    name: 'bigquery',
    column: (name) => `\`${assertIdentifier('column', name)}\``,
    table: (dataset, table) =>
      `\`${project}.${assertIdentifier('dataset', dataset)}.${assertIdentifier('table', table)}\``,
    param: (name) => `@${checkParam(name)}`,
    inArray: (expr, name) => `${expr} IN UNNEST(@${checkParam(name)})`,
    regexpContains: (expr, name) => `REGEXP_CONTAINS(${expr}, @${checkParam(name)})`,
    containsText: (expr, name) => `STRPOS(${expr}, @${checkParam(name)}) > 0`,
    informationSchemaColumns: (dataset) => ({
      sql: `SELECT table_name, column_name, data_type FROM \`${project}.${assertIdentifier('dataset', dataset)}\`.INFORMATION_SCHEMA.COLUMNS ORDER BY table_name, ordinal_position`,
      params: {},
    }),
    normaliseType: (t) => t.toUpperCase(),
  };
}

const DUCK_TYPES: Record<string, string> = {
  VARCHAR: 'STRING',
  TEXT: 'STRING',
  BIGINT: 'INT64',
  INTEGER: 'INT64',
  SMALLINT: 'INT64',
  HUGEINT: 'INT64',
  DOUBLE: 'FLOAT64',
  FLOAT: 'FLOAT64',
  REAL: 'FLOAT64',
  BOOLEAN: 'BOOL',
  DATE: 'DATE',
  TIMESTAMP: 'TIMESTAMP',
};

export const duckDbDialect: SqlDialect = {
  name: 'duckdb',
  column: (name) => `"${assertIdentifier('column', name)}"`,
  table: (dataset, table) => `"${assertIdentifier('dataset', dataset)}"."${assertIdentifier('table', table)}"`,
  param: (name) => `$${checkParam(name)}`,
  inArray: (expr, name) => `list_contains($${checkParam(name)}, ${expr})`,
  regexpContains: (expr, name) => `regexp_matches(${expr}, $${checkParam(name)})`,
  containsText: (expr, name) => `strpos(${expr}, $${checkParam(name)}) > 0`,
  informationSchemaColumns: (dataset) => ({
    sql:
      'SELECT table_name, column_name, data_type FROM information_schema.columns WHERE ' +
      'table_schema = $dataset ORDER BY table_name, ordinal_position',
    params: { dataset: assertIdentifier('dataset', dataset) },
  }),
  normaliseType: (t) =>
    DUCK_TYPES[t.toUpperCase()] ?? (t.toUpperCase().startsWith('DECIMAL') ? 'NUMERIC' : t.toUpperCase()),
};

/** Escapes RE2 metacharacters so a user's term matches literally inside a pattern. */
export function escapeRegex(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&');
}

/** The most frequent DISTINCT values of one column, for sampling and clarifying options. */
export function sampleDistinctSql(dialect: SqlDialect, dataset: string, table: string, column: string, limit: number) {
  const col = dialect.column(column);
  return {
    sql: `SELECT CAST(${col} AS ${dialect.name === 'bigquery' ? 'STRING' : 'VARCHAR'}) AS value, COUNT(*) AS count FROM ${dialect.table(dataset, table)} WHERE ${col} IS NOT NULL GROUP BY 1 ORDER BY count DESC, value LIMIT ${Math.max(1, Math.min(1000, Math.floor(limit)))}`,
  };
}
