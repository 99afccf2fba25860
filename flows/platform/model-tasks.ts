/**
 * The platform check's model task and the sections of its prompt (see contracts/model-tasks.ts).
 */
export interface PlatformSummarizeSections {
  topic: string;
  search_hits: Array<{ title: string }>;
  warehouse_rows: unknown[];
}

/** Every task id this flow's prompts carry (`Task: <id>`); each has a stand-in rule in ./standin.ts. */
export const ModelTask = {
  platformSummarize: 'platform.summarize',
} as const;

declare module '../../contracts/model-tasks' {
  interface ModelTaskSections {
    'platform.summarize': PlatformSummarizeSections;
  }
}
