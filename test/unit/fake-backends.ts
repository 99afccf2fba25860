/**
 * Fake backends for activity unit tests: the model answers from a function of the request (and
 * records every request), the warehouse and the search return what the test gives them.
 */
import type { z } from 'zod';
import type { Backends } from '../../backends';
import type { ModelBackend, ModelRequest } from '../../backends/model/types';
import type { SearchBackend } from '../../backends/search/types';
import type { Warehouse } from '../../backends/warehouse/types';

export interface FakeModel extends ModelBackend {
  requests: Array<ModelRequest<z.ZodType>>;
}

/** A model whose reply is `answer(request)`, validated against the request's schema as Gemini's adapter does. */
export function fakeModel(answer: (request: ModelRequest<z.ZodType>) => unknown): FakeModel {
  const requests: Array<ModelRequest<z.ZodType>> = [];
  return {
    name: 'fake',
    requests,
    async generate<S extends z.ZodType>(request: ModelRequest<S>) {
      requests.push(request);
      const data = request.schema.parse(await answer(request)) as z.output<S>;
      return {
        data,
        usage: { promptTokens: 10, outputTokens: 5, totalTokens: 15, calls: 1 },
        model: 'fake',
        repairs: 0,
      };
    },
  };
}

/** Backends for one activity factory: the parts a test does not give throw when touched. */
export function fakeBackends(parts: { model?: ModelBackend; warehouse?: Warehouse; search?: SearchBackend }): Backends {
  const missing = (what: string) =>
    new Proxy({} as never, {
      get: (_t, key) => {
        if (key === 'then') return undefined;
        throw new Error(`the test gave no ${what} (read ${String(key)})`);
      },
    });
  return {
    model: parts.model ?? missing('model'),
    warehouse: parts.warehouse ?? missing('warehouse'),
    search: parts.search ?? missing('search'),
    close: async () => {},
  };
}
