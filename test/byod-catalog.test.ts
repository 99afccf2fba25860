/**
 * Bring your own data, discovery: a warehouse unlike the bundled demo (a small hospital, made
 * here in DuckDB with COMMENT ON descriptions) becomes the table catalog through the importer, the
 * worker's offline index reads it (SEARCH_CATALOG), and `discoverFromPrp` on a PRP about that
 * hospital finds its tables, end to end on the harness. Nobody writes catalog JSON by hand here.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOG_LIMITS, parseCatalog, type CatalogDocument } from '../backends/warehouse/catalog';
import { importCatalog, parseCatalogSource } from '../data/search/import-catalog';
import { discoverFromPrpFlow, tableName, type DiscoverFromPrpOutput } from '../flows/discovery/contract';
import { OAuth2Client } from 'google-auth-library';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { loadSearchCollections } from '../data/search/load-search';
import { startBigQueryFake } from './fakes/bigquery';
import { startDiscoveryEngineFake } from './fakes/discoveryengine';
import { createHarness, type Harness } from './helpers/harness';

const dir = mkdtempSync(path.join(tmpdir(), 'byod-catalog-'));
const dbFile = path.join(dir, 'st_marys.duckdb');
const catalogFile = path.join(dir, 'st-marys-catalog.json');

/** Comments are data too: quotes, a statement, control characters and a very long text. */
const HOSTILE_COMMENT = `Kitchen menu'); DROP TABLE clinic.patients; --\u0007 ${'x'.repeat(5000)}`;

const HOSPITAL_SQL = `
CREATE SCHEMA clinic;
CREATE TABLE clinic.patients (patient_id VARCHAR, birth_date DATE, sex VARCHAR, postcode VARCHAR);
COMMENT ON TABLE clinic.patients IS 'Registered patients of St Mary''s hospital: demographics recorded at first registration.';
COMMENT ON COLUMN clinic.patients.patient_id IS 'Hospital patient number (medical record number)';
COMMENT ON COLUMN clinic.patients.birth_date IS 'Date of birth of the patient';
COMMENT ON COLUMN clinic.patients.sex IS 'Administrative sex: F, M or U';
COMMENT ON COLUMN clinic.patients.postcode IS 'Home postcode of the patient';

CREATE TABLE clinic.admissions (admission_id VARCHAR, patient_id VARCHAR, admitted_at TIMESTAMP, discharged_at TIMESTAMP, ward_code VARCHAR, primary_diagnosis_icd10 VARCHAR);
COMMENT ON TABLE clinic.admissions IS 'Inpatient hospital stays: one row per admission with admission and discharge times, the ward and the primary diagnosis.';
COMMENT ON COLUMN clinic.admissions.admission_id IS 'Identifier of the inpatient stay';
COMMENT ON COLUMN clinic.admissions.patient_id IS 'Hospital patient number of the admitted patient';
COMMENT ON COLUMN clinic.admissions.admitted_at IS 'Date and time the patient was admitted to hospital';
COMMENT ON COLUMN clinic.admissions.discharged_at IS 'Date and time the patient was discharged from hospital';
COMMENT ON COLUMN clinic.admissions.ward_code IS 'Ward the patient stayed on (e.g. CARD for cardiology)';
COMMENT ON COLUMN clinic.admissions.primary_diagnosis_icd10 IS 'Primary diagnosis of the stay as an ICD-10 code';

CREATE TABLE clinic.lab_results (result_id VARCHAR, admission_id VARCHAR, test_code VARCHAR, result_value DOUBLE, unit VARCHAR, collected_at TIMESTAMP);
COMMENT ON TABLE clinic.lab_results IS 'Laboratory test results of blood and urine samples taken during hospital stays (creatinine, haemoglobin, sodium...).';
COMMENT ON COLUMN clinic.lab_results.admission_id IS 'Inpatient stay during which the sample was collected';
COMMENT ON COLUMN clinic.lab_results.test_code IS 'Laboratory test code, e.g. CREA for serum creatinine';
COMMENT ON COLUMN clinic.lab_results.result_value IS 'Measured value of the laboratory test';
COMMENT ON COLUMN clinic.lab_results.unit IS 'Unit of the measured value';
COMMENT ON COLUMN clinic.lab_results.collected_at IS 'Time the sample was collected';

CREATE SCHEMA facilities;
CREATE TABLE facilities.equipment_maintenance (asset_id VARCHAR, serviced_on DATE, technician VARCHAR, cost_eur DOUBLE);
COMMENT ON TABLE facilities.equipment_maintenance IS 'Maintenance log of building equipment: lifts, boilers and air handling units.';
COMMENT ON COLUMN facilities.equipment_maintenance.asset_id IS 'Tag of the maintained equipment';
COMMENT ON COLUMN facilities.equipment_maintenance.cost_eur IS 'Cost of the service visit in euros';

CREATE TABLE facilities."cafeteria menu" ("dish name" VARCHAR, price_eur DOUBLE, served_on DATE);
COMMENT ON TABLE facilities."cafeteria menu" IS '${HOSTILE_COMMENT.replace(/'/g, "''")}';
`;

