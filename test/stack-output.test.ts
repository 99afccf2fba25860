/**
 * `npm start` prints its few lines, JSON lines like every long-running process's: what runs where,
 * and how to start a flow. The SDK's INFO lines, the workflow bundler's output and the control
 * plane's request log appear only with LOG_LEVEL; the Rust core's warnings (a workflow task that
 * keeps failing) are JSON lines too, never ANSI-coloured text.
 */
import { Client, Connection } from '@temporalio/client';
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort } from '../workers/dev-server';
import { logLines } from './helpers/log-lines';
import { waitFor } from './helpers/wait';

const ROOT = path.resolve(__dirname, '..');

describe('npm start output', () => {
  it("is the stack's own lines, not pages of worker and bundler logs", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'stack-output-'));
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      TEMPORAL_ADDRESS: `127.0.0.1:${await freePort()}`,
      TEMPORAL_UI_PORT: String(await freePort()),
      STANDIN_PORT: String(await freePort()),
      CONTROL_PLANE_PORT: String(await freePort()),
      WORKER_METRICS_PORT: '0',
      TEMPORAL_DB_FILE: path.join(dir, 'dev.db'),
      CONTROL_PLANE_STORE: path.join(dir, 'agents.jsonl'),
    };
    const child = spawn(path.join(ROOT, 'node_modules', '.bin', 'tsx'), [path.join(ROOT, 'workers', 'stack.ts')], {
      cwd: dir,
      env,
      detached: true,
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d));
    child.stderr.on('data', (d: Buffer) => (output += d));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    let brokenRunId = '(not started)';
    try {
      const deadline = Date.now() + 120_000;
      while (!/registered agent/.test(output) && child.exitCode === null && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 200));
      expect(logLines(output)).toContainEqual(
        expect.objectContaining({ component: 'worker', message: 'polling task queue', taskQueue: 'agent-flows' }),
      );
      const started = logLines(output).find((l) => l.message === 'control plane started');
      expect(started, output).toMatchObject({ component: 'stack', url: `http://127.0.0.1:${env.CONTROL_PLANE_PORT}` });
      // With no token configured, registration on the stack's control plane is still authenticated
      // (a token made for the run, shared with its worker): another local process cannot claim or
      // re-route agent-flows, nor heartbeat it.
      const cp = `http://127.0.0.1:${env.CONTROL_PLANE_PORT}`;
      const hijack = await fetch(`${cp}/api/v1/agents`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-agent-secret': 'attacker-secret-0123456789' },
        body: JSON.stringify({ id: 'agent-flows', task_queue: 'attacker-q', reasoners: [], skills: [] }),
      });
      expect(hijack.status).toBe(401);
      const beat = await fetch(`${cp}/api/v1/agents/agent-flows/heartbeat`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ instance_id: 'default', health_status: 'degraded' }),
      });
      expect(beat.status).toBe(401);
      const del = await fetch(`${cp}/api/v1/agents/agent-flows`, { method: 'DELETE' });
      expect(del.status).toBe(401);
      const listed = await (await fetch(`${cp}/api/v1/discovery/capabilities?agent=agent-flows`)).json();
      expect(JSON.stringify(listed)).toContain('"agent-flows"');
      expect(JSON.stringify(listed)).not.toContain('attacker-q');
      // A workflow whose task fails: the Rust core's warning is a JSON line too (not ANSI text on stderr).
      const connection = await Connection.connect({ address: env.TEMPORAL_ADDRESS! });
      try {
        const broken = await new Client({ connection }).workflow.start('noSuchFlow', {
          taskQueue: 'agent-flows',
          workflowId: 'stack-output-broken',
        });
        brokenRunId = broken.firstExecutionRunId;
        await waitFor(
          () =>
            logLines(output).find(
              (l) => l.level === 'warn' && l.sdkComponent === 'core' && /Failing workflow task/.test(String(l.message)),
            ),
          "the core's warning as a JSON line",
        );
        await broken.terminate('seen');
      } finally {
        await connection.close();
      }
    } finally {
      process.kill(-child.pid!, 'SIGINT');
    }
    expect(await exited).toBe(0);
    const lines = output.split('\n').filter((l) => l.trim());
    // Every line is a JSON line of the stack's or the worker's own (the CLI resolver and the
    // embedding model speak as the stack, with a `source`), never the SDK's at INFO.
    const parsed = logLines(output);
    expect(parsed.length, output).toBe(lines.length);
    for (const line of parsed) {
      expect(['stack', 'worker'], output).toContain(line.component);
      expect(line, output).toMatchObject({ level: expect.any(String), timestamp: expect.any(String) });
      expect(typeof line.message, output).toBe('string');
      // The SDK's and the core's lines show only for the broken run (at warn and error).
      if (line.sdkComponent !== undefined) expect(JSON.stringify(line), output).toContain(brokenRunId);
    }
    expect(output.includes('\u001b'), output).toBe(false);
    expect(parsed.at(-1), output).toMatchObject({ component: 'stack', message: 'stopped' });
    const aboutBrokenRun = parsed.filter((l) => JSON.stringify(l).includes(brokenRunId)).length;
    expect(lines.length - aboutBrokenRun, output).toBeLessThanOrEqual(16);
  }, 180_000);
});
