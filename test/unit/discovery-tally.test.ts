/** `discoverFromPrp`'s bookkeeping without Temporal: the progress line and a step's verdicts. */
import { describe, expect, it } from 'vitest';
import { zeroUsage } from '../../contracts/common';
import type { CandidateTable, SearchStep } from '../../flows/discovery/contract';
import { DiscoveryTally, sortVerdicts } from '../../flows/discovery/workflow/discovery-tally';

const step = {
  conceptual_group: 'orders',
  search_query: 'order tables',
  target_columns_for_validation: [],
} as unknown as SearchStep;
const candidate = (table_id: string) => ({ dataset_id: 'shop', table_id }) as unknown as CandidateTable;
const answer = (is_good_fit: boolean, relevance_score: number) => ({
  data: { is_good_fit, relevance_score, reasoning: is_good_fit ? 'fits' : 'no order id', matched_columns: [] },
  usage: { ...zeroUsage(), totalTokens: 5, calls: 1 },
});

describe('DiscoveryTally', () => {
  it('says what was planned, searched, validated and found, with failures only when there are some', () => {
    const tally = new DiscoveryTally();
    expect(tally.line()).toBe('0 step(s) planned · 0/0 searched · 0/0 validated · 0 fit');
    Object.assign(tally.counts, {
      planned: 3,
      searched: 1,
      searchesFailed: 1,
      candidates: 4,
      validated: 2,
      validationsFailed: 1,
      fits: 1,
    });
    expect(tally.line()).toBe('3 step(s) planned · 2/3 searched (1 failed) · 3/4 validated (1 failed) · 1 fit');
  });
});

describe('sortVerdicts', () => {
  it('keeps fits best first, rejects the rest, and fails closed on a validation error', () => {
    const sorted = sortVerdicts(step, [
      { candidate: candidate('a'), answer: answer(true, 0.5), error: undefined },
      { candidate: candidate('b'), answer: answer(true, 0.9), error: undefined },
      { candidate: candidate('c'), answer: answer(false, 0.7), error: undefined },
      { candidate: candidate('d'), answer: undefined, error: 'model down' },
    ]);
    expect(sorted.discovered.map((t) => t.relevance_score)).toEqual([0.9, 0.5]);
    expect(sorted.rejected).toEqual([
      expect.objectContaining({ outcome: 'not_a_fit', reason: 'no order id', relevance_score: 0.7 }),
      expect.objectContaining({
        outcome: 'validation_error',
        reason: 'validation failed: model down',
        relevance_score: null,
      }),
    ]);
    expect(sorted.usage.totalTokens).toBe(15);
  });

  it('keeps only the step’s target columns among the matched ones, whatever the verdict claims', () => {
    const ordersStep = { ...step, target_columns_for_validation: ['order_id', 'total'] } as SearchStep;
    const claimed = answer(true, 0.8);
    claimed.data.matched_columns = ['order_id', 'password', 'total'] as never;
    const sorted = sortVerdicts(ordersStep, [{ candidate: candidate('a'), answer: claimed, error: undefined }]);
    expect(sorted.discovered[0].matched_columns).toEqual(['order_id', 'total']);
  });
});
