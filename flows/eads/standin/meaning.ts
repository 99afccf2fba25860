/**
 * What the EADS stand-in knows about scheduling, as short general descriptions it compares
 * meanings with (flows/lib/standin/meaning.ts): the ways work can be organised, the usual kinds of trouble
 * a scheduler meets, and what people mean by a good schedule. Each idea is said several ways in
 * everyday words, so that a firm's sentence resembling one of them is heard whatever its nouns.
 *
 * Nothing here names an EADS or a choice key: the rules attach each idea to the choice of the
 * EADS whose own definition means the same thing (`describeChoices`), so an EADS with other
 * choices is read by the same ideas wherever its definitions speak of them, and a choice no idea
 * matches is read by its own definition alone.
 */
import type { Choice } from '../../../domain/eads-structure';
import { choiceLabel } from '../../../domain/eads-structure';
import { decide, meaningSpace, type Choice as MeaningChoice } from '../../lib/standin/meaning';
import { SCHEDULE_GOAL, SCHEDULING_TROUBLE, WORK_ORGANISATION } from './phrasings';
import { TROUBLE_TOLD } from './trouble-phrasings';

export const IDEAS: Record<string, readonly string[]> = {
  // How work is organised.
  'one-sequence-for-all': [
    'every item follows the same sequence of steps',
    'all products go through the same stages in the same order',
    'one production line that everything moves along',
    'the same route for all of them',
    'a fixed series of stations passed in turn',
  ],
  'route-per-job': [
    'each order follows a different sequence of machines',
    'the route depends on the job',
    'every job takes its own path through the workshop',
    'the order of operations differs from one job to the next',
    'no two orders pass the machines in the same sequence',
  ],
  'events-in-time-slots': [
    'people and rooms are booked into time slots of a weekly timetable',
    'sessions are assigned to periods in a recurring schedule',
    'appointments are placed in slots in a diary',
    'each lesson is given a teacher, a place and a time',
  ],
  'one-off-project': [
    'a one-off project with activities and milestones',
    'dates for the tasks of a single large undertaking',
    'planning the phases of a construction project',
  ],
  'one-shared-machine': [
    'deciding the order of jobs on one machine',
    'everything is processed by a single shared machine in turn',
  ],
  // Trouble.
  'materials-late': [
    'materials arrive late from suppliers',
    'parts we need are missing or out of stock',
    'supplier deliveries are late or never come',
    'we run short of materials',
    'waiting for components from the supplier',
    'the raw material does not turn up on time',
  ],
  'work-unforeseeable': [
    'we never know what customers will order',
    'orders come in unannounced at short notice',
    'we cannot predict what work will arrive',
    'walk-in customers and last-minute requests',
    'we find out what is needed only on the day',
  ],
  'promises-missed': [
    'we deliver later than we told customers',
    'orders reach customers late',
    'we struggle to finish jobs by the promised time',
    'customers wait longer than we told them',
    'deadlines slip',
  ],
  'demand-swings': [
    'demand is much higher in some seasons than others',
    'busy months and quiet months',
    'seasonal peaks in orders',
    'demand doubles at certain times of year',
    'a rush at one time of year and a lull at another',
    'the workload rises and falls over the year',
    'some weeks bring far more orders than usual',
    'order volumes jump up and down',
  ],
  'upkeep-planned': [
    'machines must be taken out of service for maintenance',
    'regular servicing of equipment has to be planned',
    'scheduled maintenance downtime',
    'periodic inspections take equipment offline',
    'routine service visits for the machines',
    'servicing has to be fitted in between the jobs',
    'the place closes for a few days so the equipment can be maintained',
  ],
  'booked-together': [
    'several resources must be booked together for the same time',
    'a person and a room and equipment are needed at once',
    'each session needs a teacher and a place at the same hour',
    'matching staff, rooms and equipment to each appointment',
    'two or more things must be free at the same moment',
  ],
  'switching-costs-time': [
    'switching a machine from one product to the next takes a long time',
    'changing tools, dies or settings between jobs',
    'set-up time between different products',
    'cleaning the equipment between batches of different products',
    'changeovers waste hours',
    'getting a machine ready for a different product takes hours',
    'moving from one product to another means emptying and cleaning out the equipment first',
    'hours are lost resetting the machine whenever the next product differs from the last',
  ],
  breakdowns: [
    'a breakdown stops a machine',
    'equipment failures stop production',
    'breakdowns make the machine unavailable',
    'the machine stops working without warning',
    'unplanned downtime of equipment',
  ],
  'equipment-idle': [
    'an expensive machine stands idle',
    'equipment is underused',
    'a costly machine sits unused much of the time',
    'we do not keep the equipment busy enough',
    'capacity we paid for goes to waste',
  ],
  'too-few-people': [
    'we do not have enough staff',
    'we are short of workers',
    'people left and were not replaced',
    'hard to hire and keep employees',
    'too few people to cover the shifts',
    'nobody wants the job so posts stay empty',
  ],
  'few-qualified': [
    'only a few people are qualified for some work',
    'only one person is certified to do certain jobs',
    'few staff have the needed skill or licence',
    'the work needs a specialist and we have very few',
    'just one employee can do that task',
  ],
  'one-step-limits-all': [
    'one step limits the output of everything',
    'a bottleneck machine sets the pace',
    'work piles up waiting for one station',
    'everything waits on one resource',
    'the slowest step holds up the rest',
    'one machine cannot handle as much as the others',
  ],
  'many-processes': [
    'similar products are made in many different ways',
    'many different paths across the shop floor',
    'the process differs for each kind of product',
  ],
  'many-products': [
    'we make many different products',
    'every order is a custom one-off item',
    'a wide range of variants and designs',
    'hardly any two products are the same',
    'made to order to customer specifications',
    "each piece is built to the customer's own measurements",
  ],
  'targets-to-hit': [
    'we must hit targets such as on-time delivery rate',
    'performance indicators we are measured on',
    'utilisation targets set by management',
  ],
  // What makes a schedule good.
  'on-time': ['finish every order by the date promised', 'being on time for the customer matters most'],
  'done-early': ['finish all the work as early as possible', 'the whole lot completed in the shortest time'],
  'most-output': ['get as much output as possible through the busiest machine', 'produce the largest amount per day'],
  'fewest-switches': ['as few switches between products as possible', 'fewer set-ups and cleanings'],
  'even-load': ['spread the work evenly over people and machines', 'nobody overloaded while others wait'],
  'wishes-honoured': [
    'people are given the slots they requested',
    'honour what staff and customers prefer',
    'requests from employees are granted',
    'staff get the days off they wanted',
    'respecting the wishes of the people involved',
  ],
};

