/**
 * The schedule solver's Python side: OR-Tools CP-SAT and the Temporal Python SDK, installed into
 * the same project-local virtualenv as the Temporal CLI (`.tools/venv`), from the pinned list in
 * `solver/requirements.txt`. Kept apart from workers/temporal-cli.ts so the two installers can
 * change independently; each has its own stamp file.
 *
 * Run directly: `tsx workers/solver-tools.ts --install` (also part of `npm run setup`).
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT, TOOLS_DIR } from './temporal-cli';

export const SOLVER_REQUIREMENTS = path.join(PROJECT_ROOT, 'solver', 'requirements.txt');
export const SOLVER_WORKER_SCRIPT = path.join(PROJECT_ROOT, 'solver', 'worker.py');
const VENV = path.join(TOOLS_DIR, 'venv');
const STAMP = path.join(TOOLS_DIR, 'solver-installed.txt');

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

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
  const python = path.join(VENV, 'bin', 'python');
  const wanted = solverRequirements().join('\n');
  if (!options.force && isExecutable(python) && existsSync(STAMP) && readFileSync(STAMP, 'utf8') === wanted) return python;
  if (options.install === false) throw new Error('the solver packages are not installed: run "npm run setup"');
  const log = (m: string) => options.quiet || process.stderr.write(`[solver] ${m}\n`);
  if (!isExecutable(python)) {
    const system = process.env.PYTHON ?? 'python3';
    log(`$ ${system} -m venv ${path.relative(PROJECT_ROOT, VENV)}`);
    const made = spawnSync(system, ['-m', 'venv', VENV], { stdio: 'pipe', encoding: 'utf8' });
    if (made.error || made.status !== 0) throw new Error(`cannot create ${VENV} with "${system}": ${made.stderr || made.error?.message}`);
  }
  log(`installing ${solverRequirements().join(', ')} into ${path.relative(PROJECT_ROOT, VENV)}`);
  const args = ['-m', 'pip', 'install', '--disable-pip-version-check', '--quiet', '-r', SOLVER_REQUIREMENTS];
  const result = spawnSync(python, args, { stdio: options.quiet ? 'pipe' : ['ignore', 'inherit', 'inherit'], encoding: 'utf8' });
  if (result.error || result.status !== 0) {
    throw new Error(`"pip install -r solver/requirements.txt" failed (exit ${result.status ?? result.error?.message})${result.stderr ? `:\n${result.stderr}` : ''}`);
  }
  writeFileSync(STAMP, wanted);
  return python;
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
