/**
 * How long the researcher says the study itself must run ("through two full seasons", "for
 * eighteen months", "from April to September"), read from the sentences where they describe
 * their plan. A study whose own data take longer to gather than the time available cannot be
 * completed in it, however few hours its method needs; a plan that ignored this would promise
 * what the calendar cannot give.
 *
 * Only spans the researcher plans count: a sentence about the past ("two years ago", "I have
 * taught for ten years") says nothing about the study's length.
 */

const NUMBER_WORDS: Record<string, number> = {
  a: 1,
  an: 1,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  thirteen: 13,
  fourteen: 14,
  fifteen: 15,
  sixteen: 16,
  seventeen: 17,
  eighteen: 18,
  nineteen: 19,
  twenty: 20,
  thirty: 30,
  forty: 40,
  fifty: 50,
};

const TENS: Record<string, number> = { twenty: 20, thirty: 30, forty: 40, fifty: 50 };

const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];

const WEEKS_PER = {
  day: 1 / 7,
  week: 1,
  fortnight: 2,
  month: 52 / 12,
  year: 52,
  decade: 520,
  // A school or university term is about three months, a semester about four; the teaching
  // year they make up is about nine months (September to June), not twelve.
  term: 13,
  semester: 18,
} as const;
/** A season lasts about three months; the next one of its kind comes a year later. */
const SEASON_WEEKS = 13;
/** The teaching year: "two school years" run from the first September to the second June. */
const TEACHING_YEAR_WEEKS = 39;
/** Words before "year" that make it a teaching year. */
const TEACHING = new Set(['academic', 'school', 'teaching', 'university', 'college']);
/** Short forms of the units ("2 yrs", "6 wks", "18 mths"). */
const SHORT_UNITS: Record<string, string> = {
  yr: 'year',
  yrs: 'year',
  wk: 'week',
  wks: 'week',
  mth: 'month',
  mths: 'month',
  mos: 'month',
};
/**
 * Words that make a count a rate or a number of things rather than a span: "30 hours per week",
 * "twice a year", "three times a month", "four sessions each week".
 */
const RATE = new Set(['per', 'each', 'every', 'a', 'an']);
const OFTEN = new Set(['once', 'twice', 'thrice', 'times', 'hours', 'hrs', 'minutes', 'mins', 'days', 'sessions']);

