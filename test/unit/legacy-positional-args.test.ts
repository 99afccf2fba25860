/**
 * Activities take one input object; for one release they also accept the positional arguments a
 * worker of the previous release scheduled (`acceptingLegacyPositionalArgs`,
 * flows/lib/activities/support.ts). The helper on its own, then the wrapped activities called both
 * ways, including with the very arguments recorded in the replay corpus (what running workflows
 * scheduled before the change).
 */
import { arrayFromPayloads, defaultPayloadConverter } from '@temporalio/common';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger, type LogEntry } from '@temporalio/worker';
import fc from 'fast-check';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createEadsActivities } from '../../flows/eads/activities';
import { createPlatformActivities } from '../../flows/platform/activities';
import { createProposalActivities } from '../../flows/proposal/activities';
import { createDiscoveryActivities } from '../../flows/discovery/activities';
import { acceptingLegacyPositionalArgs, isInputObjectCall } from '../../flows/lib/activities/support';
import type { Backends } from '../../backends';
import type { SearchBackend } from '../../backends/search/types';
import { duckDbDialect } from '../../backends/warehouse/sql';
import type { Warehouse } from '../../backends/warehouse/types';
import { PROJECT_ROOT } from '../../plumbing/project-root';
import { EXAMPLE_PROFILE } from '../../flows/proposal/contract';
import { OBJECT_FORM } from '../helpers/legacy-object-form';
import { inActivityEnvironment } from '../helpers/activity-env';
import { fakeBackends, fakeModel } from './fake-backends';

interface Lookup {
  topic: string;
  limit: number;
}

/** An activity on a `Lookup` that records what it received and which converter calls were made. */
function lookupActivity() {
  const received: Lookup[] = [];
  const converted: unknown[][] = [];
  const activity = acceptingLegacyPositionalArgs(
    async (input: Lookup) => {
      received.push(input);
      return `${input.topic}:${input.limit}`;
    },
    (topic: string, limit: number): Lookup => {
      converted.push([topic, limit]);
      return { topic, limit };
    },
  );
  // The legacy form is not in the public type: a worker calls activities with whatever it decoded.
  const callAsWorker = (...args: unknown[]) => (activity as (...a: unknown[]) => Promise<string>)(...args);
  return { activity, callAsWorker, received, converted };
}

describe('acceptingLegacyPositionalArgs', () => {
  it('passes one input object through unchanged, without the converter', async () => {
    const { activity, received, converted } = lookupActivity();
    const input = { topic: 'battery', limit: 5 };
    expect(await activity(input)).toBe('battery:5');
    expect(received[0]).toBe(input);
    expect(converted).toEqual([]);
  });

  it('converts the legacy positional arguments into the input object', async () => {
    const { callAsWorker, received, converted } = lookupActivity();
    expect(await callAsWorker('battery', 5)).toBe('battery:5');
    expect(converted).toEqual([['battery', 5]]);
    expect(received).toEqual([{ topic: 'battery', limit: 5 }]);
  });

  it('reads a single argument that is not an object (an id) as the legacy form', async () => {
    const activity = acceptingLegacyPositionalArgs(
      async ({ eadsId }: { eadsId: string }) => eadsId.toUpperCase(),
      (eadsId: string) => ({ eadsId }),
    );
    expect(await (activity as (...a: unknown[]) => Promise<string>)('process/flow-shop')).toBe('PROCESS/FLOW-SHOP');
    expect(await activity({ eadsId: 'process/flow-shop' })).toBe('PROCESS/FLOW-SHOP');
  });

  it('never reads a call with one object as legacy, whatever the object holds', async () => {
    await fc.assert(
      fc.asyncProperty(fc.object({ withNullPrototype: true }), async (input) => {
        let seen: unknown;
        const activity = acceptingLegacyPositionalArgs(
          async (i: object) => {
            seen = i;
            return true;
          },
          (_a: unknown, _b: unknown): object => {
            throw new Error('read as legacy');
          },
        );
        await activity(input);
        expect(seen).toBe(input);
      }),
    );
  });

  it('tells the shapes apart by argument count and the type of the only argument', () => {
    expect(isInputObjectCall([{}])).toBe(true);
    expect(isInputObjectCall([{ 0: 'a', 1: 'b', length: 2 }])).toBe(true);
    expect(isInputObjectCall([])).toBe(false);
    expect(isInputObjectCall(['battery'])).toBe(false);
    expect(isInputObjectCall([5])).toBe(false);
    expect(isInputObjectCall([null])).toBe(false);
    expect(isInputObjectCall([['a', 'b']])).toBe(false);
    expect(isInputObjectCall([{ topic: 'battery' }, 5])).toBe(false);
    expect(isInputObjectCall([{ topic: 'battery' }, undefined])).toBe(false);
  });

  it('a converter that throws gives a rejected promise, as the activity would', async () => {
    const activity = acceptingLegacyPositionalArgs(
      async (i: Lookup) => i.topic,
      (topic: string, limit: number): Lookup => {
        if (typeof limit !== 'number') throw new TypeError('limit must be a number');
        return { topic, limit };
      },
    );
    const call = (activity as (...a: unknown[]) => Promise<string>)('battery', 'five');
    await expect(call).rejects.toThrow('limit must be a number');
  });

  it('logs a warning for each legacy call (to tell when the helper can go), none for the object form', async () => {
    const entries: LogEntry[] = [];
    const env = new MockActivityEnvironment(undefined, { logger: new DefaultLogger('WARN', (e) => entries.push(e)) });
    const { activity, callAsWorker } = lookupActivity();
    await env.run(activity, { topic: 'battery', limit: 5 });
    expect(entries).toEqual([]);
    await env.run(callAsWorker, 'battery', 5);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ level: 'WARN', message: 'activity called with legacy positional arguments' });
    expect(entries[0].meta).toMatchObject({ argumentCount: 2 });
  });

  it('works outside an activity context too (a direct call): nothing to log to', async () => {
    const { callAsWorker } = lookupActivity();
    expect(await callAsWorker('battery', 5)).toBe('battery:5');
  });

  it('shows workflows the object form only, and takes only legacy forms it can tell apart', () => {
    const { activity } = lookupActivity();
    const impl = async (i: Lookup) => i;
    const oneObject = (old: { topic: string }): Lookup => ({ ...old, limit: 5 });
    const optionalSecond = (old: { topic: string }, limit?: number): Lookup => ({
      topic: old.topic,
      limit: limit ?? 5,
    });
    // Type checks only (tsc -p . reads the tests); never called.
    const _typeChecks = () => [
      // @ts-expect-error: the positional form is not part of the public type.
      activity('battery', 5),
      // @ts-expect-error: a legacy form of one object argument would look like the object form.
      acceptingLegacyPositionalArgs(impl, oneObject),
      // @ts-expect-error: an optional second argument allows such a one-object legacy call.
      acceptingLegacyPositionalArgs(impl, optionalSecond),
    ];
    expect(typeof _typeChecks).toBe('function');
  });
});

