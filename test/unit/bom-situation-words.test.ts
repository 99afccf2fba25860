import { describe, expect, it } from 'vitest';
import { SITUATION_DESCRIPTIONS, THING_DESCRIPTIONS } from '../../flows/bom/activities/terms';
import { scriptedGrounder } from '../helpers/scripted-grounder';

// A garden-tool maker's parts.
const ITEMS: Array<[string, string]> = [
  ['Trimmer line 2mm', 'CONSUMABLES'],
  ['Hose reel axle', 'REELS'],
  ['Hose reel crank', 'REELS'],
  ['Rake tine', 'TINES'],
  ['Pruner spring', 'SPRINGS'],
];

/** Scripted readings of words alone: near a situation, or near a thing. */
function reading(words: Record<string, 'situation' | 'thing'>): Record<string, number> {
  const pairs: Record<string, number> = {};
  for (const [word, kind] of Object.entries(words)) {
    for (const d of SITUATION_DESCRIPTIONS) pairs[`${word}|${d}`] = kind === 'situation' ? 0.35 : 0.1;
    for (const d of THING_DESCRIPTIONS) pairs[`${word}|${d}`] = kind === 'thing' ? 0.35 : 0.1;
  }
  return pairs;
}

describe('a part named among words about what happens to it', () => {
  it('reads the part when the words around it speak of a situation', async () => {
    const g = scriptedGrounder(ITEMS, reading({ backorder: 'situation', embargo: 'situation' }));
    expect(await g.ground('trimmer line backorder')).toMatchObject({ term: 'trimmer line', level: 2 });
    expect(await g.ground('hose reels on embargo')).toMatchObject({ term: 'hose reels', level: 2 });
  });

  it('keeps a phrase missing when the word beside the part may name another thing', async () => {
    // Brackets of a hose reel are no hose reel: the data lacks them, and the answer says so.
    const g = scriptedGrounder(ITEMS, reading({ brackets: 'thing', backorder: 'situation' }));
    expect((await g.ground('hose reel brackets')).level).toBeNull();
    expect((await g.ground('hose reel brackets backorder')).level).toBeNull();
  });

  it('keeps a phrase missing when a word is neither clearly a situation nor a thing', async () => {
    // No reading either way (the scripted similarities are alike): not set aside.
    const g = scriptedGrounder(ITEMS, {});
    expect((await g.ground('trimmer line backorder')).level).toBeNull();
  });

  it('reads no part when another run of the phrase names something the data lacks', async () => {
    const g = scriptedGrounder(ITEMS, reading({ pallets: 'thing', shortage: 'situation' }));
    expect((await g.ground('rake tine shortage on pallets')).level).toBeNull();
  });
});