const PHRASINGS = [WORK_ORGANISATION, SCHEDULING_TROUBLE, TROUBLE_TOLD, SCHEDULE_GOAL];
const NOTHING = 'nothing-in-particular';

/** Each idea: its short descriptions, then the everyday phrasings the classifier learns it from. */
export const PHRASED_IDEAS: Record<string, readonly string[]> = Object.fromEntries(
  Object.entries(IDEAS).map(([key, short]) => [key, [...short, ...PHRASINGS.flatMap((bank) => bank[key] ?? [])]]),
);

/** What a sentence says when it says none of the above: what the firm is, does and has. */
export const NOTHING_IN_PARTICULAR: readonly string[] = [
  'we make products for our customers',
  'what the business does',
  'the firm has staff and premises',
  'who our customers are',
  'the services we offer',
  'how big the company is',
  'we have employees at several sites',
  'one step of the work and how long it takes',
  'a machine turns the material into the next stage',
  'the shifts and opening hours',
  'the weeks of the year the business is shut',
  'how much goes into one batch',
  'the records and spreadsheets we keep',
  'the rules and wishes a plan should respect',
];

export const PHRASED_NOTHING: readonly string[] = [
  ...NOTHING_IN_PARTICULAR,
  ...PHRASINGS.flatMap((bank) => bank[NOTHING] ?? []),
];

export const NONE = '(none)';

const attached = new Map<string, Promise<Map<string, string>>>();

/**
 * Which idea each choice's own definition means: the nearest pairs first, each idea to one choice
 * and each choice to one idea (so two choices whose definitions share words do not both take the
 * idea one of them means), and only pairs near enough to count.
 */
