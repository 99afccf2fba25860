/** The parts of `discoverFromPrp` that need no Temporal: section-9 parsing, candidate parsing, the stand-in's rules. */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installedEmbedder, describeWithModel, modelDir } from '../helpers/installed-embedder';
import { parseCandidate } from '../../flows/discovery/activities';
import { DATA_DIR } from '../../backends';
import {
  DELIVERABLE_LIMITS,
  deliverableOf,
  discoverFromPrpFlow,
  prpTitle,
  searchPlanSchema,
} from '../../flows/discovery/contract';
import { extractTargetSchema } from '../../flows/discovery/prp-schema';
import {
  columnMatch,
  domainOf,
  planSteps,
  restoreEmbedder,
  subjectAgreement,
  useEmbedder,
  validateCandidate,
} from '../../flows/discovery/standin';

const PRP_DIR = path.join(DATA_DIR, 'prp');
const catalog = JSON.parse(readFileSync(path.join(DATA_DIR, 'search', 'table-catalog.json'), 'utf8')) as Array<
  Record<string, unknown>
>;
const table = (id: string) => parseCandidate({ id, score: 1, data: catalog.find((t) => t.id === id)! })!;

describe('target schema from section 9', () => {
  it('reads the table of each bundled PRP, whatever its header names and backticks', () => {
    const betting = extractTargetSchema(readFileSync(path.join(PRP_DIR, 'nfl-betting-edge.md'), 'utf8'));
    expect(betting[0]).toEqual({ name: 'game_id', type: 'STRING', description: 'NFL game identifier' });
    expect(betting.map((c) => c.name)).toContain('moneyline_home');
    expect(extractTargetSchema(readFileSync(path.join(PRP_DIR, 'nfl-weather-scoring.md'), 'utf8'))).toHaveLength(11);
  });

  it(
    'reads a "- name (TYPE): description" list, a named heading, escaped pipes, and ' +
      'ignores headings in code fences',
    () => {
      const prp = [
        '# PRP: x',
        '```md',
        '## 9. Not this one',
        '```',
        '## Target schema',
        '- `order_id` (STRING): Order identifier',
        '- amount (NUMERIC)',
        '## 10. Next',
        '- `ignored` (STRING): outside the section',
      ].join('\n');
      expect(extractTargetSchema(prp)).toEqual([
        { name: 'order_id', type: 'STRING', description: 'Order identifier' },
        { name: 'amount', type: 'NUMERIC' },
      ]);
      const piped =
        '## 9) Output\n| Name | Type | Notes |\n|--|--|--|\n| **a** | STRING | one \\| two |\n| a | INT64 | duplicate |\n';
      expect(extractTargetSchema(piped)).toEqual([{ name: 'a', type: 'STRING', description: 'one | two' }]);
    },
  );

  it('returns nothing when there is no section 9 or it has no columns', () => {
    expect(extractTargetSchema('# PRP\n\n## 1. Goal\nStuff\n')).toEqual([]);
    expect(extractTargetSchema('# PRP\n\n## 9. Target Schema\nTBD\n')).toEqual([]);
  });

  it('with anyTable, reads a layout under a heading of its own: the first table naming columns and types', () => {
    const prp = [
      '# Ferry punctuality',
      '',
      '| Route | Sailings |',
      '|---|---|',
      '| North | 12 |',
      '',
      '```',
      '| Column | Type |',
      '|---|---|',
      '| in_a_code_block | STRING |',
      '```',
      '',
      '## The sheet we want',
      '',
      '| Field | Data type | Meaning |',
      '|---|---|---|',
      '| sailing_id | STRING | The sailing |',
      '| minutes_late | INT64 | Minutes after the timetable |',
    ].join('\n');
    // Only a section 9 or a heading that names the schema counts without it.
    expect(extractTargetSchema(prp)).toEqual([]);
    expect(extractTargetSchema(prp, { anyTable: true })).toEqual([
      { name: 'sailing_id', type: 'STRING', description: 'The sailing' },
      { name: 'minutes_late', type: 'INT64', description: 'Minutes after the timetable' },
    ]);
    // A section 9 still wins over any other table.
    expect(
      extractTargetSchema(`${prp}\n\n## 9. Target Schema\n- \`x\` (STRING): only this`, { anyTable: true }),
    ).toEqual([{ name: 'x', type: 'STRING', description: 'only this' }]);
    expect(extractTargetSchema('# PRP\n\n| a | b |\n|---|---|\n| 1 | 2 |\n', { anyTable: true })).toEqual([]);
  });

  it('with anyTable, passes over a table of sources that names a type, for the table of data types', () => {
    const prp = [
      '# Glacier melt monitor',
      '',
      '## Where the data comes from',
      '| Source name | Source type | Owner |',
      '|---|---|---|',
      '| Weather stations | public dataset | Met office |',
      '| Melt gauges | spreadsheet | Field team |',
      '',
      '## Layout',
      '| Field | Type |',
      '|---|---|',
      '| station_id | STRING |',
      '| melt_mm | FLOAT64 |',
    ].join('\n');
    expect(extractTargetSchema(prp, { anyTable: true }).map((c) => c.name)).toEqual(['station_id', 'melt_mm']);
  });

  it('titles the workflow id after the PRP', () => {
    expect(prpTitle('# PRP: NFL Game Prediction Accuracy Tracker\n')).toBe('NFL Game Prediction Accuracy Tracker');
    expect(discoverFromPrpFlow.idKey(discoverFromPrpFlow.input.parse({ prp: '# PRP: Weather & Scoring!\n' }))).toBe(
      'weather-scoring',
    );
  });

  it('ships each PRP as a ready workflow input (for --input-file and npm run flow)', () => {
    for (const file of readdirSync(PRP_DIR).filter((f) => f.endsWith('.md'))) {
      const input = JSON.parse(readFileSync(path.join(PRP_DIR, file.replace(/\.md$/, '.json')), 'utf8'));
      expect(input, file).toEqual({ prp: readFileSync(path.join(PRP_DIR, file), 'utf8') });
      expect(discoverFromPrpFlow.input.safeParse(input).success).toBe(true);
    }
  });
});

