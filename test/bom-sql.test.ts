/**
 * The BOM flow's SQL builder without Temporal: hostile terms (fast-check) never change the SQL
 * text, only parameters, and the statements run on DuckDB in both dialects (BigQuery's through
 * the wire fake's translation). Identifiers outside the INFORMATION_SCHEMA allow-list are refused.
 */
import fc from 'fast-check';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BOM_PLAN,
  BomSqlError,
  buildStrategyQuery,
  ColumnAllowList,
  MAX_TERM_LENGTH,
  MAX_TERMS,
  normaliseTerms,
  pluralRegex,
  renderPatternTemplate,
  type BuiltQuery,
} from '../flows/bom/activities/sql';
import type { QueryPattern } from '../flows/bom/activities';
import { DATA_DIR } from '../backends';
import { DuckDbWarehouse } from '../backends/warehouse/duckdb';
import { bigQuerySyntaxError } from './fakes/bigquery';
import { bigQueryDialect, duckDbDialect, UnsafeIdentifierError, type SqlDialect } from '../backends/warehouse/sql';
import type { StrategyNumber } from '../flows/bom/contract';
import {
  cosineSimilarity,
  exactForms,
  extractFocusTerms,
  itemNumbersIn,
  pluralVariants,
  similarityTokens,
} from '../domain/bom-text';
import { BOM_TABLES, bomDdlStatements, exportBomTables } from '../data/bigquery/load-bom';
import { translateBigQuerySql } from './fakes/bigquery';

let duck: DuckDbWarehouse;
let allow: ColumnAllowList;
const bigQuery = bigQueryDialect('fake-project');

beforeAll(async () => {
  duck = await DuckDbWarehouse.open({ path: ':memory:', seedDir: path.join(DATA_DIR, 'warehouse') });
  allow = new ColumnAllowList('bom_demo', await duck.listColumns('bom_demo'));
});
afterAll(async () => duck?.close());

/** Runs a built statement on DuckDB; BigQuery SQL goes through the fake's translation first. */
async function run(dialect: SqlDialect, built: BuiltQuery) {
  const sql = dialect.name === 'bigquery' ? translateBigQuerySql(built.sql) : built.sql;
  return duck.query({ sql, params: built.params, arrayTypes: built.arrayTypes });
}

const COLUMNS = ['item_master.category', 'item_master.item_description', 'bom_details.reference_designator'];

const hostileTerm = fc.oneof(
  fc.constantFrom(
    "'",
    '"',
    '`',
    ';',
    "'; DROP TABLE bom_demo.item_master; --",
    '`bom_demo`.`item_master`',
    '\\',
    '\\b',
    '(?i)',
    '.*',
    '[a-z]+',
    '(',
    ')',
    '|',
    '^$',
    '$terms',
    '@pattern',
    '$1',
    '{{param:item}}',
    '%',
    '_',
    'NULL',
    "O'Reilly",
    'battery',
    'İstanbul',
    'ß',
    '🔋 battery',
    'ユニコード',
    '\u0000x',
    'a\nb',
    '\uD800',
  ),
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.string({ unit: 'grapheme', maxLength: 30 }),
  fc.string({ minLength: 150, maxLength: 3000 }),
);

