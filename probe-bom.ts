import { DuckDBInstance } from '@duckdb/node-api';
import { readFileSync } from 'node:fs';
import { meaningSpace } from './flows/lib/standin/meaning';
import { partNames } from './flows/bom/activities/terms';
void (async () => {
  const inst = await DuckDBInstance.create(':memory:'); const c = await inst.connect();
  await c.run(readFileSync('data/warehouse/010_bom.sql', 'utf8'));
  const rows = (await c.runAndReadAll("select distinct item_description d from bom_demo.item_master where item_type='COMPONENT'")).getRowObjectsJS() as any[];
  const cats = (await c.runAndReadAll("select distinct category d from bom_demo.item_master")).getRowObjectsJS() as any[];
  const names = partNames(rows.map((r) => r.d)).map((n) => n.name);
  console.log(names.length, 'names;', cats.map((r) => r.d).join(', '));
  const m = (await meaningSpace())!;
  for (const p of process.argv.slice(2)) {
    const s = await m.similarities(p, names);
    const top = names.map((n, i) => [n, s[i]] as const).sort((a, b) => b[1] - a[1]).slice(0, 5);
    console.log(p.padEnd(28), top.map(([n, v]) => `${n} ${v.toFixed(2)}`).join(' | '));
  }
  process.exit(0);
})();
