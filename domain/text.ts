/**
 * The text primitives every flow matches words with: stop-word lists, stemmers and tokenizers.
 *
 * The flows read different texts, so the lists and stemmers differ on purpose and stay separate,
 * each named for what it reads: a BOM question's frame words are part names elsewhere, a column
 * name's abbreviations mean nothing in an interview. Merging them would change answers; keeping
 * them here means a change to one is made, and seen, in one place.
 *
 * Pure and dependency-free: imported by workflow code, activities and the stand-in alike.
 */

// ---------------------------------------------------------------------------------------------
// BOM questions.

/** Words that name the question's frame, not what to look for. */
export const BOM_FRAME_WORDS: ReadonlySet<string> = new Set(
  (
    'a about all also an and any are as at be bill bills bom boms by can component ' +
    'components contain containing contains ' +
    'do does each every for from give has have how i in include includes including is ' +
    'it item items list lists material ' +
    'materials me need needs of on or part parts please product products show shows ' +
    'tell that the their them these this ' +
    'those to type types us use used uses using what where which who with within ' +
    'without you your one ones kind kinds sort sorts variety varieties ' +
    'find get having made make makes built there any assembly assemblies subassembly subassemblies ' +
    // Function words and adverbs of a question's frame (never part names).
    'we our my they it its was were been being am currently still actually ever ' +
    'anywhere somewhere directly indirectly ' +
    'ultimately either both neither plus whether some than then when whose whom into onto upon via per so just only ' +
    'depend depends rely relies carry carries carrying feature features featuring ' +
    'employ employs incorporate incorporates ' +
    'incorporating require requires requiring needing take takes taking contained ' +
    'included needed required found fitted ' +
    'installed incorporated featured employed level levels end top top-level finished goods good ' +
    // Frame words around the part: "tantalum capacitor where-used", "X appears", "a motor inside".
    'where-used appear appears appearing occur occurs occurring inside onboard internally today now'
  ).split(' '),
);

/** Lower-case words and part numbers of a question, in order. */
export function tokenizeBomQuestion(text: string): string[] {
  const tokens: string[] = [];
  const re = /[A-Za-z]{1,6}-\d{2,8}|[\p{L}\p{N}](?:[\p{L}\p{N}+_-]|\.(?=\p{N}))*/gu;
  for (let m = re.exec(text); m; m = re.exec(text)) tokens.push(m[0].toLowerCase().replace(/(?<![-_])[-_]+$/, ''));
  return tokens.filter((t) => t.length > 0);
}

// ---------------------------------------------------------------------------------------------
// General English: EADS interviews (the surrogate's retrieval and the stand-in's rules).

/** General English function words: the EADS surrogate's retrieval and the stand-in's EADS rules. */
export const GENERAL_STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a an and are as at be but by can could do does did for from has have how i if in ' +
    'into is it its me my no not of on or our so such than that the their them then ' +
    'there these they this to us was we what when where which who why will with would ' +
    'you your about any all also each every just more most much some very well been ' +
    'being per one two'
  ).split(' '),
);

/** A crude stemmer: enough for "scheduled" ~ "schedule" and "batches" ~ "batch". */
export function stemCrude(word: string): string {
  let w = word;
  if (w.length > 5 && w.endsWith('ies')) w = `${w.slice(0, -3)}y`;
  else if (w.length > 5 && w.endsWith('ing')) w = w.slice(0, -3);
  else if (w.length > 4 && w.endsWith('ed')) w = w.slice(0, -2);
  else if (w.length > 4 && /(ch|sh|x|ss)es$/.test(w)) w = w.slice(0, -2);
  else if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss')) w = w.slice(0, -1);
  if (w.length > 4 && w.endsWith('e')) w = w.slice(0, -1);
  if (w.length > 3 && /([b-df-hj-np-tv-z])\1$/.test(w) && !w.endsWith('ss') && !w.endsWith('ll')) w = w.slice(0, -1);
  return w;
}

/** Lower-cased, stemmed content words (stop words and one-letter tokens dropped). */
export function contentTokens(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 1 && !GENERAL_STOP_WORDS.has(w))
    .map(stemCrude);
}

/** How many distinct tokens of `a` are in `b`. */
export function overlapCount(a: Iterable<string>, b: Iterable<string>): number {
  const set = new Set(b);
  let n = 0;
  for (const t of new Set(a)) if (set.has(t)) n++;
  return n;
}

/** The distinct tokens two lists share, as a fraction of both (their cosine as sets): 0 to 1. */
export function overlapShare(a: Iterable<string>, b: Iterable<string>): number {
  const x = new Set(a);
  const y = new Set(b);
  return x.size && y.size ? overlapCount(x, y) / Math.sqrt(x.size * y.size) : 0;
}

// ---------------------------------------------------------------------------------------------
// Identifiers and column descriptions: catalog discovery.

/** Function words of column descriptions and PRPs (catalog discovery). */
export const COLUMN_STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a an and are as at be by for from has have in into is it its of on or per that ' +
    'the their this to was were which with within when where whether each every any ' +
    'all than then there these those both also only such via if not no e g eg ie'
  ).split(' '),
);

/** Irregular forms and common abbreviations in column names (general English, no domain's jargon). */
const IDENTIFIER_IRREGULAR: Record<string, string> = {
  won: 'win',
  wins: 'win',
  winning: 'win',
  lost: 'loss',
  losses: 'loss',
  pts: 'point',
  prob: 'probability',
  probabilities: 'probability',
  dt: 'date',
  ts: 'timestamp',
  abbr: 'abbreviation',
  num: 'number',
  qty: 'quantity',
  pct: 'percent',
  temp: 'temperature',
  yr: 'year',
  amt: 'amount',
  avg: 'average',
  desc: 'description',
};

/** Lower-case words of an identifier or a sentence: snake_case, camelCase and punctuation split. */
export function identifierWords(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 0 && !COLUMN_STOP_WORDS.has(w));
}

/** A light stemmer: enough to make "predicted", "prediction" and "predictions" meet. */
export function stemIdentifierWord(word: string): string {
  let w = IDENTIFIER_IRREGULAR[word] ?? word;
  if (w.length > 4 && w.endsWith('ies')) w = `${w.slice(0, -3)}y`;
  else if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss')) w = w.slice(0, -1);
  for (const suffix of ['ing', 'ion', 'ed']) {
    if (w.length > suffix.length + 3 && w.endsWith(suffix)) {
      w = w.slice(0, -suffix.length);
      break;
    }
  }
  if (w.length > 3 && w.endsWith('e')) w = w.slice(0, -1);
  return w;
}

// ---------------------------------------------------------------------------------------------
// Research questions and abstracts: the proposal rules.

/** Function words of research questions and abstracts (the proposal rules). */
export const PROPOSAL_STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'the and for with from into that this these those their there about over under ' +
    'between within without which what when where while how does do did are was were ' +
    'been being have has had not but can could should would will may might its our ' +
    'your his her them they you him she who whom why use using used via per than then ' +
    'also more most less such each other some any all one two three on in of to by as ' +
    'at or an a is be it we i'
  ).split(' '),
);

/** Plural to singular only: enough for topical matching of research terms. */
export function stemPlural(word: string): string {
  if (word.length > 5 && word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.length > 4 && word.endsWith('s') && !word.endsWith('ss')) return word.slice(0, -1);
  return word;
}
