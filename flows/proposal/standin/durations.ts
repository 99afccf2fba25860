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
  eighteen: 18,
  twenty: 20,
  'twenty-four': 24,
};

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

const WEEKS_PER = { week: 1, month: 52 / 12, year: 52 } as const;
/** A season lasts about three months; the next one of its kind comes a year later. */
const SEASON_WEEKS = 13;

/** A sentence about what the researcher will do, not what has been. */
const PLAN =
  /\b(?:i will|i'll|i'd|i would|i want|i need|i plan|we will|we'd|plan is|planning|need(?:s|ed)? to|ideally|going to|aim to|hope to)\b/i;
const PAST = /\b(?:ago|since|have been|has been|for the past|in the past|had|was|were)\b/i;

// A count, up to two describing words, and a unit ("two full melt seasons", "18 months").
const COUNTED = new RegExp(
  String.raw`\b(\d{1,3}|${Object.keys(NUMBER_WORDS).join('|')})(?:[\s-]+[a-z]+){0,2}?[\s-]+` +
    String.raw`(weeks?|months?|years?|seasons?|summers?|winters?|springs?|autumns?|falls?)\b`,
  'gi',
);
const MONTH_RANGE = new RegExp(
  String.raw`\bfrom (${MONTHS.join('|')}) (?:to|until|till|through) (${MONTHS.join('|')})\b`,
  'gi',
);

export interface StatedSpan {
  weeks: number;
  /** The researcher's words that say it. */
  quote: string;
}

/** The longest span the researcher's plan sentences say the study must run, if any. */
export function statedSpan(text: string): StatedSpan | undefined {
  let best: StatedSpan | undefined;
  const consider = (weeks: number, quote: string) => {
    if (weeks > 0 && (!best || weeks > best.weeks)) best = { weeks: Math.round(weeks), quote };
  };
  // Bounded: a profile's context is at most a few thousand characters, and each sentence is read once.
  for (const sentence of text.slice(0, 20_000).split(/(?<=[.!?])\s+/)) {
    if (!PLAN.test(sentence) || PAST.test(sentence)) continue;
    for (const m of sentence.matchAll(COUNTED)) {
      // "The last five years" of records already exist: a span of the data, not of the study.
      if (
        /\b(?:last|past|previous|preceding|recent|earlier)\s+$/i.test(
          sentence.slice(Math.max(0, m.index - 12), m.index),
        )
      )
        continue;
      const n = /^\d/.test(m[1]) ? Number(m[1]) : NUMBER_WORDS[m[1].toLowerCase()];
      const unit = m[2].toLowerCase().replace(/s$/, '');
      if (unit === 'week' || unit === 'month' || unit === 'year') consider(n * WEEKS_PER[unit], m[0]);
      // Two summers: from the first to the end of the second, a year and a season.
      else consider((n - 1) * 52 + SEASON_WEEKS, m[0]);
    }
    for (const m of sentence.matchAll(MONTH_RANGE)) {
      const from = MONTHS.indexOf(m[1].toLowerCase());
      const to = MONTHS.indexOf(m[2].toLowerCase());
      consider((((to - from + 12) % 12) + 1) * WEEKS_PER.month, m[0]);
    }
  }
  return best;
}
