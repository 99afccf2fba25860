/**
 * A generic head noun after a qualifier that parts of several kinds hold ("speed chips" where a
 * speed sensor, a speed knob and speed ICs exist): the head may say which kind is meant. Meaning
 * comes from a scripted table, so these tests check the decisions, not the embedding model.
 */
import { describe, expect, it } from 'vitest';
import { Grounder, partNames, sharedStart, Vocabulary } from '../../flows/bom/activities/terms';
import { scriptedGrounder, scriptedMeaning } from '../helpers/scripted-grounder';

// A garden-machinery maker: "speed" is in three kinds of part, "flash" in two.
const ITEMS: Array<[string, string]> = [
  ['Speed sensor', 'SENSORS'],
  ['Speed knob', 'KNOBS'],
  ['Mower blade', 'BLADES'],
  ['Serial flash SPI', 'MEMORY'],
  ['Serial flash QSPI', 'MEMORY'],
  ['Garden MCU flash', 'MICROCONTROLLERS'],
  ['Motor driver', 'SPEED_IC'],
];

const grounder = (pairs: Record<string, number>) => scriptedGrounder(ITEMS, pairs);

describe('a generic head after a qualifier that several kinds of part hold', () => {
  it('narrows to the kind the head points at clearly', async () => {
    const g = grounder({
      'speed chips|speed ic': 0.72,
      'speed|speed ic': 0.4,
      'speed chips|speed sensor sensors': 0.5,
      'speed|speed sensor sensors': 0.48,
    });
    const found = await g.ground('speed chips');
    expect(found.term).toBe('speed ic');
    expect(found.level).not.toBeNull();
  });

  it('narrows to what the kind’s parts share when the kind is no value of its own', async () => {
    const g = grounder({
      'flash chips|serial flash spi memory': 0.66,
      'flash|serial flash spi memory': 0.45,
      'flash chips|garden mcu flash microcontrollers': 0.5,
      'flash|garden mcu flash microcontrollers': 0.49,
    });
    const found = await g.ground('flash chips');
    expect(found.term).toBe('serial flash');
  });

  it('keeps every part holding the qualifier when the head tells no kind apart', async () => {
    const found = await grounder({}).ground('speed parts');
    expect(found.term).toBe('speed');
    expect(found.level).not.toBeNull();
  });

  it('answers "not understood" with a part of each kind when the head leans only a little', async () => {
    const g = grounder({
      'speed chips|speed ic': 0.55,
      'speed|speed ic': 0.5,
      'speed chips|speed sensor sensors': 0.5,
      'speed|speed sensor sensors': 0.5,
    });
    const found = await g.ground('speed chips');
    expect(found.level).toBeNull();
    expect(found.nearest).toEqual(expect.arrayContaining(['SPEED_IC', 'Speed sensor', 'Speed knob']));
  });

  it('finds the words names start with', () => {
    expect(sharedStart(['serial flash spi', 'serial flash qspi'])).toBe('serial flash');
    expect(sharedStart(['a b', 'c d'])).toBe('');
  });
});

describe('a part the data names by its initials', () => {
  const items = ['PLC rack 24V', 'Relay 12V', 'Mower blade'];
  const make = () =>
    new Grounder(
      new Vocabulary([{ column: 'item_master.item_description', values: items }]),
      scriptedMeaning({}),
      partNames(items),
    );

  it('grounds the spelt-out words on the capitalised initials of a part', async () => {
    const found = await make().ground('programmable logic controller');
    expect(found.level).not.toBeNull();
    expect(found.term).toBe('plc');
  });

  it('keeps a head noun the part names, and drops a generic one', async () => {
    expect((await make().ground('programmable logic controller racks')).term).toBe('plc racks');
    expect((await make().ground('programmable logic controller chips')).term).toBe('plc');
  });

  it('does not ground words whose initials spell nothing of the data', async () => {
    const found = await make().ground('pressure leak cutoff valve');
    expect(found.level).toBeNull();
  });
});