/** A sentence about what the researcher will do, not what has been ("I'd" before a participle is "I had"). */
const PLAN =
  /\b(?:i will|i'll|(?:i|we)'d (?!(?:[a-z]+ed|been|gone|done|seen|taught|spent|kept|made|run|had)\b)[a-z]+|i would|we would|i want|i need|i plan|we will|we'll|plan is|planning|needs? to|ideally|going to|aim to|hope to)\b/i;
const PAST = /\b(?:ago|since|have been|has been|had|was|were)\b/i;
/** Words before a count that make it a span of existing records or a limit, not the study's need. */
const NOT_A_NEED = new Set(['last', 'past', 'previous', 'preceding', 'recent', 'earlier', 'within', 'under']);
const UNITS =
  /^(days?|weeks?|fortnights?|months?|years?|decades?|terms?|semesters?|seasons?|summers?|winters?|springs?|autumns?|falls?)$/;
const MONTH_RANGE = new RegExp(
  String.raw`\bfrom (${MONTHS.join('|')}) (?:to|until|till|through) (${MONTHS.join('|')})\b`,
  'gi',
);

/** Words that join two things in one clause: the piece on each side may say a different span. */
const JOINS = /\s+(and|then|plus)\s+/i;

/**
 * Words and numbers, a decimal kept whole: "2.5 years" is not "5 years". A year written as a
 * range ("2025-26", "2024/25") is a name for one year, not a count of 26: it becomes one word.
 */
const wordsOf = (text: string) =>
  text
    .toLowerCase()
    .replace(/\b\d{4}\s*[-–/]\s*\d{2,4}\b/g, ' yearname ')
    .match(/\d+(?:\.\d+)?|[a-z0-9]+/g) ?? [];

const numberOf = (token: string | undefined): number | undefined => {
  if (!token) return undefined;
  if (/^\d{1,3}(?:\.\d+)?$/.test(token)) return Number(token);
  return Object.hasOwn(NUMBER_WORDS, token) ? NUMBER_WORDS[token] : undefined;
};

export interface StatedSpan {
  weeks: number;
  /** The researcher's words that say it. */
  quote: string;
  /** The clause it was read from. */
  clause: string;
  /**
   * The part of the clause the span belongs to, cut at "and", "then", "plus": "I will download
   * ten years of satellite images" and "install cameras for two seasons" are two things one clause
   * can join. Not at "with" or "by": "five years of exam results the school has", cut from
   * "compare them with", no longer reads as records already there.
   */
  segment: string;
  /** The words just before the count ("for", "over the next"), lower case. */
  lead: string[];
  /** The word just after the span ("of" in "ten years of records"), lower case. */
  after?: string;
  /**
   * Its sentence says what the researcher will do in so many words ("I will", "the plan is").
   * Otherwise ("The core of the study is a panel: ring the same households every month through
   * two school years") the caller decides by meaning whether it speaks of the work to come.
   */
  planned: boolean;
}

/** The longest span the researcher's plan sentences say the study must run, if any. */
export function statedSpan(text: string): StatedSpan | undefined {
  return statedSpans(text)
    .filter((s) => s.planned)
    .reduce<StatedSpan | undefined>((best, s) => (!best || s.weeks > best.weeks ? s : best), undefined);
}

/** Every span the researcher's sentences name, with the clause each was read from and whether the sentence says it plans. */
export function statedSpans(text: string): StatedSpan[] {
  const spans: StatedSpan[] = [];
  let clause = '';
  let segment = '';
  let lead: string[] = [];
  let after: string | undefined;
  let planned = false;
  const consider = (weeks: number, quote: string) => {
    if (weeks > 0) spans.push({ weeks: Math.round(weeks), quote, clause, segment, lead, after, planned });
  };
  // Bounded: a profile's context is at most a few thousand characters, and each sentence is read once.
  // Runs of white space become one space first: the clause splits below try `\s+` from every
  // position of a run, and 20,000 spaces took most of a second.
  for (const sentence of text
    .slice(0, 20_000)
    .replace(/\s+/g, ' ')
    .split(/(?<=[.!?])\s+/)) {
    planned = PLAN.test(sentence);
    // Clauses: "I hope to finish in six months; the previous study needed three years" plans one span.
    for (const part of sentence.split(/[;,]\s+|\s+(?:but|while|whereas)\s+/i)) {
      clause = part;
      if (PAST.test(clause)) continue;
      const tokens = wordsOf(clause);
      // Each token's segment: the pieces between joining words, read in order, hold the same tokens.
      const pieces = clause.split(JOINS);
      const segmentOf: string[] = pieces.flatMap((piece, k) =>
        wordsOf(piece).map(() => (k % 2 === 0 ? piece.trim() : clause)),
      );
      tokens.forEach((token, i) => {
        const unit = UNITS.exec(SHORT_UNITS[token] ?? token)?.[1].replace(/s$/, '');
        if (!unit) return;
        // "Year 10 pupils", "week 3 of the course": a unit followed by its number names it.
        if (/^\d/.test(tokens[i + 1] ?? '')) return;
        // The nearest count at most three words back ("two full melt seasons", "18 months").
        let at = -1;
        for (let j = i - 1; j >= Math.max(0, i - 3); j--) {
          const n = numberOf(tokens[j]);
          if (n !== undefined) {
            at = j;
            break;
          }
        }
        if (at < 0) return;
        // A rate ("30 hours per week", "twice a year", "four times a month") says how often, not how long.
        const between = tokens.slice(at + 1, i);
        // The count belongs to a nearer unit ("ten weeks this year"): not this one's.
        if (between.some((w) => UNITS.test(SHORT_UNITS[w] ?? w))) return;
        if (between.some((w) => RATE.has(w) || OFTEN.has(w))) return;
        // "Every two weeks", "each three months": how often.
        if (['every', 'each', 'per'].includes(tokens[at - 1])) return;
        if (
          (tokens[at] === 'a' || tokens[at] === 'an') &&
          (OFTEN.has(tokens[at - 1]) || numberOf(tokens[at - 1]) !== undefined)
        )
          return;
        let n = numberOf(tokens[at])!;
        // "Twenty-four months": the tens before the unit's count.
        const tens = TENS[tokens[at - 1]];
        if (tens && n < 10) n += tens;
        // "Three to five years", "one or two summers": the upper end.
        const low = numberOf(tokens[at - 2]);
        if (low !== undefined && (tokens[at - 1] === 'to' || tokens[at - 1] === 'or')) n = Math.max(n, low);
        // Halves and vague counts: "two and a half years", "half a year", "a year and a half", "a
        // couple of years", "a few months" (read as one year, one year and one month before).
        let from = at;
        let to = i;
        if (tokens[at] === 'a' || tokens[at] === 'an') {
          const between = tokens.slice(at + 1, i);
          const whole = numberOf(tokens[at - 2]);
          if (tokens[at - 1] === 'half') [n, from] = [0.5, at - 1];
          else if (tokens[at + 1] === 'half' && tokens[at - 1] === 'and' && whole !== undefined)
            [n, from] = [whole + 0.5, at - 2];
          else if (between.includes('couple')) n = 2;
          else if (between.includes('few')) n = 3;
          // "A half-year", "a half year".
          else if (between[0] === 'half') n = 0.5;
        }
        if (tokens[i + 1] === 'and' && (tokens[i + 2] === 'a' || tokens[i + 2] === 'an') && tokens[i + 3] === 'half')
          [n, to] = [n + 0.5, i + 3];
        const before = tokens.slice(Math.max(0, from - 3), from);
        if (before.some((w) => NOT_A_NEED.has(w))) return;
        const quote = tokens.slice(from, to + 1).join(' ');
        segment = segmentOf[at] ?? clause;
        lead = tokens.slice(Math.max(0, from - 5), from);
        after = tokens[to + 1];
        if (unit === 'year' && between.some((w) => TEACHING.has(w)))
          // One teaching year is nine months; each more adds a whole year round.
          consider((n - 1) * WEEKS_PER.year + TEACHING_YEAR_WEEKS, quote);
        else if (Object.hasOwn(WEEKS_PER, unit)) consider(n * WEEKS_PER[unit as keyof typeof WEEKS_PER], quote);
        // Two summers: from the first to the end of the second, a year and a season.
        else consider((n - 1) * 52 + SEASON_WEEKS, quote);
      });
    }
    clause = sentence;
    segment = sentence;
    lead = [];
    after = undefined;
    const monthSpan = (from: number, to: number) =>
      (((to - from + 12) % 12 || 12) + (to === from ? 0 : 1)) * WEEKS_PER.month;
    for (const m of sentence.matchAll(MONTH_RANGE)) {
      // From April to April is a whole year round.
      consider(monthSpan(MONTHS.indexOf(m[1].toLowerCase()), MONTHS.indexOf(m[2].toLowerCase())), m[0]);
    }
    for (const range of monthRangesWithWordsBetween(sentence)) consider(monthSpan(range.from, range.to), range.quote);
  }
  return spans;
}

/** How many words may stand between "from" and its month, and between "to"/"until" and its month. */
const RANGE_WORDS_BEFORE_MONTH = 8;
/** Words before a month's name that make "may" the month: "in May", "from May", "early May". */
const MONTH_LEADS = new Set([
  'in',
  'from',
  'of',
  'by',
  'since',
  'until',
  'till',
  'early',
  'late',
  'mid',
  'next',
  'last',
  'this',
]);
const capitalised = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);
/** Words that end a span of months: "until June", "through to June", "to the last week of June". */
const RANGE_ENDS = new Set(['to', 'until', 'till', 'through']);

