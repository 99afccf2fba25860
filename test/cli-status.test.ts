/**
 * `flow status` shows the workflow's real status next to its last progress: a workflow cancelled
 * while waiting for answers still reports "waiting" through its progress query.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { buildProgram, formatStatusProgress } from '../client/cli';
import { runEadsInterviewFlow } from '../flows/eads/contract';
import { createHarness, type Harness } from './helpers/harness';

let h: Harness;
const saved = { ...process.env };
beforeAll(async () => {
  h = await createHarness();
  process.env.TEMPORAL_ADDRESS = inject('temporalAddress');
  process.env.TEMPORAL_NAMESPACE = 'default';
});
afterAll(async () => {
  process.env = { ...saved };
  await h?.close();
});

async function status(workflowId: string): Promise<string[]> {
  const lines: string[] = [];
  await buildProgram((line) => lines.push(line))
    .exitOverride()
    .parseAsync(['status', workflowId], { from: 'user' });
  return lines;
}

describe('flow status', () => {
  it('after cancel shows CANCELLED, and the progress the run recorded at its end says cancelled', async () => {
    const handle = await h.start(runEadsInterviewFlow, { projectId: 'cli-status-cancel', mode: 'human' });
    // Wait until it asks its first question (progress says it waits for an answer).
    let before: string[] = [];
    for (let i = 0; i < 100; i++) {
      before = await status(handle.workflowId);
      if (before.length === 3 && /\[(waiting|running)/.test(before[2])) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(before[0]).toMatch(/ runEadsInterview RUNNING \(started /);
    expect(before[2]).not.toMatch(/the workflow is/);

    await handle.cancel();
    await handle.result().catch(() => undefined);
    const after = await status(handle.workflowId);
    expect(after[0]).toMatch(/ runEadsInterview CANCELLED \(started .*, closed /);
    expect(after[1]).toMatch(/web ui: http.*\/workflows\/eads-interview-cli-status-cancel\/[0-9a-f-]{36}\/history$/);
    // The run records its end (every flow does): the progress says cancelled, no stale "waiting".
    expect(after[2]).toMatch(/\[cancelled\b/);
    expect(after[2]).not.toMatch(/last progress reported/);
  });

  it('labels only progress that still claims to be active', () => {
    const p = {
      flow: 'runEadsInterview',
      stage: 'interview',
      status: 'running' as const,
      done: 1,
      total: 4,
      detail: '',
      tokens: 0,
    };
    expect(formatStatusProgress(p, 'RUNNING')).toBe('  … interview [running 1/4]');
    expect(formatStatusProgress(p, 'TERMINATED')).toBe(
      '  … interview [running 1/4] — last progress reported; the workflow is TERMINATED',
    );
    expect(formatStatusProgress({ ...p, status: 'completed' }, 'COMPLETED')).toBe('  … interview [completed 1/4]');
  });
});
