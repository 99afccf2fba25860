import { ApplicationFailure, CancelledFailure, WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
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
import { progressQuery } from '../contracts/progress-messages';

const prp = (name: string) => readFileSync(path.join(DATA_DIR, 'prp', `${name}.md`), 'utf8');
/** The step that searched for a column (groups are named from the columns, so tests find them by column). */
const stepWith = (out: DiscoverFromPrpOutput, column: string) =>
  out.results.find((r) => r.target_columns.some((c) => c.name === column))!;
const fitsFor = (out: DiscoverFromPrpOutput, column: string) =>
  stepWith(out, column)?.discovered_tables.map(tableName) ?? [];
const allFits = (out: DiscoverFromPrpOutput) => new Set(out.results.flatMap((r) => r.discovered_tables.map(tableName)));
const OTHER_LEAGUES = /\.(nba_|mlb_|soccer|college_football|esports)/;

/** Switches the tests flip on the worker's real backends, plus what the model saw. */
const hooks = {
  failSearch: undefined as ((query: string) => boolean) | undefined,
  failValidation: undefined as ((table: string) => boolean) | undefined,
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

describe('discoverFromPrp on the embedded catalog and the stand-in', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness({ backends: instrument });
  });
  beforeEach(() => {
    h.standin.setFaults({});
    h.standin.resetStats();
    hooks.failSearch = undefined;
    hooks.failValidation = undefined;
    hooks.validateRequests = [];
    hooks.searchCalls = 0;
  });
  afterAll(async () => h?.close());

  it('extracts the target schema from section 9, plans, searches, validates and groups the tables', async () => {
    const handle = await h.start(discoverFromPrpFlow, { prp: prp('nfl-prediction-accuracy') });
    const out = await handle.result();

    expect(out.schema_source).toBe('prp');
    expect(out.target_schema.map((c) => c.name)).toEqual(
      extractTargetSchema(prp('nfl-prediction-accuracy')).map((c) => c.name),
    );
    expect(out.target_schema).toHaveLength(14);
    // Every column a table can supply is searched for exactly once, in a group named after the PRP.
    expect(out.results.flatMap((r) => r.target_columns.map((c) => c.name)).sort()).toEqual(
      out.target_schema
        .map((c) => c.name)
        .filter((c) => c !== 'absolute_margin_error')
        .sort(),
    );
    for (const r of out.results) expect(r.conceptual_group).toMatch(/NFL Game Prediction Accuracy Tracker/);
    // The derived column is left to the query layer and reported, not silently dropped.
    expect(out.uncovered_columns).toEqual(['absolute_margin_error']);
    for (const t of ['nfl_core.games', 'nfl_predictions.backtest_regression_inferences', 'nfl_results.final_scores'])
      expect(allFits(out)).toContain(`sports-analytics-prod.${t}`);
    expect(fitsFor(out, 'predicted_home_score')[0]).toBe(
      'sports-analytics-prod.nfl_predictions.backtest_regression_inferences',
    );
    expect(fitsFor(out, 'actual_home_score')).toContain('sports-analytics-prod.nfl_results.final_scores');
    // Same-shaped tables from other leagues may be found by the search but never fit.
    expect([...allFits(out)].filter((t) => OTHER_LEAGUES.test(t))).toEqual([]);
    const steps = out.results.length;
    for (const r of out.results) {
      expect(r.status).toBe('ok');
      expect(r.candidates_found).toBe(5);
      for (const t of r.discovered_tables) expect(t.schema.length).toBeGreaterThan(0);
      expect(r.discovered_tables.map((t) => t.relevance_score)).toEqual(
        [...r.discovered_tables.map((t) => t.relevance_score)].sort((a, b) => b - a),
      );
    }
    expect(out.stats).toMatchObject({ steps, searches_failed: 0, candidates: 5 * steps, validations_failed: 0 });
    expect(out.usage.calls).toBe(1 + 5 * steps);

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
    const targetSchema = extractTargetSchema(prp('nfl-weather-scoring')).filter((c) => c.name !== 'total_points');
    const handle = await h.start(discoverFromPrpFlow, {
      prp: prp('nfl-weather-scoring'),
      targetSchema,
      maxCandidatesPerStep: 3,
      concurrency: 1,
    });
    const out = await handle.result();
    expect(out.schema_source).toBe('input');
    expect(out.uncovered_columns).toEqual([]);
    expect(fitsFor(out, 'wind_mph')[0]).toBe('sports-analytics-prod.nfl_core.weather_at_kickoff');
    expect(allFits(out)).toContain('sports-analytics-prod.nfl_core.stadiums');
    expect(fitsFor(out, 'home_score')).toContain('sports-analytics-prod.nfl_results.final_scores');
    // General weather data is about something else: it names its own source (NOAA), not NFL games.
    expect(allFits(out)).not.toContain('weather-data.noaa.daily_station_observations');
    expect(out.results.every((r) => r.candidates_found <= 3)).toBe(true);
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
    hooks.failSearch = (query) => /temperature/i.test(query);
    const handle = await h.start(discoverFromPrpFlow, { prp: prp('nfl-weather-scoring') });
    const out = await handle.result();
    const weather = stepWith(out, 'temperature_f');
    expect(weather).toMatchObject({ status: 'failed', discovered_tables: [], candidates_found: 0 });
    expect(weather.error).toMatch(/search failed: .*unavailable/);
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
    hooks.failValidation = (table) => table === 'sports-analytics-prod.nfl_results.final_scores';
    const handle = await h.start(discoverFromPrpFlow, { prp: prp('nfl-prediction-accuracy') });
    const out = await handle.result();
    const results = stepWith(out, 'actual_home_score');
    expect(results.discovered_tables.map(tableName)).not.toContain('sports-analytics-prod.nfl_results.final_scores');
    expect(results.status).toBe('partial');
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
    expect(fitsFor(out, 'predicted_home_score')[0]).toBe(
      'sports-analytics-prod.nfl_predictions.backtest_regression_inferences',
    );
    await recordHistory(handle, 'discover-from-prp-validation-failed');
  });

  it('a permanent model fault on validation fails every candidate closed, without retries', async () => {
    h.standin.setFaults({ permanentStatus: 403, tasks: ['discovery.validate'] });
    const out = await h.run(discoverFromPrpFlow, {
      prp: prp('nfl-betting-edge'),
      maxCandidatesPerStep: 2,
    });
    expect(out.stats.fits).toBe(0);
    expect(out.results.every((r) => r.discovered_tables.length === 0 && r.status === 'partial')).toBe(true);
    expect(out.rejected.every((r) => r.outcome === 'validation_error' && /403/.test(r.reason))).toBe(true);
    expect(h.standin.stats().byTask['discovery.validate']).toBe(out.stats.candidates);
  });

  it(
    'cancellation stops outstanding searches and validations; the workflow ends as ' +
      'cancelled with no activity left running',
    async () => {
      const handle = await h.start(discoverFromPrpFlow, { prp: prp('nfl-betting-edge'), concurrency: 3 });
      // Once the plan is in, every further model call hangs for a minute unless it is cancelled.
      for (
        let i = 0;
        i < 100 && (await handle.query(discoveryCountsQuery).catch(() => ({ planned: 0 }))).planned === 0;
        i++
      )
        await new Promise((r) => setTimeout(r, 100));
      h.standin.setFaults({ latencyMs: 60_000 });
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
