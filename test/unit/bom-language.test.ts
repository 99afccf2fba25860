/**
 * How the BOM flow reads a question and grounds it, on a small warehouse of its own (an espresso
 * machine maker, not the demo data): exclusions as set difference, a scene reduced to its part
 * with the frame never reported missing, generic head nouns, synonyms by meaning with a margin,
 * "products" as the items the BOMs end in at every level, and absent parts answered as absent
 * with the nearest parts by meaning. Meaning comes from a scripted table here, so these tests
 * check the decisions, not the embedding model.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBomActivities, type ResolvedColumns } from '../../flows/bom/activities';
import {
  buildKindUsageQuery,
  buildLeafValuesQuery,
  buildOverlapQuery,
  buildStrategyQuery,
  ColumnAllowList,
  type BuiltQuery,
  type ConceptQuery,
} from '../../flows/bom/activities/sql';
import {
  Grounder,
  namedRun,
  partNames,
  Vocabulary,
  type Meaning,
  specsAsWritten,
  type VocabularyColumn,
} from '../../flows/bom/activities/terms';
import type { Lexicon, NounRelation } from '../../backends/lexicon/wordnet';
import type { Backends } from '../../backends';
import { DuckDbWarehouse } from '../../backends/warehouse/duckdb';
import { bigQueryDialect, duckDbDialect, type SqlDialect } from '../../backends/warehouse/sql';
import type { StrategyNumber } from '../../flows/bom/contract';
import { isGenericHead, parseBomQuestion } from '../../domain/bom-text';
import { inActivityEnvironment, mockActivityEnvironment } from '../helpers/activity-env';
import { translateBigQuerySql } from '../fakes/bigquery';

const SHOP = `
CREATE SCHEMA IF NOT EXISTS shop;
CREATE OR REPLACE TABLE shop.item_master AS SELECT * FROM (VALUES
  ('P-001', 'Solenoid valve 12V', 'VALVES', 'COMPONENT', 'ACTIVE', 'Brightwater'),
  ('P-002', 'Pinch valve 24V', 'VALVES', 'COMPONENT', 'ACTIVE', 'Brightwater'),
  ('P-003', 'Gear pump 15bar', 'PUMPS', 'COMPONENT', 'ACTIVE', 'Corvid Fluidics'),
  ('P-004', 'Vibratory pump 48W', 'PUMPS', 'COMPONENT', 'OBSOLETE', 'Corvid Fluidics'),
  ('P-005', 'NTC probe 10k', 'SENSORS', 'COMPONENT', 'ACTIVE', 'Delta Thermal'),
  ('P-006', 'Pressure transducer 16bar', 'SENSORS', 'COMPONENT', 'ACTIVE', 'Delta Thermal'),
  ('P-007', 'Serial flash 8Mb', 'MEMORY', 'COMPONENT', 'ACTIVE', 'Evergreen Silicon'),
  ('P-008', 'Touch display 4.3in', 'DISPLAYS', 'COMPONENT', 'ACTIVE', 'Evergreen Silicon'),
  ('P-009', 'Thermoblock heater 1300W', 'HEATERS', 'COMPONENT', 'ACTIVE', 'Delta Thermal'),
  ('P-010', 'Control knob', 'KNOBS', 'COMPONENT', 'ACTIVE', 'Brightwater'),
  ('A-101', 'Hydraulic unit for Barista One', 'SUBASSEMBLY', 'SUBASSEMBLY', 'ACTIVE', 'In-house'),
  ('A-102', 'Control board for Barista One', 'SUBASSEMBLY', 'SUBASSEMBLY', 'ACTIVE', 'In-house'),
  ('A-103', 'Hydraulic unit for Barista Two', 'SUBASSEMBLY', 'SUBASSEMBLY', 'ACTIVE', 'In-house'),
  ('A-199', 'Spare control board', 'SUBASSEMBLY', 'SUBASSEMBLY', 'ACTIVE', 'In-house'),
  ('F-001', 'Barista One', 'PRODUCT', 'FINISHED_GOOD', 'ACTIVE', 'In-house'),
  ('F-002', 'Barista Two', 'PRODUCT', 'FINISHED_GOOD', 'ACTIVE', 'In-house')
) AS t(item_number, item_description, category, item_type, lifecycle_status, manufacturer);
CREATE OR REPLACE TABLE shop.bom_details AS SELECT * FROM (VALUES
  ('A-101', 'P-001', TRUE), ('A-101', 'P-003', TRUE), ('A-101', 'P-005', TRUE), ('A-101', 'P-006', TRUE),
  ('A-101', 'P-009', TRUE),
  ('A-102', 'P-007', TRUE), ('A-102', 'P-008', TRUE), ('A-102', 'P-006', TRUE),
  ('A-103', 'P-002', TRUE), ('A-103', 'P-004', TRUE), ('A-103', 'P-006', TRUE), ('A-103', 'P-009', TRUE),
  ('A-103', 'P-010', TRUE),
  ('A-199', 'P-007', TRUE), ('A-199', 'P-005', TRUE),
  ('F-001', 'A-101', TRUE), ('F-001', 'A-102', TRUE),
  ('F-002', 'A-103', TRUE), ('F-002', 'P-008', FALSE)
) AS t(parent_item_number, component_item_number, is_active);
`;

/**
 * Meaning from a table: pairs the test declares close, everything else far apart (0.1), a text
 * equal to itself 1. Enough to drive every decision of the grounding.
 */
function scriptedMeaning(pairs: Record<string, number>): Meaning & { asked: string[] } {
  const asked: string[] = [];
  const score = (a: string, b: string) => (a === b ? 1 : (pairs[`${a}|${b}`] ?? pairs[`${b}|${a}`] ?? 0.1));
  return {
    asked,
    async similarities(text, others) {
      asked.push(text);
      return others.map((o) => score(text, o));
    },
  };
}

const MEANING = scriptedMeaning({
  // A synonym of one part, with no word of the data: "screen" is the touch display.
  'screen|touch display': 0.8,
  'screen|displays': 0.7,
  'screen|heaters': 0.3,
  // A qualifier that points at one of the pumps: an oscillating pump is the vibratory one.
  'oscillating|vibratory pump': 0.55,
  'oscillating pump|vibratory pump': 0.75,
  'oscillating pump|gear pump': 0.45,
  // The same with a spec written before it ("48W" is the vibratory pump's; no pump is 15W).
  '48w oscillating|vibratory pump': 0.55,
  '48w oscillating pump|vibratory pump': 0.75,
  '48w oscillating pump|gear pump': 0.45,
  '15w oscillating|vibratory pump': 0.55,
  '15w oscillating pump|vibratory pump': 0.75,
  '15w oscillating pump|gear pump': 0.45,
  'pump|vibratory pump': 0.5,
  'pump|gear pump': 0.5,
  // A qualifier that points at no pump in particular: the phrase stays missing.
  'peristaltic pump|gear pump': 0.48,
  'peristaltic pump|vibratory pump': 0.52,
  'peristaltic pump|pumps': 0.6,
  'peristaltic|vibratory pump': 0.2,
  // … though alone it is close to the bare kind, which would drop it ("pumps" is every pump).
  'peristaltic|pumps': 0.35,
  // A qualifier close to one pump alone, that still moves the phrase away from it.
  'rotary|gear pump': 0.45,
  'rotary pump|gear pump': 0.4,
  // A kind of item by meaning: "the machines we sell" are the products.
  'machines we sell|product': 0.6,
  'machines we sell|finished good': 0.35,
  'machines we sell|subassembly': 0.2,
});

