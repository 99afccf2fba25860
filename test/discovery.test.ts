import { ApplicationFailure, CancelledFailure, WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DATA_DIR, type Backends } from '../backends';
import { BackendError } from '../backends/errors';
import type { ModelBackend, ModelRequest } from '../backends/model/types';
import {
  discoverFromPrpFlow,
  tableName,
  type DiscoverFromPrpOutput,
  discoveryCountsQuery,
} from '../flows/discovery/contract';
import { extractTargetSchema } from '../flows/discovery/prp-schema';
import { createHarness, recordHistory, type Harness } from './helpers/harness';
import { ModelTask, type DiscoveryValidateSections } from '../flows/discovery/model-tasks';
import { ScriptedModel } from './helpers/scripted-model';
import { DISCOVERY_TASKS, scriptedPlan, scriptedVerdicts, type ScriptedStep } from './helpers/scripted-discovery';
import { progressQuery } from '../contracts/progress-messages';

const prp = (name: string) => readFileSync(path.join(DATA_DIR, 'prp', `${name}.md`), 'utf8');
/** The step that searched for a column (groups are named from the columns, so tests find them by column). */
const stepWith = (out: DiscoverFromPrpOutput, column: string) =>
  out.results.find((r) => r.target_columns.some((c) => c.name === column))!;
const fitsFor = (out: DiscoverFromPrpOutput, column: string) =>
  stepWith(out, column)?.discovered_tables.map(tableName) ?? [];

// The model is scripted per test: a plan the test writes and a validator answering from the
// test's ledger of which table supplies which columns. What the stand-in's own rules would decide
// about these PRPs is tested apart (test/unit/discovery-rules.test.ts).
const model = new ScriptedModel();
const SPA = 'sports-analytics-prod';
const GAMES = `${SPA}.nfl_core.games`;
const BACKTEST = `${SPA}.nfl_predictions.backtest_regression_inferences`;
const WEEKLY = `${SPA}.nfl_predictions.weekly_model_predictions`;
const FINAL_SCORES = `${SPA}.nfl_results.final_scores`;

/** nfl-prediction-accuracy: three steps; the derived error column is left to the query layer. */
const ACCURACY_PLAN: ScriptedStep[] = [
  {
    group: 'game schedule',
    query: 'NFL games schedule season week home team away team',
    columns: ['game_id', 'season', 'week', 'game_date', 'home_team', 'away_team'],
  },
  {
    group: 'model predictions',
    query: 'NFL model predictions predicted scores win probability',
    columns: ['model_version', 'predicted_home_score', 'predicted_away_score', 'home_win_probability'],
  },
  {
    group: 'actual results',
    query: 'NFL final scores actual home score away score winner',
    columns: ['actual_home_score', 'actual_away_score', 'actual_winner'],
  },
];
/** The weekly predictions supply less and score lower, though the search ranks them first. */
const ACCURACY_LEDGER = {
  [GAMES]: { columns: ['game_id', 'season', 'week', 'game_date', 'home_team', 'away_team'], score: 0.95 },
  [BACKTEST]: {
    columns: ['model_version', 'predicted_home_score', 'predicted_away_score', 'home_win_probability'],
    score: 0.9,
  },
  [WEEKLY]: { columns: ['home_win_probability'], score: 0.5 },
  [FINAL_SCORES]: { columns: ['actual_home_score', 'actual_away_score', 'actual_winner'], score: 0.9 },
};

