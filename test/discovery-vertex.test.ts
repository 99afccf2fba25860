/**
 * `discoverFromPrp` with Vertex AI Search as the catalog: the real `@google-cloud/discoveryengine`
 * client (through `backends/search/vertex.ts`) against the local Discovery Engine REST fake, which
 * answers structData in the wire format the client turns into protobuf Struct form. The model is
 * scripted (a plan and a ledger of which table supplies which columns): this file tests the
 * search backend under the workflow, not the stand-in's judgement.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DATA_DIR } from '../backends';
import { discoverFromPrpFlow, tableName } from '../flows/discovery/contract';
import { startDiscoveryEngineFake, type DiscoveryEngineFake } from './fakes/discoveryengine';
import { createHarness, recordHistory, type Harness } from './helpers/harness';
import { DISCOVERY_TASKS, NFL_ACCURACY } from './helpers/scripted-discovery';
import { ScriptedModel } from './helpers/scripted-model';

const catalog = JSON.parse(readFileSync(path.join(DATA_DIR, 'search', 'table-catalog.json'), 'utf8')) as Array<
  Record<string, unknown>
>;
const prp = readFileSync(path.join(DATA_DIR, 'prp', 'nfl-prediction-accuracy.md'), 'utf8');
describe('discoverFromPrp on Vertex AI Search (Discovery Engine REST fake, real client)', () => {
  let fake: DiscoveryEngineFake;
  let h: Harness;
  const model = new ScriptedModel();
  beforeAll(async () => {
    fake = await startDiscoveryEngineFake({ 'agent-flows-table-catalog': catalog });
    h = await createHarness({
      backends: (b) => ({ ...b, search: fake.search() }),
      rules: model.rules(DISCOVERY_TASKS),
    });
  });
  afterEach(() => expect(model.unexpected).toEqual([]));
  afterAll(async () => {
    await h?.close();
    await fake?.close();
  });

  it(
    'searches the table-catalog data store once per step and parses Struct-form ' + 'documents into candidates',
    async () => {
      model.script(NFL_ACCURACY.script());
      fake.failNext(1, 503, 'The service is currently unavailable.');
      const handle = await h.start(discoverFromPrpFlow, { prp, maxCandidatesPerStep: 6 });
      const out = await handle.result();

      expect(h.backends.search.name).toBe('vertex');
      const searches = fake.requests.filter((r) =>
        r.path.endsWith('/dataStores/agent-flows-table-catalog/servingConfigs/default_search:search'),
      );
      // One search per step, plus the one 503 that Temporal retried.
      expect(searches).toHaveLength(out.results.length + 1);
      expect(searches.every((r) => (r.body as { pageSize?: number }).pageSize === 6)).toBe(true);
      expect(new Set(searches.map((r) => (r.body as { query: string }).query))).toEqual(
        new Set(out.results.map((r) => r.search_query)),
      );

      expect(out.results.every((r) => r.status === 'ok')).toBe(true);
      const all = out.results.flatMap((r) => r.discovered_tables);
      expect(all.map(tableName)).toEqual(NFL_ACCURACY.tables);
      // Struct values came back as plain JSON: nested schema lists with typed columns.
      const games = all.find((t) => t.table_id === 'games' && t.dataset_id === 'nfl_core')!;
      expect(games.project_id).toBe('sports-analytics-prod');
      expect(games.schema[0]).toEqual({
        name: 'game_id',
        type: 'STRING',
        description: expect.stringContaining('NFL game'),
      });
      await recordHistory(handle, 'discover-from-prp-vertex');
    },
  );

  it('records a data store outage that outlasts the retries in its step, and the other steps complete', async () => {
    // One slot: the first step's search holds it through all three attempts, which meet the outage.
    model.script(NFL_ACCURACY.script());
    fake.failNext(3, 503);
    const out = await h.run(discoverFromPrpFlow, {
      prp,
      maxCandidatesPerStep: 2,
      concurrency: 1,
    });
    expect(out.results[0]).toMatchObject({ status: 'failed', discovered_tables: [], candidates_found: 0 });
    expect(out.results[0].error).toMatch(/search failed: Vertex AI Search unavailable/);
    expect(out.results.slice(1).every((r) => r.status === 'ok' && r.candidates_found === 2)).toBe(true);
    expect(out.stats.searches_failed).toBe(1);
  });
});
