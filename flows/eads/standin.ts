/**
 * Stand-in rules for the EADS interview. Each answer is computed from the prompt's sections:
 *
 *  - eads.orchestrate: topic order among the eligible candidates, ties broken by word overlap
 *    with what the conversation revealed;
 *  - eads.question: the opening question an objective quotes, else one question for the first
 *    askable field (its comment's own question, or a template by field kind);
 *  - eads.surrogate_answer: the firm's table whose columns match a table question's template,
 *    rendered as a markdown table; else the fact nearest in meaning to the question (its choices
 *    included), by the fact's label and its answer, two when they are about as near, "not sure"
 *    when none is near;
 *  - eads.refine: parses the answer by field kind (markdown tables, lists, quantities, yes/no,
 *    choices scored by weighted keyword overlap with their definitions) and derives the fields
 *    the EADS says not to ask about.
 *
 * Nothing here knows the demo firms: a new fixture or a new EADS gets sensible answers too.
 */
import {
  choiceFromPlainAnswer,
  choiceLabel,
  isPlainObject,
  UNDETERMINED,
  type Choice,
  type FieldKind,
} from '../../domain/eads-structure';
import { contentTokens, overlapShare } from '../../domain/text';
import { mapHeaders } from '../../domain/text-match';
import { NUMBER_WORDS } from '../../domain/schedule-model';
import { ModelTask, type PromptedQuestion } from './model-tasks';
import { classify, decide, decideFromEvidence, meaningSpace, trainable } from '../lib/standin/meaning';
import { taskRule, type StandinRule } from '../lib/standin';
import {
  NONE,
  oneMachineChoice,
  oneSaid,
  routeChoices,
  routeSaid,
  differsInSomethingElse,
  singleThingIsEquipment,
  withNone,
} from './standin/meaning';
import { resourcesFromProse } from './standin/resources';
import { routeShape } from './standin/structure';
import { TROUBLE_DENIED } from './standin/trouble-phrasings';

// ---------------------------------------------------------------------------------------------
// Shapes of the sections (as the activities send them).

interface PromptField {
  name: string;
  kind: FieldKind;
  derived?: boolean;
  question?: string;
  comment?: string;
  columns?: Array<{ name: string; kind: FieldKind }>;
  choices?: Array<Choice | string>;
  multiple?: boolean;
}

const asArray = <T>(value: unknown): T[] => (Array.isArray(value) ? (value as T[]) : []);
const asObject = (value: unknown): Record<string, unknown> => (isPlainObject(value) ? value : {});
const normalise = (text: string) => text.toLowerCase().replace(/\s+/g, ' ').trim();
/**
 * How the surrogate picks a fact (calibrated for MiniLM's cosine on short texts): a fact's label says
 * what it is about and weighs most, its answer says what the firm actually told and adds the rest.
 * Below the floor nothing the firm said is close and a person says they are not sure; a second
 * fact within the margin of the best is as likely meant, and a person unsure which was meant says both.
 */
const SURROGATE_LABEL_WEIGHT = 0.65;
const SURROGATE_FLOOR = 0.22;
const SURROGATE_MARGIN = 0.04;
/**
 * A question that asks two things also orders the facts by the content words its asked sentences
 * share with each label (as a fraction of both), this much: over the 232 development firms, the fact about
 * what the firm does and what makes planning hard answered the opening question for 193 by
 * meaning alone and for 216 with the words at 0.15 (220 at 0.25).
 */
const SURROGATE_WORDS_WEIGHT = 0.15;
const humanize = (name: string) => name.replace(/\?$/, '').replace(/-+/g, ' ');
const sentences = (text: string) =>
  (text.replace(/\s+/g, ' ').match(/[^.!?]+[.!?]?/g) ?? []).map((s) => s.trim()).filter(Boolean);

// ---------------------------------------------------------------------------------------------
// Parsing answers.

/** A markdown (pipe) table: header cells and rows of cells. */
export function parseMarkdownTable(text: string): { headers: string[]; rows: string[][] } | undefined {
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.includes('|'));
  const cells = (line: string) => {
    const parts = line.split('|').map((c) => c.trim());
    if (parts[0] === '') parts.shift();
    if (parts.length && parts[parts.length - 1] === '') parts.pop();
    return parts;
  };
  const content = lines.filter((l) => !/^\|?\s*:?-{2,}/.test(l));
  if (content.length < 2) return undefined;
  const headers = cells(content[0]);
  if (headers.length < 2) return undefined;
  return {
    headers,
    rows: content
      .slice(1)
      .map(cells)
      .filter((r) => r.some((c) => c !== '')),
  };
}

/** Splits a list answer: commas, semicolons, new lines, and a final "and". */
export function splitList(text: string): string[] {
  let body = text.trim();
  const lead = /^[^,\n]{0,80}?:\s+(?=\S)/.exec(body);
  if (lead) body = body.slice(lead[0].length);
  return body
    .split(/\s*(?:,|;|\n)\s*|\s+and\s+(?=[^,]*$)/)
    .map((item) =>
      item
        .replace(/^\s*(?:[-*•]|\d+[.)])\s*/, '')
        .replace(/^(?:and|or)\s+/i, '')
        .replace(/[.!]+$/, '')
        .trim(),
    )
    .filter((item) => item.length > 0 && item.length < 200);
}

const UNIT_WORDS: Array<[RegExp, string]> = [
  [/^(s|secs?|seconds?)$/i, 'seconds'],
  [/^(m|mins?|minutes?)$/i, 'minutes'],
  [/^(h|hrs?|hours?)$/i, 'hours'],
  [/^(d|days?)$/i, 'days'],
  [/^(w|wks?|weeks?)$/i, 'weeks'],
  [/^(months?)$/i, 'months'],
];

/** "About 22 days", "1.5 h", "90 minutes" → `{ units, value-string }`. */
export function parseQuantity(text: string): { units: string; 'value-string': string } | undefined {
  const m =
    // Only from a number's first digit: from every digit of a long run of digits the match was tried again (quadratic).
    /(?<!\d)(\d+(?:\.\d+)?(?:\s*(?:-|to)\s*\d+(?:\.\d+)?)?)\s*(seconds?|secs?|minutes?|mins?|hours?|hrs?|h|days?|d|weeks?|wks?|months?)\b/i.exec(
      text,
    );
  if (!m) return wordedQuantity(text);
  const unit = UNIT_WORDS.find(([re]) => re.test(m[2]))?.[1] ?? m[2].toLowerCase();
  return { units: unit, 'value-string': m[1].replace(/\s+/g, ' ') };
}

/**
 * A span said in words ("half a day", "two hours", "an hour and a half"). Not a rate: "once a
 * week" or "three times a day" says how often, not how long.
 */
const SPOKEN = NUMBER_WORDS.slice(1).join('|');
// A rate word before the span, or before the first number of a range ("every two to three hours"), makes it a rate.
const WORDED_SPAN = new RegExp(
  String.raw`(?<!\b(?:once|twice|times|per|every|each)\s+(?:\w+\s+(?:to|or|-)\s+)?)\b(?:(${SPOKEN})\s+(?:to|or|-)\s+)?(half an?|an?|${SPOKEN})\s+(seconds?|minutes?|hours?|days?|weeks?|months?)\b(\s+and a half)?`,
  'i',
);
function wordedQuantity(text: string): { units: string; 'value-string': string } | undefined {
  const m = WORDED_SPAN.exec(text);
  if (!m) return undefined;
  const said = m[2].toLowerCase();
  const n = said.startsWith('half') ? 0.5 : /^an?$/.test(said) ? 1 : NUMBER_WORDS.indexOf(said);
  const unit = UNIT_WORDS.find(([re]) => re.test(m[3]))?.[1] ?? m[3].toLowerCase();
  const value = String(m[4] ? n + 0.5 : n);
  // A range said in words ("two to three days") is read as the figures' "2-3".
  return { units: unit, 'value-string': m[1] ? `${NUMBER_WORDS.indexOf(m[1].toLowerCase())}-${value}` : value };
}

/** A leading yes or no. */
export function parseYesNo(text: string): boolean | undefined {
  const t = text.trim().toLowerCase();
  if (/^(yes|yeah|yep|true|correct|right|definitely|indeed|mostly yes)\b/.test(t)) return true;
  if (/^(no|nope|false|not really|never|not at all)\b/.test(t)) return false;
  return undefined;
}

const choiceOf = (c: Choice | string): Choice => (typeof c === 'string' ? { key: c, definition: '' } : c);

/**
 * How sure a reading must be: the mean of a choice's two best phrasings, clear of "none of them"
 * and the runner-up. One choice for the whole answer (a wrong one misleads the rest of the
 * interview) needs a wider margin than one of several tags.
 */
const READ_ONE = { topK: 2, floor: 0.4, margin: 0.1 } as const;
/**
 * One of several tags, per phrase: MiniLM scores a firm's own nouns low against general words
 * ("certified mechanics" against "one person is certified"), so the floor is low and the margin
 * over every other trouble and over "nothing in particular" is what makes a phrase clear.
 */
const READ_SEVERAL = { topK: 2, floor: 0.25, margin: 0.03, marginOverNone: 0.03 } as const;
/** A sentence with its clauses: the best of them plus half the next (decideFromEvidence). */
const READ_SENTENCE = { floor: 0.5, margin: 0.03, second: 0.5 } as const;
/**
 * The classifier trained on the everyday phrasings (flows/lib/standin/meaning.ts, `classify`)
 * hears troubles said in words the short descriptions lack. Sixteen troubles share the probability,
 * so a clear reading is well below certainty: at 0.5 its phrasings were read right 96 times in 100
 * under cross-validation (a third of them reach it).
 */
const READ_PHRASED = { minProbability: 0.5 } as const;
/**
 * Where the embedding and the classifier must agree on a trouble: the classifier's first choice
 * for one unit (then, at this probability, the embedding needs no margin over its runner-up), or
 * among its first two for a sentence's clauses read together.
 */
const AGREE = { minProbability: 0.3, togetherAmong: 2, tie: 0.02 } as const;
/** How sure the classifier must be of a route the unit's words do not name. */
const CLEAR_ROUTE = 0.8;

/**
 * The units an answer is read in: its sentences, and their clauses where a sentence joins two
 * thoughts ("…, but …", "…; …", "…: …"), so that one sentence naming two troubles is heard twice.
 */
export function unitsOf(text: string): string[] {
  const units: string[] = [];
  for (const sentence of sentences(text)) {
    units.push(sentence);
    const clauses = clausesOf(sentence);
    if (clauses.length > 1) for (const c of clauses) if (c.split(/\s+/).length >= 3) units.push(c);
  }
  return [...new Set(units)];
}

/** Each unit that spells out what a colon's head clause said, mapped to that head clause. */
function elaborationHeads(text: string): Map<string, string> {
  const heads = new Map<string, string>();
  for (const sentence of sentences(text)) {
    const colon = sentence.indexOf(': ');
    if (colon < 0) continue;
    const head = clausesOf(sentence.slice(0, colon)).at(-1);
    if (!head) continue;
    const rest = sentence.slice(colon + 2);
    for (const unit of [rest.trim(), ...clausesOf(rest)]) if (unit) heads.set(unit, head);
  }
  return heads;
}

const clausesOf = (sentence: string): string[] =>
  sentence
    .split(
      /\s*[;:]\s+|,\s+(?=(?:but|so|and|because|since|although|while|whereas)\b)|\s+(?=(?:but|because|since|although|whereas)\b)/i,
    )
    .map((c) => c.replace(/^(?:but|so|and|because|since|although|while|whereas)\s+/i, '').trim())
    .filter(Boolean);

/*
 * A trouble denied: the negation falls on the trouble itself ("… is never a problem", "we don't
 * struggle with …", "no trouble with …"), with only small words between the two. A negation
 * elsewhere in a clause is often how a trouble is told ("we can't get enough people", "nothing
 * moves until …"): those clauses are kept. The words here are the general ones for "a trouble",
 * never what a trouble is about.
 */
const NEGATOR = String.raw`(?:\w+n't|not|never|no|no longer|nothing|none|nobody|no one|hardly|rarely|seldom)`;
const SMALL_WORDS = String.raw`(?:a|an|any|the|much|many|really|too|so|very|ever|big|real|major|great|particular|serious|of|to|is|are|was|were|have|has|had|got|get|been|be|cause|causes|give|gives|face|see|seen|for|us|me|them|it|one|thing|things|anything|something|what|we|ever|my|our|your|their|where|remember|recall)`;
const TROUBLE_WORD = String.raw`(?:problems?|issues?|troubles?|concerns?|headaches?|worry|worries|difficult|difficulty|difficulties|hard|tricky|struggle|struggles|challenges?|hassles?|bother|big deal|late|short|shortages?|breakdowns?|breaks? down|break down|broke down|broken down|runs? out|ran out|fails?|failed|delayed|delays?|clash(?:es)?|queues?|waits?|waiting|(?:held|holds?|holding)(?: \w+)? up)`;
/** "The problem isn't …": the trouble word first, its denial after it, and what it denies after that. */
const TROUBLE_NOUN = String.raw`(?:problems?|issues?|troubles?|concerns?|headaches?|worry|worries|challenges?|hassles?)`;
const IS_NOT = String.raw`(?:isn't|is not|wasn't|was not|aren't|are not|is never|was never|has never been|have never been)`;
/**
 * After "the problem is not …", words that tell the trouble rather than deny it: a lack ("is not
 * having enough room", "is not knowing when …") or the trouble's state ("is not solved", "are not
 * small"). With a contrast after a comma ("… isn't having staff, it's …") it is a denial again.
 */
