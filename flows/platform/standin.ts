/** Rules for the platform check workflow: summarise search hits and warehouse rows. */
import { ModelTask } from './model-tasks';
import { taskRule, type StandinRule } from '../lib/standin';

export const platformRules: StandinRule[] = [
  taskRule({
    task: ModelTask.platformSummarize,
    description: 'Summarises the search hits and warehouse rows the platform check gathered.',
    answer: ({ sections }) => {
      const hits = Array.isArray(sections.search_hits) ? (sections.search_hits as Array<{ title?: string }>) : [];
      const rows = Array.isArray(sections.warehouse_rows) ? sections.warehouse_rows : [];
      const topic = typeof sections.topic === 'string' ? sections.topic : 'the topic';
      const titles = hits.map((h) => h.title).filter((t): t is string => typeof t === 'string');
      return {
        summary: `Found ${hits.length} ${hits.length === 1 ? 'document' : 'documents'} and ${rows.length} warehouse ${rows.length === 1 ? 'row' : 'rows'} about ${topic}.`,
        highlights: titles.slice(0, 3),
      };
    },
  }),
];
