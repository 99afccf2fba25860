/**
 * The Cloud Storage emulator (`gcp-storage-emulator` from PyPI: the JSON API the official client
 * speaks, media and multipart uploads included), installed like the solver's Python side into a
 * virtualenv of its own (`.tools/storage-emulator-venv`) from `workers/storage-emulator.requirements.txt`,
 * whose every file is pinned by sha256, under the tools lock. Tests start it on a free loopback
 * port with `startStorageEmulator` and point the client at it with STORAGE_EMULATOR_HOST.
 *
 *   tsx workers/storage-emulator.ts --install
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { isExecutable, PROJECT_ROOT, toolsDir, withToolsLock } from './temporal-cli';
import { note } from '../plumbing/logger';
import { freePort } from './dev-server';

export const STORAGE_EMULATOR_REQUIREMENTS = path.join(PROJECT_ROOT, 'workers', 'storage-emulator.requirements.txt');
const venvDir = () => path.join(toolsDir(), 'storage-emulator-venv');
const stampFile = () => path.join(venvDir(), 'agent-flows-installed.txt');

/** The emulator's command, installing it when its stamp does not match the pinned list. Idempotent. */
export function resolveStorageEmulator(options: { quiet?: boolean; force?: boolean } = {}): string {
  const VENV = venvDir();
  const STAMP = stampFile();
  const command = path.join(VENV, 'bin', 'gcp-storage-emulator');
  const wanted = readFileSync(STORAGE_EMULATOR_REQUIREMENTS, 'utf8');
  const installed = () => isExecutable(command) && existsSync(STAMP) && readFileSync(STAMP, 'utf8') === wanted;
  if (!options.force && installed()) return command;
  return withToolsLock(
    toolsDir(),
    () => {
      if (!options.force && installed()) return command;
      const python = path.join(VENV, 'bin', 'python');
      if (!isExecutable(python)) {
        const system = process.env.PYTHON ?? 'python3';
        const made = spawnSync(system, ['-m', 'venv', VENV], { stdio: 'pipe', encoding: 'utf8' });
        if (made.error || made.status !== 0) {
          throw new Error(`cannot create ${VENV} with "${system}": ${made.stderr || made.error?.message}`);
        }
      }
      note('storage-emulator', `installing gcp-storage-emulator into ${path.relative(PROJECT_ROOT, VENV)}`);
      const args = ['-m', 'pip', 'install', '--disable-pip-version-check', '--quiet', '--require-hashes'];
      const result = spawnSync(python, [...args, '-r', STORAGE_EMULATOR_REQUIREMENTS], {
        stdio: 'pipe',
        encoding: 'utf8',
      });
      if (result.error || result.status !== 0) {
        throw new Error(
          `"pip install -r workers/storage-emulator.requirements.txt" failed (exit ${result.status ?? result.error?.message})` +
            (result.stderr ? `:\n${result.stderr.slice(-2000)}` : ''),
        );
      }
      // Written last: a venv without it is never taken as complete.
      writeFileSync(STAMP, wanted);
      return command;
    },
    { quiet: options.quiet },
  );
}

export interface StorageEmulator {
  /** For STORAGE_EMULATOR_HOST: `http://127.0.0.1:<port>`. */
  url: string;
  close(): Promise<void>;
}

/** Starts the emulator in memory on a free loopback port, with these buckets, once it answers. */
export async function startStorageEmulator(buckets: string[]): Promise<StorageEmulator> {
  const command = resolveStorageEmulator({ quiet: true });
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(
    command,
    ['start', '--host', '127.0.0.1', '--port', String(port), '--in-memory', '-q'],
    {
      stdio: 'ignore',
    },
  );
  // A command that cannot start (a half-installed tool) fails the start, named, instead of
  // surfacing later as an uncaught error of the process that spawned it.
  let spawnError: Error | undefined;
  child.on('error', (err) => (spawnError = err));
  const close = async () => {
    if (spawnError || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([exited, new Promise((r) => (timer = setTimeout(r, 5000)))]);
    // Not left pending once the emulator has gone: it would hold the caller's process 5 s more.
    clearTimeout(timer);
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
  };
  try {
    await waitForEmulator(url, child, () => spawnError);
    for (const name of buckets) {
      const res = await fetch(`${url}/storage/v1/b?project=test`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name }),
      });
      if (!res.ok) throw new Error(`the storage emulator did not create bucket ${name}: HTTP ${res.status}`);
    }
  } catch (err) {
    await close();
    throw err;
  }
  return { url, close };
}

async function waitForEmulator(url: string, child: ChildProcess, failed: () => Error | undefined): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const err = failed();
    if (err) throw new Error(`the storage emulator could not start: ${err.message}`);
    if (child.exitCode !== null) throw new Error(`the storage emulator exited (${child.exitCode}) before answering`);
    const answered = await fetch(`${url}/storage/v1/b?project=test`).then(
      (r) => r.ok,
      () => false,
    );
    if (answered) return;
    if (Date.now() > deadline) throw new Error(`the storage emulator did not answer at ${url} within 30 s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

if (require.main === module) {
  try {
    process.stderr.write(`[storage-emulator] ${resolveStorageEmulator({ force: process.argv.includes('--force') })}\n`);
  } catch (err) {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  }
}
