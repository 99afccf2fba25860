/** `BomPipeline` without Temporal: the pipeline state each step records, and the answer texts. */
import { describe, expect, it } from 'vitest';
import type { QueryRun, ResolvedColumns } from '../../flows/bom/activities';
import {
  answerText,
  BomPipeline,
  exclusionNote,
  meaningNote,
  noResultsText,
  noSuchPartText,
} from '../../flows/bom/workflow/bom-pipeline';

const pipeline = () =>
  new BomPipeline('Which BOMs use capacitors?', { dataset: 'bom', ragEnabled: true, maxStrategies: 3 });

const resolution = (extra: Partial<ResolvedColumns> = {}) =>
  ({
    tables: ['components'],
    candidate_columns: ['components.description'],
    ignored_columns: [],
    search_terms: ['capacitor'],
    samples: { 'components.description': ['resistor', 'diode'] },
    reason: '',
    concepts: [
      {
        term: 'capacitor',
        asked: 'capacitors',
        level: 2,
        columns: { 2: ['components.description'] },
        example: 'CAP 10uF',
      },
    ],
    missing_terms: [],
    ...extra,
  }) as unknown as ResolvedColumns;

const rows: QueryRun = {
  sql: 'SELECT 1',
  params: { term: 'capacitor' },
  rows: [{ parent_item_number: 'A-1', parent_description: 'Board', matching_components: 2, example_component: 'C1' }],
  total_rows: 1,
} as unknown as QueryRun;