/** A scripted dictionary that files each word under one kind of sense (WordNet's lexicographer file), and knows nothing else. */
function dictionaryOfKinds(kinds: Record<string, string>): Lexicon {
  return {
    knows: (noun) => noun in kinds,
    relation: () => 'unknown',
    senseKinds: (noun) => (noun in kinds ? [kinds[noun]] : []),
  };
}

let duck: DuckDbWarehouse;
let allow: ColumnAllowList;
let vocabulary: Vocabulary;
let vocabularyColumns: VocabularyColumn[];
let names: ReturnType<typeof partNames>;

beforeAll(async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bom-language-'));
  writeFileSync(path.join(dir, '010_shop.sql'), SHOP);
  duck = await DuckDbWarehouse.open({ path: ':memory:', seedDir: dir });
  allow = new ColumnAllowList('shop', await duck.listColumns('shop'));
  const columns = allow.stringColumns();
  vocabularyColumns = await Promise.all(
    columns.map(async (column) => {
      const [table, name] = column.split('.');
      return { column, values: (await duck.sampleDistinct('shop', table, name, 1000)).map((v) => v.value) };
    }),
  );
  vocabulary = new Vocabulary(vocabularyColumns);
  const leaves: string[] = [];
  for (const column of columns.filter((c) => c === 'item_master.item_description' || c === 'item_master.category')) {
    const built = buildLeafValuesQuery({ dialect: duckDbDialect, allow, column });
    leaves.push(...(await duck.query({ sql: built.sql, params: built.params })).rows.map((r) => String(r.value)));
  }
  names = partNames(leaves);
});
afterAll(async () => duck?.close());

async function ids(dialect: SqlDialect, built: BuiltQuery, key = 'parent_item_number'): Promise<string[]> {
  const sql = dialect.name === 'bigquery' ? translateBigQuerySql(built.sql) : built.sql;
  const { rows } = await duck.query({ sql, params: built.params, arrayTypes: built.arrayTypes });
  return rows.map((r) => String(r[key])).sort();
}

