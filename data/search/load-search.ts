/**
 * Creates and fills the Vertex AI Search data stores the flows read, from the collections in
 * data/search/ (the same documents the embedded index serves offline):
 *
 *   npm run search:load                  # every collection
 *   npm run search:load -- literature    # some collections
 *   npm run search:load -- --dry-run     # print the plan only
 *   npm run search:load -- --from duckdb:warehouse.duckdb [--dataset clinic]
 *   npm run search:load -- --from bigquery:my-project.my_dataset
 *                                        # table-catalog from your own warehouse (import-catalog.ts)
 *   npm run search:load -- --literature my-library.bib
 *                                        # the literature corpus plus your BibTeX / CSL-JSON library
 *
 * Settings (the same as the worker's): VERTEX_SEARCH_PROJECT (or GOOGLE_CLOUD_PROJECT),
 * VERTEX_SEARCH_LOCATION, VERTEX_SEARCH_DATASTORE_PREFIX, DISCOVERY_ENGINE_API_ENDPOINT;
 * credentials are Application Default Credentials.
 *
 * Per collection, with the Discovery Engine v1 API: the data store `<prefix><collection>` is
 * created (generic vertical, no content: the documents are structured JSON) unless it exists, and
 * the documents are imported inline with reconciliation mode FULL, so running it again leaves
 * the store holding exactly the file's documents (no duplicates, removed ones gone). Both calls
 * are long-running operations; the loader waits for each.
 */
import { protos, v1 } from '@google-cloud/discoveryengine';

const { SolutionType } = protos.google.cloud.discoveryengine.v1;
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseEndpoint } from '../../backends';
import { readBibliography } from '../../backends/search/bibliography';
import { TABLE_CATALOG_COLLECTION } from '../../backends/warehouse/catalog';
import { loadConfig } from '../../plumbing/config';
import { flagValue, importCatalog, parseCatalogSource } from './import-catalog';

const HERE = __dirname;
/** Discovery Engine caps an inline import at 100 documents per request. */
const IMPORT_BATCH = 100;

export interface SearchLoadTarget {
  project: string;
  location: string;
  dataStorePrefix: string;
  apiEndpoint?: { host: string; port?: number; protocol?: 'http' | 'https' };
  /** Tests pass a fake auth client; production uses Application Default Credentials. */
  authClient?: unknown;
}

export interface CollectionLoad {
  collection: string;
  dataStore: string;
  created: boolean;
  documents: number;
}

/** The collections in data/search/: every `<collection>.json` holding an array of `{id, ...}`. */
export function localCollections(dir = HERE): Array<{ collection: string; documents: Array<Record<string, unknown>> }> {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((file) => {
      const documents = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as unknown;
      if (!Array.isArray(documents) || documents.some((d) => typeof d?.id !== 'string'))
        throw new Error(`${file}: expected an array of documents with a string "id"`);
      return { collection: file.replace(/\.json$/, ''), documents: documents as Array<Record<string, unknown>> };
    });
}

/** A Discovery Engine document id: letters, digits, '-' and '_', at most 63 characters. */
function documentId(id: string): string {
  const clean = id.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 63);
  if (!clean) throw new Error(`document id ${JSON.stringify(id)} has no usable characters`);
  return clean;
}

