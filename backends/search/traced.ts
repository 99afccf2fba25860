import { inSpan } from '../traced';
import type { SearchRequest, SearchResponse } from './types';

/** Runs one search in a span with the same attributes whichever engine answers it. */
export function tracedSearch(
  backend: string,
  request: SearchRequest,
  run: () => Promise<SearchResponse>,
): Promise<SearchResponse> {
  return inSpan(
    'search.request',
    {
      'search.backend': backend,
      'search.collection': request.collection,
      'search.page_size': request.pageSize ?? 10,
    },
    run,
    (response) => ({ 'search.hits': response.hits.length, 'search.total_size': response.totalSize }),
  );
}
