import { z } from 'zod';
import type { Backends } from '../../backends';
import type { PlatformCheckInput } from './contract';
import { ModelTask } from './model-tasks';
import { acceptingLegacyPositionalArgs, askModel, backendCall } from '../lib/activities/support';

/** The platform.summarize reply. */
export const summarySchema = z.object({
  summary: z.string().min(1),
  highlights: z.array(z.string()).max(5),
});

/** What the search and the warehouse query look for: the check's topic, and how many hits or rows. */
export type TopicLookup = Pick<PlatformCheckInput, 'topic' | 'limit'>;

/** What the summary is made of: the topic, the documents found and the warehouse rows. */
export interface PlatformFindings {
  topic: string;
  documents: Array<{ title: string }>;
  rows: unknown[];
}

/** The platform check's steps, one per backend. */
export function createPlatformActivities({ model, warehouse, search }: Backends) {
  return {
    async describeBackends() {
      return { model: model.name, warehouse: warehouse.name, search: search.name };
    },

    searchPlatformDocs: acceptingLegacyPositionalArgs(
      async ({ topic, limit }: TopicLookup) => {
        const { hits } = await backendCall((signal) =>
          search.search({ signal, collection: 'platform-docs', query: topic, pageSize: limit }),
        );
        return hits.map((h) => ({ id: h.id, title: String(h.data.title ?? h.id), score: h.score }));
      },
      (topic: string, limit: number): TopicLookup => ({ topic, limit }),
    ),

    queryComponents: acceptingLegacyPositionalArgs(
      async ({ topic, limit }: TopicLookup) => {
        const d = warehouse.dialect;
        // The workflow validated `limit` (integer 1..50); clamp again here, since it is the one value written into the SQL text.
        const rowLimit = Math.max(1, Math.min(50, Math.trunc(Number(limit)) || 1));
        const sql = `SELECT ${d.column('part_number')}, ${d.column('name')}, ${d.column('category')} FROM ${d.table('platform_demo', 'components')} WHERE ${d.containsText(`LOWER(${d.column('name')})`, 'topic')} ORDER BY ${d.column('part_number')} LIMIT ${rowLimit}`;
        const { rows } = await backendCall((signal) =>
          warehouse.query({ signal, sql, params: { topic: topic.toLowerCase() }, label: 'platform-check' }),
        );
        return { sql, rows };
      },
      (topic: string, limit: number): TopicLookup => ({ topic, limit }),
    ),

    summarizeFindings: acceptingLegacyPositionalArgs(
      async ({ topic, documents, rows }: PlatformFindings) =>
        askModel(model, {
          task: ModelTask.platformSummarize,
          instructions:
            'Summarise in one sentence what the documents and warehouse rows say about the ' +
            'topic, and list up to three highlights (document titles).',
          sections: { topic, search_hits: documents, warehouse_rows: rows },
          schema: summarySchema,
        }),
      (topic: string, documents: PlatformFindings['documents'], rows: unknown[]): PlatformFindings => ({
        topic,
        documents,
        rows,
      }),
    ),
  };
}
