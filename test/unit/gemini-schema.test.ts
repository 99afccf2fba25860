/**
 * Response schemas within the subset Gemini supports: what `toResponseSchema` sends, the check the
 * stand-in applies to every request, and the largest schemas the project builds (the EADS
 * refinement schemas, one per EADS of the bundled library) measured against the limits.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { cachedLibrary } from '../../flows/eads/activities/library';
import { DATA_DIR } from '../../backends';
import { toResponseSchema } from '../../backends/model/gemini';
import {
  GEMINI_SCHEMA_LIMITS,
  geminiSchemaFigures,
  geminiSchemaProblems,
  toGeminiSchema,
} from '../../backends/model/gemini-schema';
import { refinementSchema } from '../../domain/eads-structure';

describe('the JSON Schema subset Gemini takes', () => {
  it('sends only supported keywords: string lengths, patterns, constants and defaults stay with zod', () => {
    const sent = toResponseSchema(
      z.object({
        code: z
          .string()
          .regex(/^[A-Z]+$/)
          .min(2)
          .max(8),
        kind: z.literal('part'),
        count: z.number().int().min(0).max(10).default(1),
        tags: z.array(z.string()).max(3),
        status: z.enum(['open', 'closed']).nullable(),
      }),
    );
    expect(geminiSchemaProblems(sent)).toEqual([]);
    const text = JSON.stringify(sent);
    for (const dropped of ['pattern', 'minLength', 'maxLength', '"const"', '"default"', '$schema'])
      expect(text).not.toContain(dropped);
    expect(sent).toMatchObject({
      type: 'object',
      required: expect.arrayContaining(['code', 'kind', 'tags', 'status']),
      properties: { count: { minimum: 0, maximum: 10 }, tags: { maxItems: 3 } },
    });
  });

  it('names what Gemini would refuse: unknown keywords, $ref with siblings, odd enums, depth and size', () => {
    expect(geminiSchemaProblems({ type: 'string', pattern: '^a' })).toEqual([
      '(schema): keyword "pattern" is not supported',
    ]);
    expect(geminiSchemaProblems({ properties: { a: { $ref: '#/$defs/x', description: 'x' } } })).toEqual([
      '(schema).properties.a: $ref with other keywords (description)',
    ]);
    expect(geminiSchemaProblems({ enum: ['a', true] })).toEqual(['(schema): enum values must be strings or numbers']);
    let deep: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < GEMINI_SCHEMA_LIMITS.maxDepth + 1; i++) deep = { type: 'array', items: deep };
    expect(geminiSchemaProblems(deep)).toEqual([expect.stringMatching(/^nesting depth 13 exceeds 12$/)]);
    const wide = {
      type: 'object',
      properties: Object.fromEntries(
        Array.from({ length: 500 }, (_, i) => [`field_${i}`, { type: 'string', description: 'x'.repeat(60) }]),
      ),
    };
    expect(geminiSchemaProblems(wide)).toEqual([
      expect.stringMatching(/bytes, over 32000$/),
      '500 properties in all, over 400',
    ]);
    // What toGeminiSchema makes of the same schemas is accepted, apart from size.
    expect(geminiSchemaProblems(toGeminiSchema({ type: 'string', pattern: '^a' }))).toEqual([]);
    expect(
      geminiSchemaProblems(toGeminiSchema({ properties: { a: { $ref: '#/$defs/x', description: 'x' } } })),
    ).toEqual([]);
  });

  it('keeps every EADS refinement schema (the largest the project sends) within the limits', () => {
    const library = cachedLibrary([path.join(DATA_DIR, 'eads')])();
    expect(library.eads.length).toBeGreaterThan(5);
    let largest = { id: '', depth: 0, bytes: 0, properties: 0 };
    for (const eads of library.eads) {
      const sent = toResponseSchema(
        z.object({
          update: refinementSchema(eads.example),
          commit_notes: z.string().max(2000),
          exhausted: z.boolean(),
        }),
      );
      expect(geminiSchemaProblems(sent), eads.id).toEqual([]);
      const figures = geminiSchemaFigures(sent);
      if (figures.bytes > largest.bytes) largest = { id: eads.id, ...figures };
    }
    if (process.env.PRINT_SCHEMA_FIGURES) console.log(largest);
    // The headroom is what keeps a larger EADS from tripping Google's limit unnoticed.
    expect(largest.bytes).toBeLessThan(GEMINI_SCHEMA_LIMITS.maxBytes);
    expect(largest.depth).toBeLessThanOrEqual(GEMINI_SCHEMA_LIMITS.maxDepth);
  });
});
