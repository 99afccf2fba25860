/**
 * Whether a study from the search is about the research topic, on 40 pairs a fresh helper wrote
 * without reading the rules (test/fixtures/topic-fit/study-pairs.json): 20 studies on a project's
 * topic told in other words, and 20 that share one name with it (the same device put to another
 * use, the same condition in another population) but not its subject. Before the rules read a
 * study's closeness beyond the words it shares with the topic, 8 of the 20 siblings were taken as
 * literature on the topic; the figures were read while the rules were changed, so this is a
 * development set now, kept so that no later change lets such citations back in unnoticed.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { topicFit, type StudyText } from '../../flows/proposal/standin/meaning';
import { describeWithModel } from '../helpers/installed-embedder';

interface StudyPair {
  id: string;
  research_area: string;
  additional_context: string;
  study: StudyText;
  label: 'on' | 'off';
}

const pairs = JSON.parse(
  readFileSync(path.join(__dirname, '..', 'fixtures', 'topic-fit', 'study-pairs.json'), 'utf8'),
) as StudyPair[];

describeWithModel('studies on the topic and studies that only share a name with it', () => {
  it('cites no more than one of the 20 siblings and keeps most studies told in other words', async () => {
    const taken: Record<'on' | 'off', string[]> = { on: [], off: [] };
    for (const p of pairs) {
      const fit = await topicFit(p.study, { research_area: p.research_area, additional_context: p.additional_context });
      if (fit.onTopic) taken[p.label].push(p.id);
    }
    expect(pairs.filter((p) => p.label === 'off')).toHaveLength(20);
    expect(taken.off.length, `siblings taken as on topic: ${taken.off.join(', ')}`).toBeLessThanOrEqual(1);
    // 13 of 20 when this was written; the rest share too little meaning with the topic for MiniLM.
    expect(taken.on.length, `on-topic studies taken: ${taken.on.join(', ')}`).toBeGreaterThanOrEqual(12);
  }, 60_000);
});
