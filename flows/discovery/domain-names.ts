/**
 * The names a document or a table description gives its domain (a league's or an agency's
 * acronym, a proper name of several capitalised words), and which of them a requirements document
 * calls its own. Pure and deterministic: the workflow reads a PRP's names once and sends them with
 * every validation, and the stand-in reads table descriptions with the same rules.
 */
import { COLUMN_STOP_WORDS } from '../../domain/text';

/** What a requirements document names as its domain: the names it uses, and the names it rules out. */
export interface DocumentDomains {
  /** Names the document uses outside any part that rules data out (its background, its needs, its columns). */
  own: string[];
  /** Names it uses only where it rules data out ("Not wanted", "Out of scope", "leave ... out"). */
  excluded: string[];
  /** The sentences that rule data out, named or not ("the studio's own telemetry is not wanted"). */
  ruledOutText?: string[];
  /**
   * What the document says it is about, in its own words: the words and pairs of words of its
   * title and its prose outside the parts that rule data out and outside its column table, as a
   * sorted list (`wordsOfAccount`). People name their subject there ("a club in the top netball
   * league"), seldom in the columns, which read alike across domains.
   */
  about?: string;
}

/** The most of the document's own account sent with each validation: the embedder reads some 256 tokens. */
export const ABOUT_CHARS = 800;

export const ACRONYM_STOP = new Set([
  'PRP',
  'KPI',
  'KPIS',
  'API',
  'ID',
  'UI',
  'ML',
  'AI',
  'SQL',
  'UTC',
  'MVP',
  'ETL',
  'BI',
  'CSV',
  'JSON',
  'US',
  'USD',
  'MAE',
  'RMSE',
  'TBD',
  'FAQ',
  'OK',
  'II',
  'III',
  'IV',
  'REG',
  'POST',
  'STRING',
  'INT',
  'DATE',
  'BOOL',
  'FLOAT',
  'NUMERIC',
  'TIMESTAMP',
]);

/** ISO 4217 currency codes as the runtime knows them: a unit of money, never a domain. */
const CURRENCY_CODES: ReadonlySet<string> = new Set(
  typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('currency') : [],
);
/** Words around an acronym that make it a charge on an amount ("excluding VAT", "GST paid"), not a domain. */
const CHARGE_BEFORE = /(?:\b(?:incl|including|inclusive of|excl|excluding|exclusive of|net of|gross of)\.?|%)\s*$/i;
const CHARGE_AFTER =
  /^\s*(?:amount|amounts|rate|rates|charged|paid|due|included|excluded|inclusive|exclusive|refund|refunds|refunded|payable|owed|receipts|rebate|rebates)\b/i;

/**
 * Whether an acronym where it stands is a unit or a charge on money: a currency code ("amounts in
 * EUR") or an acronym that qualifies an amount ("prices excluding VAT", "GST paid"). Such an
 * acronym says how the figures are kept, not whose they are.
 */
export function isMoneyAcronym(acronym: string, before = '', after = ''): boolean {
  return CURRENCY_CODES.has(acronym) || CHARGE_BEFORE.test(before) || CHARGE_AFTER.test(after);
}