const TELLS_TROUBLE = String.raw`(?:having|knowing|being|getting|finding|hearing|seeing|keeping|making|able|small|minor|trivial|solved|fixed|resolved|sorted|over|gone|going|easy|cheap|rare|new|temporary)`;
/**
 * Other ways of saying a thing is no trouble: it "is nothing" (where the clause ends there, not
 * "nothing we can do"), or there is "no … to speak of" or none "to fit around".
 */
const IS_NOTHING = String.raw`\b(?:is|are|was|'s)\s+nothing(?:\s+(?:for|to)\s+(?:us|me))?(?=\s*(?:[,.;!]|$))`;
// "To fit around" denies only where the clause ends there ("no holidays to plan around."): with
// an object after it, the lack is the trouble ("no room to work around the old press").
const NONE_TO_SPEAK_OF = String.raw`\bno\s+(?:\w+\s+){1,2}to\s+(?:speak\s+of|worry\s+about|(?:fit\s+(?:around|round|in)|work\s+around|plan\s+around)(?=\s*(?:[,.;!?]|$)))`;
// Not after another negation: "never not a problem" tells one.
const DENIED = new RegExp(
  String.raw`(?<!(?:\bnever|\bnot|n't)\s+)\b${NEGATOR}\s+(?:${SMALL_WORDS}\s+){0,4}${TROUBLE_WORD}\b|\b${TROUBLE_NOUN}\s+(?:here\s+|now\s+)?${IS_NOT}\b(?!\s+${TELLS_TROUBLE}\b(?![^,;]*,))|${IS_NOTHING}|${NONE_TO_SPEAK_OF}`,
  'i',
);
/**
 * Negations that tell a trouble is many, not none: "never had so many breakdowns", "no shortage
 * of headaches", "never short of problems", "no end of delays".
 */
const MANY_TROUBLES = new RegExp(
  String.raw`\b(?:never|not|n't)\s+(?:\w+\s+)?(?:had|seen|known|faced)\s+(?:so|as|this) (?:many|much)\b|\b(?:no|never|not|n't)\s+(?:\w+\s+)?(?:shortage|short|end)\s+(?:of|to)\s+(?:\w+\s+){0,3}${TROUBLE_WORD}`,
  'i',
);
/**
 * A trouble named after a denial ("no problems except the late vans", "the ovens aren't the
 * issue, it's the staff"): what follows is told, whatever came before.
 */
const TOLD_AFTER =
  /(?:,\s*|\s+)(?:except(?:\s+for)?|apart from|other than|besides|save for|it's|it is|that's|what is|only)\s+(.+)$|,\s+((?:the\s+|our\s+)?\w+(?:\s+\w+)?\s+(?:are|is|was|were|do|does))[.!?]?$|,\s+([^,]+)$/i;
/** A negation before the one that denies, unless it is an answer's leading "no," on its own. */
const NEGATION_BEFORE = new RegExp(String.raw`\b${NEGATOR}\b(?!\s*[,.!])`, 'i');
/**
 * Where a clause denies a trouble, or -1. A negation earlier in the clause turns the denial round:
 * "never a week goes by that the press isn't late", "I can't recall a shift the lift wasn't broken down".
 */
const denialAt = (text: string): number => {
  const at = text.search(DENIED);
  if (at < 0) return -1;
  const before = text.slice(0, at).replace(/^\s*(?:no|nope|not really|not at all)\b[\s,.!]*/i, '');
  return NEGATION_BEFORE.test(before) ? -1 : at;
};
/** The part of a denying clause that names a trouble after the denial, if any. */
const toldAfterDenial = (text: string): string | undefined => {
  const at = denialAt(text);
  if (at < 0) return undefined;
  const m = TOLD_AFTER.exec(text.slice(at));
  // Or any clause after the denial's comma ("no one problem here, every order ships late"): the
  // readers by meaning then judge whether it names a trouble at all.
  const after = m?.[1] ?? m?.[2] ?? m?.[3];
  // "…, it's always been reliable" goes on denying: only a part that does not say things go well is told.
  return after && after.split(/\s+/).length >= 2 && !DENIED.test(after) && !WENT_WELL.test(after) ? after : undefined;
};
/**
 * Words of things going well: what "used to" be so and is no more is then a trouble now ("the vans
 * used to be on time"; "enough", checked apart, also tells one). After a denial they go on denying.
 */
const WENT_WELL =
  /\b(?:on time|reliable|fine|okay|alright|all right|sorted|easy|smooth(?:ly)?|plenty|spare|under control|no (?:problem|issue|trouble)s?)\b/i;
const AMPLE = /\b(?:plenty of|no shortage of|more than enough|spare capacity|to spare)\b/i;
const GOES_WELL =
  /\b(?:is|are|was|were|has been|have been|'s|'re)\s+(?:always\s+|usually\s+|pretty\s+|quite\s+|generally\s+)?(?:fine|okay|ok|alright|all right|sorted|easy|straightforward|smooth|reliable|on time|under control)\b|\bruns? smoothly\b/i;
