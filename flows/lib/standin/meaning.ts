/**
 * Judging by meaning: the stand-in's rules compare what a text says with short, general
 * descriptions of each choice, using the sentence embedder the project ships (all-MiniLM-L6-v2,
 * see backends/embedding). A choice is taken only when it wins by a margin; otherwise the honest
 * answer is "undetermined", and the rule asks again, offers the choices or says what it did not
 * understand, rather than guessing.
 *
 * Descriptions are of the CLASS, in general words ("work moves through the same machines in the
 * same order"), never phrases of one firm, question or document: a rule that needed a case's
 * wording to pass would only remember that case.
 */
import { cosine, sharedEmbedder, storedNumbers, type TextEmbedder } from '../../../backends/embedding';

const MAX_CACHED_TEXT = 2_000;
/**
 * Choice sets of this many descriptions keep their vectors on disk (`prefetchStored`): the few
 * large tables of the rules. Smaller sets cost little to embed, and sets made from a question's
 * own choices would only fill the store.
 */
const STORED_SET = 100;

/** Vectors for texts, cached per text (prompts repeat the same descriptions and facts). */
export class MeaningSpace {
  private readonly cache = new Map<string, Promise<Float32Array>>();
  /** Classifiers trained on this embedder's vectors, by their choices (see `readoutFor`). */
  readonly readouts = new Map<string, Promise<SoftmaxReadout>>();
  constructor(readonly embedder: TextEmbedder) {}

  vector(text: string): Promise<Float32Array> {
    // Long texts are embedded without being kept: as keys they would hold megabytes each, and
    // prompts repeat the short ones (descriptions, facts, phrasings), not the long ones.
    if (text.length > MAX_CACHED_TEXT) return this.embedder.embed([text]).then((r) => r[0]);
    let v = this.cache.get(text);
    if (!v) {
      if (this.cache.size > 20_000) this.cache.clear();
      v = this.embedder.embed([text]).then((r) => r[0]);
      this.cache.set(text, v);
    }
    return v;
  }

  /** Embeds the texts not seen yet in one batch: one model run instead of one per text. */
  async prefetch(texts: string[]): Promise<void> {
    const missing = [...new Set(texts)].filter((t) => t.length <= MAX_CACHED_TEXT && !this.cache.has(t));
    if (!missing.length) return;
    if (this.cache.size > 20_000) this.cache.clear();
    const batch = this.embedder.embed(missing);
    missing.forEach((t, i) =>
      this.cache.set(
        t,
        batch.then((r) => r[i]),
      ),
    );
    await batch;
  }

  /**
   * Like `prefetch`, for a large fixed set of texts (a choice set's descriptions): their vectors
   * are kept in the embedder's store between processes, as a trained classifier is (see
   * `storedNumbers`), and the next process reads them instead of running the model on each
   * description again (hundreds of model runs, seconds, in every worker, stand-in and test
   * process). Read back, a vector is the one computed: a 32-bit number is kept exactly in 64 bits.
   */
  async prefetchStored(texts: readonly string[]): Promise<void> {
    const unique = [...new Set(texts)].filter((t) => t.length <= MAX_CACHED_TEXT);
    if (unique.length < STORED_SET || unique.every((t) => this.cache.has(t))) return this.prefetch(unique);
    const dims = this.embedder.dimensions;
    const numbers = await storedNumbers(
      this.embedder,
      'vectors',
      JSON.stringify(unique),
      unique.length * dims,
      async () => {
        await this.prefetch(unique);
        const out = new Float64Array(unique.length * dims);
        for (const [i, text] of unique.entries()) out.set(await this.vector(text), i * dims);
        return out;
      },
    );
    if (this.cache.size > 20_000) this.cache.clear();
    unique.forEach((text, i) => {
      if (!this.cache.has(text))
        this.cache.set(text, Promise.resolve(Float32Array.from(numbers.subarray(i * dims, (i + 1) * dims))));
    });
  }

  async similarity(a: string, b: string): Promise<number> {
    const [va, vb] = await Promise.all([this.vector(a), this.vector(b)]);
    return cosine(va, vb);
  }

  /** Similarity of `text` to each of `others`, in their order. */
  async similarities(text: string, others: readonly string[]): Promise<number[]> {
    await this.prefetch([text, ...others]);
    const v = await this.vector(text);
    return Promise.all(others.map(async (o) => cosine(v, await this.vector(o))));
  }
}

