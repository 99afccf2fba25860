/**
 * Grounded BOM terms: the question's structure (subject, object, "and"/"or", indented scope), the
 * vocabulary grounding (phrase before looser strategies, spelling, closest parts), and the SQL of
 * phrases, "and" and the recursive where-used on DuckDB and (translated) BigQuery.
 */
import fc from 'fast-check';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildStrategyQuery,
  ColumnAllowList,
  normaliseTerms,
  pluralRegex,
  type BuiltQuery,
  type ConceptQuery,
} from '../../flows/bom/activities/sql';
import { alignConcepts, Vocabulary } from '../../flows/bom/activities/terms';
import { DATA_DIR } from '../../backends';
import { DuckDbWarehouse } from '../../backends/warehouse/duckdb';
import { bigQueryDialect, duckDbDialect, type SqlDialect } from '../../backends/warehouse/sql';
import { editDistance, exactForms, isStopWord, parseBomQuestion } from '../../domain/bom-text';
import { translateBigQuerySql } from '../fakes/bigquery';

let duck: DuckDbWarehouse;
let allow: ColumnAllowList;
let vocabulary: Vocabulary;
const bigQuery = bigQueryDialect('fake-project');
const DEFAULTS = ['item_master.category', 'item_master.item_description'];

beforeAll(async () => {
  duck = await DuckDbWarehouse.open({ path: ':memory:', seedDir: path.join(DATA_DIR, 'warehouse') });
  allow = new ColumnAllowList('bom_demo', await duck.listColumns('bom_demo'));
  const columns = allow.stringColumns().filter((c) => /^(item_master|bom_details)\./.test(c));
  vocabulary = new Vocabulary(
    await Promise.all(
      columns.map(async (column) => {
        const [table, name] = column.split('.');
        return { column, values: (await duck.sampleDistinct('bom_demo', table, name, 1000)).map((v) => v.value) };
      }),
    ),
  );
});
afterAll(async () => duck?.close());

async function ids(dialect: SqlDialect, built: BuiltQuery): Promise<string[]> {
  const sql = (dialect.name === 'bigquery' ? translateBigQuerySql(built.sql) : built.sql).replace(
    /LIMIT 100$/,
    'LIMIT 100000',
  );
  const { rows } = await duck.query({ sql, params: built.params, arrayTypes: built.arrayTypes });
  return rows.map((r) => String(r.parent_item_number)).sort();
}

async function truth(sql: string): Promise<string[]> {
  return (await duck.query({ sql })).rows.map((r) => String(r.id)).sort();
}

const directTruth = (cond: string) =>
  truth(`SELECT DISTINCT bd.parent_item_number AS id FROM bom_demo.bom_details bd JOIN bom_demo.item_master c ON c.item_number = bd.component_item_number
         WHERE bd.is_active AND (${cond})`);

describe('reading a BOM question', () => {
  it('keeps a part phrase whole and leaves the subject out', () => {
    expect(parseBomQuestion('Which boards use current sense resistors?')).toMatchObject({
      concepts: ['current sense resistors'],
      subject: 'boards',
      scope: 'direct',
    });
    expect(parseBomQuestion('Where are OLED displays used?')).toMatchObject({
      concepts: ['oled displays'],
      match: 'any',
    });
    expect(parseBomQuestion('Which BOMs use unobtainium flux capacitors?').concepts).toEqual([
      'unobtainium flux capacitors',
    ]);
    expect(parseBomQuestion('Show me the assemblies that have a PMIC on them').concepts).toEqual(['pmic']);
  });

  it('splits at "or" (any) and "and" (all), and keeps the whole object for a part named with "and"', () => {
    expect(parseBomQuestion('List BOMs using battery or memory components')).toMatchObject({
      concepts: ['battery', 'memory'],
      match: 'any',
    });
    expect(parseBomQuestion('Which BOMs have both an EEPROM and a crystal?')).toMatchObject({
      concepts: ['eeprom', 'crystal'],
      match: 'all',
    });
    expect(parseBomQuestion('Which BOMs use temperature and humidity sensors?')).toMatchObject({
      whole: 'temperature and humidity sensors',
      match: 'all',
    });
    expect(parseBomQuestion('Where are tantalum, ceramic or electrolytic capacitors used?')).toMatchObject({
      concepts: ['tantalum', 'ceramic', 'electrolytic capacitors'],
      match: 'any',
    });
  });

  it('recognises an indented where-used and the kind of item asked for', () => {
    expect(parseBomQuestion('Which finished goods ultimately contain an OLED display?')).toMatchObject({
      concepts: ['oled display'],
      scope: 'top_level',
      subject: 'finished goods',
    });
    expect(parseBomQuestion('In which products are tantalum capacitors used?')).toMatchObject({
      scope: 'top_level',
      subject: 'products',
    });
    expect(parseBomQuestion('What contains a crystal at any level?')).toMatchObject({
      concepts: ['crystal'],
      scope: 'top_level',
      subject: null,
    });
  });

  it('aligns the model focus terms with the question: a split phrase is rejoined, a dropped qualifier kept', () => {
    expect(alignConcepts(['oled displays'], ['oled', 'displays'])).toEqual(['oled displays']);
    expect(alignConcepts(['unobtainium flux capacitors'], ['capacitors'])).toEqual(['unobtainium flux capacitors']);
    expect(alignConcepts(['caps'], ['capacitor'])).toEqual(['capacitor']);
    expect(alignConcepts(['tantalum capacitors', 'crystal'], [])).toEqual(['tantalum capacitors', 'crystal']);
  });
});

