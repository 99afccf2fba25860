/**
 * A study about the method a researcher works with is literature for the proposal, even when its
 * closeness to the research area comes from the method's name alone (which, for a study of another
 * subject, marks a sibling and keeps it out). The method counts when the researcher lists it as a
 * skill; named only in the area as how the study works ("… with <a kind of model>"), it does not,
 * since its studies of other subjects would then pass for literature on the topic. The profiles
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
    const withSkill = await cited(LIFTS, ['Multi-agent reinforcement learning', 'Building services']);
    expect(withSkill).toEqual(expect.arrayContaining(MARL));
    // Every study cited is one of that method's, by the collection's own keywords.
    const keywordsOf = (id: string) => collection.find((s) => s.id === id)?.keywords ?? [];
    for (const id of withSkill) expect(keywordsOf(id), id).toContain('multi-agent reinforcement learning');
    // The same area from someone who lists only the trade: its closeness to these studies is the
    // method's name alone, which by itself marks a sibling.
    expect(await cited(LIFTS, ['Lift maintenance'])).toEqual([]);
  }, 60_000);

  it("cites a method's studies for a skill said in other words, when they are as near the topic as the floor", async () => {
    // "Multi-agent training methods" names the method less closely than its studies' keywords do
    // (a fair match, not a near-exact one): enough for studies that are also near the topic.
    const fair = await cited(LIFTS, ['Multi-agent training methods', 'Building services']);
    expect(fair).toEqual(expect.arrayContaining(MARL));
    // Every study cited so is one of that method's, by the collection's own keywords.
    const keywordsOf = (id: string) => collection.find((s) => s.id === id)?.keywords ?? [];
    for (const id of fair) expect(keywordsOf(id), id).toContain('multi-agent reinforcement learning');
    // The same skill beside an area only loosely near those studies (below the floor, though above
    // the least a close skill match needs) brings none of them in.
    expect(
      await cited('Several learning lift controllers sharing one tall office tower', ['Multi-agent training methods']),
    ).toEqual([]);
  }, 60_000);

  it('does not count the method the area names as a skill: its studies of other subjects are no literature on the topic', async () => {
    // The area says how the study works, but the researcher lists only the trade: the method's
    // studies are about other things (other games, other machines), and none is cited.
    expect(await cited(LIFTS_WITH, ['Lift maintenance'])).toEqual([]);
    expect(
      await cited('Reading weathered gravestone inscriptions with large language models', ['Local history']),
    ).toEqual([]);
  }, 60_000);
});
