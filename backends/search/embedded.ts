/**
 * The embedded search index: Orama over JSON documents the project ships in
 * `data/search/<collection>.json` (an array of objects with an `id`). Every string anywhere in a
 * document is searchable; the document comes back unchanged as `data`.
 *
 * With a sentence-embedding model (backends/embedding) the index is hybrid, as Vertex AI Search
 * is: each document also gets a vector of its text, and a query ranks by BM25 and by meaning
 * together, so "weekly sales expectations" finds a table described as a "demand forecast". With
 * no model it is BM25 alone. Vector matches count only above MIN_SIMILARITY: a query about
 * something the collection does not hold should still find little or nothing.
 */
import { create, insertMultiple, search, type AnyOrama } from '@orama/orama';
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { BackendError } from '../errors';
import { keepNewest, type TextEmbedder } from '../embedding';
import { tracedSearch } from './traced';
import type { SearchBackend, SearchRequest, SearchResponse } from './types';
import { FailureType } from '../../contracts/failures';

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

/** Keys whose values say nothing about meaning (ids, SQL types) and only cost the model's 256 tokens. */
const NOT_MEANING = new Set(['id', 'type', 'mode']);

/** The text a document's vector is made from: its title, then every meaningful string in it. */
export function meaningText(title: string, doc: Record<string, unknown>): string {
  const out: string[] = [title];
  const walk = (value: unknown, key?: string): void => {
    if (key && NOT_MEANING.has(key)) return;
    if (typeof value === 'string') {
      if (value !== title) out.push(value.replace(/_/g, ' '));
    } else if (Array.isArray(value)) value.forEach((v) => walk(v));
    else if (value && typeof value === 'object') Object.entries(value).forEach(([k, v]) => walk(v, k));
  };
  walk(doc);
  return out.join('. ');
}

/** Cosine similarity below which a document does not count as meaning the same as the query. */
export const MIN_SIMILARITY = 0.3;

interface LoadedCollection {
  db: AnyOrama;
  docs: Map<string, Record<string, unknown>>;
  embedder?: TextEmbedder;
}

export interface EmbeddedSearchOptions {
  /** The embedder to rank by meaning with, resolved on first use; undefined: keyword search only. */
  embedder?: () => Promise<TextEmbedder | undefined>;
  /**
   * Where document vectors are kept between runs (the bundled collections do not change, and
   * embedding them costs seconds on a busy machine). Files are keyed by the texts and the model.
   */
  vectorCacheDir?: string;
  /**
   * Collections read from another file than `<dataDir>/<collection>.json`, e.g. the table catalog
   * imported from the user's own warehouse (SEARCH_CATALOG). The file replaces the bundled one.
   */
  collectionFiles?: Record<string, string>;
  /**
   * Documents added to a collection beside its file's, e.g. the researcher's own library
   * (LITERATURE_FILE). `setting` names where they come from in errors.
   */
  extraDocuments?: Record<string, { setting: string; load: () => Promise<Array<Record<string, unknown>>> }>;
}

/** Bumped whenever vectors of the same texts would come out different (e.g. how texts are batched). */
const VECTOR_FORMAT = 'one-text-per-run';

/** Document vectors of one collection, from the cache when the same texts were embedded before. */
async function documentVectors(
  embedder: TextEmbedder,
  texts: string[],
  cacheDir: string | undefined,
  name: string,
): Promise<Float32Array[]> {
  const key = createHash('sha256')
    .update(`${embedder.name} ${VECTOR_FORMAT}`)
    .update('\0')
    .update(texts.join('\0'))
    .digest('hex')
    .slice(0, 24);
  const file = cacheDir ? path.join(cacheDir, `${name}.${key}.f32`) : undefined;
  const dims = embedder.dimensions;
  if (file) {
    try {
      const buf = await readFile(file);
      if (buf.length === texts.length * dims * 4) {
        const all = new Float32Array(buf.buffer, buf.byteOffset, buf.length / 4);
        return texts.map((_, i) => all.slice(i * dims, (i + 1) * dims));
      }
    } catch {
      // Not cached yet.
    }
  }
  const vectors = await embedder.embed(texts);
  if (file) {
    try {
      await mkdir(cacheDir!, { recursive: true });
      const all = new Float32Array(texts.length * dims);
      vectors.forEach((v, i) => all.set(v, i * dims));
      const tmp = `${file}.${process.pid}.tmp`;
      await writeFile(tmp, Buffer.from(all.buffer));
      await rename(tmp, file);
      await pruneVectorCache(cacheDir!, name);
    } catch {
      // A read-only install only costs the next start the same embedding time.
    }
  }
  return vectors;
}

/** Cache files a collection keeps: the one just written and the one before it. */
const VECTOR_FILES_KEPT = 2;

/**
 * Removes a collection's older cache files. A collection that changes while the worker runs
 * (the BOM's learned query patterns: a new file with every pattern) would otherwise leave one
 * file per version behind, each as large as the collection. The one before the newest stays for
 * a worker of the previous release sharing the folder during a deploy; losing a file only costs
 * its embedding time again.
 */
async function pruneVectorCache(cacheDir: string, name: string): Promise<void> {
  const ownFile = new RegExp(`^${name.replace(/[^A-Za-z0-9_-]/g, '\\$&')}\\.[0-9a-f]{24}\\.f32$`);
  await keepNewest(cacheDir, (f) => ownFile.test(f), VECTOR_FILES_KEPT);
}

