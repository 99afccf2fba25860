/**
 * A study about the method a researcher works with is literature for the proposal, even when its
 * closeness to the research area comes from the method's name alone (which, for a study of another
 * subject, marks a sibling and keeps it out). The method counts when the researcher lists it as a
 * skill, or names it in the area as how the study works ("… with <a kind of model>"). The profiles
 * are invented for this test; the studies are the bundled collection's.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { prefetchTopicFit, topicFit, type StudyText } from '../../flows/proposal/standin/meaning';
import { PROJECT_ROOT } from '../../plumbing/project-root';
import { describeWithModel } from '../helpers/installed-embedder';

const collection = (
  JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'data', 'search', 'literature.json'), 'utf8')) as Array<
    StudyText & { id: string; abstract?: string }
  >
).map((s) => ({ ...s, snippet: String(s.abstract ?? '').slice(0, 400) }));

/** The ids of the collection's studies the stand-in takes as on topic for this profile. */
async function cited(research_area: string, skills: string[]): Promise<string[]> {
  const profile = { research_area, additional_context: '', existing_skills: skills, missing_skills: [] };
  await prefetchTopicFit(collection, profile);
  const on: string[] = [];
  for (const study of collection) if ((await topicFit(study, profile)).onTopic) on.push(study.id);
  return on;
}

const LIFTS = 'Cooperative multi-agent reinforcement learning for scheduling lifts in tall office towers';
const LIFTS_WITH = 'Scheduling lifts in tall office towers with cooperative multi-agent reinforcement learning';
const MARL = ['lit-marl-overview', 'lit-mappo', 'lit-pettingzoo'];

describeWithModel('method literature (embedding model installed)', () => {
  it('cites the studies of a method the researcher lists as a skill, and not without it', async () => {
    expect(await cited(LIFTS, ['Multi-agent reinforcement learning', 'Building services'])).toEqual(
      expect.arrayContaining(MARL),
    );
    // The same area from someone who lists only the trade: its closeness to these studies is the
    // method's name alone, which by itself marks a sibling.
    expect(await cited(LIFTS, ['Lift maintenance'])).toEqual([]);
  }, 60_000);

  it('cites them when the area names the method as how the study works', async () => {
    expect(await cited(LIFTS_WITH, ['Lift maintenance'])).toEqual(expect.arrayContaining(MARL));
    // Without the method, the trade alone finds nothing in a collection of machine-learning,
    // health and education studies.
    expect(await cited('Scheduling lifts in tall office towers', ['Lift maintenance'])).toEqual([]);
  }, 60_000);
});
