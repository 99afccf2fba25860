/**
 * The study that stands apart from the rest of a search's results: cited when it is above the
 * floor and clear of the next study, whatever the reason `topicFit` left it out, and never when
 * it is no closer to the topic than to research in general.
 */
import { describe, expect, it } from 'vitest';
import { LITERATURE, standingApart, type TopicFit } from '../../flows/proposal/standin/meaning';

const fit = (score: number, extra: Partial<TopicFit> = {}): TopicFit => ({ onTopic: false, score, ...extra });
const above = LITERATURE.floor + 0.05;

describe('standingApart', () => {
  it('picks the top study when it is above the floor and clear of the next by the margin', () => {
    expect(standingApart([fit(0.2), fit(above), fit(above - LITERATURE.apart)])).toBe(1);
  });

  it('picks none when the next study is within the margin', () => {
    expect(standingApart([fit(above), fit(above - LITERATURE.apart + 0.01), fit(0.1)])).toBeUndefined();
  });

  it('picks none below the floor, however far apart', () => {
    expect(standingApart([fit(LITERATURE.floor - 0.01), fit(0)])).toBeUndefined();
  });

  it('picks none when the top study reads as research in general, or is already on topic', () => {
    expect(standingApart([fit(above, { general: true }), fit(0)])).toBeUndefined();
    expect(standingApart([fit(above, { onTopic: true }), fit(0)])).toBeUndefined();
  });

  it('needs another result to stand apart from', () => {
    expect(standingApart([fit(0.9)])).toBeUndefined();
    expect(standingApart([])).toBeUndefined();
  });
});
