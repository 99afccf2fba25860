/**
 * `npm run check:google` against the wire fakes: the backend probes and the flows through Temporal
 * on BigQuery (fake), Vertex AI Search (fake, filled by search:load) and a Gemini-speaking model
 * (the stand-in), then the diagnosis of what a user meets first: an API not enabled, a data store
 * absent.
 */
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { OAuth2Client } from 'google-auth-library';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Backends } from '../../backends';
import { GeminiModel } from '../../backends/model/gemini';
import { bomQuestionFlow } from '../../flows/bom/contract';
import { platformCheckFlow } from '../../flows/platform/contract';
import { loadSearchCollections, localCollections } from '../../data/search/load-search';
import { startStandin, type StandinServer } from '../../standin/server';
import { checkGoogle, diagnose, formatReport } from '../../workers/check-google';
import { startBigQueryFake, type BigQueryFake } from '../fakes/bigquery';
import { startDiscoveryEngineFake, type DiscoveryEngineFake } from '../fakes/discoveryengine';
import { testConfig } from '../helpers/harness';

describe('npm run check:google', () => {
  let standin: StandinServer;
  let bigQuery: BigQueryFake;
  let discovery: DiscoveryEngineFake;
  let connection: Connection;
  let nativeConnection: NativeConnection;
  const config = testConfig();

  const backends = (search: DiscoveryEngineFake = discovery): Backends => ({
    model: new GeminiModel({
      label: 'gemini',
      model: 'gemini-2.5-flash',
      apiKey: 'test-key',
      baseUrl: standin.url,
      timeoutMs: 30_000,
      maxRepairs: 2,
    }),
    warehouse: bigQuery.warehouse(),
    search: search.search({ dataStorePrefix: 'agent-flows-' }),
    config,
    close: async () => undefined,
  });

  beforeAll(async () => {
    [standin, bigQuery, discovery] = await Promise.all([
      startStandin(),
      startBigQueryFake(),
      startDiscoveryEngineFake(),
    ]);
    const auth = new OAuth2Client();
    auth.setCredentials({ access_token: 'fake-token', expiry_date: Date.now() + 3_600_000 });
    await loadSearchCollections(
      {
        project: 'fake-project',
        location: 'global',
        dataStorePrefix: 'agent-flows-',
        apiEndpoint: { host: discovery.host, port: discovery.port, protocol: 'http' },
        authClient: auth,
      },
      localCollections(),
      () => undefined,
    );
    const address = inject('temporalAddress');
    connection = await Connection.connect({ address });
    nativeConnection = await NativeConnection.connect({ address });
  });
  afterAll(async () => {
    await connection?.close();
    await nativeConnection?.close();
    await Promise.all([standin?.close(), bigQuery?.close(), discovery?.close()]);
  });

  it('reports every backend and flow working, with the tokens used and the bytes billed', async () => {
    const report = await checkGoogle(
      backends(),
      config,
      { client: new Client({ connection }), nativeConnection },
      { flows: [platformCheckFlow, bomQuestionFlow], workflowBundle: { codePath: inject('workflowBundlePath') } },
    );
    const text = formatReport(report);
    expect(report.lines.filter((l) => !l.ok)).toEqual([]);
    expect(report.lines.map((l) => l.what)).toEqual(
      expect.arrayContaining([
        'model (gemini gemini-2.5-flash)',
        'search (vertex) literature',
        'flow platformCheck',
        'flow answerBomQuestion',
      ]),
    );
    expect(report.usage.totalTokens).toBeGreaterThan(0);
    expect(report.bytesBilled).toBeGreaterThan(0);
    expect(text).toMatch(/everything works on the configured services/);
    expect(text).toMatch(/MB billed by BigQuery/);
  });

  it('names a data store that is absent and what to run', async () => {
    const empty = await startDiscoveryEngineFake({ 'agent-flows-platform-docs': [{ id: 'a', title: 'x' }] });
    try {
      const report = await checkGoogle(backends(empty), config);
      const literature = report.lines.find((l) => l.what === 'search (vertex) literature')!;
      expect(literature.ok).toBe(false);
      expect(literature.fix).toMatch(/npm run search:load/);
      expect(report.lines.find((l) => l.what === 'search (vertex) platform-docs')!.ok).toBe(true);
      expect(report.ok).toBe(false);
      expect(formatReport(report)).toMatch(/MISSING search \(vertex\) literature/);
    } finally {
      await empty.close();
    }
  });

  it('names an API that is not enabled', async () => {
    bigQuery.failNext(
      1,
      403,
      'accessDenied',
      'BigQuery API has not been used in project fake-project before or it is disabled. Enable it by visiting ...',
    );
    const report = await checkGoogle(backends(), config);
    const warehouse = report.lines.find((l) => l.what.startsWith('warehouse'))!;
    expect(warehouse.ok).toBe(false);
    expect(warehouse.fix).toMatch(/API is not enabled/);
  });

  it('diagnoses the errors Google returns in their own words', () => {
    expect(diagnose('7 PERMISSION_DENIED: Permission denied on resource project p.')).toMatch(/permission denied/);
    expect(diagnose('model call failed with HTTP 401: API key not valid')).toMatch(/credentials/);
    expect(diagnose('Not found: Dataset p:bom_demo')).toMatch(/load-bom/);
    expect(diagnose('something else entirely')).toBeUndefined();
  });
});
