/**
 * The schedule solver's Python side: OR-Tools CP-SAT and the Temporal Python SDK, installed into
 * a virtualenv of its own beside the Temporal CLI's (`.tools/solver-venv`), from the pinned list in
 * `solver/requirements.txt`, under the same install lock. A venv of its own, because reinstalling
 * the Temporal tools replaces their venv whole; the stamp lives inside the venv it describes.
 *
 * Run directly: `tsx workers/solver-tools.ts --install` (also part of `npm run setup`).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { isExecutable, PROJECT_ROOT, toolsDir, withToolsLock } from './temporal-cli';
import { note } from '../plumbing/logger';

export const SOLVER_REQUIREMENTS = path.join(PROJECT_ROOT, 'solver', 'requirements.txt');
export const SOLVER_WORKER_SCRIPT = path.join(PROJECT_ROOT, 'solver', 'worker.py');
const venvDir = () => path.join(toolsDir(), 'solver-venv');
const stampFile = () => path.join(venvDir(), 'agent-flows-installed.txt');

/** The pinned requirement lines (comments and blanks dropped). */
export function solverRequirements(): string[] {
  return readFileSync(SOLVER_REQUIREMENTS, 'utf8')
    .split('\n')
    .map((l) => l.replace(/#.*/, '').trim())
    .filter(Boolean);
}

/**
 * The Python interpreter that runs the solver worker: `SOLVER_PYTHON` when set (it must already
 * have ortools and temporalio), else `.tools/venv/bin/python`, installing the requirements into
 * it when its stamp does not match. Idempotent.
 */
export function resolveSolverPython(options: { install?: boolean; quiet?: boolean; force?: boolean } = {}): string {
  if (process.env.SOLVER_PYTHON) return process.env.SOLVER_PYTHON;
  const VENV = venvDir();
  const STAMP = stampFile();
  const python = path.join(VENV, 'bin', 'python');
  const wanted = solverRequirements().join('\n');
  const installed = () => isExecutable(python) && existsSync(STAMP) && readFileSync(STAMP, 'utf8') === wanted;
  if (!options.force && installed()) return python;
  if (options.install === false) throw new Error('the solver packages are not installed: run "npm run setup"');
  const log = (m: string) => options.quiet || note('solver', m);
  // Two first-use commands at once take turns; the second finds the first's complete install.
  return withToolsLock(
    toolsDir(),
    () => {
      if (!options.force && installed()) return python;
      if (!isExecutable(python)) {
        const system = process.env.PYTHON ?? 'python3';
        log(`$ ${system} -m venv ${path.relative(PROJECT_ROOT, VENV)}`);
        const made = spawnSync(system, ['-m', 'venv', VENV], { stdio: 'pipe', encoding: 'utf8' });
        if (made.error || made.status !== 0) {
          throw new Error(`cannot create ${VENV} with "${system}": ${made.stderr || made.error?.message}`);
        }
      }
      // Always one line: a first run otherwise sits silent for the minute pip takes.
      note('solver', `installing ${solverRequirements().join(', ')} into ${path.relative(PROJECT_ROOT, VENV)}`);
      const args = ['-m', 'pip', 'install', '--disable-pip-version-check', '--quiet', '-r', SOLVER_REQUIREMENTS];
      const stdio = options.quiet ? 'pipe' : (['ignore', 'inherit', 'inherit'] as const);
      const result = spawnSync(python, args, { stdio: stdio as never, encoding: 'utf8' });
      if (result.error || result.status !== 0) {
        const why = `exit ${result.status ?? result.error?.message}`;
        throw new Error(
          `"pip install -r solver/requirements.txt" failed (${why})${result.stderr ? `:\n${result.stderr}` : ''}`,
        );
      }
      // Written last: a venv without it is never taken as complete.
      writeFileSync(STAMP, wanted);
      return python;
    },
    { quiet: options.quiet },
  );
}

if (require.main === module) {
  try {
    const python = resolveSolverPython({ force: process.argv.includes('--force') });
    process.stderr.write(`[solver] python: ${python}\n`);
  } catch (err) {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  }
}
