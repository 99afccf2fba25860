export interface SearchHit {
  id: string;
  /** Relevance as the engine reports it (BM25 for the embedded index); higher is better. */
  score: number;
  /** The document's structured data as plain JSON. */
  data: Record<string, unknown>;
}

export interface SearchRequest {
  /** Which index: a data store on Vertex AI Search, a file under data/search/ for the embedded index. */
  collection: string;
  query: string;
  pageSize?: number;
  /** Aborts the request in flight (the activity was cancelled). */
  signal?: AbortSignal;
}

export interface SearchResponse {
  hits: SearchHit[];
  totalSize: number;
}

/** Document search: Vertex AI Search, or the embedded in-process index. */
export interface SearchBackend {
  readonly name: string;
  search(request: SearchRequest): Promise<SearchResponse>;
}
