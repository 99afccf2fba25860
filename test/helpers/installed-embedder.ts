import { describe } from 'vitest';
import { embeddingModelDir, embeddingModelPresent, sharedEmbedder, type TextEmbedder } from '../../backends/embedding';
import { loadMiniLm } from '../../backends/embedding/minilm';
import { embeddingModelSetting } from '../../plumbing/config';

/** The folder of the embedding model AGENT_FLOWS_EMBEDDING_MODEL names (`auto`: the one set-up installs). */
export const modelDir = embeddingModelDir(embeddingModelSetting.parse(process.env.AGENT_FLOWS_EMBEDDING_MODEL));
export const modelInstalled = !!modelDir && embeddingModelPresent(modelDir);

/**
 * Tests of judgements made by meaning, which need the installed model. The test set-up installs
 * it on a fresh clone (test/setup/embedding-model.ts); where it still is not there (no registry,
 * or the model turned off) these are skipped, and the set-up says why once per run.
 */
export const describeWithModel = describe.runIf(modelInstalled);

// Shared on purpose (see below): the model is only read, never changed by a test.
// eslint-disable-next-line no-restricted-syntax
let loaded: Promise<TextEmbedder> | undefined;

/**
 * The installed embedding model (`dir`, the one AGENT_FLOWS_EMBEDDING_MODEL names), loaded once
 * per process: the process's shared embedder, which the stand-in's rules use when no test chose
 * another. Tests that switch back to the real model after a fake then keep the vectors and
 * classifiers already computed for it, in their file and in the files run before it in the same
 * worker: loading the model again for each test took a quarter of a second each time, and
 * embedding every description again and retraining took seconds.
 */
export function installedEmbedder(dir: string): Promise<TextEmbedder> {
  loaded ??= sharedEmbedder({ quiet: true }).then(({ embedder }) => embedder ?? loadMiniLm(dir));
  return loaded;
}
