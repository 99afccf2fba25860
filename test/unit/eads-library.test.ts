/**
 * The EADS library loader and the pure EADS helpers: files in upstream's format load unchanged
 * (the project's own fixtures in every run; upstream's examples too where a copy of them is at
 * hand), the project's library is sound, broken files are rejected with their path and field,
 * and the stand-in's parsing works on content it has never seen.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { upstreamDir } from '../helpers/eads-upstream';
import { EadsLibraryError, loadEadsFile, loadEadsLibrary, loadFixture } from '../../flows/eads/activities/library';
import {
  aggregateScr,
  budgetUsed,
  canAffordQuestion,
  computeCompleteness,
  describeFields,
  eligibleEads,
  isAnnotation,
  mergeRefinement,
  refinementSchema,
  stripAnnotations,
  type Json,
  UNDETERMINED,
} from '../../domain/eads-structure';
import {
  eadsRules,
  parseMarkdownTable,
  parseQuantity,
  parseYesNo,
  productName,
  readChoice,
  readChoices,
  splitList,
} from '../../flows/eads/standin';

const LIBRARY = path.resolve(__dirname, '..', '..', 'data', 'eads');
const FIXTURES = path.resolve(__dirname, '..', '..', 'data', 'eads-fixtures');
/** The project's own EADS files written in upstream's format (no project-only keys). */
const UPSTREAM_FORMAT = path.resolve(__dirname, '..', 'fixtures', 'eads-upstream-format');

// The skip reason is printed once per run by test/setup/global.ts (a test file's own output is
// shown only when it fails).
const UPSTREAM = upstreamDir();

/** The stand-in's first question for an EADS, as the interview would ask it with nothing asked yet. */
function standinFirstQuestion(eads: ReturnType<typeof loadEadsFile>): { question: string } {
  const rule = eadsRules.find((r) => r.task === 'eads.question')!;
  return rule.answer({
    task: 'eads.question',
    system: '',
    responseSchema: undefined,
    turns: 1,
    sections: {
      eads: { id: eads.id, name: eads.name, objective: eads.objective },
      remaining_fields: eads.fields,
      asked: [],
    },
  }) as { question: string };
}

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? walk(full) : name.endsWith('.json') ? [full] : [];
  });
}

const containsAnnotation = (value: unknown): boolean =>
  isAnnotation(value) ||
  (Array.isArray(value)
    ? value.some(containsAnnotation)
    : typeof value === 'object' && value !== null && Object.values(value).some(containsAnnotation));

