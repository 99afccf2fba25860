import { sharedEmbedder, type TextEmbedder } from '../../backends/embedding';
import { loadMiniLm } from '../../backends/embedding/minilm';

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
