/**
 * Grounded terms: the question's part phrases checked against the warehouse's own vocabulary
 * (the distinct values the column resolver samples from the BOM tables), before any SQL runs.
 *
 * A phrase is one concept ("tantalum capacitors"): it grounds when some value holds it — equal to
 * it (strategy 1), as whole words in order with plural/singular per word (strategy 2), or inside
 * a word (strategy 3). The strictest level it grounds at is where the refinement loop starts for
 * it. A phrase that grounds nowhere is tried once more with its misspelt words corrected to the
 * closest vocabulary words; if it still grounds nowhere, it is missing: the flow answers "no such
 * part" and offers the closest real parts, rather than dropping the words that matched nothing.
 */
import type { StrategyNumber } from '../contract';
import {
  editDistance,
  exactForms,
  isIdentifierLike,
  isStopWord,
  phraseRegexAlternative,
  pluralVariants,
  wordRegex,
} from '../../../domain/bom-text';
import { tokenizeBomQuestion } from '../../../domain/text';

/** The sampled values of one column: the vocabulary the terms are grounded in. */
export interface VocabularyColumn {
  column: string;
  values: string[];
}

export interface GroundedConcept {
  /** The phrase searched for (after any spelling correction). */
  term: string;
  /** The phrase as the question (or the model) wrote it. */
  asked: string;
  /** The strictest strategy that matches it in the vocabulary; null when nothing does. */
  level: StrategyNumber | null;
  /** Per strategy, the columns where it matches (empty: not at that strategy). */
  columns: Record<StrategyNumber, string[]>;
  /** What strategy 3 searches for: the form of the phrase found inside values. */
  substring: string | null;
  /** A value it matched, for the reader. */
  example: string | null;
  /**
   * Strategy 2 found the phrase's words, but not in order in one value ("25MHz crystal" in
   * "Crystal 25MHz 18pF"): each word is searched on its own, all of them on the same item.
   */
  any_order?: boolean;
}

/** The vocabulary, prepared once per resolver call: values lower-cased, words with their forms. */
export class Vocabulary {
  private readonly columns: Array<{ column: string; values: string[]; lower: string[] }>;
  private words: Map<string, number> | undefined;

  constructor(columns: VocabularyColumn[]) {
    this.columns = columns.map((c) => ({
      column: c.column,
      values: c.values,
      lower: c.values.map((v) => v.toLowerCase()),
    }));
  }

  /** Words of the vocabulary (no digits: part numbers and specs are not spelling targets) and how often they occur. */
  private wordCounts(): Map<string, number> {
    if (!this.words) {
      this.words = new Map();
      for (const c of this.columns) {
        for (const value of c.lower) {
          for (const word of tokenizeBomQuestion(value))
            if (!/\d/.test(word) && word.length >= 3) this.words.set(word, (this.words.get(word) ?? 0) + 1);
        }
      }
    }
    return this.words;
  }

  /** Where a phrase matches at each strategy. Part numbers ground by shape, not by value. */
  ground(phrase: string, asked = phrase): GroundedConcept {
    const term = phrase.toLowerCase().trim();
    const columns: Record<StrategyNumber, string[]> = { 1: [], 2: [], 3: [] };
    const grounded: GroundedConcept = { term, asked, level: null, columns, substring: null, example: null };
    if (isIdentifierLike(term)) return { ...grounded, level: 1 };
    const exact = new Set(exactForms(term));
    const regex = new RegExp(`\\b(?:${phraseRegexAlternative(term)})\\b`, 'i');
    // Strategy 3 looks for the longest form of the phrase that some value holds inside a word.
    const forms = /\s/.test(term)
      ? exactForms(term).filter((f) => !f.includes('_'))
      : pluralVariants(term).filter((v) => v.length >= 3);
    let substring: string | null = null;
    for (const c of this.columns) {
      c.lower.forEach((value, i) => {
        const note = (level: StrategyNumber) => {
          if (!columns[level].includes(c.column)) columns[level].push(c.column);
          if (grounded.level === null || level < grounded.level) {
            grounded.level = level;
            grounded.example = c.values[i];
          }
        };
        if (exact.has(value)) note(1);
        if (regex.test(value)) note(2);
        const inside = forms.filter((f) => value.includes(f)).sort((a, b) => b.length - a.length)[0];
        if (inside !== undefined) {
          note(3);
          if (substring === null || inside.length > substring.length) substring = inside;
        }
      });
    }
    // Looser than the phrase in order, stricter than a substring: every word of the phrase
    // somewhere in the item — its description, category, maker … ("25MHz crystal" in "Crystal
    // 25MHz 18pF", "JST PH connector" in "JST PH wire-to-board" of category CONNECTORS). The
    // vocabulary shows each word exists; the query checks they meet on one item.
    const words = term.split(/\s+/).filter((w) => !isStopWord(w));
    if (words.length > 1 && (grounded.level === null || grounded.level > 2)) {
      const hits = new Set<string>();
      let example: string | null = null;
      const everyWord = words.every((w) => {
        const regex = new RegExp(wordRegex(w).replace('(?i)', ''), 'i');
        let found = false;
        for (const c of this.columns) {
          const at = c.lower.findIndex((value) => regex.test(value));
          if (at < 0) continue;
          found = true;
          hits.add(c.column);
          example ??= c.values[at];
        }
        return found;
      });
      if (everyWord)
        return { ...grounded, level: 2, columns: { ...columns, 2: [...hits] }, example, substring, any_order: true };
    }
    return { ...grounded, substring };
  }

