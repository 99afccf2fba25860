/**
 * The BOM flow's SQL, built by code from the strategy, never from model text.
 *
 * - Identifiers come only from an allow-list read from INFORMATION_SCHEMA (`ColumnAllowList`),
 *   and are then quoted by the dialect (`backends/warehouse/sql.ts`).
 * - Every user value is a named parameter; regex alternatives are escaped.
 * - Every statement ends in `LIMIT 100`.
 * The same builder output runs on BigQuery and DuckDB.
 */
import { escapeRegex, type SqlDialect } from '../backends/warehouse/sql';
import type { ColumnInfo, SqlParam } from '../backends/warehouse/types';
import { pluralVariants } from '../contracts/bom-text';
import type { StrategyNumber } from '../contracts/bom';

export const ROW_LIMIT = 100;
/** Bounds on what reaches SQL: a term longer than this is cut, extra terms are dropped. */
export const MAX_TERMS = 10;
export const MAX_TERM_LENGTH = 100;

/**
 * The BOM join the strategies query: usage lines (bom_details) joined to the component's item
 * (item_master as c) and the parent's item (item_master as p). Candidate columns must belong to
 * these tables; other tables of the dataset (supplier catalog, change orders...) are never searched.
 */
export const BOM_PLAN = {
  usageTable: 'bom_details',
  itemTable: 'item_master',
  required: {
    bom_details: ['parent_item_number', 'component_item_number'],
    item_master: ['item_number', 'item_description'],
  } as Record<string, string[]>,
  /** Searched for every question when present: the component's family and its free-text description. */
  defaultColumns: ['item_master.category', 'item_master.item_description'],
} as const;

const ALIAS: Record<string, string> = { bom_details: 'bd', item_master: 'c' };

export class BomSqlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BomSqlError';
  }
}

/** The columns of one dataset as INFORMATION_SCHEMA lists them: the only identifiers SQL may use. */
export class ColumnAllowList {
  private readonly types = new Map<string, string>();
  readonly tables = new Set<string>();

  constructor(readonly dataset: string, columns: ColumnInfo[]) {
    for (const c of columns) {
      this.types.set(`${c.table}.${c.column}`, c.dataType);
      this.tables.add(c.table);
    }
  }

  has(qualified: string): boolean {
    return this.types.has(qualified);
  }

  typeOf(qualified: string): string | undefined {
    return this.types.get(qualified);
  }

  stringColumns(): string[] {
    return [...this.types].filter(([, type]) => type === 'STRING').map(([name]) => name);
  }

  /** What is missing for the BOM join, or [] when the dataset can answer BOM questions. */
  missingForPlan(): string[] {
    const missing: string[] = [];
    for (const [table, columns] of Object.entries(BOM_PLAN.required)) {
      for (const column of columns) if (!this.has(`${table}.${column}`)) missing.push(`${table}.${column}`);
    }
    return missing;
  }
}

/** Lower-cases, trims and bounds the search terms; the result is what goes into parameters. */
export function normaliseTerms(terms: readonly string[]): string[] {
  const out: string[] = [];
  for (const raw of terms) {
    const cleaned = raw
      // Lone surrogates cannot be encoded as UTF-8 for the warehouse; control characters are never meant.
      .replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD')
      .normalize('NFC')
      .replace(/[\p{Cc}\s]+/gu, ' ')
      .trim()
      .toLowerCase();
    // Cut by code points, so a surrogate pair is never split.
    const term = Array.from(cleaned).slice(0, MAX_TERM_LENGTH).join('').trim();
    if (term && !out.includes(term)) out.push(term);
    if (out.length >= MAX_TERMS) break;
  }
  return out;
}

/** The RE2 pattern of strategy 2: every term's plural and singular, escaped, as whole words. */
export function pluralRegex(terms: readonly string[]): string {
  const alternatives = [...new Set(terms.flatMap((t) => pluralVariants(t)))].map(escapeRegex);
  return `(?i)\\b(${alternatives.join('|')})\\b`;
}

export interface BuiltQuery {
  sql: string;
  params: Record<string, SqlParam>;
  arrayTypes?: Record<string, 'STRING' | 'INT64' | 'FLOAT64'>;
}