describe('the requirement’s columns sent with each validation', () => {
  it('keeps names and short descriptions of at most so many columns, types and long text left out', () => {
    const many = Array.from({ length: DELIVERABLE_LIMITS.columns + 5 }, (_, i) => ({
      name: `c${i}`,
      type: 'STRING',
      ...(i % 2 ? { description: 'x'.repeat(DELIVERABLE_LIMITS.description + 50) } : {}),
    }));
    const sent = deliverableOf(many);
    expect(sent).toHaveLength(DELIVERABLE_LIMITS.columns);
    expect(sent[0]).toEqual({ name: 'c0' });
    expect(sent[1]).toEqual({ name: 'c1', description: 'x'.repeat(DELIVERABLE_LIMITS.description) });
  });
});

describe('the requirement’s columns a wide requirement sends', () => {
  const wide = Array.from({ length: 150 }, (_, i) => ({ name: `col_${i}`, type: 'STRING' }));

  it('always holds the group’s own columns, also those past the cap, in the requirement’s order', () => {
    const group = [wide[120], wide[3], wide[149]];
    const sent = deliverableOf(wide, group).map((c) => c.name);
    expect(sent).toHaveLength(DELIVERABLE_LIMITS.columns);
    for (const c of group) expect(sent).toContain(c.name);
    expect(sent.slice(-2)).toEqual(['col_120', 'col_149']);
    expect(sent[0]).toBe('col_0');
  });

  it('never cuts a description inside a character written as two UTF-16 units', () => {
    const description = 'a'.repeat(DELIVERABLE_LIMITS.description - 1) + '\u{1F30A} tide';
    const [sent] = deliverableOf([{ name: 'tide', type: 'STRING', description }]);
    // A high surrogate at the end is half a character: invalid text for the model's API.
    expect(sent.description).not.toMatch(/[\uD800-\uDBFF]$/);
    expect(sent.description!.length).toBeLessThanOrEqual(DELIVERABLE_LIMITS.description);
  });
});

describe('search plan schema', () => {
  it('accepts only target columns of the schema, so the model is sent back with the error otherwise', () => {
    const schema = searchPlanSchema(['a', 'b']);
    expect(
      schema.safeParse({
        steps: [{ conceptual_group: 'Group', search_query: 'find a', target_columns_for_validation: ['a'] }],
      }).success,
    ).toBe(true);
    const bad = schema.safeParse({
      steps: [{ conceptual_group: 'Group', search_query: 'find c', target_columns_for_validation: ['c'] }],
    });
    expect(bad.success).toBe(false);
  });
});