/** Target schema of the PRP: demographics, the stay, and the lab value. */
const PRP = `# PRP: 30-day readmissions after heart failure stays at St Mary's

## 1. Goal
Find which heart-failure inpatients at St Mary's hospital come back within 30 days of discharge,
and whether their kidney function (serum creatinine) during the stay predicts it.

## 6. Data sources (known or suspected)
- Patient register (date of birth, sex).
- Inpatient admissions with admission and discharge times, ward and primary diagnosis.
- Laboratory results of blood tests taken during the stay.

## 9. Target Schema

| Field | Data type | Meaning |
|---|---|---|
| \`patient_id\` | STRING | Hospital patient number |
| \`birth_date\` | DATE | Patient's date of birth |
| \`sex\` | STRING | Patient's administrative sex |
| \`admitted_at\` | TIMESTAMP | Admission time of the inpatient stay |
| \`discharged_at\` | TIMESTAMP | Discharge time of the inpatient stay |
| \`primary_diagnosis_icd10\` | STRING | Primary diagnosis of the inpatient stay (ICD-10) |
| \`creatinine_value\` | FLOAT64 | Serum creatinine laboratory test result of a blood sample |
| \`readmitted_30d\` | BOOL | Computed: another admission within 30 days of discharge |
`;

const digest = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

