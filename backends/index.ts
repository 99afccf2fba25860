/**
 * Builds the three backends from the configuration: Google implementations when configured,
 * embedded defaults otherwise. Activities receive the result; nothing else constructs backends.
 *
 * The Google search and warehouse clients are loaded only when configured: their generated
 * protocol code is ~25 MB of sources and ~40 MB of worker heap that the offline default never uses.
 */
import path from 'node:path';
import { isSecretVariable, secretValues, type Config } from '../plumbing/config';
import { errorText, logger } from '../plumbing/logger';
import { registerSecrets } from '../plumbing/redaction';
import { GeminiModel } from './model/gemini';
import { OpenAIModel } from './model/openai';
import type { ModelBackend } from './model/types';
import { embeddingModelDir, sharedEmbedder } from './embedding';
import { readBibliography } from './search/bibliography';
import { EmbeddedSearch } from './search/embedded';
import { TABLE_CATALOG_COLLECTION } from './warehouse/catalog';
import type { SearchBackend } from './search/types';
import { DuckDbWarehouse } from './warehouse/duckdb';
import type { Warehouse } from './warehouse/types';
import { createArtifactStore, LocalArtifactStore, type ArtifactStore } from './artifacts';
import { PROJECT_ROOT } from '../plumbing/project-root';

export const DATA_DIR = path.join(PROJECT_ROOT, 'data');

export interface Backends {
  model: ModelBackend;
  warehouse: Warehouse;
  search: SearchBackend;
  /** Where activities put the files they make (PDFs, charts, models): ARTIFACT_DIR or ARTIFACT_BUCKET. */
  artifacts?: ArtifactStore;
  /** The configuration the backends were built from: lets activities read ARTIFACT_DIR and flow settings. */
  config?: Config;
  close(): Promise<void>;
}

export function standinUrl(config: Config): string {
  return config.GOOGLE_GEMINI_BASE_URL ?? `http://${config.STANDIN_HOST}:${config.STANDIN_PORT}`;
}

/** Every secret of the configuration (and of the environment) is cut out of backend errors. */
function registerConfiguredSecrets(config: Config): void {
  const configured = Object.entries(config).filter(
    ([name, value]) => isSecretVariable(name) && typeof value === 'string',
  );
  registerSecrets(
    config.geminiApiKey,
    ...configured.flatMap(([, v]) => String(v).split(',')),
    ...secretValues(process.env),
  );
}

export function createModel(config: Config): ModelBackend {
  registerConfiguredSecrets(config);
  const common = {
    model: config.GEMINI_MODEL,
    timeoutMs: config.MODEL_TIMEOUT_MS,
    maxRepairs: config.MODEL_MAX_REPAIRS,
    price: config.modelPrice,
  };
  switch (config.model) {
    case 'vertex':
      return new GeminiModel({
        ...common,
        label: 'vertex',
        webSearch: config.PROPOSAL_LITERATURE_SOURCE !== 'index',
        conversational: true,
        vertex: { project: config.GOOGLE_CLOUD_PROJECT!, location: config.GOOGLE_CLOUD_LOCATION },
        baseUrl: config.GOOGLE_GEMINI_BASE_URL,
      });
    case 'gemini':
      return new GeminiModel({
        ...common,
        label: 'gemini',
        webSearch: config.PROPOSAL_LITERATURE_SOURCE !== 'index',
        conversational: true,
        apiKey: config.geminiApiKey,
        baseUrl: config.GOOGLE_GEMINI_BASE_URL,
      });
    case 'openai':
      return new OpenAIModel({
        model: config.OPENAI_MODEL!,
        baseUrl: config.OPENAI_BASE_URL,
        apiKey: config.OPENAI_API_KEY,
        timeoutMs: config.MODEL_TIMEOUT_MS,
        maxRepairs: config.MODEL_MAX_REPAIRS,
        price: config.modelPrice,
      });
    case 'standin':
      // The stand-in ignores the key; the real client still needs one to build its requests.
      return new GeminiModel({ ...common, label: 'standin', apiKey: 'standin-offline', baseUrl: standinUrl(config) });
  }
}

