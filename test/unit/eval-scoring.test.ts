/**
 * The evaluation harness's own logic: which sets a run uses, the scorers the targets for unseen
 * input need, and that every sealed file loads. Pure: no stack, no flow; nothing here prints or
 * asserts a sealed case's text.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadFixture } from '../../flows/eads/activities/library';
import type { RunEadsInterviewOutput } from '../../flows/eads/contract';
import type { ProposalOutput } from '../../flows/proposal/contract';
import { loadSealedCases, perPrp, schemaFromPrp, scoreCase, selectCases } from '../../eval/discovery/index';
import {
  loadTruth,
  recoveredResources,
  recoveredSteps,
  scoreFirm,
  summarise,
  typeOutcome,
} from '../../eval/eads/index';
import {
  cutLines,
  echoedPhrase,
  topicEchoes,
  durationMonths,
  loadCases,
  methodFamilies,
  namesAsWritten,
  pastedPhrase,
  planLengthCheck,
  readerArtifacts,
  type ProfileCase,
} from '../../eval/proposal/index';
import { parseArgs } from '../../eval/run';
import { sealedDir, type EvalSet } from '../../eval/types';
import { installedEvalSets } from '../helpers/eval-sets';

const ROOT = path.resolve(__dirname, '..', '..');

describe('eval sets on the command line', () => {
  it('runs both sets by default, one with --set, and only development sets with --quick', () => {
    expect(parseArgs([]).sets).toEqual(['dev', 'sealed']);
    expect(parseArgs(['--set', 'sealed', 'bom']).sets).toEqual(['sealed']);
    expect(parseArgs(['--set', 'sealed', 'bom']).names).toEqual(['bom']);
    expect(parseArgs(['--set=dev']).sets).toEqual(['dev']);
    expect(parseArgs(['--set', 'both']).sets).toEqual(['dev', 'sealed']);
    expect(parseArgs(['--quick']).sets).toEqual(['dev']);
    expect(() => parseArgs(['--quick', '--set', 'sealed'])).toThrow(/development sets only/);
    expect(() => parseArgs(['--set', 'held'])).toThrow(/dev, sealed or both/);
  });
});

describe('proposal scorers', () => {
  it('reads plan durations in months', () => {
    expect(durationMonths('16 weeks')).toBeCloseTo(16 * (12 / 52));
    expect(durationMonths('Three years (36 months)')).toBe(36);
    expect(durationMonths('10-12 months')).toBe(11);
    expect(durationMonths('it depends')).toBeNull();
  });

  const profileCase = (value: number, unit: 'weeks' | 'months' | 'years', feasible: boolean): ProfileCase =>
    ({
      'in-corpus': false,
      method: [],
      relevant: [],
      acceptable: [],
      'timeline-feasible': feasible,
      profile: { total_timeline: { value, unit } },
    }) as unknown as ProfileCase;
  const withPlan = (estimated: string, isFeasible: boolean, assessment = 'Fits.'): ProposalOutput =>
    ({
      proposal: {
        methodology: { timeline_fit: { is_feasible: isFeasible, estimated_duration: estimated, key_phases: [] } },
        research_objectives: { feasibility_notes: { timeline_assessment: assessment } },
        data_collection_plan: { timeline_breakdown: { total_duration: estimated } },
      },
    }) as unknown as ProposalOutput;

  it('holds a plan to within 20 % of the timeline, or to stating that the timeline cannot hold the study', () => {
    expect(planLengthCheck(profileCase(3, 'years', true), withPlan('34 months', true))).toBeUndefined();
    expect(planLengthCheck(profileCase(3, 'years', true), withPlan('16 weeks', true))).toMatch(/plan of 3.7 months/);
    expect(planLengthCheck(profileCase(6, 'weeks', false), withPlan('6 weeks', true))).toMatch(/not stated/);
    expect(planLengthCheck(profileCase(6, 'weeks', false), withPlan('6 weeks', false))).toBeUndefined();
    expect(
      planLengthCheck(profileCase(6, 'weeks', false), withPlan('6 weeks', true, 'Six weeks is too short for this.')),
    ).toBeUndefined();
    expect(planLengthCheck(profileCase(9, 'months', true), withPlan('9 months', false))).toMatch(/called infeasible/);
  });

  it('finds PDF lines cut inside a word, and not lines that end where a word ends', () => {
    const sources = ['Tide pools and the snails that graze them', 'A short note on sampling design.'];
    expect(cutLines(['Tide pools and the snails that gra'], sources)).toHaveLength(1);
    expect(cutLines(['Tide pools and the snails that', 'A short note on sampling'], sources)).toEqual([]);
  });

  it('finds a long phrase pasted into many sections, not one repeated a few times', () => {
    const phrase = 'grazing snails on rocky shore tide pools';
    expect(pastedPhrase(Array.from({ length: 6 }, (_, i) => `Part ${i}: ${phrase}.`))?.texts).toBe(6);
    expect(pastedPhrase(Array.from({ length: 3 }, (_, i) => `Part ${i}: ${phrase}.`))).toBeUndefined();
  });

  it('reads a capital mid-sentence as a slip, unless the researcher wrote that name so', () => {
    const area = 'Air quality near schools under the 1990 Clean Air Act';
    const withStatement = (statement: string): ProposalOutput =>
      ({
        profile: { research_area: area },
        refinement: { history: [] },
        proposal: {
          title: area,
          problem_definition: {
            problem_statement: statement,
            main_research_question: 'What changed?',
            secondary_questions: [],
            key_variables: [],
            preliminary_literature: [],
          },
          research_objectives: {
            general_objective: 'To measure clean air near schools.',
            specific_objectives: [],
            feasibility_notes: { timeline_assessment: 'Fits.', risk_factors: [] },
            alignment_check: { coverage_analysis: 'Covered.' },
          },
          methodology: {
            recommended_methodology: 'Field measurement.',
            justification: 'It fits.',
            timeline_fit: { key_phases: [] },
          },
          data_collection_plan: {
            collection_techniques: [],
            data_sources: [],
            timeline_breakdown: {
              preparation: { activities: [] },
              collection: { activities: [] },
              quality_check: { activities: [] },
            },
            estimated_sample_size: '',
            resource_requirements: [],
          },
          quality_validation: { recommendations: [] },
        },
      }) as unknown as ProposalOutput;
    const capitals = (statement: string) =>
      readerArtifacts(withStatement(statement), { lines: [], text: '' }, []).filter((a) => a.includes('capital'));
    expect(namesAsWritten([area, 'Clean air matters.'])).toEqual(new Set(['Clean Air Act']));
    // A title-cased text names nothing by its capitals: copied into a sentence, they are still a slip.
    expect(namesAsWritten(['Pollinator Decline on Upland Hay Meadows'])).toEqual(new Set());
    expect(namesAsWritten(['I trained in Marine Biology at a coastal college'])).toEqual(new Set(['Marine Biology']));
    expect(capitals('This study reads the 1990 Clean Air Act against the readings.')).toEqual([]);
    expect(capitals('This study reads the readings of Clean air near schools.')).toHaveLength(1);
    expect(capitals('This study reads the readings and The sensors near schools.')).toHaveLength(1);
  });

  it('does not read a field of study as field work, nor a site survey as a questionnaire', () => {
    expect(methodFamilies('a study in the field of education')).toEqual([]);
    expect(methodFamilies('a habitat survey of the shore')).toEqual([]);
    expect(methodFamilies('a survey of teachers')).toEqual(['survey']);
    expect(methodFamilies('field measurements at three sites')).toEqual(['field-measurement']);
  });
});

describe('EADS scorer', () => {
  const result = (over: Partial<RunEadsInterviewOutput>): RunEadsInterviewOutput =>
    ({
      problemType: null,
      schedulingChallenges: [],
      pursuits: [],
      scr: { scr_by_eads: {}, merged_scr: {}, conflicts: [] },
      ...over,
    }) as unknown as RunEadsInterviewOutput;
  const asked = [{ eadsId: 'process/scheduling-problem-type', questions: 2 }] as RunEadsInterviewOutput['pursuits'];

  it('tells a right type from one left open after asking and from a wrong one', () => {
    expect(typeOutcome(result({ problemType: 'TIMETABLING-PROBLEM' }), 'TIMETABLING-PROBLEM')).toBe('right');
    expect(typeOutcome(result({ pursuits: asked }), 'TIMETABLING-PROBLEM')).toBe('undetermined');
    expect(typeOutcome(result({}), 'TIMETABLING-PROBLEM')).toBe('wrong');
    // The interview records a choice still open after asking as UNDETERMINED: open, not another type.
    expect(typeOutcome(result({ problemType: 'UNDETERMINED', pursuits: asked }), 'TIMETABLING-PROBLEM')).toBe(
      'undetermined',
    );
    expect(typeOutcome(result({ problemType: 'UNDETERMINED' }), 'TIMETABLING-PROBLEM')).toBe('wrong');
    expect(
      typeOutcome(result({ problemType: 'FLOW-SHOP-SCHEDULING-PROBLEM', pursuits: asked }), 'TIMETABLING-PROBLEM'),
    ).toBe('wrong');
  });

  it('leaves acceptable challenges out of precision, and firms without steps out of "steps in order"', () => {
    const truth = {
      'problem-type': 'SINGLE-MACHINE-SCHEDULING-PROBLEM',
      challenges: { 'equipment-changeover': 'long heat-up between cycles' },
      'acceptable-challenges': ['bottleneck-processes'],
      steps: [],
      resources: ['vacuum furnace'],
    };
    const score = scoreFirm(
      'f',
      truth,
      result({
        problemType: 'SINGLE-MACHINE-SCHEDULING-PROBLEM',
        schedulingChallenges: ['equipment-changeover', 'bottleneck-processes', 'delivery-schedules'],
        scr: {
          scr_by_eads: { 'resources/resource-pools': { 'resource-pools': [{ 'resource-id': 'vacuum furnaces' }] } },
          merged_scr: {},
          conflicts: [],
        },
      }),
    );
    expect(score).toMatchObject({ typeOk: true, found: 1, tagged: 2, stepsOk: null, resourcesFound: 1 });
    const metrics = Object.fromEntries(summarise([score], 'sealed').metrics.map((m) => [m.metric, m]));
    expect(metrics['challenge precision'].value).toBe(0.5);
    expect(metrics['steps in order'].cases).toBe(0);
    expect(metrics['problem type wrong'].value).toBe(0);
  });

  it('reads the steps of an interview that left the type open from the EADS that asked for them anyway', () => {
    const open = (ds: Record<string, unknown>) =>
      result({
        problemType: 'UNDETERMINED',
        pursuits: asked,
        scr: { scr_by_eads: { 'process/work-steps': ds }, merged_scr: {}, conflicts: [] },
      });
    const routes = open({
      routings: [
        { 'routing-id': 'gate', steps: ['cut', 'weld', 'galvanise'] },
        { 'routing-id': 'sign', steps: ['cut', 'print'] },
      ],
    });
    const jobShop = { 'problem-type': 'JOB-SHOP-SCHEDULING-PROBLEM', challenges: {}, steps: [['cut', 'print']] };
    expect(recoveredSteps(routes, 'JOB-SHOP-SCHEDULING-PROBLEM')).toEqual([
      ['cut', 'weld', 'galvanise'],
      ['cut', 'print'],
    ]);
    expect(scoreFirm('f', jobShop, routes).stepsOk).toBe(true);
    // A line told as a table of steps, or as its one route.
    const line = { 'problem-type': 'FLOW-SHOP-SCHEDULING-PROBLEM', challenges: {}, steps: [['knead', 'bake', 'pack']] };
    const table = open({ subprocesses: ['knead', 'bake', 'pack'].map((id) => ({ 'process-id': id })) });
    expect(scoreFirm('f', line, table).stepsOk).toBe(true);
    expect(scoreFirm('f', line, routes).stepsOk).toBe(false);
    const sessions = { 'problem-type': 'TIMETABLING-PROBLEM', challenges: {}, steps: [['lecture', 'lab']] };
    const kinds = open({
      'event-types': [{ 'event-type-id': 'lab', constituents: ['demonstrator'] }, { 'event-type-id': 'lecture' }],
    });
    expect(scoreFirm('f', sessions, kinds).stepsOk).toBe(true);
    expect(recoveredResources(kinds)).toEqual(['demonstrator']);
  });
});

describe('discovery scorer', () => {
  it('reads the target schema from a PRP table and scores each PRP on its own', () => {
    const prp =
      '# T\n\n| Column | Type | Description |\n|---|---|---|\n| a | STRING | first |\n| b | INT64 | second |\n';
    expect(schemaFromPrp(prp)).toEqual([
      { name: 'a', type: 'STRING', description: 'first' },
      { name: 'b', type: 'INT64', description: 'second' },
    ]);
    const c = { id: 'x', prp, relevant: ['p.d.t1', 'p.d.t2'], columns: [] };
    const table = (id: string) => {
      const [project_id, dataset_id, table_id] = id.split('.');
      return { project_id, dataset_id, table_id };
    };
    const none = scoreCase(c, { results: [], uncovered_columns: [] } as never);
    expect(none.silentEmpty).toBe(true);
    expect(perPrp(none)).toEqual({ precision: 0, recall: 0 });
    const some = scoreCase(c, {
      results: [{ discovered_tables: [table('p.d.t1'), table('p.d.other')] }],
      uncovered_columns: [],
    } as never);
    expect(perPrp(some)).toEqual({ precision: 0.5, recall: 0.5 });
  });
});

const firmsDir = (set: EvalSet) =>
  set === 'sealed' ? path.join(sealedDir('eads'), 'firms') : path.join(ROOT, 'eval', 'eads', 'firms');

// The sealed sets, and the development sets that spent sealed batches joined, load and are labelled
// against the data the flows run on (the BOM questions' truth queries are run on that data in
// test/eval-bom-truth.test.ts). A sealed set between spending and successor has nothing to check.
it('always has the development set to check', () => {
  expect(installedEvalSets()).toContain('dev');
});

describe.each(installedEvalSets())('the %s sets load', (set) => {
  it('every firm has a fixture the surrogate can read', () => {
    const truth = loadTruth(set);
    expect(Object.keys(truth).length).toBeGreaterThanOrEqual(4);
    for (const firm of Object.keys(truth)) expect(loadFixture([firmsDir(set)], firm)['fixture-id']).toBe(firm);
  });

  it('every profile and PRP is labelled against the bundled corpus and catalog', () => {
    const corpus = new Set(
      (
        JSON.parse(readFileSync(path.join(ROOT, 'data', 'search', 'literature.json'), 'utf8')) as Array<{ id: string }>
      ).map((d) => d.id),
    );
    const profiles = Object.values(loadCases(set));
    expect(profiles.length).toBeGreaterThanOrEqual(4);
    for (const p of profiles) for (const id of [...p.relevant, ...p.acceptable]) expect(corpus.has(id), id).toBe(true);
    const catalog = new Set(
      (
        JSON.parse(readFileSync(path.join(ROOT, 'data', 'search', 'table-catalog.json'), 'utf8')) as Array<{
          id: string;
        }>
      ).map((t) => t.id),
    );
    const prps = set === 'sealed' ? loadSealedCases() : selectCases(false);
    expect(prps.length).toBeGreaterThanOrEqual(3);
    for (const c of prps) {
      for (const t of [...c.relevant, ...c.columns.flatMap((col) => col.sources)]) expect(catalog.has(t), t).toBe(true);
    }
  });
});

describe('proposal topic echo', () => {
  it('finds content words said twice in one sentence, not repeated pronouns', () => {
    expect(echoedPhrase('How do ethics and multi-agent debate shape ethics and multi-agent debate?')).toBeDefined();
    expect(echoedPhrase('I want to hear what they let it do and what they never let it do.')).toBeUndefined();
  });

  it("leaves out a quote of several sentences: the researcher's own words are no echo of the proposal's", () => {
    const quoted =
      'In their words: “Our hives are old. Hives near the orchard swarm early, hives near the road do not.”';
    expect(topicEchoes(quoted)).toEqual([]);
    expect(topicEchoes('Hives near the orchard swarm early, so hives near the orchard are checked first.')).toEqual([
      'hives near',
    ]);
    // Inch marks are no quotation marks; a citation's full stops do not cut its sentence.
    expect(
      topicEchoes('The board is 12" wide. Hives near the orchard swarm, so hives near it are moved. It is 3" long.'),
    ).toEqual(['hives near']);
    expect(
      topicEchoes('Hives near roads fare worse (J. Appl. Ecol., 2014) than hives near woods (J. Appl. Ecol., 2018).'),
    ).toEqual(['hives near']);
  });

  it('leaves out a sentence the researcher wrote in the profile, taken over unquoted', () => {
    const asked = 'Do hives near the orchard (and its pond) swarm earlier than hives near the road?';
    const profile = `orchard bees\nmy question: ${asked.toLowerCase()} sample 40 hives.`;
    expect(topicEchoes(asked, profile)).toEqual([]);
    expect(
      topicEchoes(`${asked} Hives near the orchard are checked, and hives near the orchard weighed.`, profile),
    ).toEqual(['hives near']);
    expect(topicEchoes(asked)).toEqual(['hives near']);
  });
});