function ideasOf(choices: readonly Choice[]): Promise<Map<string, string>> {
  const keys = choices.map((c) => c.key);
  const texts = choices.map((c) => `${choiceLabel(c.key, keys)}: ${c.definition}`);
  const cacheKey = JSON.stringify(texts);
  let found = attached.get(cacheKey);
  if (!found) {
    found = (async () => {
      const ideas = Object.entries(IDEAS);
      const pairs: Array<{ choice: string; idea: string; score: number }> = [];
      for (const [i, c] of choices.entries()) {
        if (!c.definition) continue;
        const d = await decide(
          texts[i],
          ideas.map(([key, descriptions]) => ({ key, descriptions })),
          { topK: 2, floor: 0, margin: 0 },
        );
        for (const r of d.ranked) pairs.push({ choice: c.key, idea: r.key, score: r.score });
      }
      const result = new Map<string, string>();
      const taken = new Set<string>();
      for (const p of pairs.sort((a, b) => b.score - a.score)) {
        if (p.score < ATTACH_FLOOR) break;
        if (result.has(p.choice) || taken.has(p.idea)) continue;
        result.set(p.choice, p.idea);
        taken.add(p.idea);
      }
      return result;
    })();
    attached.set(cacheKey, found);
  }
  return found;
}

const ATTACH_FLOOR = 0.3;

/**
 * Each choice with the descriptions it is recognised by: the phrasings of the idea its definition
 * means, else the definition itself. Yes/no choices are read by other means.
 */
export async function describeChoices(
  choices: readonly Choice[],
  { phrased = false }: { phrased?: boolean } = {},
): Promise<MeaningChoice[]> {
  const keys = choices.map((c) => c.key);
  const ideas = await ideasOf(choices);
  return choices.map((c) => {
    const idea = ideas.get(c.key);
    // The idea's short phrasings, when one fits: a long definition shares words with many sentences.
    if (idea) return { key: c.key, descriptions: (phrased ? PHRASED_IDEAS : IDEAS)[idea] };
    return { key: c.key, descriptions: [c.definition || choiceLabel(c.key, keys)] };
  });
}

/** The choices plus "none of them", so a sentence about something else is not forced into one. */
export async function withNone(
  choices: readonly Choice[],
  options: { phrased?: boolean } = {},
): Promise<MeaningChoice[]> {
  const nothing = options.phrased ? PHRASED_NOTHING : NOTHING_IN_PARTICULAR;
  return [...(await describeChoices(choices, options)), { key: NONE, descriptions: nothing }];
}

/** The two ideas a sentence embedding barely tells apart: "the same order" and "a different order" read alike to it. */
const SAME_ROUTE = 'one-sequence-for-all';
const OWN_ROUTE = 'route-per-job';

/**
 * The choices that mean "one route for all" and "a route per job", when the EADS has both. A
 * sentence about routes resembles both of them; which one it says is in its words of sameness or
 * difference (`routeSaid`).
 */
export async function routeChoices(choices: readonly Choice[]): Promise<{ same: string; own: string } | undefined> {
  const ideas = await ideasOf(choices);
  let same: string | undefined;
  let own: string | undefined;
  for (const [choice, idea] of ideas) {
    if (idea === SAME_ROUTE) same = choice;
    if (idea === OWN_ROUTE) own = choice;
  }
  return same && own ? { same, own } : undefined;
}

/** The choice that means "every job queues for one machine", when the EADS has one. */
export async function oneMachineChoice(choices: readonly Choice[]): Promise<string | undefined> {
  for (const [choice, idea] of await ideasOf(choices)) if (idea === ONE_MACHINE) return choice;
  return undefined;
}

const ONE_MACHINE = 'one-shared-machine';

/**
 * Whether a sentence says that one thing alone is what the work waits for: words of singleness
 * ("the only …", "a single …", "just the …", "that one …", "our one …"), whatever the thing is
 * called. Like the words of sameness of a route, they tell apart what the meaning of the sentence
 * hears alike: a line of several machines and one machine everything queues for both read as
 * "machines and the order of jobs".
 */
const SINGLENESS = String.raw`(?:only|single|sole|just (?:the|our|one)|(?:the|our|that|this) one(?! of)|one and only)`;
const ONE_SAID = new RegExp(String.raw`\b${SINGLENESS}\b`, 'i');
export function oneSaid(sentence: string): boolean {
  return ONE_SAID.test(sentence);
}