describe('BomPipeline', () => {
  it('starts from the settings, with nothing found', () => {
    const { state } = pipeline();
    expect(state).toMatchObject({
      stage: 'starting',
      dataset: 'bom',
      rag_enabled: true,
      max_strategies: 3,
      found_results: false,
    });
  });

  it('records the reuse search, or that it could not run', () => {
    const bom = pipeline();
    bom.recordReuse(undefined, 0.8);
    expect(bom.state.reuse).toEqual({
      checked: false,
      matched: false,
      pattern_id: null,
      similarity: null,
      threshold: 0.8,
      params: {},
    });
  });

  it('records the resolution: grounded phrases, and unanswerable when a phrase matches nothing under "and"', () => {
    const bom = pipeline();
    bom.recordResolution(resolution());
    expect(bom.state.concepts).toEqual([
      { term: 'capacitor', asked: 'capacitors', strategy: 2, columns: ['components.description'], example: 'CAP 10uF' },
    ]);
    expect(bom.grounded()).toHaveLength(1);
    expect(bom.unanswerable()).toBe(false);
    bom.recordResolution(resolution({ missing_terms: ['unobtainium'], match: 'all' }));
    expect(bom.unanswerable()).toBe(true);
    bom.recordResolution(resolution({ missing_terms: ['unobtainium'], match: 'any' }));
    expect(bom.unanswerable()).toBe(false);
  });

  it('answers with the rows and the SQL that found them', () => {
    const bom = pipeline();
    bom.recordQuery(rows);
    bom.found(rows);
    const text = answerText('One board.', bom.state, 'strategy 2');
    expect(text).toContain('- A-1: Board (2 matching components, e.g. C1)');
    expect(text).toContain('SELECT 1');
    const out = bom.output('answered', text);
    expect(out).toMatchObject({
      outcome: 'answered',
      question: 'Which BOMs use capacitors?',
      pipeline_state: { stage: 'done', total_rows: 1 },
    });
  });

  it('keeps excluded parts apart from the parts asked for, and says what was left out', () => {
    const bom = pipeline();
    bom.recordResolution(
      resolution({
        concepts: [
          { term: 'valve', asked: 'valves', level: 2, columns: { 2: ['c.d'] }, example: 'Valve 1' },
          { term: 'pump', asked: 'gear pumps', level: 2, columns: { 2: ['c.d'] }, example: 'Pump 1', exclude: 'bom' },
          { term: 'probe', asked: 'probes', level: 1, columns: { 1: ['c.k'] }, example: 'PROBE', exclude: 'component' },
        ],
        excluded_missing: ['frothers'],
      } as unknown as Partial<ResolvedColumns>),
    );
    expect(bom.grounded().map((c) => c.term)).toEqual(['valve']);
    expect(bom.excluded().map((c) => c.exclude)).toEqual(['bom', 'component']);
    const note = exclusionNote(bom.state);
    expect(note).toContain('Left out: the BOMs that also use "gear pumps".');
    expect(note).toContain('Not counted: "probes"');
    expect(note).toContain('Nothing was left out for "frothers"');
    // Only an excluded part matched: the question asks for nothing that exists.
    bom.recordResolution(
      resolution({
        concepts: [
          { term: 'grinder', asked: 'grinders', level: null, columns: { 1: [], 2: [], 3: [] }, example: null },
          { term: 'pump', asked: 'pumps', level: 2, columns: { 2: ['c.d'] }, example: 'Pump 1', exclude: 'bom' },
        ],
        missing_terms: ['grinders'],
        unclear: { grinders: ['grinders'] },
      } as unknown as Partial<ResolvedColumns>),
    );
    expect(bom.unanswerable()).toBe(true);
    const text = noSuchPartText(bom.state, { grinders: ['Gear pump'] });
    expect(text).toContain('Not understood: "grinders" in "grinders".');
    expect(text).toContain('- instead of "grinders": Gear pump');
  });

  it('says the offer is the parts of the known kind when a qualifier was not understood', () => {
    const bom = pipeline();
    bom.recordResolution(
      resolution({
        concepts: [
          { term: 'rotary pumps', asked: 'rotary pumps', level: null, columns: { 1: [], 2: [], 3: [] }, example: null },
        ],
        missing_terms: ['rotary pumps'],
        unclear: { 'rotary pumps': ['rotary'] },
      } as unknown as Partial<ResolvedColumns>),
    );
    const text = noSuchPartText(bom.state, { 'rotary pumps': ['Gear pump', 'PUMPS'] });
    expect(text).toContain('Not understood: "rotary" in "rotary pumps".');
    expect(text).toContain('- the pumps in the data (for "rotary pumps"): Gear pump, PUMPS');
    // An offer not all of that kind is only the nearest parts.
    expect(noSuchPartText(bom.state, { 'rotary pumps': ['Gear pump', 'Solenoid valve'] })).toContain(
      '- instead of "rotary pumps": Gear pump, Solenoid valve',
    );
  });

  it('says which phrases were read by meaning, so a reading the person did not mean can be caught', () => {
    const bom = pipeline();
    bom.recordResolution(
      resolution({
        concepts: [
          {
            term: 'kettle',
            asked: 'water boiler',
            level: 1,
            columns: { 1: ['c.k'] },
            example: 'KETTLE',
            via: 'meaning',
            similarity: 0.634,
          },
          { term: 'lid', asked: 'lids', level: 2, columns: { 2: ['c.d'] }, example: 'Lid 1' },
          {
            term: 'spout',
            asked: 'nozzle',
            level: 2,
            columns: { 2: ['c.d'] },
            example: 'Spout',
            via: 'meaning',
            exclude: 'bom',
          },
        ],
      } as unknown as Partial<ResolvedColumns>),
    );
    // Only the phrase asked for, read by meaning: not the one read by its words, not an exclusion.
    expect(meaningNote(bom.state)).toBe(
      'Read by meaning: "water boiler" as "kettle" (similarity 0.63). No part\'s name says "water boiler"; ' +
        'if that is not what you meant, the data may have no such part.',
    );
    bom.recordResolution(resolution());
    expect(meaningNote(bom.state)).toBe('');
    // A last word that names no part, left off: said plainly, not as a reading by meaning.
    bom.recordResolution(
      resolution({
        concepts: [
          {
            term: 'kettle',
            asked: 'kettle recall',
            level: 1,
            columns: { 1: ['c.k'] },
            example: 'KETTLE',
            via: 'situation',
          },
        ],
      } as unknown as Partial<ResolvedColumns>),
    );
    expect(meaningNote(bom.state)).toBe('Read "kettle recall" as the part "kettle": the word after it names no part.');
  });

  it('keeps the state of a question without exclusions or unknown words as it always was', () => {
    const bom = pipeline();
    bom.recordResolution(resolution());
    expect('excluded_missing' in bom.state).toBe(false);
    expect('not_understood' in bom.state).toBe(false);
    expect(exclusionNote(bom.state)).toBe('');
  });

  it('without rows, offers the frequent values of the searched columns', () => {
    const bom = pipeline();
    bom.recordResolution(resolution());
    bom.state.suggestions = { 'components.description': ['resistor', 'diode'] };
    expect(noResultsText(bom.state)).toContain('- components.description: resistor, diode');
  });
});