describe('catalog documents as candidates', () => {
  it(
    'parses schemas given as lists, JSON strings or BigQuery { fields } and skips ' + 'documents that are not tables',
    () => {
      const fields = [{ name: 'x', type: 'INT64', description: null }];
      expect(parseCandidate({ id: '1', score: 1, data: { table_id: 't', schema: fields } })).toEqual({
        table_id: 't',
        project_id: '',
        dataset_id: '',
        description: '',
        schema: [{ name: 'x', type: 'INT64' }],
      });
      expect(
        parseCandidate({ id: '1', score: 1, data: { table_id: 't', schema: JSON.stringify(fields) } })?.schema,
      ).toEqual([{ name: 'x', type: 'INT64' }]);
      expect(parseCandidate({ id: '1', score: 1, data: { table_id: 't', schema: { fields } } })?.schema).toEqual([
        { name: 'x', type: 'INT64' },
      ]);
      expect(parseCandidate({ id: '1', score: 1, data: { title: 'a document', text: 'no table' } })).toBeUndefined();
      expect(parseCandidate({ id: '1', score: 1, data: { table_id: 't', schema: 'not json' } })).toBeUndefined();
    },
  );
});

// Tests below choose the embedder; the next file in this worker gets the installed model back.
afterAll(() => restoreEmbedder());

describe('stand-in planner (content-based, so a new PRP gets a sensible plan)', () => {
  it('finds the domain and groups a PRP it has never seen by what its columns say', async () => {
    useEmbedder(undefined);
    const prp = '# PRP: NFL quarterback availability\n\nHow injuries of NFL quarterbacks change passing output.\n';
    const steps = await planSteps(prp, [
      { name: 'player_id', type: 'STRING', description: 'NFL player identifier' },
      { name: 'passing_yards', type: 'INT64', description: 'Passing yards in the game' },
      { name: 'injury_type', type: 'STRING', description: 'Reported injury' },
      { name: 'practice_status', type: 'STRING', description: 'Practice participation' },
      { name: 'report_date', type: 'DATE', description: 'Date of the injury report' },
      { name: 'yards_per_attempt', type: 'FLOAT64', description: 'Computed from passing yards and attempts' },
    ]);
    expect(domainOf(prp)).toBe('NFL');
    // Every column that a table can supply is planned once; the computed one is left to the query.
    expect(steps.flatMap((s) => s.target_columns_for_validation).sort()).toEqual([
      'injury_type',
      'passing_yards',
      'player_id',
      'practice_status',
      'report_date',
    ]);
    const groupOf = (c: string) => steps.find((s) => s.target_columns_for_validation.includes(c));
    expect(groupOf('player_id')).toBe(groupOf('passing_yards'));
    expect(groupOf('injury_type')).toBe(groupOf('report_date'));
    expect(groupOf('injury_type')).not.toBe(groupOf('passing_yards'));
    for (const s of steps) {
      expect(s.conceptual_group).toContain('NFL quarterback availability');
      expect(s.search_query.length).toBeLessThanOrEqual(400);
    }
    expect(groupOf('passing_yards')!.search_query).toMatch(/player id.*passing yards/);
  });

  it('plans estimates apart from facts and outcomes, and names no group after another PRP', async () => {
    useEmbedder(undefined);
    const steps = await planSteps('# Store demand review\n', [
      { name: 'store_id', type: 'STRING', description: 'Branch' },
      { name: 'units_forecast', type: 'FLOAT64', description: 'Units the planning model expected to sell' },
      { name: 'units_forecast_high', type: 'FLOAT64', description: 'Upper end of the forecast interval' },
      { name: 'units_sold', type: 'INT64', description: 'Units actually sold' },
      { name: 'revenue', type: 'FLOAT64', description: 'Sales revenue' },
    ]);
    const groupOf = (c: string) => steps.find((s) => s.target_columns_for_validation.includes(c))!;
    expect(groupOf('units_forecast')).toBe(groupOf('units_forecast_high'));
    expect(groupOf('units_forecast')).not.toBe(groupOf('units_sold'));
    expect(groupOf('units_forecast').conceptual_group).toMatch(/^estimated /);
    expect(steps.map((s) => s.conceptual_group).join(' ')).not.toMatch(/NFL|game|betting|weather/i);
  });

  it('groups columns no cue word claims by their leading name word', async () => {
    useEmbedder(undefined);
    const steps = await planSteps('# Orders', [
      { name: 'order_total', type: 'NUMERIC' },
      { name: 'order_channel', type: 'STRING' },
      { name: 'sku_code', type: 'STRING' },
    ]);
    expect(steps.map((s) => s.target_columns_for_validation)).toEqual([['order_total', 'order_channel'], ['sku_code']]);
  });
});

