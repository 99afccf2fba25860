/**
 * The console's pages for a reader, without a browser or Temporal: the EADS interview's result
 * (the merged SCR in words, challenges with their definitions, an undetermined problem type
 * said plainly), discovery per step, the platform check, the review gate's draft, and start
 * forms labelled in words with choices and a structured schedule. None shows raw keys or JSON
 * outside the "whole result" details.
 */
import { describe, expect, it } from 'vitest';
import { formFields, inputFromForm, renderStartForm } from '../../server/console/forms';
import { renderResult, reviewForm } from '../../server/console/views';
import { findFlow } from '../../flows/registry';
import type { ProposalDocument } from '../../flows/proposal/contract';

/** What the page shows without the whole result's JSON, as text (tags dropped). */
const shown = (markup: string) =>
  markup
    .replace(/<details>\s*<summary>The whole result[\s\S]*?<\/details>/, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ');

const eadsOutput = (over: Record<string, unknown> = {}) => ({
  projectId: 'demo-brewery',
  status: 'exhausted',
  product: 'craft beers',
  problemType: 'FLOW-SHOP-SCHEDULING-PROBLEM',
  schedulingChallenges: ['variation-in-demand', 'bottleneck-processes'],
  pursuits: [
    {
      pursuitNo: 1,
      eadsId: 'process/warm-up-with-challenges',
      status: 'complete',
      completeness: 1,
      questions: 2,
      budgetUsed: 0.2,
      source: 'model',
      childWorkflowId: 'c1',
      runs: 1,
    },
    {
      pursuitNo: 2,
      eadsId: 'resources/resource-pools',
      status: 'budget-spent',
      completeness: 0.5,
      questions: 5,
      budgetUsed: 1,
      source: 'model',
      childWorkflowId: 'c2',
      runs: 1,
    },
  ],
  scr: {
    scr_by_eads: {},
    merged_scr: {
      'product-or-service-name': 'craft beers',
      'scheduling-challenges': ['variation-in-demand', 'bottleneck-processes'],
      'principal-problem-type': 'FLOW-SHOP-SCHEDULING-PROBLEM',
      inputs: ['malted barley', 'water'],
      outputs: ['kegged beer'],
      subprocesses: [
        {
          'process-id': 'mill-grain',
          inputs: ['malted barley'],
          outputs: ['grist'],
          resources: ['grain mill'],
          duration: { units: 'hours', 'value-string': '1' },
        },
        {
          'process-id': 'mash',
          inputs: ['grist', 'water'],
          outputs: ['wort'],
          resources: ['mash tun'],
          duration: { units: 'hours', 'value-string': '2' },
        },
        {
          'process-id': 'boil',
          inputs: ['wort'],
          outputs: ['hopped wort'],
          resources: ['brew kettle'],
          duration: { units: 'hours', 'value-string': '1.5' },
        },
      ],
      'resource-pools': [
        { 'resource-id': 'fermenter', 'resource-type': 'machine', quantity: '8', capacity: 'one 20 hl batch each' },
      ],
      'primary-objective': 'MINIMIZE-CHANGEOVERS',
      'hard-constraints': ['one batch per fermenter at a time'],
      'soft-preferences': ['keep the IPA in stock all year'],
      'one-more-thing': 'each switch means a full clean',
    },
    conflicts: [],
  },
  questionsAsked: 7,
  usage: { promptTokens: 1, outputTokens: 1, totalTokens: 2, calls: 1 },
  runs: 1,
  ...over,
});

describe('the EADS interview result for a reader', () => {
  it('shows the merged SCR in words: product, problem type, challenges defined, steps in order, resources, objectives, topics', () => {
    const page = renderResult({ artifactDir: '/nowhere' }, 'runEadsInterview', eadsOutput()).text;
    const text = shown(page);
    expect(text).toContain('craft beers');
    expect(text).toMatch(/Flow shop — every job/);
    // Challenges as labels with the library's definitions, not keys.
    expect(text).toMatch(/Variation in demand — demand has busy and slow periods/);
    expect(text).toMatch(/Bottleneck processes — /);
    // Steps in order, named in words, with their durations.
    expect(text).toMatch(/1 Mill grain malted barley grist grain mill 1 hours 2 Mash .* 3 Boil/);
    expect(page).toMatch(/<caption>\s*Resources and how many of each\s*<\/caption>/);
    expect(text).toContain('Resource type');
    expect(text).toMatch(/Objective: Minimize changeovers — /);
    expect(text).toContain('one batch per fermenter at a time');
    expect(text).toContain('keep the IPA in stock all year');
    expect(text).toContain('One more thing');
    // Topics by their library names, with their status in words.
    expect(text).toContain('Warm-up: products and scheduling challenges');
    expect(text).toContain('question budget spent');
    expect(text).toContain('50%');
    // No keys or raw JSON outside the whole result.
    expect(text).not.toMatch(/product-or-service-name|scheduling-challenges|merged_scr|variation-in-demand|[{}"]/);
  });

  it('points to the routes or kinds of event when the process was told that way, not "no steps"', () => {
    const routed = shown(
      renderResult({ artifactDir: '/nowhere' }, 'runEadsInterview', {
        ...eadsOutput({ problemType: 'JOB-SHOP-SCHEDULING-PROBLEM' }),
        scr: {
          scr_by_eads: {},
          merged_scr: { routings: [{ 'routing-id': 'gates', steps: ['cutting', 'welding'] }] },
          conflicts: [],
        },
      }).text,
    );
    expect(routed).toContain('Told as work steps and routes');
    expect(routed).not.toContain('No process steps recorded yet');
    const none = shown(
      renderResult({ artifactDir: '/nowhere' }, 'runEadsInterview', {
        ...eadsOutput(),
        scr: { scr_by_eads: {}, merged_scr: {}, conflicts: [] },
      }).text,
    );
    expect(none).toContain('No process steps recorded yet');
  });

  it('says plainly when the problem type is undetermined or not yet known', () => {
    const undetermined = shown(
      renderResult({ artifactDir: '/nowhere' }, 'runEadsInterview', eadsOutput({ problemType: 'UNDETERMINED' })).text,
    );
    expect(undetermined).toMatch(
      /Problem type Not yet determined — the interview asked, but the answers did not settle it/,
    );
    expect(undetermined).not.toContain('UNDETERMINED');
    const unknown = shown(
      renderResult({ artifactDir: '/nowhere' }, 'runEadsInterview', {
        ...eadsOutput({ problemType: null, product: null }),
        scr: { scr_by_eads: {}, merged_scr: {}, conflicts: [] },
      }).text,
    );
    expect(unknown).toMatch(/Product not yet named Problem type not yet determined/);
  });

  it('says why there is no schedule, and links the schedule and its chart when the interview solved one', () => {
    const skipped = renderResult(
      { artifactDir: '/out' },
      'runEadsInterview',
      eadsOutput({ schedule: { skipped: 'no orders' } }),
    ).text;
    expect(shown(skipped)).toContain('Schedule not solved: no orders');
    const solved = renderResult(
      { artifactDir: '/out' },
      'runEadsInterview',
      eadsOutput({
        schedule: {
          projectId: 'demo-brewery',
          problemType: 'FLOW-SHOP-SCHEDULING-PROBLEM',
          jobsSource: 'scr',
          notes: [],
          minizinc: { model: 'solve satisfy;', data: '', files: null },
          minizinc_results: {
            status: 'optimal',
            solver: 'cp-sat',
            objective: { name: 'makespan', firm: null, value: 10, bound: 10, gap: 0 },
            timeUnit: 'hours',
            makespan: 10,
            makespanText: '10 hours',
            totalTardiness: null,
            solveSeconds: 0.1,
            jobs: [],
            resources: [],
            conflicts: [],
          },
          chart: { svg: '/out/schedule/g.svg', png: '/out/schedule/g.png' },
        },
      }),
    ).text;
    expect(solved).toMatch(/<dt>Schedule<\/dt>\s*<dd><a href="#schedule-h">optimal/);
    expect(solved).toMatch(/<h3 id="schedule-h">Schedule<\/h3>/);
    expect(solved).toContain('<img src="/console/artifacts/schedule/g.svg"');
  });
});

describe('discovery and platform check for a reader', () => {
  const table = (id: string, score: number, matched: string[]) => ({
    table_id: id,
    project_id: 'p',
    dataset_id: 'd',
    description: `${id} table`,
    schema: [],
    relevance_score: score,
    reasoning: `${id} has the scores`,
    matched_columns: matched,
  });
  const discovery = {
    results: [
      {
        conceptual_group: 'game scores',
        search_query: 'nfl game scores',
        target_columns: [
          { name: 'home_score', type: 'INT64', description: 'Points of the home team' },
          { name: 'away_score', type: 'INT64' },
        ],
        discovered_tables: [table('games', 0.82, ['home_score'])],
        candidates_found: 3,
        status: 'ok',
        unsourced_columns: ['away_score'],
      },
      {
        conceptual_group: 'weather',
        search_query: 'weather',
        target_columns: [{ name: 'wind', type: 'FLOAT64' }],
        discovered_tables: [],
        candidates_found: 2,
        status: 'no_source',
        unsourced_columns: ['wind'],
      },
    ],
    rejected: [
      {
        conceptual_group: 'weather',
        table: 'p.d.stadiums',
        outcome: 'not_a_fit',
        reason: 'no wind',
        relevance_score: 0.1,
      },
    ],
    uncovered_columns: ['away_score', 'wind'],
    unsourced_columns: ['away_score', 'wind'],
    derived_columns: ['margin'],
    target_schema: [],
    schema_source: 'prp',
    stats: { steps: 2, searches_failed: 0, candidates: 5, validations_failed: 0, fits: 1 },
    usage: { promptTokens: 1, outputTokens: 1, totalTokens: 2, calls: 1 },
  };

  it('shows each step: target columns, tables with relevance and what they supply, reasoning, status, what no table supplies', () => {
    const text = shown(renderResult({ artifactDir: '/out' }, 'discoverFromPrp', discovery).text);
    expect(text).toMatch(/Step 1: game scores tables found/);
    expect(text).toMatch(/home_score INT64 — Points of the home team/);
    expect(text).toMatch(/p\.d\.games games table 82% home_score games has the scores/);
    expect(text).toContain('Not supplied by any table of this step: away_score');
    expect(text).toMatch(/Step 2: weather no table supplies these columns/);
    expect(text).toContain('No table supplies: away_score, wind.');
    expect(text).toMatch(/Computed from other columns .* margin/);
    expect(text).toMatch(/p\.d\.stadiums — not a fit \(relevance 10%\): no wind/);
    expect(text).not.toMatch(/conceptual_group|discovered_tables|relevance_score|[{}"]/);
  });

  it('counts a look-alike set aside for a better source apart from the tables that fit', () => {
    const withLookalike = {
      ...discovery,
      rejected: [
        ...discovery.rejected,
        {
          conceptual_group: 'game scores',
          table: 'p.d.rugby_games',
          outcome: 'superseded',
          reason: 'p.d.games supplies home_score better',
          relevance_score: 0.7,
        },
      ],
      stats: { ...discovery.stats, fits: 2 },
    };
    const text = shown(renderResult({ artifactDir: '/out' }, 'discoverFromPrp', withLookalike).text);
    expect(text).toMatch(/5 candidate tables checked, 1 fit \(and 1 set aside for a better source\)/);
    expect(text).toMatch(/p\.d\.rugby_games — set aside for a better source/);
  });

  it('summarises a platform check: what was checked, the outcome, the model and backends', () => {
    const text = shown(
      renderResult({ artifactDir: '/out' }, 'platformCheck', {
        topic: 'battery',
        backends: { model: 'standin', warehouse: 'duckdb', search: 'embedded' },
        documents: [{ id: 'd1', title: 'Battery parts', score: 1 }],
        rows: [{ part: 'PD-1' }],
        sql: 'SELECT 1',
        summary: 'Found 1 document and 1 row.',
        highlights: ['Battery parts'],
        usage: { promptTokens: 1, outputTokens: 1, totalTokens: 2, calls: 1 },
      }).text,
    );
    expect(text).toMatch(
      /Checked the three backends on the topic battery ?: the search found 1 document, the warehouse returned 1 row,/,
    );
    expect(text).toMatch(
      /Outcome Found 1 document and 1 row\. Model standin \(2 tokens in 1 call\) Warehouse duckdb Search embedded/,
    );
    expect(text).not.toMatch(/totalTokens|highlights|[{}"]/);
    // Counts read as words in the right number, never "row(s)".
    expect(text).not.toContain('(s)');
  });
});

const proposalDocument: ProposalDocument = {
  title: 'Detecting stiffness loss in a footbridge',
  problem_definition: {
    problem_statement: 'A statement with *emphasis*.',
    main_research_question: 'What can the data show?',
    secondary_questions: ['What first?'],
    key_variables: ['stiffness loss'],
    preliminary_literature: [
      {
        title: 'Vibration monitoring',
        url: 'https://doi.org/10.1000/vib',
        relevance_note: 'Method.',
        source: 'openalex',
      },
      { title: 'Not a web link', url: 'javascript:alert(1)', relevance_note: 'Forged.', source: 'x' },
    ],
    refinement_history: [],
  },
  research_objectives: {
    general_objective: 'To answer it.',
    specific_objectives: ['Answer it.'],
    feasibility_notes: { timeline_assessment: 'It fits.', skills_required: [], risk_factors: [] },
    alignment_check: { coverage_analysis: 'Covered.', coherence_score: 'High' },
  },
  methodology: {
    recommended_methodology: 'Secondary analysis',
    methodology_type: 'quantitative',
    justification: 'It fits.',
    required_skills: [],
    timeline_fit: {
      is_feasible: true,
      estimated_duration: '6 weeks',
      key_phases: [{ name: 'All', duration: '6 weeks', description: 'Everything.' }],
    },
    alternative_methodologies: [],
  },
  data_collection_plan: {
    collection_techniques: ['Analysis'],
    recommended_tools: [],
    data_sources: ['Existing data'],
    estimated_sample_size: 'all of it',
    timeline_breakdown: {
      preparation: { duration: '1 week', activities: ['a'] },
      collection: { duration: '3 weeks', activities: ['b'] },
      quality_check: { duration: '2 weeks', activities: ['c'] },
      total_duration: '6 weeks',
    },
    resource_requirements: [],
  },
  quality_validation: {
    validation_passed: true,
    coherence_score: 0.9,
    feasibility_score: 0.9,
    overall_quality_score: 90,
    issues_identified: [],
    recommendations: [],
    requires_refinement: false,
    refinement_targets: [],
    feasibility_check: { plan_weeks: 6, timeline_weeks: 6, model_feasibility: 0.9, code_feasibility: 1 },
  },
};

describe('the review gate', () => {
  it('shows the draft as the proposal document, not only its title and score', () => {
    const page = reviewForm(
      {},
      { workflowId: 'p1' },
      {
        state: 'AWAITING_REVIEW',
        transitions: [],
        awaiting: 'review',
        round: 1,
        draft: { title: 'Stiffness', overall: 80, passed: true, issues: [], document: proposalDocument },
      },
    ).text;
    const text = shown(page);
    for (const heading of ['1. Problem', '2. Objectives', '3. Methodology', '4. Data collection', '5. Quality check'])
      expect(text).toContain(heading);
    expect(text).toContain('What can the data show?');
    expect(page).toContain('action="/console/runs/p1/proposal/review"');
  });
});

describe('start forms in words', () => {
  const eads = findFlow('runEadsInterview')!;

  it('labels fields in words, with the schema descriptions as hints and the known fixtures as choices', () => {
    const form = renderStartForm(eads).text;
    expect(form).toMatch(/<label for="f-projectId">Project id/);
    expect(form).toMatch(/<label for="f-idleTimeoutMinutes">Idle timeout minutes/);
    expect(form).toContain('human: you answer the questions');
    expect(form).toMatch(/<select id="f-fixture" name="fixture"[\s\S]*?<option value="brewery-flow-shop"/);
    expect(form).not.toMatch(/<label[^>]*>\s*idleTimeoutMinutes/);
  });

  it('asks for the schedule as yes/no with its options as fields, and reads them back', () => {
    const form = renderStartForm(eads).text;
    expect(form).toMatch(/<select id="f-schedule" name="schedule">/);
    expect(form).toMatch(/<select id="f-schedule-dueDates" name="schedule.dueDates"/);
    expect(form).toMatch(/<input[^>]*id="f-schedule-timeLimitSeconds"/);
    expect(form).not.toMatch(/<textarea[^>]*name="schedule"/);
    const fields = formFields(eads);
    const read = (values: Record<string, string>) => inputFromForm(fields, { projectId: 'p', ...values });
    expect(read({ schedule: 'false', 'schedule.dueDates': 'hard' }).input).toEqual({ projectId: 'p' });
    expect(read({ schedule: 'true' }).input).toEqual({ projectId: 'p', schedule: true });
    expect(
      read({
        schedule: 'true',
        'schedule.dueDates': 'hard',
        'schedule.timeLimitSeconds': '5',
        'schedule.chart': 'false',
      }).input,
    ).toEqual({
      projectId: 'p',
      schedule: { dueDates: 'hard', timeLimitSeconds: 5, chart: false },
    });
    const bad = read({ schedule: 'true', 'schedule.orders': '[{' });
    expect(bad.errors['schedule.orders']).toBe('must be JSON');
  });
});
