/**
 * The BOM schema mapping (BOM_SCHEMA_MAPPING) without Temporal: what the file may say, that
 * hostile names and values never reach SQL, and that the flow's statements on the mapped Odoo
 * fixture run in both dialects (BigQuery's checked by a BigQuery parser and run translated).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DuckDbWarehouse } from '../../backends/warehouse/duckdb';
import { bigQueryDialect, duckDbDialect, type SqlDialect } from '../../backends/warehouse/sql';
import { bomSchemaMappingSchema, DEMO_BOM_SCHEMA } from '../../flows/bom/contract';
import { BomSchemaMappingError, BomSchemaView, loadBomSchemaMapping } from '../../flows/bom/activities/mapping';
import { buildStrategyQuery, ColumnAllowList, type BuiltQuery } from '../../flows/bom/activities/sql';
import { bigQuerySyntaxError, translateBigQuerySql } from '../fakes/bigquery';
import { ODOO_SCHEMA } from '../../eval/types';

const FIXTURE = path.resolve(__dirname, '..', 'fixtures', 'odoo-bom');
const odoo = loadBomSchemaMapping(path.join(FIXTURE, 'mapping.json'));
const view = new BomSchemaView(odoo);

let duck: DuckDbWarehouse;
let allow: ColumnAllowList;
beforeAll(async () => {
  duck = await DuckDbWarehouse.open({ path: ':memory:', seedDir: FIXTURE });
  allow = new ColumnAllowList('odoo_mrp', view.logicalColumns(await duck.listColumns('odoo_mrp')));
});
afterAll(async () => duck?.close());

async function run(dialect: SqlDialect, built: BuiltQuery) {
  const sql = dialect.name === 'bigquery' ? translateBigQuerySql(built.sql) : built.sql;
  return duck.query({ sql, params: built.params, arrayTypes: built.arrayTypes });
}

describe('the BOM schema mapping', () => {
  it('accepts the demo schema and the Odoo one', () => {
    expect(bomSchemaMappingSchema.parse(DEMO_BOM_SCHEMA)).toEqual(DEMO_BOM_SCHEMA);
    expect(odoo.items.joins[0].table).toBe('product_category');
  });

  it.each([
    ['a quoted table name', { lines: { table: 'x"; DROP TABLE y; --' } }, 'lines.table'],
    ['a qualified name with three parts', { items: { description: 'a.b.c' } }, 'items.description'],
    ['a column of a table neither the part nor a join', { items: { category: 'secret.name' } }, 'items.category'],
    [
      'a join on a table not joined before',
      { lines: { joins: [{ table: 'b', column: 'id', on: 'c.x' }] } },
      'lines.joins.0.on',
    ],
    [
      'an active value with a quote',
      { lines: { active: { column: 'active', value: "t' OR 1=1 --" } } },
      'lines.active.value',
    ],
    ['an unknown field', { items: { sql: 'SELECT 1' } }, 'items'],
    [
      'an attribute named like a fixed item column',
      { items: { attributes: { category: 'maker' } } },
      'items.attributes',
    ],
    [
      'an attribute with a name that is no plain word',
      { items: { attributes: { 'a b': 'maker' } } },
      'items.attributes',
    ],
    [
      'an attribute of a table that is not joined',
      { items: { attributes: { maker: 'res_partner.name' } } },
      'items.attributes.maker',
    ],
  ])('refuses %s, naming the field', (_what, patch, field) => {
    const mapping = {
      lines: { ...DEMO_BOM_SCHEMA.lines, ...(patch as { lines?: object }).lines },
      items: { ...DEMO_BOM_SCHEMA.items, ...(patch as { items?: object }).items },
    };
    const result = bomSchemaMappingSchema.safeParse(mapping);
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((i) => i.path.join('.'))).toContainEqual(expect.stringContaining(field));
  });

  it('a bad file stops the worker with the fields named, never the file echoed', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'bom-mapping-'));
    const file = path.join(dir, 'mapping.json');
    writeFileSync(file, JSON.stringify({ lines: { table: 'SECRET-TOKEN-abc' }, items: {} }));
    expect(() => loadBomSchemaMapping(file)).toThrow(BomSchemaMappingError);
    expect(() => loadBomSchemaMapping(file)).toThrow(/lines\.table/);
    expect(() => loadBomSchemaMapping(file)).not.toThrow(/SECRET-TOKEN/);
    writeFileSync(file, '{ not json');
    expect(() => loadBomSchemaMapping(file)).toThrow(/cannot read mapping\.json as JSON/);
  });

  it('the Odoo-shaped demo dataset in data/ is read through its mapping, a manufacturer attribute included', async () => {
    const demo = await DuckDbWarehouse.open({
      path: ':memory:',
      seedDir: path.resolve(__dirname, '..', '..', 'data', 'warehouse'),
    });
    try {
      const mapped = new BomSchemaView(loadBomSchemaMapping(ODOO_SCHEMA.mapping));
      const columns = new ColumnAllowList(
        ODOO_SCHEMA.dataset,
        mapped.logicalColumns(await demo.listColumns(ODOO_SCHEMA.dataset)),
      );
      expect(columns.missingForPlan()).toEqual([]);
      expect(columns.typeOf('item_master.manufacturer')).toBe('STRING');
      // The same lines as the demo's active ones, through Odoo's BOM, variant and template tables.
      const built = buildStrategyQuery({
        dialect: mapped.dialect(duckDbDialect),
        allow: columns,
        strategy: 1,
        columns: ['item_master.category'],
        terms: ['batteries'],
        scope: 'direct',
      });
      const viaOdoo = (
        await demo.query({
          sql: built.sql.replace(/LIMIT \d+\s*$/, ''),
          params: built.params,
          arrayTypes: built.arrayTypes,
        })
      ).rows;
      const direct = (
        await demo.query({
          sql: `SELECT COUNT(DISTINCT bd.parent_item_number) AS n FROM bom_demo.bom_details bd
                JOIN bom_demo.item_master c ON c.item_number = bd.component_item_number
                WHERE bd.is_active AND c.category = 'BATTERIES'`,
        })
      ).rows[0];
      expect(new Set(viaOdoo.map((r) => r.parent_item_number)).size).toBe(Number(direct.n));
    } finally {
      await demo.close();
    }
  });

  it('lists the mapped tables under the flow names, others as they are', () => {
    expect(allow.has('bom_details.parent_item_number')).toBe(true);
    expect(allow.typeOf('bom_details.is_active')).toBe('BOOL');
    expect(allow.typeOf('item_master.item_description')).toBe('STRING');
    expect(allow.typeOf('item_master.item_type')).toBe('STRING');
    expect(allow.missingForPlan()).toEqual([]);
    expect(allow.tables.has('mrp_bom_line')).toBe(false);
    expect(allow.tables.has('product_template')).toBe(false);
  });

  it('leaves a logical table out when a column it reads is missing, so the flow says what lacks', () => {
    const broken = new BomSchemaView({ ...odoo, lines: { ...odoo.lines, parent: 'mrp_bom.no_such_column' } });
    const columns = broken.logicalColumns([{ table: 'mrp_bom_line', column: 'product_id', dataType: 'INT64' }]);
    expect(new ColumnAllowList('odoo_mrp', columns).missingForPlan()).toContain('bom_details.parent_item_number');
  });

  it.each([duckDbDialect, bigQueryDialect('fake-project')])(
    'builds the flow statements on the mapped tables in the %s dialect, names quoted, values as parameters',
    async (base) => {
      const dialect = view.dialect(base);
      for (const scope of ['direct', 'top_level'] as const) {
        const built = buildStrategyQuery({
          dialect,
          allow,
          strategy: 1,
          columns: ['item_master.category'],
          terms: ["capacitors' OR 1=1 --"],
          scope,
        });
        expect(built.sql).not.toContain('OR 1=1');
        // Odoo's names, each quoted by the dialect, inside the derived tables.
        expect(built.sql).toContain(base.table('odoo_mrp', 'product_category'));
        expect(built.sql).toContain(`t1.${base.column('product_tmpl_id')}`);
        if (base.name === 'bigquery') expect(bigQuerySyntaxError(built.sql)).toBeNull();
        expect((await run(base, built)).rows).toEqual([]);
        const real = buildStrategyQuery({
          dialect,
          allow,
          strategy: 1,
          columns: ['item_master.category'],
          terms: ['capacitors'],
          scope,
        });
        const parents = (await run(base, real)).rows.map((r) => String(r.parent_item_number)).sort();
        // Ceramic (200, 202) and tantalum (201, 202) capacitors; at the top, the products above them.
        expect(parents).toEqual(scope === 'direct' ? ['200', '201', '202'] : ['100', '101', '102']);
      }
    },
  );
});
