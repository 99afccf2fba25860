/**
 * `discoveryValidateCandidates`: a step's candidates validated in one activity that Temporal retries.
 * Each attempt validates only the candidates the last heartbeat does not already settle; a
 * failure becomes a candidate's verdict on the last attempt (or at once when permanent).
 * And the workflow's Limiter, which hands a step the slots it validates with.
 */
import type { Info } from '@temporalio/activity';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import {
  createDiscoveryActivities,
  type CandidatesValidationInput,
  type CandidatesValidationOutput,
} from '../../flows/discovery/activities';
import type { GroupVerdict } from '../../flows/discovery/contract';
import { BackendError } from '../../backends/errors';
import type { ModelRequest } from '../../backends/model/types';
import { Limiter } from '../../flows/discovery/workflow/limiter';
import { mockActivityEnvironment } from '../helpers/activity-env';
import { fakeBackends, fakeModel } from './fake-backends';

const table = (id: string) => ({ table_id: id, project_id: 'p', dataset_id: 'd', description: `${id}.`, schema: [] });
const input = (ids: string[], extra: Partial<CandidatesValidationInput> = {}): CandidatesValidationInput => ({
  step: { conceptual_group: 'sales' },
  targetColumns: [{ name: 'store_id', type: 'STRING', description: 'The store.' }],
  candidates: ids.map(table),
  attempts: 4,
  ...extra,
});
const tableOf = (request: ModelRequest<never>) =>
  (JSON.parse(String((request.sections as Record<string, unknown>).candidate_table)) as { table_id: string }).table_id;
const fit = (id: string) => ({
  is_good_fit: id !== 'b',
  relevance_score: 0.5,
  reasoning: `about ${id}`,
  matched_columns: [],
});
const overloaded = () =>
  new BackendError('model overloaded', { backend: 'model', retryable: true, type: 'ModelUnavailable', status: 503 });
const rejected = () =>
  new BackendError('HTTP 403 forbidden', {
    backend: 'model',
    retryable: false,
    type: 'ModelRequestRejected',
    status: 403,
  });

/** Runs the activity once in a mock context with this attempt and these details; returns its result or failure and its heartbeats. */
async function attempt(
  answer: (id: string) => unknown,
  stepInput: CandidatesValidationInput,
  info: Partial<Info> = {},
) {
  const model = fakeModel((r) => answer(tableOf(r as never)));
  const env = mockActivityEnvironment(info);
  const beats: unknown[] = [];
  env.on('heartbeat', (d: unknown) => beats.push(d));
  const { discoveryValidateCandidates } = createDiscoveryActivities(fakeBackends({ model }));
  const outcome = await (env.run(discoveryValidateCandidates, stepInput) as Promise<CandidatesValidationOutput>).then(
    (out) => ({ out, failure: undefined }),
    (failure: unknown) => ({ out: undefined, failure }),
  );
  return { ...outcome, asked: model.requests.map((r) => tableOf(r as never)), last: beats.at(-1), beats };
}

