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
import { describe, expect, it, inject } from 'vitest';
import { REPLAY_DIR } from './helpers/harness';

const files = readdirSync(REPLAY_DIR)
  .filter((f) => f.endsWith('.json'))
  .sort();

describe('replay corpus', () => {
  it('holds histories', () => {
    expect(files.length).toBeGreaterThan(0);
  });

  it.each(files)('replays %s deterministically', async (file) => {
    const history = historyFromJSON(JSON.parse(readFileSync(path.join(REPLAY_DIR, file), 'utf8')));
    // The bundle has the tracing interceptors: their span sink must be registered (it is not called in replay).
    const { sinks } = tracingWorkerOptions();
    await Worker.runReplayHistory(
      { workflowBundle: { codePath: inject('workflowBundlePath') }, replayName: file, sinks },
      history,
    );
  });
});