describe('grounding in the warehouse vocabulary', () => {
  it('grounds a phrase at the strictest strategy that matches it, in the columns it matches', () => {
    expect(vocabulary.ground('capacitors')).toMatchObject({ level: 1, columns: { 1: ['item_master.category'] } });
    expect(vocabulary.ground('power ics')).toMatchObject({ level: 1, example: 'POWER_IC' });
    expect(vocabulary.ground('tantalum capacitors')).toMatchObject({
      level: 2,
      columns: { 1: [], 2: ['item_master.item_description'] },
    });
    expect(vocabulary.ground('fuses')).toMatchObject({ level: 3, substring: 'fuse' });
    expect(vocabulary.ground('cmp-000123').level).toBe(1);
  });

  it('grounds a phrase whose words are all in one value but not in order, before giving up', async () => {
    expect(vocabulary.ground('25mhz crystal')).toMatchObject({
      level: 2,
      any_order: true,
      example: 'Crystal 25MHz 18pF',
    });
    expect(vocabulary.ground('m3 standoffs')).toMatchObject({ level: 2, any_order: true });
    // Across the item's columns: "JST PH" is in the description, "connector" is the category.
    expect(vocabulary.ground('jst ph connector')).toMatchObject({
      level: 2,
      any_order: true,
      columns: { 2: ['item_master.item_description', 'item_master.category'] },
    });
    const jst = buildStrategyQuery({
      dialect: duckDbDialect,
      allow,
      strategy: 2,
      columns: DEFAULTS,
      terms: ['jst ph connector'],
      concepts: [
        {
          term: 'jst ph connector',
          strategy: 2,
          columns: ['item_master.item_description', 'item_master.category'],
          anyOrder: true,
        },
      ],
    });
    expect(await ids(duckDbDialect, jst)).toEqual(await directTruth("c.item_description ILIKE 'jst ph%'"));
    // Each word exists ("Ceramic capacitor", RESISTOR), but on no one item: the query finds nothing.
    const ceramic = vocabulary.ground('ceramic resistors');
    expect(ceramic).toMatchObject({ level: 2, any_order: true });
    const none = buildStrategyQuery({
      dialect: duckDbDialect,
      allow,
      strategy: 2,
      columns: DEFAULTS,
      terms: ['ceramic resistors'],
      concepts: [{ term: 'ceramic resistors', strategy: 2, columns: ceramic.columns[2], anyOrder: true }],
    });
    expect(await ids(duckDbDialect, none)).toEqual([]);
    const built = buildStrategyQuery({
      dialect: duckDbDialect,
      allow,
      strategy: 2,
      columns: DEFAULTS,
      terms: ['25mhz crystal'],
      concepts: [{ term: '25mhz crystal', strategy: 2, columns: ['item_master.item_description'], anyOrder: true }],
    });
    expect(built.params).toEqual({ pattern_0_0: '(?i)\\b25mhz', pattern_0_1: '(?i)\\b(crystal|crystals)\\b' });
    expect(await ids(duckDbDialect, built)).toEqual(await directTruth("c.item_description ILIKE 'crystal 25mhz%'"));
  });

  it('finds no part for a qualifier that matches nothing, and offers the closest real parts', () => {
    expect(vocabulary.groundWithCorrection('unobtainium flux capacitors').level).toBeNull();
    expect(vocabulary.closest('unobtainium flux capacitors')).toEqual(
      expect.arrayContaining(['Tantalum capacitor', 'Ceramic capacitor']),
    );
    expect(vocabulary.closest('graphene supercapacitor')[0]).toMatch(/capacitor/i);
    expect(vocabulary.closest('hydraulic valves')).toEqual([]);
  });

  it('corrects misspelt words to the vocabulary, but not short words one edit from another', () => {
    expect(vocabulary.groundWithCorrection('tantallum capacitors')).toMatchObject({
      term: 'tantalum capacitors',
      asked: 'tantallum capacitors',
      level: 2,
    });
    expect(vocabulary.groundWithCorrection('acelerometers')).toMatchObject({ term: 'accelerometers', level: 2 });
    expect(vocabulary.correct('flux capacitors')).toBeNull();
    expect(editDistance('moter', 'motor')).toBe(1);
    expect(editDistance('tehrmistor', 'thermistor')).toBe(1);
  });
});

