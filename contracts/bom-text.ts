/**
 * Deterministic text helpers of the BOM flow: focus-term extraction (the model's fallback),
 * plural/singular variants for the regex strategy, value "shapes" for part numbers, and the
 * similarity used by query reuse.
 *
 * Pure functions with no I/O: imported by the workflow (fallbacks), the activities and the
 * stand-in rules alike.
 */

/** Words that name the question's frame, not what to look for. */
const STOP_WORDS = new Set(
  (
    'a about all also an and any are as at be bill bills bom boms by can component components contain containing contains ' +
    'do does each every for from give has have how i in include includes including is it item items list lists material ' +
    'materials me need needs of on or part parts please product products show shows tell that the their them these this ' +
    'those to type types us use used uses using what where which who with within without you your one ones kind kinds ' +
    'find get having made make makes built there any assembly assemblies subassembly subassemblies'
  ).split(' '),
);

/** Part-number-like tokens: letters, a dash, digits (CMP-000123, FG-1001, SA-2003). */
export const ITEM_NUMBER = /\b[A-Za-z]{1,6}-\d{2,8}\b/g;

/** Lower-case words and part numbers of a question, in order. */
export function tokenize(text: string): string[] {
  const tokens: string[] = [];
  const re = /[A-Za-z]{1,6}-\d{2,8}|[\p{L}\p{N}][\p{L}\p{N}+_-]*/gu;
  for (let m = re.exec(text); m; m = re.exec(text)) tokens.push(m[0].toLowerCase().replace(/[-_]+$/, ''));
  return tokens.filter((t) => t.length > 0);
}

/**
 * The terms a question asks about: content words and part numbers, generic BOM words removed,
 * at most `max`. This is the deterministic fallback of the `bom.focus_terms` model step.
 */
export function extractFocusTerms(question: string, max = 6): string[] {
  const out: string[] = [];
  for (const token of tokenize(question)) {
    if (STOP_WORDS.has(token) || token.length < 2 || /^\d+$/.test(token)) continue;
    if (!out.includes(token)) out.push(token);
    if (out.length >= max) break;
  }
  return out;
}

/** True for words the flow treats as framing rather than content (used to clean model output). */
export function isStopWord(word: string): boolean {
  return STOP_WORDS.has(word.toLowerCase());
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
    .replace(ITEM_NUMBER, ' <item> ')
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
  return [...new Set((text.match(ITEM_NUMBER) ?? []).map((m) => m.toUpperCase()))];
}
