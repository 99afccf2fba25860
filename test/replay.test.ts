/**
 * Replays every history in test/replay/ against the current workflow code: a change that would
 * break running workflows (non-determinism) fails here. Refresh the corpus with
 * `RECORD_REPLAY=1 npx vitest run test/<file>.test.ts`, which adds dated files and never replaces one
 * (see docs/versioning.md before changing a workflow).
 */
import { tracingWorkerOptions } from '../plumbing/tracing';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { Worker } from '@temporalio/worker';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it, inject } from 'vitest';
import { REPLAY_DIR } from './helpers/harness';

const files = readdirSync(REPLAY_DIR)
  .filter((f) => f.endsWith('.json'))
  .sort();

describe('replay corpus', () => {
  // Each history's replay error (undefined: it replayed cleanly), in corpus order. One replay
  // worker replays them all, one after another: a worker per history loaded the workflow bundle
  // again for each of the hundred histories, which took most of the suite's time.
  const outcomes: (Error | undefined)[] = [];
  beforeAll(async () => {
    // The bundle has the tracing interceptors: their span sink must be registered (it is not called in replay).
    const { sinks } = tracingWorkerOptions();
    const histories = files.map((file) => ({
      // As Worker.runReplayHistory replays: histories hold no workflow id.
      workflowId: 'fake',
      history: historyFromJSON(JSON.parse(readFileSync(path.join(REPLAY_DIR, file), 'utf8'))),
    }));
    const replays = Worker.runReplayHistories(
      { workflowBundle: { codePath: inject('workflowBundlePath') }, replayName: 'replay corpus', sinks },
      histories,
    );
    for await (const { error } of replays) outcomes.push(error);
  }, 600_000);

  it('holds histories', () => {
    expect(files.length).toBeGreaterThan(0);
  });

  it.each(files.map((file, i) => [file, i] as const))('replays %s deterministically', (_file, i) => {
    expect(outcomes).toHaveLength(files.length);
    if (outcomes[i]) throw outcomes[i];
  });
});
