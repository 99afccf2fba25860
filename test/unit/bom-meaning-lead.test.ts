import { describe, expect, it } from 'vitest';
import { scriptedGrounder } from '../helpers/scripted-grounder';

// A bakery-equipment maker's parts.
const ITEMS: Array<[string, string]> = [
  ['Dough hook', 'MIXER_TOOLS'],
  ['Oven door seal', 'SEALS'],
  ['Proofing tray', 'TRAYS'],
  ['Heating element', 'HEATERS'],
  ['Kneading paddle steel', 'MIXER_TOOLS'],
  ['Kneading paddle nylon', 'MIXER_TOOLS'],
];

const grounder = (pairs: Record<string, number>) => scriptedGrounder(ITEMS, pairs);

describe('a qualifier the data does not use, before a head it does', () => {
  it('reads an unknown qualifier of a known head as the one part it points to, in every variant', async () => {
    // "paddle" is the data's word; "mixing" is not. Every paddle the data holds is a kneading
    // paddle, in steel or nylon: one part, whose variants are no rivals. The qualifier moves the
    // phrase a little away from the bare head (as any extra word does), which is no reason to refuse.
    const g = grounder({
      'mixing paddle|kneading paddle steel': 0.68,
      'mixing paddle|kneading paddle nylon': 0.67,
      'paddle|kneading paddle steel': 0.7,
      'paddle|kneading paddle nylon': 0.69,
      'mixing|kneading paddle steel': 0.45,
      'mixing|kneading paddle nylon': 0.44,
    });
    expect(await g.ground('mixing paddle')).toMatchObject({ term: 'kneading paddle', level: 2, via: 'meaning' });
  });

  it('still refuses a qualifier that points at no part of the known head (a part the data lacks)', async () => {
    const g = grounder({
      'rubber paddle|kneading paddle steel': 0.6,
      'rubber paddle|kneading paddle nylon': 0.62,
      'paddle|kneading paddle steel': 0.7,
      'paddle|kneading paddle nylon': 0.69,
      'rubber|kneading paddle nylon': 0.2,
    });
    const read = await g.ground('rubber paddle');
    expect(read.level).toBeNull();
    expect(read.unclear).toEqual(['rubber']);
  });

  it('still refuses a qualifier that moves the phrase clearly away from the part it is close to', async () => {
    const g = grounder({
      'cutting paddle|kneading paddle steel': 0.55,
      'cutting paddle|kneading paddle nylon': 0.54,
      'paddle|kneading paddle steel': 0.7,
      'paddle|kneading paddle nylon': 0.69,
      'cutting|kneading paddle steel': 0.4,
      'cutting|kneading paddle nylon': 0.4,
    });
    expect((await g.ground('cutting paddle')).level).toBeNull();
  });
});