describe('bring your own catalog: import a DuckDB warehouse, discover on it', () => {
  let h: Harness;
  let catalog: CatalogDocument[];
  let dbDigest: string;

  beforeAll(async () => {
    const instance = await DuckDBInstance.create(dbFile);
    const connection = await instance.connect();
    await connection.run(HOSPITAL_SQL);
    connection.closeSync();
    instance.closeSync();
    dbDigest = digest(dbFile);
    // What `npm run catalog:import -- duckdb:<file> --out <catalog>` does.
    catalog = await importCatalog(parseCatalogSource(`duckdb:${dbFile}`));
    writeFileSync(catalogFile, JSON.stringify(catalog));
    h = await createHarness({ config: { SEARCH_CATALOG: catalogFile } });
  }, 120_000);

  afterAll(async () => {
    await h?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('imports every table and view with the COMMENT ON descriptions, read-only, hostile text kept as capped data', () => {
    expect(catalog.map((d) => d.id).sort()).toEqual([
      'st_marys.clinic.admissions',
      'st_marys.clinic.lab_results',
      'st_marys.clinic.patients',
      'st_marys.facilities.cafeteria menu',
      'st_marys.facilities.equipment_maintenance',
    ]);
    const admissions = catalog.find((d) => d.table_id === 'admissions')!;
    expect(admissions.description).toMatch(/^Inpatient hospital stays/);
    expect(admissions.schema.find((c) => c.name === 'discharged_at')).toEqual({
      name: 'discharged_at',
      type: 'TIMESTAMP',
      description: 'Date and time the patient was discharged from hospital',
    });
    expect(catalog.find((d) => d.table_id === 'patients')!.description).toContain("St Mary's");
    expect(admissions.column_names).toEqual([
      'admission_id',
      'patient_id',
      'admitted_at',
      'discharged_at',
      'ward_code',
      'primary_diagnosis_icd10',
    ]);
    const menu = catalog.find((d) => d.table_id === 'cafeteria menu')!;
    expect(menu.description.length).toBe(CATALOG_LIMITS.tableDescription);
    expect(menu.description).toMatch(/^Kitchen menu'\); DROP TABLE clinic\.patients; -- x/);
    expect(menu.column_names).toContain('dish name');
    // The importer opened the file read-only, and the hostile comment ran nothing.
    expect(digest(dbFile)).toBe(dbDigest);
    // The file the worker reads is the importer's output, as written.
    expect(parseCatalog(readFileSync(catalogFile, 'utf8'), catalogFile)).toHaveLength(5);
  });

  it('discoverFromPrp finds the hospital tables from the imported catalog and nothing of the bundled demo', async () => {
    const out: DiscoverFromPrpOutput = await h.run(discoverFromPrpFlow, { prp: PRP });
    if (process.env.DEBUG_BYOD) console.log(JSON.stringify(out, null, 1));
    const found = (column: string) =>
      out.results
        .filter((r) => r.target_columns.some((c) => c.name === column))
        .flatMap((r) => r.discovered_tables.map(tableName));
    expect(found('discharged_at')).toContain('st_marys.clinic.admissions');
    expect(found('birth_date')).toContain('st_marys.clinic.patients');
    expect(found('creatinine_value')).toContain('st_marys.clinic.lab_results');
    const all = new Set(out.results.flatMap((r) => r.discovered_tables.map(tableName)));
    // Only the user's tables exist for this worker; the building's maintenance log is no source.
    for (const t of all) expect(t).toMatch(/^st_marys\.clinic\./);
  }, 120_000);

  it('imports a BigQuery dataset through the BigQuery backend (INFORMATION_SCHEMA on the wire fake)', async () => {
    const seed = path.join(dir, 'seed');
    mkdirSync(seed);
    writeFileSync(path.join(seed, '010_hospital.sql'), HOSPITAL_SQL);
    const fake = await startBigQueryFake({ seedDir: seed });
    try {
      const docs = await importCatalog(parseCatalogSource('bigquery:fake-project.clinic'), {
        warehouse: fake.warehouse(),
      });
      expect(docs.map((d) => d.id)).toEqual([
        'fake-project.clinic.admissions',
        'fake-project.clinic.lab_results',
        'fake-project.clinic.patients',
      ]);
      const admissions = docs[0];
      expect(admissions.description).toMatch(/^Inpatient hospital stays/);
      // Column order from INFORMATION_SCHEMA.COLUMNS, descriptions from COLUMN_FIELD_PATHS.
      expect(admissions.column_names).toEqual(catalog.find((d) => d.table_id === 'admissions')!.column_names);
      expect(admissions.schema[3]).toEqual({
        name: 'discharged_at',
        type: 'TIMESTAMP',
        description: 'Date and time the patient was discharged from hospital',
      });
      // A description with a quote comes back whole from TABLE_OPTIONS' quoted literal.
      expect(docs.find((d) => d.table_id === 'patients')!.description).toContain("St Mary's");
      expect(fake.queries.some((q) => /INFORMATION_SCHEMA\.COLUMN_FIELD_PATHS/.test(q))).toBe(true);
      expect(fake.queries.some((q) => /INFORMATION_SCHEMA\.TABLE_OPTIONS WHERE option_name = @option/.test(q))).toBe(
        true,
      );
      // The dataset name is an identifier checked before it is quoted: a hostile one never reaches BigQuery.
      const sent = fake.queries.length;
      await expect(
        importCatalog(
          { kind: 'bigquery', location: 'fake-project', dataset: 'clinic`; DROP TABLE x; --' },
          {
            warehouse: fake.warehouse(),
          },
        ),
      ).rejects.toThrow(/unsafe dataset identifier/);
      expect(fake.queries).toHaveLength(sent);
    } finally {
      await fake.close();
    }
  });

  it('npm run catalog:import writes the same catalog; search:load puts it in the table-catalog data store', async () => {
    const out = path.join(dir, 'cli-catalog.json');
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', path.join('data', 'search', 'import-catalog.ts'), `duckdb:${dbFile}`, '--out', out],
      { cwd: path.resolve(__dirname, '..') },
    );
    expect(stdout).toMatch(/5 table\(s\), 23 column\(s\), 5 with a description/);
    expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual(catalog);

    const fake = await startDiscoveryEngineFake();
    try {
      const auth = new OAuth2Client();
      auth.setCredentials({ access_token: 'fake-token', expiry_date: Date.now() + 3_600_000 });
      const [loaded] = await loadSearchCollections(
        {
          project: 'fake-project',
          location: 'global',
          dataStorePrefix: 'agent-flows-',
          apiEndpoint: { host: fake.host, port: fake.port, protocol: 'http' },
          authClient: auth,
        },
        [{ collection: 'table-catalog', documents: catalog }],
        () => undefined,
      );
      expect(loaded).toMatchObject({ dataStore: 'agent-flows-table-catalog', documents: 5 });
      expect(
        fake
          .documentsOf('agent-flows-table-catalog')!
          .map((d) => d.id)
          .sort(),
      ).toEqual(
        [
          'st_marys.clinic.admissions',
          'st_marys.clinic.lab_results',
          'st_marys.clinic.patients',
          'st_marys.facilities.cafeteria menu',
          'st_marys.facilities.equipment_maintenance',
        ].map((id) => id.replace(/[^A-Za-z0-9_-]/g, '_')),
      );
    } finally {
      await fake.close();
    }
  });

  it('a catalog file that is not a catalog fails the search at once, naming the file', async () => {
    const bad = path.join(dir, 'not-a-catalog.json');
    writeFileSync(bad, '{"tables": ');
    const { createSearch } = await import('../backends');
    const search = await createSearch({ ...h.config, SEARCH_CATALOG: bad });
    await expect(search.search({ collection: 'table-catalog', query: 'admissions' })).rejects.toMatchObject({
      retryable: false,
      message: expect.stringMatching(/not-a-catalog\.json: not JSON/),
    });
  });
});