export async function loadSearchCollections(
  target: SearchLoadTarget,
  collections = localCollections(),
  log: (line: string) => void = console.log,
): Promise<CollectionLoad[]> {
  const clientOptions = {
    fallback: true as const,
    ...(target.apiEndpoint
      ? {
          apiEndpoint: target.apiEndpoint.host,
          port: target.apiEndpoint.port,
          protocol: target.apiEndpoint.protocol ?? 'https',
        }
      : {}),
    ...(target.authClient ? { authClient: target.authClient as never } : {}),
  };
  const stores = new v1.DataStoreServiceClient(clientOptions);
  const documents = new v1.DocumentServiceClient(clientOptions);
  const parent = `projects/${target.project}/locations/${target.location}/collections/default_collection`;
  const results: CollectionLoad[] = [];
  try {
    for (const { collection, documents: docs } of collections) {
      const dataStoreId = `${target.dataStorePrefix}${collection}`;
      const name = `${parent}/dataStores/${dataStoreId}`;
      let created = false;
      const existing = await stores.getDataStore({ name }).catch((err: { code?: number }) => {
        // 5 NOT_FOUND (gRPC code), or 404 from the REST layer: the store is to be created.
        if (err.code === 5 || err.code === 404) return undefined;
        throw err;
      });
      if (!existing) {
        log(`[search:load] creating data store ${dataStoreId}`);
        const [operation] = await stores.createDataStore({
          parent,
          dataStoreId,
          dataStore: {
            displayName: `agent-flows ${collection}`,
            industryVertical: 'GENERIC' as const,
            solutionTypes: [SolutionType.SOLUTION_TYPE_SEARCH],
            contentConfig: 'NO_CONTENT' as const,
          },
        });
        await operation.promise();
        created = true;
      }
      const branch = `${name}/branches/default_branch`;
      for (let i = 0; i < docs.length; i += IMPORT_BATCH) {
        const batch = docs.slice(i, i + IMPORT_BATCH).map(({ id, ...data }) => ({
          id: documentId(String(id)),
          jsonData: JSON.stringify(data),
        }));
        const [operation] = await documents.importDocuments({
          parent: branch,
          inlineSource: { documents: batch },
          // FULL: the store ends up with exactly these documents. One batch at a time, so only
          // the first batch of a large collection replaces; the rest add (INCREMENTAL).
          reconciliationMode: i === 0 ? ('FULL' as const) : ('INCREMENTAL' as const),
        });
        const [response] = await operation.promise();
        const errors = (response as { errorSamples?: Array<{ message?: string }> }).errorSamples ?? [];
        if (errors.length) throw new Error(`${dataStoreId}: import failed: ${errors[0].message ?? 'unknown error'}`);
      }
      log(`[search:load] ${dataStoreId}: ${docs.length} document(s)${created ? ' (new store)' : ''}`);
      results.push({ collection, dataStore: dataStoreId, created, documents: docs.length });
    }
    return results;
  } finally {
    await Promise.all([stores.close(), documents.close()]);
  }
}

async function main(argv: string[]): Promise<number> {
  const config = loadConfig();
  const project = config.VERTEX_SEARCH_PROJECT ?? config.GOOGLE_CLOUD_PROJECT;
  const from = flagValue(argv, '--from');
  const library = flagValue(argv, '--literature');
  const wanted = argv.filter(
    (a, i) => !a.startsWith('--') && !['--from', '--dataset', '--literature'].includes(argv[i - 1]),
  );
  const collections: ReturnType<typeof localCollections> = [];
  // The table catalog built from the user's warehouse replaces the bundled one in the data store.
  if (from)
    collections.push({
      collection: TABLE_CATALOG_COLLECTION,
      documents: await importCatalog(parseCatalogSource(from, flagValue(argv, '--dataset')), { config }),
    });
  // The researcher's library goes in beside the bundled corpus, as the embedded index holds it.
  if (library) {
    const bundled = localCollections().find((c) => c.collection === 'literature')?.documents ?? [];
    const { documents, withoutLink } = await readBibliography(path.resolve(library));
    if (withoutLink.length)
      console.log(`[search:load] ${withoutLink.length} entries without a DOI or URL left out: ${withoutLink.slice(0, 5).join(', ')}`);
    collections.push({ collection: config.PROPOSAL_LITERATURE_COLLECTION, documents: [...bundled, ...documents] });
  }
  if (!from && !library)
    collections.push(...localCollections().filter((c) => wanted.length === 0 || wanted.includes(c.collection)));
  const unknown = wanted.filter((w) => !collections.some((c) => c.collection === w));
  if (unknown.length) {
    console.error(`[search:load] no collection ${unknown.join(', ')} in data/search/`);
    return 2;
  }
  for (const c of collections)
    console.log(`[search:load] ${c.collection}: ${c.documents.length} document(s) → ${config.VERTEX_SEARCH_DATASTORE_PREFIX}${c.collection}`);
  if (argv.includes('--dry-run')) return 0;
  if (!project) {
    console.error('[search:load] set VERTEX_SEARCH_PROJECT or GOOGLE_CLOUD_PROJECT');
    return 2;
  }
  const endpoint = config.DISCOVERY_ENGINE_API_ENDPOINT;
  await loadSearchCollections(
    {
      project,
      location: config.VERTEX_SEARCH_LOCATION,
      dataStorePrefix: config.VERTEX_SEARCH_DATASTORE_PREFIX,
      apiEndpoint: endpoint ? parseEndpoint(endpoint) : undefined,
    },
    collections,
  );
  return 0;
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      console.error(`[search:load] ${err instanceof Error ? err.message : String(err)}`);
      process.exit(1);
    },
  );
}