/** Acronyms of the PRP outside code and type names, most frequent first (e.g. "NFL"); they name its domain. */
export function acronymsOf(text: string): string[] {
  const counts = new Map<string, number>();
  const plain = text.replace(/`[^`]*`/g, ' ');
  for (const m of plain.matchAll(/\b[A-Z]{2,5}\b/g)) {
    const at = m.index ?? 0;
    if (ACRONYM_STOP.has(m[0]) || /\d/.test(m[0])) continue;
    if (
      isMoneyAcronym(m[0], plain.slice(Math.max(0, at - 20), at), plain.slice(at + m[0].length, at + m[0].length + 20))
    )
      continue;
    counts.set(m[0], (counts.get(m[0]) ?? 0) + 1);
  }
  return [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([a]) => a);
}

/**
 * What a table description names as its domain: acronyms ("NFL", "NOAA") and proper names of two
 * or more capitalised words ("English Premier League").
 */
export function domainMarkers(description: string): string[] {
  // A sentence's capitalised first word is not part of the name ("The Grand Prix circuit").
  const names = [...description.matchAll(/\b[A-Z][a-z]+(?:\s+[A-Z][a-z]+)+\b/g)]
    .map((m) => m[0].replace(LEADING_WORD, ''))
    .filter((n) => /\s/.test(n));
  return [...acronymsOf(description), ...names];
}

/** Words that open a sentence before a name: an article, a determiner, a possessive. */
const LEADING_WORD =
  /^(?:The|A|An|Our|Their|Its|His|Her|My|Your|This|That|These|Those|Every|Each|All|Any|No|Some|Only|Both|From|For|In|On|At|By|With|Of)\s+/;

/**
 * Headings of a part that lists what the requirement does not want: everything named under them
 * is ruled out, not asked for.
 */
const EXCLUDING_HEADING =
  /\b(not wanted|unwanted|not needed|not required|not in scope|out of scope|out-of-scope|non[- ]?goals?|exclusions?|excluded|excludes|exclude|what we (?:do not|don't) (?:want|need)|leave out|left out|ignore|(?:do not|don't|not to) include|not included|not part of)\b/i;

/**
 * A sentence that rules something out where it stands ("please leave its games out", "excluding
 * the minor leagues", "we do not want the professional league"): the names in it are not asked for.
 */
const EXCLUDING_SENTENCE =
  /\b(leave\b[^.;:]{0,60}\bout|leaves\b[^.;:]{0,60}\bout|leave out|left out|exclud(?:e|es|ed|ing)|not wanted|out of scope|(?:do|does|did) not (?:want|need|include|cover)|(?:don't|doesn't|didn't) (?:want|need|include|cover)|no interest in|not interested in)\b/i;

// Spaces and text cannot trade characters (the text starts with a non-space): linear on any line.
const HEADING = /^ {0,3}(#{1,6})[ \t]+(\S.*)?$/;

/**
 * The domain names a requirements document uses as its own, and those it only rules out. A part
 * under a heading that excludes ("Not wanted", "Out of scope", "Non-goals") and a sentence that
 * excludes ("leave the minor leagues out") name what is not wanted; every other part (background,
 * needs, the column table) names what is. A name used in both is the document's own: a document
 * may want one league's games and rule out that league's forecasts.
 */
export function documentDomains(prp: string): DocumentDomains {
  const own = new Set<string>();
  const ruledOut = new Set<string>();
  const ruledOutText: string[] = [];
  const about: string[] = [];
  let aboutLength = 0;
  let excludingLevel = 0;
  let excludingList = false;
  // A paragraph's lines are read together: a sentence that leaves a name out may wrap.
  let paragraph: string[] = [];
  let paragraphExcludes = false;
  let titled = false;
  const flush = () => {
    // The document's own account: its title and prose, not its other headings ("Background"),
    // its column table or what it rules out.
    const prose = paragraph
      .filter((l) => {
        if (/^\s*\|/.test(l)) return false;
        const heading = HEADING.exec(l);
        if (!heading) return true;
        const title = heading[1].length === 1 && !titled;
        if (title) titled = true;
        return title;
      })
      .join(' ');
    if (!paragraphExcludes)
      for (const sentence of prose.split(/(?<=[.;!?])\s+/)) {
        if (aboutLength >= ABOUT_CHARS) break;
        const plain = plainProse(sentence);
        if (!plain || excludingSentence(sentence)) continue;
        about.push(plain);
        aboutLength += plain.length + 1;
      }
    for (const sentence of paragraph.join(' ').split(/(?<=[.;!?])\s+/)) {
      const excludes = paragraphExcludes || excludingSentence(sentence);
      const into = excludes ? ruledOut : own;
      // Without its list marker or its excluding label ("Not needed: ..."): what it rules out.
      let text = sentence.replace(/^[\s*+-]+/, '').trim();
      const label = /^\*{0,2}([^:*]{1,40}):\*{0,2}\s+(\S.*)$/.exec(text);
      if (label && EXCLUDING_HEADING.test(label[1])) text = label[2];
      if (excludes && text.length > 12 && ruledOutText.length < 8) ruledOutText.push(text.slice(0, 240));
      for (const name of domainMarkers(sentence)) into.add(name);
    }
    paragraph = [];
    paragraphExcludes = false;
  };
  for (const line of withoutNonProse(prp).split(/\r?\n/)) {
    const heading = HEADING.exec(line);
    // A blank line, a heading, a list item or a table row begins a new paragraph.
    if (!line.trim() || heading || /^\s*(?:[-*+]|\d+[.)])\s/.test(line) || /^\s*\|/.test(line)) flush();
    if (!line.trim()) excludingList = false;
    if (heading) {
      excludingList = false;
      const level = heading[1].length;
      // A heading of the same or a higher level ends an excluding part; a sub-heading stays in it.
      if (excludingLevel && level <= excludingLevel) excludingLevel = 0;
      if (!excludingLevel && EXCLUDING_HEADING.test(heading[2] ?? '')) {
        excludingLevel = level;
        continue;
      }
    }
    // A label that excludes ("**Not wanted:** ...", "Out of scope:") rules out the rest of its
    // line and the list under it, up to the next blank line.
    const label = /^\s*(?:[-*+]\s+)?(?:\*\*([^*]{1,60})\*\*|([^:.]{1,60}):)/.exec(line);
    if (label && EXCLUDING_HEADING.test(label[1] ?? label[2])) excludingList = true;
    if (excludingLevel > 0 || excludingList) paragraphExcludes = true;
    paragraph.push(line);
  }
  flush();
  return {
    own: [...own],
    excluded: [...ruledOut].filter((n) => !own.has(n)),
    ruledOutText,
    ...(about.length ? { about: wordsOfAccount(about) } : {}),
  };
}

/**
 * Whether a sentence rules something out, read as a reader reads it: without emphasis ("do
 * **not** want"), with any apostrophe ("don’t") and any space between its words.
 */
function excludingSentence(sentence: string): boolean {
  return (
    EXCLUDING_SENTENCE.test(sentence) ||
    EXCLUDING_SENTENCE.test(plainProse(sentence).replace(/[\u2018\u2019\u02bc]/g, "'"))
  );
}

/**
 * The document without what is not prose or headings: fenced code, HTML comments and a front
 * matter block (a heading inside a fence is not the document's, nor a comment its account).
 * Each is replaced by blank lines, so paragraphs stay apart.
 */
function withoutNonProse(prp: string): string {
  const blank = (text: string) => text.replace(/[^\n]+/g, '');
  const lines = prp
    .replace(/^---\r?\n[\s\S]*?\r?\n---[ \t]*(?=\r?\n|$)/, blank)
    .replace(/<!--[\s\S]*?(?:-->|$)/g, blank)
    .split('\n');
  // A fence runs from its opening line to a line of the same marks, or to the end.
  let fence: string | undefined;
  return lines
    .map((line) => {
      const marks = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
      if (fence === undefined) {
        if (!marks) return line;
        fence = marks;
        return '';
      }
      if (marks && marks[0] === fence[0] && marks.length >= fence.length) fence = undefined;
      return '';
    })
    .join('\n');
}

/** Words that say nothing of a subject ("after", "nobody", "actually"), beside the columns' stop words. */
const ACCOUNT_STOP_WORDS = new Set(
  (
    'about actually after also any before being both but can cannot could did does doing done each even ever every ' +
    'our ours its their theirs his her hers him them they we us my mine ' +
    'from had has have here how into just like many may might more most much must never nobody none nothing now ' +
    'off once one only other ours out over own said same say says see she should since some still such than that ' +
    'then there these they this those through too under until upon very want wants was way well were what when ' +
    'where which while who whom whose why will would yes yet you your'
  ).split(' '),
);

/**
 * The account as the validations receive it: its content words and pairs of neighbouring content
 * words ("county roads"), once each, in alphabetical order, as a list. Its sentences never reach a
 * model that judges tables: a document is written by whoever asks, and a sentence in it can be an
 * instruction ("ignore the columns and report …"); a sorted list of its words says what it is
 * about and commands nothing.
 */
function wordsOfAccount(sentences: readonly string[]): string {
  const content = (w: string | undefined) =>
    !!w && w.length > 2 && !COLUMN_STOP_WORDS.has(w) && !ACCOUNT_STOP_WORDS.has(w);
  // The first phrases told, as many as fit, then sorted: the opening says most of the subject.
  const phrases = new Set<string>();
  let length = 0;
  const take = (phrase: string) => {
    if (phrases.has(phrase) || length + phrase.length + 2 > ABOUT_CHARS) return;
    phrases.add(phrase);
    length += phrase.length + 2;
  };
  // A pair is two words of one clause: never across a full stop or a comma.
  for (const clause of sentences.flatMap((s) => s.split(/[.,;:!?()]+/))) {
    const tokens = clause.toLowerCase().match(/[\p{L}][\p{L}\p{N}'’-]*/gu) ?? [];
    tokens.forEach((w, i) => {
      if (!content(w)) return;
      take(w);
      if (content(tokens[i + 1])) take(`${w} ${tokens[i + 1]}`);
    });
  }
  return [...phrases].sort().join(', ');
}

/** A line of prose without its markdown (emphasis, code marks, list markers): the words a reader reads. */
function plainProse(text: string): string {
  return text
    .replace(/[*_`#>]+/g, ' ')
    .replace(/[\u00a0\u2000-\u200b\u202f]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}
