/**
 * A table catalog from a warehouse's own metadata: every table (and view) of a dataset with its
 * description and its columns' names, types and descriptions, as the search collection
 * `table-catalog` holds them (one document per table: id, table_id, project_id, dataset_id,
 * description, schema[], column_names[]; the shape of BigQuery's table resource).
 *
 * The metadata come from the warehouse's catalog views (DuckDB: `duckdb_tables()`,
 * `duckdb_views()`, `duckdb_columns()` with the `COMMENT ON` text; BigQuery:
 * `INFORMATION_SCHEMA.TABLES`, `TABLE_OPTIONS` and `COLUMN_FIELD_PATHS`), read by each warehouse's
 * `describeTables`. Names and descriptions are data: they are only ever bound as parameters or
 * stored, never spliced into SQL, and every size is capped here.
 */
import type { TableDescription } from './types';

/** The search collection discovery reads its candidate tables from. */
export const TABLE_CATALOG_COLLECTION = 'table-catalog';

export const CATALOG_LIMITS = {
  tables: 5000,
  columnsPerTable: 500,
  name: 256,
  type: 128,
  tableDescription: 2000,
  columnDescription: 500,
} as const;

export interface CatalogColumn {
  name: string;
  type: string;
  description?: string;
}

export interface CatalogDocument {
  [key: string]: unknown;
  id: string;
  table_id: string;
  project_id: string;
  dataset_id: string;
  description: string;
  schema: CatalogColumn[];
  column_names: string[];
}

/** Printable text on one line, at most `max` characters ('' when nothing is left). */
export function capText(value: unknown, max: number): string {
  if (value === null || value === undefined) return '';
  const text = String(value)
    .replace(/[\u0000-\u001f\u007f]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/**
 * One catalog document per described table, capped. A table whose name is empty after cleaning,
 * or that has no columns, is left out (discovery could not validate it).
 */
export function catalogDocuments(project: string, tables: TableDescription[]): CatalogDocument[] {
  const projectId = capText(project, CATALOG_LIMITS.name);
  const seen = new Set<string>();
  const out: CatalogDocument[] = [];
  for (const t of tables) {
    if (out.length >= CATALOG_LIMITS.tables) break;
    const table = capText(t.table, CATALOG_LIMITS.name);
    const dataset = capText(t.dataset, CATALOG_LIMITS.name);
    const schema: CatalogColumn[] = t.columns
      .slice(0, CATALOG_LIMITS.columnsPerTable)
      .map((c) => {
        const description = capText(c.description, CATALOG_LIMITS.columnDescription);
        return {
          name: capText(c.name, CATALOG_LIMITS.name),
          type: capText(c.type, CATALOG_LIMITS.type) || 'STRING',
          ...(description ? { description } : {}),
        };
      })
      .filter((c) => c.name);
    const id = [projectId, dataset, table].filter(Boolean).join('.');
    if (!table || !schema.length || seen.has(id)) continue;
    seen.add(id);
    out.push({
      id,
      table_id: table,
      project_id: projectId,
      dataset_id: dataset,
      description: capText(t.description, CATALOG_LIMITS.tableDescription),
      schema,
      column_names: schema.map((c) => c.name),
    });
  }
  return out;
}

/** Reads a catalog file (as `npm run catalog:import` writes it) and checks its shape. */
export function parseCatalog(text: string, file: string): CatalogDocument[] {
  let docs: unknown;
  try {
    docs = JSON.parse(text);
  } catch (err) {
    throw new Error(`${file}: not JSON (${(err instanceof Error ? err.message : String(err)).slice(0, 120)})`);
  }
  if (!Array.isArray(docs)) throw new Error(`${file}: expected an array of table documents`);
  docs.forEach((d: unknown, i) => {
    const doc = d as Partial<CatalogDocument> | null;
    if (!doc || typeof doc.id !== 'string' || typeof doc.table_id !== 'string' || !Array.isArray(doc.schema))
      throw new Error(`${file}: document ${i + 1} is not a table (id, table_id and schema are required)`);
  });
  return docs as CatalogDocument[];
}