describe('buildStrategyQuery under hostile terms', () => {
  for (const dialect of [duckDbDialect, bigQuery]) {
    for (const strategy of [1, 2, 3] as StrategyNumber[]) {
      it(`${dialect.name}, strategy ${strategy}: values only ever reach parameters, and the SQL runs`, async () => {
        await fc.assert(
          fc.asyncProperty(fc.array(hostileTerm, { minLength: 1, maxLength: 14 }), async (terms) => {
            const normalised = normaliseTerms(terms);
            if (normalised.length === 0) {
              expect(() => buildStrategyQuery({ dialect, allow, strategy, columns: COLUMNS, terms })).toThrow(
                BomSqlError,
              );
              return;
            }
            const built = buildStrategyQuery({ dialect, allow, strategy, columns: COLUMNS, terms });
            // The SQL text is the one built from harmless placeholders of the same count: the
            // values cannot have changed it.
            const placeholders = normalised.map((_, i) => `t${i}`);
            expect(built.sql).toBe(
              buildStrategyQuery({ dialect, allow, strategy, columns: COLUMNS, terms: placeholders }).sql,
            );
            expect(built.sql).toMatch(/\nLIMIT 100$/);
            // BigQuery SQL runs here only translated to DuckDB: a BigQuery-dialect parser checks it too.
            if (dialect === bigQuery) expect(bigQuerySyntaxError(built.sql)).toBeNull();
            expect(normalised.length).toBeLessThanOrEqual(MAX_TERMS);
            for (const t of normalised) expect(Array.from(t).length).toBeLessThanOrEqual(MAX_TERM_LENGTH);
            // Exact: each term in its singular/plural forms, with "_" for spaces (POWER_IC).
            if (strategy === 1)
              expect(built.params).toEqual({
                terms: [...new Set(normalised.flatMap((t) => normaliseTerms(exactForms(t))))],
              });
            if (strategy === 2) expect(built.params).toEqual({ pattern: pluralRegex(normalised) });
            if (strategy === 3) expect(Object.values(built.params)).toEqual(normalised);
            const { rows } = await run(dialect, built);
            expect(rows.length).toBeLessThanOrEqual(100);
          }),
          { numRuns: 40 },
        );
      });
    }
  }

  it('escapes regex metacharacters: a term matches literally, as a whole word, singular or plural', async () => {
    expect(pluralRegex(['c++', 'battery'])).toBe('(?i)\\b(c\\+\\+|battery|batteries)\\b');
    const built = buildStrategyQuery({
      dialect: duckDbDialect,
      allow,
      strategy: 2,
      columns: ['item_master.category'],
      terms: ['.*'],
    });
    expect((await run(duckDbDialect, built)).rows).toEqual([]);
  });

  it('refuses identifiers that are not in the allow-list or not in the BOM tables', () => {
    const build = (columns: string[]) => () =>
      buildStrategyQuery({ dialect: duckDbDialect, allow, strategy: 1, columns, terms: ['x'] });
    expect(build(['item_master.colour'])).toThrow(/not in bom_demo's INFORMATION_SCHEMA/);
    expect(build(['item_master.category" OR 1=1 --'])).toThrow(BomSqlError);
    expect(build(['item_master.category.x'])).toThrow(/not a column of the BOM tables/);
    expect(build(['supplier_catalog.supplier_name'])).toThrow(/not a column of the BOM tables/);
    expect(build([])).toThrow(/no candidate columns/);
    const badDataset = new ColumnAllowList('bom_demo"; DROP', [
      ...allow.stringColumns().map((c) => ({ table: c.split('.')[0], column: c.split('.')[1], dataType: 'STRING' })),
    ]);
    expect(() =>
      buildStrategyQuery({
        dialect: duckDbDialect,
        allow: badDataset,
        strategy: 1,
        columns: ['item_master.category'],
        terms: ['x'],
      }),
    ).toThrow(UnsafeIdentifierError);
    const noBom = new ColumnAllowList('platform_demo', [{ table: 'components', column: 'name', dataType: 'STRING' }]);
    expect(noBom.missingForPlan()).toEqual([
      'bom_details.parent_item_number',
      'bom_details.component_item_number',
      'item_master.item_number',
      'item_master.item_description',
    ]);
  });

  it('builds the three strategies as designed (BigQuery dialect)', () => {
    const exact = buildStrategyQuery({
      dialect: bigQuery,
      allow,
      strategy: 1,
      columns: BOM_PLAN.defaultColumns,
      terms: ['Battery', 'memory'],
    });
    expect(exact.sql).toContain('LOWER(c.`category`) IN UNNEST(@terms)');
    expect(exact.sql).toContain('FROM `fake-project.bom_demo.bom_details` bd');
    expect(exact.arrayTypes).toEqual({ terms: 'STRING' });
    const regex = buildStrategyQuery({
      dialect: bigQuery,
      allow,
      strategy: 2,
      columns: BOM_PLAN.defaultColumns,
      terms: ['battery'],
    });
    expect(regex.sql).toContain('REGEXP_CONTAINS(c.`category`, @pattern)');
    const substring = buildStrategyQuery({
      dialect: bigQuery,
      allow,
      strategy: 3,
      columns: ['item_master.category'],
      terms: ['fuse', 'tvs'],
    });
    expect(substring.sql).toContain(
      'STRPOS(LOWER(c.`category`), @term_0) > 0\n    OR STRPOS(LOWER(c.`category`), @term_1) > 0',
    );
  });
});

describe('query-pattern templates', () => {
  const patterns = JSON.parse(
    readFileSync(path.join(DATA_DIR, 'search', 'bom-query-patterns.json'), 'utf8'),
  ) as QueryPattern[];

  for (const dialect of [duckDbDialect, bigQuery]) {
    it(`${dialect.name}: every shipped pattern renders from the allow-list and runs`, async () => {
      for (const pattern of patterns) {
        const item = pattern.id === 'where-used' ? 'CMP-000023' : 'SA-2003';
        const built = renderPatternTemplate({ dialect, allow, template: pattern.sql, params: { item } });
        expect(built.params).toEqual({ item });
        expect(built.sql).not.toContain('{{');
        const { rows } = await run(dialect, built);
        expect(rows.length, pattern.id).toBeGreaterThan(0);
        // A hostile value is just a value: no rows, same statement.
        const hostile = renderPatternTemplate({
          dialect,
          allow,
          template: pattern.sql,
          params: { item: "x' OR '1'='1" },
        });
        expect(hostile.sql).toBe(built.sql);
        expect((await run(dialect, hostile)).rows).toEqual([]);
      }
    });
  }

  it('refuses templates that are not safe to adapt', () => {
    const render =
      (template: string, params: Record<string, string> = { item: 'x' }) =>
      () =>
        renderPatternTemplate({ dialect: duckDbDialect, allow, template, params });
    const ok =
      'SELECT bd.{{col:parent_item_number}} FROM {{table:bom_details}} bd WHERE ' +
      'bd.{{col:component_item_number}} = {{param:item}} LIMIT 100';
    expect(render(ok)).not.toThrow();
    expect(render(`${ok}; DELETE FROM x`)).toThrow(/single statement/);
    expect(render(ok.replace('bom_details', 'secrets'))).toThrow(/table secrets is not in bom_demo/);
    expect(render(ok.replace('parent_item_number', 'password'))).toThrow(/column password/);
    expect(render(ok, {})).toThrow(/parameter item has no value/);
    expect(render(ok.replace('{{param:item}}', '{{raw:item}}'))).toThrow(/unknown placeholder kind raw/);
    expect(render(ok.replace(' LIMIT 100', ''))).toThrow(/LIMIT 100/);
  });
});

describe('BOM text helpers', () => {
  it('derives plural and singular variants', () => {
    expect(pluralVariants('battery')).toEqual(['battery', 'batteries']);
    expect(pluralVariants('Batteries')).toEqual(['batteries', 'battery']);
    expect(pluralVariants('fuses')).toEqual(['fuses', 'fus', 'fuse']);
    expect(pluralVariants('switch')).toEqual(['switch', 'switches']);
    expect(pluralVariants('led')).toEqual(['led', 'leds']);
    expect(pluralVariants('cmp-000123')).toEqual(['cmp-000123']);
  });

  it('extracts focus terms without the BOM framing words', () => {
    expect(extractFocusTerms('List BOMs using battery or memory components')).toEqual(['battery', 'memory']);
    // "assemblies" frames the question ("which assemblies use fuses?"); it is not a component to look for.
    expect(extractFocusTerms('Which assemblies use part CMP-000123?')).toEqual(['cmp-000123']);
    expect(extractFocusTerms('Which assemblies use fuses?')).toEqual(['fuses']);
    expect(extractFocusTerms('List all the BOMs please')).toEqual([]);
    expect(itemNumbersIn('Is cmp-000123 in FG-1001 or CMP-000123?')).toEqual(['CMP-000123', 'FG-1001']);
  });

  it('scores question similarity with part numbers as a slot', () => {
    expect(
      cosineSimilarity(
        similarityTokens('Where is part CMP-000001 used?'),
        similarityTokens('Where is part <item> used?'),
      ),
    ).toBeCloseTo(1, 9);
    expect(
      cosineSimilarity(
        similarityTokens('Which BOMs use capacitor components?'),
        similarityTokens('Which BOMs use component <item>?'),
      ),
    ).toBeCloseTo(0.8);
    expect(cosineSimilarity([], ['a'])).toBe(0);
  });
});

describe('BigQuery load path (data/bigquery)', () => {
  it('declares exactly the tables, columns and types the DuckDB generator builds', async () => {
    const statements = bomDdlStatements('my-project', 'bom_demo', 'US');
    expect(statements[0]).toMatch(/^CREATE SCHEMA IF NOT EXISTS `my-project\.bom_demo` OPTIONS \(location = 'US'/);
    const declared: string[] = [];
    for (const statement of statements.slice(1)) {
      const table = /`my-project\.bom_demo\.(\w+)`/.exec(statement)![1];
      for (const m of statement.matchAll(/^\s+(\w+) (STRING|INT64|FLOAT64|BOOL|DATE)\b/gm))
        declared.push(`${table}.${m[1]} ${m[2]}`);
    }
    const built = (await duck.listColumns('bom_demo')).map((c) => `${c.table}.${c.column} ${c.dataType}`);
    expect(declared.sort()).toEqual(built.sort());
    expect(() => bomDdlStatements('my-project', 'bad-name; DROP', 'US')).toThrow(UnsafeIdentifierError);
  });

  it('exports the generated rows as newline-delimited JSON for the load jobs', async () => {
    const files = await exportBomTables(mkdtempSync(path.join(os.tmpdir(), 'bom-export-')));
    expect(files.map((f) => [f.table, f.rows])).toEqual([...BOM_TABLES].map((t) => [t, expect.any(Number)]));
    const itemLines = readFileSync(files[0].file, 'utf8').trim().split('\n');
    expect(itemLines).toHaveLength(files[0].rows);
    expect(files[0].rows).toBe(4000);
    expect(JSON.parse(itemLines[0])).toMatchObject({
      item_number: 'CMP-000001',
      category: 'BATTERIES',
      created_date: '2019-01-01',
    });
  });
});
