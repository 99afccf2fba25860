/**
 * The Rust core's warnings are JSON lines like the rest: a workflow whose task fails makes the
 * core say `Failing workflow task`, and the real worker process (workers/worker.ts) must write it
 * as a JSON line at level warn, so `jq 'select(.level == "warn")'` shows the runs stuck retrying.
 * Left to itself the core prints ANSI-coloured text to stderr instead. Text the workflow's
 * starter chose (its type, its id, an error message) must not break a line or colour the terminal.
 */
import { Client, Connection } from '@temporalio/client';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { logLines } from './helpers/log-lines';
import { waitFor } from './helpers/wait';
import { workerProcessEnv } from './helpers/worker-process';

const ROOT = path.resolve(__dirname, '..');
const NAMESPACE = 'log-test';
const FORGED = '{"level":"error","message":"forged line"}';

describe("the core's log lines", () => {
  let client: Client;
  let worker: ChildProcess;
  let stdout = '';
  let stderr = '';
  beforeAll(async () => {
    const connection = await Connection.connect({ address: inject('temporalAddress') });
    client = new Client({ connection, namespace: NAMESPACE });
    worker = spawn(path.join(ROOT, 'node_modules', '.bin', 'tsx'), ['workers/worker.ts'], {
      cwd: ROOT,
      // No model call happens here: the stand-in's address only has to be valid.
      env: workerProcessEnv(NAMESPACE, 'http://127.0.0.1:9'),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    worker.stdout!.on('data', (d: Buffer) => (stdout += d.toString('latin1')));
    worker.stderr!.on('data', (d: Buffer) => (stderr += d.toString('latin1')));
    await waitFor(
      () => (logLines(stdout).some((l) => l.message === 'polling task queue') ? true : undefined),
      'the worker to poll',
      { timeoutMs: 120_000 },
    );
  });
  afterAll(async () => {
    try {
      process.kill(-worker.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
    await client?.connection.close();
  });

  it('reach stdout as JSON lines at level warn, with no escape sequences from the run', async () => {
    // A workflow type the worker does not have fails its first workflow task (and every retry).
    // Its type and id carry an ANSI colour code, a newline and a forged JSON line.
    const handle = await client.workflow.start(`noSuchFlow\u001b[31m\n${FORGED}`, {
      taskQueue: 'agent-flows',
      workflowId: `log-test-\u001b[32m\n${FORGED}-${Date.now()}`,
      args: [{ note: `\u001b[2J\r${FORGED}` }],
    });
    try {
      const warning = await waitFor(
        () =>
          logLines(stdout).find(
            (l) => l.sdkComponent === 'core' && /Failing workflow task/.test(String(l.message)) && l.level === 'warn',
          ),
        "the core's warning as a JSON line",
      );
      expect(warning).toMatchObject({ component: 'worker', timestamp: expect.any(String) });
      expect(JSON.stringify(warning)).toContain(handle.firstExecutionRunId);
    } finally {
      await handle.terminate('test over').catch(() => undefined);
    }
    // Every line on stdout is one JSON object; nothing the run chose became a line of its own.
    const lines = stdout.split('\n').filter((l) => l.trim());
    expect(logLines(stdout).length, stdout).toBe(lines.length);
    expect(logLines(stdout).filter((l) => l.message === 'forged line')).toEqual([]);
    // No raw escape byte anywhere: not the core's colours, not the run's own.
    expect(stdout.includes('\u001b'), stdout).toBe(false);
    expect(stderr.includes('\u001b'), stderr).toBe(false);
  });
});