describe('stand-in validator', () => {
  beforeAll(() => useEmbedder(undefined));
  const group = 'NFL actual game results';
  const targets = [
    { name: 'actual_home_score', type: 'INT64', description: 'Final points scored by the home team' },
    { name: 'actual_away_score', type: 'INT64', description: 'Final points scored by the away team' },
  ];

  it('accepts the table that holds the data under other names', async () => {
    const v = await validateCandidate(group, targets, table('sports-analytics-prod.nfl_results.final_scores'));
    expect(v).toMatchObject({ is_good_fit: true, matched_columns: ['actual_home_score', 'actual_away_score'] });
    expect(v.reasoning).toContain('actual_home_score←home_score');
    // Written for a reader: a count with its own plural, never "column(s)".
    expect(v.reasoning).toContain('covers 2 of the 2 target columns');
    expect(v.reasoning).not.toMatch(/\(s\)/);
    expect(v.relevance_score).toBeGreaterThan(0.8);
  });

  it('rejects same-shaped tables of another domain, and predictions offered as actual results', async () => {
    expect(
      await validateCandidate(group, targets, table('sports-analytics-prod.soccer.epl_match_results')),
    ).toMatchObject({ is_good_fit: false });
    expect(
      (await validateCandidate(group, targets, table('sports-analytics-prod.college_football.cfb_games'))).reasoning,
    ).toMatch(/not NFL data/);
    expect(
      await validateCandidate(
        group,
        targets,
        table('sports-analytics-prod.nfl_predictions.backtest_regression_inferences'),
      ),
    ).toMatchObject({ is_good_fit: false });
  });

  it('keeps a partial source that provides half of the group’s columns', async () => {
    const v = await validateCandidate(
      'NFL model predictions',
      [
        { name: 'win_probability', type: 'FLOAT64', description: 'Model probability that the home team wins' },
        { name: 'predicted_total', type: 'FLOAT64', description: 'Predicted combined points' },
      ],
      table('sports-analytics-prod.nfl_predictions.weekly_model_predictions'),
    );
    expect(v).toMatchObject({ is_good_fit: true, matched_columns: ['win_probability'] });
  });

  it('weighs type compatibility', () => {
    const target = { name: 'kickoff', type: 'TIMESTAMP', description: 'Kickoff time' };
    expect(columnMatch(target, { name: 'kickoff', type: 'TIMESTAMP' })).toBe(1);
    expect(
      columnMatch(
        { ...target, name: 'kickoff_at' },
        { name: 'kickoff_time', type: 'BOOL', description: 'Kickoff time' },
      ),
    ).toBeLessThan(
      columnMatch(
        { ...target, name: 'kickoff_at' },
        { name: 'kickoff_time', type: 'DATETIME', description: 'Kickoff time' },
      ),
    );
  });
});

