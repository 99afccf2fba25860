/**
 * Cancellation reaches Google: when Temporal cancels an activity, its BigQuery job is cancelled
 * (jobs.cancel) and its Vertex AI Search and Gemini requests are aborted. Each case runs the
 * project's real activity in the SDK's MockActivityEnvironment against a wire fake, cancels it
 * while the call is in flight, and checks that the fake saw the cancel.
 */
import { MockActivityEnvironment } from '@temporalio/testing';
import { CancelledFailure } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Backends } from '../../backends';
import { GeminiModel } from '../../backends/model/gemini';
import { createPlatformActivities } from '../../flows/platform/activities';
import { askModel } from '../../flows/lib/activities/support';
import { startBigQueryFake, type BigQueryFake } from '../fakes/bigquery';
import { startDiscoveryEngineFake, type DiscoveryEngineFake } from '../fakes/discoveryengine';
import { startGeminiFake, type GeminiFake } from '../fakes/gemini';

let bigQuery: BigQueryFake;
let discovery: DiscoveryEngineFake;
let gemini: GeminiFake;

beforeAll(async () => {
  [bigQuery, discovery, gemini] = await Promise.all([
    startBigQueryFake(),
    startDiscoveryEngineFake({ 'agent-flows-platform-docs': [{ id: 'd1', title: 'Battery packs' }] }),
    startGeminiFake(),
  ]);
});
afterAll(async () => {
  await Promise.all([bigQuery?.close(), discovery?.close(), gemini?.close()]);
});

function geminiModel(): GeminiModel {
  return new GeminiModel({
    label: 'gemini',
    model: 'gemini-2.5-flash',
    apiKey: 'test-key',
    baseUrl: gemini.url,
    timeoutMs: 30_000,
    maxRepairs: 0,
  });
}

function platformActivities() {
  const backends = {
    model: geminiModel(),
    warehouse: bigQuery.warehouse(),
    search: discovery.search({ dataStorePrefix: 'agent-flows-' }),
    close: async () => undefined,
  } as Backends;
  return createPlatformActivities(backends);
}

/** Runs `activity` in a mock activity context, cancels it once `inFlight` resolves, returns the outcome. */
async function cancelWhenInFlight(run: () => Promise<unknown>, inFlight: Promise<unknown>): Promise<unknown> {
  const env = new MockActivityEnvironment();
  const outcome = env.run(run).then(
    () => 'completed',
    (err: unknown) => err,
  );
  await inFlight;
  env.cancel();
  return outcome;
}

describe('cancellation reaches Google', () => {
  it('cancels the BigQuery job of a cancelled warehouse step (jobs.cancel)', async () => {
    bigQuery.holdNext(1);
    const { queryComponents } = platformActivities();
    const started = Date.now();
    const outcome = await cancelWhenInFlight(
      () => queryComponents({ topic: 'battery', limit: 5 }),
      bigQuery.runningPolled(),
    );
    expect(outcome).toBeInstanceOf(CancelledFailure);
    expect(bigQuery.cancelled).toHaveLength(1);
    const insert = bigQuery.requests.find((r) => r.method === 'POST' && /\/jobs$/.test(r.path.split('?')[0]));
    expect(insert).toBeDefined();
    expect(bigQuery.requests.some((r) => r.path.includes(`/jobs/${bigQuery.cancelled[0]}/cancel`))).toBe(true);
    // The step ends at the cancel, not when the job would have finished (it never does here).
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('aborts the Vertex AI Search request of a cancelled search step', async () => {
    discovery.hangNext(1);
    const { searchPlatformDocs } = platformActivities();
    const outcome = await cancelWhenInFlight(
      () => searchPlatformDocs({ topic: 'battery', limit: 3 }),
      discovery.hanging(),
    );
    expect(outcome).toBeInstanceOf(CancelledFailure);
    await expect.poll(() => discovery.aborted.length, { timeout: 5000 }).toBe(1);
    expect(discovery.aborted[0]).toMatch(/dataStores\/agent-flows-platform-docs\/servingConfigs\/.+:search$/);
  });

  it('aborts the Gemini request of a cancelled model step', async () => {
    gemini.script({ hang: true });
    const model = geminiModel();
    const outcome = await cancelWhenInFlight(
      () =>
        askModel(model, {
          task: 'platform.summarize',
          instructions: 'Answer.',
          sections: { topic: 'battery', search_hits: [], warehouse_rows: [] },
          schema: z.object({}),
        }),
      gemini.hanging(),
    );
    expect(outcome).toBeInstanceOf(CancelledFailure);
    await expect.poll(() => gemini.aborted.length, { timeout: 5000 }).toBe(1);
    expect(gemini.aborted[0]).toMatch(/models\/gemini-2\.5-flash:generateContent$/);
  });

  it('answers a step that is not cancelled', async () => {
    const { queryComponents } = platformActivities();
    const env = new MockActivityEnvironment();
    const result = (await env.run(() => queryComponents({ topic: 'battery', limit: 5 }))) as { rows: unknown[] };
    expect(result.rows.length).toBeGreaterThan(0);
  });
});