let space: Promise<MeaningSpace | undefined> | undefined;
/**
 * One space per embedder, kept while the embedder is: a vector or a classifier is the same every
 * time for the same embedder, so switching to another embedder and back (tests do, file after
 * file in one process) keeps what was computed instead of embedding and training it all again.
 */
const spaces = new WeakMap<TextEmbedder, MeaningSpace>();

function spaceOf(embedder: TextEmbedder): MeaningSpace {
  let found = spaces.get(embedder);
  if (!found) spaces.set(embedder, (found = new MeaningSpace(embedder)));
  return found;
}

/** The stand-in's meaning space, if an embedding model is installed; undefined: none. */
export function meaningSpace(): Promise<MeaningSpace | undefined> {
  space ??= sharedEmbedder().then((s) => (s.embedder ? spaceOf(s.embedder) : undefined));
  return space;
}

/** Tests: run the rules without a model, or with a given embedder. */
export function useEmbedder(embedder: TextEmbedder | undefined): void {
  space = Promise.resolve(embedder ? spaceOf(embedder) : undefined);
}

/** Tests: back to the installed model (what a test that chose an embedder must leave behind). */
export function restoreEmbedder(): void {
  space = undefined;
}

/** One choice, described in general words. Several descriptions: the best one speaks for it. */
export interface Choice<K extends string = string> {
  key: K;
  descriptions: readonly string[];
}

export interface Decision<K extends string = string> {
  /** The winning choice, or undefined when no choice is clearly best (see `reason`). */
  key?: K;
  /** Every choice's best similarity, highest first. */
  ranked: { key: K; score: number }[];
  /** Why no choice was taken: nothing close enough, two too close to call, or no model. */
  reason?: 'below-floor' | 'thin-margin' | 'no-model' | 'empty';
}

export interface DecideOptions {
  /** The winner must beat the runner-up by at least this much (cosine). */
  margin?: number;
  /** And be at least this similar to the text at all. */
  floor?: number;
  /**
   * A choice's score is the mean of its `topK` best descriptions (default 1: the best one). With
   * several phrasings per choice, 2 asks that the text resemble more than one of them, which keeps
   * a single lucky phrasing from deciding.
   */
  topK?: number;
}

/** Defaults calibrated for MiniLM's cosine on short sentences: unrelated text sits near 0.0–0.2. */
export const DEFAULT_MARGIN = 0.03;
export const DEFAULT_FLOOR = 0.25;

/**
 * Which choice `text` means. Returns `key` only when the best choice clears the floor and wins by
 * the margin; otherwise the ranking and the reason, so the caller can ask again or offer the
 * closest choices.
 */
export async function decide<K extends string>(
  text: string,
  choices: readonly Choice<K>[],
  options: DecideOptions = {},
): Promise<Decision<K>> {
  const margin = options.margin ?? DEFAULT_MARGIN;
  const floor = options.floor ?? DEFAULT_FLOOR;
  const topK = Math.max(1, options.topK ?? 1);
  if (!text.trim() || !choices.length) return { ranked: [], reason: 'empty' };
  const meaning = await meaningSpace();
  if (!meaning) return { ranked: choices.map((c) => ({ key: c.key, score: 0 })), reason: 'no-model' };
  const all = choices.flatMap((c) => c.descriptions);
  await meaning.prefetchStored(all);
  const scores = await meaning.similarities(text, all);
  let i = 0;
  const ranked = choices
    .map((c) => {
      const own = c.descriptions.map(() => scores[i++]).sort((a, b) => b - a);
      const top = own.slice(0, Math.min(topK, own.length));
      return { key: c.key, score: top.reduce((a, b) => a + b, 0) / top.length };
    })
    .sort((a, b) => b.score - a.score);
  const [first, second] = ranked;
  if (first.score < floor) return { ranked, reason: 'below-floor' };
  if (second && first.score - second.score < margin) return { ranked, reason: 'thin-margin' };
  return { key: first.key, ranked };
}

/** One piece of text that speaks for a choice, and how much it counts. */
export interface Evidence {
  text: string;
  /** Multiplies the text's similarities (default 1). */
  weight?: number;
  /**
   * `primary`: what the decision is about (a description of the work); `supporting`: side
   * evidence (a skill, a field's name) that only adds a fraction of its best match.
   */
  role?: 'primary' | 'supporting';
}

export interface EvidenceOptions extends DecideOptions {
  /** How much a choice's second-best primary text adds to its best one (default 0.5). */
  second?: number;
  /** How much the best supporting text adds (default 0.35). */
  support?: number;
  /**
   * Score each text by the classifier trained on the descriptions (its probability per choice,
   * see `classify`) instead of its similarity to the nearest description.
   */
  classifier?: boolean;
}