/**
 * Whether the one thing a sentence's words of singleness name is a piece of equipment ("the only
 * machine", "our one big press") rather than an idea ("the only difference", "the only question"),
 * by meaning: the few words after the singleness word, nearer equipment than an abstract idea.
 */
const SINGLE_THING = new RegExp(
  String.raw`\b${SINGLENESS}\s+(?:the\s+|our\s+)?((?:(?!(?:is|are|was|and|but|that|which|who|it|we|so|to|of|in|on|for)\b)[\w-]+\s*){1,3})`,
  'i',
);
const EQUIPMENT = 'a machine or a piece of equipment';
const AN_IDEA = 'a question, a difference or an idea';
export async function singleThingIsEquipment(sentence: string): Promise<boolean> {
  const thing = SINGLE_THING.exec(sentence)?.[1]?.trim();
  const meaning = await meaningSpace();
  if (!thing || !meaning) return false;
  const [equipment, idea] = await meaning.similarities(thing, [EQUIPMENT, AN_IDEA]);
  return equipment > idea;
}

/**
 * Whether a sentence says the work follows the same path every time or a path of its own: read
 * from its words of sameness ("the same", "identical", "fixed") and of difference ("differs",
 * "its own", "depends on", "no two … the same"), in a sentence that speaks of a route, path,
 * order, sequence or steps at all. A sentence saying both, or neither, says nothing.
 */
const MOVES = String.raw`(?:takes?|took|taking|follows?|followed|following|go|goes|going|went|runs?|ran|running|pass(?:es)?|passed|passing|moves?|moved|moving|travels?|travell?ed|walks?|walked|comes?|came|visits?|visited|uses?|used)`;
const SAMENESS_OF_A_WAY = new RegExp(
  String.raw`\b${MOVES}\s+(?:\w+\s+){0,3}?the same\b|\bthe same(?:\s+(?:for|with|every|each|all|again)\b|\s*[.,;:!?]|\s*$)|\bidentical\b|\bfixed\b|\balways in (?:the|this|that) order\b|\bone (?:line|route|sequence)\b`,
);

export function routeSaid(sentence: string, options: { aboutRoutes?: boolean } = {}): 'same' | 'own' | undefined {
  // Clauses set against each other ("every rug is a different colour, but each goes wash, dry,
  // trim in that order") each say their own thing: a difference in one and a route word
  // in the other is no route of its own. Two clauses that say opposite things say nothing.
  const clauses = sentence.split(CONTRAST).filter((c) => c.trim());
  if (clauses.length > 1) {
    const said = new Set(clauses.map((c) => routeSaidInClause(c, options)).filter(Boolean));
    return said.size === 1 ? [...said][0] : undefined;
  }
  return routeSaidInClause(sentence, options);
}

const SEVERAL_ROUTES =
  /\b(?:two|three|four|five|six|several|a few|a handful of|\d+)\s+(?:\w+\s+)?(?:routes|routings|paths|sequences|(?:standard|usual|main|different) ways)\b/;

const CONTRAST = /,?\s+(?:but|whereas|although|though|yet)\s+|,\s+and\s+/i;

// A negation and what it denies, with a few words between but no clause boundary: "nothing we
// make ever takes a different path", "not one of our jobs follows the same route".
const NEGATION = String.raw`(?:\b(?:not|never|no|nothing|none|nobody|no one|hardly|rarely|seldom)(?:'s)?|n't)\s+(?:(?!(?:and|but|so|or|because|while|yet)\b)[\w']+\s+){0,6}?`;
const NEGATED_SAME = new RegExp(
  String.raw`\bno two\b|${NEGATION}(?:in\s+)?(?:the same|fixed|identical|set (?:orders?|routes?|sequences?|paths?))\b`,
);
const NEGATED_OWN = new RegExp(
  String.raw`${NEGATION}(?:different|differs?|differently|var(?:y|ies|ying)|chang(?:e|es|ing)|unique)\b`,
);

/**
 * Whether a sentence says what its jobs differ in, and that it is something other than their path
 * ("commissions differ in length", "orders vary by colour and weight"): a difference of the work itself,
 * which readers of meaning hear as "every job is different", a route of its own. A difference in
 * the steps, machines or order they go through is a difference of route, and is not this.
 */
