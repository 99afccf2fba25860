/**
 * Optional descriptions, tags and argument/result schemas for skills (activities), keyed by
 * activity name. Skills are listed from the worker's activities at run time, so an activity
 * without an entry here is still discovered (with a description made from its name and the
 * tag `activity`); an entry only makes it easier to find and call.
 *
 * `args` describes the activity's arguments (JSON Schema `prefixItems`): every activity takes one
 * input object (or none), so there is one item, the object's schema, or none.
 */
import { z } from 'zod';
import { tokenUsageSchema } from '../contracts/common';

export interface SkillMetadata {
  description: string;
  tags: string[];
  args?: z.ZodType[];
  output?: z.ZodType;
}

const topic = z.string().min(1).describe('What to look for');
const limit = z.number().int().min(1).max(50).describe('How many hits or rows');
const topicLookup = z.object({ topic, limit }).describe('The topic and how many hits or rows');

export const skillMetadata: Record<string, SkillMetadata> = {
  describeBackends: {
    description: 'Names the model, warehouse and search backends this worker is configured with.',
    tags: ['platform'],
    args: [],
    output: z.object({ model: z.string(), warehouse: z.string(), search: z.string() }),
  },
  searchPlatformDocs: {
    description: 'Full-text search over the platform demo documents.',
    tags: ['platform', 'search'],
    args: [topicLookup],
    output: z.array(z.object({ id: z.string(), title: z.string(), score: z.number() })),
  },
  queryComponents: {
    description: 'Queries the demo components table (warehouse) for names containing the topic.',
    tags: ['platform', 'warehouse', 'sql'],
    args: [topicLookup],
    output: z.object({ sql: z.string(), rows: z.array(z.record(z.string(), z.unknown())) }),
  },
  summarizeFindings: {
    description: 'Asks the model to summarise search hits and warehouse rows about a topic.',
    tags: ['platform', 'model'],
    args: [
      z
        .object({
          topic,
          documents: z.array(z.object({ title: z.string() })).describe('Documents'),
          rows: z.array(z.unknown()).describe('Warehouse rows'),
        })
        .describe('The findings to summarise'),
    ],
    output: z.object({
      data: z.object({ summary: z.string(), highlights: z.array(z.string()) }),
      usage: tokenUsageSchema,
    }),
  },
};