// Runs where the model is installed (npm test installs it on first use; see docs/discovery.md).
describeWithModel('stand-in rules by meaning (embedding model installed)', () => {
  beforeAll(async () => useEmbedder(await installedEmbedder(modelDir!)));
  afterAll(() => restoreEmbedder());
  const churn = [
    {
      name: 'attrition_risk',
      type: 'FLOAT64',
      description: 'Likelihood the retention model gave that the client leaves',
    },
    { name: 'flagged', type: 'BOOL', description: 'Whether the model put the client on the at-risk list' },
  ];

  it('reads a group of a long requirement’s last columns against a subject that names them', async () => {
    // Twenty columns of rental trips, then the rainfall the demand depends on: the text of all of
    // them is far past what the embedder reads, and the rainfall comes last.
    const trips = ['trip_id', 'start_station', 'end_station', 'started_at', 'ended_at', 'duration_minutes', 'bike_id']
      .concat(['bike_type', 'member_type', 'rider_age', 'start_lat', 'start_lng', 'end_lat', 'end_lng', 'fare_paid'])
      .map((name) => ({
        name,
        type: 'STRING',
        description: `For each bike-share rental, the ${name.replace(/_/g, ' ')} the docking system records when the rider returns the bike`,
      }));
    const rainfall = {
      name: 'precipitation_mm',
      type: 'FLOAT64',
      description: 'Hourly rainfall at the nearest weather station in millimetres',
    };
    const observations = {
      dataset_id: 'met_office',
      table_id: 'hourly_station_observations',
      description: 'Hourly surface observations from national weather stations: temperature, rainfall and wind.',
      schema: [
        { name: 'station_id', type: 'STRING' },
        { name: 'observed_at', type: 'TIMESTAMP' },
        { name: 'air_temperature_c', type: 'FLOAT64' },
        { name: 'precipitation_mm', type: 'FLOAT64' },
      ],
    };
    const v = await validateCandidate('Rainfall', [rainfall], observations, [...trips, rainfall]);
    expect(v).toMatchObject({ is_good_fit: true, matched_columns: ['precipitation_mm'] });
  });

  it('matches columns that share no word with the target but mean the same', async () => {
    const v = await validateCandidate(
      'estimated attrition — Retention score calibration',
      churn,
      table('crm-prod.ml.churn_predictions'),
    );
    expect(v).toMatchObject({ is_good_fit: true, matched_columns: ['attrition_risk', 'flagged'] });
    useEmbedder(undefined);
    expect(
      await validateCandidate(
        'estimated attrition — Retention score calibration',
        churn,
        table('crm-prod.ml.churn_predictions'),
      ),
    ).toMatchObject({ is_good_fit: false });
    useEmbedder(await installedEmbedder(modelDir!));
  });

  it('still rejects another domain’s same-shaped tables and predictions offered as results', async () => {
    const group = 'NFL actual game results';
    const targets = [
      { name: 'actual_home_score', type: 'INT64', description: 'Final points scored by the home team' },
      { name: 'actual_away_score', type: 'INT64', description: 'Final points scored by the away team' },
    ];
    expect(
      await validateCandidate(group, targets, table('sports-analytics-prod.nfl_results.final_scores')),
    ).toMatchObject({ is_good_fit: true });
    for (const other of [
      'sports-analytics-prod.soccer.epl_match_results',
      'sports-analytics-prod.college_football.cfb_games',
      'sports-analytics-prod.nba_results.box_scores',
    ]) {
      expect(await validateCandidate(group, targets, table(other)), other).toMatchObject({ is_good_fit: false });
    }
    expect(
      await validateCandidate(
        group,
        targets,
        table('sports-analytics-prod.nfl_predictions.backtest_regression_inferences'),
      ),
    ).toMatchObject({ is_good_fit: false });
  });

  it('plans a PRP from another field by meaning: forecasts apart, product facts together', async () => {
    const steps = await planSteps('# Replenishment review\n', [
      { name: 'sku', type: 'STRING', description: 'Article number' },
      { name: 'category', type: 'STRING', description: 'Merchandise category' },
      { name: 'brand', type: 'STRING', description: 'Manufacturer brand' },
      { name: 'forecast_units', type: 'FLOAT64', description: 'Quantity the planning model expected to sell' },
      { name: 'forecast_low', type: 'FLOAT64', description: 'Lower end of the model interval' },
    ]);
    const groupOf = (c: string) => steps.find((s) => s.target_columns_for_validation.includes(c))!;
    expect(groupOf('category')).toBe(groupOf('brand'));
    expect(groupOf('forecast_units')).toBe(groupOf('forecast_low'));
    expect(groupOf('forecast_units')).not.toBe(groupOf('brand'));
  });
});

