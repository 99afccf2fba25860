/**
 * `npm run search:load` against the Discovery Engine fake (real @google-cloud/discoveryengine
 * clients, REST): each collection's data store is created when missing, its documents imported
 * through the long-running operations, and a second run changes nothing but the documents.
 */
import { OAuth2Client } from 'google-auth-library';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSearchCollections, localCollections } from '../../data/search/load-search';
import { startDiscoveryEngineFake, type DiscoveryEngineFake } from '../fakes/discoveryengine';

describe('npm run search:load (Discovery Engine v1)', () => {
  let fake: DiscoveryEngineFake;
  const auth = new OAuth2Client();
  auth.setCredentials({ access_token: 'fake-token', expiry_date: Date.now() + 3_600_000 });
  const target = () => ({
    project: 'fake-project',
    location: 'global',
    dataStorePrefix: 'agent-flows-',
    apiEndpoint: { host: fake.host, port: fake.port, protocol: 'http' as const },
    authClient: auth,
  });

  beforeAll(async () => {
    // One store exists already (with a stale document): it is reused, not recreated.
    fake = await startDiscoveryEngineFake({ 'agent-flows-platform-docs': [{ id: 'stale', title: 'Old' }] });
  });
  afterAll(async () => fake?.close());

  it('creates the missing data stores, imports every collection, and the flows can search them', async () => {
    const collections = localCollections();
    expect(collections.map((c) => c.collection)).toContain('literature');
    const lines: string[] = [];
    const loaded = await loadSearchCollections(target(), collections, (l) => lines.push(l));
    expect(loaded.map((l) => l.dataStore)).toEqual(collections.map((c) => `agent-flows-${c.collection}`));
    expect(fake.created).toEqual(
      collections.map((c) => `agent-flows-${c.collection}`).filter((id) => id !== 'agent-flows-platform-docs'),
    );
    for (const c of collections)
      expect(fake.documentsOf(`agent-flows-${c.collection}`)).toHaveLength(c.documents.length);
    // FULL reconciliation: the stale document is gone.
    expect(fake.documentsOf('agent-flows-platform-docs')!.some((d) => d.id === 'stale')).toBe(false);
    const { hits } = await fake
      .search({ dataStorePrefix: 'agent-flows-' })
      .search({ collection: 'platform-docs', query: 'durable execution' });
    expect(hits[0].id).toBe('pd-durable');
    // The operations were waited on (operations.get polled).
    expect(fake.requests.some((r) => /\/operations\/op-\d+$/.test(r.path))).toBe(true);
  });

  it('is idempotent: a second run creates nothing and leaves the same documents', async () => {
    const before = fake.created.length;
    const collections = localCollections();
    await loadSearchCollections(target(), collections, () => undefined);
    expect(fake.created).toHaveLength(before);
    for (const c of collections)
      expect(fake.documentsOf(`agent-flows-${c.collection}`)).toHaveLength(c.documents.length);
  });

  it('stops with the API error when the service refuses (API not enabled)', async () => {
    const collections = localCollections().slice(0, 1);
    const f2 = await startDiscoveryEngineFake();
    try {
      f2.failNext(1, 403, 'Discovery Engine API has not been used in project fake-project before or it is disabled.');
      await expect(
        loadSearchCollections(
          { ...target(), apiEndpoint: { host: f2.host, port: f2.port, protocol: 'http' } },
          collections,
          () => undefined,
        ),
      ).rejects.toThrow(/has not been used in project/);
    } finally {
      await f2.close();
    }
  });
});