/** What every file in upstream's format must give the loader, whoever wrote it. */
function expectLoadsUnchanged(file: string) {
  const eads = loadEadsFile(file);
  expect(eads.id).toMatch(/^(process|data)\//);
  expect(containsAnnotation(eads.example)).toBe(false);
  expect(eads.instructions.length).toBeGreaterThan(0);
  expect(eads.fields.length).toBeGreaterThan(0);
  expect(eads.budgetDecrement).toBeGreaterThan(0);
  // The stripped example is itself a valid refinement of its EADS.
  const { 'EADS-id': _id, 'exhausted?': _ex, ...fields } = eads.example;
  expect(refinementSchema(eads.example).safeParse(fields).success).toBe(true);
}

describe("EADS files in upstream format (the project's own fixtures)", () => {
  const files = walk(UPSTREAM_FORMAT);

  it("use only upstream's top-level keys, in its topic/name.json layout", () => {
    expect(files.map((f) => path.relative(UPSTREAM_FORMAT, f)).sort()).toEqual([
      'data/delivery-orders.json',
      'process/bakery-warm-up.json',
      'process/packaging-line.json',
    ]);
    const upstreamKeys = ['message-type', 'interview-objective', 'interviewer-agent', 'budget-decrement', 'EADS'];
    for (const file of files) {
      const keys = Object.keys(JSON.parse(readFileSync(file, 'utf8')) as object);
      expect(
        keys.filter((k) => !upstreamKeys.includes(k)),
        file,
      ).toEqual([]);
    }
  });

  it.each(files.map((f) => [path.relative(UPSTREAM_FORMAT, f), f]))('loads %s unchanged', (_name, file) =>
    expectLoadsUnchanged(file),
  );

  it("loads as one library beside the project's, with upstream defaults applied", () => {
    const library = loadEadsLibrary([UPSTREAM_FORMAT]);
    expect(library.eads.map((e) => e.id)).toEqual([
      'data/delivery-orders',
      'process/bakery-warm-up',
      'process/packaging-line',
    ]);
    const line = library.get('process/packaging-line')!;
    expect(line.budgetDecrement).toBe(0.05); // no budget-decrement in the file
    expect(line.interviewer).toBe('process'); // no interviewer-agent in the file
    expect(line.name).toBe('Packaging line');
    expect(line.prerequisites).toEqual([]);
    const orders = library.get('data/delivery-orders')!;
    expect([orders.budgetDecrement, orders.interviewer]).toEqual([0.08, 'data']);
    expect(loadEadsLibrary([LIBRARY, UPSTREAM_FORMAT]).eads).toHaveLength(
      library.eads.length + loadEadsLibrary([LIBRARY]).eads.length,
    );
  });

  it('reads choices, derived fields, quantities, tables and annotations nested in rows', () => {
    const line = loadEadsFile(path.join(UPSTREAM_FORMAT, 'process', 'packaging-line.json'));
    const field = (name: string) => line.fields.find((f) => f.name === name)!;
    expect(line.fields.map((f) => [f.name, f.kind])).toEqual([
      ['line-type', 'text'],
      ['continuous?', 'boolean'],
      ['shift-length', 'quantity'],
      ['stations', 'table'],
    ]);
    expect(field('line-type').choices?.map((c) => c.key)).toEqual(['FLOW-LINE', 'CELL', 'SINGLE-STATION']);
    expect(field('line-type').multiple).toBe(false);
    expect(field('line-type').suggestedQuestion).toBe('Which arrangement fits their line best?');
    expect(field('continuous?').derived).toBe(true);
    expect(field('stations').columns).toEqual([
      { name: 'station-id', kind: 'text' },
      { name: 'inputs', kind: 'list' },
      { name: 'duration', kind: 'quantity' },
    ]);
    expect(line.instructions.map((i) => i.path)).toEqual([
      'exhausted?',
      'line-type',
      'continuous?',
      'shift-length',
      'stations[0].duration',
    ]);
    expect((line.example.stations as Json[])[0]).toEqual({
      'station-id': 'folding',
      inputs: ['flat cartons'],
      duration: { units: 'minutes', 'value-string': '2' },
    });

    const warmUp = loadEadsFile(path.join(UPSTREAM_FORMAT, 'process', 'bakery-warm-up.json'));
    expect(warmUp.fields.every((f) => f.derived)).toBe(true);
    const difficulties = warmUp.fields.find((f) => f.name === 'planning-difficulties')!;
    expect([difficulties.kind, difficulties.multiple, difficulties.choices?.length]).toEqual(['list', true, 4]);

    const orders = loadEadsFile(path.join(UPSTREAM_FORMAT, 'data', 'delivery-orders.json'));
    expect(orders.instructions.map((i) => i.path)).toContain('inquiry-areas[0].inquiry-area-objects[0].definition');
    expect((orders.example['inquiry-areas'] as Array<Record<string, Json>>)[0]['inquiry-area-objects']).toEqual([
      { 'object-id': 'order', definition: 'a code that identifies one delivery order.' },
      { 'object-id': 'drop-time', definition: 'the latest time the goods may arrive.' },
    ]);
  });

  it('gives the stand-in enough to ask their questions and read answers', async () => {
    const warmUp = loadEadsFile(path.join(UPSTREAM_FORMAT, 'process', 'bakery-warm-up.json'));
    const draft = await standinFirstQuestion(warmUp);
    expect(draft.question).toMatch(/^What do you bake, who buys it/);
    const lineType = loadEadsFile(path.join(UPSTREAM_FORMAT, 'process', 'packaging-line.json')).fields[0];
    // A plain answer names the choice by its number or its name.
    expect(await readChoice('2', lineType.choices!)).toBe(lineType.choices![1].key);
    expect(await readChoice(lineType.choices![0].key.toLowerCase(), lineType.choices!)).toBe(lineType.choices![0].key);
  });
});

describe.skipIf(!UPSTREAM.dir)('upstream EADS examples (EADS_UPSTREAM_DIR)', () => {
  const dir = UPSTREAM.dir ?? '';
  const files = UPSTREAM.dir ? walk(dir) : [];

  it('are all present', () => {
    expect(files.map((f) => path.relative(dir, f)).sort()).toEqual([
      'data/orm.json',
      'process/flow-shop.json',
      'process/job-shop--classifiable.json',
      'process/job-shop--unique.json',
      'process/job-shop.json',
      'process/scheduling-problem-type.json',
      'process/timetabling.json',
      'process/warm-up-with-challenges.json',
    ]);
  });

  it.each(files.map((f) => [path.relative(dir, f), f]))('loads %s unchanged', (_name, file) =>
    expectLoadsUnchanged(file),
  );

  it('loads as one library, with upstream defaults applied', () => {
    const library = loadEadsLibrary([dir]);
    expect(library.eads).toHaveLength(8);
    const problemType = library.get('process/scheduling-problem-type')!;
    expect(problemType.budgetDecrement).toBe(0.05); // no budget-decrement in the file
    expect(problemType.interviewer).toBe('process'); // no interviewer-agent in the file
    expect(library.get('data/orm')!.budgetDecrement).toBe(0.08);
    const principal = problemType.fields.find((f) => f.name === 'principal-problem-type')!;
    expect(principal.choices?.map((c) => c.key)).toEqual([
      'FLOW-SHOP-SCHEDULING-PROBLEM',
      'TIMETABLING-PROBLEM',
      'PROJECT-SCHEDULING-PROBLEM',
      'JOB-SHOP-SCHEDULING-PROBLEM',
      'SINGLE-MACHINE-SCHEDULING-PROBLEM',
    ]);
    const warmUp = library.get('process/warm-up-with-challenges')!;
    expect(warmUp.fields.every((f) => f.derived)).toBe(true);
    expect(warmUp.fields.find((f) => f.name === 'scheduling-challenges')!.choices).toHaveLength(15);
  });

  it('gives the stand-in enough to ask upstream questions and read answers', async () => {
    const warmUp = loadEadsFile(path.join(dir, 'process', 'warm-up-with-challenges.json'));
    const draft = await standinFirstQuestion(warmUp);
    expect(draft.question).toMatch(/^What are the products you make or the services you provide/);
    const principal = loadEadsFile(path.join(dir, 'process', 'scheduling-problem-type.json')).fields[0];
    expect(await readChoice('job shop', principal.choices!)).toBe('JOB-SHOP-SCHEDULING-PROBLEM');
  });
});

describe('where the upstream examples are looked for', () => {
  it('only EADS_UPSTREAM_DIR; without it (or a missing folder) the check is skipped with a reason, never fails the run', () => {
    const empty = mkdtempSync(path.join(os.tmpdir(), 'no-siblings-'));
    expect(upstreamDir({})).toEqual({ reason: expect.stringMatching(/set EADS_UPSTREAM_DIR/) });
    expect(upstreamDir({ EADS_UPSTREAM_DIR: UPSTREAM_FORMAT })).toEqual({ dir: UPSTREAM_FORMAT });
    expect(upstreamDir({ EADS_UPSTREAM_DIR: path.join(empty, 'nope') }).reason).toMatch(/nope does not exist/);
    rmSync(empty, { recursive: true, force: true });
  });
});

describe('the project EADS library', () => {
  const library = loadEadsLibrary([LIBRARY]);

  it('covers warm-up, problem type, flow shop, job shop, timetabling, data, resources and optimality', () => {
    expect(library.eads.map((e) => e.id).sort()).toEqual([
      'data/scheduling-data',
      'optimality/objectives',
      'process/flow-shop',
      'process/job-shop',
      'process/scheduling-problem-type',
      'process/timetabling',
      'process/warm-up-with-challenges',
      'process/work-steps',
      'resources/resource-pools',
    ]);
    for (const e of library.eads) expect(e.name.length, e.id).toBeGreaterThan(3);
  });

  it('orders pursuits by prerequisites, and the problem type picks the process EADS', () => {
    const graph = library.eads.map((e) => ({ id: e.id, prerequisites: e.prerequisites, appliesWhen: e.appliesWhen }));
    expect(eligibleEads(graph, [], {})).toEqual(['process/warm-up-with-challenges']);
    expect(eligibleEads(graph, ['process/warm-up-with-challenges'], {})).toEqual(['process/scheduling-problem-type']);
    const afterType = ['process/warm-up-with-challenges', 'process/scheduling-problem-type'];
    for (const [type, eads] of [
      ['FLOW-SHOP-SCHEDULING-PROBLEM', 'process/flow-shop'],
      ['JOB-SHOP-SCHEDULING-PROBLEM', 'process/job-shop'],
      ['TIMETABLING-PROBLEM', 'process/timetabling'],
    ]) {
      expect(
        eligibleEads(graph, afterType, { 'process/scheduling-problem-type.principal-problem-type': type }),
      ).toEqual([eads, 'data/scheduling-data', 'resources/resource-pools']);
    }
    // A problem type not asked yet skips the process EADS but not the rest.
    expect(eligibleEads(graph, afterType, {})).toEqual(['data/scheduling-data', 'resources/resource-pools']);
    // One asked about and left open still gets its steps asked for, by the EADS that assumes no type.
    expect(
      eligibleEads(graph, afterType, { 'process/scheduling-problem-type.principal-problem-type': UNDETERMINED }),
    ).toEqual(['process/work-steps', 'data/scheduling-data', 'resources/resource-pools']);
    expect(eligibleEads(graph, [...afterType, 'resources/resource-pools'], {})).toEqual([
      'data/scheduling-data',
      'optimality/objectives',
    ]);
  });

  it('has fixtures of three problem types that load', () => {
    const ids = readdirSync(FIXTURES).map((f) => f.replace('.json', ''));
    expect(ids.sort()).toEqual(['brewery-flow-shop', 'machine-shop-job-shop', 'school-timetable']);
    for (const id of ids) expect(loadFixture(FIXTURES, id).facts.length).toBeGreaterThan(5);
    expect(() => loadFixture(FIXTURES, 'nope')).toThrow(
      /unknown fixture "nope" \(known: brewery-flow-shop, machine-shop-job-shop, school-timetable\)/,
    );
  });
});

describe('broken EADS files', () => {
  const good = {
    'message-type': 'EADS-INSTRUCTIONS',
    'interview-objective': 'Learn things.',
    EADS: { 'EADS-id': 'process/thing', steps: { val: ['a'], comment: 'Which steps?' } },
  };
  const cases: Array<[string, unknown, RegExp]> = [
    ['wrong message type', { ...good, 'message-type': 'STATUS' }, /message-type/],
    [
      'a misspelt top-level key',
      { ...good, prerequisite: [] },
      /\(root\).*prerequisite|Unrecognized key.*prerequisite/,
    ],
    [
      'an EADS-id without a topic',
      { ...good, EADS: { ...good.EADS, 'EADS-id': 'thing' } },
      /EADS\.EADS-id: expected "<process\|data\|resources\|optimality>\/<kebab-name>"/,
    ],
    [
      'an annotation with an extra key',
      { ...good, EADS: { ...good.EADS, steps: { val: ['a'], comment: 'x', note: 'y' } } },
      /EADS\.steps: an annotation may only hold "val" and "comment" \(found "note"\)/,
    ],
    [
      'a comment that is not text',
      { ...good, EADS: { ...good.EADS, steps: { val: ['a'], comment: 42 } } },
      /EADS\.steps\.comment: expected a string/,
    ],
    [
      'a nested comment without val',
      { ...good, EADS: { ...good.EADS, rows: [{ id: 'r1', size: { comment: 'how big?' } }] } },
      /EADS\.rows\[0\]\.size: an annotation has a "comment" but no "val"/,
    ],
    ['a budget above 1', { ...good, 'budget-decrement': 1.5 }, /budget-decrement/],
    ['no fields', { ...good, EADS: { 'EADS-id': 'process/thing' } }, /EADS: .*no fields to fill/],
  ];

  it.each(cases)('rejects %s, naming the file and the field', (_name, content, message) => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'eads-broken-'));
    const file = path.join(dir, 'process--thing.json');
    writeFileSync(file, JSON.stringify(content));
    let error: unknown;
    try {
      loadEadsLibrary([dir]);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(EadsLibraryError);
    expect((error as Error).message.startsWith(`${file}: `)).toBe(true);
    expect((error as Error).message).toMatch(message);
  });

  it('rejects invalid JSON, unknown prerequisites, a bad applies-when, duplicates and cycles', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'eads-graph-'));
    const write = (name: string, content: unknown) =>
      writeFileSync(path.join(dir, name), typeof content === 'string' ? content : JSON.stringify(content));
    const expectError = (field: string, message: RegExp) => {
      try {
        loadEadsLibrary([dir]);
        expect.fail('expected the library to be rejected');
      } catch (err) {
        expect(err).toBeInstanceOf(EadsLibraryError);
        expect((err as EadsLibraryError).field).toBe(field);
        expect((err as Error).message).toMatch(message);
      }
    };
    write('a.json', '{ "message-type": ');
    expectError('(file)', /a\.json: \(file\): not valid JSON/);
    write('a.json', { ...good, prerequisites: ['process/missing'] });
    expectError('prerequisites.0', /unknown EADS "process\/missing"/);
    write('a.json', { ...good, 'applies-when': { eads: 'process/thing', field: 'nope', 'one-of': ['x'] } });
    expectError('applies-when.field', /"nope" is not a field of process\/thing/);
    write('a.json', good);
    write('b.json', good);
    expectError('EADS.EADS-id', /b\.json: EADS\.EADS-id: duplicate EADS-id "process\/thing" \(also in .*a\.json\)/);
    write('b.json', { ...good, prerequisites: ['process/thing'], EADS: { ...good.EADS, 'EADS-id': 'process/other' } });
    write('a.json', { ...good, prerequisites: ['process/other'] });
    expectError('prerequisites', /prerequisite cycle: process\/thing → process\/other → process\/thing/);
  });
});

