/**
 * Every temporary folder a test makes goes under one folder of this run, removed when the run
 * ends: `os.tmpdir()` reads TMPDIR on each call, and the test workers and the processes they start
 * inherit it. Tests that forgot to remove their folders left hundreds behind in /tmp.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export default function setup(): () => void {
  const before = process.env.TMPDIR;
  const root = mkdtempSync(path.join(tmpdir(), 'agent-flows-tests-'));
  process.env.TMPDIR = root;
  return () => {
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
    rmSync(root, { recursive: true, force: true });
  };
}
