/**
 * The BOM flow on the user's own schema. The flow's SQL (sql.ts) reads two logical tables with
 * fixed names — `bom_details` (parent_item_number, component_item_number, quantity, is_active)
 * and `item_master` (item_number, item_description, category, item_type) — and a mapping
 * (BOM_SCHEMA_MAPPING) says where they are. Each logical table becomes a derived table built
 * here from the mapping's names only, every one checked against INFORMATION_SCHEMA and quoted by
 * the dialect; values (an active flag's true value) are validated literals. Without a mapping
 * nothing of this runs: the demo's tables are read directly, as before.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { SqlDialect } from '../../../backends/warehouse/sql';
import type { ColumnInfo } from '../../../backends/warehouse/types';
import { bomSchemaMappingSchema, type BomSchemaMapping } from '../contract';

type Part = BomSchemaMapping['lines'] | BomSchemaMapping['items'];
type Value = boolean | number | string;

/** A logical column: where it comes from and how it is computed. */
interface LogicalColumn {
  name: string;
  ref: string;
  /** A comparison with a value: `is_active` (BOOL) or the finished-good item type (STRING). */
  kind?: { flag: Value } | { finishedGood: Value };
}

export class BomSchemaMappingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BomSchemaMappingError';
  }
}

/** Reads and validates the mapping file; the message names the fields, never echoes the file. */
export function loadBomSchemaMapping(file: string): BomSchemaMapping {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path.resolve(file), 'utf8'));
  } catch (err) {
    throw new BomSchemaMappingError(
      `BOM_SCHEMA_MAPPING: cannot read ${path.basename(file)} as JSON (${(err as Error).message.slice(0, 120)})`,
    );
  }
  const parsed = bomSchemaMappingSchema.safeParse(raw);
  if (!parsed.success)
    throw new BomSchemaMappingError(
      `BOM_SCHEMA_MAPPING: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`,
    );
  return parsed.data;
}

function lineColumns(l: BomSchemaMapping['lines']): LogicalColumn[] {
  return [
    { name: 'parent_item_number', ref: l.parent },
    { name: 'component_item_number', ref: l.component },
    ...(l.quantity ? [{ name: 'quantity', ref: l.quantity }] : []),
    ...(l.active ? [{ name: 'is_active', ref: l.active.column, kind: { flag: l.active.value } }] : []),
  ];
}

function itemColumns(it: BomSchemaMapping['items']): LogicalColumn[] {
  return [
    { name: 'item_number', ref: it.id },
    { name: 'item_description', ref: it.description },
    ...(it.category ? [{ name: 'category', ref: it.category }] : []),
    ...(it.itemType
      ? [{ name: 'item_type', ref: it.itemType.column, kind: { finishedGood: it.itemType.finishedGood } }]
      : []),
    ...Object.entries(it.attributes ?? {}).map(([name, ref]) => ({ name, ref })),
  ];
}

/** `table.column` of a reference (a bare column is the part's own table's). */
function qualify(part: Part, ref: string): [string, string] {
  const [a, b] = ref.split('.');
  return b === undefined ? [part.table, a] : [a, b];
}

function literal(value: Value): string {
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  if (typeof value === 'number') return String(value);
  // The schema allows only letters, digits, spaces and _ . / - : no quote can reach the SQL.
  if (!/^[A-Za-z0-9 _./-]{1,64}$/.test(value)) throw new BomSchemaMappingError('unsafe value in the mapping');
  return `'${value}'`;
}

/** The physical columns a part reads (its columns, its joins' keys, its active flag). */
function physicalRefs(part: Part, columns: LogicalColumn[]): string[] {
  const refs = [
    ...columns.map((c) => c.ref),
    ...part.joins.flatMap((j) => [`${j.table}.${j.column}`, j.on]),
    ...('id' in part && part.active ? [part.active.column] : []),
  ];
  return refs.map((r) => qualify(part, r).join('.'));
}

export class BomSchemaView {
  private readonly parts: Record<'bom_details' | 'item_master', { part: Part; columns: LogicalColumn[] }>;

  constructor(readonly mapping: BomSchemaMapping) {
    this.parts = {
      bom_details: { part: mapping.lines, columns: lineColumns(mapping.lines) },
      item_master: { part: mapping.items, columns: itemColumns(mapping.items) },
    };
  }

  /**
   * The allow-list's columns in the flow's names: a logical table is listed when every physical
   * column it reads is in INFORMATION_SCHEMA (else it is missing and the flow says so); tables the
   * mapping reads are not listed again under their own names; other tables stay as they are.
   */
  logicalColumns(physical: ColumnInfo[]): ColumnInfo[] {
    const types = new Map(physical.map((c) => [`${c.table}.${c.column}`, c.dataType]));
    const out: ColumnInfo[] = [];
    const used = new Set<string>();
    for (const [table, { part, columns }] of Object.entries(this.parts)) {
      for (const t of [part.table, ...part.joins.map((j) => j.table)]) used.add(t);
      if (!physicalRefs(part, columns).every((r) => types.has(r))) continue;
      for (const c of columns) {
        const dataType = c.kind
          ? 'flag' in c.kind
            ? 'BOOL'
            : 'STRING'
          : (types.get(qualify(part, c.ref).join('.')) ?? 'STRING');
        out.push({ table, column: c.name, dataType });
      }
    }
    return [...out, ...physical.filter((c) => !used.has(c.table))];
  }

  /** The dialect the flow's SQL is built with: the logical tables are derived tables. */
  dialect(d: SqlDialect): SqlDialect {
    return { ...d, table: (dataset, table) => this.tableSql(d, dataset, table) };
  }

  private tableSql(d: SqlDialect, dataset: string, table: string): string {
    const entry = this.parts[table as keyof typeof this.parts];
    if (!entry) return d.table(dataset, table);
    const { part, columns } = entry;
    // t0 is the part's table, t1… its joins, in order.
    const aliases = new Map([part.table, ...part.joins.map((j) => j.table)].map((t, i) => [t, `t${i}`]));
    const ref = (r: string) => {
      const [t, c] = qualify(part, r);
      return `${aliases.get(t)}.${d.column(c)}`;
    };
    const text = d.name === 'bigquery' ? 'STRING' : 'VARCHAR';
    const select = columns.map((c) => {
      const expr = !c.kind
        ? ref(c.ref)
        : 'flag' in c.kind
          ? `COALESCE(${ref(c.ref)} = ${literal(c.kind.flag)}, FALSE)`
          : `CASE WHEN ${ref(c.ref)} = ${literal(c.kind.finishedGood)} THEN 'FINISHED_GOOD' ELSE CAST(${ref(c.ref)} AS ${text}) END`;
      return `${expr} AS ${d.column(c.name)}`;
    });
    const joins = part.joins.map(
      (j) =>
        `LEFT JOIN ${d.table(dataset, j.table)} ${aliases.get(j.table)} ON ${aliases.get(j.table)}.${d.column(j.column)} = ${ref(j.on)}`,
    );
    const where =
      'id' in part && part.active ? [`WHERE ${ref(part.active.column)} = ${literal(part.active.value)}`] : [];
    return `(SELECT ${select.join(', ')} FROM ${d.table(dataset, part.table)} t0${joins.length ? ' ' : ''}${joins.join(' ')}${where.length ? ' ' : ''}${where.join('')})`;
  }
}
