/**
 * Vertex AI Search on `@google-cloud/discoveryengine`'s SearchServiceClient. REST fallback mode
 * is used so one code path serves Google and the local wire fakes. Structured data comes back
 * in protobuf Struct form and is converted to plain JSON, so results look like the embedded index's.
 */
import { SearchServiceClient } from '@google-cloud/discoveryengine';
import { GoogleAuth } from 'google-auth-library';
import { AsyncLocalStorage } from 'node:async_hooks';
import { BackendError, isRetryableStatus, isTransportError, untilAborted } from '../errors';
import { tracedSearch } from './traced';
import type { SearchBackend, SearchRequest, SearchResponse } from './types';
import { FailureType } from '../../contracts/failures';
import { hitData } from './vertex-data';

export interface VertexSearchOptions {
  project: string;
  location: string;
  dataStorePrefix: string;
  servingConfigs: Record<string, string>;
  /** host[:port][ protocol] override, for tests and private endpoints. */
  apiEndpoint?: { host: string; port?: number; protocol?: 'http' | 'https' };
  authClient?: unknown;
}

/** The abort signal of the search in progress, for the HTTP layer below the generated client. */
const requestSignal = new AsyncLocalStorage<AbortSignal>();

type FetchingAuth = { fetch: (input: unknown, init?: { signal?: AbortSignal } & Record<string, unknown>) => unknown };

/**
 * The generated client hides the request's own abort controller, so the auth object that sends
 * every REST request (`auth.fetch`) also listens to the signal of the search that made it.
 */
function abortableAuth<T extends FetchingAuth>(auth: T): T {
  const fetch = auth.fetch.bind(auth);
  auth.fetch = (input, init = {}) => {
    const signal = requestSignal.getStore();
    if (!signal) return fetch(input, init);
    return fetch(input, { ...init, signal: init.signal ? AbortSignal.any([init.signal, signal]) : signal });
  };
  return auth;
}

export class VertexSearch implements SearchBackend {
  readonly name = 'vertex';
  private readonly client: SearchServiceClient;

  constructor(private readonly options: VertexSearchOptions) {
    this.client = new SearchServiceClient({
      fallback: true,
      ...(options.apiEndpoint
        ? {
            apiEndpoint: options.apiEndpoint.host,
            port: options.apiEndpoint.port,
            protocol: options.apiEndpoint.protocol ?? 'https',
          }
        : {}),
      auth: abortableAuth(
        (options.authClient as FetchingAuth | undefined) ??
          (new GoogleAuth({ scopes: ['https://www.googleapis.com/auth/cloud-platform'] }) as unknown as FetchingAuth),
      ) as never,
    });
  }

  servingConfig(collection: string): string {
    const { project, location, dataStorePrefix, servingConfigs } = this.options;
    return (
      servingConfigs[collection] ??
      `projects/${project}/locations/${location}/collections/default_collection/dataStores/${dataStorePrefix}${collection}/servingConfigs/default_search`
    );
  }

  search(request: SearchRequest): Promise<SearchResponse> {
    return tracedSearch(this.name, request, () => this.searchUntraced(request));
  }

  private async searchUntraced(request: SearchRequest): Promise<SearchResponse> {
    try {
      const call = requestSignal.run(request.signal as AbortSignal, () =>
        this.client.search(
          {
            servingConfig: this.servingConfig(request.collection),
            query: request.query,
            pageSize: request.pageSize ?? 10,
          },
          { autoPaginate: false },
        ),
      );
      // The request itself is aborted through the auth's fetch; this ends the wait at once.
      const [results, , response] = await untilAborted(request.signal, call, () => undefined);
      const list = results ?? [];
      return {
        totalSize: Number(response?.totalSize ?? list.length),
        hits: list.map((r, i) => {
          const doc = r.document ?? {};
          const data = hitData(doc);
          // Vertex ranks but does not always return a score: keep order as relevance.
          const score = Number(
            (r as { modelScores?: Record<string, { values?: number[] }> }).modelScores?.relevance_score?.values?.[0] ??
              list.length - i,
          );
          return { id: String(r.id ?? doc.id ?? i), score, data };
        }),
      };
    } catch (err) {
      if (request.signal?.aborted) throw err;
      const e = err as { code?: number; message?: string };
      // gRPC status codes from the fallback client: 8 RESOURCE_EXHAUSTED, 14 UNAVAILABLE, 4 DEADLINE_EXCEEDED, 13 INTERNAL.
      const grpcRetryable = e.code === 8 || e.code === 14 || e.code === 4 || e.code === 13 || e.code === 10;
      const httpStatus = typeof e.code === 'number' && e.code >= 100 ? e.code : undefined;
      // A body that is not JSON comes from a proxy or a cut response: worth another attempt.
      const garbled = (err as Error)?.name === 'SyntaxError' || /JSON/i.test(e.message ?? '');
      const retryable =
        garbled ||
        grpcRetryable ||
        (httpStatus !== undefined && isRetryableStatus(httpStatus)) ||
        (e.code === undefined && isTransportError(err));
      throw new BackendError(
        `Vertex AI Search ${retryable ? 'unavailable' : 'rejected the request'} for ${request.collection}: ${e.message ?? String(err)}`,
        {
          backend: 'search',
          retryable,
          type: retryable ? FailureType.SearchUnavailable : FailureType.SearchRequestRejected,
          status: httpStatus,
          cause: err,
        },
      );
    }
  }
}