describe('reading a question', () => {
  it('takes exclusions out, whatever the wording, and says whether whole BOMs or lines go', () => {
    const read = (q: string) => {
      const p = parseBomQuestion(q);
      return { concepts: p.concepts, excluded: p.excluded, exclusion: p.exclusion };
    };
    expect(read('Which units carry a heater but not a gear pump?')).toEqual({
      concepts: ['heater'],
      excluded: ['gear pump'],
      exclusion: 'bom',
    });
    expect(read('List the boards that have a probe without any solenoid valve')).toMatchObject({
      concepts: ['probe'],
      excluded: ['solenoid valve'],
      exclusion: 'bom',
    });
    expect(read('Which machines use pumps but no gear pumps?')).toMatchObject({
      concepts: ['pumps'],
      excluded: ['gear pumps'],
    });
    expect(read("Which units don't use a pinch valve but do use a heater?")).toEqual({
      concepts: ['heater'],
      excluded: ['pinch valve'],
      exclusion: 'bom',
    });
    expect(read('Which units use sensors other than probes?')).toEqual({
      concepts: ['sensors'],
      excluded: ['probes'],
      exclusion: 'other_than',
    });
    // "except those that …", "excluding any that …": about the BOMs, whatever the marker.
    expect(read('Which boards use a transducer, excluding any that also use a heater?')).toEqual({
      concepts: ['transducer'],
      excluded: ['heater'],
      exclusion: 'bom',
    });
    expect(read('Which units use valves except those with a gear pump?').exclusion).toBe('bom');
    expect(read('Which boards use parts that are not obsolete?')).toEqual({
      concepts: [],
      excluded: ['obsolete'],
      exclusion: 'other_than',
    });
    expect(read('Which boards have no touch display?')).toEqual({
      concepts: [],
      excluded: ['touch display'],
      exclusion: 'bom',
    });
    // A second verb of use joined by "and"/"but" belongs to the exclusion, not to the part.
    expect(read('Which units use pumps and contain no solenoid valve?')).toEqual({
      concepts: ['pumps'],
      excluded: ['solenoid valve'],
      exclusion: 'bom',
    });
    expect(read('List machines carrying a heater, but having no probe whatsoever')).toMatchObject({
      concepts: ['heater'],
      excluded: ['probe whatsoever'],
    });
  });

  it('takes BOMs out for "except"/"apart from"/a verb of removal, and only a comparative narrows the parts', () => {
    const read = (q: string) => {
      const p = parseBomQuestion(q);
      return { concepts: p.concepts, excluded: p.excluded, exclusion: p.exclusion, narrowed: p.narrowed };
    };
    // "except"/"apart from" take out what the answer lists (the machines); "other than" keeps its reading.
    expect(read('Which machines take pumps, except the vibratory ones?')).toEqual({
      concepts: ['pumps'],
      excluded: ['vibratory pumps'],
      exclusion: 'bom',
      narrowed: [],
    });
    expect(read('Which units use valves apart from pinch valves?').exclusion).toBe('bom');
    expect(read('Which units use valves other than pinch valves?').exclusion).toBe('other_than');
    // A clause opened by a verb of removal ("setting aside", "crossing off") after a comma.
    expect(read('which machines have a heater, setting aside every unit that carries a probe')).toEqual({
      concepts: ['heater'],
      excluded: ['probe'],
      exclusion: 'bom',
      narrowed: [],
    });
    expect(read('Which units use valves, crossing off the ones with gear pumps?').excluded).toEqual(['gear pumps']);
    // "find out" asks; it removes nothing.
    expect(read('Find out which units use heaters').excluded).toEqual([]);
  });

  it('reads a bracketed aside that leaves something out as narrowing the part, and a concessive as no part', () => {
    const p = parseBomQuestion(
      'Every pump, whichever the maker: which machines have one? (the pumps proper, no pump seals)',
    );
    expect(p.concepts).toEqual(['pump']);
    expect(p.excluded).toEqual(['pump seals']);
    expect(p.narrowed).toEqual(['pump seals']);
    // An aside that leaves nothing out is read like the rest of the question.
    expect(parseBomQuestion('Which units use (pinch) valves?').concepts).toEqual(['pinch valves']);
  });

  it('reads a part in the relative clause joined by "together with"/"along with" as a second part', () => {
    expect(parseBomQuestion('machines in which the pinch valve works along with a gear pump')).toMatchObject({
      concepts: ['pinch valve works', 'gear pump'],
      match: 'all',
      subject: 'machines',
    });
  });

  it('reads "Which BOMs list X?" with the listing word as the verb', () => {
    expect(parseBomQuestion('Which machines list gear pumps?')).toMatchObject({
      concepts: ['gear pumps'],
      subject: 'machines',
    });
  });

  it('does not read a negated situation as an exclusion', () => {
    expect(parseBomQuestion("We can't source gear pumps; which products can we no longer build?").excluded).toEqual([]);
    expect(parseBomQuestion('Which boards no longer use a pinch valve?').excluded).toEqual([]);
  });

  it('reads a scene: the part comes from the scene, the subject from the question, frame words are no part', () => {
    const bust = parseBomQuestion('If the maker of our gear pumps went bankrupt, which products would be hit?');
    expect(bust).toMatchObject({ subject: 'products', scope: 'top_level', scene: true });
    expect(bust.concepts).toHaveLength(1);
    expect(bust.concepts[0]).toContain('gear pumps');
    expect(bust.concepts.join(' ')).not.toMatch(/would|hit/);
    const pronoun = parseBomQuestion('Suppose the pinch valves are recalled: which units use them?');
    expect(pronoun).toMatchObject({ subject: 'units', scene: true });
    expect(pronoun.concepts[0]).toContain('pinch valves');
    const after = parseBomQuestion('Which machines are affected if the thermoblock heater is discontinued?');
    expect(after).toMatchObject({ subject: 'machines', scene: true });
    expect(after.concepts[0]).toContain('thermoblock heater');
    // "What would X affect?": the last word is the verb, not a part.
    expect(parseBomQuestion('What would a price rise on the pressure transducer affect?').concepts).toEqual([
      'price rise on the pressure transducer',
    ]);
    // "Which machines would X affect?": the kind asked about, then the same reading.
    expect(parseBomQuestion('Which machines would a price rise on the pressure transducer affect?')).toMatchObject({
      subject: 'machines',
      concepts: ['price rise on the pressure transducer'],
    });
    expect(parseBomQuestion('Which units does the gear pump go into?').concepts).toEqual(['gear pump']);
    // Its passive keeps the part after "by".
    expect(parseBomQuestion('Which machines would be affected by a gear pump shortage?').concepts[0]).toContain(
      'gear pump',
    );
    // No subordinate clause, no verb of use: the subject is still the noun after "which".
    expect(parseBomQuestion('Which products are exposed to a shortage of probes?').subject).toBe('products');
  });

  it('reads "where do we <verb> X?" with the person and their verb as frame, the rest as the part', () => {
    expect(parseBomQuestion('Where do we bolt on the gear pump?').concepts).toEqual(['gear pump']);
    expect(parseBomQuestion('Which machines did you solder the thermal fuse into?')).toMatchObject({
      concepts: ['thermal fuse'],
    });
    expect(parseBomQuestion('What do we still glue the gasket onto?').concepts).toEqual(['gasket']);
    // A verb that is itself an auxiliary frames the question, and the part comes from the scene.
    const unable = parseBomQuestion('What would we be unable to ship if the pinch valves ran out?');
    expect(unable.scene).toBe(true);
    expect(unable.concepts[0]).toContain('pinch valves');
    // A negated verb, or a verb followed by another ("need to redesign"), names no part either.
    for (const q of [
      'The pinch valves are gone; which units can we no longer ship?',
      'Price rise on thermal fuses, so which machines would we need to redesign?',
    ]) {
      const read = parseBomQuestion(q);
      expect(read.scene).toBe(true);
      expect(read.concepts[0]).toMatch(/pinch valves|thermal fuses/);
    }
  });

  it('reads "what if …" and "in case …" as the scene, and the next clause as the question', () => {
    const late = parseBomQuestion('What if the gear pumps arrive late? Which machines can not be built?');
    expect(late).toMatchObject({ concepts: ['gear pumps arrive late'], subject: 'machines', scene: true });
    const lapse = parseBomQuestion('In case the solenoid valve fails its test, which boards list it?');
    expect(lapse).toMatchObject({ subject: 'boards', scene: true });
    expect(lapse.concepts[0]).toMatch(/^solenoid valve/);
    // "in case of" names what follows it; it opens no condition.
    expect(parseBomQuestion('Which boards hold a spare in case of a pump failure?').scene).toBe(false);
  });

  it('reads "nothing from X" and "none of X" as exclusions, "nothing but X" as no exclusion', () => {
    expect(parseBomQuestion('Which boards have a gear pump but nothing from the sensors category?')).toMatchObject({
      concepts: ['gear pump'],
      excluded: ['sensors category'],
      exclusion: 'bom',
    });
    // A participle opening the question picks out as often as it leaves out ("Picking out the
    // boards with X, which also have Y?"): read as no exclusion.
    expect(
      parseBomQuestion('Picking out the boards with a heater, which of them also have a gear pump?').excluded,
    ).toEqual([]);
    // "Putting aside" opening the question only leaves out.
    expect(parseBomQuestion('Putting aside the boards with a heater, which carry a gear pump?')).toMatchObject({
      concepts: ['gear pump'],
      excluded: ['heater'],
      exclusion: 'bom',
    });
    // A conjunction before the exclusion goes with it.
    expect(parseBomQuestion('Which boards carry a gear pump whilst lacking a heater?')).toMatchObject({
      concepts: ['gear pump'],
      excluded: ['heater'],
    });
    // "none of X" ends at the next verb: what follows it is the part asked for.
    expect(parseBomQuestion('Which of the boards that use none of the heaters have a gear pump?')).toMatchObject({
      excluded: ['heaters'],
    });
    expect(parseBomQuestion('Which of the boards that use none of the heaters have a gear pump?').concepts).toContain(
      'gear pump',
    );
    expect(parseBomQuestion('Which boards use nothing but serial flash?').excluded).toEqual([]);
    expect(parseBomQuestion('Find out which boards use valves').excluded).toEqual([]);
  });

  it('reads a need told as a lack ("can not ship without X") as a use, and "without" alone as an exclusion', () => {
    const need = (q: string) => {
      const p = parseBomQuestion(q);
      return { concepts: p.concepts, excluded: p.excluded, scope: p.scope };
    };
    expect(need('Which machines could we not finish without the gear pump?')).toEqual({
      concepts: ['gear pump'],
      excluded: [],
      scope: 'direct',
    });
    expect(need('Which finished goods are impossible to assemble without pinch valves?').concepts).toEqual([
      'pinch valves',
    ]);
    // No denial before it: the units that go without the part.
    expect(need('Which units carry a heater without a thermal fuse?')).toMatchObject({
      concepts: ['heater'],
      excluded: ['thermal fuse'],
    });
    // A denied use with its own part keeps its reading.
    expect(need('Which units do not use heaters without thermal fuses?').concepts).not.toContain('thermal fuses');
  });

  it('leaves the purpose clause after a part out of the part ("spacers to hold the board up")', () => {
    expect(parseBomQuestion('Which units use a gasket to seal the boiler lid?').concepts).toEqual(['gasket']);
    expect(parseBomQuestion('Where do we fit clips to keep our hoses tidy?').concepts[0]).toMatch(/^clips$/);
    // "to" inside a name, with no purpose clause after it, stays.
    expect(parseBomQuestion('Which units use the valve to pump adapter?').concepts).toEqual(['valve to pump adapter']);
  });

  it('takes the part from the scene when the question only points back at it ("so which need a substitute?")', () => {
    const failed = parseBomQuestion(
      'The 24V gear pump failed its endurance test, so which machines need a substitute part?',
    );
    expect(failed).toMatchObject({ subject: 'machines', scene: true });
    expect(failed.concepts).toHaveLength(1);
    expect(failed.concepts[0]).toContain('24v gear pump');
    const then = parseBomQuestion('The probes are on allocation and then which units use an alternative?');
    expect(then.scene).toBe(true);
    expect(then.concepts[0]).toContain('probes');
    // A part named in the question itself stays the part.
    expect(parseBomQuestion('The vendor moved, so which units use gear pumps?').concepts).toEqual(['gear pumps']);
  });

  it('keeps the part of a second question chained with "so"/"then" after a first one', () => {
    // "so which" / "then which" after a question asks a further question, not the result of a scene.
    for (const q of [
      'Which machines carry a thermal fuse, and so which of those also carry a heater?',
      'Which units hold pinch valves, then which of them hold flow meters?',
    ]) {
      const read = parseBomQuestion(q);
      expect(read.scene, q).toBe(false);
      expect(read.concepts.join(' | '), q).toMatch(/heater|flow meters/);
    }
  });

  it('knows generic head nouns as English for "a part", not as part names', () => {
    for (const word of ['chips', 'devices', 'modules', 'components', 'parts']) expect(isGenericHead(word)).toBe(true);
    for (const word of ['valves', 'pump', 'drivers', 'display']) expect(isGenericHead(word)).toBe(false);
  });
});

