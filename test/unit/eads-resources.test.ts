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
  const words = () => true;
  const figures = () => false;
  it('gives the first column to the row name when another column took it only as a near word', () => {
    // "station" reads like equipment ("resources"), but its cells name each row.
    const mapping = mapHeaders(['station', 'where', 'time'], ['process-id', 'resources', 'duration'], words);
    expect(mapping[0]).toBe(0);
    expect(mapping[2]).toBe(2);
  });

  it('leaves a header of figures, or one sharing a word with its column, where it was', () => {
    expect(mapHeaders(['count', 'name'], ['resource-id', 'quantity'], figures)).toEqual(
      mapHeaders(['count', 'name'], ['resource-id', 'quantity']),
    );
    expect(mapHeaders(['time', 'station', 'machine'], ['process-id', 'duration', 'resources'], figures)[1]).toBe(0);
    const orders = ['order-id', 'product', 'quantity', 'due-date'];
    expect(mapHeaders(['product', 'quantity', 'due date'], orders, words)[1]).toBe(0);
  });
});

describe('what is not a resource', () => {
  it('leaves out a label, a denied thing and an abstract subject, and reads counts told after names', () => {
    expect(names('The tools are: a band saw, a planer, and two routers.')).toEqual([
      'band saw ×1',
      'planer ×1',
      'routers ×2',
    ]);
    expect(names('We do not have a crane. We have three hoists and a gantry.')).toEqual(['hoists ×3', 'gantry ×1']);
    expect(names('The problem is the kiln. We fire in two kilns and a muffle.')).toEqual(['kilns ×2', 'muffle ×1']);
    expect(names('Presses - 2, folders - 3, guillotines - 1.')).toEqual(['presses ×2', 'folders ×3', 'guillotines ×1']);
  });
});