describe('discoveryValidateCandidates', () => {
  it('asks the model once per candidate and returns the verdicts in candidate order', async () => {
    const { out, asked } = await attempt(fit, input(['a', 'b', 'c']));
    expect(asked.sort()).toEqual(['a', 'b', 'c']);
    expect(out!.verdicts.map((v) => (v && 'answer' in v ? v.answer.data.reasoning : v))).toEqual([
      'about a',
      'about b',
      'about c',
    ]);
  });

  it('tells the model the requirement’s columns when the workflow sends them, and nothing of them otherwise', async () => {
    const deliverable = [
      { name: 'store_id', description: 'The store.' },
      { name: 'aisle', description: 'Aisle of the shelf.' },
    ];
    const sectionsOf = async (extra: Partial<CandidatesValidationInput>) => {
      const model = fakeModel(() => fit('a'));
      const { discoveryValidateCandidates } = createDiscoveryActivities(fakeBackends({ model }));
      await mockActivityEnvironment({}).run(discoveryValidateCandidates, input(['a'], extra));
      return model.requests[0].sections as Record<string, unknown>;
    };
    expect(JSON.parse(String((await sectionsOf({ deliverable })).deliverable_columns))).toEqual(deliverable);
    expect(await sectionsOf({})).not.toHaveProperty('deliverable_columns');
  });

  it('tells the model the document’s own and ruled-out domain names when the workflow sends them', async () => {
    const sectionsOf = async (extra: Partial<CandidatesValidationInput>) => {
      const model = fakeModel(() => fit('a'));
      const { discoveryValidateCandidates } = createDiscoveryActivities(fakeBackends({ model }));
      await mockActivityEnvironment({}).run(discoveryValidateCandidates, input(['a'], extra));
      const request = model.requests[0];
      return { sections: request.sections as Record<string, unknown>, instructions: String(request.instructions) };
    };
    const domains = { own: ['IRB'], excluded: ['Grand Prix'], ruledOutText: ['Grand Prix timing is not wanted.'] };
    const sent = await sectionsOf({ domains });
    expect(JSON.parse(String(sent.sections.document_domains))).toEqual({
      own: ['IRB'],
      excluded: ['Grand Prix'],
      ruled_out: ['Grand Prix timing is not wanted.'],
    });
    expect(sent.instructions).toMatch(/document_domains/);
    // A document naming no domain says so; a run started before the names were sent says nothing.
    const none = { own: [], excluded: [] };
    expect(JSON.parse(String((await sectionsOf({ domains: none })).sections.document_domains))).toEqual({
      ...none,
      ruled_out: [],
    });
    expect((await sectionsOf({})).sections).not.toHaveProperty('document_domains');
  });

  it('asks about all its candidates at once (the workflow sizes the group to its concurrency slots)', async () => {
    let open = 0;
    let most = 0;
    const { out } = await attempt(
      async (id) => {
        most = Math.max(most, ++open);
        await new Promise((r) => setTimeout(r, 5));
        open--;
        return fit(id);
      },
      input(['a', 'b', 'c', 'd', 'e']),
    );
    expect(most).toBe(5);
    expect(out!.verdicts.every((v) => v && 'answer' in v)).toBe(true);
  });

  it('fails the attempt on a retryable failure, with the settled verdicts in its last heartbeat, and the retry asks only the rest', async () => {
    const first = await attempt((id) => (id === 'b' ? Promise.reject(overloaded()) : fit(id)), input(['a', 'b', 'c']));
    expect(first.failure).toBeInstanceOf(ApplicationFailure);
    const failure = first.failure as ApplicationFailure;
    expect(failure.nonRetryable).toBe(false);
    expect(failure.type).toBe('ModelUnavailable');
    expect(failure.message).toMatch(/^1 of 3 validation\(s\) failed, retried with the next attempt: model overloaded/);
    const details = first.last as { verdicts: GroupVerdict[] };
    expect(details.verdicts.map((v) => (v === null ? null : 'answer' in v))).toEqual([true, null, true]);
    // Every heartbeat carries the progress (a bare heartbeat would erase what a retry resumes from).
    expect(first.beats.every((b) => b !== undefined)).toBe(true);

    const second = await attempt(fit, input(['a', 'b', 'c']), { attempt: 2, heartbeatDetails: first.last });
    expect(second.asked).toEqual(['b']);
    expect(second.out!.verdicts.map((v) => v && 'answer' in v && v.answer.data.reasoning)).toEqual([
      'about a',
      'about b',
      'about c',
    ]);
  });

  it('on the last attempt a failure is the candidate’s verdict; a permanent failure is at once', async () => {
    const last = await attempt((id) => (id === 'b' ? Promise.reject(overloaded()) : fit(id)), input(['a', 'b']), {
      attempt: 4,
    });
    expect(last.out!.verdicts[1]).toEqual({ error: 'model overloaded' });
    const permanent = await attempt((id) => (id === 'a' ? Promise.reject(rejected()) : fit(id)), input(['a', 'b']));
    expect(permanent.failure).toBeUndefined();
    expect(permanent.out!.verdicts[0]).toEqual({ error: 'HTTP 403 forbidden' });
    // A verdict recorded as an error is not asked again on a later attempt.
    const resumed = await attempt(fit, input(['a', 'b']), { attempt: 2, heartbeatDetails: permanent.out });
    expect(resumed.asked).toEqual([]);
  });

  it('takes the last attempt from the retry policy the server runs it with, else from its input', async () => {
    const failingB = (id: string) => (id === 'b' ? Promise.reject(overloaded()) : fit(id));
    const byPolicy = await attempt(failingB, input(['a', 'b'], { attempts: 4 }), {
      attempt: 2,
      retryPolicy: { maximumAttempts: 2 },
    });
    expect(byPolicy.out!.verdicts[1]).toEqual({ error: 'model overloaded' });
    const unlimited = await attempt(failingB, input(['a', 'b'], { attempts: 4 }), {
      attempt: 9,
      retryPolicy: { maximumAttempts: 0 },
    });
    expect(unlimited.failure).toBeInstanceOf(ApplicationFailure);
  });

  it('starts afresh from details it cannot trust: another shape, another number of candidates, a forged verdict', async () => {
    const forged = { verdicts: [{ answer: { data: { is_good_fit: true, relevance_score: 7 } } }, null] };
    for (const heartbeatDetails of [
      'resume',
      { verdicts: [null] },
      forged,
      { verdicts: [{ error: 1 }, null] },
      { verdicts: [{ error: 'x', answer: {} }, null] },
    ]) {
      const { asked } = await attempt(fit, input(['a', 'b']), { attempt: 2, heartbeatDetails });
      expect(asked.sort(), JSON.stringify(heartbeatDetails)).toEqual(['a', 'b']);
    }
  });

  it('stops every open model call when Temporal cancels it', async () => {
    const model = fakeModel(
      (r) =>
        new Promise((_, reject) =>
          r.signal!.addEventListener('abort', () => reject(new CancelledFailure('cancelled'))),
        ),
    );
    const env = mockActivityEnvironment();
    const { discoveryValidateCandidates } = createDiscoveryActivities(fakeBackends({ model }));
    let aborted = 0;
    const running = env.run(discoveryValidateCandidates, input(['a', 'b', 'c']));
    await new Promise((r) => setTimeout(r, 20));
    for (const r of model.requests) r.signal!.addEventListener('abort', () => aborted++);
    env.cancel();
    await expect(running).rejects.toBeInstanceOf(CancelledFailure);
    expect(model.requests).toHaveLength(3);
    expect(aborted).toBe(3);
  });
});