export interface EvidenceDecision<K extends string = string> extends Decision<K> {
  /** For each choice, the primary text that matched it best. */
  best: Partial<Record<K, string>>;
}

/**
 * Which choice several texts mean together: a description split into clauses, plus side
 * evidence. One text rarely says everything (the kind of data sits in one clause, the place in
 * another), so each choice scores its best primary text, plus `second` × its next best (a choice
 * two clauses speak for beats one a single phrase brushes against), plus `support` × its best
 * supporting text. The floor and margin apply to these scores, as in `decide`.
 */
export async function decideFromEvidence<K extends string>(
  evidence: readonly Evidence[],
  choices: readonly Choice<K>[],
  options: EvidenceOptions = {},
): Promise<EvidenceDecision<K>> {
  const margin = options.margin ?? DEFAULT_MARGIN;
  const floor = options.floor ?? DEFAULT_FLOOR;
  const secondWeight = options.second ?? 0.5;
  const supportWeight = options.support ?? 0.35;
  const texts = evidence.filter((e) => e.text.trim());
  if (!texts.some((e) => (e.role ?? 'primary') === 'primary') || !choices.length)
    return { ranked: [], reason: 'empty', best: {} };
  const meaning = await meaningSpace();
  if (!meaning) return { ranked: choices.map((c) => ({ key: c.key, score: 0 })), reason: 'no-model', best: {} };
  const all = choices.flatMap((c) => c.descriptions);
  const byClassifier = options.classifier && trainable(choices);
  // The descriptions' vectors only when they are compared with: a classifier read from its store
  // needs none of them (and one trained anew embeds them itself). Embedding them anyway cost
  // every process hundreds of model runs whose vectors nothing read.
  await meaning.prefetch(texts.map((e) => e.text));
  if (!byClassifier) await meaning.prefetchStored(all);
  // Per text, each choice's score: its nearest description's similarity, or the classifier's probability.
  let perChoice: number[][];
  if (byClassifier) {
    const readout = await readoutFor(meaning, choices);
    perChoice = await Promise.all(texts.map(async (e) => readout.probabilities(await meaning.vector(e.text))));
  } else {
    const rows = await Promise.all(texts.map((e) => meaning.similarities(e.text, all)));
    perChoice = rows.map((row) => {
      let offset = 0;
      return choices.map((c) => {
        const own = Math.max(...c.descriptions.map((_, d) => row[offset + d]));
        offset += c.descriptions.length;
        return own;
      });
    });
  }
  const best: Partial<Record<K, string>> = {};
  const ranked = choices
    .map((c, ci) => {
      const primary: Array<{ score: number; text: string }> = [];
      let supporting = 0;
      texts.forEach((e, t) => {
        const own = perChoice[t][ci] * (e.weight ?? 1);
        if ((e.role ?? 'primary') === 'primary') primary.push({ score: own, text: e.text });
        else supporting = Math.max(supporting, own);
      });
      primary.sort((a, b) => b.score - a.score);
      if (primary[0]) best[c.key] = primary[0].text;
      const score =
        (primary[0]?.score ?? 0) + secondWeight * Math.max(0, primary[1]?.score ?? 0) + supportWeight * supporting;
      return { key: c.key, score };
    })
    .sort((a, b) => b.score - a.score);
  const [first, second] = ranked;
  if (first.score < floor) return { ranked, reason: 'below-floor', best };
  if (second && first.score - second.score < margin) return { ranked, reason: 'thin-margin', best };
  return { key: first.key, ranked, best };
}

// ---------------------------------------------------------------------------------------------
// A classifier trained on the descriptions

/** What `classify` says: each choice's probability, and the choice when it is clear enough. */
export interface Classification<K extends string = string> {
  key?: K;
  /** Every choice with its probability, highest first. */
  ranked: { key: K; p: number }[];
  /** `too-many`: more choices or descriptions than a classifier is trained on (read them by similarity). */
  reason?: 'not-sure' | 'no-model' | 'empty' | 'too-many';
}

export interface ClassifyOptions {
  /** The winner's probability must reach this (calibrated on the descriptions, see below). */
  minProbability?: number;
}

/**
 * A linear read-out over the sentence embedding (softmax regression), trained on the choices'
 * own descriptions. Many everyday phrasings per choice teach it which directions of the
 * embedding tell the choices apart, where a nearest-phrase match is pulled about by shared nouns.
 * Measured by five-fold cross-validation on the phrasings themselves (no case involved): for the
 * ways work is organised, 0.71 right overall against 0.67 for the best nearest-phrase vote, and
 * with a probability of 0.8 or more 0.91 right; for scheduling troubles 0.73 against 0.63; for
 * the kinds of study data 0.96 against 0.88.
 */
