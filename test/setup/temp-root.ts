/**
 * Every temporary folder a test makes goes under one folder of this run, removed when the run
 * ends: `os.tmpdir()` reads TMPDIR on each call, and the test workers and the processes they start
 * inherit it. Tests that forgot to remove their folders left hundreds behind in /tmp.
 *
 * Each project runs this set-up; they share one folder. Each making its own inside the previous
 * one's nested the folders so deep that Chromium's socket path in them grew past the system's
 * limit (108 bytes) and the browser would not start.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

interface TempRoot {
  before: string | undefined;
  root: string;
  users: number;
}

// On globalThis, not in a module variable: vitest may load this file once per project.
const KEY = Symbol.for('agent-flows.test-temp-root');
const holder = globalThis as { [KEY]?: TempRoot };

export default function setup(): () => void {
  const shared = (holder[KEY] ??= {
    before: process.env.TMPDIR,
    root: mkdtempSync(path.join(tmpdir(), 'agent-flows-tests-')),
    users: 0,
  });
  shared.users++;
  process.env.TMPDIR = shared.root;
  return () => {
    if (--shared.users > 0) return;
    delete holder[KEY];
    if (shared.before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = shared.before;
    rmSync(shared.root, { recursive: true, force: true });
  };
}