/** nfl-weather-scoring and nfl-betting-edge, in steps whose searches the catalog answers. */
const WEATHER_PLAN: ScriptedStep[] = [
  {
    group: 'game schedule',
    query: 'NFL games schedule season week home team away team',
    columns: ['game_id', 'season', 'game_date'],
  },
  { group: 'stadiums', query: 'NFL stadiums roof type', columns: ['stadium_name', 'roof_type'] },
  {
    group: 'kickoff weather',
    query: 'NFL weather at kickoff temperature wind precipitation',
    columns: ['temperature_f', 'wind_mph', 'precipitation'],
  },
  { group: 'final scores', query: 'NFL final scores home score away score', columns: ['home_score', 'away_score'] },
];
const WEATHER_LEDGER = {
  [GAMES]: { columns: ['game_id', 'season', 'game_date'] },
  [`${SPA}.nfl_core.stadiums`]: { columns: ['stadium_name', 'roof_type'] },
  [`${SPA}.nfl_core.weather_at_kickoff`]: { columns: ['game_id', 'temperature_f', 'wind_mph', 'precipitation'] },
  [FINAL_SCORES]: { columns: ['game_id', 'home_score', 'away_score'] },
};
const BETTING_PLAN: ScriptedStep[] = [
  {
    group: 'game schedule',
    query: 'NFL games kickoff time week',
    columns: ['game_id', 'season', 'week', 'kickoff_time', 'home_team', 'away_team'],
  },
  {
    group: 'closing lines',
    query: 'NFL closing betting lines spread moneyline',
    columns: ['closing_spread', 'closing_total', 'moneyline_home'],
  },
  {
    group: 'model predictions',
    query: 'NFL model predictions predicted scores win probability',
    columns: ['predicted_spread', 'win_probability'],
  },
  { group: 'final scores', query: 'NFL final scores home score away score', columns: ['final_margin'] },
];

/** Switches the tests flip on the worker's real backends, plus what the model saw. */
const hooks = {
  failSearch: undefined as ((query: string) => boolean) | undefined,
  failValidation: undefined as ((table: string) => boolean) | undefined,
  /** Awaited by every validation call before it reaches the model (a test holds them at a gate). */
  validationGate: undefined as Promise<void> | undefined,
  validateRequests: [] as Array<{ group: string; columns: string[]; table: string }>,
  modelInFlight: 0,
  modelAborted: 0,
  searchCalls: 0,
};

function instrument(b: Backends): Backends {
  const model: ModelBackend = {
    name: b.model.name,
    async generate(request: ModelRequest<never>) {
      if (request.task === ModelTask.discoveryValidate) {
        const sections = request.sections as DiscoveryValidateSections;
        const columns = JSON.parse(sections.target_columns) as Array<{ name: string }>;
        const table = JSON.parse(sections.candidate_table) as {
          project_id: string;
          dataset_id: string;
          table_id: string;
        };
        const name = tableName(table);
        hooks.validateRequests.push({
          group: sections.conceptual_group,
          columns: columns.map((c) => c.name),
          table: name,
        });
        if (hooks.failValidation?.(name))
          throw new BackendError('injected: model overloaded', {
            backend: 'model',
            retryable: true,
            type: 'ModelUnavailable',
            status: 503,
          });
      }
      if (request.task === ModelTask.discoveryValidate) await hooks.validationGate;
      hooks.modelInFlight++;
      try {
        return await b.model.generate(request);
      } catch (err) {
        if (request.signal?.aborted) hooks.modelAborted++;
        throw err;
      } finally {
        hooks.modelInFlight--;
      }
    },
  } as ModelBackend;
  return {
    ...b,
    model,
    search: {
      name: b.search.name,
      async search(request) {
        hooks.searchCalls++;
        if (hooks.failSearch?.(request.query))
          throw new BackendError('injected: search backend unavailable', {
            backend: 'search',
            retryable: true,
            type: 'SearchUnavailable',
            status: 503,
          });
        return b.search.search(request);
      },
    },
  };
}

