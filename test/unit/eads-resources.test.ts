/**
 * The resources an answer names when asked what the work is shared out between
 * (flows/eads/standin/resources.ts), and a table whose first column names its rows under a header
 * that reads like another column (domain/text-match.ts). The answers are invented here: a
 * bicycle workshop, a recording studio and a ferry crew, none taken from an evaluation case.
 */
import { describe, expect, it } from 'vitest';
import { resourcesFromProse } from '../../flows/eads/standin/resources';
import { mapHeaders } from '../../domain/text-match';

const names = (answer: string) => (resourcesFromProse(answer) ?? []).map((r) => `${r.name} ×${r.count}`);

describe('resources told in prose', () => {
  it('reads subjects, counted things, what there is and what someone has', () => {
    const answer =
      'Three truing stands: the old one, the new one and a travel stand. The wheel jig sits by the window. ' +
      "There's one hydraulic press for bearings. Sam has the welding bench and the paint booth. " +
      'The mechanics are four people a shift.';
    expect(names(answer)).toEqual([
      'truing stands ×3',
      // The members of a counted label are resources too (the old and new ones name no kind).
      'travel stand ×1',
      'wheel jig ×1',
      'hydraulic press ×1',
      'welding bench ×1',
      'paint booth ×1',
      'mechanics ×4',
    ]);
  });

  it('leaves out measures, spans of time, people by their own name and activities', () => {
    const answer =
      'The live room holds about forty square metres. Mixing takes two hours. Priya runs the desk. ' +
      'The vocal booth is small. Editing is on the two workstations.';
    const got = names(answer);
    expect(got).toEqual(['live room ×1', 'desk ×1', 'vocal booth ×1', 'workstations ×2']);
  });

  it('takes a kind, not the name given to one ("the winch Bertha")', () => {
    expect(names('The deck crane Bertha lifts the cars. Two deckhands, Ali and Jo, tie up.')).toEqual([
      'deck crane ×1',
      'deckhands ×2',
    ]);
  });

  it('gives nothing for an answer that names fewer than two', () => {
    expect(resourcesFromProse('We just do it by hand.')).toBeUndefined();
    expect(resourcesFromProse('')).toBeUndefined();
  });

  it('stays bounded on a long answer', () => {
    const long = 'One oven, two mixers and a slicer. '.repeat(2000);
    const started = performance.now();
    const got = resourcesFromProse(long) ?? [];
    expect(got.length).toBeLessThanOrEqual(24);
    // Only the opening of a long answer is read (a few thousand characters).
    expect(performance.now() - started).toBeLessThan(5000);
  });
});

describe('a table whose first column names its rows', () => {
  it('gives the first column to the row name when another column took it', () => {
    // "station" reads like equipment ("resources"), but it is the name of each row.
    const mapping = mapHeaders(['station', 'where', 'time'], ['process-id', 'resources', 'duration']);
    expect(mapping[0]).toBe(0);
    expect(mapping[2]).toBe(2);
  });
});
