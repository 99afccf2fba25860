import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATA_DIR } from '../../backends';
import { BackendError } from '../../backends/errors';
import { EmbeddedSearch } from '../../backends/search/embedded';
import { structToJson } from '../../backends/search/vertex-data';
import { startDiscoveryEngineFake, type DiscoveryEngineFake } from '../fakes/discoveryengine';

const docs = JSON.parse(readFileSync(path.join(DATA_DIR, 'search', 'platform-docs.json'), 'utf8')) as Array<
  Record<string, unknown>
>;

describe('Vertex AI Search adapter against the Discovery Engine REST fake (real client, REST fallback)', () => {
  let fake: DiscoveryEngineFake;
  beforeAll(async () => {
    fake = await startDiscoveryEngineFake({
      'agent-flows-platform-docs': [
        ...docs,
        {
          id: 'nested',
          title: 'Nested',
          tags: ['a', 'b'],
          meta: { score: 3, ok: true, none: null },
          text: 'battery nested',
        },
      ],
    });
  });
  afterAll(async () => fake?.close());

  it('searches the data store named after the collection and returns plain JSON like the embedded index', async () => {
    const vertex = fake.search();
    const result = await vertex.search({ collection: 'platform-docs', query: 'battery components', pageSize: 3 });
    expect(result.hits[0]).toMatchObject({
      id: 'pd-battery',
      data: { title: 'Battery components in the demo warehouse' },
    });
    expect(result.totalSize).toBeGreaterThanOrEqual(2);
    expect(fake.requests.at(-1)!.path).toBe(
      'projects/fake-project/locations/global/collections/default_collection/dataStores/agent-flows-platform-docs/servingConfigs/default_search:search',
    );
    expect(fake.requests.at(-1)!.body).toMatchObject({ query: 'battery components', pageSize: 3 });
    const embedded = await new EmbeddedSearch(path.join(DATA_DIR, 'search')).search({
      collection: 'platform-docs',
      query: 'battery components',
      pageSize: 3,
    });
    expect(Object.keys(result.hits[0].data).sort()).toEqual(
      Object.keys(embedded.hits[0].data)
        .filter((k) => k !== 'id')
        .sort(),
    );
  });

  it('converts nested Struct values (lists, structs, numbers, booleans, null)', async () => {
    const result = await fake.search().search({ collection: 'platform-docs', query: 'nested' });
    expect(result.hits[0].data).toEqual({
      title: 'Nested',
      tags: ['a', 'b'],
      meta: { score: 3, ok: true, none: null },
      text: 'battery nested',
    });
  });

  it('uses an explicit servingConfig mapping when configured', async () => {
    const servingConfig =
      'projects/fake-project/locations/global/dataStores/agent-flows-platform-docs/servingConfigs/custom';
    const result = await fake
      .search({ servingConfigs: { docs: servingConfig } })
      .search({ collection: 'docs', query: 'memory' });
    expect(result.hits.map((h) => h.id)).toContain('pd-memory');
    expect(fake.requests.at(-1)!.path).toBe(`${servingConfig}:search`);
  });

  it('classifies 503 and 429 as retryable, 403 and unknown data stores as permanent', async () => {
    const vertex = fake.search();
    for (const [status, retryable] of [
      [503, true],
      [429, true],
      [403, false],
    ] as const) {
      fake.failNext(1, status);
      const error = await vertex.search({ collection: 'platform-docs', query: 'battery' }).catch((e) => e);
      expect(error, `status ${status}`).toBeInstanceOf(BackendError);
      expect(error.retryable, `status ${status}`).toBe(retryable);
    }
    const missing = await vertex.search({ collection: 'nope', query: 'x' }).catch((e) => e);
    expect(missing.retryable).toBe(false);
  });

  it('reports a malformed response as a retryable error, never as results', async () => {
    fake.malformNext(1);
    const error = await fake
      .search()
      .search({ collection: 'platform-docs', query: 'battery' })
      .catch((e) => e);
    expect(error).toBeInstanceOf(BackendError);
    expect(error.retryable).toBe(true);
  });

  it('structToJson leaves plain JSON untouched', () => {
    expect(structToJson({ a: 1 })).toEqual({ a: 1 });
  });
});
