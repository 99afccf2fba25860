/**
 * The BOM flow's SQL, built by code from the strategy, never from model text.
 *
 * - Identifiers come only from an allow-list read from INFORMATION_SCHEMA (`ColumnAllowList`),
 *   and are then quoted by the dialect (`backends/warehouse/sql.ts`).
 * - Every user value is a named parameter; regex alternatives are escaped.
 * - Every statement ends in `LIMIT 100`.
 * The same builder output runs on BigQuery and DuckDB.
 */
import { escapeRegex, type SqlDialect } from '../../../backends/warehouse/sql';
import type { ColumnInfo, SqlParam } from '../../../backends/warehouse/types';
import {
  exactForms,
  isStopWord,
  phraseRegexAlternative,
  pluralVariants,
  wordRegex,
  type ConceptMatch,
  type WhereUsedScope,
} from '../../../domain/bom-text';
import type { StrategyNumber } from '../contract';

export const ROW_LIMIT = 100;
/** Bounds on what reaches SQL: a term longer than this is cut, extra terms are dropped. */
export const MAX_TERMS = 10;
export const MAX_TERM_LENGTH = 100;
/** How many BOM levels the indented where-used climbs (a bound against cyclic BOMs). */
export const MAX_BOM_DEPTH = 20;

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

  constructor(
    readonly dataset: string,
    columns: ColumnInfo[],
  ) {
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

/**
 * The RE2 pattern of strategy 2: every term as a whole-word phrase, each word in its plural and
 * singular forms, escaped ("tantalum capacitors" → `(?:tantalum|tantalums)[\s_-]+(?:capacitors|capacitor)`).
 */
export function pluralRegex(terms: readonly string[]): string {
  const alternatives = [
    ...new Set(
      terms.flatMap((t) => (/\s/.test(t.trim()) ? [phraseRegexAlternative(t)] : pluralVariants(t).map(escapeRegex))),
    ),
  ];
  return `(?i)\\b(${alternatives.join('|')})\\b`;
}

/** One part phrase of the question, as the refinement loop searches it. */
export interface ConceptQuery {
  term: string;
  /** The strategy this concept is searched with in this query. */
  strategy: StrategyNumber;
  /** Where to search it (qualified columns); defaults to the query's columns. */
  columns?: readonly string[];
  /** What strategy 3 looks for (the form of the term the vocabulary holds); defaults to the term. */
  substring?: string;
  /** Strategy 2 searches each word on its own, all in the same value, in any order. */
  anyOrder?: boolean;
  /**
   * Only parts match, not an assembly or a product whose name holds the words ("charger" is the
   * "Battery charger IC", not the "Main controller board for Hearing Aid Charger").
   */
  partsOnly?: boolean;
  /**
   * A part the question excludes: `bom` leaves out the BOMs that use it ("X but not Y"),
   * `component` leaves out its lines from the other parts' ("sensors other than accelerometers").
   */
  exclude?: 'bom' | 'component';
}

export interface BuiltQuery {
  sql: string;
  params: Record<string, SqlParam>;
  arrayTypes?: Record<string, 'STRING' | 'INT64' | 'FLOAT64'>;
}

function checkedColumn(allow: ColumnAllowList, qualified: string, d: SqlDialect): string {
  const [table, column, extra] = qualified.split('.');
  if (extra !== undefined || !column || !(table in ALIAS))
    throw new BomSqlError(`column ${JSON.stringify(qualified).slice(0, 80)} is not a column of the BOM tables`);
  if (!allow.has(qualified))
    throw new BomSqlError(`column ${qualified} is not in ${allow.dataset}'s INFORMATION_SCHEMA`);
  return `${ALIAS[table]}.${d.column(column)}`;
}

/**
 * One part phrase as a condition on a BOM line (`c` the component's item, `bd` the line), its
 * values as parameters named after its index `i` (`terms_i`, `pattern_i`, `pattern_i_j`, `term_i`).
 */
function conceptCondition(
  d: SqlDialect,
  c: ConceptQuery,
  i: number,
  refs: string[],
  params: Record<string, SqlParam>,
  arrayTypes: NonNullable<BuiltQuery['arrayTypes']>,
): string {
  let conditions: string[];
  if (c.strategy === 1) {
    params[`terms_${i}`] = normaliseTerms(exactForms(c.term));
    arrayTypes[`terms_${i}`] = 'STRING';
    conditions = refs.map((ref) => d.inArray(`LOWER(${ref})`, `terms_${i}`));
  } else if (c.strategy === 2 && c.anyOrder) {
    // Every word on the same item, each in any of the concept's columns.
    const content = c.term.split(/\s+/).filter((w) => !isStopWord(w));
    const words = (content.length ? content : [c.term]).slice(0, MAX_TERMS);
    words.forEach((w, j) => (params[`pattern_${i}_${j}`] = wordRegex(w)));
    return `(${words.map((_, j) => `(${refs.map((ref) => d.regexpContains(ref, `pattern_${i}_${j}`)).join(' OR ')})`).join(' AND ')})`;
  } else if (c.strategy === 2) {
    params[`pattern_${i}`] = pluralRegex([c.term]);
    conditions = refs.map((ref) => d.regexpContains(ref, `pattern_${i}`));
  } else {
    params[`term_${i}`] = c.substring ?? c.term;
    conditions = refs.map((ref) => d.containsText(`LOWER(${ref})`, `term_${i}`));
  }
  return `(${conditions.join(' OR ')})`;
}

/**
 * One strategy of the refinement loop as parameterized SQL: the BOMs (parents) with an active
 * line whose component matches the terms in any candidate column.
 *
 * - `concepts` (optional) searches each part phrase with its own strategy and columns; without
 *   it every term uses `strategy` on `columns`.
 * - `match: 'all'` keeps only the BOMs that use every concept ("A and B"); `'any'` unions them.
 * - `scope: 'top_level'` is the indented where-used: a recursive query climbs from the matching
 *   lines through every level of subassemblies to the items that are no one's component.
 */
export function buildStrategyQuery(options: {
  dialect: SqlDialect;
  allow: ColumnAllowList;
  strategy: StrategyNumber;
  columns: readonly string[];
  terms: readonly string[];
  concepts?: readonly ConceptQuery[];
  match?: ConceptMatch;
  scope?: WhereUsedScope;
  /** Top-level scope only: the ancestors must have this value (any exact form) in this item column. */
  parentKind?: { column: string; term: string };
}): BuiltQuery {
  const { dialect: d, allow } = options;
  const terms = normaliseTerms(options.terms);
  if (terms.length === 0 && !options.concepts?.length) throw new BomSqlError('no search terms');
  if (options.columns.length === 0) throw new BomSqlError('no candidate columns');
  const missing = allow.missingForPlan();
  if (missing.length) throw new BomSqlError(`dataset ${allow.dataset} lacks ${missing.join(', ')}`);
  const columnRefs = (columns: readonly string[]) => [...new Set(columns)].map((c) => checkedColumn(allow, c, d));
  const defaultRefs = columnRefs(options.columns);
  const concepts: ConceptQuery[] = (
    options.concepts?.length
      ? options.concepts.slice(0, MAX_TERMS)
      : terms.map((term): ConceptQuery => ({ term, strategy: options.strategy }))
  )
    .map((c) => ({
      ...c,
      term: normaliseTerms([c.term])[0] ?? '',
      substring: c.substring === undefined ? undefined : normaliseTerms([c.substring])[0],
    }))
    .filter((c) => c.term !== '');
  if (concepts.length === 0) throw new BomSqlError('no search terms');
  const match = options.match ?? 'any';
  const scope = options.scope ?? 'direct';

  const params: Record<string, SqlParam> = {};
  const arrayTypes: NonNullable<BuiltQuery['arrayTypes']> = {};
  const refsOf = (c: ConceptQuery) => (c.columns?.length ? columnRefs(c.columns) : defaultRefs);
  // A component that is itself some BOM's parent is an assembly: `own.item` is set for it.
  const partsOnly = concepts.some((c) => c.partsOnly);
  const onlyParts = (c: ConceptQuery, condition: string) =>
    c.partsOnly ? `(${condition} AND own.item IS NULL)` : condition;
  const conditionOf = (c: ConceptQuery, i: number) =>
    onlyParts(c, conceptCondition(d, c, i, refsOf(c), params, arrayTypes));
  const included = concepts.filter((c) => !c.exclude);
  const excludesLines = concepts.some((c) => c.exclude === 'component');
  const excludesBoms = concepts.some((c) => c.exclude === 'bom');
  const sameShape = concepts.every(
    (c) =>
      !c.anyOrder &&
      c.strategy === concepts[0].strategy &&
      refsOf(c).join() === refsOf(concepts[0]).join() &&
      !c.partsOnly === !concepts[0].partsOnly,
  );
  let conceptConditions: string[];
  /** "X but not Y": the conditions a BOM (or top-level item) must have none of. */
  let excludedConditions: string[] = [];
  if (match === 'any' && sameShape && !excludesLines && !excludesBoms) {
    // One condition for all the terms (one parameter per strategy), as the original design's ladder wrote it.
    const refs = refsOf(concepts[0]);
    const strategy = concepts[0].strategy;
    let conditions: string[];
    if (strategy === 1) {
      params.terms = [...new Set(concepts.flatMap((c) => normaliseTerms(exactForms(c.term))))];
      arrayTypes.terms = 'STRING';
      conditions = refs.map((ref) => d.inArray(`LOWER(${ref})`, 'terms'));
    } else if (strategy === 2) {
      params.pattern = pluralRegex(concepts.map((c) => c.term));
      conditions = refs.map((ref) => d.regexpContains(ref, 'pattern'));
    } else {
      concepts.forEach((c, i) => (params[`term_${i}`] = c.substring ?? c.term));
      conditions = refs.flatMap((ref) => concepts.map((_, i) => d.containsText(`LOWER(${ref})`, `term_${i}`)));
    }
    conceptConditions = [onlyParts(concepts[0], `(${conditions.join('\n    OR ')})`)];
  } else {
    // One condition per concept, each with its own parameter, so "and" can ask for all of them.
    const built = concepts.map((c, i) => ({ c, condition: conditionOf(c, i) }));
    // "sensors other than accelerometers": a line counts only when its part is not an excluded one
    // (a NULL in an excluded column is "not excluded").
    const notExcluded = built
      .filter(({ c }) => c.exclude === 'component')
      .map(({ condition }) => `NOT COALESCE(${condition}, FALSE)`);
    // Only exclusions ("Which boards have no toggle switch?"): every line is a candidate.
    const wanted = included.length ? built.filter(({ c }) => !c.exclude).map(({ condition }) => condition) : ['TRUE'];
    conceptConditions = wanted.map((condition) =>
      notExcluded.length ? `(${condition} AND ${notExcluded.join(' AND ')})` : condition,
    );
    excludedConditions = built.filter(({ c }) => c.exclude === 'bom').map(({ condition }) => condition);
  }
  const needsAll = match === 'all' && conceptConditions.length > 1;
  const matchedConditions = [...conceptConditions, ...excludedConditions];
  /** The HAVING that keeps the groups using the parts asked for (all or any) and none excluded. */
  const having = (flag: (i: number) => string): string[] => {
    if (!needsAll && excludedConditions.length === 0) return [];
    const wanted = needsAll
      ? conceptConditions.map((_, i) => `${flag(i)} = 1`)
      : [
          conceptConditions.length === 1
            ? `${flag(0)} = 1`
            : `(${conceptConditions.map((_, i) => `${flag(i)} = 1`).join(' OR ')})`,
        ];
    const unwanted = excludedConditions.map((_, j) => `${flag(conceptConditions.length + j)} = 0`);
    return [`HAVING ${[...wanted, ...unwanted].join('\n  AND ')}`];
  };

  const t = (table: string) => d.table(allow.dataset, table);
  const col = (alias: string, column: string) => `${alias}.${d.column(column)}`;
  const hasActive = allow.has('bom_details.is_active');
  const ownJoin = `LEFT JOIN (SELECT DISTINCT ${col('pl', 'parent_item_number')} AS item FROM ${t('bom_details')} pl) own ON own.item = ${col('c', 'item_number')}`;
  const activeFilter = hasActive ? `${col('bd', 'is_active')} = TRUE\n  AND ` : '';
  // The kind of BOM the question names ("finished goods", "subassemblies"): an item column value.
  let parentKindCondition: string | undefined;
  if (options.parentKind) {
    const [table, column] = options.parentKind.column.split('.');
    if (table !== BOM_PLAN.itemTable) throw new BomSqlError('the kind of BOM must be a column of the item table');
    checkedColumn(allow, options.parentKind.column, d);
    params.parent_kind = normaliseTerms(exactForms(options.parentKind.term));
    arrayTypes.parent_kind = 'STRING';
    parentKindCondition = d.inArray(`LOWER(${col('p', column)})`, 'parent_kind');
  }
  const built = (sql: string[]): BuiltQuery => ({
    sql: sql.join('\n'),
    params,
    ...(Object.keys(arrayTypes).length ? { arrayTypes } : {}),
  });

  if (scope === 'top_level') {
    // Each matching line starts a path; each step adds the BOM that uses the previous parent.
    // `has_<i>` carries which concept the path started from, for "and". Depth is bounded so a
    // cyclic BOM cannot loop (BigQuery also caps recursion itself).
    const flags = matchedConditions.map((cond, i) => `CASE WHEN ${cond} THEN 1 ELSE 0 END AS has_${i}`);
    const carried = matchedConditions.map((_, i) => `m.has_${i}`);
    const upActive = hasActive ? ` AND ${col('up', 'is_active')} = TRUE` : '';
    const usedActive = hasActive ? ` WHERE ${col('u', 'is_active')} = TRUE` : '';
    // "Which finished goods …": the ancestors of that kind, at any level. Otherwise the top of
    // every BOM tree: the ancestors that are no active line's component.
    const ancestorFilter = parentKindCondition ?? 'used.item IS NULL';
    return built([
      'WITH RECURSIVE matched AS (',
      `  SELECT ${col('bd', 'parent_item_number')} AS ancestor, ${col('bd', 'component_item_number')} AS component,`,
      `    ${col('c', 'item_description')} AS component_description, 1 AS depth, ${flags.join(', ')}`,
      `  FROM ${t('bom_details')} bd`,
      `  JOIN ${t('item_master')} c ON ${col('c', 'item_number')} = ${col('bd', 'component_item_number')}`,
      ...(partsOnly ? [`  ${ownJoin}`] : []),
      `  WHERE ${activeFilter}(${matchedConditions.join('\n    OR ')})`,
      '  UNION ALL',
      `  SELECT ${col('up', 'parent_item_number')}, m.component, m.component_description, m.depth + 1, ${carried.join(', ')}`,
      '  FROM matched m',
      `  JOIN ${t('bom_details')} up ON ${col('up', 'component_item_number')} = m.ancestor${upActive}`,
      `  WHERE m.depth < ${MAX_BOM_DEPTH}`,
      ')',
      `SELECT m.ancestor AS parent_item_number, ${col('p', 'item_description')} AS parent_description,`,
      '  COUNT(DISTINCT m.component) AS matching_components, MIN(m.component_description) AS example_component,',
      '  MAX(m.depth) AS levels, COUNT(*) OVER () AS total_rows',
      'FROM matched m',
      `LEFT JOIN ${t('item_master')} p ON ${col('p', 'item_number')} = m.ancestor`,
      ...(options.parentKind
        ? []
        : [
            `LEFT JOIN (SELECT DISTINCT ${col('u', 'component_item_number')} AS item FROM ${t('bom_details')} u${usedActive}) used ON used.item = m.ancestor`,
          ]),
      `WHERE ${ancestorFilter}`,
      `GROUP BY m.ancestor, ${col('p', 'item_description')}`,
      ...(excludedConditions.length
        ? having((i) => `MAX(m.has_${i})`)
        : needsAll
          ? [`HAVING ${conceptConditions.map((_, i) => `MAX(m.has_${i}) = 1`).join(' AND ')}`]
          : []),
      'ORDER BY m.ancestor',
      `LIMIT ${ROW_LIMIT}`,
    ]);
  }

  return built([
    `SELECT ${col('bd', 'parent_item_number')} AS parent_item_number, ${col('p', 'item_description')} AS parent_description,`,
    `  COUNT(DISTINCT ${col('bd', 'component_item_number')}) AS matching_components, MIN(${col('c', 'item_description')}) AS example_component,`,
    `  COUNT(*) OVER () AS total_rows`,
    `FROM ${t('bom_details')} bd`,
    `JOIN ${t('item_master')} c ON ${col('c', 'item_number')} = ${col('bd', 'component_item_number')}`,
    ...(partsOnly ? [ownJoin] : []),
    `LEFT JOIN ${t('item_master')} p ON ${col('p', 'item_number')} = ${col('bd', 'parent_item_number')}`,
    `WHERE ${activeFilter}(${matchedConditions.join('\n    OR ')})${parentKindCondition ? `\n  AND ${parentKindCondition}` : ''}`,
    `GROUP BY ${col('bd', 'parent_item_number')}, ${col('p', 'item_description')}`,
    ...(excludedConditions.length
      ? having((i) => `MAX(CASE WHEN ${matchedConditions[i]} THEN 1 ELSE 0 END)`)
      : needsAll
        ? [`HAVING ${conceptConditions.map((cond) => `MAX(CASE WHEN ${cond} THEN 1 ELSE 0 END) = 1`).join('\n  AND ')}`]
        : []),
    `ORDER BY ${col('bd', 'parent_item_number')}`,
    `LIMIT ${ROW_LIMIT}`,
  ]);
}

/**
 * Whether two part phrases share items: one active BOM line whose component matches both. Decides
 * how "X other than Y" excludes: Y a kind of X ("sensors other than accelerometers") leaves Y's
 * lines out; Y another part ("accelerometers, except those with a Hall sensor") leaves its BOMs out.
 */
export function buildOverlapQuery(options: {
  dialect: SqlDialect;
  allow: ColumnAllowList;
  concepts: readonly [ConceptQuery, ConceptQuery];
}): BuiltQuery {
  const { dialect: d, allow } = options;
  const missing = allow.missingForPlan();
  if (missing.length) throw new BomSqlError(`dataset ${allow.dataset} lacks ${missing.join(', ')}`);
  const params: Record<string, SqlParam> = {};
  const arrayTypes: NonNullable<BuiltQuery['arrayTypes']> = {};
  const conditions = options.concepts.map((raw, i) => {
    const c = { ...raw, term: normaliseTerms([raw.term])[0] ?? '' };
    if (!c.term) throw new BomSqlError('no search terms');
    const columns = c.columns?.length ? c.columns : BOM_PLAN.defaultColumns;
    const refs = [...new Set(columns)].map((col) => checkedColumn(allow, col, d));
    return conceptCondition(d, c, i, refs, params, arrayTypes);
  });
  const active = allow.has('bom_details.is_active') ? `bd.${d.column('is_active')} = TRUE\n  AND ` : '';
  return {
    sql: [
      'SELECT COUNT(*) AS overlap',
      `FROM ${d.table(allow.dataset, 'bom_details')} bd`,
      `JOIN ${d.table(allow.dataset, 'item_master')} c ON c.${d.column('item_number')} = bd.${d.column('component_item_number')}`,
      `WHERE ${active}${conditions.join('\n  AND ')}`,
      `LIMIT ${ROW_LIMIT}`,
    ].join('\n'),
    params,
    ...(Object.keys(arrayTypes).length ? { arrayTypes } : {}),
  };
}

/**
 * Whether items of a kind (a value of an item column: "FINISHED_GOOD", "PRODUCT") are ever an
 * active BOM line's component. A kind that never is, is what the BOMs end in: "products" and
 * "finished goods" mean those items, found through every level of the where-used.
 */
export function buildKindUsageQuery(options: {
  dialect: SqlDialect;
  allow: ColumnAllowList;
  kind: { column: string; term: string };
}): BuiltQuery {
  const { dialect: d, allow } = options;
  const [table, column] = options.kind.column.split('.');
  if (table !== BOM_PLAN.itemTable) throw new BomSqlError('the kind of item must be a column of the item table');
  checkedColumn(allow, options.kind.column, d);
  const missing = allow.missingForPlan();
  if (missing.length) throw new BomSqlError(`dataset ${allow.dataset} lacks ${missing.join(', ')}`);
  const active = allow.has('bom_details.is_active') ? `bd.${d.column('is_active')} = TRUE AND ` : '';
  return {
    sql: [
      `SELECT COUNT(*) AS used_as_component`,
      `FROM ${d.table(allow.dataset, 'bom_details')} bd`,
      `JOIN ${d.table(allow.dataset, 'item_master')} c ON c.${d.column('item_number')} = bd.${d.column('component_item_number')}`,
      `WHERE ${active}${d.inArray(`LOWER(c.${d.column(column)})`, 'kind')}`,
      `LIMIT ${ROW_LIMIT}`,
    ].join('\n'),
    params: { kind: normaliseTerms(exactForms(options.kind.term)) },
    arrayTypes: { kind: 'STRING' },
  };
}

/**
 * The most frequent values of an item column among the parts the BOMs are made of (items that
 * are no BOM's parent): the names meaning is judged against, without the subassemblies' and
 * products' own descriptions.
 */
export function buildLeafValuesQuery(options: {
  dialect: SqlDialect;
  allow: ColumnAllowList;
  column: string;
  /** The values of the BOMs themselves (items that are some BOM's parent) instead. */
  parents?: boolean;
  /** Only the products (finished goods, or the BOMs no BOM uses as a component); with `parents`. */
  top?: boolean;
  /**
   * Another item column returned beside each value (`context`), e.g. the category of the parts a
   * description names: one row per pair.
   */
  context?: string;
}): BuiltQuery {
  const { dialect: d, allow } = options;
  const [table, column] = options.column.split('.');
  if (table !== BOM_PLAN.itemTable) throw new BomSqlError('part names come from the item table');
  checkedColumn(allow, options.column, d);
  const text = d.name === 'bigquery' ? 'STRING' : 'VARCHAR';
  const col = `c.${d.column(column)}`;
  let context = '';
  if (options.context !== undefined) {
    const [contextTable, contextColumn] = options.context.split('.');
    if (contextTable !== BOM_PLAN.itemTable) throw new BomSqlError('part names come from the item table');
    checkedColumn(allow, options.context, d);
    context = `, CAST(c.${d.column(contextColumn)} AS ${text}) AS context`;
  }
  return {
    sql: [
      `SELECT CAST(${col} AS ${text}) AS value${context}, COUNT(*) AS count`,
      `FROM ${d.table(allow.dataset, 'item_master')} c`,
      `WHERE ${col} IS NOT NULL`,
      `  AND ${options.parents ? '' : 'NOT '}EXISTS (SELECT 1 FROM ${d.table(allow.dataset, 'bom_details')} bd WHERE bd.${d.column('parent_item_number')} = c.${d.column('item_number')})`,
      // The products: the BOMs no BOM uses, and of those the finished goods where the data says
      // which items are (an orphan subassembly is none). A finished good some BOM uses (a spare
      // sold on its own and packed in a kit) is a part of that BOM: its name must still ground.
      ...(options.parents && options.top
        ? [
            `  AND NOT EXISTS (SELECT 1 FROM ${d.table(allow.dataset, 'bom_details')} bu WHERE bu.${d.column('component_item_number')} = c.${d.column('item_number')})`,
            ...(allow.has(`${BOM_PLAN.itemTable}.item_type`)
              ? [`  AND c.${d.column('item_type')} = 'FINISHED_GOOD'`]
              : []),
          ]
        : []),
      `GROUP BY ${context ? '1, 2' : '1'}`,
      `ORDER BY count DESC, value`,
      `LIMIT 1000`,
    ].join('\n'),
    params: {},
  };
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
  if (/;|--|\/\*|\*\/|["`\\]/.test(template))
    return 'pattern template must be a single statement without comments or quoted identifiers';
  const planTables: string[] = [BOM_PLAN.usageTable, BOM_PLAN.itemTable];
  for (const m of template.matchAll(/\{\{table:([^}]*)\}\}/g))
    if (!planTables.includes(m[1])) return `pattern table ${m[1]} is not a BOM table`;
  if (
    /\b(FROM|JOIN)\s+(?!\{\{table:\w+\}\})/i.test(template) ||
    /\{\{table:\w+\}\}(\s+(AS\s+)?\w+)?\s*,/i.test(template)
  ) {
    return 'pattern template may read tables only through {{table:...}} placeholders, one per FROM or JOIN';
  }
  if (/\b[A-Za-z_]\w*\s*\.\s*(?!\{\{col:)/.test(template))
    return 'pattern template may qualify only {{col:...}} placeholders (alias.{{col:name}})';
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
  for (const table of tables)
    if (!allow.tables.has(table)) throw new BomSqlError(`pattern table ${table} is not in ${allow.dataset}`);
  const problem = patternTemplateProblem(template);
  if (problem) throw new BomSqlError(problem);
  const used = new Set<string>();
  const sql = template.replace(/\{\{(\w+):([^}]*)\}\}/g, (_m, kind: string, name: string) => {
    if (kind === 'table') return d.table(allow.dataset, name);
    if (kind === 'col') {
      if (!tables.some((table) => allow.has(`${table}.${name}`)))
        throw new BomSqlError(`pattern column ${name} is not in the pattern's tables`);
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
  if (!new RegExp(`LIMIT ${ROW_LIMIT}\\s*$`).test(sql))
    throw new BomSqlError(`pattern template must end with LIMIT ${ROW_LIMIT}`);
  const params = Object.fromEntries([...used].map((name) => [name, options.params[name]]));
  return { sql, params };
}