  /**
   * The phrase with its misspelt words replaced by the closest vocabulary word (one edit for words
   * of 5–7 letters, two from 8), or null when no word needed or found a correction. Words under 5
   * letters are left alone: too many real words are one edit apart ("flux" and "flex").
   */
  correct(phrase: string): string | null {
    const counts = this.wordCounts();
    let changed = false;
    const words = phrase.split(/\s+/).map((word) => {
      const variants = pluralVariants(word);
      if (word.length < 5 || /\d/.test(word) || variants.some((v) => counts.has(v))) return word;
      const budget = word.length >= 8 ? 2 : 1;
      let best: { word: string; distance: number; count: number; plural: boolean } | undefined;
      for (const [candidate, count] of counts) {
        if (Math.abs(candidate.length - word.length) > budget + 1) continue;
        for (const v of variants) {
          const distance = editDistance(v, candidate, budget);
          if (distance > budget) continue;
          const better = !best || distance < best.distance || (distance === best.distance && count > best.count);
          if (better) best = { word: candidate, distance, count, plural: v !== word };
        }
      }
      if (!best) return word;
      changed = true;
      // Keep the question's number: "acelerometers" → "accelerometers".
      return best.plural ? (pluralVariants(best.word).find((f) => f !== best!.word) ?? best.word) : best.word;
    });
    return changed ? words.join(' ') : null;
  }

  /**
   * Grounds a phrase, correcting its spelling when it grounds nowhere as written. A phrase that
   * still grounds nowhere may be a part named inside a longer clause ("lost our supplier of
   * vibration motors", "power harness anywhere in their structure"): its part is then the longest
   * run of its words that names something in the vocabulary, with the words right before it that
   * qualify it ("unobtainium flux capacitors" stays whole, so it stays missing). Words after that
   * run describe the situation, not the part, unless the vocabulary holds them (a package, a
   * rating): those stay as qualifiers of the same item.
   */
  groundWithCorrection(phrase: string): GroundedConcept {
    const first = this.groundSpelled(phrase);
    if (first.level !== null) return first;
    const head = this.partInClause(phrase);
    if (head === null || head === phrase.toLowerCase().trim()) return first;
    const inner = this.groundSpelled(head);
    return { ...inner, asked: inner.level !== null ? inner.asked : phrase };
  }

  private groundSpelled(phrase: string): GroundedConcept {
    const first = this.ground(phrase);
    if (first.level !== null) return first;
    const corrected = this.correct(phrase);
    if (corrected === null) return first;
    const second = this.ground(corrected, phrase);
    return second.level !== null ? second : first;
  }