describe('phrases, "and" and the recursive where-used in SQL', () => {
  it('matches a phrase word by word in order, plural or singular, across " ", "_" and "-"', () => {
    const regex = new RegExp(pluralRegex(['tantalum capacitors']).replace('(?i)', ''), 'i');
    expect(regex.test('Tantalum capacitor 22uF 10V')).toBe(true);
    expect(regex.test('Ceramic capacitor 100nF')).toBe(false);
    expect(regex.test('capacitor, tantalum')).toBe(false);
    expect(new RegExp(pluralRegex(['power ics']).replace('(?i)', ''), 'i').test('POWER_IC')).toBe(true);
    expect(exactForms('memory ics')).toEqual(
      expect.arrayContaining(['memory ics', 'memory ic', 'memory_ic', 'memories_ic']),
    );
  });

  for (const dialect of [duckDbDialect, bigQuery]) {
    it(`${dialect.name}: a phrase, "and" and the indented where-used give the hand-written answers`, async () => {
      const tantalum = buildStrategyQuery({
        dialect,
        allow,
        strategy: 2,
        columns: DEFAULTS,
        terms: ['tantalum capacitors'],
      });
      expect(await ids(dialect, tantalum)).toEqual(await directTruth("c.item_description ILIKE 'tantalum capacitor%'"));

      const both: ConceptQuery[] = [
        { term: 'eeprom', strategy: 2, columns: ['item_master.item_description'] },
        { term: 'crystal', strategy: 2, columns: ['item_master.item_description'] },
      ];
      const and = buildStrategyQuery({
        dialect,
        allow,
        strategy: 2,
        columns: DEFAULTS,
        terms: ['eeprom', 'crystal'],
        concepts: both,
        match: 'all',
      });
      expect(and.sql).toContain('HAVING MAX(CASE WHEN');
      const andTruth =
        await truth(`SELECT parent_item_number AS id FROM bom_demo.bom_details bd JOIN bom_demo.item_master c ON c.item_number = bd.component_item_number
        WHERE bd.is_active GROUP BY 1 HAVING bool_or(c.item_description ILIKE 'eeprom%') AND bool_or(c.item_description ILIKE 'crystal%')`);
      expect(andTruth.length).toBeGreaterThan(0);
      expect(await ids(dialect, and)).toEqual(andTruth);

      const top = buildStrategyQuery({
        dialect,
        allow,
        strategy: 2,
        columns: DEFAULTS,
        terms: ['oled display'],
        scope: 'top_level',
      });
      expect(top.sql).toMatch(/^WITH RECURSIVE matched AS \(/);
      // The finished goods that use an OLED display through a subassembly (the data has two levels).
      const fgTruth = await truth(`SELECT DISTINCT fg.parent_item_number AS id FROM bom_demo.bom_details fg
        JOIN bom_demo.bom_details sa ON sa.parent_item_number = fg.component_item_number AND sa.is_active
        JOIN bom_demo.item_master c ON c.item_number = sa.component_item_number
        WHERE fg.is_active AND c.item_description ILIKE 'oled display%' AND fg.parent_item_number LIKE 'FG-%'`);
      const topIds = await ids(dialect, top);
      expect(fgTruth.length).toBe(64);
      // Top of the tree: every finished good, plus the subassemblies no finished good uses.
      expect(topIds.filter((id) => id.startsWith('FG-'))).toEqual(fgTruth);
      const finished = buildStrategyQuery({
        dialect,
        allow,
        strategy: 2,
        columns: DEFAULTS,
        terms: ['oled display'],
        scope: 'top_level',
        parentKind: { column: 'item_master.item_type', term: 'finished goods' },
      });
      expect(await ids(dialect, finished)).toEqual(fgTruth);
    });
  }

  it('keeps values out of the SQL text for "and", top-level and the kind of item (both dialects)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom('a b', "x' OR 1=1 -- y", 'm3 (?i) z')), {
          minLength: 2,
          maxLength: 4,
        }),
        fc.string({ maxLength: 30 }),
        async (terms, kind) => {
          const normalised = normaliseTerms(terms);
          if (normalised.length < 2 || normaliseTerms([kind]).length === 0) return;
          for (const dialect of [duckDbDialect, bigQuery]) {
            const build = (values: string[], kindTerm: string) =>
              buildStrategyQuery({
                dialect,
                allow,
                strategy: 1,
                columns: DEFAULTS,
                terms: values,
                concepts: values.map((term, i): ConceptQuery => ({
                  term,
                  strategy: ((i % 3) + 1) as 1 | 2 | 3,
                  anyOrder: i === 1,
                })),
                match: 'all',
                scope: 'top_level',
                parentKind: { column: 'item_master.item_type', term: kindTerm },
              });
            const built = build(normalised, kind);
            // Same count of words where words are searched one by one (the only thing a value decides).
            const contentWords = (v: string) => Math.max(1, v.split(/\s+/).filter((w) => !isStopWord(w)).length);
            const placeholders = normalised.map((v, i) =>
              i === 1 ? Array.from({ length: contentWords(v) }, (_, j) => `w${j}`).join(' ') : `t${i}`,
            );
            expect(built.sql).toBe(build(placeholders, 'x').sql);
            await ids(dialect, built);
          }
        },
      ),
      { numRuns: 15 },
    );
  });
});

