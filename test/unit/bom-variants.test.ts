/**
 * A part the data lacks is never answered with its sibling: a question's word that names another
 * variant of a word of the part (another designator of the family, the privative, the dictionary's
 * opposite) is no synonym, however near the two sound by meaning.
 */
import { describe, expect, it } from 'vitest';
import type { Lexicon } from '../../backends/lexicon/wordnet';
import {
  contrasting,
  Grounder,
  isDesignator,
  partNames,
  Vocabulary,
  type Meaning,
} from '../../flows/bom/activities/terms';

/** A dictionary that knows only the opposites it is given. */
const opposites = (pairs: Array<[string, string]>): Lexicon => ({
  knows: () => false,
  relation: () => 'unknown',
  opposites: (a, b) => pairs.some(([x, y]) => (x === a && y === b) || (x === b && y === a)),
});

describe('variants that are not synonyms', () => {
  it('tells designators from words', () => {
    for (const code of ['XR12', 'mini-b', 'Type-A', 'M3x8']) expect(isDesignator(code), code).toBe(true);
    for (const word of ['e-ink', 'full-size', 'non-stick', 'valve']) expect(isDesignator(word), word).toBe(false);
  });

  it('hears two designators of one family, a privative and opposites as different variants', () => {
    const wideNarrow = opposites([['narrow', 'wide']]);
    const variants: Array<[string, string, Lexicon?]> = [
      ['mini-b', 'mini-c'],
      ['xr12', 'xr15'],
      ['corded', 'cordless'],
      ['unglazed', 'glazed'],
      ['narrow', 'wide', wideNarrow],
      // A base that drops its last "e" before an ending is still the same base.
      ['fused', 'fuseless'],
    ];
    for (const [a, b, lexicon] of variants) expect(contrasting(a, b, lexicon), `${a} / ${b}`).toBe(true);
    const same: Array<[string, string, Lexicon?]> = [
      // The same thing in other words, or other families.
      ['valves', 'valve'],
      ['kind-c', 'mini-c'],
      ['e-ink', 'e-paper'],
      ['narrow', 'slim', wideNarrow],
      // One value written two ways, a privative base too short to be one, frame words.
      ['4k7', '4.7k'],
      ['2.2µf', '2.2uf'],
      ['union', 'ion'],
      ['non-glazed', 'unglazed'],
      ['in', 'out', opposites([['in', 'out']])],
    ];
    for (const [a, b, lexicon] of same) expect(contrasting(a, b, lexicon), `${a} / ${b}`).toBe(false);
  });

  it('leaves a part the data lacks missing when its sibling is all that is near by meaning', async () => {
    const values = ['Cordless drill 18V', 'Wide hinge steel', 'Battery mini-c 2Ah', 'DRILLS', 'HINGES', 'BATTERIES'];
    const vocabulary = new Vocabulary([{ column: 'item_master.item_description', values }]);
    const pairs: Record<string, number> = {
      'corded|cordless drill': 0.7,
      'corded drill|cordless drill': 0.92,
      'narrow|wide hinge': 0.6,
      'narrow hinge|wide hinge': 0.9,
      'mini-b|battery mini-c': 0.6,
      'battery mini-b|battery mini-c': 0.95,
    };
    const meaning: Meaning = {
      async similarities(text, others) {
        return others.map((o) => (o === text ? 1 : (pairs[`${text}|${o}`] ?? pairs[`${o}|${text}`] ?? 0.1)));
      },
    };
    const grounder = new Grounder(vocabulary, meaning, partNames(values), [], opposites([['narrow', 'wide']]));
    for (const phrase of ['corded drill', 'narrow hinge', 'battery mini-b']) {
      const grounded = await grounder.ground(phrase);
      expect(grounded.level, phrase).toBeNull();
    }
    // The part itself, asked for in its own words, still grounds.
    expect((await grounder.ground('cordless drill')).level).not.toBeNull();
  });
});
