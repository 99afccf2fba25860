import { afterEach, describe, expect, it } from 'vitest';
import type { TextEmbedder } from '../../backends/embedding';
import { decide, restoreEmbedder, useEmbedder } from '../../flows/lib/standin/meaning';

/** A toy embedder: one dimension per word of a small vocabulary, so similarities are predictable. */
function wordEmbedder(vocabulary: string[]): TextEmbedder {
  return {
    name: 'toy',
    dimensions: vocabulary.length,
    async embed(texts: string[]) {
      return texts.map((t) => {
        const v = new Float32Array(vocabulary.length);
        for (const w of t.toLowerCase().split(/\W+/)) {
          const i = vocabulary.indexOf(w);
          if (i >= 0) v[i] += 1;
        }
        const n = Math.hypot(...v) || 1;
        return v.map((x) => x / n);
      });
    },
  } as unknown as TextEmbedder;
}

const choices = [
  { key: 'flow', descriptions: ['same machines same order'] },
  { key: 'job', descriptions: ['each order its own route'] },
];

describe('decide', () => {
  afterEach(() => restoreEmbedder());

  it('takes the choice that wins by the margin', async () => {
    useEmbedder(wordEmbedder(['same', 'machines', 'order', 'own', 'route', 'each']));
    const d = await decide('every part visits the same machines', choices);
    expect(d.key).toBe('flow');
    expect(d.ranked[0].key).toBe('flow');
  });

  it('says undetermined when two choices are too close to call', async () => {
    useEmbedder(wordEmbedder(['same', 'machines', 'order', 'own', 'route', 'each']));
    const tied = [
      { key: 'a', descriptions: ['same order'] },
      { key: 'b', descriptions: ['own order'] },
    ];
    const d = await decide('order', tied);
    expect(d.key).toBeUndefined();
    expect(d.reason).toBe('thin-margin');
  });

  it('says undetermined when nothing is close enough', async () => {
    useEmbedder(wordEmbedder(['same', 'machines', 'order', 'own', 'route', 'each', 'weather']));
    const d = await decide('weather', choices);
    expect(d.key).toBeUndefined();
    expect(d.reason).toBe('below-floor');
  });

  it('never guesses without a model', async () => {
    useEmbedder(undefined);
    const d = await decide('same machines same order', choices);
    expect(d.key).toBeUndefined();
    expect(d.reason).toBe('no-model');
  });
});
