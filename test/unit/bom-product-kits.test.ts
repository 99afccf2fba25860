/**
 * The products whose names a phrase may name are the items the BOMs end in. A finished good that
 * another BOM uses as a component (a spare sold on its own and packed in a kit) is a part of that
 * BOM: a question about it must still find the BOMs that use it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DuckDbWarehouse } from '../../backends/warehouse/duckdb';
import { duckDbDialect } from '../../backends/warehouse/sql';
import { buildLeafValuesQuery, ColumnAllowList } from '../../flows/bom/activities/sql';
import { Grounder, partNames, Vocabulary } from '../../flows/bom/activities/terms';

const WORKSHOP = `
CREATE SCHEMA IF NOT EXISTS workshop;
CREATE OR REPLACE TABLE workshop.item_master AS SELECT * FROM (VALUES
  ('C-01', 'Lithium cell 21700', 'CELLS', 'COMPONENT'),
  ('C-02', 'Cell holder frame', 'PLASTICS', 'COMPONENT'),
  ('C-03', 'Brushless motor 750W', 'MOTORS', 'COMPONENT'),
  ('C-04', 'Chuck 13mm keyless', 'CHUCKS', 'COMPONENT'),
  ('C-05', 'Carry case moulded', 'PLASTICS', 'COMPONENT'),
  ('S-01', 'Drive train for Hammer Drill', 'SUBASSEMBLY', 'SUBASSEMBLY'),
  ('F-01', 'Hammer Drill Kit', 'PRODUCT', 'FINISHED_GOOD'),
  ('F-02', 'Powerbank Pack 36V', 'PRODUCT', 'FINISHED_GOOD')
) AS t(item_number, item_description, category, item_type);
CREATE OR REPLACE TABLE workshop.bom_details AS SELECT * FROM (VALUES
  ('S-01', 'C-03'), ('S-01', 'C-04'),
  ('F-02', 'C-01'), ('F-02', 'C-02'),
  -- The kit packs the pack, sold on its own too.
  ('F-01', 'S-01'), ('F-01', 'F-02'), ('F-01', 'C-05')
) AS t(parent_item_number, component_item_number);
`;

let dir: string;
let duck: DuckDbWarehouse;
let allow: ColumnAllowList;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'bom-product-kits-'));
  writeFileSync(path.join(dir, '010_workshop.sql'), WORKSHOP);
  duck = await DuckDbWarehouse.open({ path: ':memory:', seedDir: dir });
  allow = new ColumnAllowList('workshop', await duck.listColumns('workshop'));
});
afterAll(async () => {
  await duck?.close();
  rmSync(dir, { recursive: true, force: true });
});

const values = async (options: { parents?: boolean; top?: boolean }) =>
  (
    await duck.query({
      sql: buildLeafValuesQuery({ dialect: duckDbDialect, allow, column: 'item_master.item_description', ...options })
        .sql,
    })
  ).rows.map((r) => String(r.value));

describe('products: the items the BOMs end in', () => {
  it('a finished good another BOM uses is no product of these names', async () => {
    expect(await values({ parents: true, top: true })).toEqual(['Hammer Drill Kit']);
  });

  it('a phrase naming a finished good a kit uses still grounds on it', async () => {
    const all = (await duck.query({ sql: 'SELECT item_description AS value FROM workshop.item_master' })).rows.map(
      (r) => String(r.value),
    );
    const grounder = new Grounder(
      new Vocabulary([{ column: 'item_master.item_description', values: all }]),
      undefined,
      partNames(await values({})),
      await values({ parents: true, top: true }),
    );
    const pack = await grounder.ground('powerbank pack');
    expect(pack.level).not.toBeNull();
    expect(pack.names_products).toBeUndefined();
    // The kit is still a product: a word only its own name says names it.
    expect((await grounder.ground('kit')).names_products).toEqual(['Hammer Drill Kit']);
  });
});