describe('a part named inside a longer clause', () => {
  // A vocabulary of its own (not the demo data): the rule must hold for any warehouse.
  const words = new Vocabulary([
    {
      column: 'items.description',
      values: [
        'Vibration motor 3V coin',
        'LDO regulator 3.3V SOT-23',
        'Hall effect sensor TO-92',
        'Power harness 12-pin',
      ],
    },
    { column: 'items.category', values: ['MOTORS', 'REGULATORS', 'SENSORS', 'CAPACITORS', 'HARNESSES'] },
  ]);
  const groundQuestion = (question: string) =>
    parseBomQuestion(question).concepts.map((phrase) => words.groundWithCorrection(phrase));

  it('finds the part at the end of a scenario with no usage verb', () => {
    const [concept] = groundQuestion('What products would be hit if we lost our supplier of vibration motors?');
    expect(concept.term).toBe('vibration motors');
    expect(concept.level).toBe(2);
  });

  it('drops the words after the part that describe the situation', () => {
    expect(groundQuestion('If the LDO regulator went end of life, which products would be affected?')[0].term).toBe(
      'ldo regulator',
    );
    expect(groundQuestion('Which products have a power harness anywhere in their structure?')[0].term).toBe(
      'power harness',
    );
  });

  it('keeps words after the part that the vocabulary holds, as qualifiers of the same item', () => {
    const [concept] = groundQuestion('Which assemblies rely on a hall effect sensor in a TO-92 package?');
    expect(concept.term).toBe('hall effect sensor to-92');
    expect(concept.level).toBe(1);
  });

  it('keeps the qualifiers before the part, so an absent part stays absent', () => {
    const question = 'What would we be unable to build if we lost our supplier of unobtainium flux capacitors?';
    const [concept] = groundQuestion(question);
    expect(concept.level).toBeNull();
    expect(concept.asked).toContain('unobtainium flux capacitors');
  });

  it('does not take words that name no thing for the part a longer run names', () => {
    const shelf = () =>
      new Vocabulary([
        { column: 'items.description', values: ['Cooling fan 12V', 'Nylon spacer M3'] },
        { column: 'items.category', values: ['FANS', 'SPACERS'] },
      ]);
    // Without a dictionary, the run that grounds is taken, whatever it names.
    expect(shelf().groundWithCorrection('three-way cable tie for cooling').term).toBe('cooling');
    // With one, "cooling" names no thing and "tie" does: the part is the tie, which the data lacks.
    const read = shelf();
    const kinds: Record<string, 'thing' | 'no-thing'> = { cooling: 'no-thing', tie: 'thing', cable: 'thing' };
    read.knowThingWords((w) => kinds[w] ?? 'unknown');
    expect(read.groundWithCorrection('three-way cable tie for cooling').level).toBeNull();
    // A run of things is still found after such words ("for the cooling fan").
    expect(read.groundWithCorrection('spare blades for the cooling fan').term).toBe('cooling fan');
    // A thing named after the run is where the part sits: the run is still the part.
    kinds.tray = 'thing';
    expect(read.groundWithCorrection('cooling parts on the drawer tray').term).toBe('cooling');
  });

  it("grounds a maker's code written between spaces as a word, and an item number by its shape", () => {
    const codes = new Vocabulary([
      { column: 'items.description', values: ['Crystal oscillator XO-M3 25MHz', 'Spare lid, replaces CMP-000123'] },
    ]);
    expect(codes.ground('xo-m3')).toMatchObject({ level: 2, columns: { 2: ['items.description'] } });
    // An item number a description mentions in passing stays an item number.
    expect(codes.ground('cmp-000123')).toMatchObject({ level: 1, columns: { 1: [], 2: [], 3: [] } });
  });

  it('finds nothing when no run of words names a part', () => {
    expect(
      groundQuestion('Which products are hit if we lose the contract with our biggest customer?')[0].level,
    ).toBeNull();
  });
});
