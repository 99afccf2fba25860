/**
 * `platformCheck`: the smallest real workflow that touches all three backends through
 * activities. It proves a stack end to end (search → warehouse → model) before any flow runs.
 */
import { z } from 'zod';
import { oneLine, slugify, tokenUsageSchema, type FlowDefinition } from '../../contracts/common';

export const platformCheckInput = z
  .object({
    topic: z
      .string()
      .trim()
      .min(1, 'topic must not be empty')
      .max(200)
      .describe('What to look for in the demo documents and table'),
    /** How many search hits and rows to gather. */
    limit: z.number().int().min(1).max(50).default(5),
  })
  .strict();

export const platformCheckOutput = z.object({
  topic: z.string(),
  backends: z.object({ model: z.string(), warehouse: z.string(), search: z.string() }),
  documents: z.array(z.object({ id: z.string(), title: z.string(), score: z.number() })),
  rows: z.array(z.record(z.string(), z.unknown())),
  sql: z.string(),
  summary: z.string(),
  highlights: z.array(z.string()),
  usage: tokenUsageSchema,
});
export type PlatformCheckInput = z.output<typeof platformCheckInput>;
export type PlatformCheckOutput = z.output<typeof platformCheckOutput>;

export const platformCheckFlow: FlowDefinition<typeof platformCheckInput, typeof platformCheckOutput> = {
  type: 'platformCheck',
  slug: 'platform-check',
  mcpTool: 'platform_check',
  title: 'Platform check',
  description:
    'Searches the demo documents, queries the demo warehouse table and asks the model ' +
    'to summarise: one activity per backend.',
  tags: ['platform', 'smoke-test'],
  input: platformCheckInput,
  output: platformCheckOutput,
  idKey: (input) => slugify(input.topic, 30),
  summary: (input) => `Platform check on “${oneLine(input.topic, 80)}”`,
  describeResult: (out) => [
    out.summary,
    `backends: model=${out.backends.model}, warehouse=${out.backends.warehouse}, search=${out.backends.search}`,
    `documents: ${out.documents.map((d) => d.title).join('; ') || '(none)'}`,
    `rows: ${out.rows.length}, tokens: ${out.usage.totalTokens}`,
  ],
  examples: [{ topic: 'battery', limit: 5 }],
};
