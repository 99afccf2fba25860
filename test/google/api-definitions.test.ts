/**
 * The fakes refuse what Google's own API definitions refuse: a field that does not exist (a typo
 * that the real service would reject, or silently drop, like a misspelt cost cap), a wrong JSON
 * type, an enum value that does not exist. The requests the project's real clients send pass
 * (every other test in test/google/ goes through these checks).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discoveryProblems, loadDiscoveryDocument, protoProblems, protoRoot } from '../fakes/api-definitions';
import { startBigQueryFake, type BigQueryFake } from '../fakes/bigquery';
import { startDiscoveryEngineFake, type DiscoveryEngineFake } from '../fakes/discoveryengine';
import { startGeminiFake, type GeminiFake } from '../fakes/gemini';

const post = async (url: string, body: unknown) => {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer fake-token' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as { error?: { message?: string } } };
};

describe('requests checked against Google API definitions', () => {
  let bigQuery: BigQueryFake;
  let discovery: DiscoveryEngineFake;
  let gemini: GeminiFake;
  beforeAll(async () => {
    [bigQuery, discovery, gemini] = await Promise.all([
      startBigQueryFake(),
      startDiscoveryEngineFake({ 'agent-flows-literature': [] }),
      startGeminiFake(),
    ]);
  });
  afterAll(async () => Promise.all([bigQuery?.close(), discovery?.close(), gemini?.close()]));

  it('BigQuery (discovery document v2): a misspelt cost cap is refused, not ignored', async () => {
    const res = await post(`${bigQuery.apiEndpoint}/bigquery/v2/projects/fake-project/jobs`, {
      configuration: { query: { query: 'SELECT 1', useLegacySql: false, maximumBytesBiled: '1000' } },
    });
    expect(res.status).toBe(400);
    expect(res.body.error?.message).toMatch(/Job\.configuration\.query\.maximumBytesBiled: unknown field/);
    const wrongType = await post(`${bigQuery.apiEndpoint}/bigquery/v2/projects/fake-project/queries`, {
      query: 'SELECT 1',
      useLegacySql: 'no',
    });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.error?.message).toMatch(/QueryRequest\.useLegacySql: expected a boolean/);
  });

  it('Discovery Engine (v1 protos): unknown fields and wrong types in a search are refused', async () => {
    const url = `http://${discovery.host}:${discovery.port}/v1/projects/p/locations/global/collections/default_collection/dataStores/agent-flows-literature/servingConfigs/default_search:search`;
    const res = await post(url, { query: 'bees', pageSize: 'ten', querry: 'x' });
    expect(res.status).toBe(400);
    expect(res.body.error?.message).toMatch(/SearchRequest\.pageSize: expected a number/);
    expect(res.body.error?.message).toMatch(/SearchRequest\.querry: unknown field of SearchRequest/);
    expect((await post(url, { query: 'bees', pageSize: 5 })).status).toBe(200);
  });

  it('Gemini (generativelanguage v1beta protos): a misspelt tool or schema field is refused', async () => {
    const url = `${gemini.url}/v1beta/models/gemini-2.5-flash:generateContent`;
    const contents = [{ role: 'user', parts: [{ text: 'hi' }] }];
    const tool = await post(url, { contents, tools: [{ googleSerch: {} }] });
    expect(tool.status).toBe(400);
    expect(tool.body.error?.message).toMatch(/tools\[0\]\.googleSerch: unknown field of Tool/);
    const schema = await post(url, { contents, generationConfig: { responseSchemaJson: {} } });
    expect(schema.status).toBe(400);
    const mode = await post(url, { contents, generationConfig: { responseModalities: ['HOLOGRAM'] } });
    expect(mode.status).toBe(400);
    expect(mode.body.error?.message).toMatch(/"HOLOGRAM" is not a Modality value/);
  });

  it('checks enums, arrays and maps from the definitions themselves', () => {
    const doc = loadDiscoveryDocument('bigquery.v2.json');
    expect(discoveryProblems(doc, 'Job', { configuration: { labels: { a: 1 } } })).toEqual([
      'Job.configuration.labels.a: expected a string',
    ]);
    const root = protoRoot('@google-cloud/discoveryengine');
    expect(
      protoProblems(root, 'google.cloud.discoveryengine.v1.ImportDocumentsRequest', {
        reconciliationMode: 'SOMETIMES',
        inlineSource: { documents: [{ id: 'a', jsonData: '{}' }] },
      }),
    ).toEqual(['ImportDocumentsRequest.reconciliationMode: "SOMETIMES" is not a ReconciliationMode value']);
  });
});