class SoftmaxReadout {
  private constructor(
    private readonly weights: Float64Array[],
    private readonly dims: number,
  ) {}

  /**
   * Batch gradient descent from zero weights: the same descriptions always give the same model.
   * The loops below do four choices per pass over a vector (each choice's sums still run in the
   * same order, so the weights are the same to the last bit): one dependent chain of additions at
   * a time kept the processor waiting on each sum, and training took seconds per set of choices.
   */
  static train(vectors: readonly Float32Array[], labels: readonly number[], classes: number): SoftmaxReadout {
    const dims = vectors[0].length;
    const weights = Array.from({ length: classes }, () => new Float64Array(dims + 1));
    const grads = Array.from({ length: classes }, () => new Float64Array(dims + 1));
    const p = new Float64Array(classes);
    const { scale, rate, l2 } = TRAINING;
    const n = vectors.length;
    for (let epoch = 0; epoch < TRAINING.epochs; epoch++) {
      for (const g of grads) g.fill(0);
      for (let i = 0; i < n; i++) {
        const x = vectors[i];
        const y = labels[i];
        logits(weights, dims, x, p);
        softmax(p);
        let c = 0;
        for (; c + 4 <= classes; c += 4) {
          const [g0, g1, g2, g3] = [0, 1, 2, 3].map((k) => p[c + k] - (y === c + k ? 1 : 0));
          const [a0, a1, a2, a3] = [grads[c], grads[c + 1], grads[c + 2], grads[c + 3]];
          for (let j = 0; j < dims; j++) {
            const xj = x[j];
            a0[j] += g0 * xj * scale;
            a1[j] += g1 * xj * scale;
            a2[j] += g2 * xj * scale;
            a3[j] += g3 * xj * scale;
          }
          a0[dims] += g0;
          a1[dims] += g1;
          a2[dims] += g2;
          a3[dims] += g3;
        }
        for (; c < classes; c++) {
          const g = p[c] - (y === c ? 1 : 0);
          const gc = grads[c];
          for (let j = 0; j < dims; j++) gc[j] += g * x[j] * scale;
          gc[dims] += g;
        }
      }
      for (let c = 0; c < classes; c++) {
        const [w, gc] = [weights[c], grads[c]];
        for (let j = 0; j <= dims; j++) w[j] -= rate * (gc[j] / n + (j < dims ? l2 * w[j] : 0));
      }
    }
    return new SoftmaxReadout(weights, dims);
  }

  /** All weights in one array, a choice after the other (what `fromNumbers` reads back). */
  numbers(): Float64Array {
    const out = new Float64Array(this.weights.length * (this.dims + 1));
    this.weights.forEach((w, c) => out.set(w, c * (this.dims + 1)));
    return out;
  }

  static fromNumbers(numbers: Float64Array, classes: number, dims: number): SoftmaxReadout {
    const weights = Array.from({ length: classes }, (_, c) => numbers.slice(c * (dims + 1), (c + 1) * (dims + 1)));
    return new SoftmaxReadout(weights, dims);
  }

  probabilities(x: Float32Array): number[] {
    const p = new Float64Array(this.weights.length);
    logits(this.weights, this.dims, x, p);
    softmax(p);
    return [...p];
  }
}

/** Each choice's logit for `x`, into `out`: four choices per pass, each summed in order of `j`. */
function logits(weights: readonly Float64Array[], dims: number, x: Float32Array, out: Float64Array): void {
  const { scale } = TRAINING;
  let c = 0;
  for (; c + 4 <= weights.length; c += 4) {
    const [w0, w1, w2, w3] = [weights[c], weights[c + 1], weights[c + 2], weights[c + 3]];
    let [s0, s1, s2, s3] = [w0[dims], w1[dims], w2[dims], w3[dims]];
    for (let j = 0; j < dims; j++) {
      const xj = x[j];
      s0 += w0[j] * xj * scale;
      s1 += w1[j] * xj * scale;
      s2 += w2[j] * xj * scale;
      s3 += w3[j] * xj * scale;
    }
    [out[c], out[c + 1], out[c + 2], out[c + 3]] = [s0, s1, s2, s3];
  }
  for (; c < weights.length; c++) {
    const w = weights[c];
    let s = w[dims];
    for (let j = 0; j < dims; j++) s += w[j] * x[j] * scale;
    out[c] = s;
  }
}

