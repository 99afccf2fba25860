/**
 * The proposal stand-in never cites a study of the bundled collection because it shares one word
 * with the topic in another sense: "trust" between tenants and landlords is not trust in a
 * classifier, twin calves are no digital twin, a substation's transformer is no neural network.
 * The profiles are written for this test (no fixture or eval case); the search is the twelve
 * studies of the collection closest to the research area, as a search engine would rank them, so
 * the shared-word study is among the hits and usually at their top.
 *
 * A rule once let a study in when it named one phrase of the area more distinctly than the rest
 * of the search did; the same rule cited five of these searches' shared-word studies.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { formatTimeline, timelineWeeks, type UserProfile } from '../../flows/proposal/contract';
import { proposalRules } from '../../flows/proposal/standin';
import { restoreEmbedder, useEmbedder } from '../../flows/lib/standin/meaning';
import type { TextEmbedder } from '../../backends/embedding';
import { PROJECT_ROOT } from '../../plumbing/project-root';
import { describeWithModel, installedEmbedder, modelDir } from '../helpers/installed-embedder';

interface Study {
  id: string;
  title: string;
  source?: string;
  year?: number | null;
  snippet?: string;
  abstract?: string;
  keywords?: string[];
}

const collection = JSON.parse(
  readFileSync(path.join(PROJECT_ROOT, 'data', 'search', 'literature.json'), 'utf8'),
) as Study[];

/** Research areas that share a word (in another sense) with a study of the collection, and none of its subject. */
const SHARED_WORD: Array<[area: string, context: string]> = [
  ['Trust between tenants and landlords in private renting', 'I will interview tenants through a renters union.'],
  ['Twin calving rates in dairy herds', 'Farm records of calvings over ten years are available.'],
  ['Transformer failures in rural electricity substations', 'The network operator shares its fault logs.'],
  // Two a fresh reviewer wrote against a rule that cited the one study standing well clear of the
  // rest of the search: a paper on Transformer networks stood 0.16-0.19 clear here.
  ['Power transformer failure prediction', 'The network operator shares its fault logs.'],
  ['Transformer failure prediction for rural electricity substations', 'The network operator shares its fault logs.'],
  ['Agents of change: estate agents and house prices in seaside towns', 'Sale records from the land registry.'],
  ['Weather and footfall at outdoor farmers markets', 'Market stallholders keep daily takings books.'],
  ['Protein intake and muscle recovery in amateur cyclists', 'A cycling club will log meals and ride times for me.'],
  [
    'Bird nesting success at the edge of managed woodlands',
    'I will check nest boxes along forest edges for two springs.',
  ],
  ['Federated states and regional tax policy in Germany', 'Published budgets of the federal states.'],
];

const profile = (research_area: string, additional_context: string): UserProfile => {
  const p: UserProfile = {
    academic_program: "Master's",
    field_of_study: 'Social and natural sciences',
    research_area,
    additional_context,
    weekly_hours: 20,
    total_timeline: { value: 9, unit: 'months' },
    existing_skills: [],
    missing_skills: [],
    constraints: [],
  };
  return {
    ...p,
    timeline_weeks: timelineWeeks(p.total_timeline),
    timeline: formatTimeline(p.total_timeline),
  } as UserProfile;
};

const dot = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
};

describeWithModel('proposal stand-in: one shared word is no shared topic (embedding model installed)', () => {
  let embedder: TextEmbedder;
  let vectors: ArrayLike<number>[];
  beforeAll(async () => {
    embedder = await installedEmbedder(modelDir!);
    useEmbedder(embedder);
    vectors = await embedder.embed(collection.map((c) => `${c.title}. ${(c.keywords ?? []).join(', ')}`));
  });
  afterAll(() => restoreEmbedder());

  it.each(SHARED_WORD)('cites nothing for "%s"', async (area, context) => {
    const [query] = await embedder.embed([area]);
    const hits = collection
      .map((c, i) => ({ c, s: dot(query, vectors[i]) }))
      .sort((a, b) => b.s - a.s)
      .slice(0, 12)
      .map(({ c }) => ({
        id: c.id,
        title: c.title,
        source: c.source ?? '',
        year: c.year ?? null,
        snippet: c.snippet ?? c.abstract ?? '',
        keywords: c.keywords ?? [],
      }));
    const rule = proposalRules.find((r) => r.task === 'proposal.problem_formulation')!;
    const answer = (await rule.answer({
      task: 'proposal.problem_formulation',
      system: '',
      turns: 1,
      responseSchema: undefined,
      sections: { profile: profile(area, context), search_results: hits },
    })) as { literature: Array<{ result_id: string }> };
    expect(answer.literature.map((l) => l.result_id)).toEqual([]);
  });
});
