/**
 * Prints how the BOM grounder reads everyday words for the demo warehouse's parts (an engineer's
 * names for its categories, and parts it does not hold), with the model installed: which value
 * each phrase is read as, by which route, with what similarity. The phrases and their truth are
 * written here by hand from data/warehouse/010_bom.sql; the script prints recall and precision.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { sharedEmbedder } from '../backends/embedding';
import { EmbeddingMeaning, Grounder, partNames, Vocabulary } from '../flows/bom/activities/terms';

/**
 * Phrase → what it means: a category, or the start of the descriptions of the parts it means
 * (lower case); null for a part the data does not hold.
 */
const PROBES: Array<[string, string | null]> = [
  ['accumulators', 'BATTERIES'],
  ['storage chips', 'MEMORY IC'],
  ['condensers', 'CAPACITOR'],
  ['plugs and sockets', 'CONNECTORS'],
  ['sockets', 'CONNECTORS'],
  ['detectors', 'SENSOR'],
  ['transducers', 'SENSOR'],
  ['cpu', 'MICROCONTROLLER'],
  ['embedded controller', 'MICROCONTROLLER'],
  ['monitor screen', 'DISPLAY'],
  ['readout', 'DISPLAY'],
  ['overcurrent protection', 'CIRCUIT_PROTECTION'],
  ['bolts', 'FASTENER'],
  ['hardware screws', 'FASTENER'],
  ['casing', 'ENCLOSURE'],
  ['wire loom', 'CABLE_ASSEMBLY'],
  ['leads', 'CABLE_ASSEMBLY'],
  ['light emitting diodes', 'LED'],
  ['indicator lamps', 'LED'],
  ['quartz resonator', 'crystal'],
  ['timebase', 'OSCILLATOR'],
  ['rf antennas', 'ANTENNA'],
  ['power management chips', 'POWER_IC'],
  ['electric motors', 'MOTOR'],
  ['drives', 'MOTOR'],
  ['relays', null],
  ['transformers', null],
  ['microphones', null],
  ['cooling fans', null],
  ['heatsinks', null],
  ['potentiometers', null],
  ['transistors', null],
  ['buzzers', null],
  ['solenoids', null],
  ['keypads', null],
  ['springs', null],
  ['gaskets', null],
  ['optocouplers', null],
  ['thermocouples', null],
  ['pressure regulators', null],
  ['camera sensors', null],
  ['loudspeakers', null],
  ['ball bearings', null],
  ['pulleys', null],
  ['photodiodes', null],
  // An everyday qualifier before a head word the data uses.
  ['hexagonal nuts', 'hex nut'],
  ['lux sensors', 'ambient light sensor'],
  ['climate sensors', 'temperature and humidity sensor'],
  ['overvoltage diodes', 'tvs diode'],
  ['rumble motors', 'vibration motor'],
  ['wing nuts', null],
  ['lock nuts', null],
  ['wood screws', null],
  ['set screws', null],
  ['solid rivets', null],
  ['rectifier diodes', null],
  ['zener diodes', null],
  ['schottky diodes', null],
  ['servo motors', null],
  ['gear motors', null],
  ['pressure sensors', null],
  ['gas sensors', null],
  ['polymer capacitors', null],
  ['alkaline batteries', null],
  ['blade fuses', null],
];

async function main(): Promise<void> {
  const root = path.resolve(__dirname, '..');
  const db = await (await DuckDBInstance.create(':memory:')).connect();
  await db.run(readFileSync(path.join(root, 'data/warehouse/010_bom.sql'), 'utf8'));
  const rows = (
    await db.runAndReadAll(
      `SELECT DISTINCT item_description, category FROM bom_demo.item_master WHERE item_type = 'COMPONENT'`,
    )
  ).getRowObjects() as Array<{ item_description: string; category: string }>;
  const descriptions = [...new Set(rows.map((r) => r.item_description))];
  const categories = [...new Set(rows.map((r) => r.category))];
  const kinds = new Map<string, string | null>(rows.map((r) => [r.item_description, r.category]));
  const names = partNames([...descriptions, ...categories], kinds);
  const vocabulary = new Vocabulary([
    { column: 'item_master.category', values: categories },
    { column: 'item_master.item_description', values: descriptions },
  ]);
  const { embedder } = await sharedEmbedder({ quiet: true });
  if (!embedder) throw new Error('no embedding model installed');
  const grounder = new Grounder(vocabulary, new EmbeddingMeaning(embedder), names);
  // The parts a reading or a truth names: a category's parts, or the parts whose description holds it.
  const partsOf = (what: string): Set<string> => {
    const t = what.toLowerCase().replace(/_/g, ' ');
    const ofCategory = rows.filter((r) => r.category.toLowerCase().replace(/_/g, ' ') === t);
    const held = ofCategory.length ? ofCategory : rows.filter((r) => r.item_description.toLowerCase().includes(t));
    return new Set(held.map((r) => r.item_description));
  };
  const same = (a: Set<string>, b: Set<string>) => a.size === b.size && [...a].every((x) => b.has(x));
  let right = 0;
  let wrong = 0;
  let unanswered = 0;
  let falseAnswers = 0;
  let present = 0;
  for (const [phrase, truth] of PROBES) {
    const g = await grounder.ground(phrase);
    const answered = g.level !== null ? partsOf(g.term) : null;
    const ok = truth ? answered !== null && same(answered, partsOf(truth)) : answered === null || answered.size === 0;
    if (truth) {
      present++;
      if (ok) right++;
      else if (answered?.size) wrong++;
      else unanswered++;
    } else if (!ok) falseAnswers++;
    console.log(
      `${ok ? 'ok  ' : 'MISS'} ${phrase.padEnd(26)} truth ${String(truth).padEnd(32)} read ${String(
        g.level !== null ? g.term : null,
      ).padEnd(32)} ${g.via ?? ''} ${g.similarity ?? ''}`,
    );
  }
  const answeredPresent = right + wrong;
  console.log(
    `present ${present}: right ${right}, wrong ${wrong}, unanswered ${unanswered}; absent ${PROBES.length - present}: answered ${falseAnswers}`,
  );
  console.log(
    `recall ${(right / present).toFixed(3)}, precision ${(right / Math.max(1, answeredPresent + falseAnswers)).toFixed(3)}`,
  );
}

void main();