describe('EADS structure helpers', () => {
  const annotated = {
    'EADS-id': 'process/demo',
    steps: {
      comment: 'Which steps, in order?',
      val: [{ 'process-id': 'cut', duration: { val: { units: 'hours', 'value-string': '2' }, comment: 'How long?' } }],
    },
    'continuous?': { val: false, comment: "Does product flow continuously? Don't ask if obvious." },
  } as Json;

  it('strips annotations into an example and instructions by path', () => {
    const { example, instructions } = stripAnnotations(annotated);
    expect(example).toEqual({
      'EADS-id': 'process/demo',
      steps: [{ 'process-id': 'cut', duration: { units: 'hours', 'value-string': '2' } }],
      'continuous?': false,
    });
    expect(instructions).toEqual([
      { path: 'steps', comment: 'Which steps, in order?' },
      { path: 'steps[0].duration', comment: 'How long?' },
      { path: 'continuous?', comment: "Does product flow continuously? Don't ask if obvious." },
    ]);
    const fields = describeFields(example as never, instructions);
    expect(fields.map((f) => [f.name, f.kind, f.derived])).toEqual([
      ['steps', 'table', false],
      ['continuous?', 'boolean', true],
    ]);
    expect(fields[0].columns).toEqual([
      { name: 'process-id', kind: 'text' },
      { name: 'duration', kind: 'quantity' },
    ]);
    expect(fields[0].suggestedQuestion).toBe('Which steps, in order?');
  });

  it('validates refinements against the example structure', () => {
    const { example } = stripAnnotations(annotated);
    const schema = refinementSchema(example as never);
    expect(schema.safeParse({ steps: [{ 'process-id': 'weld' }] }).success).toBe(true);
    expect(schema.safeParse({ 'continuous?': 'no' }).success).toBe(false);
    expect(schema.safeParse({ steps: [{ 'process-id': 'weld', colour: 'red' }] }).success).toBe(false);
    expect(schema.safeParse({ speed: 3 }).success).toBe(false);
    expect(schema.safeParse({ steps: [{ duration: { units: 'hours', 'value-string': 2 } }] }).success).toBe(false);
  });

  it('merges table rows by id, computes completeness and budget', () => {
    const ds = { 'EADS-id': 'x', steps: [{ 'process-id': 'cut', note: 'a' }], name: 'old' } as never;
    const merged = mergeRefinement(ds, {
      steps: [{ 'process-id': 'cut', note: 'b' }, { 'process-id': 'weld' }],
      name: 'new',
    });
    expect(merged).toEqual({
      'EADS-id': 'x',
      steps: [{ 'process-id': 'cut', note: 'b' }, { 'process-id': 'weld' }],
      name: 'new',
    });
    expect(computeCompleteness(['steps', 'name', 'lot'], { ...merged, lot: '  ' })).toEqual({
      completedFields: ['steps', 'name'],
      remainingFields: ['lot'],
      completeness: 0.667,
    });
    expect(budgetUsed(10, 0.1)).toBe(1);
    expect(canAffordQuestion(9, 0.1)).toBe(true);
    expect(canAffordQuestion(10, 0.1)).toBe(false);
    // 0.15 a question: six questions (0.9), then 0.1 left cannot pay for a seventh.
    expect(canAffordQuestion(5, 0.15)).toBe(true);
    expect(canAffordQuestion(6, 0.15)).toBe(false);
  });

  it('aggregates SCRs with their conflicts', () => {
    const scr = aggregateScr([
      { eadsId: 'process/type', dataStructure: { 'principal-problem-type': 'JOB-SHOP', lot: '20' } },
      {
        eadsId: 'process/flow',
        dataStructure: { steps: [{ 'process-id': 'cut', resources: ['saw', 'lasers'] }], lot: '25' },
        appliesWhen: { eads: 'process/type', field: 'principal-problem-type', 'one-of': ['FLOW-SHOP'] },
      },
      { eadsId: 'resources/pools', dataStructure: { pools: [{ 'resource-id': 'Saws' }, { 'resource-id': 'laser' }] } },
    ]);
    expect(scr.merged_scr.lot).toBe('25');
    expect(scr.conflicts.map((c) => c.kind)).toEqual(['same-field-different-values', 'assumption-not-met']);
    const withMissing = aggregateScr([
      {
        eadsId: 'process/flow',
        dataStructure: { steps: [{ 'process-id': 'cut', resources: ['saw', 'deburring bench'] }] },
      },
      { eadsId: 'resources/pools', dataStructure: { pools: [{ 'resource-id': 'saw' }] } },
    ]);
    expect(withMissing.conflicts).toEqual([
      expect.objectContaining({ kind: 'resource-not-in-inventory', values: ['deburring bench'] }),
    ]);
    expect(
      Object.keys(
        aggregateScr(
          [
            { eadsId: 'a/b', dataStructure: {} },
            { eadsId: 'c/d', dataStructure: {} },
          ],
          ['c/d'],
        ).scr_by_eads,
      ),
    ).toEqual(['c/d']);
  });
});