export async function createWarehouse(config: Config): Promise<Warehouse> {
  if (config.AGENT_FLOWS_WAREHOUSE === 'bigquery') {
    const { BigQueryWarehouse } = await import('./warehouse/bigquery');
    return new BigQueryWarehouse({
      projectId: config.BIGQUERY_PROJECT ?? config.GOOGLE_CLOUD_PROJECT!,
      location: config.BIGQUERY_LOCATION,
      maximumBytesBilled: config.BIGQUERY_MAX_BYTES_BILLED,
      apiEndpoint: config.BIGQUERY_API_ENDPOINT,
    });
  }
  return DuckDbWarehouse.open({ path: config.DUCKDB_PATH, seedDir: path.join(DATA_DIR, 'warehouse') });
}

export async function createSearch(config: Config): Promise<SearchBackend> {
  if (config.AGENT_FLOWS_SEARCH === 'vertex') {
    const { VertexSearch } = await import('./search/vertex');
    const endpoint = config.DISCOVERY_ENGINE_API_ENDPOINT;
    return new VertexSearch({
      project: config.VERTEX_SEARCH_PROJECT ?? config.GOOGLE_CLOUD_PROJECT!,
      location: config.VERTEX_SEARCH_LOCATION,
      dataStorePrefix: config.VERTEX_SEARCH_DATASTORE_PREFIX,
      servingConfigs: config.VERTEX_SEARCH_SERVING_CONFIGS,
      apiEndpoint: endpoint ? parseEndpoint(endpoint) : undefined,
    });
  }
  const modelDir = embeddingModelDir(config.AGENT_FLOWS_EMBEDDING_MODEL);
  const catalog = config.SEARCH_CATALOG;
  const library = config.LITERATURE_FILE;
  const search = new EmbeddedSearch(path.join(DATA_DIR, 'search'), {
    embedder: () => sharedEmbedder({ setting: config.AGENT_FLOWS_EMBEDDING_MODEL }).then((s) => s.embedder),
    vectorCacheDir: modelDir ? path.join(modelDir, 'vectors') : undefined,
    // The user's own data, read when a search first asks for the collection: a wrong file fails
    // that search with the file (and line) named, never the worker's start (no crash loop).
    collectionFiles: catalog ? { [TABLE_CATALOG_COLLECTION]: path.resolve(catalog) } : {},
    extraDocuments: library
      ? {
          [config.PROPOSAL_LITERATURE_COLLECTION]: {
            setting: 'LITERATURE_FILE',
            load: () => readBibliography(path.resolve(library)).then((b) => b.documents),
          },
        }
      : {},
  });
  const own = [
    ...(catalog ? [TABLE_CATALOG_COLLECTION] : []),
    ...(library ? [config.PROPOSAL_LITERATURE_COLLECTION] : []),
  ];
  // Embedded while the worker starts polling, not inside the first search; a bad file is said now.
  if (own.length)
    void search.preload(own, (collection, err) =>
      logger('worker').warn(
        { collection, error: errorText(err) },
        'your own search data cannot be used: searches of this collection fail until the file is fixed',
      ),
    );
  return search;
}

/** `http://host:port`, `host:port` or `host` → the client's endpoint options. */
export function parseEndpoint(endpoint: string): { host: string; port?: number; protocol: 'http' | 'https' } {
  const url = new URL(endpoint.includes('://') ? endpoint : `https://${endpoint}`);
  return {
    host: url.hostname,
    port: url.port ? Number(url.port) : undefined,
    protocol: url.protocol === 'http:' ? 'http' : 'https',
  };
}

export async function createBackends(config: Config): Promise<Backends> {
  registerConfiguredSecrets(config);
  const warehouse = await createWarehouse(config);
  const search = await createSearch(config).catch(async (err: unknown) => {
    await warehouse.close();
    throw err;
  });
  const artifacts = await createArtifactStore(config);
  return {
    model: createModel(config),
    warehouse,
    search,
    artifacts,
    config,
    close: () => warehouse.close(),
  };
}

/** The backends' artifact store; a hand-built Backends without one (tests) gets ARTIFACT_DIR's directory. */
export function artifactStoreOf({ artifacts, config }: Pick<Backends, 'artifacts' | 'config'>): ArtifactStore {
  return artifacts ?? new LocalArtifactStore(config?.ARTIFACT_DIR ?? 'out');
}