describeWithModel('stand-in: groups that span several tables (embedding model installed)', () => {
  beforeAll(async () => useEmbedder(await installedEmbedder(modelDir!)));
  afterAll(() => restoreEmbedder());
  // A PRP whose commonest acronym names no domain of the data, and whose columns three tables hold.
  const prp =
    '# Review: do enrolled people return less?\n\nThe ABC board asks, for the ABC audit, whether people in ' +
    'a research study come back to hospital less often. ABC rules count returns within a month.\n';
  const columns = [
    { name: 'stay_ref', type: 'STRING', description: 'Inpatient stay that ended' },
    { name: 'return_score', type: 'FLOAT64', description: 'Score the risk model gave for another admission' },
    { name: 'was_readmitted', type: 'BOOL', description: 'Whether the patient really was admitted again' },
    { name: 'followup_day', type: 'DATE', description: 'Date of an outpatient appointment' },
    { name: 'diagnosis', type: 'STRING', description: 'Diagnosis code recorded at that appointment' },
    { name: 'seen_by', type: 'STRING', description: 'Doctor or nurse who held the appointment' },
    { name: 'study_ref', type: 'STRING', description: 'Research study the patient signed up for' },
    { name: 'study_arm', type: 'STRING', description: 'Treatment group the patient was randomised to' },
  ];

  it('names no group after the document’s commonest acronym', async () => {
    const steps = await planSteps(prp, columns);
    for (const s of steps) expect(s.conceptual_group).not.toMatch(/^ABC\b/);
  });

  // Each table once "fitted" only by taking seen_by (the doctor or nurse) from its patient key,
  // which made a second column. Without that, each supplies too little of the group to be a
  // source on its own; the columns it could supply are still reported, which is what re-splits
  // the group into searches those tables answer.
  it('says which columns each table could supply, never a doctor from a patient key', async () => {
    const steps = await planSteps(prp, columns);
    const supplied = new Set<string>();
    for (const id of [
      'clinical-dw.risk.readmission_scores',
      'clinical-dw.encounters.visits',
      'clinical-dw.trials.enrollments',
    ]) {
      for (const s of steps) {
        const targets = columns.filter((c) => s.target_columns_for_validation.includes(c.name));
        const v = await validateCandidate(s.conceptual_group, targets, table(id));
        expect(v.reasoning, id).not.toMatch(/seen_by←patient_id/);
        v.matched_columns.forEach((c) => supplied.add(c));
      }
    }
    expect([...supplied]).toEqual(expect.arrayContaining(['was_readmitted', 'diagnosis', 'study_arm']));
  });
});

/**
 * What the stand-in judges, moved here from the flow tests (which now script their model): the
 * subject of a table, other leagues' same-shaped tables, and which table ranks first for a
 * group, on tables and groups written for these tests. Run without the embedding model and,
 * where it is installed, with it: the demo runs with whichever the machine has.
 */
const kickoffWeather = {
  project_id: 'league-dw',
  dataset_id: 'games',
  table_id: 'kickoff_conditions',
  description: 'Conditions at kickoff of each NFL game.',
  schema: [
    { name: 'game_id', type: 'STRING', description: 'NFL game' },
    { name: 'temperature_f', type: 'FLOAT64', description: 'Air temperature at kickoff in Fahrenheit' },
    { name: 'wind_mph', type: 'FLOAT64', description: 'Wind speed at kickoff' },
    { name: 'precipitation', type: 'STRING', description: 'Rain or snow at kickoff' },
  ],
};
const stationWeather = {
  project_id: 'open-weather',
  dataset_id: 'noaa',
  table_id: 'station_days',
  description: 'Daily readings of NOAA weather stations.',
  schema: [
    { name: 'station_id', type: 'STRING', description: 'Weather station' },
    { name: 'temperature_f', type: 'FLOAT64', description: 'Air temperature in Fahrenheit' },
    { name: 'wind_mph', type: 'FLOAT64', description: 'Wind speed' },
    { name: 'precipitation', type: 'STRING', description: 'Rain or snow that day' },
  ],
};
const scoreTable = (league: string, dataset: string) => ({
  project_id: 'league-dw',
  dataset_id: dataset,
  table_id: 'final_scores',
  description: `Final scores of ${league} games.`,
  schema: [
    { name: 'game_id', type: 'STRING', description: `${league} game` },
    { name: 'home_score', type: 'INT64', description: 'Final points of the home team' },
    { name: 'away_score', type: 'INT64', description: 'Final points of the away team' },
  ],
});
const weatherTargets = [
  { name: 'temperature_f', type: 'FLOAT64', description: 'Air temperature at kickoff in Fahrenheit' },
  { name: 'wind_mph', type: 'FLOAT64', description: 'Wind speed at kickoff in miles per hour' },
  { name: 'precipitation', type: 'STRING', description: 'Rain or snow during the game, or none' },
];
const scoreTargets = [
  { name: 'home_score', type: 'INT64', description: 'Final points scored by the home team' },
  { name: 'away_score', type: 'INT64', description: 'Final points scored by the away team' },
];
const predictionTargets = [
  { name: 'predicted_home_score', type: 'FLOAT64', description: 'Points the model predicted for the home team' },
  { name: 'predicted_away_score', type: 'FLOAT64', description: 'Points the model predicted for the away team' },
  { name: 'home_win_probability', type: 'FLOAT64', description: 'Predicted probability that the home team wins' },
];
const scorePredictions = {
  project_id: 'league-dw',
  dataset_id: 'models',
  table_id: 'score_predictions',
  description: 'Scores a regression model predicted for NFL games.',
  schema: [
    { name: 'game_id', type: 'STRING', description: 'NFL game' },
    { name: 'pred_home_points', type: 'FLOAT64', description: 'Predicted points of the home team' },
    { name: 'pred_away_points', type: 'FLOAT64', description: 'Predicted points of the away team' },
    { name: 'home_win_prob', type: 'FLOAT64', description: 'Predicted probability that the home team wins' },
  ],
};
const winProbabilities = {
  project_id: 'league-dw',
  dataset_id: 'models',
  table_id: 'win_probabilities',
  description: 'Win probabilities a model gave NFL games.',
  schema: [
    { name: 'game_id', type: 'STRING', description: 'NFL game' },
    { name: 'home_win_prob', type: 'FLOAT64', description: 'Predicted probability that the home team wins' },
  ],
};

