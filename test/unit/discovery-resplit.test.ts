import { describe, expect, it } from 'vitest';
import { MAX_SPLITS, splitUnsupplied } from '../../flows/discovery/workflow/resplit';

const col = (name: string) => ({ name, type: 'STRING', description: `${name.replace(/_/g, ' ')} of the record` });
const step = {
  conceptual_group: 'stays, appointments and studies',
  search_query: 'stays appointments studies',
  target_columns_for_validation: ['a', 'b', 'c', 'd', 'e'],
};
const columns = ['a', 'b', 'c', 'd', 'e'].map(col);

describe('re-splitting a step that found no table', () => {
  it('follows where the candidates said the columns can come from, largest part first', () => {
    const parts = splitUnsupplied(step, columns, [{ matched: ['a', 'b'] }, { matched: ['c', 'd', 'a'] }], new Set());
    expect(parts.map((p) => p.target_columns_for_validation)).toEqual([['a', 'c', 'd'], ['b']]);
    expect(parts[0].conceptual_group).toBe('stays, appointments and studies: a, c, d');
    expect(parts[0].search_query).toContain('c (c of the record)');
  });

  it('searches the columns no candidate could supply together, never one alone', () => {
    expect(
      splitUnsupplied(step, columns, [{ matched: ['a', 'b'] }], new Set()).map((p) => p.target_columns_for_validation),
    ).toEqual([
      ['a', 'b'],
      ['c', 'd', 'e'],
    ]);
    expect(
      splitUnsupplied(step, columns, [{ matched: ['a', 'b', 'c', 'd'] }], new Set()).map(
        (p) => p.target_columns_for_validation,
      ),
    ).toEqual([['a', 'b', 'c', 'd']]);
  });

  it('does not split a step that found a table, or repeat the same search', () => {
    expect(splitUnsupplied(step, columns, [{ matched: ['a'] }], new Set(['b']))).toEqual([]);
    expect(splitUnsupplied(step, columns, [], new Set())).toEqual([]);
    expect(splitUnsupplied(step, columns, [{ matched: ['a', 'b', 'c', 'd', 'e'] }], new Set())).toEqual([]);
  });

  it('searches the columns a found table leaves over, all in one search, when asked to', () => {
    const parts = splitUnsupplied(step, columns, [{ matched: ['a', 'b', 'c'] }], new Set(['a', 'b', 'c']), {
      leftovers: true,
    });
    expect(parts.map((p) => p.target_columns_for_validation)).toEqual([['d', 'e']]);
    expect(parts[0].conceptual_group).toBe('stays, appointments and studies: d, e');
    expect(splitUnsupplied(step, columns, [], new Set(['a', 'b', 'c', 'd', 'e']), { leftovers: true })).toEqual([]);
  });

  it('runs at most a few follow-up searches', () => {
    const many = splitUnsupplied(
      step,
      columns,
      ['a', 'b', 'c', 'd', 'e'].map((m) => ({ matched: [m] })),
      new Set(),
    );
    expect(many.length).toBe(MAX_SPLITS);
  });
});