describe('grounding a phrase in the warehouse values', () => {
  const grounder = () => new Grounder(vocabulary, MEANING, names);

  it('corrects a misspelling, never a word of the language into another one', async () => {
    // One edit from "knobs": corrected when nothing says "knots" is a word…
    expect(await grounder().ground('knots')).toMatchObject({ level: 1, term: 'knobs' });
    // …and left as asked when the language knows it: it is then judged by meaning, or missing.
    const words = new Set(['knot', 'knots']);
    const knowing = { similarities: MEANING.similarities, isWord: (w: string) => words.has(w) };
    const fresh = new Vocabulary(vocabularyColumns);
    expect((await new Grounder(fresh, knowing, names).ground('knots')).level).toBeNull();
    expect(await new Grounder(new Vocabulary(vocabularyColumns), knowing, names).ground('knobz')).toMatchObject({
      term: 'knob',
      asked: 'knobz',
    });
  });

  it('respells a four-letter word only beside words one value holds with it', () => {
    // "valv" is one letter from "valve": beside "pinch", which one value holds with it, it is respelt…
    expect(vocabulary.correct('pinch valv')).toBe('pinch valve');
    // …alone, or beside a word no value holds with a valve, it has too many neighbours to guess.
    expect(vocabulary.correct('valv')).toBeNull();
    expect(vocabulary.correct('gear valv')).toBeNull();
  });

  it('grounds a code the descriptions use as a word like a word, and an item number by its shape', () => {
    expect(vocabulary.ground('8mb')).toMatchObject({ level: 2, example: 'Serial flash 8Mb' });
    expect(vocabulary.ground('p-001')).toMatchObject({ level: 1, example: null });
  });

  it('drops a generic head noun only when the whole phrase names nothing', async () => {
    const memory = await grounder().ground('memory chips');
    expect(memory).toMatchObject({ term: 'memory', level: 1, via: 'qualifier', asked: 'memory chips' });
    // The data names "control board" (an assembly): the whole phrase wins over its qualifier.
    expect(await grounder().ground('control boards')).toMatchObject({ via: 'words', level: 2 });
  });

  it('never cuts a run of words: a head noun the data does not know keeps the phrase missing', async () => {
    const drivers = await grounder().ground('valve drivers');
    expect(drivers.level).toBeNull();
    expect(drivers.unclear).toEqual(['drivers']);
  });

  it('takes a synonym by meaning only with a clear margin, and grounds it as the data writes it', async () => {
    expect(await grounder().ground('screen')).toMatchObject({
      via: 'meaning',
      term: 'touch display',
      level: 2,
      columns: { 2: ['item_master.item_description'] },
    });
    expect(await grounder().ground('oscillating pump')).toMatchObject({ via: 'meaning', term: 'vibratory pump' });
    // A spec of the phrase stays with the part meaning found: on that part, it narrows the answer…
    expect(await grounder().ground('48w oscillating pump')).toMatchObject({
      via: 'meaning',
      term: 'vibratory pump 48w',
    });
    // …and a spec no such part has makes the phrase a part the data lacks, not every such pump.
    expect((await grounder().ground('15w oscillating pump')).level).toBeNull();
    // Without a model, the same phrase is missing rather than guessed.
    expect((await new Grounder(vocabulary, undefined, names).ground('screen')).level).toBeNull();
  });

  it('joins a number and its unit written apart ("12 V") as the data writes them, and only then', async () => {
    const has = (w: string) => ['12v', '1.5mm', '48w'].includes(w);
    expect(specsAsWritten('solenoid valve 12 V', has)).toBe('solenoid valve 12V');
    expect(specsAsWritten('1.5 mm tubing and 48 W pumps', has)).toBe('1.5mm tubing and 48W pumps');
    // A unit spelt out is joined by its symbol, where the data writes that.
    expect(specsAsWritten('12 volts', has)).toBe('12v');
    expect(specsAsWritten('a 4.3 inch display', (w) => w === '4.3in')).toBe('a 4.3in display');
    // The micro sign, either of its two code points, as the Latin letter the data types for it.
    expect(specsAsWritten('22 µH chokes', (w) => w === '22uh')).toBe('22uH chokes');
    expect(specsAsWritten('22 μH chokes', (w) => w === '22uh')).toBe('22uH chokes');
    expect(specsAsWritten('22µH chokes', (w) => w === '22uh')).toBe('22uH chokes');
    // Not a spec the data writes: a count stays a count, and a unit inside a word stays.
    expect(specsAsWritten('2 valves', has)).toBe('2 valves');
    expect(specsAsWritten('12 watts', has)).toBe('12 watts');
    expect(specsAsWritten('rev 12 v2', has)).toBe('rev 12 v2');
    expect(await grounder().ground('solenoid valve 12 V')).toMatchObject({
      term: 'solenoid valve 12v',
      example: 'Solenoid valve 12V',
    });
    expect((await grounder().ground('solenoid valve 12 V')).level).not.toBeNull();
  });

  it('asks the dictionary whether a neighbour by meaning is the same thing, and takes its synonyms', async () => {
    // A scripted dictionary, like the scripted meaning: pairs the test declares, the rest unknown.
    const dictionary = (pairs: Record<string, NounRelation>): Lexicon => ({
      knows: (noun) => Object.keys(pairs).some((k) => k.split('|').includes(noun)),
      relation: (a, b) => pairs[`${a}|${b}`] ?? pairs[`${b}|${a}`] ?? 'unknown',
    });
    const meaning = scriptedMeaning({ 'thermostat|ntc probe': 0.7, 'dial|control knob': 0.45 });
    const plain = new Grounder(vocabulary, meaning, names);
    const withDictionary = (pairs: Record<string, NounRelation>) =>
      new Grounder(vocabulary, meaning, names, [], dictionary(pairs));
    // Close by meaning and clear of every other part: taken without a dictionary…
    expect(await plain.ground('thermostat')).toMatchObject({ via: 'meaning', term: 'ntc probe' });
    // … and not where the dictionary knows both words as different things.
    expect((await withDictionary({ 'thermostat|probe': 'different' }).ground('thermostat')).level).toBeNull();
    // A word the dictionary does not know leaves the reading to meaning.
    expect(await withDictionary({ 'gauge|probe': 'different' }).ground('thermostat')).toMatchObject({
      term: 'ntc probe',
    });
    // Too far by meaning for a synonym, but one thing by the dictionary.
    expect((await plain.ground('dial')).level).toBeNull();
    expect(await withDictionary({ 'dial|knob': 'same' }).ground('dial')).toMatchObject({
      via: 'meaning',
      term: 'control knob',
    });
  });

  it('drops a last word that names no thing (a shortage, a recall) only where the rest names one kind of part', async () => {
    const dictionary = dictionaryOfKinds({ shortage: 'attribute', recall: 'communication', heads: 'artifact' });
    const meaning = scriptedMeaning({});
    const withDictionary = new Grounder(vocabulary, meaning, names, [], dictionary);
    expect(await withDictionary.ground('gear pump shortage')).toMatchObject({ term: 'gear pump', via: 'situation' });
    expect(await withDictionary.ground('serial flash recall')).toMatchObject({ term: 'serial flash' });
    // A word for another thing keeps the phrase missing ("pump heads" are no pump).
    expect((await withDictionary.ground('gear pump heads')).level).toBeNull();
    // "pump" alone is two kinds of pump, one word several parts share: no guess.
    expect((await withDictionary.ground('pump shortage')).level).toBeNull();
    // What a verb of use holds ends in the thing asked for: its last noun stays.
    expect((await withDictionary.ground('gear pump shortage', { contained: true })).level).toBeNull();
    // Without the dictionary the phrase stays missing, as before.
    expect((await new Grounder(vocabulary, meaning, names).ground('gear pump shortage')).level).toBeNull();
  });

  it('in a scene, takes the part before words the dictionary reads as what happens to it', async () => {
    const dictionary = dictionaryOfKinds({ approval: 'act', withdrawn: 'act', bracket: 'artifact' });
    const withDictionary = new Grounder(vocabulary, scriptedMeaning({}), names, [], dictionary);
    expect(await withDictionary.ground('gear pump approval withdrawn', { scene: true })).toMatchObject({
      term: 'gear pump',
    });
    // A thing after the part is another part ("pump bracket"), not what happens to it.
    expect((await withDictionary.ground('gear pump bracket withdrawn', { scene: true })).level).toBeNull();
  });

  it('never lets a qualifier it does not understand fall away: the phrase is missing, nearest by meaning', async () => {
    const peristaltic = await grounder().ground('peristaltic pump');
    expect(peristaltic.level).toBeNull();
    expect(peristaltic.unclear).toEqual(['peristaltic']);
    // Nearest by meaning, the parts its known words allow first: not the most frequent values.
    expect(peristaltic.nearest?.slice(0, 3)).toEqual(['PUMPS', 'Vibratory pump', 'Gear pump']);
    expect((await grounder().ground('rotary pump')).level).toBeNull();
  });

  it('corrects spelling towards the parts’ names only, never towards an assembly’s words', async () => {
    expect(await grounder().ground('thermoblok heater')).toMatchObject({ term: 'thermoblock heater', level: 2 });
    // "hydraulic" is a word of assemblies' names ("Hydraulic unit for …"), not of any part.
    const g = grounder();
    expect(g.vocabulary.correct('hydralic valves')).toBeNull();
  });

  it('keeps the word of a name a spec is hyphenated to ("Cortex-M4"), and drops specs otherwise', () => {
    expect(
      partNames(['Brew Cortex-M7 controller 512KB', 'Gear pump 24V', 'Flow meter SOT-23']).map((n) => n.name),
    ).toEqual(['brew cortex controller', 'gear pump', 'flow meter sot']);
  });

  it('drops the word a number counts ("3-way", "12-bit") with the number: it is a spec, not a name', () => {
    expect(
      partNames(['3-way valve 24V', '12-bit ADC', '4-pin connector', 'Brew Cortex-M7 controller']).map((n) => n.name),
    ).toEqual(['valve', 'adc', 'connector', 'brew cortex controller']);
  });

  it('in a clause, takes a part whose words one value holds in another order, and nothing spread over values', () => {
    // "Pinch valve 24V" holds both words, in another order than the clause.
    expect(vocabulary.partInClause('we had a recall notice for the 24v pinch valves', { scene: true })).toBe(
      '24v pinch valves',
    );
    // "gear" and "valves" are each in some value, never in one: no part.
    expect(vocabulary.partInClause('a shortage of gear valves hit us', { scene: true })).toBeNull();
    // A number the data holds elsewhere ("12V" of a solenoid valve) is no qualifier of this part.
    expect(vocabulary.partInClause('the pinch valves go on allocation for 12 weeks', { scene: true })).toBe(
      'pinch valves',
    );
  });

  it('in a scene, drops the verb before a part, never a word of the part the tagger also reads as a verb', () => {
    const own = new Vocabulary([
      {
        column: 'item_master.item_description',
        values: [
          'Bearing shell 40mm',
          'Shell clamp',
          'Pull ring 8mm',
          'Ring gasket',
          'Coin cell CR2032',
          'Well pump 1HP',
          'Pump seal',
        ],
      },
    ]);
    // "bearing", "pull" and "well" open these parts' names; "shells", "rings" alone are other parts.
    expect(own.partInClause('the supplier of bearing shells went bust', { scene: true })).toBe('bearing shells');
    expect(own.partInClause('we lost pull rings', { scene: true })).toBe('pull rings');
    expect(own.partInClause('a price rise on pull rings', { scene: true })).toBe('pull rings');
    // …or as an adverb ("well").
    expect(own.partInClause('a shortage of well pumps', { scene: true })).toBe('well pumps');
    // The scene's own verbs still go.
    expect(own.partInClause('our distributor stopped shipping coin cells', { scene: true })).toBe('coin cells');
    // A verb goes on through an "-ing" form the tagger reads as a noun, or a phrasal verb's particle.
    expect(own.partInClause('we keep losing pump seals every winter', { scene: true })).toBe('pump seals');
    expect(own.partInClause('we stopped buying in coin cells', { scene: true })).toBe('coin cells');
    // An "-ing" word of a part's name after a verb stays (the earliest start that grounds wins).
    expect(own.partInClause('we keep losing bearing shells', { scene: true })).toBe('bearing shells');
  });

  it('grounds a code with a sign of its own as the word the descriptions use, not as a part number', () => {
    const own = new Vocabulary([
      { column: 'item_master.item_description', values: ['Gate driver GX7+ 8-pin', 'Gate driver GX7 8-pin'] },
    ]);
    // "gx7+" is a word of a description (between spaces): found there, never an item number of its own.
    const g = own.ground('gx7+');
    expect(g.level).not.toBeNull();
    expect(Object.values(g.columns).flat()).toContain('item_master.item_description');
    // A code no description uses is still an item number.
    expect(own.ground('gd-9001')).toMatchObject({ level: 1, columns: { 1: [], 2: [], 3: [] } });
  });

  it('reads a hyphenated word of a part’s name by its parts, a spec beside it literally', async () => {
    const values = ['Low-noise amplifier 5V', 'Low-noise amplifier 12V', 'Power amplifier 3W'];
    const own = new Vocabulary([{ column: 'item_master.item_description', values }]);
    const g = new Grounder(own, MEANING, partNames(values));
    expect(await g.ground('12v low-noise amplifier')).toMatchObject({
      term: '12v low-noise amplifier',
      via: 'words',
      any_order: true,
    });
  });

  it('reads a word that names a column as where the part is written, not as part of its name', async () => {
    expect(await grounder().ground('pumps category')).toMatchObject({
      term: 'pumps',
      level: 1,
      asked: 'pumps category',
    });
    expect(await grounder().ground('heaters by manufacturer')).toMatchObject({ term: 'heaters', level: 1 });
    // Nothing but the column's name: the phrase stays as asked.
    expect(vocabulary.withoutColumnWords('category')).toBe('category');
  });

  it('keeps a frame word of the question that finishes a value the data holds whole', () => {
    const own = new Vocabulary([
      { column: 'item_master.category', values: ['HOSE_ASSEMBLY', 'PUMPS'] },
      { column: 'item_master.item_description', values: ['Hose clamp 10mm', 'Gear pump 15bar'] },
    ]);
    expect(own.completed('hose', 'Which units have any hose assembly fitted?')).toBe('hose assembly');
    // "hose parts" is no value: the phrase stays as read.
    expect(own.completed('hose', 'Which units use hose parts?')).toBe('hose');
    expect(own.completed('pumps', 'Which units use pumps of any type?')).toBe('pumps');
  });

  it('judges a synonym on a part’s name with its kind, never on a maker’s name', async () => {
    const kinds = new Map<string, string | null>();
    for (const row of (
      await duck.query({
        sql: buildLeafValuesQuery({
          dialect: duckDbDialect,
          allow,
          column: 'item_master.item_description',
          context: 'item_master.category',
        }).sql,
      })
    ).rows)
      kinds.set(String(row.value), String(row.context));
    const makers = (
      await duck.query({
        sql: buildLeafValuesQuery({
          dialect: duckDbDialect,
          allow,
          column: 'item_master.manufacturer',
          context: 'item_master.category',
        }).sql,
      })
    ).rows;
    for (const row of makers) {
      const value = String(row.value);
      kinds.set(value, kinds.has(value) && kinds.get(value) !== String(row.context) ? null : String(row.context));
    }
    const leaves = [...kinds.keys(), 'PUMPS', 'HEATERS', 'VALVES'];
    const named = partNames(leaves, kinds);
    expect(named.find((n) => n.name === 'thermoblock heater')).toMatchObject({ context: 'heaters' });
    expect(named.find((n) => n.name === 'delta thermal')).toMatchObject({ mixed: true });
    const meaning = scriptedMeaning({
      // Close to the probe only with its kind beside its name; the other sensor is of the same
      // kind, so no rival.
      'thermistor|ntc probe sensors': 0.62,
      'thermistor|ntc probe': 0.4,
      'thermistor|sensors': 0.45,
      'thermistor|pressure transducer sensors': 0.55,
      'thermistor|heaters': 0.35,
      // A maker's name (Delta Thermal makes sensors and heaters) is no part.
      'warmth|delta thermal': 0.8,
    });
    const g = new Grounder(new Vocabulary(vocabularyColumns), meaning, named);
    expect(await g.ground('thermistor')).toMatchObject({ via: 'meaning', term: 'ntc probe' });
    expect((await g.ground('warmth')).level).toBeNull();
  });

  it('drops a generic head after a hyphenated qualifier the parts name ("wi-fi chips" → "wi-fi")', async () => {
    // Another shop's values: the hyphenated word is in one part's name, the head word in another's.
    const columns: VocabularyColumn[] = [
      { column: 'item_master.item_description', values: ['Wi-Fi bridge module', 'Chip antenna 2.4GHz'] },
      { column: 'item_master.category', values: ['RADIO', 'ANTENNA'] },
    ];
    const g = new Grounder(
      new Vocabulary(columns),
      MEANING,
      partNames(['Wi-Fi bridge module', 'Chip antenna 2.4GHz', 'RADIO', 'ANTENNA']),
    );
    // "wi-fi" and "chips" each exist, never on one item: the qualifier is the part.
    expect(await g.ground('wi-fi chips')).toMatchObject({ term: 'wi-fi', level: 2, via: 'qualifier' });
  });

  it('drops a last word that names nothing only when meaning finds the phrase the same without it', async () => {
    const meaning = scriptedMeaning({ 'gear pump pronto|gear pump': 0.95, 'gear pump seals|gear pump': 0.8 });
    const g = new Grounder(new Vocabulary(vocabularyColumns), meaning, names);
    expect(await g.ground('gear pump pronto')).toMatchObject({
      term: 'gear pump',
      asked: 'gear pump pronto',
      level: 2,
      via: 'meaning',
    });
    // A word that changes what part is meant (seals of a pump are no pump) keeps the phrase missing.
    expect((await g.ground('gear pump seals')).level).toBeNull();
  });

  it('offers the parts of the kind its known words name, all of them and nothing else, never a maker', async () => {
    const g = new Grounder(new Vocabulary(vocabularyColumns), scriptedMeaning({}), names);
    const unknownQualifier = await g.ground('peristaltic pumps');
    expect(unknownQualifier).toMatchObject({ level: null, unclear: ['peristaltic'] });
    expect(unknownQualifier.nearest?.length).toBeGreaterThan(0);
    for (const part of unknownQualifier.nearest ?? []) expect(part.toLowerCase()).toContain('pump');
    // Nothing known: the nearest parts by meaning, but no maker among them.
    const meaning = scriptedMeaning({ 'froth wand|delta thermal': 0.9, 'froth wand|thermoblock heater': 0.5 });
    // A maker's name is filed under several kinds (no single kind: `null`).
    const withMaker = [...names, ...partNames(['Delta Thermal'], new Map([['Delta Thermal', null]]))];
    const offered = await new Grounder(new Vocabulary(vocabularyColumns), meaning, withMaker).ground('froth wand');
    expect(offered.nearest?.[0]).toBe('Thermoblock heater');
    expect(offered.nearest).not.toContain('Delta Thermal');
  });

  it('names the part of a scene when nothing grounds, not the situation around it', () => {
    expect(namedRun('our supplier of ceramic grinders went bust')).toBe('ceramic grinders');
    expect(namedRun('a recall notice on the brass boilers')).toBe('brass boilers');
    expect(namedRun('grinders')).toBe('grinders');
  });
});

