/**
 * Deterministic text helpers of the BOM flow: focus-term extraction (the model's fallback),
 * plural/singular variants for the regex strategy, value "shapes" for part numbers, and the
 * similarity used by query reuse.
 *
 * Pure functions with no I/O: imported by the workflow (fallbacks), the activities and the
 * stand-in rules alike.
 */
import { BOM_FRAME_WORDS } from './text';

/**
 * Part-number-like tokens: letters, a dash, digits (CMP-000123, FG-1001, SA-2003). Not global: a
 * shared RegExp with g or y keeps a position between calls (and is frozen when preloaded).
 */
const ITEM_NUMBER = /\b[A-Za-z]{1,6}-\d{2,8}\b/;
const everyItemNumber = () => new RegExp(ITEM_NUMBER.source, 'g');

/**
 * The part phrases a question asks about (`parseBomQuestion`), at most `max`: each phrase whole,
 * generic BOM words and the question's frame removed. The deterministic fallback of the
 * `bom.focus_terms` model step, and what the stand-in answers.
 */
export function extractFocusTerms(question: string, max = 6): string[] {
  return parseBomQuestion(question)
    .concepts.filter((c) => !/^\d+$/.test(c))
    .slice(0, max);
}

/** True for words the flow treats as framing rather than content (used to clean model output). */
export function isStopWord(word: string): boolean {
  return BOM_FRAME_WORDS.has(word.toLowerCase());
}

const SIBILANT = /(s|x|z|ch|sh)$/;

/** The term with its plural and singular forms (English rules; extra forms are harmless in a regex). */
export function pluralVariants(term: string): string[] {
  const t = term.toLowerCase();
  const out = new Set<string>([t]);
  if (!/[a-z]$/.test(t)) return [...out];
  if (t.endsWith('ies') && t.length > 4) out.add(`${t.slice(0, -3)}y`);
  else if (t.endsWith('es') && t.length > 3) {
    out.add(t.slice(0, -2));
    out.add(t.slice(0, -1));
  } else if (t.endsWith('s') && !t.endsWith('ss') && t.length > 2) out.add(t.slice(0, -1));
  else if (/[^aeiou]y$/.test(t)) out.add(`${t.slice(0, -1)}ies`);
  else if (SIBILANT.test(t)) out.add(`${t}es`);
  else out.add(`${t}s`);
  return [...out];
}

/** The "shape" of a value: letters become A, digits 9 (CMP-000123 → AAA-999999). */
export function valueShape(value: string): string {
  return value.replace(/\p{L}/gu, 'A').replace(/\p{N}/gu, '9');
}

/** True when a term looks like an identifier (has a digit and a letter), so shape matching applies. */
export function isIdentifierLike(term: string): boolean {
  return /\d/.test(term) && /\p{L}/u.test(term) && !/\s/.test(term);
}

/** Normalised tokens for similarity: part numbers become the slot <item>, plurals are folded. */
export function similarityTokens(text: string): string[] {
  return text
    .replace(everyItemNumber(), ' <item> ')
    .toLowerCase()
    .split(/[^a-z0-9<>]+/)
    .filter((t) => t.length > 0)
    .map((t) => (t === '<item>' ? t : t.length > 3 && t.endsWith('s') && !t.endsWith('ss') ? t.slice(0, -1) : t));
}

/** Cosine similarity of two token bags, 0..1. */
export function cosineSimilarity(a: string[], b: string[]): number {
  if (a.length === 0 || b.length === 0) return 0;
  const count = (tokens: string[]) => tokens.reduce((m, t) => m.set(t, (m.get(t) ?? 0) + 1), new Map<string, number>());
  const ca = count(a);
  const cb = count(b);
  let dot = 0;
  for (const [t, n] of ca) dot += n * (cb.get(t) ?? 0);
  const norm = (m: Map<string, number>) => Math.sqrt([...m.values()].reduce((s, n) => s + n * n, 0));
  return Math.min(1, dot / (norm(ca) * norm(cb)));
}

/** The question's part numbers, upper-cased, in order of appearance, without duplicates. */
export function itemNumbersIn(text: string): string[] {
  return [...new Set((text.match(everyItemNumber()) ?? []).map((m) => m.toUpperCase()))];
}

/** How the question's part phrases combine: "A or B" is either, "A and B" needs both on one BOM. */
export type ConceptMatch = 'any' | 'all';
/** `direct`: the BOMs whose own lines use the part; `top_level`: the top-level items that contain it at any depth. */
export type WhereUsedScope = 'direct' | 'top_level';

export interface ParsedBomQuestion {
  /** The part phrases, one per concept, in question order (e.g. ["tantalum capacitors", "crystal"]). */
  concepts: string[];
  /** The whole object of the question when it holds a conjunction ("temperature and humidity sensors"). */
  whole: string | null;
  match: ConceptMatch;
  scope: WhereUsedScope;
  /** The kind of BOM asked about ("finished goods" in "Which finished goods contain X?"), or null. */
  subject: string | null;
}