const judgementCases = () => {
  it('weather data about another subject (a weather service’s stations) is no source for game-day weather', async () => {
    const group = 'NFL weather at kickoff';
    expect(await validateCandidate(group, weatherTargets, kickoffWeather)).toMatchObject({
      is_good_fit: true,
      matched_columns: ['temperature_f', 'wind_mph', 'precipitation'],
    });
    const noaa = await validateCandidate(group, weatherTargets, stationWeather);
    expect(noaa.is_good_fit).toBe(false);
    expect(noaa.reasoning).toMatch(/NOAA/);
  });

  it('same-shaped scores of other leagues never fit an NFL group', async () => {
    const group = 'NFL final scores';
    expect(await validateCandidate(group, scoreTargets, scoreTable('NFL', 'nfl'))).toMatchObject({
      is_good_fit: true,
    });
    for (const [league, dataset] of [
      ['NBA', 'nba'],
      ['MLB', 'mlb'],
    ])
      expect(await validateCandidate(group, scoreTargets, scoreTable(league, dataset)), league).toMatchObject({
        is_good_fit: false,
      });
  });

  it('ranks the table holding the whole group above one holding part of it', async () => {
    const group = 'NFL model predictions';
    const whole = await validateCandidate(group, predictionTargets, scorePredictions);
    const part = await validateCandidate(group, predictionTargets, winProbabilities);
    expect(whole).toMatchObject({
      is_good_fit: true,
      matched_columns: ['predicted_home_score', 'predicted_away_score', 'home_win_probability'],
    });
    expect(whole.relevance_score).toBeGreaterThan(part.relevance_score);
  });

  it('plans every column a table can supply once and leaves the derived one out', async () => {
    const prp = '# PRP: NFL kickoff weather and scoring\n\nDoes wind at kickoff lower NFL scoring?\n';
    const schema = [
      ...weatherTargets,
      ...scoreTargets,
      { ...scoreTargets[0], name: 'total_points', description: 'Calculated: home plus away score' },
    ];
    const steps = await planSteps(prp, schema);
    expect(steps.flatMap((s) => s.target_columns_for_validation).sort()).toEqual(
      [...weatherTargets, ...scoreTargets].map((c) => c.name).sort(),
    );
    const groupOf = (c: string) => steps.find((s) => s.target_columns_for_validation.includes(c));
    expect(groupOf('wind_mph')).toBe(groupOf('temperature_f'));
    expect(groupOf('wind_mph')).not.toBe(groupOf('home_score'));
  });
};

describe('stand-in judgement on tables written for it (words only)', () => {
  beforeAll(() => useEmbedder(undefined));
  judgementCases();
});

describeWithModel('stand-in judgement on tables written for it (embedding model installed)', () => {
  beforeAll(async () => useEmbedder(await installedEmbedder(modelDir!)));
  afterAll(() => restoreEmbedder());
  judgementCases();
});

