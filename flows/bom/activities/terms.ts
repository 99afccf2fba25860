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
import nlp from 'compromise';
import { cosine, type TextEmbedder } from '../../../backends/embedding';
import type { Lexicon, NounRelation } from '../../../backends/lexicon/wordnet';
import type { StrategyNumber } from '../contract';
import {
  editDistance,
  exactForms,
  isGenericHead,
  isIdentifierLike,
  isItemNumberShaped,
  isPhraseBoundary,
  isStopWord,
  nameHolds,
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
   * Strategy 2 found the phrase's words, but not in order in one value ("10k resistor" in
   * "Resistor 10k 0603"): each word is searched on its own, all of them on the same item.
   */
  any_order?: boolean;
  /**
   * How the phrase found its part: by its own words, by its qualifier without a generic head
   * ("memory chips" → memory), or by meaning (a synonym: "screen" → DISPLAY), with the similarity.
   */
  /** `situation`: a last word that names no part was left off ("valve shortage" → the valves). */
  via?: 'words' | 'qualifier' | 'meaning' | 'situation';
  similarity?: number;
  /** Missing phrases: the words of it nothing in the data means, and the nearest parts by meaning. */
  unclear?: string[];
  nearest?: string[];
  /**
   * The phrase names parts (a leaf part's name holds its words): assemblies and products whose
   * own names hold the words do not match ("wireless" is the SoC, not "Wireless module for X").
   */
  parts_only?: boolean;
  /**
   * The phrase is said only in products' names (and in their assemblies' names after them:
   * "Battery module for Portable Speaker"): it names products, never a part in their BOMs. The
   * products' names, a few, for the reader.
   */
  names_products?: string[];
  /**
   * An excluded part ("but not Y", "other than Y"): `bom`, the BOMs that use it are left out;
   * `component`, its lines are (the parts asked for, other than these).
   */
  exclude?: 'bom' | 'component';
}

/** A word without the brackets, quotes and stops around it, trimmed by a loop (no pattern to backtrack over a long run). */
function withoutEdgePunctuation(word: string): string {
  let start = 0;
  let end = word.length;
  while (start < end && '("\''.includes(word[start])) start++;
  while (end > start && ')"\',.;:'.includes(word[end - 1])) end--;
  return word.slice(start, end);
}

/** The vocabulary, prepared once per resolver call: values lower-cased, words with their forms. */
export class Vocabulary {
  private readonly columns: Array<{ column: string; values: string[]; lower: string[] }>;
  private words: Map<string, number> | undefined;
  private spelling: string[] | undefined;

  constructor(columns: VocabularyColumn[]) {
    this.columns = columns.map((c) => ({
      column: c.column,
      values: c.values,
      lower: c.values.map((v) => v.toLowerCase()),
    }));
  }

  /** The values (lower case) that hold the phrase's words in order, as strategy 2 matches them. */
  valuesHolding(phrase: string): string[] {
    const regex = new RegExp(`\\b(?:${phraseRegexAlternative(phrase.toLowerCase().trim())})\\b`, 'i');
    return [...new Set(this.columns.flatMap((c) => c.lower.filter((v) => regex.test(v))))];
  }