/** Words that open a question or list request before its subject: "Which of our …", "Show me the …". */
const OPENERS = new Set(
  (
    'which what where who in on for of list show find give tell name get me us all ' +
    'every each any the a an our my your some do does did are is that those these ' +
    'there please'
  ).split(' '),
);

/** Adverbs of the question's frame that may sit between the subject and its verb. */
const FRAME_ADVERBS = new Set(
  'ultimately indirectly directly actually currently still also really all both we you they i'.split(' '),
);

/** Verbs (and prepositions) after which the question names what is used: "Which boards use X". */
const ACTIVE_PIVOTS = new Set(
  (
    'use uses using contain contains containing include includes including ' +
    'incorporate incorporates incorporating need needs ' +
    'needing require requires requiring take takes have has having with carry carries ' +
    'carrying feature features featuring ' +
    'employ employs depend depends rely relies consume consumes call calls calling'
  ).split(' '),
);
/** Participles of the passive frame: "Where are X used?", "In which products is X found?". */
const PASSIVE_PIVOTS = new Set(
  'used contained included needed required found fitted installed incorporated featured employed consumed'.split(' '),
);
const AUXILIARIES = new Set('is are was were be been gets get'.split(' '));
/** Words that join part phrases; "and"-like ones mean every phrase must be on the BOM. */
const OR_WORDS = new Set(['or', 'nor', '/', 'and/or']);
const AND_WORDS = new Set(['and', '&', 'plus']);
/** Phrases that ask for the top-level items containing a part at any depth (indented where-used). */
const TOP_LEVEL_PHRASES = [
  'ultimately',
  'indirectly',
  'any level',
  'all levels',
  'every level',
  'any depth',
  'multi-level',
  'multilevel',
  'indented',
  'through subassemblies',
  'through a subassembly',
  'via subassemblies',
  'top-level',
  'top level',
  'end products',
  'end product',
  'finished goods',
  'finished good',
  'finished products',
  'finished product',
  'products',
  'product',
];

