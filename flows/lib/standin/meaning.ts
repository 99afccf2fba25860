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
import { cosine, sharedEmbedder, type TextEmbedder } from '../../../backends/embedding';

/** Vectors for texts, cached per text (prompts repeat the same descriptions and facts). */
export class MeaningSpace {
  private readonly cache = new Map<string, Promise<Float32Array>>();
  constructor(readonly embedder: TextEmbedder) {}

  vector(text: string): Promise<Float32Array> {
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
    const missing = [...new Set(texts)].filter((t) => !this.cache.has(t));
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

/** The stand-in's meaning space, if an embedding model is installed; undefined: none. */
export function meaningSpace(): Promise<MeaningSpace | undefined> {
  space ??= sharedEmbedder().then((s) => (s.embedder ? new MeaningSpace(s.embedder) : undefined));
  return space;
}

/** Tests: run the rules without a model, or with a given embedder. */
export function useEmbedder(embedder: TextEmbedder | undefined): void {
  space = Promise.resolve(embedder ? new MeaningSpace(embedder) : undefined);
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
  await meaning.prefetch([...texts.map((e) => e.text), ...all]);
  const rows = await Promise.all(texts.map((e) => meaning.similarities(e.text, all)));
  const best: Partial<Record<K, string>> = {};
  let offset = 0;
  const ranked = choices
    .map((c) => {
      const primary: Array<{ score: number; text: string }> = [];
      let supporting = 0;
      texts.forEach((e, t) => {
        const own = Math.max(...c.descriptions.map((_, d) => rows[t][offset + d])) * (e.weight ?? 1);
        if ((e.role ?? 'primary') === 'primary') primary.push({ score: own, text: e.text });
        else supporting = Math.max(supporting, own);
      });
      offset += c.descriptions.length;
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