/** Backends whose search and warehouse record their requests; the model records its request and fails. */
function recordingBackends() {
  const searches: unknown[] = [];
  const queries: unknown[] = [];
  const search = {
    name: 'fake',
    search: async ({ signal: _signal, ...request }: { signal?: AbortSignal }) => {
      searches.push(request);
      return { hits: [{ id: 'doc-1', score: 1, data: { title: 'Battery guide', url: 'https://example.org/b' } }] };
    },
  } as unknown as SearchBackend;
  const warehouse = {
    name: 'fake',
    dialect: duckDbDialect,
    query: async ({ sql, params }: { sql: string; params: unknown }) => {
      queries.push({ sql, params });
      return { rows: [{ part_number: 'P-1' }] };
    },
  } as unknown as Warehouse;
  const model = fakeModel(() => {
    throw new Error('the test model stops here');
  });
  const backends: Backends = fakeBackends({ model, search, warehouse });
  const seen = () => ({
    searches,
    queries,
    model: model.requests.map((r) => ({ task: r.task, sections: r.sections })),
  });
  return { backends, seen };
}

const activitiesOf = (backends: Backends) =>
  inActivityEnvironment({
    ...createPlatformActivities(backends),
    ...createEadsActivities(backends),
    ...createProposalActivities(backends),
    ...createDiscoveryActivities(backends),
  });
type Changed = ReturnType<typeof activitiesOf>;

/** What a call did: its result or failure, and what the backends were asked. */
async function outcome(call: (acts: Changed) => Promise<unknown>) {
  const { backends, seen } = recordingBackends();
  const result = await call(activitiesOf(backends)).then(
    (value) => ({ value }),
    (err: unknown) => ({ error: err instanceof Error ? err.message : String(err) }),
  );
  return { result, ...seen() };
}

const asWorker = (acts: Changed, name: string, args: unknown[]) =>
  (acts[name as keyof Changed] as unknown as (...a: unknown[]) => Promise<unknown>)(...args);