describe('exclusions, overlap and kinds in SQL (both dialects)', () => {
  const bigQuery = bigQueryDialect('fake-project');
  const DEFAULTS = ['item_master.category', 'item_master.item_description'];
  const concept = (term: string, strategy: StrategyNumber, extra: Partial<ConceptQuery> = {}): ConceptQuery => ({
    term,
    strategy,
    columns: strategy === 1 ? ['item_master.category'] : ['item_master.item_description'],
    ...extra,
  });

  for (const dialect of [duckDbDialect, bigQuery]) {
    it(`${dialect.name}: leaves out the BOMs that use an excluded part, or only its lines`, async () => {
      const build = (concepts: ConceptQuery[], scope: 'direct' | 'top_level' = 'direct', extra = {}) =>
        buildStrategyQuery({
          dialect,
          allow,
          strategy: 2,
          columns: DEFAULTS,
          terms: concepts.filter((c) => !c.exclude).map((c) => c.term),
          concepts,
          scope,
          ...extra,
        });
      // Heater; the gear pump is on A-101.
      const butNot = build([concept('heater', 2), concept('gear pump', 2, { exclude: 'bom' })]);
      expect(butNot.sql).toContain('= 0');
      expect(butNot.sql).not.toMatch(/heater|gear/i);
      expect(await ids(dialect, butNot)).toEqual(['A-103']);
      // Sensors other than pressure transducers: the lines of the other sensors (A-101's and
      // A-199's probes), not the BOMs without any transducer (A-199 alone).
      const otherThan = build([concept('sensors', 1), concept('pressure transducer', 2, { exclude: 'component' })]);
      expect(await ids(dialect, otherThan)).toEqual(['A-101', 'A-199']);
      // Only an exclusion: every BOM with active lines, but those that use it.
      const none = build([concept('touch display', 2, { exclude: 'bom' })]);
      expect(await ids(dialect, none)).toEqual(['A-101', 'A-103', 'A-199', 'F-001', 'F-002']);
      // Through every level: the products with a probe, but none with a touch display.
      const products = build([concept('probe', 2), concept('touch display', 2, { exclude: 'bom' })], 'top_level', {
        parentKind: { column: 'item_master.item_type', term: 'finished good' },
      });
      expect(await ids(dialect, products)).toEqual([]);
      const withProbe = build([concept('probe', 2)], 'top_level', {
        parentKind: { column: 'item_master.item_type', term: 'finished good' },
      });
      // The spare board has a probe and no parent: it is no product.
      expect(await ids(dialect, withProbe)).toEqual(['F-001']);
      // A part word: the control knob's BOM, not the product whose control board holds the word.
      expect(await ids(dialect, build([concept('control', 2)]))).toEqual(['A-103', 'F-001']);
      expect(await ids(dialect, build([concept('control', 2, { partsOnly: true })]))).toEqual(['A-103']);
      expect(
        await ids(
          dialect,
          build([concept('control', 2, { partsOnly: true })], 'top_level', {
            parentKind: { column: 'item_master.item_type', term: 'finished good' },
          }),
        ),
      ).toEqual(['F-002']);
    });

    it(`${dialect.name}: tells whether two phrases share a part, and which kinds the BOMs end in`, async () => {
      const overlap = async (a: ConceptQuery, b: ConceptQuery) =>
        Number((await ids(dialect, buildOverlapQuery({ dialect, allow, concepts: [a, b] }), 'overlap'))[0]);
      // Two active lines carry a probe, which is a sensor; no line is both a heater and a probe.
      expect(await overlap(concept('sensors', 1), concept('probe', 2))).toBe(2);
      expect(await overlap(concept('heater', 2), concept('probe', 2))).toBe(0);
      const used = (column: string, term: string) =>
        ids(dialect, buildKindUsageQuery({ dialect, allow, kind: { column, term } }), 'used_as_component');
      expect(await used('item_master.item_type', 'finished goods')).toEqual(['0']);
      expect(await used('item_master.item_type', 'subassemblies')).not.toEqual(['0']);
      const leaves = buildLeafValuesQuery({ dialect, allow, column: 'item_master.item_type' });
      expect(await ids(dialect, leaves, 'value')).toEqual(['COMPONENT']);
    });
  }
});