/** Tokens for parsing: words as `tokenizeBomQuestion` reads them, plus the separators "," "&" "/". */
function parseTokens(text: string): string[] {
  const tokens: string[] = [];
  const re = /[A-Za-z]{1,6}-\d{2,8}|[\p{L}\p{N}](?:[\p{L}\p{N}+_-]|\.(?=\p{N}))*|[,&/;]/gu;
  // The possessive-free text once, not once per token (that was quadratic in the question).
  const plain = text.replace(/['’]s\b/g, '');
  for (let m = re.exec(plain); m; m = re.exec(plain)) {
    tokens.push(m[0].toLowerCase().replace(/(?<![-_])[-_]+$/, ''));
  }
  return tokens.filter((t) => t.length > 0);
}

function trimStopWords(words: string[]): string[] {
  let start = 0;
  let end = words.length;
  const skip = (w: string) => BOM_FRAME_WORDS.has(w) || /^[,&/;]$/.test(w) || (w.length < 2 && !/\d/.test(w));
  while (start < end && skip(words[start])) start++;
  while (end > start && skip(words[end - 1])) end--;
  return words.slice(start, end);
}

/**
 * Reads a BOM question's structure: the subject ("Which boards …", "Which finished goods …") is
 * the kind of BOM asked about, not a part; the object (after "use", "contain", "with" …, or
 * between "are" and "used") holds the part phrases, split at "or"/"and"/",". Each phrase stays
 * whole ("tantalum capacitors" is one concept); the column resolver grounds it in the warehouse.
 */
export function parseBomQuestion(question: string): ParsedBomQuestion {
  const lower = ` ${question
    .toLowerCase()
    .replace(/[?!.]+/g, ' ')
    .replace(/\s+/g, ' ')} `;
  const scope: WhereUsedScope = TOP_LEVEL_PHRASES.some((p) => lower.includes(` ${p} `) || lower.includes(` ${p},`))
    ? 'top_level'
    : 'direct';
  const tokens = parseTokens(question);
  const active = tokens.findIndex((t) => ACTIVE_PIVOTS.has(t));
  const passive = tokens.findIndex(
    (t, i) => PASSIVE_PIVOTS.has(t) && tokens.slice(0, i).some((w) => AUXILIARIES.has(w)),
  );
  let object: string[];
  let subjectWords: string[] = [];
  if (passive >= 0 && (active < 0 || passive < active)) {
    const aux = tokens.slice(0, passive).reduce((last, w, i) => (AUXILIARIES.has(w) ? i : last), -1);
    object = tokens.slice(aux + 1, passive);
    subjectWords = tokens.slice(0, Math.max(0, aux));
  } else if (active >= 0) {
    object = tokens.slice(active + 1);
    subjectWords = tokens.slice(0, active);
  } else {
    object = tokens;
  }
  const subjectStart = subjectWords.findIndex((w) => !OPENERS.has(w));
  const subjectEnd =
    subjectWords.length - [...subjectWords].reverse().findIndex((w) => !OPENERS.has(w) && !AUXILIARIES.has(w));
  const subject =
    subjectStart >= 0
      ? subjectWords
          .slice(subjectStart, subjectEnd)
          .filter((w) => !FRAME_ADVERBS.has(w))
          .join(' ') || null
      : null;
  // Words of the top-level frame inside the object ("at any level", "through subassemblies") go.
  const objectText = ` ${object.join(' ')} `;
  let cleaned = objectText;
  for (const p of TOP_LEVEL_PHRASES) cleaned = cleaned.split(` ${p} `).join(' ');
  object = cleaned.trim().split(' ').filter(Boolean);

  const chunks: string[][] = [[]];
  let sawAnd = false;
  let sawOr = false;
  for (const word of object) {
    if (OR_WORDS.has(word) || AND_WORDS.has(word) || word === ',' || word === ';') {
      if (OR_WORDS.has(word)) sawOr = true;
      if (AND_WORDS.has(word)) sawAnd = true;
      chunks.push([]);
    } else {
      chunks[chunks.length - 1].push(word);
    }
  }
  if (object.includes('both')) sawAnd = true;
  const concepts: string[] = [];
  for (const chunk of chunks) {
    // A longer run is cut; grounding looks for the part named inside it.
    const phrase = cutPhrase(trimStopWords(chunk));
    if (phrase && !concepts.includes(phrase)) concepts.push(phrase);
  }
  const wholeWords = trimStopWords(object.filter((w) => w !== ','));
  const whole = chunks.length > 1 && wholeWords.length > 0 ? cutPhrase(wholeWords) : null;
  return { concepts, whole, match: sawAnd && !sawOr ? 'all' : 'any', scope, subject };
}

/**
 * At most 16 words and 160 characters, cut at a word boundary: long enough to keep a part named
 * at the end of a clause ("… if we lost our supplier of vibration motors"), which grounding finds.
 */
function cutPhrase(words: string[]): string {
  let out = '';
  for (const word of words.slice(0, 16)) {
    const next = out ? `${out} ${word}` : word;
    if (next.length > 160) break;
    out = next;
  }
  return out || (words[0] ?? '').slice(0, 100);
}

/** Every word's plural/singular forms, in order: the per-word alternatives of a phrase. */
export function phraseWordVariants(phrase: string): string[][] {
  return phrase
    .toLowerCase()
    .split(/\s+/)
    .filter(Boolean)
    .map((word) => pluralVariants(word));
}

/** Escapes RE2/JS regex metacharacters. */
function escapeForRegex(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&');
}

/**
 * A phrase as one regex alternative: each word in its plural/singular forms, the words in order,
 * separated by spaces, "_" or "-" (so "memory ics" matches MEMORY IC and "power ics" POWER_IC).
 */
export function phraseRegexAlternative(phrase: string): string {
  const words = phraseWordVariants(phrase).map((variants) => variants.map(escapeForRegex));
  if (words.length === 1) return words[0].join('|');
  return words.map((variants) => (variants.length === 1 ? variants[0] : `(?:${variants.join('|')})`)).join('[\\s_-]+');
}

/**
 * One word as a regex on its own, for a phrase whose words are all in a value but not in order
 * ("25MHz crystal" in "Crystal 25MHz 18pF"): a word in its plural/singular forms as a whole word;
 * a spec with digits at the start of a word ("m3" in "M3x10").
 */
export function wordRegex(word: string): string {
  const w = word.toLowerCase();
  if (/\d/.test(w)) return `(?i)\\b${escapeForRegex(w)}`;
  return `(?i)\\b(${pluralVariants(w).map(escapeForRegex).join('|')})\\b`;
}

/** The values a column must equal for an exact match: the phrase, singular/plural per word, " " or "_". */
export function exactForms(phrase: string, max = 16): string[] {
  let forms: string[] = [''];
  for (const variants of phraseWordVariants(phrase)) {
    forms = forms.flatMap((f) => variants.map((v) => (f ? `${f} ${v}` : v))).slice(0, max);
  }
  const out = new Set<string>();
  for (const f of forms) {
    out.add(f);
    if (f.includes(' ')) out.add(f.replace(/ /g, '_'));
  }
  return [...out];
}

/** Damerau-Levenshtein distance (adjacent transpositions count 1), bounded: returns > max early. */
export function editDistance(a: string, b: string, max = 3): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 0; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    let rowMin = Infinity;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
      rowMin = Math.min(rowMin, d[i][j]);
    }
    if (rowMin > max) return max + 1;
  }
  return d[a.length][b.length];
}