const DIFFERS_IN =
  /\b(?:differ(?:s|ed)?|var(?:y|ies|ied)|(?:are|is)\s+(?:all\s+)?different)\s+(?:in|by)\s+([^.;:!?]{1,60})/i;
// Where the jobs go (the places of a shop, however compounded: "workstations", "work centres"),
// their going there, and the work done on them there all name a path.
const PATH_WORD =
  /\b(?:routes?|routings?|paths?|ways?|sequences?|visit(?:s|ed|ing)?|steps?|stages?|(?:work\s*)?stations?|orders?|machines?|machining|equipment|operations?|process(?:es|ing)?|treatments?|departments?|cells?|(?:work\s*)?cent(?:re|er)s?|through|via|pass(?:es|ed)?|go(?:es)?|went|travel(?:s|led)?|flows?|journeys?|which|what|how|where)\b/i;
export function differsInSomethingElse(sentence: string): boolean {
  const what = DIFFERS_IN.exec(sentence)?.[1];
  return !!what && !PATH_WORD.test(what);
}

function routeSaidInClause(sentence: string, options: { aboutRoutes?: boolean }): 'same' | 'own' | undefined {
  const s = sentence.toLowerCase();
  // What the jobs differ in, named and not their path, is the difference this clause tells.
  if (differsInSomethingElse(s)) return undefined;
  // Sameness or difference of something else ("its own lot", "a different colour") says nothing
  // of the route. Once the sentence's meaning is known to be about routes, sameness is heard
  // whatever the route is called ("the same road"); difference needs a route word unless it is a
  // difference that depends on the work (below), since "its own job" reads like a route of its own
  // to the embedding.
  // "Order" is a route word only as the order of the steps ("in the same order", "a different
  // order", "the order of the stations"): a customer's order, or the order in which lots are taken
  // ("only the order of the batches varies"), says nothing of their path.
  const routeWord =
    /\b(?:routes?|routings?|paths?|ways?|sequences?|visits?|steps?|stages?|stations?)\b/.test(s) ||
    /\b(?:same|different|fixed|(?:its|their) own)\s+orders?\b|\bin\s+(?:the|this|that|a|an|its|their)(?:\s+\w+)?\s+order\b|\border of (?:the\s+)?(?:steps?|stages?|stations?|operations?|machines?|processes|visits?)\b/.test(
      s,
    );
  if (!routeWord && !options.aboutRoutes) return undefined;
  // "Not the same", and the words between ("they don't go the same way", "there isn't a fixed
  // sequence", "not every job follows the same route"): sameness denied is a route of its own.
  const negatedSame = NEGATED_SAME.test(s);
  // "The route never varies", "nothing ever goes in a different order": a difference denied is one route for all.
  const negatedOwn = NEGATED_OWN.test(s);
  const own =
    negatedSame ||
    // Routes counted ("one of three routes", "two standard ways"): more than one route, a route per kind of job.
    SEVERAL_ROUTES.test(s) ||
    (!negatedOwn &&
      /\b(?:different|differs?|differently|(?:its|their|his|her) own|var(?:y|ies|ying)|chang(?:es|ing)|depends? on|unique|custom)\b/.test(
        s,
      ));
  const same =
    !negatedSame &&
    (negatedOwn ||
      /\b(?:the same|identical|fixed|always in (?:the|this|that) order|one (?:line|route|sequence))\b/.test(s));
  if (own === same) return undefined;
  // Without a route word, only a difference that depends on the work ("it depends on the part",
  // "different for every job") is heard: "its own" without one is as likely its own lot or job.
  const dependsOnWork =
    /\b(?:depend(?:s|ing)? on|differs?|different (?:for|per|with|from one)|(?:var(?:y|ies|ying)|chang(?:es|ing)) (?:with|by|from))\b/.test(
      s,
    );
  if (own && !routeWord && !(options.aboutRoutes && dependsOnWork && !negatedOwn)) return undefined;
  // Without a route word, sameness speaks of the route only when the work goes, takes or follows
  // the same something ("every crate takes the same trail"), or all of it is the same ("it's the
  // same for all of them"): "needing the same setting" or "does the same thing" is sameness of
  // something else, whatever the embedding says the sentence is about.
  if (same && !routeWord && !SAMENESS_OF_A_WAY.test(s)) return undefined;
  return same ? 'same' : 'own';
}
