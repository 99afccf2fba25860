/**
 * Builds the table catalog discovery searches (`table-catalog`) from your own warehouse's
 * metadata instead of the bundled demo catalog:
 *
 *   npm run catalog:import -- duckdb:warehouse.duckdb --out my-catalog.json           # every schema
 *   npm run catalog:import -- duckdb:warehouse.duckdb --dataset clinic --out my-catalog.json
 *   npm run catalog:import -- bigquery:my-project.my_dataset --out my-catalog.json
 *
 * then `SEARCH_CATALOG=my-catalog.json npm start` (the offline index reads it), or straight into
 * Vertex AI Search with `npm run search:load -- --from duckdb:warehouse.duckdb`.
 *
 * DuckDB files are opened read-only; table and column descriptions are the `COMMENT ON` texts.
 * BigQuery goes through the project's BigQuery backend (BIGQUERY_* settings, Application Default
 * Credentials): INFORMATION_SCHEMA.TABLES, TABLE_OPTIONS (descriptions), COLUMN_FIELD_PATHS.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { DuckDbWarehouse } from '../../backends/warehouse/duckdb';
import { catalogDocuments, type CatalogDocument } from '../../backends/warehouse/catalog';
import type { Warehouse } from '../../backends/warehouse/types';
import { loadConfig, type Config } from '../../plumbing/config';

export interface CatalogSource {
  kind: 'duckdb' | 'bigquery';
  /** duckdb: the database file; bigquery: the project (empty: BIGQUERY_PROJECT / GOOGLE_CLOUD_PROJECT). */
  location: string;
  dataset?: string;
}

/** `duckdb:<file>` or `bigquery:[<project>.]<dataset>`. */
export function parseCatalogSource(text: string, dataset?: string): CatalogSource {
  const m = /^(duckdb|bigquery):(.+)$/.exec(text.trim());
  if (!m) throw new Error(`expected duckdb:<file> or bigquery:<project>.<dataset>, got ${JSON.stringify(text).slice(0, 80)}`);
  if (m[1] === 'duckdb') return { kind: 'duckdb', location: m[2], ...(dataset ? { dataset } : {}) };
  const dot = m[2].lastIndexOf('.');
  const project = dot > 0 ? m[2].slice(0, dot) : '';
  const ds = dataset ?? (dot > 0 ? m[2].slice(dot + 1) : m[2]);
  return { kind: 'bigquery', location: project, dataset: ds };
}

/**
 * The catalog documents of a warehouse. `warehouse` lets a caller (a test, a BigQuery fake) hand
 * in an open warehouse; otherwise one is opened from the source and closed again.
 */
export async function importCatalog(
  source: CatalogSource,
  options: { config?: Config; warehouse?: Warehouse } = {},
): Promise<CatalogDocument[]> {
  let warehouse = options.warehouse;
  let owned = false;
  if (!warehouse) {
    if (source.kind === 'duckdb') {
      warehouse = await DuckDbWarehouse.open({ path: path.resolve(source.location), readOnly: true }).catch(
        (err: unknown) => {
          throw new Error(
            `cannot open DuckDB database ${source.location}: ${(err instanceof Error ? err.message : String(err)).slice(0, 200)}`,
          );
        },
      );
    } else {
      const config = options.config ?? loadConfig();
      const projectId = source.location || config.BIGQUERY_PROJECT || config.GOOGLE_CLOUD_PROJECT;
      if (!projectId) throw new Error('bigquery: name the project (bigquery:<project>.<dataset>) or set BIGQUERY_PROJECT');
      const { BigQueryWarehouse } = await import('../../backends/warehouse/bigquery');
      warehouse = new BigQueryWarehouse({
        projectId,
        location: config.BIGQUERY_LOCATION,
        maximumBytesBilled: config.BIGQUERY_MAX_BYTES_BILLED,
        apiEndpoint: config.BIGQUERY_API_ENDPOINT,
      });
    }
    owned = true;
  }
  try {
    const tables = await warehouse.describeTables(source.dataset);
    const documents = catalogDocuments(await warehouse.catalogName(), tables);
    if (!documents.length)
      throw new Error(
        `no tables with columns found in ${source.kind}:${source.location}${source.dataset ? ` (dataset ${source.dataset})` : ''}`,
      );
    return documents;
  } finally {
    if (owned) await warehouse.close();
  }
}

/** Reads `--name value` from the arguments. */
export function flagValue(argv: string[], name: string): string | undefined {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
}

async function main(argv: string[]): Promise<number> {
  const from = argv.find((a, i) => !a.startsWith('--') && !['--out', '--dataset'].includes(argv[i - 1]));
  const out = flagValue(argv, '--out');
  if (!from || !out) {
    console.error('usage: npm run catalog:import -- duckdb:<file> | bigquery:<project>.<dataset> [--dataset <name>] --out <catalog.json>');
    return 2;
  }
  const documents = await importCatalog(parseCatalogSource(from, flagValue(argv, '--dataset')));
  await writeFile(out, `${JSON.stringify(documents, null, 1)}\n`);
  const columns = documents.reduce((n, d) => n + d.schema.length, 0);
  const described = documents.filter((d) => d.description).length;
  console.log(
    `[catalog:import] ${documents.length} table(s), ${columns} column(s), ${described} with a description → ${out}`,
  );
  console.log(`[catalog:import] offline: SEARCH_CATALOG=${out}; Vertex AI Search: npm run search:load -- --from ${from}`);
  return 0;
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      console.error(`[catalog:import] ${err instanceof Error ? err.message : String(err)}`);
      process.exit(1);
    },
  );
}
