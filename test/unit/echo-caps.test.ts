/**
 * The one zod issue formatter (contracts/common.ts) caps what it echoes, so an error never carries
 * a caller's whole value: a field path built from a caller's keys, an issue message quoting an
 * unknown key, the number of issues listed, and the whole message. The thin client's validation
 * uses the same formatter.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { InvalidFlowInput, validateFlowInput } from '../../access/flow-client';
import { excerpt, formatZodError, MAX_ECHO_CHARS, MAX_FAILURE_CHARS, zodIssues } from '../../contracts/common';
import { flows } from '../../flows/registry';

const BIG = 'k'.repeat(1_200_000);

describe('echo caps', () => {
  it('caps an unknown key quoted by zod, and a record key in a field path', () => {
    const unknown = z
      .object({ a: z.string() })
      .strict()
      .safeParse({ a: 'x', [BIG]: 1 });
    const [issue] = zodIssues(unknown.error!);
    expect(issue.field).toBe('(input)');
    expect(issue.message).toMatch(/^Unrecognized key/);
    expect(issue.message.length).toBeLessThanOrEqual(MAX_ECHO_CHARS + 40);

    const record = z.record(z.string(), z.number()).safeParse({ [BIG]: 'not a number' });
    const [field] = zodIssues(record.error!);
    expect(field.field.length).toBeLessThanOrEqual(MAX_ECHO_CHARS + 40);
    expect(formatZodError(record.error!).length).toBeLessThan(1000);
  });

  it('lists at most 20 issues and says how many were left out', () => {
    const many = z
      .object({})
      .strict()
      .safeParse(Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`key${i}${'x'.repeat(100)}`, i])));
    const text = formatZodError(many.error!);
    expect(text.length).toBeLessThanOrEqual(MAX_FAILURE_CHARS + 40);
    const perKey = z.object({ a: z.array(z.number()) }).safeParse({ a: Array.from({ length: 500 }, () => 'x') });
    expect(zodIssues(perKey.error!)).toHaveLength(20);
    expect(formatZodError(perKey.error!)).toMatch(/and 480 more issue\(s\)$/);
  });

  it('quotes strings and other values as a short excerpt', () => {
    expect(excerpt('abc')).toBe('"abc"');
    expect(excerpt(BIG)).toMatch(/^"k{200}… \(1200000 characters\)"$/);
    expect(excerpt({ a: BIG }).length).toBeLessThan(260);
    expect(excerpt(undefined)).toBe('undefined');
  });

  it('the thin client refuses a 1.2 MB unknown key with a short message, for every flow', () => {
    for (const flow of flows) {
      let error: unknown;
      try {
        validateFlowInput(flow, { ...(flow.examples[0] as object), [BIG]: 1 });
      } catch (err) {
        error = err;
      }
      expect(error, flow.type).toBeInstanceOf(InvalidFlowInput);
      expect((error as Error).message.length, flow.type).toBeLessThan(3000);
      expect(JSON.stringify((error as InvalidFlowInput).issues).length, flow.type).toBeLessThan(3000);
    }
  });
});