export class EmbeddedSearch implements SearchBackend {
  readonly name = 'embedded';
  private readonly collections = new Map<string, Promise<LoadedCollection>>();

  constructor(
    private readonly dataDir: string,
    private readonly options: EmbeddedSearchOptions = {},
  ) {}

  /** Adds (or replaces) a collection from documents in memory, e.g. for tests or generated catalogs. */
  async index(collection: string, documents: Array<Record<string, unknown>>): Promise<void> {
    this.collections.set(collection, this.build(collection, documents));
    await this.collections.get(collection);
  }

  /**
   * Starts building collections now, e.g. the user's own catalog and library at worker start: a
   * few thousand documents take tens of seconds to embed the first time, longer than a search
   * activity waits. A search meanwhile waits for the same build; a failed build is reported to
   * `onError` and tried again by the next search, which then fails with the same clear error.
   */
  preload(names: string[], onError: (collection: string, err: unknown) => void = () => undefined): Promise<void> {
    return Promise.all(
      names.map((name) =>
        this.load(name).then(
          () => undefined,
          (err: unknown) => onError(name, err),
        ),
      ),
    ).then(() => undefined);
  }

  search(request: SearchRequest): Promise<SearchResponse> {
    return tracedSearch(this.name, request, () => this.searchUntraced(request));
  }

  private async searchUntraced(request: SearchRequest): Promise<SearchResponse> {
    const collection = await this.load(request.collection);
    const limit = request.pageSize ?? 10;
    const base = { term: request.query, properties: ['title', 'text'], boost: { title: 2 }, limit };
    const result = collection.embedder
      ? await search(collection.db, {
          ...base,
          mode: 'hybrid',
          vector: { value: (await collection.embedder.embed([request.query]))[0], property: 'embedding' },
          similarity: MIN_SIMILARITY,
          hybridWeights: { text: 0.4, vector: 0.6 },
        } as never)
      : await search(collection.db, base as never);
    return {
      totalSize: result.count,
      hits: result.hits.map((hit) => ({
        id: String(hit.id),
        score: hit.score,
        data: collection.docs.get(String(hit.id)) ?? {},
      })),
    };
  }

  private load(name: string): Promise<LoadedCollection> {
    if (!COLLECTION.test(name)) {
      return Promise.reject(
        new BackendError(`unknown search collection ${JSON.stringify(name)}`, {
          backend: 'search',
          retryable: false,
          type: FailureType.SearchCollectionUnknown,
        }),
      );
    }
    let loaded = this.collections.get(name);
    if (!loaded) {
      loaded = this.readCollection(name).then((documents) => this.build(name, documents));
      this.collections.set(name, loaded);
      loaded.catch(() => this.collections.delete(name));
    }
    return loaded;
  }

  /** The collection's documents: its file (bundled, or configured instead), then any added ones. */
  private async readCollection(name: string): Promise<Array<Record<string, unknown>>> {
    const configured = this.options.collectionFiles?.[name];
    const file = configured ?? path.join(this.dataDir, `${name}.json`);
    const unusable = (detail: string) =>
      new BackendError(
        configured
          ? `search collection ${name}: ${path.basename(file)}: ${detail}`
          : `search collection ${name} not found in ${this.dataDir}`,
        { backend: 'search', retryable: false, type: FailureType.SearchCollectionUnknown },
      );
    const text = await readFile(file, 'utf8').catch(() => {
      throw unusable('cannot be read');
    });
    let documents: unknown;
    try {
      documents = JSON.parse(text);
    } catch (err) {
      throw unusable(`not JSON (${(err instanceof Error ? err.message : String(err)).slice(0, 120)})`);
    }
    if (!Array.isArray(documents) || documents.some((d) => !d || typeof d !== 'object' || Array.isArray(d)))
      throw unusable('expected an array of documents');
    const extra = this.options.extraDocuments?.[name];
    if (!extra) return documents as Array<Record<string, unknown>>;
    const added = await extra.load().catch((err: unknown) => {
      // The user's file is wrong: no retry mends it, and the message says which file and line.
      throw new BackendError(`${extra.setting}: ${err instanceof Error ? err.message : String(err)}`, {
        backend: 'search',
        retryable: false,
        type: FailureType.SearchCollectionUnknown,
        cause: err,
      });
    });
    return [...(documents as Array<Record<string, unknown>>), ...added];
  }

  private async build(name: string, documents: Array<Record<string, unknown>>): Promise<LoadedCollection> {
    const embedder = await this.options.embedder?.();
    const schema = {
      id: 'string',
      title: 'string',
      text: 'string',
      ...(embedder ? { embedding: `vector[${embedder.dimensions}]` } : {}),
    } as const;
    const db = create({ schema: schema as never });
    const docs = new Map<string, Record<string, unknown>>();
    const rows = documents.map((doc, i) => {
      const id = String(doc.id ?? `${name}-${i}`);
      docs.set(id, doc);
      const parts: string[] = [];
      collectText(doc, parts);
      const title = String(doc.title ?? doc.name ?? doc.table_id ?? id);
      return { id, title, text: parts.join(' '), meaning: meaningText(title, doc) };
    });
    const vectors = embedder
      ? await documentVectors(
          embedder,
          rows.map((r) => r.meaning),
          this.options.vectorCacheDir,
          name,
        )
      : [];
    await insertMultiple(
      db,
      rows.map(({ meaning: _meaning, ...row }, i) =>
        embedder ? { ...row, embedding: Array.from(vectors[i]) } : row,
      ) as never,
    );
    return { db, docs, embedder };
  }
}
