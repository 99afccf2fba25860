/**
 * What building the backends loads. The Google search and warehouse clients (their generated
 * protocol code: ~25 MB of sources, ~40 MB of worker heap) are loaded only when configured, so
 * a worker on the offline defaults never holds them; a worker configured for Vertex AI Search
 * and BigQuery loads them.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(__dirname, '..');

const probe = (env: Record<string, string>) => `
const path = require('node:path');
const { createBackends } = require('./backends');
const { parseConfig } = require('./plumbing/config');
(async () => {
  const backends = await createBackends(parseConfig(${JSON.stringify(env)}));
  const loaded = Object.keys(require.cache).map((f) => path.relative(process.cwd(), f));
  await backends.close();
  process.stdout.write(JSON.stringify(loaded));
})().catch((err) => { console.error(err); process.exit(1); });
`;

const googleClients = (loaded: string[]) =>
  loaded.filter((f) => /node_modules\/@google-cloud\/(discoveryengine|bigquery)\//.test(f));

const load = (env: Record<string, string>) =>
  JSON.parse(
    execFileSync(process.execPath, ['--import', 'tsx', '-e', probe(env)], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { PATH: process.env.PATH, HOME: process.env.HOME, AGENT_FLOWS_EMBEDDING_MODEL: 'off' },
    }),
  ) as string[];

describe('worker backends', () => {
  it('offline defaults load no Google search or warehouse client', () => {
    const loaded = load({ DUCKDB_PATH: ':memory:' });
    expect(loaded.some((f) => f.includes('backends/search/embedded'))).toBe(true);
    expect(googleClients(loaded)).toEqual([]);
  });

  it('Vertex AI Search and BigQuery load their clients when configured', () => {
    const loaded = load({
      AGENT_FLOWS_SEARCH: 'vertex',
      AGENT_FLOWS_WAREHOUSE: 'bigquery',
      GOOGLE_CLOUD_PROJECT: 'p',
    });
    expect(googleClients(loaded).some((f) => f.includes('discoveryengine'))).toBe(true);
    expect(googleClients(loaded).some((f) => f.includes('bigquery'))).toBe(true);
  });
});
