/**
 * Replays each history of the corpus and checks that the workflow schedules the same activities
 * with the same arguments, in the same order, as the history recorded. The replay test proper
 * (test/replay.test.ts) cannot see this: Temporal matches an activity on replay by type and id
 * only, so code that asked about candidates in another order would replay "cleanly" and then
 * hand each verdict to the wrong candidate; and it never compares the result. So this test also
 * checks that each completed history's recorded result is what the workflow returns on replay.
 */
import { tracingWorkerOptions } from '../plumbing/tracing';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { workflowBundleOptions } from '../workers/workflow-bundle';
import { REPLAY_DIR } from './helpers/harness';
import { OBJECT_FORM } from './helpers/legacy-object-form';

const files = readdirSync(REPLAY_DIR)
  .filter((f) => f.endsWith('.json'))
  .sort();

interface Scheduled {
  type: string;
  args: unknown;
}

/** The result a completed history recorded, as JSON (undefined when it did not complete or is not plain JSON). */
function recordedResult(history: ReturnType<typeof historyFromJSON>): { value: unknown } | undefined {
  const done = history.events?.find(
    (e) => e.workflowExecutionCompletedEventAttributes,
  )?.workflowExecutionCompletedEventAttributes;
  const payload = done?.result?.payloads?.[0];
  if (!payload || Buffer.from(payload.metadata?.encoding ?? []).toString() !== 'json/plain') return undefined;
  return { value: JSON.parse(Buffer.from(payload.data ?? []).toString('utf8')) };
}

/** The activities a history scheduled, with their arguments as JSON (undefined when not plain JSON, e.g. encrypted). */
function recorded(history: ReturnType<typeof historyFromJSON>): Scheduled[] | undefined {
  const out: Scheduled[] = [];
  for (const e of history.events ?? []) {
    const s = e.activityTaskScheduledEventAttributes;
    if (!s) continue;
    const payloads = s.input?.payloads ?? [];
    const plain = payloads.every((p) => Buffer.from(p.metadata?.encoding ?? []).toString() === 'json/plain');
    if (!plain) return undefined;
    const type = s.activityType?.name ?? '';
    const args: unknown[] = payloads.map((p) => JSON.parse(Buffer.from(p.data ?? []).toString('utf8')));
    // Scheduled by the previous release with positional arguments: compare in today's one-object form.
    const legacy = OBJECT_FORM[type] && !(args.length === 1 && typeof args[0] === 'object' && !Array.isArray(args[0]));
    out.push({ type, args: legacy ? [OBJECT_FORM[type](args)] : args });
  }
  return out;
}

/** One history's replay: what it recorded, what the replay scheduled and returned, and its replay error. */
interface Replay {
  expected: Scheduled[];
  result: { value: unknown } | undefined;
  scheduled: Scheduled[];
  results: unknown[];
  /** Set once the replay of the history has ended, with its error if it failed. */
  replayed?: { error?: Error };
}

describe('replay reproduces the recorded activity arguments and result', () => {
  const replays = new Map<string, Replay>();
  /** Histories with encrypted payloads (the codec test's): not compared. */
  const encrypted = new Set<string>();
  beforeAll(async () => {
    const options = workflowBundleOptions();
    const { code } = await bundleWorkflowCode({
      ...options,
      workflowInterceptorModules: [
        ...(options.workflowInterceptorModules ?? []),
        path.join(__dirname, 'helpers', 'replay-inputs-probe.ts'),
      ],
      logger: { info() {}, warn() {}, error: console.error, debug() {}, trace() {}, log() {} } as never,
    });
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const os = await import('node:os');
    const bundlePath = path.join(mkdtempSync(path.join(os.tmpdir(), 'replay-inputs-')), 'bundle.js');
    writeFileSync(bundlePath, code);

    // One replay worker replays the histories one after another (a worker per history loaded the
    // bundle again for each one, which took minutes): what the probe reports between a history's
    // start and its result is that history's.
    let current: Replay | undefined;
    const histories = function* () {
      for (const file of files) {
        const history = historyFromJSON(JSON.parse(readFileSync(path.join(REPLAY_DIR, file), 'utf8')));
        const expected = recorded(history);
        if (!expected) {
          encrypted.add(file);
          continue;
        }
        current = { expected, result: recordedResult(history), scheduled: [], results: [] };
        replays.set(file, current);
        // As Worker.runReplayHistory replays: histories hold no workflow id.
        yield { workflowId: 'fake', history };
      }
    };
    const { sinks } = tracingWorkerOptions();
    const outcomes = Worker.runReplayHistories(
      {
        workflowBundle: { codePath: bundlePath },
        replayName: 'replay inputs',
        sinks: {
          ...sinks,
          replayProbe: {
            scheduled: {
              fn: (_info: unknown, type: string, args: unknown[]) =>
                void current!.scheduled.push({ type, args: JSON.parse(JSON.stringify(args)) }),
              callDuringReplay: true,
            },
            completed: {
              fn: (_info: unknown, result: unknown) =>
                void current!.results.push(JSON.parse(JSON.stringify(result ?? null))),
              callDuringReplay: true,
            },
          },
        },
      },
      histories(),
    );
    for await (const { error } of outcomes) current!.replayed = { error };
  }, 600_000);

  it.each(files)('%s', (file) => {
    if (encrypted.has(file)) return; // encrypted payloads: the codec test's histories
    const replay = replays.get(file);
    if (!replay?.replayed) throw new Error(`${file} was not replayed: the replay of the corpus stopped before it`);
    if (replay.replayed.error) throw replay.replayed.error;
    // The recorded activities come first, in order, each with the arguments it had; today's
    // code may add fields a later release introduced (the activities accept both).
    expect(replay.scheduled.slice(0, replay.expected.length)).toMatchObject(replay.expected);
    // And the recorded result is what the same activity results give today: each answer went
    // to the call that asked for it (a field a later release added may be present).
    if (replay.result) expect(replay.results).toMatchObject([replay.result.value]);
  });
});
