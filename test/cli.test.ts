/**
 * The thin CLI against a real server. `flow status` shows the workflow's real status next to its
 * last progress (a workflow cancelled while waiting for answers still reports "waiting" through
 * its progress query). And what it says when something goes wrong, or after the fact: the cause
 * of a failed run (not "Activity task failed"), where it tried to connect and what to do, a
 * mistyped flow name, a missing input file, a cancel of a run that already ended, and `result` in
 * the same readable form as `start`.
 */
import { WorkflowFailedError } from '@temporalio/client';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { connectClient, failureReason, TemporalUnreachable } from '../access/flow-client';
import { buildProgram, flowNamed, formatStatusProgress } from '../client/cli';
import { runEadsInterviewFlow } from '../flows/eads/contract';
import { platformCheckFlow } from '../flows/platform/contract';
import { createHarness, type Harness } from './helpers/harness';

let h: Harness;
// The CLI reads where Temporal is from the environment when it runs: set for this file, then put
// back key by key (a new process.env object would stay behind for the files after it).
const saved = { TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE: process.env.TEMPORAL_NAMESPACE };
beforeAll(async () => {
  h = await createHarness();
  process.env.TEMPORAL_ADDRESS = inject('temporalAddress');
  process.env.TEMPORAL_NAMESPACE = 'default';
});
afterAll(async () => {
  for (const [key, value] of Object.entries(saved))
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
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

async function cli(...args: string[]): Promise<string[]> {
  const lines: string[] = [];
  await buildProgram((line) => lines.push(line))
    .exitOverride()
    .parseAsync(args, { from: 'user' });
  return lines;
}

describe('the thin CLI names causes and next steps', () => {
  it('a run failed by an activity is reported by its root cause', async () => {
    const handle = await h.start(runEadsInterviewFlow, {
      projectId: 'cli-errors-fixture',
      mode: 'surrogate',
      fixture: 'no-such-firm',
    });
    const err = await handle.result().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(WorkflowFailedError);
    // What the SDK's own message says, and what a person needs instead.
    expect((err as Error).message).not.toContain('no-such-firm');
    expect(failureReason(err)).toMatch(/unknown fixture "no-such-firm" \(known: [a-z0-9-]+/);
  });

  it('cancel of a run that already ended says so and fails', async () => {
    const handle = await h.start(platformCheckFlow, platformCheckFlow.examples[0]);
    await handle.result();
    await expect(cli('cancel', handle.workflowId)).rejects.toThrow(/already COMPLETED: nothing to cancel/);
  });

  it('result prints the readable summary start prints; --json the result itself', async () => {
    const handle = await h.start(platformCheckFlow, platformCheckFlow.examples[0]);
    const result = await handle.result();
    const lines = await cli('result', handle.workflowId);
    expect(lines[0]).toBe(`completed ${handle.workflowId} (platformCheck)`);
    const parsed = platformCheckFlow.output.parse(result);
    expect(lines.slice(1)).toEqual(platformCheckFlow.describeResult(parsed).map((l) => `  ${l}`));
    expect(JSON.parse((await cli('result', handle.workflowId, '--json')).join('\n'))).toEqual(result);
  });

  it('an address where nothing listens names the address and `npm start`', async () => {
    // A port that was free a moment ago: nothing listens there.
    const port = await new Promise<number>((resolve) => {
      const server = net.createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as net.AddressInfo;
        server.close(() => resolve(port));
      });
    });
    const err = await connectClient({ address: `127.0.0.1:${port}` }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(TemporalUnreachable);
    expect((err as Error).message).toContain(`cannot reach Temporal at 127.0.0.1:${port}`);
    expect((err as Error).message).toContain('npm start');
  });

  it('a mistyped flow name gets the nearest name; a far one only the list', () => {
    expect(() => flowNamed('answerBomQuestoin')).toThrow(/did you mean answerBomQuestion\?/);
    expect(() => flowNamed('platfrom-check')).toThrow(/did you mean platform-check\?/);
    expect(() => flowNamed('zzzzzzzzzzzz')).toThrow(/^unknown flow "zzzzzzzzzzzz" \(known: /);
    expect(() => flowNamed('x'.repeat(10_000))).toThrow(/^unknown flow "x{60}" /);
  });

  it('a missing input file is named, not a raw ENOENT', async () => {
    await expect(cli('start', 'platformCheck', '@/nonexistent/input.json')).rejects.toThrow(
      'input file not found: /nonexistent/input.json',
    );
  });
});