  /**
   * The part a clause names: the longest run of content words (no stop words inside) that grounds
   * as a phrase in order (strategy 1 or 2), preferring the stricter match and then the later run,
   * extended left over the content words that precede it. Null when no run grounds.
   */
  partInClause(phrase: string): string | null {
    const words = phrase.toLowerCase().split(/\s+/).filter(Boolean);
    if (words.length < 2) return null;
    let best: { start: number; end: number; level: number } | null = null;
    for (let start = 0; start < words.length; start++) {
      for (let end = start + 1; end <= words.length; end++) {
        const span = words.slice(start, end);
        if (span.some((w) => isStopWord(w) || !/[\p{L}\p{N}]/u.test(w))) break;
        if (span.length === 1 && span[0].length < 3 && !/\d/.test(span[0])) continue;
        if (end - start === words.length) continue;
        const grounded = this.ground(span.join(' '));
        if (grounded.level === null || grounded.level > 2 || grounded.any_order) continue;
        const better =
          !best ||
          end - start > best.end - best.start ||
          (end - start === best.end - best.start && grounded.level <= best.level);
        if (better) best = { start, end, level: grounded.level };
      }
    }
    if (!best) return null;
    let start = best.start;
    while (start > 0 && !isStopWord(words[start - 1]) && /[\p{L}\p{N}]/u.test(words[start - 1])) start--;
    // After the part, words the vocabulary holds still describe it ("… in a TO-92 package" keeps
    // "to-92"): they must be on the same item. Words it never holds describe the situation.
    const after = words.slice(best.end).filter((w) => !isStopWord(w) && this.hasWord(w));
    return [...words.slice(start, best.end), ...after].join(' ');
  }

  /** True when some value holds the word as a whole word (plural/singular alike). */
  private hasWord(word: string): boolean {
    if (!/[\p{L}\p{N}]/u.test(word)) return false;
    const regex = new RegExp(wordRegex(word).replace('(?i)', ''), 'i');
    return this.columns.some((c) => c.lower.some((value) => regex.test(value)));
  }

  /**
   * The closest real parts to a phrase that grounds nowhere: the values sharing the most of its
   * words (plural/singular, a word inside another like "supercapacitor"/"capacitor", or one
   * edit away), cut after the last shared word ("Ceramic capacitor 100nF …" → "Ceramic capacitor").
   */
  closest(phrase: string, max = 5): string[] {
    const wanted = phrase
      .toLowerCase()
      .split(/\s+/)
      .filter((w) => w.length >= 3)
      .map((w) => pluralVariants(w));
    const scored = new Map<string, { score: number; count: number }>();
    for (const c of this.columns) {
      c.values.forEach((value) => {
        if (isIdentifierLike(value)) return;
        const words = value.split(/\s+/);
        let score = 0;
        let last = -1;
        wanted.forEach((variants) => {
          const at = words.findIndex((w) => {
            const lw = w.toLowerCase();
            return (
              lw.length >= 3 &&
              variants.some(
                (v) =>
                  v === lw || (lw.length >= 4 && v.includes(lw)) || (lw.length >= 5 && editDistance(v, lw, 1) <= 1),
              )
            );
          });
          if (at >= 0) {
            score++;
            last = Math.max(last, at);
          }
        });
        if (score === 0) return;
        const name = words.slice(0, last + 1).join(' ');
        const prev = scored.get(name);
        scored.set(name, { score, count: (prev?.count ?? 0) + 1 });
      });
    }
    return [...scored]
      .sort((a, b) => b[1].score - a[1].score || b[1].count - a[1].count || a[0].localeCompare(b[0]))
      .slice(0, max)
      .map(([name]) => name);
  }
}

/**
 * The concepts to search for: the question's part phrases, checked against the focus terms the
 * model (or the fallback) gave. A question phrase is kept when a focus term overlaps it (the
 * model judged it content), and kept whole even when the term covers only some of its words (a
 * qualifier the model left out is not dropped). Focus terms that are in no question phrase (a
 * synonym the model supplied) are added. With no overlap at all, the question's phrases win.
 */
export function alignConcepts(questionPhrases: string[], focusTerms: string[]): string[] {
  const wordsOf = (s: string) => s.toLowerCase().split(/\s+/).filter(Boolean);
  const overlaps = (a: string, b: string) =>
    wordsOf(a).some((w) => wordsOf(b).some((x) => pluralVariants(w).includes(x)));
  const kept = questionPhrases.filter((p) => focusTerms.some((t) => overlaps(p, t)));
  const extra = focusTerms.filter((t) => !questionPhrases.some((p) => overlaps(p, t)));
  const out = kept.length || extra.length ? [...kept, ...extra] : [...questionPhrases];
  return [...new Set(out.length ? out : focusTerms)];
}
