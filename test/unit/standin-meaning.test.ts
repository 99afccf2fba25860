import { afterEach, describe, expect, it } from 'vitest';
import { decide, restoreEmbedder, useEmbedder } from '../../flows/lib/standin/meaning';
import { wordEmbedder } from '../helpers/word-embedder';

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
