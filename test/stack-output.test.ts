/**
 * `npm start` prints its few lines: what runs where, and how to start a flow. The SDK's INFO lines,
 * the workflow bundler's output and the control plane's request log appear only with LOG_LEVEL.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort } from '../workers/dev-server';

const ROOT = path.resolve(__dirname, '..');

describe('npm start output', () => {
  it('is the stack\'s own lines, not pages of worker and bundler logs', async () => {
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
    const child = spawn(path.join(ROOT, 'node_modules', '.bin', 'tsx'), [path.join(ROOT, 'workers', 'stack.ts')], { cwd: dir, env, detached: true });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d));
    child.stderr.on('data', (d: Buffer) => (output += d));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    try {
      const deadline = Date.now() + 120_000;
      while (!/registered agent/.test(output) && child.exitCode === null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
      expect(output).toMatch(/\[worker\] polling task queue agent-flows/);
    } finally {
      process.kill(-child.pid!, 'SIGINT');
    }
    expect(await exited).toBe(0);
    const lines = output.split('\n').filter((l) => l.trim());
    // Every line is the stack's, the worker's or the CLI resolver's own.
    expect(lines.filter((l) => !/^\[(stack|worker|temporal)\] /.test(l)), output).toEqual([]);
    expect(lines.length, output).toBeLessThanOrEqual(14);
  }, 180_000);
});
