/**
 * The solver worker's sharing rules and request limits, without a Temporal server: the Python unit
 * tests in solver/test_slots.py (a slot kept for short jobs, round robin between callers, the
 * place each waiting request is told, refused time limits, the bounded time of an infeasibility
 * explanation), run with the solver's own Python.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveSolverPython } from '../workers/solver-tools';

describe('solver worker slots and limits (solver/test_slots.py)', () => {
  it('pass', () => {
    const run = spawnSync(
      resolveSolverPython({ quiet: true }),
      ['-m', 'unittest', 'discover', '-s', path.resolve(__dirname, '..', 'solver'), '-p', 'test_*.py'],
      { encoding: 'utf8', timeout: 120_000 },
    );
    expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(run.stderr).toMatch(/Ran \d+ tests/);
  });
});