describe('the resolver and the ladder on the small warehouse', () => {
  // One set of activities for every question, as one worker holds them: they keep the
  // warehouse's column listings and vocabularies between calls, so each question no longer reads
  // them all again (three quarters of this file's time). The warehouse does not change here, so
  // every question is grounded on the same values as before; the first one still reads them.
  let shared: ReturnType<typeof createBomActivities> | undefined;
  const acts = () =>
    inActivityEnvironment(
      (shared ??= createBomActivities({ warehouse: duck, close: async () => {} } as unknown as Backends, {
        meaning: async () => MEANING,
      })),
    );

  const grounderOf = () => new Grounder(new Vocabulary(vocabularyColumns), MEANING, names);

  async function answer(question: string): Promise<{ resolved: ResolvedColumns; ids: string[] }> {
    const a = acts();
    const parsed = parseBomQuestion(question);
    const resolved = await a.resolveBomColumns({
      dataset: 'shop',
      focusTerms: parsed.concepts,
      schemaHints: [],
      question,
    });
    const levels = (resolved.concepts ?? []).filter((c) => c.level !== null && !c.exclude).map((c) => c.level!);
    if ((resolved.missing_terms ?? []).length && !levels.length) return { resolved, ids: [] };
    for (let n = Math.min(1, ...levels); n <= 3; n++) {
      const run = await a.runBomStrategy({
        dataset: 'shop',
        strategy: n as StrategyNumber,
        candidateColumns: resolved.candidate_columns,
        searchTerms: resolved.search_terms,
        concepts: resolved.concepts,
        match: resolved.match,
        scope: resolved.scope,
        ...(resolved.parent_kind ? { parentKind: resolved.parent_kind } : {}),
      });
      if (run.rows.length) return { resolved, ids: run.rows.map((r) => String(r.parent_item_number)).sort() };
    }
    return { resolved, ids: [] };
  }

  it('"products" in a scene: the finished items at every level, never an orphan assembly or a frame word', async () => {
    const { resolved, ids } = await answer('If our serial flash supplier went bust, which products would be hit?');
    expect(resolved.missing_terms).toEqual([]);
    expect(resolved.scope).toBe('top_level');
    expect(resolved.parent_kind).toMatchObject({ column: expect.stringMatching(/^item_master\./) });
    // Serial flash is on A-102 (in F-001) and on the spare board A-199, which no product uses.
    expect(ids).toEqual(['F-001']);
  });

  it('cuts what happens to the part off a scene when the tagger reads it as a verb, not only "-ed"/"-ing" forms', async () => {
    const ran = await answer('Imagine pinch valves ran short next month; which units are hit?');
    expect(ran.resolved.missing_terms).toEqual([]);
    expect(ran.ids).toEqual(['A-103']);
    const become = await answer('Suppose gear pumps become scarce; which units suffer?');
    expect(become.resolved.missing_terms).toEqual([]);
    expect(become.ids).toEqual(['A-101']);
  });

  it('"at any level" with no kind named: what the BOMs end in, never an item that merely has no parent', async () => {
    const { resolved, ids } = await answer('What uses a serial flash at any level?');
    expect(resolved.scope).toBe('top_level');
    // The spare board A-199 holds serial flash and nothing uses it; it is not what the BOMs end in.
    expect(ids).toEqual(['F-001']);
  });

  it('"the machines we sell" are the products, by meaning, through every level', async () => {
    const { resolved, ids } = await answer('Which of the machines we sell contain a pinch valve?');
    expect(resolved.scope).toBe('top_level');
    expect(ids).toEqual(['F-002']);
  });

  it('finds the part after the verb of a scene ("our vendor just put X on allocation"), never a noun read as a verb', async () => {
    const put = await answer('Our vendor just put gear pumps on allocation for a year. Which units does that hit?');
    expect(put.resolved.missing_terms).toEqual([]);
    expect(put.ids).toEqual(['A-101']);
    const longer = await answer('Suppose we can no longer buy gear pumps; which units are hit?');
    expect(longer.resolved.missing_terms).toEqual([]);
    expect(longer.ids).toEqual(['A-101']);
    // After "our", a word the tagger might call a verb opens the part's name.
    const ours = await answer('Our pinch valve maker is on allocation for a year; which units are at risk?');
    expect(ours.resolved.concepts?.[0]).toMatchObject({ term: expect.stringContaining('pinch valve') });
  });

  it('reads the clause a question word opens as the question, and "has just gone" as a tense, not a use', async () => {
    const hold = await answer('Service has put the pinch valves on hold after a leak test. Which units have one?');
    expect(hold.resolved.missing_terms).toEqual([]);
    expect(hold.ids).toEqual(['A-103']);
    const gone = await answer('Our gear pump maker has just gone under. Which units are hit?');
    expect(gone.resolved.missing_terms).toEqual([]);
    expect(gone.ids).toEqual(['A-101']);
  });

  it('takes the scene’s part when the question’s own clause names no kind of part, never for an absent part', async () => {
    const eol = await answer('We got an end-of-life notice for the pinch valves; which units need a redesign?');
    expect(eol.resolved.missing_terms).toEqual([]);
    expect(eol.ids).toEqual(['A-103']);
    const absent = await answer('We are moving the gear pump line; which units use flux widgets?');
    expect(absent.ids).toEqual([]);
    expect(absent.resolved.missing_terms).toEqual(['flux widgets']);
  });

  it('answers "X but not Y" as a set difference and "other than" by what the parts share', async () => {
    const butNot = await answer('Which units carry a heater but not a gear pump?');
    expect(butNot.resolved.concepts?.find((c) => c.exclude)).toMatchObject({ term: 'gear pump', exclude: 'bom' });
    expect(butNot.resolved.search_terms).toEqual(['heater']);
    expect(butNot.ids).toEqual(['A-103']);
    const otherThan = await answer('Which units use sensors other than pressure transducers?');
    expect(otherThan.resolved.concepts?.find((c) => c.exclude)?.exclude).toBe('component');
    expect(otherThan.ids).toEqual(['A-101', 'A-199']);
    // Y is another part altogether: "other than" leaves out the BOMs that use it.
    const another = await answer('Which units use valves other than those with a gear pump?');
    expect(another.ids).toEqual(['A-103']);
    // "except" takes out the units that use the excluded part, even when it is a kind of the part asked for.
    const except = await answer('Which units use sensors, except the transducer ones?');
    expect(except.resolved.concepts?.find((c) => c.exclude)?.exclude).toBe('bom');
    expect(except.ids).toEqual(['A-199']);
    // A bracketed aside narrows what counts as the part: the transducers' lines, not their units.
    const aside = await answer('Which units use sensors? (the sensing elements as such, no pressure transducers)');
    expect(aside.resolved.concepts?.find((c) => c.exclude)?.exclude).toBe('component');
    expect(aside.ids).toEqual(['A-101', 'A-199']);
    // An aside that is only a negation says what is left out: never one more part the BOM must use.
    const bare = await answer('Which units use a gear pump (not the vibratory one)?');
    expect(bare.resolved.concepts?.find((c) => c.exclude)).toMatchObject({
      term: 'vibratory pump',
      exclude: 'component',
    });
    expect(bare.ids).toEqual(['A-101']);
    // A concessive after the part says what does not matter, not what the part is.
    expect(parseBomQuestion('Which units carry heaters whatever the wattage?').concepts).toEqual(['heaters']);
    expect((await answer('Which units carry heaters whatever the wattage?')).ids).toEqual(['A-101', 'A-103']);
    // "no matter …" opens a concessive as "whatever" does; "of any sort" says no more than "of any kind".
    expect(parseBomQuestion('Which units carry heaters, no matter how they are rated?').concepts).toEqual(['heaters']);
    expect(parseBomQuestion('Which units carry a heater of any sort?').concepts).toEqual(['heater']);
    expect(parseBomQuestion('Which units carry a heater of any variety?').concepts).toEqual(['heater']);
    expect(parseBomQuestion('Which units use valves (but no pumps)?')).toMatchObject({
      concepts: ['valves'],
      narrowed: ['pumps'],
    });
    // An excluded phrase that matches nothing leaves nothing out, and says so.
    const nothing = await answer('Which units carry a heater but not a milk frother?');
    expect(nothing.resolved.excluded_missing).toEqual(['milk frother']);
    expect(nothing.ids).toEqual(['A-101', 'A-103']);
  });

  it('answers generic heads and synonyms from the data, and an absent part as absent', async () => {
    expect((await answer('Which boards have memory chips on them?')).ids).toEqual(['A-102', 'A-199']);
    expect((await answer('Which products have a screen?')).ids).toEqual(['F-001']);
    const absent = await answer('Which units use a peristaltic pump?');
    expect(absent.ids).toEqual([]);
    expect(absent.resolved.missing_terms).toEqual(['peristaltic pump']);
    expect(absent.resolved.unclear).toEqual({ 'peristaltic pump': ['peristaltic'] });
    expect(absent.resolved.closest?.['peristaltic pump']?.[0]).toBe('PUMPS');
    const scene = await answer('If our supplier of milk frothers went bust, which products would be hit?');
    expect(scene.resolved.missing_terms).toEqual(['milk frothers']);
  });

  it('answers a part word with parts, not with the assemblies whose names hold it', async () => {
    // "Control board for Barista One" (in F-001) is an assembly; the control knob (in A-103) a part.
    const { resolved, ids } = await answer('Which BOMs have a control?');
    expect(resolved.concepts?.[0]).toMatchObject({ term: 'control', parts_only: true });
    expect(ids).toEqual(['A-103']);
  });

  it('heartbeats while it judges meaning (a cold embedder may take longer than the heartbeat timeout)', async () => {
    const env = mockActivityEnvironment();
    let beats = 0;
    env.on('heartbeat', () => beats++);
    const seen: number[] = [];
    const meaning: Meaning = {
      similarities: async (text, others) => {
        seen.push(beats);
        return MEANING.similarities(text, others);
      },
    };
    const { resolveBomColumns } = createBomActivities(
      { warehouse: duck, close: async () => {} } as unknown as Backends,
      {
        meaning: async () => meaning,
      },
    );
    await env.run(resolveBomColumns, {
      dataset: 'shop',
      focusTerms: ['oscillating pump'],
      schemaHints: [],
      question: 'Which units use an oscillating pump?',
    });
    expect(seen.length).toBeGreaterThan(1);
    // Each judgement runs inside a heartbeat of its own, even three started at once.
    seen.forEach((n, i) => expect(n).toBeGreaterThan(i ? seen[i - 1] : 0));
  });

  it('searches parts named side by side in one phrase, each, on one BOM', async () => {
    expect(grounderOf().sideBySide('gear pump as well as a pressure transducer')).toEqual([
      'gear pump',
      'pressure transducer',
    ]);
    // A word after the only part, or two parts with nothing between them, keep the phrase whole.
    expect(grounderOf().sideBySide('valve drivers')).toBeNull();
    expect(grounderOf().sideBySide('gear pump pressure transducer')).toBeNull();
    // Two parts with only content words between them are one name the data lacks, not two parts.
    expect(grounderOf().sideBySide('gear pump brass pressure transducer')).toBeNull();
    const both = await answer('Which units have a gear pump as well as a pressure transducer?');
    expect(both.resolved.match).toBe('all');
    expect(both.ids).toEqual(['A-101']);
  });

  it('reads the verb after the subject by the determiner that follows it, and where the part sits as no part', async () => {
    // "hold" is no usage verb it lists: read as the subject, "hold a" once cut the part in two.
    expect(parseBomQuestion('Which units hold a gear pump?')).toMatchObject({
      concepts: ['gear pump'],
      subject: 'units',
    });
    const held = await answer('Which units hold a gear pump?');
    expect(held.ids).toEqual(['A-101']);
    // "on any unit" is where the part sits.
    expect(parseBomQuestion('Is a gear pump on any unit?').concepts).toEqual(['gear pump']);
    // An aside that holds the part is still read ("the ones that use …").
    expect(parseBomQuestion('Which units are affected (the ones that use the gear pump)?').concepts).toEqual([
      'gear pump',
    ]);
    // A notice "on" a part is about it: only a quantifier makes what follows a place.
    expect(parseBomQuestion('What would a recall notice on the gear pump affect?').concepts).toEqual([
      'recall notice on the gear pump',
    ]);
  });

  it('takes the scene’s subject when what happens to it names no thing, and a relative apposition as no second part', async () => {
    const notice = await answer('The gear pump has had a recall notice. Which units use it?');
    expect(notice.resolved.search_terms).toEqual(['gear pump']);
    expect(notice.ids).toEqual(['A-101']);
    // What follows the verb is a part the data lacks: it stays the question, never the subject.
    const lacking = await answer('Do any of our units take a peristaltic pump? If so, which ones?');
    expect(lacking.ids).toEqual([]);
    expect(parseBomQuestion('Which units include a gear pump, the piece that moves the water?').concepts).toEqual([
      'gear pump',
    ]);
    expect(
      parseBomQuestion('Which units use a knob, a heater or the valve that lets steam out?').concepts,
    ).toHaveLength(3);
    // A modal or "it" written in capitals is a name; other function words in capitals are emphasis,
    // and a question all in capitals is read as usual.
    expect(parseBomQuestion('Where do we fit an IT module?').concepts).toEqual(['IT module']);
    expect(parseBomQuestion('Which units CAN take a knob?').concepts).toEqual(['knob']);
    expect(parseBomQuestion('Which units do NOT use a knob?')).toMatchObject({ concepts: [], excluded: ['knob'] });
    expect(parseBomQuestion('Which units use BOTH a knob AND a heater?').concepts).toEqual(['knob', 'heater']);
    expect(parseBomQuestion('Which units USE the knob?').concepts).toEqual(['knob']);
    expect(parseBomQuestion('What PRODUCTS use the knob?').scope).toBe('top_level');
    expect(parseBomQuestion('WHICH UNITS USE A KNOB OR A HEATER?').concepts).toEqual(['knob', 'heater']);
    expect(parseBomQuestion('Which BOMs use a knob?').concepts).toEqual(['knob']);
  });

  it('in a scene, takes the part before what happens to it, but never cuts a part’s own name', async () => {
    const maker = await answer('If Brightwater stops shipping, which units are affected?');
    expect(maker.resolved.search_terms).toEqual(['brightwater']);
    expect(maker.ids).toEqual(['A-101', 'A-103']);
    const drivers = await answer('If our supplier of valve drivers went bust, which products would be hit?');
    expect(drivers.resolved.missing_terms).toEqual(['valve drivers']);
    expect(drivers.ids).toEqual([]);
  });
});
