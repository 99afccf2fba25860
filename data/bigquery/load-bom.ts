/**
 * Loads the BOM demo dataset into BigQuery, so `answerBomQuestion` runs with
 * AGENT_FLOWS_WAREHOUSE=bigquery on the same rows as the embedded DuckDB default.
 *
 *   npx tsx data/bigquery/load-bom.ts              # create dataset + tables, load rows, check counts
 *   npx tsx data/bigquery/load-bom.ts --dry-run    # only generate the files and print the plan
 *
 * Settings (the same as the worker's): BIGQUERY_PROJECT (or GOOGLE_CLOUD_PROJECT),
 * BIGQUERY_LOCATION, BOM_DATASET, BIGQUERY_API_ENDPOINT; credentials are Application Default
 * Credentials (`gcloud auth application-default login` or GOOGLE_APPLICATION_CREDENTIALS).
 *
 * How: the DuckDB generator (data/warehouse/010_bom.sql) builds the rows in memory, each table is
 * exported as newline-delimited JSON, the BigQuery DDL (data/bigquery/bom_demo.sql) creates the
 * dataset and tables, and one load job per table (WRITE_TRUNCATE, free of charge, unlike
 * streaming inserts) fills them. Running it again replaces the tables.
 */
import { BigQuery } from '@google-cloud/bigquery';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { DuckDbWarehouse } from '../../backends/warehouse/duckdb';
import { assertIdentifier } from '../../backends/warehouse/sql';
import { loadConfig } from '../../plumbing/config';

export const BOM_TABLES = ['item_master', 'bom_details', 'supplier_catalog', 'engineering_change_orders'] as const;
const HERE = __dirname;

/** The BigQuery DDL statements with project, dataset and location filled in. */
export function bomDdlStatements(project: string, dataset: string, location: string): string[] {
  assertIdentifier('dataset', dataset);
  if (!/^[a-z0-9.:-]{1,100}$/.test(project)) throw new Error(`invalid project ${JSON.stringify(project)}`);
  if (!/^[A-Za-z0-9-]{1,40}$/.test(location)) throw new Error(`invalid location ${JSON.stringify(location)}`);
  const text = readFileSync(path.join(HERE, 'bom_demo.sql'), 'utf8')
    .replace(/\{\{project\}\}/g, project)
    .replace(/\{\{dataset\}\}/g, dataset)
    .replace(/\{\{location\}\}/g, location);
  return text
    .split(/;\s*(?:\n|$)/)
    .map((s) => s.replace(/^\s*--.*$/gm, '').trim())
    .filter(Boolean);
}

/** Generates the demo rows with the DuckDB script and writes one NDJSON file per table. */
export async function exportBomTables(outDir: string): Promise<Array<{ table: string; file: string; rows: number }>> {
  mkdirSync(outDir, { recursive: true });
  const duck = await DuckDbWarehouse.open({ path: ':memory:' });
  try {
    await duck.loadSqlDir(path.join(HERE, '..', 'warehouse'));
    const out: Array<{ table: string; file: string; rows: number }> = [];
    for (const table of BOM_TABLES) {
      const file = path.resolve(outDir, `${table}.ndjson`);
      if (/'/.test(file)) throw new Error(`output path must not contain quotes: ${file}`);
      await duck.query({ sql: `COPY (SELECT * FROM bom_demo.${assertIdentifier('table', table)}) TO '${file}' (FORMAT JSON)` });
      const { rows } = await duck.query<{ n: number }>({ sql: `SELECT COUNT(*)::INTEGER AS n FROM bom_demo.${table}` });
      out.push({ table, file, rows: Number(rows[0].n) });
    }
    return out;
  } finally {
    await duck.close();
  }
}

async function main() {
  const dryRun = process.argv.includes('--dry-run');
  const config = loadConfig();
  const project = config.BIGQUERY_PROJECT ?? config.GOOGLE_CLOUD_PROJECT ?? (dryRun ? 'your-project' : undefined);
  if (!project) throw new Error('set BIGQUERY_PROJECT (or GOOGLE_CLOUD_PROJECT)');
  const dataset = config.BOM_DATASET;
  const statements = bomDdlStatements(project, dataset, config.BIGQUERY_LOCATION);
  const files = await exportBomTables(path.resolve(config.ARTIFACT_DIR, 'bigquery', dataset));
  console.log(`[load-bom] ${project}.${dataset} (${config.BIGQUERY_LOCATION}): ${statements.length} DDL statements, ${files.map((f) => `${f.table} ${f.rows} rows`).join(', ')}`);
  if (dryRun) {
    for (const s of statements) console.log(`\n${s};`);
    for (const f of files) console.log(`[load-bom] would load ${f.file} into ${dataset}.${f.table}`);
    return;
  }
  const bigquery = new BigQuery({ projectId: project, location: config.BIGQUERY_LOCATION, ...(config.BIGQUERY_API_ENDPOINT ? { apiEndpoint: config.BIGQUERY_API_ENDPOINT } : {}) });
  for (const statement of statements) {
    await bigquery.query({ query: statement, location: config.BIGQUERY_LOCATION });
    console.log(`[load-bom] ran: ${statement.split('\n')[0]}`);
  }
  for (const f of files) {
    const [job] = await bigquery.dataset(dataset).table(f.table).load(f.file, { sourceFormat: 'NEWLINE_DELIMITED_JSON', writeDisposition: 'WRITE_TRUNCATE' });
    const errors = job.status?.errors;
    if (errors?.length) throw new Error(`load of ${f.table} failed: ${JSON.stringify(errors)}`);
    const [[{ n }]] = await bigquery.query({ query: `SELECT COUNT(*) AS n FROM \`${project}.${dataset}.${f.table}\``, location: config.BIGQUERY_LOCATION });
    console.log(`[load-bom] ${f.table}: ${n} rows loaded (expected ${f.rows})`);
    if (Number(n) !== f.rows) throw new Error(`${f.table}: ${n} rows in BigQuery, ${f.rows} generated`);
  }
  console.log(`[load-bom] done: set AGENT_FLOWS_WAREHOUSE=bigquery BIGQUERY_PROJECT=${project} BOM_DATASET=${dataset}`);
}

if (require.main === module) {
  main().catch((err) => {
    console.error(`[load-bom] ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  });
}