/**
 * Spans of months told with words between their ends ("from the first workshop in September, …,
 * to the last show in June"; "starts in September and runs until June"): a month, then "until",
 * "till" or "through" with a month a few words after it; or, after "from" and its month, "to" with
 * one. A bare "to" after a month needs the "from" ("in March to plan May's visits" is no span).
 * The ends told next to each other ("from April to September") are MONTH_RANGE's.
 */
function monthRangesWithWordsBetween(sentence: string): Array<{ from: number; to: number; quote: string }> {
  const words = sentence.toLowerCase().match(/[a-z]+/g) ?? [];
  const monthAt = (k: number) => MONTHS.indexOf(words[k]);
  const out: Array<{ from: number; to: number; quote: string }> = [];
  for (let i = 0; i < words.length; i++) {
    const first = monthAt(i);
    // "May" after no word of time is the verb ("the work may run until June").
    if (first < 0 || (words[i] === 'may' && !MONTH_LEADS.has(words[i - 1] ?? ''))) continue;
    const fromBefore = words.slice(Math.max(0, i - RANGE_WORDS_BEFORE_MONTH), i).includes('from');
    for (let j = i + 1; j < words.length && monthAt(j) < 0; j++) {
      if (!RANGE_ENDS.has(words[j]) || (words[j] === 'to' && !fromBefore)) continue;
      const k = words.slice(j + 1, j + 1 + RANGE_WORDS_BEFORE_MONTH).findIndex((w) => MONTHS.includes(w));
      // Next to each other, MONTH_RANGE has it already.
      if (k > 0 || (k === 0 && !(fromBefore && words[i - 1] === 'from'))) {
        const to = monthAt(j + 1 + k);
        out.push({ from: first, to, quote: `from ${capitalised(MONTHS[first])} to ${capitalised(MONTHS[to])}` });
        break;
      }
    }
  }
  return out;
}