describe('stand-in answer parsing', () => {
  it('reads tables, lists, quantities, yes/no and product names', () => {
    expect(parseMarkdownTable('Here:\n| step | time |\n| --- | --- |\n| cut | 2 h |\n| weld | 30 min |')).toEqual({
      headers: ['step', 'time'],
      rows: [
        ['cut', '2 h'],
        ['weld', '30 min'],
      ],
    });
    expect(parseMarkdownTable('no table here')).toBeUndefined();
    expect(splitList('We use: flour, water; salt and yeast.')).toEqual(['flour', 'water', 'salt', 'yeast']);
    expect(splitList('- oak\n- steel')).toEqual(['oak', 'steel']);
    expect(parseQuantity('About 1.5 hrs per batch')).toEqual({ units: 'hours', 'value-string': '1.5' });
    expect(parseQuantity('3 to 4 weeks')).toEqual({ units: 'weeks', 'value-string': '3 to 4' });
    expect(parseQuantity('it varies')).toBeUndefined();
    // Spans said in words; a rate is how often, not how long.
    expect(parseQuantity('half a day at the kiln')).toEqual({ units: 'days', 'value-string': '0.5' });
    expect(parseQuantity('three weeks to cure')).toEqual({ units: 'weeks', 'value-string': '3' });
    expect(parseQuantity('an hour and a half')).toEqual({ units: 'hours', 'value-string': '1.5' });
    expect(parseQuantity('we clean it once a week')).toBeUndefined();
    expect(parseQuantity('checked four times a day')).toBeUndefined();
    expect(parseYesNo('Yes, mostly.')).toBe(true);
    expect(parseYesNo('No. Never.')).toBe(false);
    expect(parseYesNo('It depends.')).toBeUndefined();
    expect(productName('We print custom packaging for local shops.')).toBe('custom packaging');
  });

  // "Scheduling is hard" alone resembles missed delivery dates as much as anything: a preface, not a trouble.
  it('reads several choices by meaning, and none from a sentence about something else', async () => {
    const choices = [
      { key: 'delivery-schedules', definition: 'they struggle to ship orders by the dates promised to customers.' },
      { key: 'bottleneck-processes', definition: 'one or a few steps throttle the pace of everything else.' },
    ];
    expect(await readChoices('Scheduling is hard: the paint booth is our bottleneck.', choices)).toEqual([
      'bottleneck-processes',
    ]);
    expect(await readChoices('We paint garden furniture for shops.', choices)).toEqual([]);
  });

  it('answers as the surrogate from the best-matching fact, and admits not knowing', async () => {
    const rule = eadsRules.find((r) => r.task === 'eads.surrogate_answer')!;
    const facts = [
      { about: 'raw materials that go into the product', answer: 'flour, water, salt' },
      { about: 'working hours and shifts', answer: 'one shift from 4am' },
    ];
    const ask = (question: string) =>
      rule.answer({
        task: rule.task,
        system: '',
        responseSchema: undefined,
        turns: 1,
        sections: { question: { question, question_type: 'text', targets: ['x'] }, facts, tables: [] },
      });
    expect(await ask('Which raw materials go into your bread?')).toEqual({ answer: 'flour, water, salt' });
    expect(await ask('How many delivery vans do you own?')).toEqual({
      answer: "I'm not sure; we don't really keep track of that.",
    });
  });
});
