/**
 * `discoverFromPrp` never answers "ok" with no table: a step that searched and validated but
 * found nothing says `no_source`, and the result names every column no accepted table supplies
 * (derived ones reported apart). A step whose columns no single table covers is searched again
 * in parts that follow the columns each candidate said it could supply, and gets all the tables.
 *
 * The model is scripted per test (a plan and a ledger of which table supplies which columns), so
 * what is tested is the workflow's reporting and re-splitting, not the stand-in's judgement.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { discoverFromPrpFlow, discoveryCountsQuery, tableName } from '../flows/discovery/contract';
import { ModelTask } from '../flows/discovery/model-tasks';
import { createHarness, recordHistory, type Harness } from './helpers/harness';
import { DISCOVERY_TASKS, scriptedPlan, scriptedVerdicts } from './helpers/scripted-discovery';
import { ScriptedModel } from './helpers/scripted-model';

describe('discoverFromPrp reports what found no source', () => {
  const model = new ScriptedModel();
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness({ rules: model.rules(DISCOVERY_TASKS) });
  });
  beforeEach(() => model.script({}));
  afterEach(() => expect(model.unexpected).toEqual([]));
  afterAll(async () => h?.close());

  it('names the columns no table supplies and never reports a step ok with no table', async () => {
    model.script({
      [ModelTask.discoveryPlan]: scriptedPlan(
        [
          {
            group: 'debris per shell',
            query: 'orbital debris fragments per orbit shell',
            columns: ['shell_altitude_km', 'fragment_count'],
          },
          { group: 'collision alerts', query: 'conjunction alerts close approach', columns: ['conjunction_alerts'] },
        ],
        ['alert_rate'],
      ),
      // No table of the catalog supplies any of these columns.
      [ModelTask.discoveryValidate]: scriptedVerdicts({}),
    });
    const handle = await h.start(discoverFromPrpFlow, {
      prp: '# Orbital debris tracking\n\nWe need fragment counts per orbit shell and the collision alerts.\n',
      targetSchema: [
        { name: 'shell_altitude_km', type: 'FLOAT64', description: 'Altitude band of the orbit shell in kilometres' },
        { name: 'fragment_count', type: 'INT64', description: 'Number of tracked debris fragments in the shell' },
        { name: 'conjunction_alerts', type: 'INT64', description: 'Close-approach warnings issued for the shell' },
        { name: 'alert_rate', type: 'FLOAT64', description: 'Derived: alerts per thousand fragments' },
      ],
    });
    const out = await handle.result();
    // Searched and validated, nothing found: no_source, never ok; and no follow-up searches, as
    // no candidate could supply any of the columns.
    expect(out.results.map((r) => [r.conceptual_group, r.status, r.unsourced_columns])).toEqual([
      ['debris per shell', 'no_source', ['shell_altitude_km', 'fragment_count']],
      ['collision alerts', 'no_source', ['conjunction_alerts']],
    ]);
    expect(out.results.every((r) => r.discovered_tables.length === 0 && !r.error)).toBe(true);
    expect(out.derived_columns).toEqual(['alert_rate']);
    expect(out.uncovered_columns).toEqual(['alert_rate']);
    expect(out.unsourced_columns).toEqual(['shell_altitude_km', 'fragment_count', 'conjunction_alerts']);
    expect(out.stats.fits).toBe(0);
    expect(model.count(ModelTask.discoveryValidate)).toBe(out.stats.candidates);
    await recordHistory(handle, 'discover-from-prp-unsourced-2026-11-27');
  });

  it('finds every table of a step whose columns three tables hold, by searching again in parts', async () => {
    const SCORES = 'clinical-dw.risk.readmission_scores';
    const VISITS = 'clinical-dw.encounters.visits';
    const TRIALS = 'clinical-dw.trials.enrollments';
    const columns = [
      { name: 'discharge_id', type: 'STRING', description: 'Hospital discharge the stay ended with' },
      { name: 'readmission_probability', type: 'FLOAT64', description: 'Predicted 30-day readmission risk' },
      { name: 'readmitted', type: 'BOOL', description: 'Whether the patient was readmitted' },
      { name: 'visit_date', type: 'DATE', description: 'Date of the patient visit' },
      { name: 'diagnosis_code', type: 'STRING', description: 'ICD-10 diagnosis code of the visit' },
      { name: 'provider_id', type: 'STRING', description: 'Provider who saw the patient' },
      { name: 'trial_id', type: 'STRING', description: 'Clinical trial the patient enrolled in' },
      { name: 'trial_arm', type: 'STRING', description: 'Study arm of the trial' },
    ];
    const names = columns.map((c) => c.name);
    model.script({
      // One step for the whole care pathway, which no single table covers.
      [ModelTask.discoveryPlan]: scriptedPlan([
        {
          group: 'care pathway',
          query: 'hospital discharges, readmission risk, patient visits and clinical trial enrollments',
          columns: names,
        },
      ]),
      // A table fits when it supplies half of the step's columns; each supplies a part.
      [ModelTask.discoveryValidate]: scriptedVerdicts(
        {
          [SCORES]: { columns: ['discharge_id', 'readmission_probability', 'readmitted'] },
          [VISITS]: { columns: ['visit_date', 'diagnosis_code', 'provider_id'] },
          [TRIALS]: { columns: ['trial_id', 'trial_arm'] },
        },
        (matched, targets) => matched > 0 && matched * 2 >= targets,
      ),
    });
    const handle = await h.start(discoverFromPrpFlow, {
      prp: '# Do study patients come back less?\n\nPer discharge: the readmission risk, later visits and the trial arm.\n',
      targetSchema: columns,
    });
    const out = await handle.result();
    const [first, ...splits] = out.results;
    // The planned step found no table, and its candidates' verdicts said who supplies which part.
    expect(first).toMatchObject({ conceptual_group: 'care pathway', status: 'no_source', discovered_tables: [] });
    expect(first.unsourced_columns).toBeUndefined();
    // One follow-up search per part, largest first, each finding its table.
    expect(splits.map((r) => [r.split_from, r.target_columns.map((c) => c.name), r.status])).toEqual([
      ['care pathway', ['discharge_id', 'readmission_probability', 'readmitted'], 'ok'],
      ['care pathway', ['visit_date', 'diagnosis_code', 'provider_id'], 'ok'],
      ['care pathway', ['trial_id', 'trial_arm'], 'ok'],
    ]);
    expect(splits.map((r) => r.discovered_tables.map(tableName))).toEqual([[SCORES], [VISITS], [TRIALS]]);
    expect(splits.map((r) => r.conceptual_group)).toEqual([
      'care pathway: discharge_id, readmission_probability, readmitted',
      'care pathway: visit_date, diagnosis_code, provider_id',
      'care pathway: trial_id, trial_arm',
    ]);
    expect(out.unsourced_columns).toEqual([]);
    expect(out.stats).toMatchObject({ steps: 1, fits: 3 });
    expect(await handle.query(discoveryCountsQuery)).toMatchObject({ planned: 4, searched: 4, fits: 3 });
    // The follow-ups' validations saw only their own part of the columns.
    for (const [i, r] of splits.entries()) {
      const prompts = model
        .prompts(ModelTask.discoveryValidate)
        .filter((s) => s.conceptual_group === r.conceptual_group);
      expect(prompts.length, `split ${i}`).toBe(r.candidates_found);
      for (const s of prompts)
        expect((s.target_columns as Array<{ name: string }>).map((c) => c.name)).toEqual(
          r.target_columns.map((c) => c.name),
        );
    }
    await recordHistory(handle, 'discover-from-prp-three-sources-2026-11-27');
  });
  it('tells every validation the domain names the document uses and those it rules out, and its own account', async () => {
    model.script({
      [ModelTask.discoveryPlan]: scriptedPlan([
        { group: 'hive yields', query: 'honey yield per hive and season', columns: ['hive_id', 'honey_kg'] },
      ]),
      [ModelTask.discoveryValidate]: scriptedVerdicts({}),
    });
    const handle = await h.start(discoverFromPrpFlow, {
      prp: [
        '# Which apiaries gave the most honey?',
        '',
        '## Background',
        '',
        'Our members report to the BKA every autumn.',
        '',
        '## Out of scope',
        '',
        '- Wax and pollen sales recorded by the CWA.',
      ].join('\n'),
      targetSchema: [
        { name: 'hive_id', type: 'STRING', description: 'The hive' },
        { name: 'honey_kg', type: 'FLOAT64', description: 'Honey taken from the hive, kilograms' },
      ],
    });
    const out = await handle.result();
    const prompts = model.prompts(ModelTask.discoveryValidate);
    expect(prompts.length).toBe(out.stats.candidates);
    expect(prompts.length).toBeGreaterThan(0);
    for (const s of prompts)
      expect(s.document_domains).toEqual({
        own: ['BKA'],
        excluded: ['CWA'],
        ruled_out: ['Wax and pollen sales recorded by the CWA.'],
        // The words of its title and prose, without what it rules out, sorted: whose honey it is,
        // in its own words, and never a sentence a model could take for an instruction.
        about: 'apiaries, apiaries gave, autumn, bka, gave, honey, members, members report, report',
      });
    await recordHistory(handle, 'discover-from-prp-document-domains');
  });
});