const ANY_NEGATION = new RegExp(String.raw`\b${NEGATOR}\b|\b(?:without|hardly|barely|if|when|unless)\b`, 'i');
/** A trouble told as over: "… used to be …" in a sentence that says it is not so now. */
const PAST = /\bused to\b/i;
const OVER = /(?:\bnot|n't)\s+(?:any\s?more|now|nowadays|these days)\b|\bno longer\b/i;

/**
 * Other ways a clause says a trouble is not theirs, in spoken form. A topic answered with "no"
 * ("Parts? No, …", "The weather, no, …"); a task anyone of them can do ("any of us can …", "we
 * can all …"): no skill is scarce; and a verdict on what the clause named, after a comma ("…,
 * that's fine", "…, it's easy enough"), which denies whatever the clause named before it, even
 * a trouble told with its own negation ("people not turning up, that's fine").
 */
const TOPIC_ANSWERED_NO =
  /^(?:and\s+|but\s+|as for\s+)?(?:the\s+|our\s+|my\s+)?[\w-]+(?:\s+[\w-]+){0,2}\s*[,?:]\s*no\s*(?:[,.;!]|$)/i;
const ANYONE_CAN =
  /\b(?:(?:(?:either|any|all|both|each)\s+of\s+(?:us|them|the\s+\w+)|(?:anyone|anybody|everyone|everybody)(?:\s+here)?)\s+(?:can|could|is able to|are able to|knows? how to)|we\s+(?:can|could)\s+all|we\s+all\s+(?:can|could|know how to))\b(?!\s+(?:see|tell|hear|feel|guess|imagine|say)\b)/i;
const VERDICT_AFTER =
  /,\s*(?:that|this|it|they)(?:'s|'re|\s+is|\s+are|\s+was|\s+were)\s+(?:\w+\s+)?(?:fine|okay|ok|alright|all right|easy|sorted|manageable|under control)\b/i;
/**
 * A belief the firm sets right: "people assume … is the hold-up, but it isn't". The clause after
 * "but" that is only "it isn't" (or "that's not so") denies the clause before it.
 */
const BUT_IT_ISNT =
  /^(?:it|that|this|they)\s*(?:isn't|is not|'s not|aren't|are not|wasn't|was not|'re not)\b(?:\s+(?:true|so|the case|right))?\s*(?:[,.;!]|$)/i;

/** Whether a clause denies a trouble rather than telling one. */
export function deniedTrouble(clause: string): boolean {
  // White space collapsed first: the look-behind for a second negation rescans a run of blanks from each position.
  const text = clause.replace(/[’‘]/g, "'").replace(/\s+/g, ' ');
  if (MANY_TROUBLES.test(text)) return false;
  if (TOPIC_ANSWERED_NO.test(text) || ANYONE_CAN.test(text) || VERDICT_AFTER.test(text)) return true;
  const at = denialAt(text);
  // "No problems until the rush", "we don't see the faults till the customer rings": the trouble
  // is denied only up to when it comes, so it is told ("until now" still denies).
  if (at >= 0 && /\b(?:until|till|unless)\b(?!\s+(?:now|today|recently|lately)\b)/i.test(text.slice(at))) return false;
  if (at >= 0) return !toldAfterDenial(text);
  // Said to be enough, or to go well, with no negation anywhere in the clause ("not enough" tells a trouble).
  return (AMPLE.test(text) || GOES_WELL.test(text)) && !ANY_NEGATION.test(text);
}

/**
 * The answer without the clauses that deny a trouble ("… is never a problem for us") or tell one
 * as over ("… used to be a headache, but not any more"): read by meaning, a denied trouble is as
 * near its class as one that is told, so it would be tagged. The other clauses of a sentence stay.
 */
export function withoutDenials(text: string): string {
  let kept = text.replace(/\s+/g, ' ');
  for (const sentence of sentences(text)) {
    const clauses = clausesOf(sentence);
    // Over only where what used to be so was a trouble: a good thing that is over is one now.
    const over =
      clauses.some((c) => OVER.test(c)) &&
      clauses.some((c) => PAST.test(c) && !WENT_WELL.test(c.replace(/[’‘]/g, "'")) && !/\benough\b/i.test(c));
    // The clause a later "but it isn't" sets right, and that clause itself.
    const setRight = new Set<number>();
    clauses.forEach((c, i) => {
      if (i > 0 && BUT_IT_ISNT.test(c.replace(/[’‘]/g, "'"))) setRight.add(i - 1).add(i);
    });
    const told = clauses.flatMap((c, i) => {
      if (setRight.has(i)) return [];
      if (over && (PAST.test(c) || OVER.test(c))) return [];
      // A denial whose trouble is named after it ("…, except …", "…, it's …") keeps that part only.
      const after = toldAfterDenial(c.replace(/[’‘]/g, "'").replace(/\s+/g, ' '));
      if (after) return [after];
      return deniedTrouble(c) ? [] : [c];
    });
    const changed = told.length < clauses.length || told.some((c, i) => c !== clauses[i]);
    // A function, not a string: "$'" or "$&" in the answer are text, not replacement patterns
    // ("$'" inserted the rest of the answer at each sentence, growing it past any string's length).
    if (changed) kept = kept.replace(sentence, () => (told.length ? `${told.join('; ').replace(/[.!?]$/, '')}.` : ''));
  }
  return kept.trim() === text.replace(/\s+/g, ' ').trim() ? text : kept.trim();
}

/**
 * A piece of work and how long it takes, told as a label and a time ("Pruning the rows: three
 * days.", "Repainting, a fortnight", "Servicing the lift (4 days)"): a line of the process, not a
 * trouble. Read by meaning it resembles the trouble its work brushes against (cleaning a
 * changeover, servicing planned maintenance), so it is not read at all; anything said after the
 * time ("…, two days, that's the slow one") still is. A label that itself holds a trouble word or
 * a negation is a sentence about a trouble, and stays.
 */
const COUNT = String.raw`(?:\d+(?:[.,]\d+)?|${NUMBER_WORDS.join('|')}|a|an|half(?:\s+an?)?|a few|a couple of|several)`;
const TIME_UNIT = String.raw`(?:minutes?|mins?|hours?|hrs?|days?|nights?|shifts?|weeks?|weekends?|fortnights?|months?|years?)`;
const DURATION = String.raw`(?:(?:about|around|roughly|nearly|up to|at least|at most|over|under)\s+)?${COUNT}(?:\s*(?:-|–|to|or)\s*${COUNT})?\s+${TIME_UNIT}(?:'s?)?|an?\s+fortnight`;
// The place or machine may stand between the step and its time ("Sawing: the band saw, 30 minutes").
const TIMED_STEP = new RegExp(
  String.raw`^([^:,;()]{2,80}?)\s*(?:[:,–—]|\s-|\()\s*(?:([^:,;()]{1,60}),\s*)?(?:${DURATION})\b\)?([^,;]*)(.*)$`,
  'i',
);
const TIMED_STEP_LABEL_WORDS = 10;
/**
 * An item of a list that is a length of time ("a day", "40 minutes", "hours a batch"), not a step
 * or a machine: a line "Moulding: block machine, a shift." told for a route is a step and its
 * time, and read as a route of two steps it made every step a route of its own.
 */
const TIME_ITEM = new RegExp(String.raw`^(?:${DURATION}|${TIME_UNIT})\b`, 'i');
const isTimeItem = (item: string) => TIME_ITEM.test(item.trim());
const TIME_AS_TROUBLE = new RegExp(String.raw`\b(?:${TROUBLE_WORD}|behind|overdue|lost|wasted|idle|down)\b`, 'i');

export function withoutTimedSteps(text: string): string {
  const kept = sentences(text).flatMap((sentence) => {
    const m = TIMED_STEP.exec(sentence);
    if (!m) return [sentence];
    const [, label, place = '', tail, rest] = m;
    if (label.split(/\s+/).length > TIMED_STEP_LABEL_WORDS) return [sentence];
    // What stands between the step and its time names where it is done, not what goes wrong.
    if (new RegExp(String.raw`\b(?:${TROUBLE_WORD}|${NEGATOR})\b`, 'i').test(place)) return [sentence];
    // More than a word after the time in its clause ("four hours every time") makes it a claim about the time.
    if (tail.trim().split(/\s+/).filter(Boolean).length > 1) return [sentence];
    // A time that is itself the trouble ("…, three days late", "…: two hours lost") is no step's length.
    if (TIME_AS_TROUBLE.test(tail)) return [sentence];
    if (new RegExp(String.raw`\b(?:${TROUBLE_WORD}|${NEGATOR})\b`, 'i').test(label)) return [sentence];
    // What follows the time on its own clause ("…, two days, that's the slow one") is read; a
    // word or two after the time ("4 days away", "a week's notice") belongs to the time.
    const after = rest.replace(/^[\s,;]+/, '').trim();
    return after.split(/\s+/).filter(Boolean).length >= 3 ? [after] : [];
  });
  const joined = kept.join(' ');
  return joined === sentences(text).join(' ') ? text : joined;
}

/**
 * Words that make a clause of a phrase: a subject pronoun, a form of "be", "have" or "do", a modal,
 * a contraction, a verb of moving or an infinitive (general English; no word of any trade).
 */
const CLAUSE_WORD =
  /\b(?:i|we|you|he|she|it|they|there|is|are|am|was|were|be|been|being|has|have|had|do|does|did|can|could|will|would|shall|should|may|might|must|goes?|went|gone|takes?|took|gets?|got|moves?|moved|comes?|came|runs?|ran|needs?|waits?|follows?|followed|pass(?:es)?|passed|visits?|visited|flows?|flowed|uses?|used|to\s+[a-z]+)\b|n't\b|\b(?:it|that|there|what|he|she)'s\b|'(?:re|ve|ll|m|d)\b/i;
/**
 * Whether a text only names things, one after another: one sentence of three or more short items
 * (at most six words each) joined by commas, "and" or "or", none of them a clause.
 */
export function namesThingsOnly(text: string): boolean {
  const t = text
    .replace(/[’‘]/g, "'")
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[.!?]$/, '');
  if (/[.!?;:]/.test(t)) return false;
  const items = t
    .split(/\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+/i)
    .map((x) => x.trim())
    .filter(Boolean);
  return items.length >= 3 && items.every((x) => x.split(' ').length <= 6 && !CLAUSE_WORD.test(x));
}

/** A subject pronoun or an auxiliary: what makes a few words a clause rather than a name. */
const SUBJECT_OR_AUXILIARY =
  /\b(?:i|we|you|he|she|they|there|is|are|am|was|were|be|been|has|have|had|do|does|did|can|could|will|would|shall|should|may|might|must)\b|n't\b/i;

/**
 * The text without the lines that pair a label with a short name ("Lacing: the frame loom.
 * Pressing: the flat press."), where it holds three such lines at least: a list that says which step
 * is done where says what there is, not how the work moves (like a list of things, or of steps
 * and their times). Each side of a pair is at most six words and neither a clause; the other
 * lines stay, and so does a pair whose words say the route. The text itself when it holds fewer pairs.
 */
export function withoutLabelPairs(text: string): string {
  const items = text
    .replace(/[’‘]/g, "'")
    .split(/\n+|(?<=[.;])\s+/)
    .map((x) => x.trim())
    .filter(Boolean);
  // (A verb's noun is no clause here: "test run", "pattern cut".)
  const short = (s: string | undefined) =>
    !!s?.trim() && s.trim().split(/\s+/).length <= 6 && !SUBJECT_OR_AUXILIARY.test(s);
  const pair = (x: string) => {
    const [label, name, ...rest] = x
      .replace(/^[-*•]\s*/, '')
      .replace(/[.;]$/, '')
      .split(':');
    return rest.length === 0 && short(label) && short(name);
  };
  const pairs = items.filter(pair);
  // A pair whose words say the route is the same or differs ("Route: the same for every chair") still says it.
  return pairs.length >= 3 ? items.filter((x) => !pair(x) || routeSaid(x)).join(' ') : text;
}

/**
 * Which one choice an answer means: a plain answer (a number, the key, its name) at once; else
 * each sentence and clause is read by meaning against the choices and "none of them", and a
 * choice is taken when the units that mean something agree on it, or, where none is near enough,
 * when the classifier trained on everyday phrasings hears it clearly across the answer's sentences.
 * Two readings that disagree, or none, leave it open: the interviewer asks again rather than guess.
 */
export async function readChoice(
  text: string,
  rawChoices: Array<Choice | string>,
  { otherQuestions = [] }: { otherQuestions?: readonly string[] } = {},
): Promise<string | undefined> {
  const choices = rawChoices.map(choiceOf);
  const plain = choiceFromPlainAnswer(text, choices);
  if (plain) return plain;
  // A list of steps with their times ("Sawing: the band saw, 30 minutes. Drilling: …") says what the
  // work is, not whether the jobs share one route, follow their own or make one project: read
  // by meaning, a list of timed activities sounds like a project plan.
  const untimed = withoutTimedSteps(text);
  if (untimed !== text) return untimed.trim() ? readChoice(untimed, rawChoices, { otherQuestions }) : undefined;
  const routes = await routeChoices(choices);
  const unpaired = routes ? withoutLabelPairs(text) : text;
  if (unpaired !== text) return unpaired.trim() ? readChoice(unpaired, rawChoices, { otherQuestions }) : undefined;
  // Things named one after another ("the job diary, the stock sheet and the price list")
  // say what there is, not how the work moves, unless their words say the route is the same or
  // differs: a word among them that resembles a choice (a planner, a timetable) is no reading of it.
  if (namesThingsOnly(text) && !routeSaid(text) && routes) return undefined;
  // A sentence that answers another question of the same EADS ("a weekly pattern would suit us"
  // to "should the plan repeat?") is about that question, not one of these choices.
  const described = [
    ...(await withNone(choices)),
    ...(otherQuestions.length ? [{ key: NONE, descriptions: [...otherQuestions] }] : []),
  ];
  const isRoute = (key: string) => !!routes && (key === routes.same || key === routes.own);
  const phrased = await withNone(choices, { phrased: true });
  const votes = new Map<string, number>();
  // What the classifier hears clearly, and whether the embedding also ranks it first among the choices there.
  const heardClearly = new Map<string, boolean>();
  // Choices voted for where the classifier also puts them first (between the routes, the words decided).
  const agreed = new Set<string>();
  const units = unitsOf(text);
  await embedTogether(units);
  // What follows a colon spells out the clause before it ("no two repairs take the same path: one
  // needs only the saw, the next the press then the oven"): read alone, its examples may
  // sound like another choice, but they are the head clause's evidence, not a contradiction of it.
  const headOf = elaborationHeads(text);
  const votedBy = new Map<string, string>();
  const oneMachine = await oneMachineChoice(choices);
  // Units that say in words that one machine is all there is ("the only machine", "our one big
  // press"), and that a reader hears as one machine.
  let oneMachineSaid = false;
  for (const unit of units) {
    const d = await decide(unit, described, READ_ONE);
    // The classifier trained on everyday phrasings is a second reading of the unit.
    const heard = await classify(unit, phrased, { minProbability: 0 });
    // Once is enough: each check embeds the thing named, and an answer may hold a thousand sentences.
    if (
      !oneMachineSaid &&
      oneMachine &&
      oneSaid(unit) &&
      (heard.ranked.find((r) => r.key !== NONE)?.key === oneMachine ||
        d.ranked.find((r) => r.key !== NONE)?.key === oneMachine) &&
      (await singleThingIsEquipment(unit))
    )
      oneMachineSaid = true;
    const heardP = (key: string) => heard.ranked.find((r) => r.key === key)?.p ?? 0;
    // Which of the two routes a unit means is its own words' call (sameness or difference of the
    // route), never the embedding's, which hears "the same order" and "jobs in order" alike; or,
    // where the words say neither, the classifier's when it is clear (0.8: right 9 times in 10
    // under cross-validation). Words that say the other route always win: the embedding's clear
    // reading says the unit is about routes, and the words which route it is.
    const said = routes && d.key && isRoute(d.key) ? routeSaid(unit) : undefined;
    const saidKey = said === 'same' ? routes?.same : said === 'own' ? routes?.own : undefined;
    // A unit that says what its jobs differ in, and that it is not their path ("orders vary in
    // size"), says nothing of routes, however clearly a reader hears "every job is different".
    const otherDifference = !!routes && !said && differsInSomethingElse(unit);
    const unsaid =
      d.key && isRoute(d.key) && d.key !== saidKey && !said && (otherDifference || heardP(d.key) < CLEAR_ROUTE);
    const key = unsaid ? undefined : (saidKey ?? d.key ?? (routes ? routeRead(unit, d.ranked, routes) : undefined));
    // What the classifier clearly hears in any unit is evidence too: in one unit not enough to take a
    // choice on, but enough to contradict another (between the two routes, the words decide); heard
    // across sentences, it settles what the embedding left open (heardAcrossSentences).
    // (No reading at all where there are more choices than it is trained on.)
    const clear = heard.ranked.at(0);
    const headVote = votedBy.get(headOf.get(unit) ?? '');
    if (
      clear &&
      clear.key !== NONE &&
      clear.p >= READ_PHRASED.minProbability &&
      !headVote &&
      !(otherDifference && isRoute(clear.key))
    ) {
      const nearest = d.ranked.find((r) => r.key !== NONE)?.key;
      heardClearly.set(clear.key, (heardClearly.get(clear.key) ?? false) || nearest === clear.key);
    }
    if (!key || key === NONE) continue;
    votedBy.set(unit, key);
    votes.set(key, (votes.get(key) ?? 0) + 1);
    const top = heard.ranked.find((r) => r.key !== NONE);
    if (top && top.p >= AGREE.minProbability && (top.key === key || (isRoute(top.key) && isRoute(key))))
      agreed.add(key);
  }
  const contradicts = (a: string, b: string) => a !== b && !(isRoute(a) && isRoute(b));
  const embeddingVotes = [...votes.keys()];
  // A clear reading of the classifier contradicts a vote, unless both readers agreed on the vote
  // and the contradicting reading is the classifier's alone (the embedding ranks another choice
  // first where it was heard): one reader's slip over one clause does not undo what both heard.
  for (const key of [...votes.keys()])
    if ([...heardClearly].some(([h, both]) => contradicts(h, key) && (both || !agreed.has(key)))) votes.set(key, 0);
  for (const [key, n] of votes) if (n === 0) votes.delete(key);
  const [first, second] = [...votes].sort((a, b) => b[1] - a[1]);
  // A reading that any other unit contradicts is not settled: a wrong choice here steers the rest of the interview.
  // One route for all, through what the answer says in words is the one machine ("everything takes
  // the same route, through our one big press"), may be one machine as well as a line: not settled.
  if (first && first[0] === routes?.same && oneMachineSaid) return undefined;
  if (first) return second ? undefined : first[0];
  const r = await heardAcrossSentences(text, phrased, embeddingVotes, routes, described, oneMachine);
  // Routes the answer itself lays out, one kind of work a record ("A refit: strip-out, wiring,
  // testing. A repair: …"), are what it says about how work moves: a choice heard only from the
  // sound of its sentences that is no route does not stand against them.
  if (r && routes && !isRoute(r) && routeShape(routesTold(text))) return undefined;
  return r;
}

/**
 * How the classifier's readings settle a choice the embedding left open, two ways.
 *
 * Clearly: heard clearly (READ_PHRASED) in at least two sentences of the answer, in at least
 * twice as many sentences as any other choice, and once strongly (CLEAR_CONSENSUS).
 *
 * Or by the weight of the whole answer: a person describing how their work runs says it over
 * several sentences, each only fairly plain on its own ("it all waits for the one machine", "what
 * I decide is which job goes next"). A choice the classifier puts first, fairly sure
 * (ACCUMULATED.fair), in at least two sentences, whose belief summed over the sentences is at
 * least ACCUMULATED.mass and ACCUMULATED.lead times any other choice's, and which the embedding
 * also ranks first among the choices in at least one of those units (or, for one shared machine,
 * which a unit says in words of singleness, `oneSaid`: the embedding hears a line of machines and
 * one machine alike): two readers agree somewhere, and no sentence pulls as hard the other way.
 *
 * Either way, one sentence alone is never enough, however sure: a negation ("there is no line")
 * reads to it as what it denies. A choice a sentence's embedding voted against, or a route the
 * answer's own words contradict, is not taken; and a route taken by weight needs the answer's own
 * words for it, since the classifier hears "the same order" and "a different order" alike.
 */
const CLEAR_CONSENSUS = { strong: 0.75, sentences: 2, lead: 2 } as const;
const ACCUMULATED = { fair: 0.4, sentences: 2, mass: 1.2, lead: 2 } as const;

async function heardAcrossSentences(
  text: string,
  phrased: Awaited<ReturnType<typeof withNone>>,
  embeddingVotes: readonly string[],
  routes: { same: string; own: string } | undefined,
  described: Awaited<ReturnType<typeof withNone>>,
  oneMachine: string | undefined,
): Promise<string | undefined> {
  const bySentence = new Map<string, number>();
  const strongest = new Map<string, number>();
  const fairIn = new Map<string, number>();
  const belief = new Map<string, number>();
  const embeddingAgrees = new Set<string>();
  const said = new Set<'same' | 'own'>();
  for (const sentence of sentences(text)) {
    const heardHere = new Set<string>();
    const fairHere = new Map<string, number>();
    for (const unit of unitsOf(sentence)) {
      const top = (await classify(unit, phrased, { minProbability: 0 })).ranked.at(0);
      const words = routeSaid(unit);
      if (words) said.add(words);
      if (!top || top.key === NONE) continue;
      if (top.p >= ACCUMULATED.fair) {
        fairHere.set(top.key, Math.max(fairHere.get(top.key) ?? 0, top.p));
        const nearest = (await decide(unit, described, { floor: 0, margin: 0 })).ranked.find((r) => r.key !== NONE);
        if (nearest?.key === top.key || (top.key === oneMachine && oneSaid(unit))) embeddingAgrees.add(top.key);
      }
      if (top.p < READ_PHRASED.minProbability) continue;
      heardHere.add(top.key);
      strongest.set(top.key, Math.max(strongest.get(top.key) ?? 0, top.p));
    }
    for (const key of heardHere) bySentence.set(key, (bySentence.get(key) ?? 0) + 1);
    for (const [key, p] of fairHere) {
      fairIn.set(key, (fairIn.get(key) ?? 0) + 1);
      belief.set(key, (belief.get(key) ?? 0) + p);
    }
  }
  // The words of sameness or difference a route choice needs (none for any other choice).
  const wordsFor = (key: string) => (key === routes?.same ? 'same' : key === routes?.own ? 'own' : undefined);
  const routeContradicted = (key: string) => {
    const words = wordsFor(key);
    return !!words && said.has(words === 'same' ? 'own' : 'same');
  };
  // A route the answer's words never say cannot be taken.
  const couldBeTaken = (key: string) => {
    const words = wordsFor(key);
    return !words || said.has(words);
  };
  const againstEmbedding = (key: string) => embeddingVotes.some((v) => v !== key && v !== NONE);
  const [best, ...rest] = [...bySentence].sort((a, b) => b[1] - a[1]);
  if (best) {
    const [key, n] = best;
    const clear =
      n >= CLEAR_CONSENSUS.sentences &&
      (strongest.get(key) ?? 0) >= CLEAR_CONSENSUS.strong &&
      !rest.some(([, m]) => n < CLEAR_CONSENSUS.lead * m);
    if (clear) return againstEmbedding(key) || routeContradicted(key) ? undefined : key;
  }
  const [heaviest, ...lighter] = [...belief].sort((a, b) => b[1] - a[1]);
  if (!heaviest) return undefined;
  const [key, mass] = heaviest;
  if ((fairIn.get(key) ?? 0) < ACCUMULATED.sentences || mass < ACCUMULATED.mass) return undefined;
  // A route that could not be taken is no rival either: the classifier hears "we decide which job
  // goes in next" as routes as readily as one machine.
  if (lighter.some(([k, m]) => couldBeTaken(k) && mass < ACCUMULATED.lead * m)) return undefined;
  if (!embeddingAgrees.has(key) || againstEmbedding(key) || routeContradicted(key)) return undefined;
  if (!couldBeTaken(key)) return undefined;
  return key;
}

/**
 * Embeds an answer's units in one model run before they are read one by one: each read alone
 * would be a run of its own, and an answer may hold a thousand sentences (20,000 characters).
 */
async function embedTogether(units: string[]): Promise<void> {
  await (await meaningSpace())?.prefetch(units);
}

/**
 * How sure a sentence must be to be about routes at all: MiniLM scores a firm's own nouns low
 * ("bays", "the plant"), so the floor is low and the lead over every other choice (and "none of
 * them") is what counts. Which of the two route choices it means is never the embedding's call (it
 * hears "the same order" and "a different order" alike): the sentence's own words decide.
 */
const ROUTE_READ = { floor: 0.25, margin: 0.05 } as const;

/**
 * A sentence about routes whose meaning sits between "one route for all" and "a route per job":
 * when those two lead every other choice by a margin, the sentence's own words of sameness or
 * difference of the route decide between them (`routeSaid`), and without such words nothing is read.
 */
function routeRead(
  unit: string,
  ranked: Array<{ key: string; score: number }>,
  routes: { same: string; own: string },
): string | undefined {
  const isRoute = (k: string) => k === routes.same || k === routes.own;
  const best = ranked[0];
  const other = ranked.find((r) => !isRoute(r.key));
  if (!best || !isRoute(best.key) || best.score < ROUTE_READ.floor) return undefined;
  if (other && best.score - other.score < ROUTE_READ.margin) return undefined;
  const said = routeSaid(unit, { aboutRoutes: true });
  return said === 'same' ? routes.same : said === 'own' ? routes.own : undefined;
}

/**
 * "Only Ana can …", "me and Ben and nobody else", "she is the only one who knows how to …": work
 * that waits on one or a few people. Read whole, the sentence's meaning is mostly what the work is
 * (its trade's own nouns), and the restriction on who can do it is a word or two; so the
 * restriction is also read on its own, as its gist ("only Ana can do this work"), by meaning like
 * any other unit. Who is meant is told by the frame's own words (a name, "I", "me", "one of us"),
 * never by a list of trades.
 */
// A capitalised word is a name, unless it is a pronoun or article that starts the sentence.
const NAME = String.raw`(?!(?:It|This|That|These|Those|There|Which|What|Our|The|One|Each|Every)\b)[A-Z][a-z]+`;
const WHO = String.raw`(?:I|me|one|two|three|a few|a couple|${NAME})(?:\s+(?:and|or)\s+(?:I|me|[A-Z][a-z]+))?(?:\s+of\s+(?:us|them|our\s+\w+|the\s+\w+))?`;
const CAN = String.raw`(?:can|could|knows?|know how|is able|are able|is allowed|are allowed|is qualified|are qualified|is trained|are trained|does|do)`;
const ONLY_WHO = new RegExp(
  String.raw`\b(?:[Oo]nly|[Jj]ust)\s+(${WHO})\s+${CAN}\b|\b((?:I|he|she|they|we|${NAME})(?:\s+(?:and|or)\s+(?:I|me|${NAME}))?)\s+(?:is|are|am|'s|'re|'m)\s+the only (?:one|ones|person|people)\s+(?:who|that)\b|\bby\s+((?:me|us|[A-Z][a-z]+)(?:\s+and\s+(?:by\s+)?(?:me|[A-Z][a-z]+))?)\s+and\s+(?:nobody|no one)\s+else\b`,
);
export function onlyWhoGist(sentence: string): string[] {
  const m = ONLY_WHO.exec(sentence);
  if (!m) return [];
  const who = (m[1] ?? m[2] ?? m[3]).replace(/\bby\s+/g, '').replace(/\bme\b/g, 'I');
  return [`Only ${who} can do this work.`];
}

/**
 * Several choices (e.g. the troubles a firm names), read sentence by sentence. A sentence that,
 * read whole, is nearest to "nothing in particular" (what the firm makes, a list of its services)
 * adds nothing, whatever one of its phrases resembles. Else the trouble its clauses speak for
 * together (decideFromEvidence: a trouble two of them speak for beats one a single phrase brushes
 * against), and any trouble one of them clearly means on its own (one sentence may name two):
 * nearer to that trouble than to any other and than to "nothing in particular", by a margin. Each
 * of these embedding readings must agree with the classifier trained on everyday phrasings.
 */
export async function readChoices(text: string, rawChoices: Array<Choice | string>): Promise<string[]> {
  const choices = rawChoices.map(choiceOf);
  const described = await withNone(choices);
  // "Nothing in particular" here also holds troubles said to be none: a denial the rules below
  // miss should read as nothing rather than as the trouble it names.
  const phrased = (await withNone(choices, { phrased: true })).map((c) =>
    c.key === NONE ? { ...c, descriptions: [...c.descriptions, ...TROUBLE_DENIED] } : c,
  );
  const found = new Set<string>();
  // Each choice's strongest evidence in any unit of the answer (`evidenceFor`).
  const evidence = new Map<string, number>();
  // A trouble the firm denies is as near its class in meaning as one it tells: not read at all.
  const told = withoutTimedSteps(withoutDenials(text));
  await embedTogether(sentences(told).flatMap(unitsOf));
  for (const sentence of sentences(told)) {
    const units = [...unitsOf(sentence), ...onlyWhoGist(sentence)];
    // The classifier's reading of each unit: a clear one is taken at once, and its first choices
    // are what the embedding's readings below must agree with.
    const heard = await Promise.all(units.map((u) => classify(u, phrased, { minProbability: 0 })));
    for (const h of heard) {
      const top = h.ranked[0];
      if (top && top.key !== NONE && top.p >= READ_PHRASED.minProbability) found.add(top.key);
    }
    const readings = await Promise.all(
      units.map((u) => decide(u, described, { topK: READ_SEVERAL.topK, floor: 0, margin: 0 })),
    );
    // What both readings hear in the sentence read whole: a clause's weak reading (neither reading
    // clear on its own) of another trouble is a phrase brushing against it ("the rooms are few"
    // resembles "few people are qualified"), not a second trouble.
    const wholeTop = heard[0]?.ranked[0]?.key;
    const whole = wholeTop && wholeTop !== NONE && readings[0]?.ranked[0]?.key === wholeTop ? wholeTop : undefined;
    const overruled = (key: string, i: number) => i > 0 && !!whole && whole !== key;
    for (const [i, u] of units.entries())
      for (const [key, score] of await evidenceFor(u, heard[i], phrased))
        evidence.set(key, Math.max(evidence.get(key) ?? -Infinity, score));
    // The sentence read whole (the first unit) is nearest to nothing in particular: its phrases
    // ("routine services, repairs, tyres") only brush against a trouble. Only the classifier's
    // clear reading above and the units' evidence (EVIDENCE.taken, after the loop) count, not the
    // two readings' agreement on a weak one.
    if (readings[0]?.ranked[0]?.key === NONE) continue;
    // The classifier's first choice, fairly sure, that the embedding ranks among its two nearest
    // troubles and nearer than nothing in particular: the two readings agree, though neither is clear alone.
    readings.forEach((d, i) => {
      const top = heard[i].ranked[0];
      if (!top || top.key === NONE || top.p < AGREE.minProbability || overruled(top.key, i)) return;
      const at = d.ranked.filter((r) => r.key !== NONE).findIndex((r) => r.key === top.key);
      const score = d.ranked.find((r) => r.key === top.key)?.score ?? 0;
      const none = d.ranked.find((r) => r.key === NONE)?.score ?? 0;
      if (at >= 0 && at < AGREE.togetherAmong && score >= READ_SEVERAL.floor && score > none) found.add(top.key);
    });
    const together = await decideFromEvidence(
      units.map((u) => ({ text: u })),
      described,
      READ_SENTENCE,
    );
    // Two readings of the same words that disagree are no reading: the embedding's choice counts
    // where the classifier also ranks it first (for a unit) or among its first two (for the clauses
    // read together), since a trouble a sentence only brushes against is rarely heard by both.
    // (Where there is no classifier, over more choices than it is trained on, the embedding reads alone.)
    // A classifier torn between two choices (within AGREE.tie) has both first.
    const classifierFirst = (key: string, i: number, n = 1) => {
      const ranked = heard[i].ranked;
      if (!ranked.length) return true;
      const p = ranked.find((r) => r.key === key)?.p ?? 0;
      return ranked.slice(0, n).some((r) => r.key === key) || p >= ranked[0].p - AGREE.tie;
    };
    // However the embedding reads it, a trouble counts only where the classifier also gives it a
    // fair chance (AGREE.minProbability) in some unit of the sentence: a sentence that announces a
    // trouble without naming it ("that part is the hard one") sits near some trouble by meaning
    // alone, and the classifier, trained on many ways of saying each one, hears none of them clearly.
    const fairChance = (key: string, i: number) =>
      (heard[i].ranked.length === 0 ? 1 : (heard[i].ranked.find((r) => r.key === key)?.p ?? 0)) >= AGREE.minProbability;
    if (
      together.key &&
      together.key !== NONE &&
      units.some((_, i) => classifierFirst(together.key!, i, AGREE.togetherAmong)) &&
      units.some((_, i) => fairChance(together.key!, i))
    )
      found.add(together.key);
    readings.forEach((d, i) => {
      const [first, second] = d.ranked;
      const none = d.ranked.find((r) => r.key === NONE)?.score ?? 0;
      if (first.key === NONE || first.score < READ_SEVERAL.floor || first.score <= none) return;
      if (!classifierFirst(first.key, i)) return;
      // Agreed on, a reading needs no margin when the classifier is fairly sure of it.
      const sure =
        heard[i].ranked[0]?.key === first.key &&
        heard[i].ranked[0].p >= AGREE.minProbability &&
        !overruled(first.key, i);
      // Or, where the classifier is torn, the embedding alone is as clear as a reading of one choice.
      const plain =
        first.score - none >= READ_ONE.margin &&
        (!second || second.key === NONE || first.score - second.score >= READ_ONE.margin);
      const clear =
        (fairChance(first.key, i) || plain) &&
        first.score - none >= READ_SEVERAL.marginOverNone &&
        !(second && second.key !== NONE && first.score - second.score < READ_SEVERAL.margin);
      if (clear || sure) found.add(first.key);
    });
  }
  // The readings above, where the two kinds of evidence together give the choice at least a
  // fair chance; and any choice whose evidence is strong on its own, however the rules above
  // read its sentence (a trouble told in a long sentence, inside the sentence's other business).
  // (Without a classifier, over more choices than it is trained on, the readings above stand alone.)
  const strength = (k: string) => evidence.get(k) ?? -Infinity;
  const weighed = trainable(phrased) && evidence.size > 0;
  return choices
    .map((c) => c.key)
    .filter((k) =>
      weighed ? (found.has(k) && strength(k) >= EVIDENCE.kept) || strength(k) >= EVIDENCE.taken : found.has(k),
    );
}

/**
 * How strongly one unit speaks for each choice, from the two readings by meaning added up: the
 * classifier's probability, plus how far the unit's nearest phrasings of the choice (the mean of
 * the three nearest) lead those of every other choice (half of it) and those of "nothing in
 * particular". Each reading alone errs on a different side: the classifier spreads its
 * probability thin over many troubles when a sentence tells its trouble in the firm's own
 * nouns, and the nearest phrasings are pulled about by shared nouns; a unit both put near the same
 * trouble tells it.
 */
const EVIDENCE = { nearest: 3, lead: 0.5, overNone: 1, taken: 0.5, kept: 0.4 } as const;

async function evidenceFor(
  unit: string,
  heard: Awaited<ReturnType<typeof classify>>,
  phrased: Awaited<ReturnType<typeof withNone>>,
): Promise<Map<string, number>> {
  const near = await decide(unit, phrased, { topK: EVIDENCE.nearest, floor: 0, margin: 0 });
  const score = (k: string) => near.ranked.find((r) => r.key === k)?.score ?? 0;
  const none = score(NONE);
  const out = new Map<string, number>();
  for (const { key } of near.ranked) {
    if (key === NONE) continue;
    const rival = Math.max(...near.ranked.filter((r) => r.key !== key).map((r) => r.score));
    const p = heard.ranked.find((r) => r.key === key)?.p ?? 0;
    out.set(key, p + EVIDENCE.lead * (score(key) - rival) + EVIDENCE.overNone * (score(key) - none));
  }
  return out;
}

// Where the object of "we <verb> …" ends: a bracket, a clause mark, or a preposition or clause word.
const OBJECT_END = String.raw`(?=\s*\(|\s*[.;:,]|\s+(?:for|to|in|from|with|at|across|around|which|that|who|so|but|because|since)\s|$)`;
// "We <verb>[, <verb> and <verb>] <object>": any verbs, so no list of trades is needed.
const WE_DO_RE = new RegExp(
  String.raw`\b(?:we|i)\s+(?:\w+ly\s+)?(?!are\b|am\b|have\b|had\b|were\b|was\b)[a-z]+(?:(?:,\s*|\s+and\s+|\s+or\s+)[a-z]+)*\s+(.+?)` +
    OBJECT_END,
  'i',
);
const WE_ARE_RE = new RegExp(String.raw`\b(?:we are|we're|i am|i'm)\s+(?:a|an)\s+(.+?)` + OBJECT_END, 'i');
/** "We brew four craft beers (…)" → "craft beers"; "We are a small bakery …" → "small bakery". */
export function productName(text: string): string | undefined {
  const first = sentences(text)[0] ?? '';
  const m = WE_ARE_RE.exec(first) ?? WE_DO_RE.exec(first);
  if (!m) return undefined;
  const name = m[1]
    .replace(
      /^(?:a|an|the|our|some|several|many|various|all kinds of|\d+|one|two|three|four|five|six|seven|eight|nine|ten)\s+/i,
      '',
    )
    .replace(/^(?:a|an|the|\d+|one|two|three|four|five|six|seven|eight|nine|ten)\s+/i, '')
    .trim();
  return name.length >= 3 ? name : undefined;
}

/** A kebab-case id of whole words (never a word cut in two), at most about 40 characters. */
const slug = (text: string) => {
  const parts = text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim()
    .split(' ')
    .filter(Boolean);
  const kept: string[] = [];
  for (const w of parts) {
    if (kept.length && [...kept, w].join('-').length > 40) break;
    kept.push(w);
  }
  return kept.join('-');
};

/** Converts one table cell by its column's kind. */
function cellValue(cell: string, kind: FieldKind): unknown {
  const text = cell.trim();
  if (text === '' || text === '-') return undefined;
  switch (kind) {
    case 'list':
      return splitList(text);
    case 'quantity':
      return parseQuantity(text) ?? { units: '', 'value-string': text };
    case 'boolean':
      return parseYesNo(text);
    case 'number': {
      const n = Number(text.replace(/[^\d.-]/g, ''));
      return Number.isFinite(n) && /\d/.test(text) ? n : undefined;
    }
    default:
      return text;
  }
}

/** Reads a table answer into rows shaped like the field's columns: with or without a header row, or steps told in prose. */
function readTable(answer: string, field: PromptField): Array<Record<string, unknown>> | undefined {
  if (!field.columns?.length) return undefined;
  const columns = field.columns;
  // Pasted spreadsheet rows come tab-separated.
  const text = answer.includes('\t') && !answer.includes('|') ? answer.replace(/\t/g, ' | ') : answer;
  const table = parseMarkdownTable(text) ?? headerlessRows(text);
  if (!table)
    return (
      inventoryFromProse(answer, field) ??
      recordsFromProse(answer, columns) ??
      countedFromProse(answer, columns) ??
      stepsFromProse(answer, columns)
    );
  const mapping = mapHeaders(
    table.headers,
    columns.map((c) => c.name),
    (h) => cellsNameRows(table.rows.map((r) => r[h] ?? '')),
  );
  const named = mapping.filter((h) => h >= 0).length;
  let rows = table.rows;
  let byColumn = mapping;
  // A header row is followed by a separator line, or at least names columns and holds no figures;
  // otherwise the first line is data and the cells are in the template's order.
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.includes('|'));
  const separated = lines.length > 1 && /^\|?\s*:?-{2,}/.test(lines[1]);
  const looksLikeHeader =
    separated || (named >= Math.min(2, columns.length) && !table.headers.some((h) => /\d/.test(h)));
  if (!looksLikeHeader) {
    if (table.headers.length < 2) return undefined;
    rows = [table.headers, ...table.rows];
    byColumn = columns.map((_, i) => (i < table.headers.length ? i : -1));
  }
  const result = rows.map((cells) => {
    const row: Record<string, unknown> = {};
    columns.forEach((column, i) => {
      const at = byColumn[i];
      if (at < 0 || at >= cells.length) return;
      const value = cellValue(cells[at], column.kind);
      if (value !== undefined) row[column.name] = value;
    });
    return row;
  });
  const kept = result.filter((r) => Object.keys(r).length > 0);
  return kept.length ? kept : undefined;
}

