/**
 * answerBomQuestion on the user's own schema: an Odoo MRP shop (test/fixtures/odoo-bom, Odoo's
 * table and column names) read through BOM_SCHEMA_MAPPING. The expected BOMs come from SQL
 * written by hand over Odoo's own tables, not from the flow's builder.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DuckDbWarehouse } from '../backends/warehouse/duckdb';
import { bomQuestionFlow } from '../flows/bom/contract';
import { createHarness, type Harness } from './helpers/harness';

const FIXTURE = path.resolve(__dirname, 'fixtures', 'odoo-bom');

describe('answerBomQuestion on an Odoo-shaped schema through a mapping', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await createHarness({
      config: { BOM_DATASET: 'odoo_mrp', BOM_SCHEMA_MAPPING: path.join(FIXTURE, 'mapping.json') },
    });
    await (h.backends.warehouse as DuckDbWarehouse).loadSqlDir(FIXTURE);
  });
  afterAll(async () => h?.close());

  const ids = async (sql: string) => (await h.backends.warehouse.query({ sql })).rows.map((r) => String(r.id)).sort();
  /** Active lines of active BOMs whose component (a variant, through its template) is an active product. */
  const LINES = `FROM odoo_mrp.mrp_bom_line l
    JOIN odoo_mrp.mrp_bom b ON b.id = l.bom_id AND b.active
    JOIN odoo_mrp.product_product pp ON pp.id = l.product_id
    JOIN odoo_mrp.product_template t ON t.id = pp.product_tmpl_id AND t.active
    JOIN odoo_mrp.product_category cat ON cat.id = t.categ_id`;
  /** The BOMs (templates) with a direct line matching `cond`. */
  const bomsWith = (cond: string) => ids(`SELECT DISTINCT b.product_tmpl_id AS id ${LINES} WHERE ${cond}`);
  /** The sellable templates with a matching line one or two levels down (the fixture has two). */
  const finishedWith = (cond: string) =>
    ids(`WITH direct AS (SELECT b.product_tmpl_id AS parent, t.id AS part, ${cond} AS hit ${LINES})
      SELECT DISTINCT f.id FROM odoo_mrp.product_template f
      JOIN direct d1 ON d1.parent = f.id
      LEFT JOIN direct d2 ON d2.parent = d1.part
      WHERE f.sale_ok AND f.active AND (d1.hit OR COALESCE(d2.hit, FALSE))`);

  async function answered(question: string) {
    const out = await h.run(bomQuestionFlow, { question });
    expect(out.outcome).toBe('answered');
    const s = out.pipeline_state;
    // Only the flow's names reach the answer; the SQL read Odoo's tables.
    expect(s.chosen_sql).toContain('"odoo_mrp"."mrp_bom_line"');
    expect(s.tables).toEqual(expect.arrayContaining(['bom_details', 'item_master']));
    return { out, s, parents: s.rows.map((r) => String(r.parent_item_number)).sort() };
  }

  it('finds the BOMs that use a category of parts, skipping the archived BOM', async () => {
    const { parents } = await answered('List BOMs using battery components');
    const expected = await bomsWith(`cat.name = 'Batteries'`);
    expect(expected).toEqual(['101', '200', '202']);
    expect(parents).toEqual(expected);
  });

  it('finds the BOMs that use sensors, without the archived pressure sensor', async () => {
    const { parents, s } = await answered('Which BOMs use sensors?');
    // Parts named "sensor", not the "Station sensor board" assembly (a BOM itself) that holds the word.
    const expected = await bomsWith(
      `regexp_matches(t.name, '(?i)\\bsensors?\\b') AND t.id NOT IN (SELECT product_tmpl_id FROM odoo_mrp.mrp_bom)`,
    );
    expect(expected).toEqual(['200', '201']);
    expect(parents).toEqual(expected);
    expect(s.rows.map((r) => r.parent_description).sort()).toEqual(['Station sensor board', 'Thermostat main board']);
  });

  it('does not see an archived product (product_template.active)', async () => {
    // Only the archived "Barometric pressure sensor" is a pressure sensor; the mapping's active flag hides it.
    expect(await bomsWith(`t.name ILIKE '%pressure sensor%'`)).toEqual([]);
    const out = await h.run(bomQuestionFlow, { question: 'Which BOMs use pressure sensors?' });
    expect(out.outcome).toBe('no_results');
    expect(out.pipeline_state.rows).toEqual([]);
  });

  it('finds the BOMs that use a part named in its description', async () => {
    const { parents } = await answered('Which BOMs contain tantalum capacitors?');
    const expected = await bomsWith(`t.name ILIKE '%tantalum capacitor%'`);
    expect(expected).toEqual(['201', '202']);
    expect(parents).toEqual(expected);
  });

  it('climbs to the finished goods (sale_ok) through the subassemblies', async () => {
    const { parents, s } = await answered('Which finished goods ultimately contain tantalum capacitors?');
    expect(s.scope).toBe('top_level');
    const expected = await finishedWith(`t.name ILIKE '%tantalum capacitor%'`);
    expect(expected).toEqual(['101', '102']);
    expect(parents).toEqual(expected);
  });

  it('answers "and" on the mapped tables', async () => {
    const { parents } = await answered('Which BOMs use both a display and a resistor?');
    const display = await bomsWith(`cat.name = 'Displays'`);
    const resistor = await bomsWith(`cat.name = 'Resistors'`);
    const expected = display.filter((id) => resistor.includes(id));
    expect(expected).toEqual(['102']);
    expect(parents).toEqual(expected);
  });
});