async function activityEvents(handle: WorkflowHandle) {
  const events = (await handle.fetchHistory()).events ?? [];
  const scheduled = events.filter((e) => e.activityTaskScheduledEventAttributes);
  const closedIds = new Set(
    events
      .map(
        (e) =>
          e.activityTaskCompletedEventAttributes?.scheduledEventId ??
          e.activityTaskFailedEventAttributes?.scheduledEventId ??
          e.activityTaskTimedOutEventAttributes?.scheduledEventId ??
          e.activityTaskCanceledEventAttributes?.scheduledEventId,
      )
      .filter((id) => id != null)
      .map(String),
  );
  return {
    events,
    scheduled,
    unclosed: scheduled.filter((e) => !closedIds.has(String(e.eventId))),
    canceled: events.filter((e) => e.activityTaskCanceledEventAttributes).length,
  };
}

describe('discoverFromPrp on the embedded catalog with a scripted model', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness({ backends: instrument, rules: model.rules(DISCOVERY_TASKS) });
  });
  beforeEach(() => {
    model.script({});
    h.standin.setFaults({});
    h.standin.resetStats();
    hooks.failSearch = undefined;
    hooks.failValidation = undefined;
    hooks.validationGate = undefined;
    hooks.validateRequests = [];
    hooks.searchCalls = 0;
  });
  // A call the test did not script is a test that reads the stand-in's mind: fail it.
  afterEach(() => expect(model.unexpected).toEqual([]));
  afterAll(async () => h?.close());

  it('extracts the target schema from section 9, plans, searches, validates and groups the tables', async () => {
    model.script({
      [ModelTask.discoveryPlan]: scriptedPlan(ACCURACY_PLAN, ['absolute_margin_error']),
      [ModelTask.discoveryValidate]: scriptedVerdicts(ACCURACY_LEDGER),
    });
    const handle = await h.start(discoverFromPrpFlow, { prp: prp('nfl-prediction-accuracy') });
    const out = await handle.result();

    expect(out.schema_source).toBe('prp');
    expect(out.target_schema.map((c) => c.name)).toEqual(
      extractTargetSchema(prp('nfl-prediction-accuracy')).map((c) => c.name),
    );
    expect(out.target_schema).toHaveLength(14);
    // The plan was asked once, with the whole PRP and the schema read from section 9.
    expect(model.prompts(ModelTask.discoveryPlan)).toHaveLength(1);
    expect(model.prompts(ModelTask.discoveryPlan)[0].target_schema).toEqual(out.target_schema);
    // Every planned step is searched exactly once, in the plan's order and with the plan's columns
    // (every step found a table, so nothing was re-split).
    expect(out.results.map((r) => [r.conceptual_group, r.search_query, r.target_columns.map((c) => c.name)])).toEqual(
      ACCURACY_PLAN.map((s) => [s.group, s.query, s.columns]),
    );
    expect(hooks.searchCalls).toBe(ACCURACY_PLAN.length);
    // The column no step covers is reported, not silently dropped; the plan's derived one apart.
    expect(out.uncovered_columns).toEqual(['absolute_margin_error']);
    expect(out.derived_columns).toEqual(['absolute_margin_error']);
    expect(out.unsourced_columns).toEqual([]);
    // Fits are the validator's, best first within a step (the search ranked the weekly table first).
    expect(fitsFor(out, 'game_id')).toEqual([GAMES]);
    expect(fitsFor(out, 'predicted_home_score')).toEqual([BACKTEST, WEEKLY]);
    expect(fitsFor(out, 'actual_home_score')).toEqual([FINAL_SCORES]);
    expect(stepWith(out, 'predicted_home_score').discovered_tables[0]).toMatchObject({
      relevance_score: 0.9,
      matched_columns: ACCURACY_LEDGER[BACKTEST].columns,
    });
    const steps = out.results.length;
    for (const r of out.results) {
      expect(r.status).toBe('ok');
      expect(r.candidates_found).toBe(5);
      for (const t of r.discovered_tables) expect(t.schema.length).toBeGreaterThan(0);
      expect(r.discovered_tables.map((t) => t.relevance_score)).toEqual(
        [...r.discovered_tables.map((t) => t.relevance_score)].sort((a, b) => b - a),
      );
    }
    expect(out.stats).toMatchObject({
      steps,
      searches_failed: 0,
      candidates: 5 * steps,
      validations_failed: 0,
      fits: 4,
    });
    // Every candidate that is not a fit is listed as rejected by the validator.
    expect(out.rejected).toHaveLength(5 * steps - 4);
    expect(out.rejected.every((r) => r.outcome === 'not_a_fit' && r.relevance_score === 0.1)).toBe(true);
    expect(out.usage.calls).toBe(1 + 5 * steps);
    expect(model.count(ModelTask.discoveryValidate)).toBeGreaterThanOrEqual(5 * steps);

    // Each validation saw only its own step's columns and its group.
    // (A validation retried after a timeout on a busy machine is seen twice; each candidate counts once.)
    expect(new Set(hooks.validateRequests.map((v) => `${v.group} ${v.table}`)).size).toBe(5 * steps);
    for (const v of hooks.validateRequests) {
      const step = out.results.find((r) => r.conceptual_group === v.group)!;
      expect(v.columns).toEqual(step.target_columns.map((c) => c.name));
    }

    const progress = await handle.query(progressQuery);
    expect(progress).toMatchObject({
      flow: 'discoverFromPrp',
      status: 'completed',
      done: steps + 5 * steps,
      total: steps + 5 * steps,
    });
    expect(progress.detail).toContain(`${steps}/${steps} searched`);
    const counts = await handle.query(discoveryCountsQuery);
    expect(counts).toMatchObject({
      planned: steps,
      searched: steps,
      candidates: 5 * steps,
      validated: 5 * steps,
      fits: out.stats.fits,
    });
    expect(handle.workflowId).toMatch(/^discover-from-prp-nfl-game-prediction-accuracy-tracker-[0-9a-f]{6}$/);
    await recordHistory(handle, 'discover-from-prp-ok');
  });

  it('uses a given target schema and honours maxCandidatesPerStep and a concurrency bound of 1', async () => {
    model.script({
      [ModelTask.discoveryPlan]: scriptedPlan(WEATHER_PLAN),
      [ModelTask.discoveryValidate]: scriptedVerdicts(WEATHER_LEDGER),
    });
    const targetSchema = extractTargetSchema(prp('nfl-weather-scoring')).filter((c) => c.name !== 'total_points');
    const handle = await h.start(discoverFromPrpFlow, {
      prp: prp('nfl-weather-scoring'),
      targetSchema,
      maxCandidatesPerStep: 3,
      concurrency: 1,
    });
    const out = await handle.result();
    expect(out.schema_source).toBe('input');
    // The planner was given the input's schema, not section 9's.
    expect(model.prompts(ModelTask.discoveryPlan)[0].target_schema).toEqual(targetSchema);
    expect(out.uncovered_columns).toEqual([]);
    expect(out.unsourced_columns).toEqual([]);
    expect(fitsFor(out, 'wind_mph')).toEqual([`${SPA}.nfl_core.weather_at_kickoff`]);
    expect(fitsFor(out, 'roof_type')).toEqual([`${SPA}.nfl_core.stadiums`]);
    expect(fitsFor(out, 'home_score')).toEqual([FINAL_SCORES]);
    // Each search asked for three hits, and each step's candidates were validated once.
    expect(out.results.every((r) => r.candidates_found > 0 && r.candidates_found <= 3)).toBe(true);
    expect(out.stats.candidates).toBe(out.results.reduce((n, r) => n + r.candidates_found, 0));
    expect(new Set(hooks.validateRequests.map((v) => `${v.group} ${v.table}`)).size).toBe(out.stats.candidates);
    // With one slot, activities never overlap in the history.
    const { events } = await activityEvents(handle);
    let running = 0;
    let peak = 0;
    for (const e of events) {
      if (e.activityTaskStartedEventAttributes) peak = Math.max(peak, ++running);
      if (e.activityTaskCompletedEventAttributes || e.activityTaskFailedEventAttributes) running--;
    }
    expect(peak).toBe(1);
  });

  it('fails at once with a clear, non-retryable error when there is no target schema', async () => {
    const handle = await h.start(discoverFromPrpFlow, {
      prp: '# PRP: Something\n\n## 1. Goal\nFind data.\n\n## 9. Target Schema\nTo be decided.\n',
    });
    const error = await handle.result().catch((e) => e);
    expect(error).toBeInstanceOf(WorkflowFailedError);
    const cause = (error as WorkflowFailedError).cause as ApplicationFailure;
    expect(cause.type).toBe('TargetSchemaMissing');
    expect(cause.nonRetryable).toBe(true);
    expect(cause.message).toMatch(/section 9/);
    expect((await activityEvents(handle)).scheduled).toHaveLength(0);
    expect(await handle.query(progressQuery)).toMatchObject({ status: 'failed' });
    await recordHistory(handle, 'discover-from-prp-no-schema');
  });

  it('reads the target schema from a table under a heading of its own when the PRP has no section 9', async () => {
    const layout = prp('nfl-prediction-accuracy').replace(/^#{1,6}\s*9\b.*$/m, '## The sheet we want');
    expect(extractTargetSchema(layout)).toEqual([]);
    model.script({
      [ModelTask.discoveryPlan]: scriptedPlan(ACCURACY_PLAN, ['absolute_margin_error']),
      [ModelTask.discoveryValidate]: scriptedVerdicts(ACCURACY_LEDGER),
    });
    const handle = await h.start(discoverFromPrpFlow, { prp: layout });
    const out = discoverFromPrpFlow.output.parse(await handle.result());
    expect(out.schema_source).toBe('prp');
    expect(out.target_schema).toEqual(extractTargetSchema(prp('nfl-prediction-accuracy')));
    // The plan was asked with the columns read from that table.
    expect(model.prompts(ModelTask.discoveryPlan)[0].target_schema).toEqual(out.target_schema);
    await recordHistory(handle, 'discover-from-prp-layout-table');
  });

  it('rejects bad input before any workflow exists', async () => {
    await expect(h.start(discoverFromPrpFlow, { prp: 'x', concurrency: 0 })).rejects.toThrow(/concurrency/);
    await expect(
      h.start(discoverFromPrpFlow, {
        prp: 'x',
        targetSchema: [
          { name: 'a', type: 'STRING' },
          { name: 'A', type: 'INT64' },
        ],
      }),
    ).rejects.toThrow(/duplicate column/);
  });

  it('records a step whose search keeps failing in that step; the other steps complete', async () => {
    model.script({
      [ModelTask.discoveryPlan]: scriptedPlan(WEATHER_PLAN, ['total_points']),
      [ModelTask.discoveryValidate]: scriptedVerdicts(WEATHER_LEDGER),
    });
    hooks.failSearch = (query) => /temperature/i.test(query);
    const handle = await h.start(discoverFromPrpFlow, { prp: prp('nfl-weather-scoring') });
    const out = await handle.result();
    const weather = stepWith(out, 'temperature_f');
    expect(weather).toMatchObject({ status: 'failed', discovered_tables: [], candidates_found: 0 });
    expect(weather.error).toMatch(/search failed: .*unavailable/);
    expect(weather.unsourced_columns).toEqual(['temperature_f', 'wind_mph', 'precipitation']);
    expect(out.unsourced_columns).toEqual(['temperature_f', 'wind_mph', 'precipitation']);
    // Nothing of the failed step reached the validator.
    expect(hooks.validateRequests.filter((v) => v.group === weather.conceptual_group)).toEqual([]);
    expect(
      out.results.filter((r) => r !== weather).every((r) => r.status === 'ok' && r.discovered_tables.length > 0),
    ).toBe(true);
    expect(out.stats.searches_failed).toBe(1);
    // The failing search was retried by Temporal (3 attempts) before it was recorded.
    const { events } = await activityEvents(handle);
    expect(
      events.some(
        (e) =>
          e.activityTaskFailedEventAttributes &&
          /unavailable/.test(
            e.activityTaskFailedEventAttributes.failure?.cause?.message ??
              e.activityTaskFailedEventAttributes.failure?.message ??
              '',
          ),
      ),
    ).toBe(true);
    expect(hooks.searchCalls).toBe(3 + out.results.length - 1);
    expect(await handle.query(discoveryCountsQuery)).toMatchObject({
      searchesFailed: 1,
      searched: out.results.length - 1,
    });
    await recordHistory(handle, 'discover-from-prp-search-failed');
  });

  it('fails closed: a candidate whose validation keeps failing is never reported as a fit', async () => {
    model.script({
      [ModelTask.discoveryPlan]: scriptedPlan(ACCURACY_PLAN, ['absolute_margin_error']),
      [ModelTask.discoveryValidate]: scriptedVerdicts(ACCURACY_LEDGER),
    });
    hooks.failValidation = (table) => table === 'sports-analytics-prod.nfl_results.final_scores';
    const handle = await h.start(discoverFromPrpFlow, { prp: prp('nfl-prediction-accuracy') });
    const out = await handle.result();
    const results = stepWith(out, 'actual_home_score');
    expect(results.discovered_tables.map(tableName)).not.toContain('sports-analytics-prod.nfl_results.final_scores');
    expect(results.status).toBe('partial');
    // The validator would have accepted it: only the failure kept it out.
    expect(results.discovered_tables).toEqual([]);
    expect(results.unsourced_columns).toEqual(['actual_home_score', 'actual_away_score', 'actual_winner']);
    expect(results.error).toMatch(/1 of 5 validation\(s\) failed: .*overloaded/);
    expect(out.rejected).toContainEqual(
      expect.objectContaining({
        table: 'sports-analytics-prod.nfl_results.final_scores',
        outcome: 'validation_error',
        relevance_score: null,
      }),
    );
    expect(out.stats.validations_failed).toBe(1);
    // Retried to the policy's limit before giving up; the other steps are unaffected.
    expect(
      hooks.validateRequests.filter((v) => v.table === 'sports-analytics-prod.nfl_results.final_scores'),
    ).toHaveLength(4);
    // The step's candidates are validated together: its retries resumed from the last heartbeat
    // and asked the model again only about the failing candidate.
    const asked = hooks.validateRequests.map((v) => `${v.group} ${v.table}`);
    for (const key of new Set(asked)) {
      if (!key.endsWith(' sports-analytics-prod.nfl_results.final_scores'))
        expect(
          asked.filter((k) => k === key),
          key,
        ).toHaveLength(1);
    }
    // On its last attempt the step's activity completed with the failure as that candidate's verdict.
    const { events } = await activityEvents(handle);
    expect(events.filter((e) => e.activityTaskFailedEventAttributes)).toHaveLength(0);
    expect(fitsFor(out, 'predicted_home_score')).toEqual([BACKTEST, WEEKLY]);
    expect(fitsFor(out, 'game_id')).toEqual([GAMES]);
    await recordHistory(handle, 'discover-from-prp-validation-failed');
  });

  it('a permanent model fault on validation fails every candidate closed, without retries', async () => {
    // The validator is not scripted: the fault answers every validation before a script could.
    model.script({ [ModelTask.discoveryPlan]: scriptedPlan(BETTING_PLAN, ['edge_points']) });
    h.standin.setFaults({ permanentStatus: 403, tasks: ['discovery.validate'] });
    const out = await h.run(discoverFromPrpFlow, {
      prp: prp('nfl-betting-edge'),
      maxCandidatesPerStep: 2,
    });
    expect(out.stats.fits).toBe(0);
    expect(out.results.every((r) => r.discovered_tables.length === 0 && r.status === 'partial')).toBe(true);
    expect(out.rejected.every((r) => r.outcome === 'validation_error' && /403/.test(r.reason))).toBe(true);
    expect(h.standin.stats().byTask['discovery.validate']).toBe(out.stats.candidates);
    expect(out.stats.candidates).toBeGreaterThan(0);
    expect(out.results).toHaveLength(BETTING_PLAN.length);
    expect([...(out.unsourced_columns ?? [])].sort()).toEqual(BETTING_PLAN.flatMap((s) => s.columns).sort());
  });

  it(
    'cancellation stops outstanding searches and validations; the workflow ends as ' +
      'cancelled with no activity left running',
    async () => {
      model.script({
        [ModelTask.discoveryPlan]: scriptedPlan(BETTING_PLAN, ['edge_points']),
        [ModelTask.discoveryValidate]: scriptedVerdicts({}),
      });
      // Validations wait at a gate until the model hangs: on a fast run they could otherwise all
      // be answered between the plan coming in and the fault being switched on.
      let openGate = () => {};
      hooks.validationGate = new Promise<void>((resolve) => (openGate = resolve));
      const handle = await h.start(discoverFromPrpFlow, { prp: prp('nfl-betting-edge'), concurrency: 3 });
      // Once the plan is in, every further model call hangs for a minute unless it is cancelled.
      for (
        let i = 0;
        i < 100 && (await handle.query(discoveryCountsQuery).catch(() => ({ planned: 0 }))).planned === 0;
        i++
      )
        await new Promise((r) => setTimeout(r, 100));
      h.standin.setFaults({ latencyMs: 60_000 });
      openGate();
      // Only requests that reach the stand-in from now on hang: ones already past its latency gate
      // (answering can take a moment) finish normally. Wait for three new ones.
      const atFaults = h.standin.stats().requests;
      // Wait on this workflow's own activities (a global in-flight count can include an earlier
      // test's stragglers): a step's validation running, holding three hanging model calls (the
      // concurrency bound).
      const pending = async () => (await handle.describe()).raw.pendingActivities?.length ?? 0;
      const hanging = () => h.standin.stats().requests - atFaults;
      for (let i = 0; i < 300 && (hanging() < 3 || (await pending()) < 1); i++)
        await new Promise((r) => setTimeout(r, 100));
      expect(hanging()).toBeGreaterThanOrEqual(3);
      expect(await pending()).toBeGreaterThanOrEqual(1);
      expect(hooks.modelInFlight).toBeGreaterThanOrEqual(3);
      const requestsBefore = h.standin.stats().requests;

      await handle.cancel();
      const error = await handle.result().catch((e) => e);
      expect(error).toBeInstanceOf(WorkflowFailedError);
      expect((error as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
      expect((await handle.describe()).status.name).toBe('CANCELLED');

      // Every scheduled activity is closed in the history; the hanging ones were cancelled and
      // acknowledged it (their HTTP calls were aborted), and nothing new reached the model.
      const { unclosed, canceled, events } = await activityEvents(handle);
      expect(unclosed).toEqual([]);
      const closes = events.filter(
        (e) =>
          e.activityTaskFailedEventAttributes ||
          e.activityTaskCanceledEventAttributes ||
          e.activityTaskCompletedEventAttributes ||
          e.activityTaskTimedOutEventAttributes,
      );
      expect(hooks.modelInFlight).toBe(0);
      expect(hooks.modelAborted, `aborted ${hooks.modelAborted}`).toBeGreaterThanOrEqual(3);
      expect(
        canceled,
        JSON.stringify(
          closes.slice(-5).map((e) => [e.eventType, e.activityTaskFailedEventAttributes?.failure?.message]),
        ),
      ).toBeGreaterThanOrEqual(1);
      await new Promise((r) => setTimeout(r, 500));
      expect(h.standin.stats().requests).toBe(requestsBefore);
      expect(await handle.query(progressQuery)).toMatchObject({ status: 'cancelled' });
      await recordHistory(handle, 'discover-from-prp-cancelled');
    },
  );
});
