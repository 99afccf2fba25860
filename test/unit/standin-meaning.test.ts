import { execFileSync } from 'node:child_process';
import {
  closeSync,
  constants,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { TextEmbedder } from '../../backends/embedding';
import {
  classify,
  decide,
  decideFromEvidence,
  MeaningSpace,
  restoreEmbedder,
  useEmbedder,
} from '../../flows/lib/standin/meaning';
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

describe('classify', () => {
  afterEach(() => restoreEmbedder());
  const words = ['oven', 'bake', 'bread', 'lathe', 'mill', 'steel', 'shift', 'rota'];
  const choices = [
    { key: 'bakery', descriptions: ['we bake bread', 'the oven bakes bread', 'bread from the oven'] },
    { key: 'metal', descriptions: ['steel on the lathe', 'the mill cuts steel', 'lathe and mill'] },
    { key: 'rota', descriptions: ['the shift rota', 'a rota of each shift', 'who works which shift'] },
  ];

  it('takes the choice the descriptions teach, and the same one every time', async () => {
    useEmbedder(wordEmbedder(words));
    const first = await classify('bread in the oven', choices);
    expect(first.key).toBe('bakery');
    expect(first.ranked[0].p).toBeGreaterThan(0.8);
    expect((await classify('bread in the oven', choices)).ranked).toEqual(first.ranked);
  });

  it('says it is not sure when the text speaks for two choices alike', async () => {
    useEmbedder(wordEmbedder(words));
    const d = await classify('bread on the lathe', choices);
    expect(d.key).toBeUndefined();
    expect(d.reason).toBe('not-sure');
    expect(
      d.ranked
        .slice(0, 2)
        .map((r) => r.key)
        .sort(),
    ).toEqual(['bakery', 'metal']);
  });

  it('decides nothing without a model', async () => {
    useEmbedder(undefined);
    expect((await classify('bread in the oven', choices)).reason).toBe('no-model');
  });

  it('scores evidence by the classifier when asked', async () => {
    useEmbedder(wordEmbedder(words));
    const d = await decideFromEvidence([{ text: 'the oven' }, { text: 'bread' }], choices, {
      classifier: true,
      floor: 0.5,
      margin: 0.1,
    });
    expect(d.key).toBe('bakery');
    // Probabilities, not similarities: the best text's share plus half the next one's.
    expect(d.ranked[0].score).toBeGreaterThan(1);
  });
});

describe('classify with more choices than it trains on', () => {
  afterEach(() => restoreEmbedder());
  it('declines, so the caller reads them by similarity, without training', async () => {
    useEmbedder(wordEmbedder(['oven']));
    const many = Array.from({ length: 40 }, (_, i) => ({ key: `c${i}`, descriptions: [`choice ${i} oven`] }));
    expect((await classify('the oven', many)).reason).toBe('too-many');
    const d = await decideFromEvidence([{ text: 'the oven' }], many, { classifier: true, floor: 0, margin: 0 });
    // Similarity, not probabilities: every choice is as near as the others.
    expect(d.ranked[0].score).toBeCloseTo(1);
  });
});

describe('the meaning space cache', () => {
  it('keeps short texts and never long ones (a long key would hold megabytes)', async () => {
    let embedded = 0;
    const toy = wordEmbedder(['oven']);
    const space = new MeaningSpace({
      ...toy,
      embed: (texts: string[]) => ((embedded += texts.length), toy.embed(texts)),
    });
    const long = `oven ${'x'.repeat(5_000)}`;
    await space.vector('the oven');
    await space.vector('the oven');
    expect(embedded).toBe(1);
    await space.similarities(long, ['the oven']);
    await space.similarities(long, ['the oven']);
    expect(embedded).toBe(3);
  });
});

describe('trained classifiers', () => {
  const dirs: string[] = [];
  afterEach(() => {
    restoreEmbedder();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const words = ['oven', 'bread', 'machine', 'route', 'order', 'shift', 'driver', 'van'];
  const kinds = [
    { key: 'bakery', descriptions: ['oven bread', 'bread oven shift', 'the oven'] },
    { key: 'factory', descriptions: ['machine order', 'machine route', 'order machine shift'] },
    { key: 'transport', descriptions: ['driver van', 'van route', 'driver shift'] },
  ];
  /** A toy embedder that counts the texts it embeds, keeping what it computes in `dir` when given. */
  const counting = (dir?: string) => {
    const toy = wordEmbedder(words);
    const seen: string[] = [];
    const embedder: TextEmbedder = {
      ...toy,
      embed: (texts: string[]) => (seen.push(...texts), toy.embed(texts)),
      ...(dir ? { store: { dir, model: 'toy 1' } } : {}),
    };
    return { embedder, seen };
  };

  it('are kept beside the model: the next process reads the same weights, embedding no description', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'readouts-'));
    dirs.push(dir);
    const first = counting(dir);
    useEmbedder(first.embedder);
    const trained = await classify('bread from the oven', kinds, { minProbability: 0 });
    expect(first.seen).toContain('bread oven shift');
    expect(readdirSync(dir).filter((f) => f.startsWith('readout.'))).toHaveLength(1);

    // Another embedder object of the same model: a new space, as in a new process.
    const second = counting(dir);
    useEmbedder(second.embedder);
    expect(await classify('bread from the oven', kinds, { minProbability: 0 })).toEqual(trained);
    expect(second.seen).toEqual(['bread from the oven']);

    // Other descriptions, or another model, train anew.
    const third = counting(dir);
    useEmbedder({ ...third.embedder, store: { dir, model: 'toy 2' } });
    await classify('bread from the oven', kinds, { minProbability: 0 });
    expect(third.seen).toContain('bread oven shift');
  });

  it('trains anew over a kept file of the wrong length, and without a place to keep them', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'readouts-'));
    dirs.push(dir);
    const first = counting(dir);
    useEmbedder(first.embedder);
    const trained = await classify('van route', kinds, { minProbability: 0 });
    const [file] = readdirSync(dir).filter((f) => f.startsWith('readout.'));
    writeFileSync(path.join(dir, file), Buffer.alloc(16));
    const second = counting(dir);
    useEmbedder(second.embedder);
    expect(await classify('van route', kinds, { minProbability: 0 })).toEqual(trained);
    expect(second.seen).toContain('driver van');

    const bare = counting();
    useEmbedder(bare.embedder);
    expect(await classify('van route', kinds, { minProbability: 0 })).toEqual(trained);
    expect(bare.seen).toContain('driver van');
  });

  it('trains anew over a kept file of the right length that holds numbers no training gives', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'readouts-'));
    dirs.push(dir);
    useEmbedder(counting(dir).embedder);
    const trained = await classify('van route', kinds, { minProbability: 0 });
    const [file] = readdirSync(dir).filter((f) => f.startsWith('readout.'));
    const kept = path.join(dir, file);
    const length = readFileSync(kept).length / 8;
    for (const bad of [NaN, Infinity]) {
      writeFileSync(kept, new Uint8Array(new Float64Array(length).fill(bad).buffer));
      const next = counting(dir);
      useEmbedder(next.embedder);
      expect(await classify('van route', kinds, { minProbability: 0 })).toEqual(trained);
      expect(next.seen).toContain('driver van');
    }
  });

  it('never waits on a kept path that is not a plain file, and leaves no half-written file behind', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'readouts-'));
    dirs.push(dir);
    useEmbedder(counting(dir).embedder);
    const trained = await classify('the oven', kinds, { minProbability: 0 });
    const [file] = readdirSync(dir).filter((f) => f.startsWith('readout.'));
    const kept = path.join(dir, file);

    // A named pipe where the weights were: opening it to read would wait for a writer forever.
    unlinkSync(kept);
    execFileSync('mkfifo', [kept]);
    try {
      const next = counting(dir);
      useEmbedder(next.embedder);
      expect(await classify('the oven', kinds, { minProbability: 0 })).toEqual(trained);
    } finally {
      // Lets a reader stuck on the pipe go (it sees the end at once), then removes the pipe.
      try {
        closeSync(openSync(kept, constants.O_WRONLY | constants.O_NONBLOCK));
      } catch {
        // No reader waiting.
      }
      rmSync(kept, { force: true });
    }

    // A directory where the weights go: the write fails, and its temporary file goes with it.
    mkdirSync(kept);
    const next = counting(dir);
    useEmbedder(next.embedder);
    expect(await classify('the oven', kinds, { minProbability: 0 })).toEqual(trained);
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('and vectors stay with their embedder when a test switches to another and back', async () => {
    const { embedder, seen } = counting();
    useEmbedder(embedder);
    await classify('the oven', kinds);
    const once = seen.length;
    useEmbedder(wordEmbedder(words));
    await classify('the oven', kinds);
    useEmbedder(embedder);
    await classify('the oven', kinds);
    expect(seen.length).toBe(once);
  });
});
