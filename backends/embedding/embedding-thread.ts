/**
 * The embedding model's own thread (started by ./threaded.ts): onnxruntime-node computes on the
 * calling thread, so in the worker's main thread every search held the event loop that drives
 * workflow tasks and activity completions. Here it holds only this thread's.
 *
 * Messages in: `{ id, texts }`; out: `{ id, vectors }` (buffers transferred) or `{ id, error }`.
 * The first message out says whether the model loaded: `{ ready: name }` or `{ failed: error }`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { loadMiniLm, modelError, type MiniLmOptions } from './minilm';

export interface EmbeddingThreadData {
  dir: string;
  options: MiniLmOptions;
}

export type EmbeddingRequest = { id: number; texts: string[] };
export type EmbeddingReply =
  | { ready: string }
  | { failed: string }
  | { id: number; vectors: Float32Array[] }
  | { id: number; error: string };

const port = parentPort!;
const { dir, options } = workerData as EmbeddingThreadData;
const post = (reply: EmbeddingReply, transfer: ArrayBuffer[] = []) => port.postMessage(reply, transfer);

loadMiniLm(dir, options).then(
  (embedder) => {
    port.on('message', ({ id, texts }: EmbeddingRequest) => {
      embedder.embed(texts).then(
        (vectors) =>
          post(
            { id, vectors },
            vectors.map((v) => v.buffer as ArrayBuffer),
          ),
        (err) => post({ id, error: modelError(err) }),
      );
    });
    post({ ready: embedder.name });
  },
  (err) => post({ failed: modelError(err) }),
);