/** Logits to probabilities, in place (less the largest first, so no exp overflows). */
function softmax(z: Float64Array): void {
  const max = Math.max(...z);
  let sum = 0;
  for (let c = 0; c < z.length; c++) sum += z[c] = Math.exp(z[c] - max);
  for (let c = 0; c < z.length; c++) z[c] /= sum;
}

/** Unit vectors times `scale` keep the logits in a useful range; `l2` keeps the weights small. */
const TRAINING = { epochs: 300, rate: 0.5, l2: 0.05, scale: 10 } as const;

/**
 * Training is synchronous and grows with choices x descriptions: the bundled sets take well under
 * a second once. Larger sets (a prompt may carry any choices) are read by similarity instead, and
 * at most this many descriptions train a model.
 */
export const MAX_CLASSIFIER_CHOICES = 32;
const MAX_CLASSIFIER_DESCRIPTIONS = 1_500;
const MAX_READOUTS = 16;

/** The source of the training, part of a stored classifier's key. */
const trainingCode = (): string => [SoftmaxReadout.train, logits, softmax].map(String).join('\n');

/** Whether these choices are few enough to train a classifier on. */
export const trainable = (choices: readonly Choice[]): boolean =>
  choices.length >= 2 &&
  choices.length <= MAX_CLASSIFIER_CHOICES &&
  choices.reduce((n, c) => n + c.descriptions.length, 0) <= MAX_CLASSIFIER_DESCRIPTIONS;

async function readoutFor(meaning: MeaningSpace, choices: readonly Choice[]): Promise<SoftmaxReadout> {
  // Per space: a classifier trained on one embedder's vectors means nothing on another's.
  const { readouts } = meaning;
  const key = JSON.stringify(choices.map((c) => [c.key, c.descriptions]));
  let readout = readouts.get(key);
  if (readout) {
    // Most recently used last: the oldest is the one evicted.
    readouts.delete(key);
    readouts.set(key, readout);
    return readout;
  }
  readout = (async () => {
    const { embedder } = meaning;
    const dims = embedder.dimensions;
    // Kept on disk beside the model (see storedNumbers): the same model, descriptions and
    // training give the same weights, and the next process (the stand-in's restart, the next
    // test run) reads them instead of embedding every description and training again. The key
    // holds the training code itself, so changing it trains anew.
    const numbers = await storedNumbers(
      embedder,
      'readout',
      JSON.stringify([TRAINING, trainingCode(), key]),
      choices.length * (dims + 1),
      async () => {
        const texts = choices.flatMap((c) => c.descriptions);
        await meaning.prefetch(texts);
        const vectors = await Promise.all(texts.map((t) => meaning.vector(t)));
        const labels = choices.flatMap((c, i) => c.descriptions.map(() => i));
        return SoftmaxReadout.train(vectors, labels, choices.length).numbers();
      },
    );
    return SoftmaxReadout.fromNumbers(numbers, choices.length, dims);
  })();
  // A failed training is not kept: the next call tries again.
  readout.catch(() => readouts.delete(key));
  if (readouts.size >= MAX_READOUTS) readouts.delete(readouts.keys().next().value!);
  readouts.set(key, readout);
  return readout;
}

/** The default: the probability at which the cross-validated phrasings were right about nine times in ten. */
export const DEFAULT_MIN_PROBABILITY = 0.8;

/**
 * Which choice `text` means, by a classifier trained on the choices' descriptions (each choice
 * needs several; a choice of one description is learnt from that one alone). The choice is taken
 * only at `minProbability`; otherwise the ranking, so the caller can ask again or offer choices.
 */
export async function classify<K extends string>(
  text: string,
  choices: readonly Choice<K>[],
  options: ClassifyOptions = {},
): Promise<Classification<K>> {
  if (!text.trim() || choices.length < 2) return { ranked: [], reason: 'empty' };
  if (!trainable(choices)) return { ranked: [], reason: 'too-many' };
  const meaning = await meaningSpace();
  if (!meaning) return { ranked: choices.map((c) => ({ key: c.key, p: 0 })), reason: 'no-model' };
  const readout = await readoutFor(meaning, choices);
  const p = readout.probabilities(await meaning.vector(text));
  const ranked = choices.map((c, i) => ({ key: c.key, p: p[i] })).sort((a, b) => b.p - a.p);
  if (ranked[0].p < (options.minProbability ?? DEFAULT_MIN_PROBABILITY)) return { ranked, reason: 'not-sure' };
  return { key: ranked[0].key, ranked };
}