describe('Limiter', () => {
  const tick = () => new Promise((r) => setTimeout(r, 0));

  it('grants up to the slots asked for, as many as are free, first come first served', async () => {
    const limiter = new Limiter(8);
    const granted: number[] = [];
    const release: Array<() => void> = [];
    const hold = (want: number) =>
      void limiter.run(want, (slots) => {
        granted.push(slots);
        return new Promise<void>((r) => release.push(r));
      });
    hold(1);
    hold(5);
    hold(5); // 2 free: gets 2 rather than waiting for 5
    hold(1); // none free: waits
    await tick();
    expect(granted).toEqual([1, 5, 2]);
    expect(limiter.inUse).toBe(8);
    release[0]();
    await tick();
    expect(granted).toEqual([1, 5, 2, 1]);
    release[1]();
    await tick();
    expect(limiter.inUse).toBe(3);
  });

  it('with one slot per request, hands a freed slot to the waiters in order (as the one-slot limiter did)', async () => {
    const limiter = new Limiter(2);
    const started: number[] = [];
    const release = new Map<number, () => void>();
    for (let i = 0; i < 5; i++)
      void limiter.run(1, () => {
        started.push(i);
        return new Promise<void>((r) => release.set(i, r));
      });
    await tick();
    expect(started).toEqual([0, 1]);
    release.get(1)!();
    await tick();
    expect(started).toEqual([0, 1, 2]);
    release.get(0)!();
    release.get(2)!();
    await tick();
    expect(started).toEqual([0, 1, 2, 3, 4]);
  });

  it('a lease gives its slots back once, however often it is released', async () => {
    const limiter = new Limiter(4);
    const lease = await limiter.acquire(3);
    expect(lease.slots).toBe(3);
    expect((await limiter.acquire(4)).slots).toBe(1); // what is free, at once
    const waiting = limiter.acquire(4);
    lease.release();
    lease.release();
    expect((await waiting).slots).toBe(3);
    expect(limiter.inUse).toBe(4);
  });

  it('frees the slots when the work fails', async () => {
    const limiter = new Limiter(3);
    await expect(limiter.run(3, () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(limiter.inUse).toBe(0);
  });
});
