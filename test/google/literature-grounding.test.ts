/**
 * Literature from the web: with Gemini, the proposal's literature search is grounding with Google
 * Search, and only the pages in the response's grounding metadata become search results, so the
 * proposal can only cite what Google Search returned. Offline (the stand-in), the collection.
 */
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Backends } from '../../backends';
import { GeminiModel } from '../../backends/model/gemini';
import type { SearchBackend } from '../../backends/search/types';
import { createProposalActivities } from '../../flows/proposal/activities';
import type { UserProfile } from '../../flows/proposal/contract';
import { startGeminiFake, type GeminiFake } from '../fakes/gemini';

const profile = {
  field_of_study: 'Ecology',
  research_area: 'pollinator decline in urban green spaces',
  additional_context: null,
} as unknown as UserProfile;

/** Runs a step in the SDK's mock activity context (heartbeats, cancellation signal). */
const inActivity = <R>(step: () => Promise<R>): Promise<R> => new MockActivityEnvironment().run(step) as Promise<R>;

describe('literature from Google Search grounding', () => {
  let fake: GeminiFake;
  let searched: string[];
  const corpus: SearchBackend = {
    name: 'embedded',
    search: async (request) => {
      searched.push(request.query);
      return {
        totalSize: 1,
        hits: [{ id: 'corpus-1', score: 1, data: { title: 'Bundled study', url: 'https://example.org/bundled' } }],
      };
    },
  };
  const model = (webSearch: boolean) =>
    new GeminiModel({
      label: 'gemini',
      model: 'gemini-2.5-flash',
      apiKey: 'test-key',
      baseUrl: fake.url,
      timeoutMs: 5000,
      maxRepairs: 0,
      webSearch,
    });
  const activities = (webSearch: boolean) =>
    createProposalActivities({ model: model(webSearch), search: corpus } as unknown as Backends);

  beforeAll(async () => {
    fake = await startGeminiFake();
  });
  beforeEach(() => {
    fake.requests.length = 0;
    searched = [];
  });
  afterAll(async () => fake?.close());

  it('asks Gemini with the googleSearch tool and keeps only the grounded pages', async () => {
    fake.script({
      text:
        'Bees decline in cities (see https://made-up.example/not-a-source). ' +
        'Green roofs help (Smith 2021). Parks matter.',
      grounding: {
        queries: ['urban pollinator decline studies'],
        chunks: [
          { uri: 'https://journals.example/urban-bees', title: 'Urban bees and parks' },
          { uri: 'https://journals.example/green-roofs', title: 'Green roofs for pollinators' },
          { uri: 'ftp://old.example/file', title: 'Not a web page' },
          { uri: 'https://journals.example/urban-bees', title: 'Urban bees and parks (again)' },
        ],
        supports: [
          { text: 'Bees decline in cities.', chunks: [0] },
          { text: 'Green roofs help.', chunks: [1, 0] },
        ],
      },
    });
    const hits = await inActivity(() => activities(true).searchLiterature({ profile, focusTerms: ['bees'] }));
    const sent = fake.requests[0].body as {
      tools?: unknown[];
      generationConfig?: Record<string, unknown>;
      contents: Array<{ parts: Array<{ text: string }> }>;
    };
    expect(sent.tools).toEqual([{ googleSearch: {} }]);
    expect(sent.generationConfig?.responseJsonSchema).toBeUndefined();
    expect(sent.contents[0].parts[0].text).toContain('pollinator decline in urban green spaces');
    // Only grounding chunks, http(s), each once; the URL in the prose is not a source.
    expect(hits.map((h) => h.url)).toEqual([
      'https://journals.example/urban-bees',
      'https://journals.example/green-roofs',
    ]);
    expect(hits[0]).toMatchObject({ id: 'web-1', title: 'Urban bees and parks', source: 'journals.example' });
    expect(hits[0].snippet).toBe('Bees decline in cities. Green roofs help.');
    expect(JSON.stringify(hits)).not.toContain('made-up.example');
    expect(searched).toEqual([]);
  });

  it('finds no literature when the answer is not grounded (no metadata): nothing to cite', async () => {
    fake.script({ text: 'Here are studies: https://made-up.example/a and https://made-up.example/b' });
    const hits = await inActivity(() => activities(true).searchLiterature({ profile }));
    expect(hits).toEqual([]);
  });

  it('uses the collection when the model cannot search the web (the stand-in, or PROPOSAL_LITERATURE_SOURCE=index)', async () => {
    const hits = await inActivity(() => activities(false).searchLiterature({ profile }));
    expect(hits.map((h) => h.url)).toEqual(['https://example.org/bundled']);
    expect(searched.length).toBeGreaterThan(0);
    expect(fake.requests).toHaveLength(0);
  });
});