  /** Words of the vocabulary (no digits: part numbers and specs are not spelling targets) and how often they occur. */
  private wordCounts(): Map<string, number> {
    if (!this.words && this.spelling) {
      this.words = new Map();
      for (const word of this.spelling) this.words.set(word, (this.words.get(word) ?? 0) + 1);
    }
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

  /**
   * Corrects spelling towards these words only (the words of the parts' names): a misspelt part
   * becomes a part ("capacitr" → capacitor), never a word of an assembly's or a product's name
   * ("drivers" is not "Motor drive board").
   */
  spellWith(words: Iterable<string>): void {
    this.spelling = [...words].filter((w) => !/\d/.test(w) && w.length >= 3);
    this.words = undefined;
  }

  /**
   * Words of the language are not misspellings: "coils" is a word, and correcting it to the
   * vocabulary's "coins" would answer another question. Such a word that the data does not use
   * stays as asked, to be judged by meaning or reported as not understood.
   */
  knowLanguage(isWord: (word: string) => boolean): void {
    this.isWord = isWord;
  }
  private isWord: (word: string) => boolean = () => false;

  /**
   * Words that tell what happens to a part rather than name one ("approval is withdrawn", "a
   * recall"): the dictionary's reading, when there is a dictionary (`namesNoThing`, acts included).
   * In a scene, such words after a part are the situation, like a verb's "-ing" form.
   */
  knowSituationWords(isSituation: (word: string) => boolean): void {
    this.isSituation = isSituation;
  }
  private isSituation: (word: string) => boolean = () => false;

  /** How the dictionary reads a word, when there is one: a physical thing, surely none, or unknown. */
  knowThingWords(kindOf: (word: string) => 'thing' | 'no-thing' | 'unknown'): void {
    this.thingKind = kindOf;
  }
  private thingKind: (word: string) => 'thing' | 'no-thing' | 'unknown' = () => 'unknown';

  /** Whether some value holds the code as a whole word of a longer text (not as the whole value: that is an item number). */
  private usesAsWord(code: string): boolean {
    // A code that begins or ends with a sign of its own ("…-m0+") is a word between spaces: split
    // at every sign, the sign is lost. Any other code is a word between signs, so an item number
    // that a description only mentions in passing stays an item number.
    // A code of no item number's shape that a value writes between spaces ("ARM Cortex-M4 MCU")
    // is a word of the data too: a maker's name for a kind of part, not an item.
    const signed = /^[^\p{L}\p{N}]|[^\p{L}\p{N}]$/u.test(code) || !isItemNumberShaped(code);
    const betweenSpaces = (value: string) => value.split(/\s+/).map(withoutEdgePunctuation);
    const betweenSigns = (value: string) => value.split(/[^\p{L}\p{N}]+/u);
    return this.columns.some((c) =>
      c.lower.some(
        (value) =>
          value !== code && (betweenSigns(value).includes(code) || (signed && betweenSpaces(value).includes(code))),
      ),
    );
  }

  /** Where a phrase matches at each strategy. Part numbers ground by shape, not by value. */
  ground(phrase: string, asked = phrase): GroundedConcept {
    const term = phrase.toLowerCase().trim();
    const columns: Record<StrategyNumber, string[]> = { 1: [], 2: [], 3: [] };
    const grounded: GroundedConcept = { term, asked, level: null, columns, substring: null, example: null };
    // A code the descriptions use as a word ("DDR4", "CR2032") names a kind of part, not one item
    // number: it is grounded like any word. Other codes are part numbers, grounded by their shape.
    if (isIdentifierLike(term) && !this.usesAsWord(term)) return { ...grounded, level: 1 };
    const exact = new Set(exactForms(term));
    const regex = new RegExp(`\\b(?:${phraseRegexAlternative(term)})\\b`, 'i');
    // Strategy 3 looks for the longest form of the phrase that some value holds inside a word.
    const forms = /\s/.test(term)
      ? exactForms(term).filter((f) => !f.includes('_'))
      : // Inside a word only from four letters: "fuse" in eFuse, but "ram" is not in "ceramic".
        pluralVariants(term).filter((v) => v.length >= 4);
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
    // somewhere in the item — its description, category, maker … ("10k resistor" in "Resistor
    // 10k 0603", "JST PH connector" in "JST PH wire-to-board" of category CONNECTORS). The
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
    // A word of four letters has many neighbours one letter away: it is respelt only beside other
    // words of the phrase, and only where one value holds the respelt phrase whole ("pinch valv"
    // → "Stepper motor …"), never on its own.
    const given = phrase.split(/\s+/);
    let short = false;
    const words = given.map((word) => {
      const variants = pluralVariants(word);
      const shortButPlaced = word.length === SHORT_RESPELT && given.length > 1;
      if (
        (word.length < 5 && !shortButPlaced) ||
        isDesignator(word) ||
        variants.some((v) => counts.has(v) || this.isWord(v))
      )
        return word;
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
      if (word.length === SHORT_RESPELT) short = true;
      // Keep the question's number: "valvs" → "valves".
      return best.plural ? (pluralVariants(best.word).find((f) => f !== best!.word) ?? best.word) : best.word;
    });
    if (short && !this.holdsTogether(words)) return null;
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
  groundWithCorrection(phrase: string, options: { scene?: boolean } = {}): GroundedConcept {
    const first = this.groundSpelled(phrase);
    if (first.level !== null) return first;
    const head = this.partInClause(phrase, options);
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
   * The part a clause names: of its runs of words (split at frame words, auxiliaries, "not", the
   * "went" of a scenario: `phraseRuns`), the longest that grounds whole as a phrase (strategy 1
   * or 2 in order), the stricter and then the later one on a tie. A run is never cut: "LED
   * drivers" does not ground, so it does not become "LED". Null when no run grounds.
   */
  partInClause(phrase: string, options: { scene?: boolean } = {}): string | null {
    const runs = phraseRuns(phrase);
    const words = phrase.toLowerCase().split(/\s+/).filter(Boolean);
    let tagged: Set<string> | undefined;
    const verbs = () => (tagged ??= verbsOf(phrase));
    // The word of the phrase right before a run (runs are in order, each after the last).
    const starts = new Map<string[], number>();
    let at = 0;
    for (const run of runs) {
      while (at < words.length && words[at] !== run[0]) at++;
      starts.set(run, at);
      at += run.length;
    }
    const wordBefore = (run: string[]) => words[(starts.get(run) ?? 0) - 1] ?? '';
    if (runs.length === 1 && runs[0].length === words.length && !options.scene) return null;
    let best: { index: number; run: string[]; level: number } | null = null;
    runs.forEach((whole, index) => {
      // In a scene ("our pump maker stops supplying us") a run may be the part and then what
      // happens to it, told with a verb form ("-ing", "-ed"): its longest beginning that grounds
      // is the part. Otherwise a run is whole ("stepper drivers" is not "stepper").
      const ends = options.scene ? whole.map((_, k) => whole.length - k) : [whole.length];
      // The scene's own verb may open the run ("our distributor put coin cells on allocation"):
      // the part starts after it. Which words are verbs here is the tagger's reading of the clause.
      // (After "our", "the" … a word is a noun whatever the tagger says: "our coin cell supplier".)
      let verbal = 0;
      // (A run that opens the phrase has lost its determiner to the question's reading: no verb there.)
      const before = wordBefore(whole);
      // A verb goes on through an "-ing" or "-ed" form or a particle right after it ("keep
      // losing", "winding down"), whatever the tagger makes of that word alone.
      if (options.scene && before && !DETERMINERS.has(before))
        while (
          verbal < whole.length - 1 &&
          (verbs().has(whole[verbal]) ||
            (verbal > 0 && (VERB_FORM.test(whole[verbal]) || VERB_PARTICLES.has(whole[verbal]))))
        )
          verbal++;
      // The tagger also reads many a part's first word as a verb ("bearing shells", "pull rings",
      // "control boards"): the earliest start that grounds wins, so a word of the part's name is
      // dropped only when the name does not ground with it.
      for (let start = 0; start <= verbal; start++) {
        let found = false;
        for (const end of ends) {
          if (end <= start) break;
          const run = whole.slice(start, end);
          // The words cut off must tell what happens: a verb form, or the tagger's verb right
          // after the part ("ran out", "become scarce"); never a noun of the part before a verb.
          const rest = whole.slice(end);
          if (
            end < whole.length &&
            !rest.some((w) => VERB_FORM.test(w)) &&
            !verbs().has(rest[0]) &&
            !rest.every((w) => this.isSituation(w))
          )
            continue;
          if (run.length === 1 && run[0].length < 3 && !/\d/.test(run[0])) continue;
          if (run.length === words.length) continue;
          const grounded = this.ground(run.join(' '));
          // Its words in another order count when one value holds them all ("the 10k resistor" in
          // "Resistor 10k 0603", "geared motors" in "Geared DC motor"): a part as the data
          // writes it, not words of the situation that each happen to occur somewhere.
          if (grounded.level === null || grounded.level > 2 || (grounded.any_order && !this.holdsTogether(run)))
            continue;
          const better =
            !best || run.length > best.run.length || (run.length === best.run.length && grounded.level <= best.level);
          if (better) best = { index, run, level: grounded.level };
          found = true;
          break;
        }
        if (found) break;
      }
    });
    if (!best) return null;
    const { index, run } = best as { index: number; run: string[]; level: number };
    // A run of words that name no thing ("cooling" of "a strap for cooling") is not the part
    // when a run before it ends in a word that names one: that run names the part (what it is
    // for comes after it), and it is the one the data lacks. A thing named after the run is where
    // the part sits ("timing parts on the main board"), not the part.
    if (
      run.every((w) => this.thingKind(w) === 'no-thing') &&
      runs.some((other, k) => k < index && this.thingKind(other[other.length - 1]) === 'thing')
    )
      return null;
    // After the part, words the vocabulary holds still describe it ("… in a TO-92 package" keeps
    // "to-92"): they must be on the same item. Words it never holds describe the situation.
    const after = runs
      .slice(index + 1)
      .flat()
      .filter((w) => this.hasWord(w) && this.holdsTogether([...run, w]));
    return [...run, ...after].join(' ');
  }

  /**
   * The phrase with the frame words that follow it in the question, when together they are a
   * value of the data ("cable" + "assembly" = CABLE_ASSEMBLY, a category): question reading drops
   * "assembly", "part", "type" as words of the question's frame, but here they finish a name the
   * data holds whole. Otherwise the phrase as it is.
   */
  completed(phrase: string, question: string): string {
    const words = phrase.toLowerCase().split(/\s+/).filter(Boolean);
    if (!words.length || this.ground(phrase).level === 1) return phrase;
    const tokens = question.toLowerCase().match(/[\p{L}\p{N}](?:[\p{L}\p{N}+_-]|\.(?=\p{N}))*/gu) ?? [];
    for (let i = 0; i + words.length < tokens.length; i++) {
      if (!words.every((w, k) => tokens[i + k] === w)) continue;
      const next: string[] = [];
      for (let j = i + words.length; j < tokens.length && isStopWord(tokens[j]); j++) {
        next.push(tokens[j]);
        const longer = [...words, ...next].join(' ');
        if (this.ground(longer).level === 1) return longer;
      }
    }
    return phrase;
  }

  /**
   * The phrase without the words that name a column of the data ("the CAPACITOR category", "by
   * manufacturer"): they say where the part is written, not which part it is. The phrase as it
   * was when nothing else is left.
   */
  withoutColumnWords(phrase: string): string {
    const names = new Set<string>();
    for (const c of this.columns) {
      const column = c.column.split('.').pop()!.toLowerCase();
      names.add(column);
      names.add(column.split('_').pop()!);
    }
    const words = phrase.split(/\s+/).filter(Boolean);
    const kept = words.filter((w) => !pluralVariants(w).some((f) => names.has(f)));
    return kept.length && kept.length < words.length ? kept.join(' ') : phrase;
  }

  /** True when one value holds every word (plural/singular alike; a spec at the start of a word). */
  holdsTogether(words: readonly string[]): boolean {
    const regexes = words.filter((w) => !isStopWord(w)).map((w) => new RegExp(wordRegex(w).replace('(?i)', ''), 'i'));
    return regexes.length > 0 && this.columns.some((c) => c.lower.some((value) => regexes.every((r) => r.test(value))));
  }

  /** True when some value holds the word, whole (plural/singular alike) or, from 4 letters, inside a word ("fuse" in eFuse). */
  knows(word: string): boolean {
    if (this.hasWord(word)) return true;
    const forms = pluralVariants(word).filter((f) => f.length >= 4);
    return forms.length > 0 && this.columns.some((c) => c.lower.some((value) => forms.some((f) => value.includes(f))));
  }

  /** The longest vocabulary word (5+ letters) inside an unknown word ("capacitor" in "supercapacitor"), or null. */
  knownInside(word: string): string | null {
    let best: string | null = null;
    for (const candidate of this.wordCounts().keys()) {
      if (
        candidate.length >= 5 &&
        candidate !== word &&
        word.includes(candidate) &&
        (!best || candidate.length > best.length)
      )
        best = candidate;
    }
    return best;
  }

  /** True when some value holds the word as a whole word (plural/singular alike). */
  hasWord(word: string): boolean {
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

/** Words after which the next word opens a noun phrase. */
const DETERMINERS = new Set(
  'a an the our my your their its his her this that these those every each any some'.split(' '),
);

/** The words a part-of-speech tagger reads as verbs or adverbs (and not also as nouns) in a clause, lower case. */
function verbsOf(phrase: string): Set<string> {
  const verbs = new Set<string>();
  for (const term of nlp(phrase).json({ terms: { tags: true } })[0]?.terms ?? []) {
    const tags = new Set<string>(term.tags ?? []);
    // With the adverbs that go with a verb ("no longer buy", "suddenly stopped").
    if ((tags.has('Verb') || tags.has('Adverb')) && !tags.has('Noun') && !tags.has('Adjective'))
      verbs.add(String(term.normal ?? term.text).toLowerCase());
  }
  return verbs;
}

/** The length of a word respelt only beside the other words of its phrase (see `Vocabulary.correct`). */
const SHORT_RESPELT = 4;

/** A word shaped like a verb's "-ing" or "-ed" form: what a scene says happens to its part. */
const VERB_FORM = /^[a-z]{2,}(?:ing|ed)$/;
/** The particles of English phrasal verbs ("phase out", "write off", "use up"). */
const VERB_PARTICLES: ReadonlySet<string> = new Set(['out', 'off', 'up', 'down', 'away', 'back', 'in']);

/** A phrase's runs of words, split where no part name goes on: frame words, auxiliaries, "not". */
export function phraseRuns(phrase: string): string[][] {
  const runs: string[][] = [[]];
  for (const word of phrase.toLowerCase().split(/\s+/).filter(Boolean)) {
    if (isPhraseBoundary(word)) {
      if (runs[runs.length - 1].length) runs.push([]);
    } else runs[runs.length - 1].push(word);
  }
  return runs.filter((run) => run.length > 0);
}

/** How many runs of one phrase meaning judges at most. */
const MAX_JUDGED_RUNS = 2;

/** Prepositions after which a scenario names its part ("supplier of X", "notice on X", "shortage of X"). */
const PART_PREPOSITIONS = new Set(['of', 'on', 'for', 'about', 'from']);

/**
 * The run of a clause that names its part, when none grounds: the one after "of"/"on"/"for"
 * ("our supplier of float switches went bust" → "float switches"), else the longest, else the first.
 * What the answer reports as missing: never the words of the situation around it.
 */
export function namedRun(phrase: string): string {
  const words = phrase.toLowerCase().split(/\s+/).filter(Boolean);
  const runs: Array<{ words: string[]; afterPreposition: boolean }> = [];
  let preposition = false;
  let current: string[] = [];
  for (const word of words) {
    if (isPhraseBoundary(word)) {
      if (current.length) runs.push({ words: current, afterPreposition: preposition });
      if (current.length) preposition = false;
      current = [];
      if (PART_PREPOSITIONS.has(word)) preposition = true;
    } else current.push(word);
  }
  if (current.length) runs.push({ words: current, afterPreposition: preposition });
  if (runs.length <= 1) return runs[0]?.words.join(' ') ?? phrase;
  const complement = runs.filter((r) => r.afterPreposition);
  const pool = complement.length ? complement : runs;
  return pool.reduce((best, r) => (r.words.length > best.words.length ? r : best)).words.join(' ');
}

/** How similar a text is to each of some others, by meaning (sentence embeddings); 1 is the same. */
export interface Meaning {
  similarities(text: string, others: readonly string[]): Promise<number[]>;
  /** Whether a word is a word of the language as written (then it is no misspelling to correct). */
  isWord?(word: string): boolean;
}

/** Meaning from a sentence embedder, each text's vector computed once (part names repeat on every question). */
export class EmbeddingMeaning implements Meaning {
  private readonly vectors = new Map<string, Promise<Float32Array>>();
  constructor(private readonly embedder: TextEmbedder) {}

  isWord(word: string): boolean {
    return this.embedder.knowsWord?.(word) ?? false;
  }

  async similarities(text: string, others: readonly string[]): Promise<number[]> {
    const missing = [...new Set([text, ...others])].filter((t) => !this.vectors.has(t));
    if (this.vectors.size + missing.length > 20_000) this.vectors.clear();
    if (missing.length) {
      const batch = this.embedder.embed(missing);
      missing.forEach((t, i) =>
        this.vectors.set(
          t,
          batch.then((r) => r[i]),
        ),
      );
      // A failed batch is not kept: the next question tries again.
      batch.catch(() => missing.forEach((t) => this.vectors.delete(t)));
    }
    const get = (t: string) => this.vectors.get(t) ?? this.embedder.embed([t]).then((r) => r[0]);
    const v = await get(text);
    return Promise.all(others.map(async (o) => cosine(v, await get(o))));
  }
}

/** A part's name as meaning is judged on: a value without its specs ("Ceramic capacitor 100nF 50V X7R" → "Ceramic capacitor X7R"). */
export interface PartName {
  /** Lower case, "_" as a space: what is embedded and grounded. */
  name: string;
  /** As the data writes it, for the reader. */
  display: string;
  /**
   * The kind the data files the part under (its category, lower case: "oscillator" for
   * "Crystal"), when known: meaning is judged on the name with it too, since the kind often
   * carries what a synonym means (a name for what the part does is closer to the part with its
   * kind than to its bare name), and parts of one kind are no rivals of each other.
   */
  context?: string;
  /** The items holding it are of several kinds (a maker's name): it names no kind of part. */
  mixed?: boolean;
}

/**
 * The part names of some values: specs (words with digits) dropped, duplicates merged; identifiers
 * skipped. `contexts`: value → the kind of the items that hold it, null when they are of several
 * kinds (the first value of a name wins).
 */
export function partNames(
  values: readonly string[],
  contexts: ReadonlyMap<string, string | null> = new Map(),
): PartName[] {
  const out = new Map<string, PartName>();
  for (const value of values) {
    if (isIdentifierLike(value)) continue;
    // A spec joined to a word by a hyphen ("Cortex-M4", "SOT-23") keeps the word: it is part of the
    // name. A word after the number is what the number counts ("3-way", "12-bit", "4-pin"): spec.
    const display = value
      .split(/\s+/)
      .map((w) => {
        if (!/\d/.test(w) || !/-/.test(w)) return w;
        const pieces = w.split('-');
        const numbered = pieces.findIndex((p) => /\d/.test(p));
        return pieces
          .slice(0, numbered)
          .filter((p) => /^\p{L}{3,}$/u.test(p))
          .join('-');
      })
      .filter((w) => w && !/\d/.test(w))
      .join(' ');
    const name = display.replace(/_/g, ' ').toLowerCase();
    // A bare "component" or "part" names no part in particular.
    const kind = contexts.get(value)?.replace(/_/g, ' ').toLowerCase().trim();
    const mixed = contexts.get(value) === null;
    if (name.length >= 3 && /\p{L}/u.test(name) && !isGenericHead(name) && !out.has(name))
      out.set(name, {
        name,
        display,
        ...(kind && kind !== name ? { context: kind } : {}),
        ...(mixed ? { mixed: true } : {}),
      });
  }
  return [...out.values()];
}

/**
 * How sure meaning must be, for MiniLM's cosine on short names (unrelated names sit near 0.1–0.3,
 * a name and its own category near 0.6–0.9). Set on general pairs (a screen is a display; a
 * a gold battery is no battery of the data), not on any question.
 */
export const MEANING_THRESHOLDS = {
  /**
   * Words the data does not use, beside words it does ("lithium" in "lithium batteries"): those
   * words alone must be this close to one of the parts the known words allow…
   */
  qualifierFloor: 0.3,
  /** … and this much closer than to any other part those words allow… */
  qualifierMargin: 0.1,
  /** … and the phrase, with those words, must move this much more towards that part than towards any other. */
  pullMargin: 0.08,
  /**
   * … while moving it away from that part by no more than this: MiniLM moves a phrase 0–0.02
   * from its head when the added word is a true qualifier, more when the word names something
   * else. A looser bar (0.09) let "stepper drivers" read as the stepper motor the data holds: a
   * part the data does not have, answered with its neighbour.
   */
  pullSlack: 0.05,
  /**
   * A phrase none of whose words the data uses ("screen"): this close to one part name at least
   * (as written or with its kind)… On MiniLM a synonym of a part or a kind scores 0.6–0.75
   * ("screen" and DISPLAY 0.64), while words
   * for parts the data lacks reach 0.54 ("sd card slot" and SDRAM 0.54, "gear" and MOTOR 0.53).
   * The floor keeps a clear gap above those (0.55 answered no more development questions than 0.6
   * does, and would leave unseen look-alikes a hair from a confident wrong answer), even though it
   * leaves weaker synonyms ("aerial" and ANTENNA 0.52) unanswered.
   */
  synonymFloor: 0.6,
  /** … and this much closer than to any part name of another kind. */
  synonymMargin: 0.15,
  /**
   * A last word the data never uses, after a part the data names in order ("pump controller now"):
   * the phrase with it must be this close to the phrase without it, so that the word adds nothing
   * to what part is meant. A courtesy or a time word leaves MiniLM's cosine at 0.9–0.95
   * ("please", "now"); a head noun moves it to 0.6–0.82 ("fuse holders" and "fuse" 0.81), and a head noun is never dropped.
   */
  trailingFloor: 0.9,
  /**
   * A generic head ("chips", "modules") after a qualifier that parts of several kinds hold: the
   * head narrows to one kind when it moves the phrase this much more towards that kind than
   * towards any other…
   */
  headMargin: 0.08,
  /** … and below this it says nothing about the kind (every part holding the qualifier is meant). */
  headAmbiguous: 0.03,
  /**
   * A part that shares a sense with the phrase in the dictionary must still be this close by
   * meaning: "aerial" and ANTENNA score 0.52, while a word whose only shared sense is another
   * trade's scores far lower.
   */
  dictionaryFloor: 0.4,
  /** The kind of item a question's subject means ("the things we sell" → PRODUCT): this close… */
  kindFloor: 0.4,
  /** … and this much closer than to any other kind. */
  kindMargin: 0.1,
} as const;

const wordSet = (text: string) =>
  new Set(
    text
      .toLowerCase()
      .split(/[\s_-]+/)
      .filter(Boolean)
      .map((w) => pluralVariants(w).sort()[0]),
  );

/**
 * A part's designator rather than a word of the language: a code with digits ("XR12", "M3x8") or a
 * hyphen before a last letter or two ("mini-b", "Kind-C"; not "x-ray", a word). Designators name
 * variants, so one that differs from another by a letter is another part, never a misspelling of
 * it.
 */
export function isDesignator(word: string): boolean {
  if (/\d/.test(word)) return true;
  // Split rather than one pattern: a pattern unanchored at the start rescans a long word from every letter.
  const segments = word.split('-');
  const [before, last] = [segments.at(-2) ?? '', segments.at(-1) ?? ''];
  return /^\p{L}{1,2}$/u.test(last) && /\p{L}{2}$/u.test(before);
}

/** A designator cut where it turns from letters to digits or at a hyphen: "mini-b" → mini, b; "xr12" → xr, 12. */
const designatorSegments = (word: string): string[] => word.toLowerCase().match(/\p{L}+|\p{N}+/gu) ?? [];

/** A word without a privative ending or beginning ("cordless" → cord, "unglazed" → glaz), and whether it had one. */
function privative(word: string): { base: string; lacks: boolean } {
  const w = word.toLowerCase();
  const lacks = /less$/.test(w) || /^(?:un|non-?)\p{L}{4}/u.test(w);
  // "fused" and "fuseless" share "fus": a base is compared without its endings and a last "e".
  const base = w
    .replace(/less$/, '')
    .replace(/^(?:un|non-?)(?=\p{L}{4})/u, '')
    .replace(/(?:ed|ing|s)$/, '')
    .replace(/e$/, '');
  return { base, lacks };
}

/**
 * Whether a word of the question and a word of a part's name name two variants of one thing, not
 * the same thing in other words: two designators of one family that differ ("mini-b" and "mini-c",
 * "XR12" and "XR15"), a word and its privative ("corded" and "cordless"), or opposites in the
 * dictionary ("narrow" and "wide"). Meaning hears such siblings as near as synonyms (two resistors
 * that differ only in such a word scored 0.88 on MiniLM), so without this the part the data lacks
 * is answered with its sibling.
 */
export function contrasting(asked: string, named: string, lexicon?: Lexicon): boolean {
  // The micro sign as the Latin letter, so "2.2µF" and "2.2uF" are one value.
  const a = asked.toLowerCase().replace(/[µμ]/gu, 'u');
  const b = named.toLowerCase().replace(/[µμ]/gu, 'u');
  if (a === b || pluralVariants(a).includes(b)) return false;
  // Words of the question's frame ("in", "on", "same") have opposites too, but name no variant.
  if (isPhraseBoundary(a) || isPhraseBoundary(b) || a.length < 3 || b.length < 3) return false;
  if (isDesignator(a) && isDesignator(b)) {
    const [x, y] = [designatorSegments(a), designatorSegments(b)];
    // A family is named by letters ("usb", "cr"); a code that starts with a number is a value
    // written one way or another ("4k7", "4.7k"), which the specs rule reads.
    if (!/^\p{L}{2,}$/u.test(x[0] ?? '')) return false;
    // One family ("mini", "xr") with another variant: a letter or two, or a number.
    const variant = (s: string) => s.length <= 2 || /^\p{N}+$/u.test(s);
    const differ = (i: number) => x[i] !== y[i] && variant(x[i] ?? '') && variant(y[i] ?? '');
    if (x.length === y.length && x.length > 1 && x[0] === y[0] && x.some((_, i) => i > 0 && differ(i))) return true;
  }
  const [p, q] = [privative(a), privative(b)];
  if (p.base.length >= 3 && p.base === q.base && p.lacks !== q.lacks) return true;
  return !!lexicon?.opposites?.(a, b);
}

/** Whether some word of the phrase and some word of the name are `contrasting` variants (hyphenated words also part by part). */
function contrastsWithName(phraseWords: readonly string[], name: string, lexicon?: Lexicon): boolean {
  // A hyphenated word is also read part by part ("thin-film"), but not a designator or a word
  // with a privative beginning ("non-shielded" is no "shielded").
  const pieces = (w: string) => (isDesignator(w) || /^non-/.test(w) ? [w] : [w, ...w.split('-').filter(Boolean)]);
  const nameWords = name.toLowerCase().split(/\s+/).flatMap(pieces);
  const phrase = phraseWords.map((w) => w.toLowerCase()).flatMap(pieces);
  const asked = phrase.filter((w) => !nameWords.includes(w));
  const unasked = nameWords.filter((w) => !phrase.includes(w));
  return asked.some((a) => unasked.some((n) => contrasting(a, n, lexicon)));
}

/**
 * A number and its unit written apart ("868 MHz", "12 V", "3 W") joined as the data writes them
 * ("868MHz"), where the data has the joined word: a spec is one word of a description, and its
 * number alone matches any value that holds those digits.
 */
export function specsAsWritten(phrase: string, dataHas: (word: string) => boolean): string {
  // A spec written joined with the micro sign ("10µF"), as the data types it ("10uF").
  const latin = phrase.replace(
    /(?<![\w.,])(\d+(?:[.,]\d+)?)[µμ](\p{L}{1,3})(?![\w-])/gu,
    (whole, n: string, unit: string) => (dataHas(`${n}u${unit}`.toLowerCase()) ? `${n}u${unit}` : whole),
  );
  return latin.replace(
    /(?<![\w.,])(\d+(?:[.,]\d+)?) ([a-zµμΩ]{1,12})(?![\w-])/giu,
    (whole, n: string, unit: string) => {
      // The unit as asked, or its symbol where it is spelt out ("4.3 inch" → "4.3in"), or with
      // the micro sign in the Latin letter data sheets type for it ("µH" → "uH").
      const forms = [unit, UNIT_SYMBOLS[unit.toLowerCase()], unit.replace(/^[µμ]/u, 'u')].filter(
        (u): u is string => !!u,
      );
      const joined = forms.map((u) => `${n}${u}`).find((w) => dataHas(w.toLowerCase()));
      return joined ?? whole;
    },
  );
}

/** Units spelt out, by the symbols data sheets write them with. */
const UNIT_SYMBOLS: Readonly<Record<string, string>> = {
  inch: 'in',
  inches: 'in',
  millimetre: 'mm',
  millimetres: 'mm',
  millimeter: 'mm',
  millimeters: 'mm',
  centimetre: 'cm',
  centimetres: 'cm',
  centimeter: 'cm',
  centimeters: 'cm',
  metre: 'm',
  metres: 'm',
  meter: 'm',
  meters: 'm',
  volt: 'v',
  volts: 'v',
  amp: 'a',
  amps: 'a',
  ampere: 'a',
  amperes: 'a',
  milliamp: 'ma',
  milliamps: 'ma',
  watt: 'w',
  watts: 'w',
  hertz: 'hz',
  kilohertz: 'khz',
  megahertz: 'mhz',
  gigahertz: 'ghz',
  farad: 'f',
  microfarad: 'uf',
  microfarads: 'uf',
  nanofarad: 'nf',
  nanofarads: 'nf',
  picofarad: 'pf',
  picofarads: 'pf',
  gram: 'g',
  grams: 'g',
  kilogram: 'kg',
  kilograms: 'kg',
};

/**
 * How a phrase relates to a part by the dictionary: the strongest relation between the phrase,
 * whole, and the part's name, its last word (its head) or its kind. The phrase is never cut to its
 * head: the word before it may be what makes it the part ("quartz resonator" is a crystal, a
 * resonator alone is not). Unknown when the dictionary knows none of the pairs; different only
 * when it knows them and all are different.
 */
export function nounRelation(lexicon: Lexicon, phrase: string, part: PartName): NounRelation {
  const heads = (t: string | undefined) => (t ? [t, t.split(/[\s_-]+/).at(-1)!] : []);
  const phraseNouns = [phrase];
  const partNouns = [...new Set([...heads(part.name), ...heads(part.context)])];
  const rank: Record<NounRelation, number> = { same: 3, kind: 2, unknown: 1, different: 0 };
  let best: NounRelation | undefined;
  for (const a of phraseNouns)
    for (const b of partNouns) {
      const r = lexicon.relation(a, b);
      if (r === 'unknown') continue;
      if (!best || rank[r] > rank[best]) best = r;
    }
  return best ?? 'unknown';
}

/** Two names are nested when one's words hold the other's ("oled display" and "display"): kinds of one thing. */
function nested(a: string, b: string): boolean {
  const x = wordSet(a);
  const y = wordSet(b);
  return [...x].every((w) => y.has(w)) || [...y].every((w) => x.has(w));
}

const nameTokens = (text: string) =>
  text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
/** Words that join a thing's name to what it is for or goes with. */
const LINKING_WORDS = new Set(['for', 'of', 'to', 'with', 'and', 'or', 'in', 'on', 'from', 'by']);
/** A word's plural and singular forms, kept: the same few words are compared many times over. */
const formsKept = new Map<string, string[]>();
const formsOf = (word: string) => {
  let forms = formsKept.get(word);
  if (!forms) {
    if (formsKept.size >= 10_000) formsKept.clear();
    formsKept.set(word, (forms = pluralVariants(word)));
  }
  return forms;
};
const sameWord = (a: string | undefined, b: string | undefined) =>
  a !== undefined && b !== undefined && (a === b || formsOf(a).includes(b) || formsOf(b).includes(a));
/** Where the phrase's words start, in order, among a name's words. */
function phraseAt(tokens: readonly string[], phrase: readonly string[]): number[] {
  const at: number[] = [];
  for (let i = 0; i + phrase.length <= tokens.length; i++)
    if (phrase.every((w, k) => sameWord(tokens[i + k], w))) at.push(i);
  return at;
}

/**
 * The products whose names hold a phrase that names nothing else: every other name holding it
 * holds it inside a product's name ("Battery module for Portable Speaker" holds "speaker" in
 * "Portable Speaker", the name of the product "Portable Speaker Gen 2": the phrase's words and at
 * least one more, or the product's whole name). Null when some name uses the phrase on its own
 * ("Main controller board for X" holds "controller" in "main controller board", not inside a
 * product's name): the phrase then names a part or an assembly.
 */
export function productsNamedBy(
  phrase: string,
  holders: readonly string[],
  products: readonly string[],
): string[] | null {
  const words = nameTokens(phrase);
  if (!words.length) return null;
  const named = products
    .map((display) => {
      const tokens = nameTokens(display);
      return { display, tokens, at: phraseAt(tokens, words) };
    })
    .filter((p) => p.at.length > 0);
  if (!named.length) return null;
  const productNames = new Set(products.map((p) => p.toLowerCase()));
  const insideProductName = (tokens: string[], i: number) =>
    named.some((p) =>
      p.at.some((j) => {
        let shared = words.length;
        for (let a = 1; sameWord(tokens[i - a], p.tokens[j - a]); a++) shared++;
        for (let a = 0; sameWord(tokens[i + words.length + a], p.tokens[j + words.length + a]); a++) shared++;
        if (shared > words.length) return true;
        // The product's whole name and nothing more (a name of one word): the product's only where
        // the name says it as what the thing is for ("base plate for pump") or before its own head
        // ("pump housing"); as its own head it names a thing of that kind ("pump for espresso
        // machine" is a pump).
        if (shared < p.tokens.length) return false;
        const before = tokens[i - 1];
        const after = tokens[i + words.length];
        return (
          (before !== undefined && LINKING_WORDS.has(before)) || (after !== undefined && !LINKING_WORDS.has(after))
        );
      }),
    );
  for (const holder of holders) {
    if (productNames.has(holder.toLowerCase())) continue;
    const tokens = nameTokens(holder);
    if (phraseAt(tokens, words).some((i) => !insideProductName(tokens, i))) return null;
  }
  return named.map((p) => p.display);
}

/** A phrase that grounds on no part: the reading kept, its level and columns emptied. */
const notGrounded = (reading: GroundedConcept, asked: string): GroundedConcept => ({
  ...reading,
  level: null,
  columns: { 1: [], 2: [], 3: [] },
  example: null,
  any_order: undefined,
  asked,
});

/** The words some names all start with, in order ("" when they share none). */
export function sharedStart(names: readonly string[]): string {
  if (names.length === 0) return '';
  const split = names.map((n) => n.split(/\s+/));
  const out: string[] = [];
  for (let i = 0; split.every((w) => i < w.length && w[i] === split[0][i]); i++) out.push(split[0][i]);
  return out.join(' ');
}

/** `nameHolds` for each part of a hyphenated word ("low-noise" in "low-noise amplifier"). */
function nameHoldsParts(name: string, word: string): boolean {
  const parts = word.split(/[\s_-]+/).filter(Boolean);
  return parts.length > 0 && parts.every((part) => nameHolds(name, part));
}

/**
 * Whether a word, as usually meant, names no thing a BOM could hold but a state, an event, an
 * amount or a message about one ("a valve shortage", "the pump recall", "a price rise"): the
 * dictionary files its most frequent sense under one of NO_THING_KINDS, and none of its senses
 * under THING_KINDS. Meaning alone moves such a phrase well away from the part, as a word naming
 * another part would ("fuse holders"); the dictionary tells the two apart. Acts stay ("battery
 * management" may name a part of its own), and so does a word the dictionary lacks. With `acts`,
 * an act or a judgement counts too ("a redesign", "a review"): what a question says must be done.
 */
export function namesNoThing(lexicon: Lexicon | undefined, word: string, { acts = false } = {}): boolean {
  const kinds = lexicon?.senseKinds?.(word) ?? [];
  const kind = kinds[0];
  if (kind === undefined || !(NO_THING_KINDS.has(kind) || (acts && (kind === 'act' || kind === 'cognition'))))
    return false;
  // No sense of it may be a thing: "spring" (a season first, a coil too), "lead" (a wire), "relay"
  // (a switch) name parts as the last word of a part's name.
  return !kinds.some((k) => THING_KINDS.has(k));
}

/** Kinds of sense that are messages and ideas, not what happens to a part. */
const IDEA_KINDS: ReadonlySet<string> = new Set(['communication', 'cognition']);

/** The dictionary's kinds of sense that are physical things (`namesNoThing`). */
const THING_KINDS: ReadonlySet<string> = new Set([
  'artifact',
  'object',
  'substance',
  'body',
  'animal',
  'plant',
  'food',
]);

/** The dictionary's kinds of sense that name no physical thing and no act (see `namesNoThing`). */
const NO_THING_KINDS: ReadonlySet<string> = new Set([
  'attribute',
  'state',
  'event',
  'time',
  'quantity',
  'possession',
  'communication',
]);

/** How a phrase is grounded: as a scene's, or as what a verb of use holds (`ParsedBomQuestion.contained`). */
export interface GroundOptions {
  scene?: boolean;
  contained?: boolean;
}

/**
 * Grounds a part phrase in the warehouse's own values, the same way whichever model proposed it:
 *
 * 1. by its words (`Vocabulary.groundWithCorrection`: as a value, as words in order, respelt, or
 *    the part inside a clause);
 * 2. without a generic head noun ("memory chips" → "memory", "protection devices" → "protection");
 * 3. its words on one item in any order;
 * 4. by meaning, against the names of the parts the data holds (`partNames` of the leaf items):
 *    words the data does not use must point at one part clearly ("haptic motor" → the vibration
 *    motor; "screen" → DISPLAY), never just at the kind the other words name ("gold battery"
 *    is no battery of the data);
 * 5. otherwise it is missing: the words nothing means, and the nearest parts by meaning.
 */
export class Grounder {
  constructor(
    readonly vocabulary: Vocabulary,
    private readonly meaning?: Meaning,
    private readonly names: readonly PartName[] = [],
    /** The names of the items the BOMs end in (no BOM uses them): what the firm sells. */
    private readonly products: readonly string[] = [],
    /** A dictionary of nouns, to tell a synonym from a neighbour (backends/lexicon). */
    private readonly lexicon?: Lexicon,
  ) {
    if (names.length) vocabulary.spellWith(names.flatMap((n) => tokenizeBomQuestion(n.name)));
    if (meaning?.isWord) vocabulary.knowLanguage((w) => meaning.isWord!(w));
    // What happens to a part: an act, an event, a state; not a message or an idea ("the crystal
    // reference shortage" may be about a part the data lacks).
    if (lexicon?.senseKinds) {
      vocabulary.knowSituationWords(
        (w) => namesNoThing(lexicon, w, { acts: true }) && !IDEA_KINDS.has(lexicon.senseKinds!(w)[0] ?? ''),
      );
      vocabulary.knowThingWords((w) =>
        namesNoThing(lexicon, w)
          ? 'no-thing'
          : (lexicon.senseKinds!(w) ?? []).some((k) => THING_KINDS.has(k))
            ? 'thing'
            : 'unknown',
      );
    }
  }

  /**
   * Whether a word between two parts can link them: a function word ("as", "a"), or a word of the
   * language the dictionary holds no noun for ("beside", "alongside"). A noun ("patch") or a
   * word of no language (a maker's name) is part of one name.
   */
  private links(word: string): boolean {
    if (isStopWord(word)) return true;
    return !!this.lexicon && !this.lexicon.knows(word) && !!this.meaning?.isWord?.(word);
  }

  /**
   * Parts named side by side in one phrase, joined by words that are no conjunction the question
   * reader splits at ("a stepper motor as well as a fuse", "the probe alongside a valve"): each
   * part a run that grounds whole as words of parts' names, the words left over only between two
   * parts. Null when the phrase grounds whole, or names fewer than two parts that way: a word
   * before or after the only part ("LED drivers") keeps the phrase whole.
   */
  sideBySide(phrase: string): string[] | null {
    const whole = this.vocabulary.ground(phrase);
    if (whole.level !== null && (!whole.any_order || this.vocabulary.holdsTogether(phrase.split(/\s+/)))) return null;
    const words = phrase.toLowerCase().split(/\s+/).filter(Boolean);
    const isPart = (span: string[]) => {
      if (isPhraseBoundary(span[0]) || isPhraseBoundary(span[span.length - 1])) return false;
      const g = this.vocabulary.ground(span.join(' '));
      if (g.level === null || g.level > 2) return false;
      // Out of order, the words must meet in one value and hold no word of the clause between them.
      if (g.any_order && (!this.vocabulary.holdsTogether(span) || span.some((w) => isPhraseBoundary(w)))) return false;
      const named = span.filter((w) => !isStopWord(w) && !/\d/.test(w));
      return named.length > 0 && named.every((w) => this.names.some((n) => nameHoldsParts(n.name, w)));
    };
    const parts: string[] = [];
    // Whether content words came before the first part, or since the last one.
    let lead = false;
    let trailing = false;
    let gap: number | null = null;
    let linked = false;
    for (let i = 0; i < words.length;) {
      let end = -1;
      for (let j = words.length; j > i; j--)
        if (isPart(words.slice(i, j))) {
          end = j;
          break;
        }
      if (end < 0) {
        if (parts.length === 0 && !isPhraseBoundary(words[i])) lead = true;
        if (parts.length) gap = (gap ?? 0) + 1;
        if (parts.length && this.links(words[i])) linked = true;
        if (parts.length && !isPhraseBoundary(words[i])) trailing = true;
        i++;
        continue;
      }
      // Two parts with nothing between them are one name the data does not hold ("glass pumps"),
      // and so are two with only content words between them ("gear pump brass pressure
      // transducer"): what links two things named side by side holds a function word ("as well
      // as a", "alongside the").
      if (parts.length && (!gap || !linked)) return null;
      parts.push(words.slice(i, end).join(' '));
      gap = 0;
      linked = false;
      trailing = false;
      i = end;
    }
    // Words after the last part describe it (a head noun the data lacks): no split.
    if (lead || trailing || parts.length < 2) return null;
    return parts;
  }

  async ground(phrase: string, options: GroundOptions = {}): Promise<GroundedConcept> {
    const grounded = await this.groundPhrase(phrase, options);
    // Matched inside descriptions (not a whole category value), and some part's name holds all
    // its words: only parts answer it.
    if (grounded.level === null || grounded.level < 2 || !this.names.length) return grounded;
    const words = grounded.term.split(/\s+/).filter((w) => !isStopWord(w) && !/\d/.test(w));
    const named = words.length > 0 && this.names.some((n) => words.every((w) => nameHolds(n.name, w)));
    if (named) return { ...grounded, parts_only: true };
    // No part's name holds it: it may name the products themselves, which are no part of a BOM.
    if (grounded.any_order || !this.products.length) return grounded;
    const products = productsNamedBy(grounded.term, this.vocabulary.valuesHolding(grounded.term), this.products);
    return products ? { ...notGrounded(grounded, grounded.asked), names_products: products } : grounded;
  }

  private async groundPhrase(asked: string, options: GroundOptions): Promise<GroundedConcept> {
    const phrase = specsAsWritten(this.vocabulary.withoutColumnWords(asked), (w) => this.vocabulary.hasWord(w));
    const found = await this.groundClean(phrase, options);
    return phrase === asked || found.level === null ? found : { ...found, asked };
  }

  private async groundClean(phrase: string, options: GroundOptions): Promise<GroundedConcept> {
    const lexical = this.vocabulary.groundWithCorrection(phrase, options);
    if (lexical.level !== null && !lexical.any_order) return { ...lexical, via: 'words' };
    const runs = phraseRuns(phrase);
    for (const run of runs) {
      if (run.length < 2 || !isGenericHead(run[run.length - 1])) continue;
      // The qualifier must name parts, not only an assembly or a product ("GPS" of "GPS
      // Tracker" makes "GPS module" no part of the data).
      const words = run.slice(0, -1);
      // A hyphenated word ("wi-fi") by its parts: a name is split the same way.
      if (this.names.length && !words.every((w) => /\d/.test(w) || this.names.some((n) => nameHoldsParts(n.name, w))))
        continue;
      const qualifier = this.vocabulary.groundWithCorrection(words.join(' '));
      if (qualifier.level !== null) {
        const narrowed = await this.byHeadKind(run, words);
        if (narrowed && 'term' in narrowed) return { ...narrowed, asked: phrase };
        if (narrowed) return { ...notGrounded(qualifier, run.join(' ')), ...narrowed };
        return { ...qualifier, asked: phrase, via: 'qualifier' };
      }
    }
    // Its words on one item in any order ("10k resistor"): words of parts, not of an assembly's
    // or a product's name ("GPS module" is not "Battery module for GPS Tracker").
    const partWords = (g: GroundedConcept) =>
      !this.names.length ||
      g.term
        .split(/\s+/)
        // Specs ("100uF", "TO-92") are no part of a name: the vocabulary checked them already.
        .filter((w) => !isStopWord(w) && !/\d/.test(w))
        // A hyphenated word ("low-noise") by its parts: a name is split the same way.
        .every((w) => this.names.some((n) => nameHoldsParts(n.name, w)));
    if (lexical.level !== null && partWords(lexical)) return { ...lexical, via: 'words' };
    let best: GroundedConcept | undefined;
    // Meaning is judged on the run that names the part (after "of"/"on", else the longest) and
    // the longest other one: a long clause costs two judgements, not one per run.
    const named = namedRun(phrase);
    const abbreviated = this.byInitials(named);
    if (abbreviated) return { ...abbreviated, asked: phrase };
    const judged = [
      ...runs.filter((r) => r.join(' ') === named),
      ...[...runs].sort((a, b) => b.length - a.length).filter((r) => r.join(' ') !== named),
    ].slice(0, MAX_JUDGED_RUNS);
    for (const run of judged) {
      const decided = await this.byMeaning(run);
      if (decided && (!best || (decided.similarity ?? 0) > (best.similarity ?? 0))) best = decided;
    }
    if (best) return { ...best, asked: phrase };
    const trailing = await this.withoutTrailingWord(named, options);
    if (trailing) return { ...trailing, asked: phrase };
    const { unknown } = this.splitKnown(named.split(' ').filter((w) => !isPhraseBoundary(w)));
    return {
      ...notGrounded(lexical, named),
      unclear: unknown.length ? unknown : named.split(' '),
      nearest: await this.nearest(named),
    };
  }

  /**
   * A part the data names by its initials ("programmable logic controller" for the "PLC module"):
   * some words of the phrase, in order, spell a word the data writes in capitals in a part's name,
   * and the phrase's other words are in that name too or name a part in general ("chips"). Three
   * letters at least: shorter initials meet by chance.
   */
  private byInitials(phrase: string): GroundedConcept | null {
    if (this.names.length === 0) return null;
    const words = phrase
      .toLowerCase()
      .split(/\s+/)
      .filter((w) => w && !isPhraseBoundary(w));
    const letters = words.map((w) => (/^\p{L}/u.test(w) ? w[0] : ''));
    for (let length = words.length; length >= 3; length--) {
      for (let start = 0; start + length <= words.length; start++) {
        const initials = letters.slice(start, start + length).join('');
        if (initials.length !== length) continue;
        const rest = [...words.slice(0, start), ...words.slice(start + length)];
        const part = this.names.find(
          (n) =>
            n.display.split(/[\s_-]+/).includes(initials.toUpperCase()) &&
            rest.every((w) => isGenericHead(w) || nameHolds(n.name, w)),
        );
        if (!part) continue;
        const grounded = this.vocabulary.ground([initials, ...rest.filter((w) => !isGenericHead(w))].join(' '));
        if (grounded.level !== null && !grounded.any_order) return { ...grounded, via: 'meaning' };
      }
    }
    return null;
  }

  /**
   * A generic head after a qualifier that parts of several kinds hold ("speed chips": a speed
   * controller IC, a speed sensor, a speed knob): the head may still say which kind is meant (a
   * chip is an IC, not a knob). When the head pulls the phrase clearly towards one kind more than
   * towards any other (the pull is the phrase's similarity with the head minus the qualifier's
   * alone), the answer is that kind's parts holding the qualifier; a missing result says why.
   * When the head pulls towards no kind in particular ("speed parts"), every part holding the
   * qualifier is meant, as before; when it pulls only a little more towards one kind, the
   * phrase is not understood and the parts of each kind are offered: no confident guess.
   */
  private async byHeadKind(
    run: string[],
    words: string[],
  ): Promise<GroundedConcept | { unclear: string[]; nearest: string[] } | null> {
    if (!this.meaning || this.names.length === 0) return null;
    // Specs ("DDR4") are no words of a part's name: such a qualifier is judged by the values alone.
    if (words.some((w) => /\d/.test(w))) return null;
    const holders = this.names.filter((n) => !n.mixed && words.every((w) => nameHoldsParts(n.name, w)));
    const kindOf = (n: PartName) => n.context ?? n.name;
    // Kinds nested in each other ("power inductor" under "inductor") are one kind.
    const kinds: string[] = [];
    for (const n of holders) if (!kinds.some((k) => nested(k, kindOf(n)))) kinds.push(kindOf(n));
    if (kinds.length < 2) return null;
    const rich = holders.map((n) => (n.context && !nested(n.name, n.context) ? `${n.name} ${n.context}` : n.name));
    const [withHead, alone] = await Promise.all([
      this.meaning.similarities(run.join(' '), rich),
      this.meaning.similarities(words.join(' '), rich),
    ]);
    const kindIndex = holders.map((n) => kinds.findIndex((k) => nested(k, kindOf(n))));
    const pullOf = kinds.map((_, k) =>
      Math.max(-1, ...holders.map((_n, i) => (kindIndex[i] === k ? withHead[i] - alone[i] : -1))),
    );
    const top = pullOf.indexOf(Math.max(...pullOf));
    const rival = Math.max(-1, ...pullOf.filter((_, k) => k !== top));
    const gap = pullOf[top] - rival;
    const t = MEANING_THRESHOLDS;
    // The head adds nothing that tells the kinds apart: all of them are meant.
    if (pullOf[top] <= 0 || gap < t.headAmbiguous) return null;
    const ofTop = holders.filter((_n, i) => kindIndex[i] === top);
    if (gap >= t.headMargin) {
      // The kind itself when the data files parts under it, else what that kind's parts holding
      // the qualifier share: the words their names start with ("serial flash" of "serial flash
      // spi" and "serial flash qspi").
      const kindName = ofTop.find((n) => n.name === kinds[top])?.name ?? sharedStart(ofTop.map((n) => n.name));
      const named = kindName && words.every((w) => nameHoldsParts(kindName, w)) ? kindName : null;
      const grounded = named ? this.vocabulary.ground(named) : null;
      if (grounded && grounded.level !== null && grounded.level <= 2 && !grounded.any_order) {
        const score = Math.max(...holders.map((_n, i) => (kindIndex[i] === top ? withHead[i] : -1)));
        return { ...grounded, via: 'meaning', similarity: Math.round(score * 1000) / 1000 };
      }
      return null;
    }
    // Between the two: not understood, and the nearest of each kind are offered.
    const byKind = kinds
      .map((_, k) => ({ k, pull: pullOf[k] }))
      .sort((a, b) => b.pull - a.pull)
      .map(({ k }) => holders.find((_n, i) => kindIndex[i] === k)!.display);
    return { unclear: [run[run.length - 1]], nearest: byKind.slice(0, 5) };
  }

  /**
   * The part before a last word that names nothing ("current sense resistor please"): the data
   * never uses the word, the words before it ground as a phrase in order, and meaning finds the
   * phrase the same with or without it (`trailingFloor`). A word that changes the part ("fuse
   * holders") stays, and the phrase stays missing.
   */
  private async withoutTrailingWord(
    phrase: string,
    { contained = false }: GroundOptions = {},
  ): Promise<GroundedConcept | null> {
    const words = phrase.split(/\s+/).filter(Boolean);
    if (words.length < 2 || !this.meaning) return null;
    const last = words[words.length - 1];
    if (/\d/.test(last) || this.splitKnown([last]).known.length) return null;
    const rest = words.slice(0, -1).join(' ');
    const grounded = this.vocabulary.ground(rest);
    if (grounded.level === null || grounded.level > 2 || grounded.any_order) return null;
    const [similarity] = await this.meaning.similarities(phrase, [rest]);
    // A last word the dictionary holds as one noun with the word before it ("power supply") is
    // part of a name, whatever the last word alone usually means.
    const compound = words.length >= 2 && !!this.lexicon?.knows(words.slice(-2).join(' '));
    // A word of the language the dictionary holds no noun for ("together", "only", "called") is
    // no part's name either: the question's frame ("X and Y together", "where is X only").
    const frame = !!this.meaning.isWord?.(last) && !!this.lexicon?.senseKinds && !this.lexicon.knows(last);
    // What a verb of use holds ("which boards use X Y") ends in the thing asked for: a last noun
    // there is never dropped, whatever it usually means ("a valve spring", "the pump manual").
    const situation = !contained && namesNoThing(this.lexicon, last);
    if (similarity < MEANING_THRESHOLDS.trailingFloor && (compound || !(situation || frame) || !this.oneKind(rest)))
      return null;
    // Left off by the dictionary, not found alike by meaning: the answer says so in those words.
    if (similarity < MEANING_THRESHOLDS.trailingFloor) return { ...grounded, via: 'situation' };
    return { ...grounded, via: 'meaning', similarity };
  }

  /**
   * Whether the parts whose names hold every word of the phrase are of one kind ("blind rivet"),
   * not a word several kinds share ("power": an inductor, a harness, an IC): only then does the
   * phrase name a part without the word dropped after it.
   */
  private oneKind(phrase: string): boolean {
    const words = phrase.split(/\s+/).filter((w) => w && !isStopWord(w) && !/\d/.test(w));
    const holders = this.names.filter((n) => words.every((w) => nameHoldsParts(n.name, w)));
    return holders.length > 0 && new Set(holders.map((n) => n.context ?? n.name)).size === 1;
  }

  /** The words the data uses (whole, inside a word, or inside an unknown compound) and the rest. */
  private splitKnown(words: string[]): { known: string[]; unknown: string[] } {
    const known: string[] = [];
    const unknown: string[] = [];
    // With the parts' names at hand, a word is known when a part's name holds it (not an
    // assembly's or a product's: "pump" of "Infusion Pump" names no part).
    const knows = (word: string) =>
      this.names.length ? this.names.some((n) => nameHolds(n.name, word)) : this.vocabulary.knows(word);
    for (const word of words) {
      if (knows(word)) {
        known.push(word);
        continue;
      }
      const inside = this.vocabulary.knownInside(word);
      if (!inside) {
        unknown.push(word);
        continue;
      }
      known.push(inside);
      const rest = word
        .replace(inside, ' ')
        .replace(/[\s_-]+/g, ' ')
        .trim();
      if (rest) unknown.push(rest);
    }
    return { known, unknown };
  }

  /** Step 4: the part a run of words means, or undefined when meaning is not clear enough. */
  private async byMeaning(run: string[]): Promise<GroundedConcept | undefined> {
    if (!this.meaning || this.names.length === 0) return undefined;
    const { known, unknown } = this.splitKnown(run);
    if (unknown.length === 0) return undefined;
    const names = this.names.map((n) => n.name);
    const text = run.join(' ');
    const t = MEANING_THRESHOLDS;
    let chosen: { name: string; score: number } | undefined;
    if (known.length) {
      // Only the parts the known words allow, and not the bare kind they name (that would drop
      // the unknown words): "haptic motor" may be a kind of motor, never every motor.
      const candidates = names.filter(
        (n) =>
          known.every((k) => nameHolds(n, k)) && !n.split(/[\s_-]+/).every((w) => known.some((k) => nameHolds(w, k))),
      );
      if (candidates.length === 0) return undefined;
      // The unknown words must pull the phrase towards one part more than towards any other (a
      // gold battery is pulled towards no battery in particular), and those words by
      // themselves must be close to that part, clearly more than to the others. Any word added to
      // a head moves the phrase a little away from the head alone, a true qualifier too; a
      // qualifier that moves it clearly away names another thing.
      const [withThem, withoutThem, themAlone] = await Promise.all([
        this.meaning.similarities(text, candidates),
        this.meaning.similarities(known.join(' '), candidates),
        this.meaning.similarities(unknown.join(' '), candidates),
      ]);
      const pull = candidates.map((_, i) => withThem[i] - withoutThem[i]);
      const top = pull.indexOf(Math.max(...pull));
      // Names that start with the same part's name and differ only in what follows (a material,
      // a package: "wing nut brass" and "wing nut steel") are one part, not rivals: its name is
      // what they share, when that says more than the known words do.
      const stemOf = (n: string) => {
        const stem = sharedStart([n, candidates[top]]);
        return stem.split(' ').length > known.length && known.every((k) => nameHolds(stem, k)) ? stem : null;
      };
      const samePart = (n: string, i: number) => i === top || nested(n, candidates[top]) || stemOf(n) !== null;
      const others = (scores: number[]) => Math.max(-1, ...candidates.map((n, i) => (samePart(n, i) ? -1 : scores[i])));
      if (
        pull[top] < -t.pullSlack ||
        pull[top] - others(pull) < t.pullMargin ||
        themAlone[top] < t.qualifierFloor ||
        themAlone[top] - others(themAlone) < t.qualifierMargin
      )
        return undefined;
      const group = candidates.filter((n, i) => i !== top && stemOf(n) !== null);
      const stem = group.length ? sharedStart([candidates[top], ...group]) : null;
      const whole = stem ? this.vocabulary.ground(stem) : null;
      chosen = {
        name: stem && whole && whole.level !== null && whole.level <= 2 && !whole.any_order ? stem : candidates[top],
        score: withThem[top],
      };
    } else {
      // Each name is judged as written and with its kind ("crystal" and "crystal oscillator"),
      // the closer of the two; its rivals are the names of other kinds (a kind's own parts and
      // the kind itself are one answer, not a doubt between two).
      const rich = this.names.map((n) => (n.context && !nested(n.name, n.context) ? `${n.name} ${n.context}` : n.name));
      const [plain, withKind] = await Promise.all([
        this.meaning.similarities(text, names),
        this.meaning.similarities(text, rich),
      ]);
      // A name the data files under several kinds (a maker) is no synonym of a part.
      const scores = plain.map((s, i) => (this.names[i].mixed ? -1 : Math.max(s, withKind[i])));
      const index = scores.indexOf(Math.max(...scores));
      const top = this.names[index];
      const kindOf = (n: PartName) => n.context ?? n.name;
      const sameKind = (n: PartName) =>
        nested(n.name, top.name) || kindOf(n) === kindOf(top) || nested(kindOf(n), kindOf(top));
      const rival = Math.max(-1, ...this.names.map((n, i) => (i === index || sameKind(n) ? -1 : scores[i])));
      const bySense = this.dictionarySynonym(text, scores);
      if (bySense) chosen = bySense;
      else {
        if (scores[index] < t.synonymFloor || scores[index] - rival < t.synonymMargin) return undefined;
        // Near in meaning is not the same thing: a gearbox sits beside a motor in every machine.
        // Where the dictionary knows both words and finds them different things, it is no synonym.
        if (this.lexicon && nounRelation(this.lexicon, text, top) === 'different') return undefined;
        chosen = { name: top.name, score: scores[index] };
      }
    }
    // A word of the phrase that names a sibling of a word of the part (a "corded" drill, a
    // "narrow" hinge) asks for another variant: the data lacks it, and the part is only its
    // neighbour.
    if (contrastsWithName(run, chosen.name, this.lexicon)) return undefined;
    // The phrase's specs the data writes ("48W" of "48W oscillating pump") stay with the part
    // meaning found: they must be on that part, or the phrase names a part the data lacks (every
    // such pump is no answer for the 48W ones).
    const specs = run.filter((w) => /\d/.test(w));
    const named = specs.length ? [...chosen.name.split(/\s+/), ...specs] : [];
    if (specs.length && !(specs.every((w) => this.vocabulary.hasWord(w)) && this.vocabulary.holdsTogether(named)))
      return undefined;
    const grounded = this.vocabulary.ground(specs.length ? named.join(' ') : chosen.name);
    if (grounded.level === null) return undefined;
    return { ...grounded, via: 'meaning', similarity: Math.round(chosen.score * 1000) / 1000 };
  }

  /**
   * The part a phrase names by another word for the same thing, by the dictionary (an "aerial" is
   * the ANTENNA; a "condenser" the capacitor), which MiniLM often scores below any floor that keeps
   * neighbours out. Taken when the parts sharing a sense with the phrase are of one kind, and
   * meaning does not place the phrase far from them (`dictionaryFloor`: a word has other senses).
   */
  private dictionarySynonym(text: string, scores: number[]): { name: string; score: number } | undefined {
    if (!this.lexicon) return undefined;
    const same = this.names
      .map((n, i) => ({ n, score: scores[i] }))
      .filter(({ n, score }) => score >= 0 && nounRelation(this.lexicon!, text, n) === 'same')
      .sort((a, b) => b.score - a.score);
    const best = same[0];
    if (!best || best.score < MEANING_THRESHOLDS.dictionaryFloor) return undefined;
    const kindOf = (n: PartName) => n.context ?? n.name;
    if (!same.every(({ n }) => nested(n.name, best.n.name) || kindOf(n) === kindOf(best.n))) return undefined;
    return { name: best.n.name, score: best.score };
  }

  /**
   * The parts nearest a phrase, for "did you mean": by meaning (the parts its known words allow
   * first), or without a model the values sharing its words. Never the most frequent values.
   */
  async nearest(phrase: string, max = 5): Promise<string[]> {
    if (!this.meaning || this.names.length === 0) return this.vocabulary.closest(phrase, max);
    const words = phrase.split(/\s+/).filter((w) => w && !isPhraseBoundary(w));
    const { known } = this.splitKnown(words);
    const names = this.names.map((n) => n.name);
    const scores = await this.meaning.similarities(phrase, names);
    const allowed = (n: string) => known.length > 0 && known.every((k) => nameHolds(n, k));
    // A maker (a value filed under several kinds) is no part to offer.
    const ranked = this.names
      .map((n, i) => ({ n, score: scores[i] }))
      .filter(({ n }) => !n.mixed)
      .sort((a, b) => b.score - a.score);
    // Words the data knows name a kind ("valves" of "whisper valves"): the parts of that kind
    // are the offer, all of them (up to twice as many), and nothing of another kind beside them.
    const ofKind = ranked.filter(({ n }) => allowed(n.name));
    return (ofKind.length ? ofKind.slice(0, 2 * max) : ranked.slice(0, max)).map(({ n }) => n.display);
  }
}

/**
 * The concepts to search for: the question's part phrases, checked against the focus terms the
 * model (or the fallback) gave. A question phrase is kept when a focus term overlaps it (the
 * model judged it content), and kept whole even when the term covers only some of its words (a
 * qualifier the model left out is not dropped). Focus terms that are in no question phrase (a
 * synonym the model supplied) are added. With no overlap at all, the question's phrases win.
 */
export function alignConcepts(questionPhrases: string[], focusTerms: string[], excluded: string[] = []): string[] {
  const wordsOf = (s: string) => s.toLowerCase().split(/\s+/).filter(Boolean);
  const overlaps = (a: string, b: string) =>
    wordsOf(a).some((w) => wordsOf(b).some((x) => pluralVariants(w).includes(x)));
  const kept = questionPhrases.filter((p) => focusTerms.some((t) => overlaps(p, t)));
  // A term of an excluded phrase ("but not Y") is not something to search for.
  const extra = focusTerms.filter(
    (t) => !questionPhrases.some((p) => overlaps(p, t)) && !excluded.some((e) => overlaps(e, t)),
  );
  const out = kept.length || extra.length ? [...kept, ...extra] : [...questionPhrases];
  return [...new Set(out.length ? out : focusTerms)];
}