/** Whether a column's cells can name rows: words, not figures or spans of time ("2", "20 min"). */
function cellsNameRows(cells: readonly string[]): boolean {
  const told = cells.map((c) => c.trim()).filter(Boolean);
  return told.length > 0 && told.every((c) => /\p{L}{2,}/u.test(c) && !/^\d/.test(c) && !parseQuantity(c));
}

/** Pipe-separated lines with no header row (a single line too). */
function headerlessRows(text: string): { headers: string[]; rows: string[][] } | undefined {
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.includes('|') && !/^\|?\s*:?-{2,}/.test(l));
  if (lines.length !== 1) return undefined;
  const cells = lines[0].split('|').map((c) => c.trim());
  if (cells[0] === '') cells.shift();
  if (cells.length && cells[cells.length - 1] === '') cells.pop();
  return cells.length >= 2 ? { headers: cells, rows: [] } : undefined;
}

/** A record's name: a few words before a colon, not a clause ("we do it like this:"). */
const RECORD_LABEL = /^([A-Za-z][A-Za-z0-9'&/ -]{1,48}?)\s*:\s+(\S.*)$/;
const CLAUSE_START = /^(?:we|i|you|they|it|he|she|there|this|that|these|those|here|our|my)\b/i;
/**
 * The routes an answer tells as records, one kind of work each ("A refit: strip-out, wiring,
 * testing."). A step is named as a piece of work; what a record counts or points at ("one guide,
 * up to ten walkers, the minibus", "a farrier and the forge") is who and what takes part in an
 * event, and a record mostly of those is no route.
 */
function routesTold(text: string): string[][] {
  const rows = recordsFromProse(text, [
    { name: 'route-id', kind: 'text' },
    { name: 'steps', kind: 'list' },
  ]);
  const counted = (item: string) =>
    MEASURE_START.test(item) || /^(?:a|an|the|some|any|no|every|each|all)\s/i.test(item);
  return (rows ?? [])
    .map((r) => strings(r.steps).filter((step) => !isTimeItem(step)))
    .filter((r) => r.length >= 2 && r.filter(counted).length * 2 < r.length);
}

/**
 * Words of a clause someone speaks (a subject or an owner), which no step's name holds. "it" and
 * "there" count only where they open the item ("it's worst in August"): after a verb, "it" is what
 * a step works on ("strip it", "paint it").
 */
const SPEAKS = /\b(?:we|I|you|they|he|she|us|our|my|their)\b|^\s*(?:it|there)\b|\b\w+'(?:re|ve|ll|d)\b|\b\w+n't\b/i;

/**
 * An answer's sentences, trimmed, none empty: a sentence ends at a full stop or semicolon followed
 * by a space (so "1.5 hours" stays whole), or at a line break.
 */
function recordPieces(answer: string): string[] {
  return answer
    .split(/(?<=[.;])\s+|\n+/)
    .map((p) => p.trim())
    .filter(Boolean);
}

/** Words that make a sentence's opening a clause (something is said), not a name. */
const OPENING_VERB =
  /\b(?:is|are|was|were|be|has|have|had|do|does|did|can|could|will|would|may|must|takes?|took|lasts?|runs?|needs?|gets?|goes|comes?|starts?|ends?)\b/i;

/**
 * Records told one a sentence without a label's colon ("Evening lessons in the big pool, one
 * coach and up to eight swimmers, an hour. Galas at the leisure centre, …"): each sentence that
 * opens with a short name, before its first comma and before where or with whom ("in the …",
 * "with …"), is a record of that name; the rest of the sentence is its details. A sentence that
 * opens with a clause ("We also …", "Each class has …") adds to the record before it. Only when
 * most sentences are so named are they records: a paragraph of prose is not a table.
 */
function namedSentences(answer: string): Array<{ label: string; details: string }> {
  const records: Array<{ label: string; details: string }> = [];
  const pieces = recordPieces(answer);
  for (const text of pieces) {
    const comma = text.indexOf(',');
    const opening = comma > 0 ? text.slice(0, comma) : '';
    const label = opening.split(/\s+(?:in|at|on|with|for|from|by|of up to|up to)\s+/i)[0].trim();
    const named =
      label.length > 1 &&
      label.split(/\s+/).length <= 5 &&
      /^[A-Za-z]/.test(label) &&
      !CLAUSE_START.test(label) &&
      !/^(?:each|every|all|some|most|any|no|none|only|also|but|so|and|or)\b/i.test(label) &&
      // An opening that says when, where or how often ("In summer", "On Mondays", "Usually",
      // "After that") sets the scene of a sentence; it names no record.
      !/^(?:in|on|at|for|from|by|with|during|after|before|when|while|if|once|twice|then|first|next|finally|later|afterwards|sometimes|often|mostly|meanwhile|however|otherwise|again|still|now|today)\b/i.test(
        label,
      ) &&
      !/^\w+ly$/i.test(label) &&
      !OPENING_VERB.test(label) &&
      !/\d/.test(label);
    if (named) records.push({ label, details: text.slice(label.length).replace(/^[\s,]+/, '') });
    else if (records.length) records[records.length - 1].details += ` ${text}`;
  }
  return records.length >= 2 && records.length * 2 >= pieces.length ? records : [];
}

/**
 * Rows told as labelled records, one a sentence or line ("<name>: <who and what>, <how long>,
 * <how often>. <name>: …"): one row per name, in the order told. The name is the row's id; a
 * duration the record gives fills a quantity column, and its other items the list of what takes
 * part (equipment, people, places) or, for a routing, its steps. Read as a sequence of steps instead, one record's items
 * ("one teacher, one room, 30 minutes") would come out as steps.
 */
function recordsFromProse(
  answer: string,
  columns: NonNullable<PromptField['columns']>,
): Array<Record<string, unknown>> | undefined {
  const idColumn = columns.find((c) => /(^|-)id$/.test(c.name));
  if (!idColumn) return undefined;
  const duration = columns.find((c) => c.kind === 'quantity');
  const members = columns.find(
    (c) =>
      c.kind === 'list' && /\b(?:resources?|constituents?|equipment|machines?|participants?|steps?)\b/.test(c.name),
  );
  const records: Array<{ label: string; details: string }> = [];
  for (const text of recordPieces(answer)) {
    const m = RECORD_LABEL.exec(text);
    const label = m?.[1].trim();
    if (m && label && label.split(/\s+/).length <= 5 && !CLAUSE_START.test(label)) {
      records.push({ label, details: m[2] });
    } else if (records.length) {
      // A sentence after a record, not naming one, says more about it.
      records[records.length - 1].details += ` ${text}`;
    }
  }
  // Without colons, a record may be told one a sentence, named by its opening words (below).
  if (records.length < 2 && members && !/\bsteps?\b/.test(members.name))
    records.splice(0, records.length, ...namedSentences(answer));
  // A row per name: the same label again ("Note: … Note: …") heads remarks, not records.
  if (records.length < 2 || new Set(records.map((r) => slug(r.label))).size < records.length) return undefined;
  const rows = records.map(({ label, details }) => {
    const row: Record<string, unknown> = { [idColumn.name]: slug(label) };
    const q = duration ? parseQuantity(details) : undefined;
    if (duration && q) row[duration.name] = q;
    if (members) {
      // An item names something by a word; bare figures (phone numbers, "9am") are no member or step.
      // "in the small hall" names the place that takes part: the hall.
      const items = splitList(details.replace(/[.;]+$/, ''))
        .map((item) => item.replace(/^(?:in|at|on)\s+(?:the\s+)?(?=\S)/i, ''))
        .filter((item) => !parseQuantity(item) && /\p{L}{3,}/u.test(item));
      if (items.length) row[members.name] = items;
    }
    return row;
  });
  // A routing's steps are named ("sanding", "spray finishing"); a record whose items are mostly
  // clauses about the firm ("we can never find staff") is a remark with a colon, not a route.
  if (members && /\bsteps?\b/.test(members.name)) {
    const clauses = (row: Record<string, unknown>) => strings(row[members.name]).filter((i) => SPEAKS.test(i)).length;
    if (rows.some((r) => clauses(r) * 2 > strings(r[members.name]).length)) return undefined;
  }
  // Records that give neither a member nor a duration ("Phone: 555 0100, 555 0101") were no rows.
  const told =
    (!members && !duration) || rows.some((r) => (members && r[members.name]) || (duration && r[duration.name]));
  return told && rows.every((r) => String(r[idColumn.name]).length > 1) ? rows : undefined;
}

const COUNTED = new RegExp(String.raw`^(\d+|${NUMBER_WORDS.slice(1).join('|')}|a single|an?)\s+(.+)$`, 'i');
const NAMED = /^(?:the|our)\s+(.+)$/i;
/**
 * Words that cannot open the name of a counted thing: after a number they make a share, a ratio
 * or a rate ("three of our customers", "one in five orders", "two per shift"), not a thing.
 */
const NOT_A_NAME = new Set(['of', 'in', 'out', 'per', 'for', 'to', 'at', 'on', 'by', 'from', 'with', 'times', 'than']);
/** A rate ("3 weeks a month", "2 days per year"): how often, not how many of a thing. */
const RATE = /\b(?:a|an|per|each|every)\s+(?:shift|day|week|month|year|hour|minute)s?\b/i;

/** A table's column that names each row and its column that says how many (either may be missing). */
function idAndCountColumns(columns: NonNullable<PromptField['columns']>) {
  return {
    idColumn: columns.find((c) => /(^|-)id$/.test(c.name)),
    howMany: columns.find((c) => /\b(?:quantity|count|how-many)\b/.test(c.name) || /^number(?:-of|$)/.test(c.name)),
  };
}

/**
 * The resources an answer names, for a table of a name and how many (see `resourcesFromProse`):
 * a row per resource, in the order told.
 */
function inventoryFromProse(answer: string, field: PromptField): Array<Record<string, unknown>> | undefined {
  const { idColumn, howMany } = idAndCountColumns(field.columns ?? []);
  // Only a table of resources: an order's or a product's lines are counted things too, but the
  // subjects and objects of a paragraph are not its rows.
  if (!idColumn || !howMany || !/\bresources?\b/.test(`${field.name} ${idColumn.name}`.replace(/-/g, ' ')))
    return undefined;
  return resourcesFromProse(answer)?.map((r) => ({
    [idColumn.name]: r.name,
    [howMany.name]: howMany.kind === 'number' ? r.count : String(r.count),
  }));
}

/**
 * What there is, told as a list of counted things ("one oven, two mixers and six bakers"): a row
 * per thing, its name for the row's id and its count for a column that holds how many. Only for
 * columns that ask how many; a thing named without a count in such a list ("the paint room") is
 * one too.
 */
function countedFromProse(
  answer: string,
  columns: NonNullable<PromptField['columns']>,
): Array<Record<string, unknown>> | undefined {
  const { idColumn, howMany } = idAndCountColumns(columns);
  if (!idColumn || !howMany) return undefined;
  const rows: Array<Record<string, unknown>> = [];
  let counted = 0;
  for (const sentence of sentences(answer)) {
    for (const item of splitList(sentence)) {
      const words = item.split(/\s+/);
      if (words.length > 6) continue;
      const m = COUNTED.exec(item);
      const plain = m ? undefined : NAMED.exec(item);
      const name = (m?.[2] ?? plain?.[1])?.replace(/\s*\(.*$/, '').trim();
      if (!name || CLAUSE_START.test(name) || /\b(?:of whom|which|who|that)\b/i.test(name)) continue;
      // A thing has a name of words: "555 0100" after "call" is a phone number, not 555 of "0100".
      if (!/^\p{L}/u.test(name) || NOT_A_NAME.has(name.split(' ')[0].toLowerCase()) || RATE.test(name)) continue;
      // "8 hours" is a measure; the counted things of a list are each named once.
      if (parseQuantity(item)) continue;
      const said = m?.[1].toLowerCase();
      const n = !said ? 1 : /^\d+$/.test(said) ? Number(said) : Math.max(1, NUMBER_WORDS.indexOf(said));
      if (m) counted++;
      const value = howMany.kind === 'number' ? n : String(n);
      rows.push({ [idColumn.name]: name, [howMany.name]: value });
    }
  }
  // One name counted again and again ("12 euros, 15 euros") gives amounts of one thing, not things.
  const distinct = new Set(rows.map((r) => String(r[idColumn.name]).toLowerCase())).size === rows.length;
  return distinct && counted >= 2 && counted * 2 >= rows.length ? rows : undefined;
}

const MEASURE_START =
  /^(?:\d|(?:one|two|three|four|five|six|seven|eight|nine|ten|twelve|up to|plus|about|around|at most|at least|half|once|twice)\b)/i;
const SEQUENCE_SPLIT =
  /\s*;\s*|(?<=[a-z)])\.\s+|,?\s*\b(?:and then|then|after that|afterwards|next|finally|and finally|lastly)\b,?\s*/i;
const LEAD = /^(?:and|first(?:ly)?|to start|at the start|in the end|the|a|an|it is|they are|it|they)\s+/i;
const VERB_CUT =
  /\s+(?:takes?|gives?|turns?|makes?|yields?|produces?|runs?|is|are|checks?|uses?|goes|moves)\b|\s+(?:on|in|at|through|into|onto|with) the\b|\s*\(/i;
const FILLER = new Set([
  'the',
  'a',
  'an',
  'is',
  'are',
  'goes',
  'go',
  'through',
  'into',
  'onto',
  'then',
  'it',
  'they',
  'them',
  'every',
  'each',
  'all',
  'its',
  'our',
  'we',
  'on',
  'in',
  'at',
  'of',
  'to',
  'and',
]);

/**
 * Steps told as a sequence ("First the paste is printed, then ..., finally ...", or "Sorting
 * takes ... (15 minutes); washing ...") become rows in the order told: a name for the step's
 * id column, and where the sentence says so, its duration, equipment, inputs and outputs.
 */
export function stepsFromProse(
  answer: string,
  columns: NonNullable<PromptField['columns']>,
): Array<Record<string, unknown>> | undefined {
  const idColumn = columns.find((c) => /(^|-)id$/.test(c.name));
  if (!idColumn) return undefined;
  // The told sequence runs from "first" to the clause after "finally" when the answer marks them.
  // One space for every run of white space first: the splits below try \s* at each position, so a
  // long run of blanks in an answer (up to 20,000 characters) would cost its length squared.
  let told = answer.replace(/\s+/g, ' ').replace(/^[^:]{0,80}:\s+/, '');
  const start = /\b(?:first(?:ly)?|to start|we start by)\b/i.exec(told);
  if (start) told = told.slice(start.index);
  const end = /\b(?:finally|lastly|at the end)\b[^.;]*[.;]?/i.exec(told);
  if (end) told = told.slice(0, end.index + end[0].length);
  if (!start && !end) {
    // Unmarked: the sequence is the sentence that lists the most steps.
    const listed = (x: string) => (x.match(/,|;|\bthen\b/g) ?? []).length;
    told = (told.match(/[^.!?]+[.!?]?/g) ?? [told]).reduce((a, b) => (listed(b) > listed(a) ? b : a));
  }
  // "sorted, washed, pressed and folded": a comma list of steps, its last item after "and".
  const marked = /\b(?:first(?:ly)?|after that|afterwards|next|finally|lastly)\b/i.test(told);
  const commaList = !marked && (told.match(/,/g) ?? []).length >= 3 && !told.includes(';');
  const clauses = told
    .split(commaList ? /\s*,\s*(?:and\s+|then\s+)?|\s+and\s+|,?\s*\bthen\b\s*/i : SEQUENCE_SPLIT)
    .map((c) => (c ?? '').trim().replace(/[.!]+$/, ''))
    // One word is a step in a comma list ("varnished"), elsewhere a fragment.
    .filter((c) => (commaList ? c.length >= 4 : c.split(/\s+/).length >= 2) && c.length < 240);
  if (clauses.length < 3) return undefined;
  // Items that count or measure one thing ("one room", "up to 6 people", "30 minutes") describe
  // it; they are not the steps of a sequence.
  const measures = clauses.filter((c) => MEASURE_START.test(c));
  if (measures.length * 2 >= clauses.length) return undefined;
  const columnFor = (probe: string) => {
    const mapped = mapHeaders(
      [probe],
      columns.map((c) => c.name),
    ).findIndex((h) => h >= 0);
    return mapped >= 0 ? columns[mapped] : undefined;
  };
  const duration = columns.find((c) => c.kind === 'quantity');
  const resources = columnFor('machine equipment');
  const inputs = columnFor('inputs consumed');
  const outputs = columnFor('outputs yields');
  const rows = clauses.map((clause) => {
    const plain = clause.replace(LEAD, '').replace(LEAD, '');
    const head = plain.split(VERB_CUT)[0].trim();
    const headWords = head.split(/\s+/).filter((w) => !FILLER.has(w.toLowerCase()));
    const words =
      headWords.length >= 2 || /ing$/i.test(headWords[0] ?? '')
        ? headWords
        : plain
            .split(/\s+/)
            .filter((w) => !FILLER.has(w.toLowerCase()))
            .slice(0, 4);
    const row: Record<string, unknown> = { [idColumn.name]: slug(words.join(' ').replace(/\(.*$/, '')) };
    const q = duration ? parseQuantity(clause) : undefined;
    if (duration && q) row[duration.name] = q;
    const where =
      /\b(?:on|in|at|through|using) the ([a-z][a-z -]*?)(?=\s*\(|,|;|\s+(?:gives?|takes?|makes?|turns?|yields?)\b|$)/i.exec(
        clause,
      )?.[1];
    if (resources && where && resources.kind === 'list') row[resources.name] = [where.trim()];
    const took = /\btakes? (?:the )?([a-z][a-z -]*?)(?=\s+(?:on|in|at|from)\b|\s*\(|,|;|$)/i.exec(clause)?.[1];
    if (inputs && took && inputs.kind === 'list') row[inputs.name] = [took.trim()];
    const gave =
      /\b(?:gives?|makes?|yields?|produces?|into) (?:the |a |an )?([a-z][a-z -]*?)(?=\s+(?:on|in|at|from)\b|\s*\(|,|;|$)/i.exec(
        clause,
      )?.[1];
    if (outputs && gave && outputs.kind === 'list') row[outputs.name] = [gave.trim()];
    return row;
  });
  const named = rows.filter((r) => typeof r[idColumn.name] === 'string' && (r[idColumn.name] as string).length > 1);
  return named.length >= 3 ? named : undefined;
}

/** How many of an answer's sentences are read for the side of a two-sided question. */
const SIDE_SENTENCES = 8;

/**
 * A yes/no question asked again: put as two alternatives ("Does it flow continuously, or do you
 * work in batches?"), "yes or no" alone would make no sense, so each answer is tied to its side.
 */
function yesOrNoAgain(question: string): string {
  // Two sides only when the second is a clause of its own ("…, or do you work in batches?"), not
  // the last item of a list ("every week or fortnight").
  const sides = eitherOr(question);
  const clause = /^(?:do|does|did|is|are|was|were|can|could|will|would|has|have)\s/i;
  if (!sides || !/,\s+or\s/i.test(question) || !clause.test(sides[1]))
    return `I could not tell from that. ${question.replace(/\?\s*$/, '')}? Please answer yes or no.`;
  const second = sides[1].replace(/^(?:do|does|did)\s+(?=(?:you|we|they|it|i)\b)/i, '');
  return `I could not tell which of the two fits. ${sides[0]}? If so, please say yes; if ${second} instead, please say no.`;
}

/** The two sides of a question put as alternatives, split at the first ", or" (else " or"). */
function eitherOr(question: string): [string, string] | undefined {
  const asked = question.replace(/\?\s*$/, '');
  const m = /^(.*?\S),\s+or\s+(.+)$/i.exec(asked) ?? /^(.*?\S)\s+or\s+(.+)$/i.exec(asked);
  return m ? [m[1], m[2]] : undefined;
}

/**
 * A yes/no question put as two alternatives ("Does it flow continuously ..., or do you work in
 * discrete batches?") answered without yes or no: the alternative the answer means decides.
 */
async function sideTaken(answer: string, question: string): Promise<boolean | undefined> {
  // The alternatives split at the first ", or" (later "or"s list options within one alternative).
  const m = eitherOr(question);
  if (!m) return undefined;
  const sides = [
    { key: 'first', descriptions: [m[0]] },
    { key: 'second', descriptions: [m[1]] },
  ];
  // Sentence by sentence: the side is usually said in a few words ("In lots.", "Batches.") that
  // the rest of the answer ("one mixer load is sixty kilos …") would drown if read as one text.
  // The sentences that take a side must agree.
  // The side is said early; a long answer (up to 20,000 characters) costs its first sentences only,
  // embedded in one model run.
  const units = [answer, ...sentences(answer).slice(0, SIDE_SENTENCES)];
  await embedTogether(units);
  const taken = new Set<string>();
  for (const unit of units) {
    const d = await decide(unit, sides, { floor: 0.2, margin: 0.05 });
    if (d.key) taken.add(d.key);
  }
  return taken.size === 1 ? taken.has('first') : undefined;
}

/**
 * Items of a list answer, when the answer is a list: short names, each whole. A sentence split at
 * its commas is not a list ("the vans leave at half past four, …" names no product), so an
 * answer with an item that reads as a clause gives nothing rather than fragments.
 */
export function listItems(answer: string, field: PromptField): string[] | undefined {
  const items = splitList(answer);
  if (!items.length) return undefined;
  // Rules and preferences are short sentences by nature; names are not.
  const ofNames = !/\b(?:rules?|preferences?|constraints?)\b/i.test(`${field.name} ${field.comment ?? ''}`);
  const limit = ofNames ? 6 : 16;
  const clause = /^(?:we|i|you|they|it|he|she|there|this|that|these|those)\b|\b(?:we|i|you|they)\s+\w+/i;
  if (items.some((i) => i.split(/\s+/).length > limit || (ofNames && clause.test(i)))) return undefined;
  return items;
}

/** Reads one asked-for field from the answer, by its kind. Undefined when the answer does not give it. */
async function readField(
  field: PromptField,
  answer: string,
  echo: string,
  siblings: readonly PromptField[] = [],
): Promise<unknown> {
  const choices = field.choices?.map(choiceOf);
  switch (field.kind) {
    case 'table':
      return readTable(answer, field);
    case 'boolean':
      // Asked again in other words, the field's own question still holds the two sides.
      return (
        parseYesNo(answer) ??
        yesNoOf(choices, answer) ??
        (await sideTaken(answer, echo)) ??
        (field.question && field.question !== echo ? await sideTaken(answer, field.question) : undefined)
      );
    case 'quantity':
      return parseQuantity(answer);
    case 'number': {
      const m = /-?\d+(?:\.\d+)?/.exec(answer);
      return m ? Number(m[0]) : undefined;
    }
    case 'list': {
      if (choices?.length) {
        const picked = await readChoices(answer, choices);
        return picked.length ? picked : undefined;
      }
      return listItems(answer, field);
    }
    case 'text': {
      if (choices?.length) return readChoice(answer, choices, { otherQuestions: otherQuestions(field, siblings) });
      const text = answer.replace(/\s+/g, ' ').trim();
      return text ? (text.length > 600 ? `${wholeWords(text, 599)}…` : text) : undefined;
    }
    default:
      return undefined;
  }
}

/** The questions of the EADS's other asked fields, except those offering the same choices. */
function otherQuestions(field: PromptField, siblings: readonly PromptField[]): string[] {
  return siblings
    .filter((f) => f.name !== field.name && !f.derived && f.question && !sameChoices(f, field))
    .map((f) => f.question!);
}

/** Whether two fields offer the same choices (a list of the kinds beside the one principal kind). */
function sameChoices(a: PromptField, b: PromptField): boolean {
  const keys = (f: PromptField) => JSON.stringify((f.choices ?? []).map((c) => choiceOf(c).key));
  return !!a.choices?.length && keys(a) === keys(b);
}

/** "1"/"yes" or "2"/"no" to a yes/no question whose choices were spelled out. */
function yesNoOf(choices: Choice[] | undefined, answer: string): boolean | undefined {
  const key = choices ? choiceFromPlainAnswer(answer, choices) : undefined;
  return key === 'yes' ? true : key === 'no' ? false : undefined;
}

/** At most `max` characters, ending at a word boundary. */
function wholeWords(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  const space = cut.lastIndexOf(' ');
  return (space > max / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:]+$/, '');
}

/** Fills a field the EADS says not to ask about, from the answer and what is known. */
async function deriveField(
  field: PromptField,
  answer: string,
  known: Record<string, unknown>,
  context: Record<string, unknown>,
  siblings: readonly PromptField[] = [],
  /** The fields the answered question asked for. */
  asked: readonly PromptField[] = [],
): Promise<unknown> {
  const choices = field.choices?.map(choiceOf);
  if (field.kind === 'list' && choices?.length) {
    // A list drawn from the choices of a single-choice field (the kinds of problem that seem
    // relevant, beside the principal kind) is read as that field is, and only from answers to it:
    // the one kind an answer clearly tells, with the same margins. Read as a list of troubles is
    // read, from every answer, a sentence brushing against a kind added it (a wish for a plan that
    // repeats every other week made a flow shop also a project).
    const sameKinds = (f: PromptField) => f.name !== field.name && f.kind === 'text' && sameChoices(f, field);
    const settled = Object.values(known).some((v) => typeof v === 'string' && choices.some((c) => c.key === v));
    const kinds = settled || siblings.some(sameKinds);
    const heard = !kinds
      ? await readChoices(answer, choices)
      : asked.some(sameKinds)
        ? [await readChoice(answer, choices)].filter((k) => k !== undefined)
        : [];
    const picked = new Set(heard);
    // A choice another field already settled (e.g. the principal problem type) belongs here too,
    // and so does every tag an earlier answer gave this field.
    for (const value of Object.values(known))
      if (typeof value === 'string' && choices.some((c) => c.key === value)) picked.add(value);
    for (const value of asArray<unknown>(known[field.name]))
      if (typeof value === 'string' && choices.some((c) => c.key === value)) picked.add(value);
    return picked.size ? choices.map((c) => c.key).filter((k) => picked.has(k)) : undefined;
  }
  if (field.kind === 'list') {
    // E.g. all resources used: the same-named column of a table field.
    const values = new Set<string>();
    for (const value of Object.values(known)) {
      for (const row of asArray<unknown>(value)) {
        const cell = asObject(row)[field.name];
        for (const v of asArray<unknown>(cell)) if (typeof v === 'string') values.add(v);
      }
    }
    return values.size ? [...values] : undefined;
  }
  if (field.kind === 'text') {
    // A choice between ways of organising work that is not asked is read from the shape of the
    // routes told, never from the words of an answer to another question (a table, a list of steps).
    if (choices?.length && (await routeChoices(choices))) return shapeChoice(choices, answer, known);
    if (choices?.length) return readChoice(answer, choices);
    const product = typeof context.product === 'string' ? context.product : undefined;
    if (/(^|-)id$/.test(field.name)) {
      const base = product ?? productName(answer);
      return base ? `${slug(base)}-production` : undefined;
    }
    if (/name/.test(field.name)) return productName(answer) ?? product;
    // A free observation: the answer's last sentence, which the keywords rarely cover.
    const last = sentences(answer).pop();
    return last ? `They also said: ${last}` : undefined;
  }
  return undefined;
}

/** A list column that names the equipment, places or people a step uses. */
const KIT_COLUMN = /^(?:resources|equipment|machines)$/;
const idOf = (row: Record<string, unknown>) => {
  const key = Object.keys(row).find((k) => /(^|-)id$/.test(k));
  return key && typeof row[key] === 'string' ? row[key] : undefined;
};
const strings = (v: unknown) => asArray<unknown>(v).filter((x): x is string => typeof x === 'string');

/**
 * A route per job, read from the shape of the routes told (routeShape: routes that visit steps in
 * opposite orders, or kinds of work sharing few steps), confirmed by meaning: the choices' own
 * definitions must mean "one route for all" and "a route per job", and no sentence of the answer
 * may say in words that every job takes the same route. One order for everything is never read
 * from structure: sessions of a timetable, the activities of a one-off project and the cycles of
 * one machine are told as one sequence of steps as readily as a line is, so the shape says
 * nothing there and the choice stays open.
 */
async function shapeChoice(
  choices: Choice[],
  answer: string,
  known: Record<string, unknown>,
): Promise<string | undefined> {
  const routes = await routeChoices(choices);
  if (!routes) return undefined;
  // What is filled so far: rows that list steps in order are routes; rows with an id and the
  // equipment they use are steps.
  const rows = Object.values(known).flatMap((v) => asArray<unknown>(v).filter(isPlainObject));
  const told = rows.map((r) => strings(r.steps).filter((step) => !isTimeItem(step))).filter((r) => r.length > 0);
  const equipment = new Map<string, string[]>();
  for (const row of rows) {
    const id = idOf(row);
    const column = Object.keys(row).find((k) => KIT_COLUMN.test(k));
    const kit = column ? strings(row[column]) : [];
    if (id && kit.length) equipment.set(id, kit);
  }
  if (routeShape(told, equipment) !== 'own') return undefined;
  if (sentences(answer).some((s) => routeSaid(s) === 'same')) return undefined;
  return routes.own;
}

/**
 * The two or more things one question asks, where it joins them with ", and" or ", or" before a
 * question word ("what do you make, and what makes planning hard?"); none for a question that asks
 * one thing. Only sentences ending in a question mark count (not the instructions beside them).
 */
export function askedParts(question: string): string[] {
  return askedSentences(question).flatMap(whClauses);
}

/** The sentences of a question that ask (end in "?"): not its lead-in, nor choices spelled out after it. */
const askedSentences = (question: string) => sentences(question).filter((s) => s.endsWith('?'));

/**
 * The clauses of a text that joins two questions in one ("what you make, and what makes it
 * hard"), each of four words or more; none when it is one.
 */
export function whClauses(text: string): string[] {
  const pieces = text.split(/,\s+(?:and|or)\s+(?=(?:what|which|who|how|when|where|why)\b)/i);
  return pieces.length > 1 && pieces.every((p) => p.split(/\s+/).length >= 4) ? pieces : [];
}

/**
 * The indirect question a lead-in embeds ("Which of these best describes how work moves through
 * your operation?" → "how work moves through your operation"): the clause from the first
 * question word after the lead-in's own words, when there is one and it says enough.
 */
export function embeddedClause(question: string): string | undefined {
  for (const asked of sentences(question).filter((s) => s.endsWith('?'))) {
    const m = /^\S+(?:\s+\S+)+?\s+((?:how|what|where|when|whether|which|who|why)\b[^?]*)/i.exec(asked);
    // "… which of these comes closest?" points back at the choices: it says nothing of its own.
    if (m && m[1].split(/\s+/).length >= 4 && !/^which\s+of\b/i.test(m[1])) return m[1].trim();
  }
  return undefined;
}

const DONE_RE = /\b(that'?s all|that is all|nothing (?:more|else)|no more to add|we'?re done|that is everything)\b/i;
const UNKNOWN_RE = /^\s*(i don'?t know|i'?m not sure|not sure|no idea|n\/a|unknown|pass)\b/i;

// ---------------------------------------------------------------------------------------------
// The rules.

export const eadsRules: StandinRule[] = [
  taskRule({
    task: ModelTask.eadsOrchestrate,
    description:
      'Picks the next EADS: earliest topic among the eligible candidates, ties broken ' +
      'by how near its objective is in meaning to what the conversation revealed.',
    answer: async ({ sections }) => {
      const candidates = asArray<{
        eads_id: string;
        name?: string;
        interviewer?: string;
        objective?: string;
        topic_rank?: number;
      }>(sections.candidates);
      if (candidates.length === 0) throw new Error('no candidates in the prompt');
      const conversation = asObject(sections.conversation);
      const learned = [
        conversation.product,
        conversation.problem_type,
        ...asArray<string>(conversation.scheduling_challenges),
      ]
        .filter((x): x is string => typeof x === 'string' && x !== UNDETERMINED)
        .map(humanize)
        .join('; ');
      const meaning = learned ? await meaningSpace() : undefined;
      const fits = meaning
        ? await meaning.similarities(
            learned,
            candidates.map((c) => `${c.name ?? ''}. ${c.objective ?? ''}`),
          )
        : candidates.map(() => 0);
      const ranked = candidates
        .map((c, i) => ({ c, i, rank: c.topic_rank ?? 9, fit: fits[i] }))
        .sort((a, b) => a.rank - b.rank || b.fit - a.fit || a.i - b.i);
      const best = ranked[0].c;
      const topic = ['process', 'data', 'resources', 'optimality'][ranked[0].rank] ?? 'the next';
      const tied = ranked.filter((r) => r.rank === ranked[0].rank).length > 1;
      const fit = tied && learned ? ` and the nearest to what we learned (${learned})` : '';
      return {
        eads_id: best.eads_id,
        rationale: `${best.name ?? best.eads_id} is the earliest open ${topic} topic${fit}.`,
        interviewer_type: best.interviewer ?? best.eads_id.split('/')[0],
        priority: Math.max(0.1, 1 - ranked[0].rank * 0.2),
      };
    },
  }),
  taskRule({
    task: ModelTask.eadsQuestion,
    description:
      'Asks for the first askable remaining field: the question its comment suggests, or a template by kind; ' +
      'a field asked before and still open is asked in other words (a choice with its options numbered).',
    answer: ({ sections }) => {
      const eads = asObject(sections.eads);
      const fields = asArray<PromptField>(sections.remaining_fields);
      const asked = asArray<{ targets?: string[]; charged?: boolean; question?: string }>(sections.asked);
      // A question whose table answer could not be read was free and is no attempt; a choice
      // answer that named no choice was free too, but it was asked: the next try spells the choices out.
      const attempts = (f: PromptField) =>
        asked.filter((a) => a.targets?.includes(f.name) && (a.charged !== false || !!f.choices?.length)).length;
      const earlier = new Set(asked.map((a) => normalise(a.question ?? '')));
      const objective = typeof eads.objective === 'string' ? eads.objective : '';
      const opening =
        /'([A-Z][^'\n]*\?[^'\n]*)'/.exec(objective)?.[1] ?? /"([A-Z][^"\n]*\?[^"\n]*)"/.exec(objective)?.[1];
      if (asked.length === 0 && opening) {
        return {
          question: opening.trim(),
          question_type: 'text',
          help_text: 'Answer in your own words; a few sentences are enough.',
          targets: fields.map((f) => f.name).slice(0, 20),
        };
      }
      const askable = fields.filter((f) => !f.derived && attempts(f) < 2);
      const field = askable[0];
      if (!field) {
        const targets = fields.map((f) => f.name);
        return {
          question: `Is there anything else about ${String(eads.name ?? 'this topic').toLowerCase()} we should know before we move on?`,
          question_type: 'text',
          help_text: 'Say "that\'s all" if nothing comes to mind.',
          targets: targets.length ? targets : ['(none)'],
        };
      }
      const again = attempts(field) > 0;
      const label = humanize(field.name);
      const comment = (field.comment ?? '').trim();
      const help = sentences(comment).find((s) => !s.endsWith('?') && !/:$/.test(s));
      const choices = (field.choices ?? []).map(choiceOf);
      const choiceKeys = choices.map((c) => c.key);
      if (field.kind === 'table') {
        const columns = field.columns ?? [];
        const first = field.question ?? `Could you fill in this table about the ${label}?`;
        return {
          question:
            again || earlier.has(normalise(first))
              ? `Could you give the ${label} as rows, one per line, with these columns?`
              : first,
          question_type: 'table',
          table_template: `| ${columns.map((c) => c.name).join(' | ')} |\n|${columns.map(() => ' --- |').join('')}`,
          help_text: `${help ? `${help} ` : ''}One row each; separate several values in a cell with commas.`.trim(),
          targets: [field.name],
        };
      }
      if (choiceKeys.length && !field.multiple) {
        const isYesNo = field.kind === 'boolean';
        const first =
          field.question ??
          (isYesNo ? `Is this true for you: ${label}?` : `Which of these best describes your ${label}?`);
        if (again || earlier.has(normalise(first))) {
          // Asked before and not settled: the same question again would get the same answer.
          const numbered = isYesNo
            ? `1) yes  2) no`
            : choices
                .map((c, i) => `${i + 1}) ${choiceLabel(c.key, choiceKeys)}${c.definition ? `: ${c.definition}` : ''}`)
                .join('\n');
          return {
            question: isYesNo
              ? yesOrNoAgain(first)
              : // The question again, so the choices are read against what was asked, not against "how you work" at large.
                `I could not tell which of these fits best. ${first} Which number comes closest?\n${numbered}`,
            question_type: 'choice',
            choices: choiceKeys,
            help_text: 'A number is enough; say so if none fits.',
            targets: [field.name],
          };
        }
        return {
          question: first,
          question_type: 'choice',
          choices: choiceKeys,
          help_text: isYesNo
            ? 'Start with yes or no, then add any detail.'
            : 'Pick one (its number or name), or describe it in your own words.',
          targets: [field.name],
        };
      }
      const template: Record<string, string> = {
        list: `What are the ${label}? Please list them, separated by commas.`,
        quantity: `How long is the ${label}? A number and a unit, e.g. "2 hours".`,
        number: `What is the ${label}? A number is enough.`,
      };
      const first = field.question ?? template[field.kind] ?? `Could you tell us about the ${label}?`;
      const other = template[field.kind] ?? `In a sentence or two, what about the ${label}?`;
      return {
        question:
          again || earlier.has(normalise(first))
            ? normalise(other) === normalise(first)
              ? `Put another way: ${other}`
              : other
            : first,
        question_type: 'text',
        help_text: help ?? (field.kind === 'list' ? 'Separate items with commas.' : 'A sentence or two is enough.'),
        targets: [field.name],
      };
    },
  }),
  taskRule({
    task: ModelTask.eadsSurrogateAnswer,
    description:
      "Answers as the fixture's interviewee: the table whose columns match a table question's, else the " +
      'fact nearest in meaning to the question by its label and its answer (two sentences when they are ' +
      'about as near), else "not sure".',
    answer: async ({ sections }) => {
      const question = asObject(sections.question) as unknown as PromptedQuestion;
      const facts = asArray<{ about: string; answer: string }>(sections.facts);
      const tables = asArray<{ name: string; rows: Array<Record<string, unknown>> }>(sections.tables);
      const meaning = await meaningSpace();
      if (question.question_type === 'table' && question.table_template) {
        const wanted = question.table_template
          .split('\n')[0]
          .split('|')
          .map((c) => c.trim())
          .filter(Boolean);
        // The firm's own column names ("stage", "time") are matched to the template's.
        const nameFit = meaning
          ? await meaning.similarities(
              question.question ?? '',
              tables.map((t) => t.name),
            )
          : tables.map(() => 0);
        const best = tables
          .map((t, i) => {
            const columns = [...new Set(t.rows.flatMap((r) => Object.keys(r)))];
            const match = mapHeaders(columns, wanted, (h) =>
              cellsNameRows(t.rows.map((r) => (typeof r[columns[h]] === 'string' ? String(r[columns[h]]) : ''))),
            ).map((h) => (h >= 0 ? columns[h] : undefined));
            return { t, match, n: match.filter(Boolean).length, fit: nameFit[i] };
          })
          .sort((a, b) => b.n - a.n || b.fit - a.fit)[0];
        if (best && best.n >= Math.min(2, wanted.length)) {
          const format = (v: unknown): string => {
            if (Array.isArray(v)) return v.map(format).join(', ');
            if (isPlainObject(v) && 'value-string' in v)
              return `${String(v['value-string'])} ${String(v.units ?? '')}`.trim();
            return v === undefined || v === null ? '' : String(v);
          };
          const lines = [`| ${wanted.join(' | ')} |`, `|${wanted.map(() => ' --- |').join('')}`];
          for (const row of best.t.rows)
            lines.push(`| ${best.match.map((c) => (c ? format(row[c]) : '')).join(' | ')} |`);
          return { answer: `Here is our ${best.t.name}:\n${lines.join('\n')}` };
        }
      }
      const notSure = { answer: "I'm not sure; we don't really keep track of that." };
      if (!meaning || !facts.length) return notSure;
      // A fact is chosen by the meaning of the question against what the fact is about (its
      // label) and what it says (its answer): words shared with the label alone mislead ("working
      // hours" is no answer to "how does work move").
      // A choice question asks which of its choices fits: the choices in words are part of what it means.
      const offered = question.choice_labels?.length
        ? question.choice_labels
        : (question.choices ?? []).map((c) => humanize(c).toLowerCase());
      // A question that asks two things is near a label that names two ("what the firm makes,
      // and what makes planning difficult") as the nearer of that label's halves: read whole, the
      // two halves blur, and a half of the question comes nearer a label that shares a single
      // loose word with it. Other questions read labels whole: a half of a label alone comes near
      // the choices a choice question spells out, and answers them with what it was never about.
      const partsAsked = askedParts(question.question ?? '');
      const twoAsked = partsAsked.length > 1;
      const labelParts = facts.map((f) => (twoAsked ? whClauses(f.about) : []));
      const labelNearness = async (text: string) => {
        const whole = await meaning.similarities(
          text,
          facts.map((f) => f.about),
        );
        return Promise.all(
          whole.map(async (w, i) =>
            labelParts[i].length ? Math.max(w, ...(await meaning.similarities(text, labelParts[i]))) : w,
          ),
        );
      };
      // The content words a two-part question's asked sentences share with a label put the facts
      // in order where meaning leaves them close (MiniLM put "what makes scheduling hard" nearer
      // a label about how the work is organised in a diary than one about what makes planning
      // hard). They order the facts and judge near ties, never whether anything is near at all:
      // the floor below is meaning's alone. Only the asked sentences count, not choices spelled
      // out after them, whose words are every label's; and only for a two-part question: a choice
      // question's shared words ("work") moved its answer to a fact about something else, and the
      // problem type read from it went wrong for three development firms.
      const askedWords = contentTokens(askedSentences(question.question ?? '').join(' '));
      const wordsBonus = facts.map((f) =>
        twoAsked ? SURROGATE_WORDS_WEIGHT * overlapShare(askedWords, contentTokens(f.about)) : 0,
      );
      const nearness = async (texts: readonly string[]) => {
        const rows = await Promise.all(
          texts.map(async (t) => {
            const [byLabel, byAnswer] = await Promise.all([
              labelNearness(t),
              meaning.similarities(
                t,
                facts.map((f) => f.answer),
              ),
            ]);
            return facts.map(
              (_, i) => SURROGATE_LABEL_WEIGHT * byLabel[i] + (1 - SURROGATE_LABEL_WEIGHT) * byAnswer[i],
            );
          }),
        );
        return facts.map((_, i) => Math.max(...rows.map((r) => r[i])));
      };
      // `score` orders the facts (meaning and shared words); `meaning` is nearness alone.
      const rank = (scores: number[]) =>
        facts
          .map((f, i) => ({ f, i, meaning: scores[i], score: scores[i] + wordsBonus[i] }))
          .sort((x, y) => y.score - x.score || x.i - y.i);
      // A question that asks two things ("what do you make, and what makes planning hard?") is
      // best answered by the fact that speaks to both: its nearness to the whole and to each part,
      // averaged, rather than to whichever part a fact happens to brush against.
      // Whether anything the firm said is near at all is the whole question's call: a part's words
      // are fewer, so its nearness runs lower.
      const whole = await nearness([[question.question ?? '', ...offered].join(' ').trim()]);
      // "Which of these best describes how work moves …?": the lead-in points at the choices and
      // the clause it embeds says what the question is about; read alone, the lead-in's own words
      // pull towards whatever fact happens to share them.
      const askedAgain = /(?:^|\s)1\)\s/.test(question.question ?? '');
      const about = question.question_type === 'choice' ? embeddedClause(question.question ?? '') : undefined;
      const parts = about ? [about] : partsAsked;
      const near = [...whole];
      if (parts.length > 1 || about) {
        const each = await Promise.all(parts.map((p) => nearness([p])));
        near.forEach((_, i) => (near[i] = (whole[i] + each.reduce((t, r) => t + r[i], 0)) / (each.length + 1)));
      }
      const scored = rank(near);
      const first = scored[0];
      // Asked again with the choices spelled out, what comes nearest one of them is said too.
      const byChoice = askedAgain && offered.length ? rank(await nearness(offered)) : [];
      // The clause a lead-in embeds is the question itself, so nearness to it counts as much.
      if (Math.max(whole[first.i], about ? near[first.i] : 0) < SURROGATE_FLOOR) {
        // Nothing is near the question as a whole, but a person who sees the choices spelled out
        // says what they know that one of them describes.
        const nearestChoice = byChoice[0];
        return nearestChoice && nearestChoice.meaning >= SURROGATE_FLOOR ? { answer: nearestChoice.f.answer } : notSure;
      }
      // Only sentences are said together: a list answer ("a, b, c") stays one fact's list, or the
      // second fact's words would be read as items of the first.
      const prose = (text: string) => /[.!?]$/.test(text.trim());
      // A choice is answered with the one fact nearest to it: a second one read with it would blur
      // the choice. Asked again with the choices spelled out ("1) …"), the first answer left it
      // open, and a person says more of what they know: what they said, and what they know that
      // comes nearest one of the choices (the question and all its choices read as one text blur
      // into a meaning no single fact is near).
      const second = byChoice.length ? byChoice.find((x) => x.i !== first.i) : scored[1];
      const both =
        (question.question_type === 'text' || askedAgain) &&
        question.question_type !== 'table' &&
        !!second &&
        (askedAgain || first.score - second.score < SURROGATE_MARGIN) &&
        prose(first.f.answer) &&
        prose(second.f.answer);
      return { answer: both ? `${first.f.answer} ${second.f.answer}` : first.f.answer };
    },
  }),
  taskRule({
    task: ModelTask.eadsRefine,
    description:
      'Parses the answer by field kind (tables, lists, quantities, yes/no, choices read by ' +
      'meaning) and derives the fields not to ask about.',
    answer: async ({ sections }) => {
      const question = asObject(sections.question) as unknown as PromptedQuestion;
      const answer = typeof sections.answer === 'string' ? sections.answer : JSON.stringify(sections.answer ?? '');
      const fields = asArray<PromptField>(sections.fields);
      const known = asObject(sections.data_structure);
      const context = asObject(sections.context);
      const attempts = asObject(sections.attempts) as Record<string, number>;
      const update: Record<string, unknown> = {};
      const askedFields = fields.filter((f) => question.targets?.includes(f.name));
      if (!UNKNOWN_RE.test(answer)) {
        for (const name of question.targets ?? []) {
          const field = fields.find((f) => f.name === name);
          if (!field || field.derived) continue;
          const value = await readField(field, answer, question.question ?? '', fields);
          if (value !== undefined) update[name] = value;
        }
        // Tags (several choices) gather over the answers: a trouble named in a later answer is as
        // named as one in the first. Other derived fields are filled once.
        const gathers = (f: PromptField) => f.kind === 'list' && !!f.choices?.length;
        for (const field of fields.filter((f) => f.derived && (known[f.name] === undefined || gathers(f)))) {
          const value = await deriveField(field, answer, { ...known, ...update }, context, fields, askedFields);
          if (value === undefined) continue;
          const before = asArray<unknown>(known[field.name]);
          if (gathers(field) && asArray<unknown>(value).every((v) => before.includes(v))) continue;
          update[field.name] = value;
        }
      }
      const filled = Object.keys(update);
      const open = fields.filter((f) => !f.derived && known[f.name] === undefined && update[f.name] === undefined);
      // A table answer that could not be read is no attempt (the pursuit does not charge it either).
      const unreadTable =
        /\||\t/.test(answer) &&
        fields.some(
          (f) => f.kind === 'table' && (question.targets ?? []).includes(f.name) && update[f.name] === undefined,
        );
      const thisCounts = unreadTable ? 0 : 1;
      const triedEnough = open.every(
        (f) => (attempts[f.name] ?? 0) + ((question.targets ?? []).includes(f.name) ? thisCounts : 0) >= 2,
      );
      const exhausted = DONE_RE.test(answer) || (filled.length === 0 && triedEnough);
      const missed = (question.targets ?? []).filter(
        (t) => !filled.includes(t) && fields.some((f) => f.name === t && !f.derived),
      );
      const notes = [
        filled.length ? `Filled ${filled.join(', ')}.` : 'The answer did not settle any field.',
        missed.length ? `Still open: ${missed.join(', ')}.` : '',
        exhausted ? 'Nothing more to learn here.' : '',
      ]
        .filter(Boolean)
        .join(' ');
      return { update, commit_notes: notes, exhausted };
    },
  }),
];
