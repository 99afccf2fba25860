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

/**
 * Head nouns that name "a part" in general, not which one ("memory chips", "protection devices",
 * "sensor modules"): English words for a thing, like "part" and "component". A phrase ending in
 * one is tried whole first (the data may name "battery module"), then by its qualifier alone.
 */
const GENERIC_HEADS = new Set(
  (
    'chip chips device devices module modules unit units piece pieces element elements ' +
    'hardware ic ics part parts component components item items thing things stuff bits'
  ).split(' '),
);

/** True for a word that names a part in general ("chips", "devices", "modules"). */
export function isGenericHead(word: string): boolean {
  return GENERIC_HEADS.has(word.toLowerCase());
}

/**
 * True for a word that cannot be inside a part's name but separates the clause around it: frame
 * and function words, auxiliaries and modals ("is", "would"), "went"/"got" of a scenario, "not"
 * and "no", and the words that open a condition ("if", "suppose").
 */
export function isPhraseBoundary(word: string): boolean {
  const w = word.toLowerCase();
  return (
    BOM_FRAME_WORDS.has(w) ||
    isClauseVerb(w) ||
    SUBORDINATORS.has(w) ||
    PRONOUNS.has(w) ||
    SUPPLY_ROLES.has(w) ||
    w === 'not' ||
    w === 'no' ||
    !/[\p{L}\p{N}]/u.test(w)
  );
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

/** True when a (lower-case) name holds the word: whole, plural or singular, or (4+ letters) inside one of its words. */
export function nameHolds(name: string, word: string): boolean {
  const words = name.split(/[\s_-]+/);
  const forms = pluralVariants(word);
  return words.some((w) => forms.includes(w) || forms.some((f) => f.length >= 4 && w.includes(f)));
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

const WHOLE_ITEM_NUMBER = new RegExp(`^(?:${ITEM_NUMBER.source})$`);
/** Whether a code has the shape of an item number ("CMP-001982"), not of a word ("Cortex-M4"). */
export const isItemNumberShaped = (code: string): boolean => WHOLE_ITEM_NUMBER.test(code);

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
  /** The subject as written, with its pronouns ("things we sell"): what its meaning is judged on. */
  subjectText: string | null;
  /** Part phrases the question leaves out ("but not X", "without X", "other than X"). */
  excluded: string[];
  /**
   * How they are left out: `bom`, the BOM must not use them at all ("but not", "without", "no",
   * "do not use"); `other_than`, the parts asked for other than these ("sensors other than
   * accelerometers", "except", "excluding", "apart from"), which the data decides: the excluded
   * parts are of the asked kind (leave those lines out) or another (leave those BOMs out).
   */
  exclusion: 'bom' | 'other_than' | null;
  /**
   * Excluded phrases that narrow which parts count rather than which BOMs: those of an aside in
   * brackets ("batteries (the cells, not the holders)"), which says what the part means. Their
   * lines are left out; a BOM that also uses the part proper stays.
   */
  narrowed: string[];
  /**
   * The parts come from the scene the question sets ("if the pump controller goes end of life"),
   * where a part is the subject of the clause and the words after it are what happens to it.
   */
  scene: boolean;
  /**
   * What the other clauses name when the question's own clause names something ("We got an
   * end-of-life notice for X; which boards need a redesign?"): where nothing the question's clause
   * names is in the data, the part is the scene's.
   */
  sceneParts: string[];
  /**
   * The subjects of the scene's clauses ("the pump controller" of "the pump controller has had a recall
   * letter"): the part, where what the scene says happens to it names nothing the data holds.
   */
  sceneSubjects: string[];
  /** The words that asked for the top of the BOMs ("finished goods", "end products"), wherever they stood. */
  topLevelWords: string | null;
  /**
   * The parts are what the asking clause's verb of use holds ("which boards use X", "where do
   * we fit X", "boards with X"): X's last word is the thing asked for, never the situation. Not
   * after "need"/"require" ("which boards need a redesign"), and not for a scene's part.
   */
  contained: boolean;
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
/** Modal and auxiliary verbs: where a clause's verb starts, so a part phrase ends before them. */
const MODALS = new Set('would will could can should might may must shall'.split(' '));
/** Auxiliaries a question puts before its subject ("What would X affect?", "What does X go into?"). */
const INVERTED = new Set([...MODALS, 'do', 'does', 'did', 'is', 'are', 'was', 'were', 'has', 'have', 'had']);
/**
 * Forms of "go" and "get" that act as auxiliaries in a scenario ("X went bust", "X goes end of
 * life", "X got discontinued"): a part phrase ends before them.
 */
const LIGHT_VERBS = new Set('go goes went gone going got gotten becomes became'.split(' '));
/** Words that open a question or a request: the clause that holds them is the question. */
const QUESTION_WORDS = new Set('which what where who whom whose how list show find give tell name'.split(' '));
/** Words that open a result clause ("…, so which boards …"): before a question word, a clause starts. */
const CONSEQUENCE = new Set(['so', 'then', 'therefore', 'thus', 'hence']);
/** Words that open a condition or a situation: "If our supplier of X went bust, which …". */
const SUBORDINATORS = new Set(
  'if suppose supposing assuming imagine when whenever once unless provided given because since after'.split(' '),
);
/**
 * Who provides a part, in a scene ("our capacitor supplier went bust", "the maker of X"): the part is
 * next to these words, never one of them.
 */
const SUPPLY_ROLES = new Set(
  'supplier suppliers vendor vendors maker makers manufacturer manufacturers distributor distributors'.split(' '),
);
const HAVE = new Set(['have', 'has', 'had', 'having']);
/** Determiners that open a verb's object ("sport a …", "carry the …"). */
const OBJECT_DETERMINERS = new Set('a an the any some this that these those'.split(' '));
/** Past participles that do not end in "-ed" (the common irregular ones). */
const IRREGULAR_PARTICIPLES = new Set(
  (
    'been gone done got gotten given taken become come fallen run put set cut hit shut left lost sold ' +
    'made sent kept held brought bought built found told thrown grown risen shown seen stood'
  ).split(' '),
);
/** Whether a participle follows (after adverbs such as "just", "already", "now"): "has just gone". */
function participleAfter(tokens: string[], from: number): boolean {
  let i = from;
  while (
    i < tokens.length &&
    (FRAME_ADVERBS.has(tokens[i]) || BOM_FRAME_WORDS.has(tokens[i]) || /ly$/.test(tokens[i])) &&
    !IRREGULAR_PARTICIPLES.has(tokens[i])
  )
    i++;
  const w = tokens[i] ?? '';
  return /^[a-z]{3,}ed$/.test(w) || IRREGULAR_PARTICIPLES.has(w);
}

/** Who asks ("where do we fit X?"): the word after the auxiliary is a person, the next their verb. */
const PEOPLE = new Set(['we', 'you', 'they', 'i']);
/**
 * Adjectives that point back at a part the scene named rather than name one ("the X failed its
 * tests, so which boards need a replacement part?"): the part is the one in the scene.
 */
const REFERRING = new Set(
  'replacement replacements substitute substitutes alternative alternatives equivalent same such affected'.split(' '),
);
/** Pronouns that point back at a part named elsewhere ("… which boards use them?"). */
const PRONOUNS = new Set('it them they this that these those one ones its their theirs'.split(' '));
/** The "-ever" words that open a concessive ("whatever the voltage", "however old"); "no matter" opens one too. */
const CONCESSIVE = /^(?:wh[a-z]*|how)ever$/;
/** Conjunctions that join a clause ("while", "whilst", "though"): before an exclusion, they go with it. */
const CLAUSE_JOINERS = new Set(['while', 'whilst', 'though', 'although', 'yet', 'whereas']);
/** Words that may open an aside before its negation ("(but not …)", "(and no …)"). */
const ASIDE_LEADS = new Set(['but', 'and', 'though', 'although', 'yet', ',']);
/** Words that open a relative clause about the BOM ("boards where …", "assemblies in which …"). */
const RELATIVES = new Set(['where', 'which', 'that', 'whose', 'wherein']);
/** Words that join part phrases; "and"-like ones mean every phrase must be on the BOM. */
const OR_WORDS = new Set(['or', '/', 'and/or']);
const AND_WORDS = new Set(['and', '&', 'plus']);
/** Exclusions whose parts the BOM must not use at all. */
const WITHOUT_WORDS = new Set(['without', 'lack', 'lacks', 'lacking', 'minus', 'neither']);
/**
 * Two-word and one-word markers that take something out of the answer. A comparative ("other
 * than", "rather than") names parts different from the ones asked for, which the data decides
 * (`other_than`); the others ("except", "excluding", "apart from", "besides") take out what the
 * answer lists, the BOMs: "switches, except the toggle ones" are the BOMs with a switch and no toggle switch.
 */
const OTHER_THAN_PAIRS = new Set(['other than', 'rather than']);
const EXCEPT_PAIRS = new Set(['apart from', 'aside from', 'except for', 'save for']);
const EXCEPT_WORDS = new Set(['except', 'excepting', 'excluding', 'exclude', 'besides', 'bar']);
/**
 * Particles that make a verb one of removal ("leave out", "set aside", "take away", "cross
 * off"): after such a verb, in a clause that is not the one asking, what follows is left out.
 */
const SEPARATIVE_PARTICLES = new Set(['out', 'aside', 'away', 'off']);
/**
 * Of those, the ones that remove also when they open the question: a participle with "out" or
 * "off" at the start picks out as often as it leaves out ("Picking out the boards with X, …").
 */
const OPENING_SEPARATIVE_PARTICLES = new Set(['aside', 'away']);
/** Words after "no" that make it an idiom of time or quantity, not an exclusion ("no longer"). */
const NO_IDIOMS = new Set(['longer', 'more', 'later', 'matter', 'sooner', 'less', 'fewer', 'doubt']);
/** Words after "nothing"/"none" that make it mean "only" ("nothing but X", "none other than X", "nothing else"). */
const ONLY_AFTER_NOTHING = new Set(['but', 'else', 'except', 'other', 'besides', 'apart', 'save', 'more']);
/** Words that may sit between "not"/"no" and the verb or part it negates. */
const NEGATION_FILLERS = new Set('any also even ever actually currently a an the still'.split(' '));
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

/**
 * The function words a name may spell in capitals: a modal ("CAN bus") or "it" ("IT module").
 * Never a negation, a conjunction, a question word or a verb of use: written in capitals those
 * are emphasis ("do NOT use", "a relay OR a fuse"), and read as names they turned a question into
 * its opposite.
 */
const spellsFunctionWord = (word: string): boolean => MODALS.has(word) || word === 'it';

/**
 * The question's text as parsing reads it: lower case (but for a word in capitals that spells a
 * function word: a name), contractions spelt out ("don't" → "do not", "can't" → "can not"), and a
 * dash, colon or full stop between clauses as a ";".
 */
function normaliseQuestion(question: string): string {
  // A modal or "it" the question writes in capitals is a name ("CAN bus", "IT equipment"), never
  // the function word it spells; unless the whole question is in capitals.
  const letters = question.replace(/[^\p{L}]/gu, '');
  const shouting = letters.length > 0 && letters.replace(/\p{Lu}/gu, '').length < letters.length / 2;
  const cased = question.replace(/[\p{L}\p{N}'’-]+/gu, (w) =>
    !shouting && /^\p{Lu}{2,}$/u.test(w) && spellsFunctionWord(w.toLowerCase()) ? w : w.toLowerCase(),
  );
  return (
    cased
      .replace(/[’‘`]/g, "'")
      .replace(/\bcan't\b/g, 'can not')
      .replace(/\bwon't\b/g, 'will not')
      .replace(/\bcannot\b/g, 'can not')
      .replace(/n't\b/g, ' not')
      .replace(/\s[-–—]+\s|[–—]|:/g, ' ; ')
      .replace(/[.!?](?=\s|$)/g, ' ; ')
      // "In case X fails, …" is "if X fails, …" (not "in case of", which names what follows it).
      .replace(/\bin case\b(?! of\b)/g, 'if')
  );
}

/** Tokens for parsing: words as `tokenizeBomQuestion` reads them, plus the separators "," "&" "/" ";". */
function parseTokens(text: string): string[] {
  const tokens: string[] = [];
  const re = /[A-Za-z]{1,6}-\d{2,8}|[\p{L}\p{N}](?:[\p{L}\p{N}+_-]|\.(?=\p{N}))*|[,&/;]/gu;
  // The possessive-free text once, not once per token (that was quadratic in the question).
  const plain = text.replace(/['’]s\b/g, '');
  for (let m = re.exec(plain); m; m = re.exec(plain)) {
    // A word still in capitals after `normaliseQuestion` is a name that spells a function word: it stays so.
    const word = /^\p{Lu}{2,}$/u.test(m[0]) ? m[0] : m[0].toLowerCase();
    tokens.push(word.replace(/(?<![-_])[-_]+$/, ''));
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

/** True for the verb of a clause that is not a usage verb: auxiliaries, modals, "went", "got". */
function isClauseVerb(word: string): boolean {
  return MODALS.has(word) || AUXILIARIES.has(word) || LIGHT_VERBS.has(word);
}

/**
 * The question cut into clauses: at ";", before a word that opens a condition ("… if the X were
 * discontinued"), and at a comma that closes a condition or opens a question ("If X went bust,
 * which …"). A comma inside a list ("tantalum, ceramic or electrolytic") stays.
 */
/** A clause that opens with a condition: "if X goes", or a question word before it ("what if X goes late?"). */
function opensCondition(clause: readonly string[]): boolean {
  return SUBORDINATORS.has(clause[0]) || (QUESTION_WORDS.has(clause[0]) && SUBORDINATORS.has(clause[1] ?? ''));
}

function splitClauses(tokens: string[]): string[][] {
  const clauses: string[][] = [[]];
  let conditional = false;
  tokens.forEach((token, i) => {
    const current = clauses[clauses.length - 1];
    const next = tokens[i + 1];
    const conditionHere =
      SUBORDINATORS.has(token) && !(next !== undefined && INVERTED.has(next) && (token === 'when' || token === 'once'));
    if (token === ';') {
      if (current.length) clauses.push([]);
      conditional = false;
      return;
    }
    // "…, so which boards …", "… and then which products …": a result clause that asks. After a
    // clause that is itself a question ("which units use X, and then which of them use Y?") it
    // asks one more thing of the same answer, and stays with it.
    if (CONSEQUENCE.has(token) && next !== undefined && QUESTION_WORDS.has(next) && !QUESTION_WORDS.has(current[0])) {
      while (current.length && (current[current.length - 1] === ',' || current[current.length - 1] === 'and'))
        current.pop();
      if (current.length) clauses.push([]);
      conditional = false;
      return;
    }
    if (
      token === ',' &&
      (conditional || (next !== undefined && (QUESTION_WORDS.has(next) || SUBORDINATORS.has(next))))
    ) {
      if (current.length) clauses.push([]);
      conditional = false;
      return;
    }
    // "What if …" is one clause: the question word only opens the condition.
    if (conditionHere && current.length > 0 && !(current.length === 1 && QUESTION_WORDS.has(current[0])))
      clauses.push([]);
    if (conditionHere) conditional = true;
    clauses[clauses.length - 1].push(token);
  });
  return clauses.filter((c) => c.length > 0);
}

interface Exclusions {
  kept: string[];
  excluded: string[][];
  kind: 'bom' | 'other_than' | null;
}

/** Where an exclusion's span ends: the clause's end, or "but/and/," before a usage verb ("… but do use Y"). */
function exclusionEnd(tokens: string[], from: number): number {
  for (let i = from; i < tokens.length; i++) {
    const t = tokens[i];
    if (t === ';' || QUESTION_WORDS.has(t)) return i;
    if (t === 'but' || t === 'and' || t === ',') {
      let j = i + 1;
      while (j < tokens.length && (t === ',' ? tokens[j] === 'but' || tokens[j] === 'and' : false)) j++;
      while (j < tokens.length && (tokens[j] === 'do' || tokens[j] === 'does' || tokens[j] === 'did')) j++;
      if (j < tokens.length && (ACTIVE_PIVOTS.has(tokens[j]) || tokens[j] === 'also')) return i;
    }
  }
  return tokens.length;
}

/** Words that deny what a clause says can be done ("can not", "unable", "never"). */
const DENIALS = new Set(['not', 'unable', 'never', 'impossible']);
/** How far before "without" a denial still frames it: "we could not possibly build them without". */
const DENIAL_REACH = 6;

/**
 * A need told as a lack: "which products can not be built without X", "what would we be unable to
 * make without X" ask what needs X, not what goes without it. The denial and the words up to
 * "without" become "use"; a "without" no denial frames ("which boards use a fuse without a
 * diode") is left to `takeExclusions`.
 */
function needsSaidAsLack(tokens: string[]): string[] {
  const at = tokens.indexOf('without');
  if (at < 1) return tokens;
  for (let k = at - 1; k >= Math.max(0, at - DENIAL_REACH); k--) {
    const t = tokens[k];
    if (t === ',' || t === ';' || OR_WORDS.has(t) || AND_WORDS.has(t)) break;
    // "do not use X without Y" denies a use, with its own part: no need told as a lack.
    if (DENIALS.has(t))
      return tokens.slice(k, at).some((w) => ACTIVE_PIVOTS.has(w))
        ? tokens
        : [...tokens.slice(0, k), 'use', ...tokens.slice(at + 1)];
  }
  return tokens;
}

/**
 * Takes the exclusions out of a clause: "but not X", "without X", "X but no Y", "do not use X",
 * "other than X", "except (those that use) X", "excluding X". Returns the clause without them and
 * the excluded words (each span split at or/and/,). A negation of anything but a usage verb or a
 * part ("we can not get X", "no longer") is the situation, not an exclusion.
 */
function takeExclusions(tokens: string[]): Exclusions {
  const kept: string[] = [];
  const excluded: string[][] = [];
  let kind: Exclusions['kind'] = null;
  let i = 0;
  const skipFillers = (j: number) => {
    while (j < tokens.length && NEGATION_FILLERS.has(tokens[j])) j++;
    return j;
  };
  while (i < tokens.length) {
    const t = tokens[i];
    const prev = kept[kept.length - 1];
    const pair = `${t} ${tokens[i + 1] ?? ''}`;
    let start = -1;
    let markerKind: 'bom' | 'other_than' | null = null;
    if (OTHER_THAN_PAIRS.has(pair)) {
      start = i + 2;
      markerKind = 'other_than';
    } else if (EXCEPT_PAIRS.has(pair)) {
      start = i + 2;
      markerKind = 'bom';
    } else if (EXCEPT_WORDS.has(t) || WITHOUT_WORDS.has(t)) {
      start = i + 1;
      markerKind = 'bom';
    } else if (
      SEPARATIVE_PARTICLES.has(tokens[i + 1] ?? '') &&
      (prev === ',' || (prev === undefined && OPENING_SEPARATIVE_PARTICLES.has(tokens[i + 1] ?? ''))) &&
      /^[a-z]{3,}$/.test(t) &&
      !isClauseVerb(t) &&
      !ACTIVE_PIVOTS.has(t) &&
      i + 2 < tokens.length &&
      !QUESTION_WORDS.has(tokens[i + 2])
    ) {
      // "…, setting aside any board that uses Y", or the question opening with "setting aside":
      // a verb of removal opening a clause of its own.
      start = i + 2;
      markerKind = 'bom';
    } else if (t === 'not') {
      const j = skipFillers(i + 1);
      if (j < tokens.length && ACTIVE_PIVOTS.has(tokens[j])) start = j + 1;
      else if ((prev === 'but' || prev === 'and' || prev === ',') && j < tokens.length) start = j;
      if (start >= 0) markerKind = 'bom';
      // "parts that are not obsolete": the parts asked for, other than those.
      else if (prev !== undefined && AUXILIARIES.has(prev) && j < tokens.length && !isClauseVerb(tokens[j])) {
        start = j;
        markerKind = 'other_than';
      }
    } else if (
      (t === 'no' && !NO_IDIOMS.has(tokens[i + 1] ?? '')) ||
      // "nothing but X", "none other than X", "nothing else" say "only", not "leave out".
      ((t === 'nothing' || t === 'none') && !ONLY_AFTER_NOTHING.has(tokens[i + 1] ?? ''))
    ) {
      if (prev === 'but' || prev === 'and' || prev === ',' || (prev !== undefined && ACTIVE_PIVOTS.has(prev))) {
        start = i + 1;
        markerKind = 'bom';
      }
    }
    if (start < 0 || markerKind === null) {
      kept.push(t);
      i++;
      continue;
    }
    const end = exclusionEnd(tokens, start);
    let span = tokens.slice(start, end);
    let stop = end;
    if (t === 'nothing' || t === 'none') {
      // "but nothing from the sensor range", "and none of the X": what is left out follows the
      // preposition, up to the next verb ("assemblies that use none of the coin cells have a
      // Li-ion pack": what follows "have" is the part asked for).
      if (span[0] === 'from' || span[0] === 'of') span = span.slice(1);
      const verb = span.findIndex((w) => ACTIVE_PIVOTS.has(w) || AUXILIARIES.has(w) || MODALS.has(w));
      if (verb > 0) {
        stop = end - (span.length - verb);
        span = span.slice(0, verb);
      }
    }
    // "except those that also have X", "excluding any that use X": the BOMs must not use X.
    const pivot =
      t === 'nothing' || t === 'none' ? -1 : span.reduce((last, w, k) => (ACTIVE_PIVOTS.has(w) ? k : last), -1);
    if (pivot >= 0) {
      span = span.slice(pivot + 1);
      markerKind = 'bom';
    }
    // The words that joined the exclusion to the clause go with it ("X, but not Y", "do not use").
    const joining =
      t === 'no' || t === 'nothing' || t === 'none'
        ? ['but', 'and', ',', 'with']
        : markerKind === 'other_than' && t === 'not'
          ? [...AUXILIARIES]
          : ['but', 'and', ',', 'do', 'does', 'did'];
    // "X while having no Y", "X though not Y": a word that joins a clause joins the exclusion too.
    while (kept.length && (joining.includes(kept[kept.length - 1]) || CLAUSE_JOINERS.has(kept[kept.length - 1])))
      kept.pop();
    // "X but have no Y", "X and contain no Y": a second usage verb, joined to the clause by
    // "but"/"and", is the exclusion's own verb and goes with it (a clause's first verb stays:
    // "boards that have no Y").
    const before = kept[kept.length - 2];
    if (
      t === 'no' &&
      ACTIVE_PIVOTS.has(kept[kept.length - 1] ?? '') &&
      (before === 'but' || before === 'and' || before === ',')
    ) {
      kept.pop();
      while (kept.length && ['but', 'and', ','].includes(kept[kept.length - 1])) kept.pop();
    }
    let chunk: string[] = [];
    for (const w of span) {
      if (OR_WORDS.has(w) || AND_WORDS.has(w) || w === ',' || (w === 'nor' && t === 'neither')) {
        if (chunk.length) excluded.push(chunk);
        chunk = [];
      } else chunk.push(w);
    }
    if (chunk.length) excluded.push(chunk);
    kind = kind === 'bom' || markerKind === 'bom' ? 'bom' : 'other_than';
    i = stop;
    // "… but do use Y": the positive clause goes on after the joining word.
    if (i < tokens.length && (tokens[i] === 'but' || tokens[i] === 'and' || tokens[i] === ',')) i++;
  }
  return { kept, excluded, kind };
}

interface ClauseReading {
  object: string[];
  subjectWords: string[];
  pivot: boolean;
  /** The verb the object hangs on, where there is one ("use", "fitted", "with", a person's "fit"). */
  verb?: string;
}

/** A clause's subject (before its verb) and object (what it uses), by its usage verb. */
function readClause(tokens: string[]): ClauseReading {
  // "has to be redesigned", "need to stop": a verb of use before "to" is a modal, not a use;
  // "has just gone", "have put": "have" before a participle is the auxiliary of a tense.
  const active = tokens.findIndex(
    (t, i) => ACTIVE_PIVOTS.has(t) && tokens[i + 1] !== 'to' && !(HAVE.has(t) && participleAfter(tokens, i + 1)),
  );
  const passive = tokens.findIndex(
    (t, i) => PASSIVE_PIVOTS.has(t) && tokens.slice(0, i).some((w) => AUXILIARIES.has(w)),
  );
  if (passive >= 0 && (active < 0 || passive < active)) {
    const aux = tokens.slice(0, passive).reduce((last, w, i) => (AUXILIARIES.has(w) ? i : last), -1);
    return {
      object: tokens.slice(aux + 1, passive),
      subjectWords: tokens.slice(0, Math.max(0, aux)),
      pivot: true,
      verb: tokens[passive],
    };
  }
  if (active >= 0) {
    // The object ends where another clause's verb starts ("… with X would be hit").
    const rest = tokens.slice(active + 1);
    const stop = rest.findIndex((w) => MODALS.has(w));
    return {
      object: stop >= 0 ? rest.slice(0, stop) : rest,
      subjectWords: tokens.slice(0, active),
      pivot: true,
      verb: tokens[active],
    };
  }
  // "Where do we fit X?", "Which boards would you put X on?": after the auxiliary, a person and
  // their verb; what follows the verb is the object.
  const asker = QUESTION_WORDS.has(tokens[0])
    ? tokens.findIndex((t, k) => k >= 1 && k <= 4 && INVERTED.has(t) && PEOPLE.has(tokens[k + 1] ?? ''))
    : -1;
  if (asker > 0) {
    let verb = asker + 2;
    const adverb = (k: number) =>
      FRAME_ADVERBS.has(tokens[k]) ||
      tokens[k] === 'not' ||
      tokens[k] === 'never' ||
      tokens[k] === 'no' ||
      (tokens[k - 1] === 'no' && NO_IDIOMS.has(tokens[k]));
    while (verb < tokens.length - 1 && adverb(verb)) verb++;
    const object = tokens.slice(verb + 1);
    // "What would we be unable to build …": a verb that is itself an auxiliary frames the question;
    // "… would we need to reprice?": what follows is another verb, not a part.
    if (!isClauseVerb(tokens[verb]) && !INVERTED.has(tokens[verb]) && object[0] !== 'to' && !namesNothing(object))
      return { object, subjectWords: tokens.slice(0, asker), pivot: true, verb: tokens[verb] };
  }
  // "What would an end-of-life notice on X affect?", "What does X go into?": the question word is
  // the object, the words after the auxiliary are the subject, and the last one is the verb.
  if (tokens.length > 2 && QUESTION_WORDS.has(tokens[0]) && INVERTED.has(tokens[1])) {
    const words = trimStopWords(tokens.slice(2));
    return { object: words.slice(0, -1), subjectWords: [], pivot: false };
  }
  // A question without a usage verb: its subject is the noun after the question word ("which
  // products are affected by …"), the whole clause is searched for the part.
  const wh = tokens.findIndex((t) => t === 'which' || t === 'what');
  let subjectWords: string[] = [];
  if (wh >= 0) {
    let j = wh + 1;
    while (j < tokens.length && OPENERS.has(tokens[j]) && tokens[j] !== 'which' && tokens[j] !== 'what') j++;
    // The subject ends at the clause's verb ("which products | are affected"), four words at most.
    const end = tokens.findIndex((w, k) => k >= j && (INVERTED.has(w) || isClauseVerb(w) || PASSIVE_PIVOTS.has(w)));
    // "Which BOMs list X?": a word that asks for a listing, after the subject, is the verb of a
    // BOM that lists a part, and what follows is the object.
    const lists = tokens.findIndex((w, k) => k > j && k <= j + 4 && QUESTION_WORDS.has(w) && !/^(?:wh|how)/.test(w));
    if (lists >= 0 && (end < 0 || lists < end))
      return {
        object: tokens.slice(lists + 1),
        subjectWords: tokens.slice(wh, lists),
        pivot: true,
        verb: tokens[lists],
      };
    // "Which units sport a X", "which kits bundle the X": a word after the subject that a
    // determiner follows is the clause's verb, whether or not it is one of the usage verbs above,
    // and what follows it is the object (read as the subject, the verb and its article cut the
    // part in two).
    const verbBeforeObject = tokens.findIndex(
      (w, k) =>
        k > j &&
        k <= j + 3 &&
        (end < 0 || k < end) &&
        OBJECT_DETERMINERS.has(tokens[k + 1] ?? '') &&
        !isStopWord(w) &&
        !QUESTION_WORDS.has(w) &&
        !PRONOUNS.has(w),
    );
    if (verbBeforeObject >= 0)
      return {
        object: tokens.slice(verbBeforeObject + 1),
        subjectWords: tokens.slice(wh, verbBeforeObject),
        pivot: true,
        verb: tokens[verbBeforeObject],
      };
    subjectWords = tokens.slice(wh, Math.min(end < 0 ? tokens.length : end, j + 4));
    // "Which products would a shortage of X affect?", "Which boards does X go into?": the kind
    // asked about, then a modal or "do", then the subject, whose last word is the verb.
    const after = wh + subjectWords.length;
    const inverted = MODALS.has(tokens[after]) || /^(?:do|does|did)$/.test(tokens[after]);
    // Not "which products would be affected by X": there the modal's own verb comes first.
    const passive = AUXILIARIES.has(tokens[after + 1]) || /^(?:have|has|had|been)$/.test(tokens[after + 1] ?? '');
    if (end === after && inverted && !passive && tokens.length - after > 3) {
      const words = trimStopWords(tokens.slice(after + 1));
      return { object: words.slice(0, -1), subjectWords, pivot: false };
    }
    // The subject is the kind of BOM asked about, never a part ("which sensor boards lack X").
    return { object: [...tokens.slice(0, wh), ...tokens.slice(wh + subjectWords.length)], subjectWords, pivot: false };
  }
  return { object: tokens, subjectWords, pivot: false };
}

function subjectOf(words: string[]): { subject: string | null; text: string | null } {
  const start = words.findIndex((w) => !OPENERS.has(w));
  if (start < 0) return { subject: null, text: null };
  const end = words.length - [...words].reverse().findIndex((w) => !OPENERS.has(w) && !AUXILIARIES.has(w));
  const span = words.slice(start, end).filter((w) => w !== ',' && !INVERTED.has(w));
  const subject = span.filter((w) => !FRAME_ADVERBS.has(w)).join(' ') || null;
  return { subject, text: span.join(' ') || null };
}

/** The part phrases of an object: split at "or"/"and"/",", each trimmed of frame words and cut. */
function phrasesOf(object: string[]): { chunks: string[][]; sawAnd: boolean; sawOr: boolean } {
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
  return { chunks, sawAnd, sawOr };
}

/** Words of the top-level frame inside an object ("at any level", "through subassemblies") go. */
function withoutTopLevelWords(object: string[]): string[] {
  let cleaned = ` ${object.join(' ')} `;
  for (const p of TOP_LEVEL_PHRASES) cleaned = cleaned.split(` ${p} `).join(' ');
  return cleaned.trim().split(' ').filter(Boolean);
}

/**
 * Prepositions of place, and the quantifiers that make what follows them a place among the BOMs
 * ("on any board", "in our products"); after "the" it may be what the part is about ("a notice
 * on the thermistor") or how it is packaged ("in a through-hole package").
 */
const PLACE_PREPOSITIONS = new Set('on in inside within across onto into'.split(' '));
const PLACE_OPENERS = new Set('any every all our their'.split(' '));

/**
 * An object without the place it ends on ("a float switch on any unit", "a relay in our
 * products"): where the part sits is the BOM asked about, never a part of it (read as part of the
 * phrase, the word for the BOM grounded on a part whose name holds it).
 */
function withoutPlacement(object: string[]): string[] {
  // Only after the last joining word: a place before it may belong to one part of a list.
  const joined = object.reduce(
    (last, x, k) => (OR_WORDS.has(x) || AND_WORDS.has(x) || x === ',' || x === ';' ? k : last),
    -1,
  );
  const named = object.findIndex((w) => !BOM_FRAME_WORDS.has(w) && !/^[,&/;]$/.test(w));
  const at = object.findIndex(
    (w, k) =>
      k > joined && k > named && named >= 0 && PLACE_PREPOSITIONS.has(w) && PLACE_OPENERS.has(object[k + 1] ?? ''),
  );
  return at < 0 ? object : object.slice(0, at);
}

/**
 * True when an object only points back at a part ("a replacement part", "the same chips"): words
 * that refer back, generic heads and frame words, nothing that could name a part of its own.
 */
function refersBack(object: string[]): boolean {
  const words = trimStopWords(object).filter((w) => !/^[,&/;]$/.test(w));
  return (
    words.some((w) => REFERRING.has(w)) &&
    words.every((w) => REFERRING.has(w) || GENERIC_HEADS.has(w) || BOM_FRAME_WORDS.has(w) || PRONOUNS.has(w))
  );
}

/** True when an object names nothing: empty, or only frame words and pronouns ("use them"). */
function namesNothing(object: string[]): boolean {
  return trimStopWords(object).every((w) => PRONOUNS.has(w) || BOM_FRAME_WORDS.has(w) || /^[,&/;]$/.test(w));
}

/**
 * Reads a BOM question's structure: the subject ("Which boards …", "Which finished goods …") is
 * the kind of BOM asked about, not a part; the object (after "use", "contain", "with" …, or
 * between "are" and "used") holds the part phrases, split at "or"/"and"/",". Each phrase stays
 * whole ("tantalum capacitors" is one concept); the column resolver grounds it in the warehouse.
 *
 * A question may also set a scene ("If our supplier of X went bust, which products would be
 * affected?"): its clauses are read apart, the question's own clause gives the subject, and when
 * it names no part ("… be affected", "… use them") the part comes from the scene. Exclusions
 * ("but not Y", "without Y", "other than Y") are taken out first and returned on their own.
 */
export function parseBomQuestion(question: string): ParsedBomQuestion {
  // An aside in brackets that leaves something out says what the part asked for means: its
  // exclusions narrow the parts, and its other words restate the part (they are not new parts).
  const narrowedWords: string[][] = [];
  const unbracketed = question.replace(/\(([^()]*)\)/g, (aside, inner: string) => {
    const tokens = parseTokens(normaliseQuestion(inner));
    const taken = takeExclusions(tokens);
    // An aside that is only a negation ("(not the 24V ones)", "(no spares)") has no verb for the
    // clause rules to hang it on, yet says plainly what is left out; read as part words, its
    // excluded part would become one more part the BOM must use.
    let lead = 0;
    while (lead < tokens.length && ASIDE_LEADS.has(tokens[lead])) lead++;
    if (!taken.excluded.length && (tokens[lead] === 'not' || tokens[lead] === 'no') && lead + 1 < tokens.length)
      taken.excluded.push(tokens.slice(lead + 1));
    if (!taken.excluded.length) return ` ${inner} `;
    narrowedWords.push(...taken.excluded);
    return ' ';
  });
  const text = normaliseQuestion(unbracketed);
  const lower = ` ${text.replace(/[;,]/g, ' ').replace(/\s+/g, ' ').trim()} `;
  const topLevelWords = TOP_LEVEL_PHRASES.find((p) => lower.includes(` ${p} `)) ?? null;
  const scope: WhereUsedScope = topLevelWords ? 'top_level' : 'direct';
  const excludedWords: string[][] = [];
  let exclusion: ParsedBomQuestion['exclusion'] = null;
  let raw = splitClauses(parseTokens(text));
  // "What if X is recalled?" alone: the question word asks, the condition is the scene.
  if (!raw.some(asks))
    raw = raw.flatMap((c) => (QUESTION_WORDS.has(c[0]) && opensCondition(c) ? [[c[0]], c.slice(1)] : [c]));
  const clauses = raw.map((clause) => {
    const taken = takeExclusions(needsSaidAsLack(clause));
    excludedWords.push(...taken.excluded);
    if (taken.kind) exclusion = exclusion === 'bom' || taken.kind === 'bom' ? 'bom' : 'other_than';
    return taken.kept;
  });
  const main = mainClause(clauses);
  const reading = readClause(main);
  let object = withoutPlacement(withoutTopLevelWords(reading.object));
  let fromScene = false;
  // The question's clause names no part ("which products would be affected?", "which boards use
  // them?"): the part is in the scene the other clauses set.
  // A scene's clause without the word that opens its condition ("if", "suppose").
  const sceneClauses = clauses
    .filter((c) => c !== main)
    .map((c) => (opensCondition(c) ? c.slice(c.findIndex((w) => SUBORDINATORS.has(w)) + 1) : c));
  const scene = sceneClauses
    .map((words) => {
      const r = readClause(words);
      return withoutTopLevelWords(r.pivot ? r.object : words);
    })
    .filter((words) => !namesNothing(words));
  // What the scene's clauses start with, before their verb ("the pump controller | has had a
  // notice"): where what happens to it names nothing the data holds, the part is the subject.
  const sceneSubjects = sceneClauses
    .map((words) => {
      const verb = words.findIndex((w) => isClauseVerb(w) || HAVE.has(w) || ACTIVE_PIVOTS.has(w));
      return cutPhrase(trimStopWords(verb > 0 ? words.slice(0, verb) : []));
    })
    .filter((phrase): phrase is string => !!phrase);
  if (clauses.length > 1 && (!reading.pivot || namesNothing(object) || refersBack(object))) {
    if (scene.length) {
      object = scene.flatMap((words, i) => (i ? [';', ...words] : words));
      fromScene = true;
    }
  }
  // "boards where X is fitted together with Y": "together with"/"along with" joins a part named
  // in the clause before it (after its relative word) to the object: both are on the BOM.
  let subjectWords = reading.subjectWords;
  const joiner = subjectWords[subjectWords.length - 1];
  if (reading.pivot && (joiner === 'together' || joiner === 'along') && object.length) {
    const relative = subjectWords.reduce((last, w, k) => (RELATIVES.has(w) ? k : last), -1);
    const part = trimStopWords(subjectWords.slice(relative + 1, -1));
    if (relative > 0 && part.length) {
      object = [...part, 'and', ...object];
      subjectWords = subjectWords.slice(0, relative);
    }
  }
  const { subject, text: subjectText } = subjectOf(subjectWords);
  const read = phrasesOf(object);
  const { sawAnd, sawOr } = read;
  // A concessive ("whatever the make", "however old", "no matter which") says what does not
  // matter: it names no part.
  // It runs to the end of its phrase, also after the part ("pumps whatever the voltage").
  const chunks = read.chunks
    .map((chunk) => {
      const at = chunk.findIndex((w, k) => CONCESSIVE.test(w) || (w === 'no' && chunk[k + 1] === 'matter'));
      return at < 0 ? chunk : chunk.slice(0, at);
    })
    .filter((chunk) => trimStopWords(chunk).length > 0)
    // A phrase after a comma that says what the part does in a clause of its own ("…, the piece
    // that keeps the door shut") restates the part before it: it is no second part.
    // (In a list, "a fuse, a relay or the diode that …", each item is a part.)
    .filter((chunk, k) => k === 0 || sawAnd || sawOr || !appositive(chunk));
  const concepts: string[] = [];
  for (const chunk of chunks) {
    // A longer run is cut; grounding looks for the part named inside it.
    const phrase = cutPhrase(trimStopWords(withoutPurpose(chunk)));
    if (phrase && !concepts.includes(phrase) && !namesNothing(chunk)) concepts.push(phrase);
  }
  // "switches except the toggle ones": "one(s)" after a qualifier stands for the head of the part
  // asked for (the toggle switches), not for any part the qualifier names.
  const head = concepts.length ? concepts[0].split(' ').pop()! : null;
  const phraseOf = (raw: string[]) => {
    let words = withoutTopLevelWords(raw);
    const last = trimStopWords(words).length ? words[words.length - 1] : '';
    if (head && (last === 'one' || last === 'ones') && trimStopWords(words.slice(0, -1)).length)
      words = [...words.slice(0, -1), head];
    return cutPhrase(trimStopWords(words));
  };
  const excluded: string[] = [];
  for (const raw of excludedWords) {
    const phrase = phraseOf(raw);
    if (phrase && !excluded.includes(phrase)) excluded.push(phrase);
  }
  const narrowed: string[] = [];
  for (const raw of narrowedWords) {
    const phrase = phraseOf(raw);
    if (phrase && !narrowed.includes(phrase)) narrowed.push(phrase);
  }
  const wholeWords = trimStopWords(
    (read.chunks.length === chunks.length && chunks.every((c, k) => c === read.chunks[k])
      ? object
      : chunks.flat()
    ).filter((w) => w !== ','),
  );
  const whole = chunks.length > 1 && wholeWords.length > 0 && !object.includes(';') ? cutPhrase(wholeWords) : null;
  return {
    concepts,
    whole,
    match: sawAnd && !sawOr ? 'all' : 'any',
    scope,
    subject,
    subjectText,
    excluded: [...excluded, ...narrowed.filter((n) => !excluded.includes(n))].filter((e) => !concepts.includes(e)),
    exclusion: excluded.length ? exclusion : narrowed.length ? 'other_than' : null,
    narrowed: narrowed.filter((n) => !concepts.includes(n)),
    scene: fromScene,
    sceneParts: fromScene ? [] : scene.map((words) => cutPhrase(trimStopWords(words))).filter(Boolean),
    sceneSubjects: fromScene ? sceneSubjects : [],
    topLevelWords,
    contained: !fromScene && reading.pivot && !!reading.verb && !NEED_VERBS.has(reading.verb),
  };
}

/** Verbs of need: what follows may be a part or what must be done ("need a redesign"). */
const NEED_VERBS = new Set('need needs needing needed require requires requiring required'.split(' '));

/** Whether a clause asks: a question word opens it, and no condition follows the word. */
const asks = (clause: readonly string[]) => QUESTION_WORDS.has(clause[0]) && !opensCondition(clause);

/**
 * The clause that asks: the one a question word opens; a clause with a verb of use is the
 * question only when none does ("Quality has put X on hold. Which assemblies have one?").
 */
function mainClause(clauses: readonly string[][]): string[] {
  return clauses.find(asks) ?? clauses.find((c) => c.some((w) => ACTIVE_PIVOTS.has(w))) ?? clauses[0] ?? [];
}

/** Words that open what a purpose clause acts on ("to seal the lid", "to protect our input"). */
const PURPOSE_OBJECTS = new Set(['the', 'a', 'an', 'our', 'its', 'their', 'them', 'it', 'each', 'every', 'any']);

/**
 * A noun phrase opened by "the" or "a" and carried on by a relative clause ("the one that …",
 * "a piece which …").
 */
function appositive(chunk: readonly string[]): boolean {
  const at = chunk.findIndex((w) => w === 'that' || w === 'which' || w === 'who');
  return at > 1 && /^(?:the|a|an)$/.test(chunk[0]);
}

/**
 * A part phrase without the purpose clause after it: "clips to keep the hoses tidy"
 * asks for the spacers. A purpose clause is "to", a verb, then what it acts on; a name that joins
 * two things with "to" ("USB to serial converter", "board to board connector") has no such
 * object after its second word.
 */
function withoutPurpose(words: string[]): string[] {
  for (let i = 1; i + 2 < words.length; i++)
    if (words[i] === 'to' && PURPOSE_OBJECTS.has(words[i + 2])) return words.slice(0, i);
  return words;
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
 * ("10k resistor" in "Resistor 10k 0603"): a word in its plural/singular forms as a whole word;
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
