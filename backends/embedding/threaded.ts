/**
 * The MiniLM embedder run in a thread of its own (./embedding-thread.ts), behind the same
 * TextEmbedder interface. A worker process otherwise computed every query's embedding on the
 * thread that also runs its workflow tasks: a search stalled the scheduling of the activities
 * that depend on it. The thread is unref'd (it never keeps a process alive) and started again on
 * the next call if it dies.
 */
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { EmbeddingReply, EmbeddingRequest, EmbeddingThreadData } from './embedding-thread';
import { MINILM_DIMENSIONS, type MiniLmOptions, type TextEmbedder } from './minilm';

/** How errors of the thread itself (not of the model) begin. */
export const THREAD_STOPPED = 'the embedding thread stopped';

/** Loads TypeScript in the thread when this file runs from the sources (tsx), plain JS from dist/. */
function threadScript(): string {
  const entry = path.join(__dirname, `embedding-thread${path.extname(__filename)}`);
  const load = `require(${JSON.stringify(entry)});`;
  return entry.endsWith('.ts') ? `require('tsx/cjs/api').register();\n${load}` : load;
}

interface Running {
  worker: Worker;
  ready: Promise<string>;
  pending: Map<number, { resolve: (v: Float32Array[]) => void; reject: (e: Error) => void }>;
}

export interface ThreadedEmbedder extends TextEmbedder {
  /** The thread computing the embeddings (tests: it is not the caller's). */
  readonly threadId: number;
  /** Stops the thread; a later embed() starts it again. */
  close(): Promise<void>;
}

export async function loadMiniLmInThread(dir: string, options: MiniLmOptions = {}): Promise<ThreadedEmbedder> {
  let running: Running | undefined;
  let nextId = 0;

  const start = (): Running => {
    const worker = new Worker(threadScript(), {
      eval: true,
      workerData: { dir, options } satisfies EmbeddingThreadData,
      // The model's tensors live outside the JS heap; the thread's own heap stays small.
      resourceLimits: { maxOldGenerationSizeMb: 256 },
    });
    worker.unref();
    const pending: Running['pending'] = new Map();
    const ready = new Promise<string>((resolve, reject) => {
      worker.on('message', (reply: EmbeddingReply) => {
        if ('ready' in reply) resolve(reply.ready);
        else if ('failed' in reply) reject(new Error(reply.failed));
        else {
          const call = pending.get(reply.id);
          pending.delete(reply.id);
          if ('vectors' in reply) call?.resolve(reply.vectors);
          else call?.reject(new Error(reply.error));
        }
      });
      const stopped = (why: string) => {
        const err = new Error(`${THREAD_STOPPED}: ${why}`);
        reject(err);
        for (const call of pending.values()) call.reject(err);
        pending.clear();
        if (running?.worker === worker) running = undefined;
      };
      worker.on('error', (err) => stopped(err.message));
      worker.on('exit', (code) => stopped(`exit code ${code}`));
    });
    return { worker, ready, pending };
  };

  running = start();
  const name = await running.ready.catch(async (err) => {
    await running?.worker.terminate();
    throw err;
  });
  const threadId = running.worker.threadId;

  return {
    name,
    dimensions: MINILM_DIMENSIONS,
    get threadId() {
      return running?.worker.threadId ?? threadId;
    },
    async embed(texts) {
      if (texts.length === 0) return [];
      running ??= start();
      const current = running;
      await current.ready;
      const id = nextId++;
      return new Promise<Float32Array[]>((resolve, reject) => {
        current.pending.set(id, { resolve, reject });
        current.worker.postMessage({ id, texts } satisfies EmbeddingRequest);
      });
    },
    async close() {
      const current = running;
      running = undefined;
      await current?.worker.terminate();
    },
  };
}
