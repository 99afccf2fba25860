/**
 * The BOM evaluation's ground truth against the demo data: every question's truth query runs on
 * the warehouse built from data/warehouse/010_bom.sql, and a question about a part the data does
 * not hold has an empty truth. A check of the sets' data rather than of code: some eight hundred
 * distinct queries, two seconds of DuckDB that the fast layer (`npm run test:unit`, meant to
 * answer in seconds while code is written) should not carry, and that `npm test` runs here.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadQuestions } from '../eval/bom/index';
import { installedEvalSets } from './helpers/eval-sets';

const ROOT = path.resolve(__dirname, '..');

describe.each(installedEvalSets())('the %s BOM questions', (set) => {
  it('every BOM truth query runs on the demo data, and absent parts have empty truth', async () => {
    const questions = loadQuestions(set);
    expect(questions.length).toBeGreaterThanOrEqual(30);
    expect(new Set(questions.map((q) => q.id)).size).toBe(questions.length);
    // One thread: each query is a few milliseconds on a table of a few hundred rows, and
    // handing it to a pool of threads cost more than it ran; other test files have the other
    // cores.
    const instance = await DuckDBInstance.create(':memory:', { threads: '1' });
    const connection = await instance.connect();
    try {
      await connection.run(readFileSync(path.join(ROOT, 'data', 'warehouse', '010_bom.sql'), 'utf8'));
      // Many questions share their truth query word for word (the same part asked about in
      // other words): each query runs once, and every question that uses it is checked.
      const empty = new Map<string, boolean>();
      for (const q of questions) {
        if (!empty.has(q.truth_sql))
          empty.set(q.truth_sql, (await connection.runAndReadAll(q.truth_sql)).getRowObjectsJS().length === 0);
        expect(empty.get(q.truth_sql), q.id).toBe(q.kind === 'absent');
      }
    } finally {
      connection.closeSync();
      instance.closeSync();
    }
    // Some eight hundred queries: seconds on a busy machine, more than the default limit.
  }, 60_000);
});