describe('wrapped activities, both call shapes', () => {
  it('platform: the same search, SQL and model request from either shape', async () => {
    const byObject = await outcome(async (a) => {
      await a.searchPlatformDocs({ topic: 'battery', limit: 3 });
      await a.queryComponents({ topic: 'Battery', limit: 5 });
      return a.summarizeFindings({ topic: 'battery', documents: [{ title: 'A' }], rows: [{ part_number: 'P-1' }] });
    });
    const byPosition = await outcome(async (a) => {
      await asWorker(a, 'searchPlatformDocs', ['battery', 3]);
      await asWorker(a, 'queryComponents', ['Battery', 5]);
      return asWorker(a, 'summarizeFindings', ['battery', [{ title: 'A' }], [{ part_number: 'P-1' }]]);
    });
    expect(byPosition).toEqual(byObject);
    expect(byObject.searches).toEqual([{ collection: 'platform-docs', query: 'battery', pageSize: 3 }]);
    expect(byObject.queries).toEqual([{ sql: expect.stringMatching(/LIMIT 5$/), params: { topic: 'battery' } }]);
    expect(byObject.model).toEqual([
      {
        task: 'platform.summarize',
        sections: { topic: 'battery', search_hits: [{ title: 'A' }], warehouse_rows: [{ part_number: 'P-1' }] },
      },
    ]);
  });

  it('eads: the same pursuit plan and fixture from either shape, and the same failure for an unknown id', async () => {
    const acts = activitiesOf(fakeBackends({}));
    const plan = await acts.loadPursuitPlan({ eadsId: 'process/flow-shop' });
    expect(plan.id).toBe('process/flow-shop');
    expect(await asWorker(acts, 'loadPursuitPlan', ['process/flow-shop'])).toEqual(plan);
    const firm = await acts.describeFixture({ fixtureId: 'brewery-flow-shop' });
    expect(firm).toMatchObject({ fixtureId: 'brewery-flow-shop' });
    expect(await asWorker(acts, 'describeFixture', ['brewery-flow-shop'])).toEqual(firm);
    await expect(asWorker(acts, 'loadPursuitPlan', ['process/no-such'])).rejects.toThrow(/unknown EADS/);
    await expect(acts.loadPursuitPlan({ eadsId: 'process/no-such' })).rejects.toThrow(/unknown EADS/);
  });

  it('proposal: the same literature queries from either shape, focus terms included', async () => {
    const byObject = await outcome((a) => a.searchLiterature({ profile: EXAMPLE_PROFILE, focusTerms: ['pollinator'] }));
    const byPosition = await outcome((a) => asWorker(a, 'searchLiterature', [EXAMPLE_PROFILE, ['pollinator']]));
    expect(byPosition).toEqual(byObject);
    expect(byObject.searches).toContainEqual(expect.objectContaining({ query: 'pollinator' }));
    // Without focus terms (optional in the object form) there is no such query.
    const without = await outcome((a) => a.searchLiterature({ profile: EXAMPLE_PROFILE }));
    expect(without.searches).not.toContainEqual(expect.objectContaining({ query: 'pollinator' }));
  });
});

/**
 * Every distinct positional call of each changed activity in the replay corpus (histories recorded
 * before the change), with its decoded arguments. Histories recorded since call with one object.
 */
function recordedCalls(): Array<[string, unknown[][]]> {
  const dir = path.join(PROJECT_ROOT, 'test', 'replay');
  const found = new Map<string, Map<string, unknown[]>>();
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()) {
    const history = historyFromJSON(JSON.parse(readFileSync(path.join(dir, file), 'utf8')));
    for (const event of history.events ?? []) {
      const scheduled = event.activityTaskScheduledEventAttributes;
      const name = scheduled?.activityType?.name;
      if (!name || !(name in OBJECT_FORM)) continue;
      const args = arrayFromPayloads(defaultPayloadConverter, scheduled?.input?.payloads);
      if (isInputObjectCall(args)) continue;
      const calls = found.get(name) ?? new Map<string, unknown[]>();
      calls.set(JSON.stringify(args), args);
      found.set(name, calls);
    }
  }
  return [...found].map(([name, calls]) => [name, [...calls.values()]]);
}

describe('the arguments running workflows scheduled (replay corpus)', () => {
  const recorded = recordedCalls();

  it('has recorded positional calls of every changed activity', () => {
    expect(recorded.map(([name]) => name).sort()).toEqual(Object.keys(OBJECT_FORM).sort());
  });

  it.each(recorded)('%s does with each recorded positional call what it does with the object', async (name, calls) => {
    let didWork = false;
    for (const args of calls) {
      const byPosition = await outcome((a) => asWorker(a, name, args));
      const byObject = await outcome((a) => asWorker(a, name, [OBJECT_FORM[name](args)]));
      expect(byPosition).toEqual(byObject);
      // A result, or a request to a backend before the test model stopped it (some ids are the test library's).
      didWork ||=
        'value' in byObject.result || byObject.searches.length + byObject.queries.length + byObject.model.length > 0;
    }
    expect(didWork).toBe(true);
  });
});
