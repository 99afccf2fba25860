/**
 * The embedded search index: Orama BM25 full-text search over JSON documents the project ships
 * in `data/search/<collection>.json` (an array of objects with an `id`). Every string anywhere
 * in a document is searchable; the document comes back unchanged as `data`.
 */
import { inSpan } from '../traced';
import { create, insertMultiple, search, type AnyOrama } from '@orama/orama';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { BackendError } from '../errors';
import type { SearchBackend, SearchRequest, SearchResponse } from './types';

const COLLECTION = /^[a-z0-9][a-z0-9_-]{0,63}$/;

function collectText(value: unknown, out: string[]): void {
  if (typeof value === 'string') out.push(value);
  else if (typeof value === 'number') out.push(String(value));
  else if (Array.isArray(value)) value.forEach((v) => collectText(v, out));
  else if (value && typeof value === 'object') {
    for (const [key, v] of Object.entries(value)) {
      out.push(key.replace(/_/g, ' '));
      collectText(v, out);
    }
  }
}

interface LoadedCollection {
  db: AnyOrama;
  docs: Map<string, Record<string, unknown>>;
}

export class EmbeddedSearch implements SearchBackend {
  readonly name = 'embedded';
  private readonly collections = new Map<string, Promise<LoadedCollection>>();

  constructor(private readonly dataDir: string) {}

  /** Adds (or replaces) a collection from documents in memory, e.g. for tests or generated catalogs. */
  async index(collection: string, documents: Array<Record<string, unknown>>): Promise<void> {
    this.collections.set(collection, this.build(collection, documents));
    await this.collections.get(collection);
  }

  search(request: SearchRequest): Promise<SearchResponse> {
    return inSpan(
      'search.request',
      {
        'search.backend': this.name,
        'search.collection': request.collection,
        'search.page_size': request.pageSize ?? 10,
      },
      () => this.searchUntraced(request),
      (response) => ({ 'search.hits': response.hits.length, 'search.total_size': response.totalSize }),
    );
  }

  private async searchUntraced(request: SearchRequest): Promise<SearchResponse> {
    const collection = await this.load(request.collection);
    const result = await search(collection.db, {
      term: request.query,
      properties: ['title', 'text'],
      boost: { title: 2 },
      limit: request.pageSize ?? 10,
    });
    return {
      totalSize: result.count,
      hits: result.hits.map((hit) => ({ id: String(hit.id), score: hit.score, data: collection.docs.get(String(hit.id)) ?? {} })),
    };
  }

  private load(name: string): Promise<LoadedCollection> {
    if (!COLLECTION.test(name)) {
      return Promise.reject(new BackendError(`unknown search collection ${JSON.stringify(name)}`, { backend: 'search', retryable: false, type: 'SearchCollectionUnknown' }));
    }
    let loaded = this.collections.get(name);
    if (!loaded) {
      loaded = readFile(path.join(this.dataDir, `${name}.json`), 'utf8').then(
        (text) => this.build(name, JSON.parse(text) as Array<Record<string, unknown>>),
        () => {
          throw new BackendError(`search collection ${name} not found in ${this.dataDir}`, { backend: 'search', retryable: false, type: 'SearchCollectionUnknown' });
        },
      );
      this.collections.set(name, loaded);
      loaded.catch(() => this.collections.delete(name));
    }
    return loaded;
  }

  private async build(name: string, documents: Array<Record<string, unknown>>): Promise<LoadedCollection> {
    const db = create({ schema: { id: 'string', title: 'string', text: 'string' } as const });
    const docs = new Map<string, Record<string, unknown>>();
    const rows = documents.map((doc, i) => {
      const id = String(doc.id ?? `${name}-${i}`);
      docs.set(id, doc);
      const parts: string[] = [];
      collectText(doc, parts);
      const title = String(doc.title ?? doc.name ?? doc.table_id ?? id);
      return { id, title, text: parts.join(' ') };
    });
    await insertMultiple(db, rows);
    return { db, docs };
  }
}