function checkedColumn(allow: ColumnAllowList, qualified: string, d: SqlDialect): string {
  const [table, column, extra] = qualified.split('.');
  if (extra !== undefined || !column || !(table in ALIAS)) throw new BomSqlError(`column ${JSON.stringify(qualified).slice(0, 80)} is not a column of the BOM tables`);
  if (!allow.has(qualified)) throw new BomSqlError(`column ${qualified} is not in ${allow.dataset}'s INFORMATION_SCHEMA`);
  return `${ALIAS[table]}.${d.column(column)}`;
}

/**
 * One strategy of the refinement loop as parameterized SQL: the BOMs (parents) with an active
 * line whose component matches the terms in any candidate column.
 */
export function buildStrategyQuery(options: {
  dialect: SqlDialect;
  allow: ColumnAllowList;
  strategy: StrategyNumber;
  columns: readonly string[];
  terms: readonly string[];
}): BuiltQuery {
  const { dialect: d, allow, strategy } = options;
  const terms = normaliseTerms(options.terms);
  if (terms.length === 0) throw new BomSqlError('no search terms');
  if (options.columns.length === 0) throw new BomSqlError('no candidate columns');
  const missing = allow.missingForPlan();
  if (missing.length) throw new BomSqlError(`dataset ${allow.dataset} lacks ${missing.join(', ')}`);
  const refs = [...new Set(options.columns)].map((c) => checkedColumn(allow, c, d));

  const params: Record<string, SqlParam> = {};
  let arrayTypes: BuiltQuery['arrayTypes'];
  let conditions: string[];
  if (strategy === 1) {
    params.terms = terms;
    arrayTypes = { terms: 'STRING' };
    conditions = refs.map((ref) => d.inArray(`LOWER(${ref})`, 'terms'));
  } else if (strategy === 2) {
    params.pattern = pluralRegex(terms);
    conditions = refs.map((ref) => d.regexpContains(ref, 'pattern'));
  } else {
    terms.forEach((term, i) => (params[`term_${i}`] = term));
    conditions = refs.flatMap((ref) => terms.map((_, i) => d.containsText(`LOWER(${ref})`, `term_${i}`)));
  }

  const t = (table: string) => d.table(allow.dataset, table);
  const col = (alias: string, column: string) => `${alias}.${d.column(column)}`;
  const activeFilter = allow.has('bom_details.is_active') ? `${col('bd', 'is_active')} = TRUE\n  AND ` : '';
  const sql = [
    `SELECT ${col('bd', 'parent_item_number')} AS parent_item_number, ${col('p', 'item_description')} AS parent_description,`,
    `  COUNT(DISTINCT ${col('bd', 'component_item_number')}) AS matching_components, MIN(${col('c', 'item_description')}) AS example_component,`,
    `  COUNT(*) OVER () AS total_rows`,
    `FROM ${t('bom_details')} bd`,
    `JOIN ${t('item_master')} c ON ${col('c', 'item_number')} = ${col('bd', 'component_item_number')}`,
    `LEFT JOIN ${t('item_master')} p ON ${col('p', 'item_number')} = ${col('bd', 'parent_item_number')}`,
    `WHERE ${activeFilter}(${conditions.join('\n    OR ')})`,
    `GROUP BY ${col('bd', 'parent_item_number')}, ${col('p', 'item_description')}`,
    `ORDER BY ${col('bd', 'parent_item_number')}`,
    `LIMIT ${ROW_LIMIT}`,
  ].join('\n');
  return { sql, params, ...(arrayTypes ? { arrayTypes } : {}) };
}

/** What a pattern template may call: aggregates, windows (OVER), IN lists and case folding. */
const PATTERN_FUNCTIONS = new Set(['COUNT', 'SUM', 'MIN', 'MAX', 'AVG', 'OVER', 'IN', 'LOWER', 'UPPER', 'COALESCE']);