// A requirement of its own (a lending library), and tables that share only a week and an amount
// in dollars with one of its groups.
const lending = [
  { name: 'title_id', type: 'STRING', description: 'Book in the lending catalogue' },
  { name: 'branch', type: 'STRING', description: 'Library branch that lent the book' },
  { name: 'loan_week', type: 'DATE', description: 'First day of the lending week' },
  { name: 'loans', type: 'INT64', description: 'Times the book was borrowed that week' },
  { name: 'late_returns', type: 'INT64', description: 'Loans brought back after the due date' },
  { name: 'reservations', type: 'INT64', description: 'Readers waiting for the book at the end of the week' },
  { name: 'fines_usd', type: 'NUMERIC', description: 'Late fees paid that week, in dollars' },
];
const finesGroup = lending.filter((c) => ['loan_week', 'fines_usd'].includes(c.name));
const weeklyTable = (dataset: string, table: string, description: string, own: Array<[string, string, string]>) => ({
  project_id: `${dataset}-dw`,
  dataset_id: dataset,
  table_id: table,
  description,
  schema: [
    { name: 'week_start', type: 'DATE', description: 'Monday of the week' },
    ...own.map(([name, type, description]) => ({ name, type, description })),
  ],
});
const liftRides = weeklyTable('lifts', 'weekly_rides', 'Weekly ski lift rides per lift.', [
  ['lift_id', 'STRING', 'Chair lift or gondola'],
  ['rides', 'INT64', 'Times skiers rode the lift that week'],
  ['revenue_usd', 'NUMERIC', 'Lift ticket takings that week, in dollars'],
]);
const turbineOutput = weeklyTable(
  'turbines',
  'weekly_output',
  'Weekly output and maintenance spend per wind turbine.',
  [
    ['turbine_id', 'STRING', 'Wind turbine'],
    ['output_mwh', 'FLOAT64', 'Electricity generated that week'],
    ['repair_cost_usd', 'NUMERIC', 'Maintenance spend that week, in dollars'],
  ],
);
const circulation = weeklyTable('circulation', 'weekly_loans', 'Weekly book loans per branch and title.', [
  ['title_id', 'STRING', 'Catalogue title'],
  ['branch', 'STRING', 'Lending branch'],
  ['checkouts', 'INT64', 'Times the title was checked out that week'],
  ['fees_collected', 'NUMERIC', 'Overdue fees collected, in dollars'],
]);

describeWithModel('stand-in: the subject of the whole requirement (embedding model installed)', () => {
  beforeAll(async () => useEmbedder(await installedEmbedder(modelDir!)));
  afterAll(() => restoreEmbedder());
  const group = 'week fines — Are popular books coming back late?';

  it('reports a table of another subject that shares only generic columns with the group as uncertain, not a fit', async () => {
    // The group alone cannot tell: its two columns are a week and an amount, which both tables hold.
    expect(await validateCandidate(group, finesGroup, liftRides)).toMatchObject({ is_good_fit: true });
    for (const other of [liftRides, turbineOutput]) {
      const v = await validateCandidate(group, finesGroup, other, lending);
      expect(v.is_good_fit, other.table_id).toBe(false);
      expect(v.reasoning, other.table_id).toMatch(/^Uncertain: .*requirement's subject/);
      expect((await subjectAgreement(other, lending))?.verdict).not.toBe('agrees');
    }
  });

  it('still accepts the table of the requirement’s own subject, whose columns go by other names', async () => {
    expect(await subjectAgreement(circulation, lending)).toMatchObject({ verdict: 'agrees' });
    expect(await validateCandidate(group, finesGroup, circulation, lending)).toMatchObject({
      is_good_fit: true,
      matched_columns: ['loan_week', 'fines_usd'],
    });
  });

  it('does not take an acronym of the heading, carried in the group’s name, for the group’s domain', async () => {
    // The heading names a medium; the table names whose data it is. Only the meaning decides.
    const headed = 'week fines — Do readers still borrow books once the DVD shelf is gone?';
    const named = {
      ...circulation,
      description: 'Weekly book loans per branch and title, of the Public Library branches.',
    };
    expect(await validateCandidate(headed, finesGroup, named, lending)).toMatchObject({ is_good_fit: true });
    // Without the requirement's columns the group's acronym is all there is to go by (older runs).
    expect(await validateCandidate(headed, finesGroup, named)).toMatchObject({ is_good_fit: false });
  });

  it('leaves the verdict to the columns without the model', async () => {
    useEmbedder(undefined);
    try {
      expect(await subjectAgreement(liftRides, lending)).toBeUndefined();
    } finally {
      useEmbedder(await installedEmbedder(modelDir!));
    }
  });
});