/**
 * Why a query-pattern template is not safe to run, or undefined. Patterns come back from search
 * (the embedded index or a Vertex AI Search data store), so a poisoned document must not be
 * able to bring its own SQL: one SELECT over the BOM tables only, every table through a
 * `{{table:}}` placeholder, no quoted identifiers, no comments, only the functions above, and
 * string literals of plain words (e.g. `IN ('OBSOLETE', 'NRND')`). This is what keeps a
 * pattern from reading files (`read_csv('/etc/passwd')`), other tables or the catalog.
 */
export function patternTemplateProblem(template: string): string | undefined {
  if (!/^\s*SELECT\s/i.test(template)) return 'pattern template must be a SELECT';
  if (/;|--|\/\*|\*\/|["`\\]/.test(template)) return 'pattern template must be a single statement without comments or quoted identifiers';
  const planTables: string[] = [BOM_PLAN.usageTable, BOM_PLAN.itemTable];
  for (const m of template.matchAll(/\{\{table:([^}]*)\}\}/g)) if (!planTables.includes(m[1])) return `pattern table ${m[1]} is not a BOM table`;
  if (/\b(FROM|JOIN)\s+(?!\{\{table:\w+\}\})/i.test(template) || /\{\{table:\w+\}\}(\s+(AS\s+)?\w+)?\s*,/i.test(template)) {
    return 'pattern template may read tables only through {{table:...}} placeholders, one per FROM or JOIN';
  }
  if (/\b[A-Za-z_]\w*\s*\.\s*(?!\{\{col:)/.test(template)) return 'pattern template may qualify only {{col:...}} placeholders (alias.{{col:name}})';
  const code = template.replace(/\{\{\w+:[^}]*\}\}/g, 'x').replace(/'[A-Za-z0-9 _]*'/g, 'x');
  if (code.includes("'")) return 'pattern template string literals must be plain words';
  for (const m of code.matchAll(/\b([A-Za-z_]\w*)\s*\(/g)) {
    if (!PATTERN_FUNCTIONS.has(m[1].toUpperCase())) return `pattern template may not call ${m[1]}()`;
  }
  return undefined;
}

/**
 * A validated query pattern's SQL template, adapted to a dataset: `{{table:name}}`,
 * `{{col:name}}` and `{{param:name}}` placeholders become dialect-quoted identifiers from the
 * allow-list and named parameters. Anything else in braces, a missing parameter, a `;` or a
 * missing LIMIT is refused.
 */
export function renderPatternTemplate(options: {
  dialect: SqlDialect;
  allow: ColumnAllowList;
  template: string;
  params: Record<string, string>;
}): BuiltQuery {
  const { dialect: d, allow, template } = options;
  if (template.includes(';')) throw new BomSqlError('pattern template must be a single statement');
  const tables = [...template.matchAll(/\{\{table:(\w+)\}\}/g)].map((m) => m[1]);
  for (const table of tables) if (!allow.tables.has(table)) throw new BomSqlError(`pattern table ${table} is not in ${allow.dataset}`);
  const problem = patternTemplateProblem(template);
  if (problem) throw new BomSqlError(problem);
  const used = new Set<string>();
  const sql = template.replace(/\{\{(\w+):([^}]*)\}\}/g, (_m, kind: string, name: string) => {
    if (kind === 'table') return d.table(allow.dataset, name);
    if (kind === 'col') {
      if (!tables.some((table) => allow.has(`${table}.${name}`))) throw new BomSqlError(`pattern column ${name} is not in the pattern's tables`);
      return d.column(name);
    }
    if (kind === 'param') {
      if (!(name in options.params)) throw new BomSqlError(`pattern parameter ${name} has no value`);
      used.add(name);
      return d.param(name);
    }
    throw new BomSqlError(`unknown placeholder kind ${kind}`);
  });
  if (/\{\{|\}\}/.test(sql)) throw new BomSqlError('pattern template has a malformed placeholder');
  if (!new RegExp(`LIMIT ${ROW_LIMIT}\\s*$`).test(sql)) throw new BomSqlError(`pattern template must end with LIMIT ${ROW_LIMIT}`);
  const params = Object.fromEntries([...used].map((name) => [name, options.params[name]]));
  return { sql, params };
}
