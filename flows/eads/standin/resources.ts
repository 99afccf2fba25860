/**
 * The resources an answer names when asked what the work is shared out between (machines, rooms,
 * lines, crews), and how many of each. People say them as the subjects of their sentences ("The
 * drying room has …", "Two clean benches with hoods"), as what there is or what someone has
 * ("there's one mixing tank", "he has the soldering station"), counted anywhere ("two drivers"),
 * or as the members of a counted label ("Five suites: the …, the …"). A name is a run of
 * modifiers ending in a noun, read with the part-of-speech tagger; amounts, spans of time,
 * pronouns and people's own names are not resources.
 */
import nlp from 'compromise';
import { NUMBER_WORDS } from '../../../domain/schedule-model';

export interface CountedResource {
  name: string;
  count: number;
}

/** The most resources one answer gives (a long answer is prose, not an inventory). */
const MAX_RESOURCES = 24;
/** The most words of a resource's name. */
const MAX_NAME_WORDS = 4;

interface Term {
  text: string;
  normal: string;
  tags: Set<string>;
  /** The punctuation after the word ("," ":"). */
  post: string;
}

const COUNT_WORDS = new Map<string, number>(NUMBER_WORDS.map((w, i) => [w, i] as [string, number]).slice(1));
const ONE_WORDS = new Set(['a', 'an', 'the', 'one', 'our', 'its', 'their', 'his', 'her', 'my', 'single', 'own']);
/** Verbs after which what follows is what there is or what someone has. */
const HAVING = new Set(['has', 'have', 'had', 'uses', 'use', 'got', 'own', 'owns', 'run', 'runs']);
/** Units of measure: "three metres" is a size, not three of a thing. */
const MEASURE_UNIT =
  /^(?:metres?|meters?|feet|foot|inch(?:es)?|yards?|miles?|km|cm|mm|litres?|liters?|gallons?|kilos?|kilograms?|grams?|kg|tonnes?|tons?|pounds?|lbs?|degrees?|percent|per cent)$/;
/** Nouns that count people without naming them ("eight people"): the sentence's subject names them. */
const HEADCOUNT = new Set(['people', 'persons', 'staff', 'folk', 'hands', 'men', 'women']);

const countOf = (word: string): number | undefined => {
  if (/^\d+$/.test(word)) return Number(word);
  return COUNT_WORDS.get(word);
};

/** Whether a term can be part of a resource's name: a noun, an adjective, or an -ing or -ed word before a noun. */
const isModifier = (t: Term) =>
  (t.tags.has('Adjective') || t.tags.has('Gerund') || t.tags.has('PastTense') || t.tags.has('Noun')) &&
  !t.tags.has('Pronoun') &&
  !t.tags.has('Determiner') &&
  // A possessive names whose (a person's: "Mina's frame" is a frame) unless it is part of a name ("the Owners' Room").
  !(t.tags.has('Possessive') && (t.tags.has('Person') || t.tags.has('FirstName') || !t.tags.has('ProperNoun'))) &&
  !t.tags.has('Value') &&
  !t.tags.has('Preposition') &&
  !t.tags.has('Conjunction') &&
  /^[\p{L}][\p{L}'’-]*$/u.test(t.text);
const isNounHead = (t: Term) =>
  t.tags.has('Noun') &&
  !t.tags.has('Pronoun') &&
  !t.tags.has('Possessive') &&
  !t.tags.has('Value') &&
  !t.tags.has('Date') &&
  !t.tags.has('Duration') &&
  !t.tags.has('Unit') &&
  !t.tags.has('Money') &&
  !t.tags.has('Percent');
/** A term after which a name cannot go on: it ends a clause or a list item. */
const endsPhrase = (t: Term) => /[,;:.!?)]/.test(t.post);
/** A plural noun the tagger reads as a verb ("two repair frames:"): it ends the phrase. */
const pluralAtEnd = (terms: Term[], k: number) =>
  terms[k].tags.has('PresentTense') &&
  !terms[k].tags.has('Copula') &&
  /s$/.test(terms[k].text) &&
  (endsPhrase(terms[k]) || !terms[k + 1]);
/** Whether a term is a person's own name (a first name, a surname). */
const personal = (t: Term) => t.tags.has('Person') || t.tags.has('FirstName') || t.tags.has('LastName');
/** Words that stand for an amount or for nobody in particular, never for a resource. */
const NOT_A_RESOURCE = new Set([
  'half',
  'quarter',
  'third',
  'couple',
  'dozen',
  'lot',
  'bit',
  'few',
  'nobody',
  'everyone',
  'everybody',
  'someone',
  'somebody',
  'anyone',
  'anybody',
  'none',
  'nothing',
  'everything',
  'something',
  'shift',
  'shifts',
]);

/**
 * The name that starts at `at`: modifiers up to the last noun of the run, at most a few words.
 * A word the tagger reads as a verb counts when a noun follows it ("two dipping lines").
 */
function nameAt(terms: Term[], at: number): { name: string; end: number } | undefined {
  let end = at;
  let lastNoun = -1;
  while (end < terms.length && end - at < MAX_NAME_WORDS) {
    const t = terms[end];
    const verbBeforeNoun = t.tags.has('Verb') && /ing$/.test(t.normal) && terms[end + 1] && isNounHead(terms[end + 1]);
    const plural = lastNoun >= at && pluralAtEnd(terms, end);
    if (!isModifier(t) && !verbBeforeNoun && !plural) break;
    // A name given to a thing ("the laser cutter Sparky", "two setters, Stelian and …") follows
    // its kind: the kind is the resource.
    if (lastNoun >= at && lastNoun === end - 1 && /^\p{Lu}/u.test(t.text) && !/^\p{Lu}/u.test(terms[end - 1].text))
      break;
    if (isNounHead(t) || plural) lastNoun = end;
    end++;
    if (endsPhrase(t) || plural) break;
  }
  if (lastNoun < at) return undefined;
  const words = terms.slice(at, lastNoun + 1).map((t) => t.normal);
  // A person's own name alone ("Priya", "Ben") is who, not what the work is shared out between;
  // an activity alone ("boxing") is work, not what does it; a unit is a measure.
  if (terms.slice(at, lastNoun + 1).every(personal) || NOT_A_RESOURCE.has(words[words.length - 1])) return undefined;
  if (words.length === 1) {
    const only = terms[at];
    if (only.tags.has('ProperNoun') && !/^[A-Z]{2,}$/.test(only.text)) return undefined;
    if (only.tags.has('Activity') || /ing$/.test(words[0])) return undefined;
  }
  if (MEASURE_UNIT.test(words[words.length - 1])) return undefined;
  return { name: words.join(' '), end: lastNoun + 1 };
}

/** A sentence's terms, as the tagger reads them. */
function termsOf(text: string): Term[][] {
  return nlp(text)
    .json()
    .map((s: { terms: Array<{ text: string; normal: string; tags: string[]; post?: string }> }) =>
      s.terms.map((t) => ({
        text: t.text,
        normal: t.normal || t.text.toLowerCase(),
        tags: new Set(t.tags),
        post: (t.post ?? '').trim(),
      })),
    );
}

/** Pieces of an answer that each may open with a resource: sentences, and the parts between ";" and ":". */
function pieces(answer: string): string[] {
  return answer
    .replace(/\s+/g, ' ')
    .split(/(?<=[.!?;:])\s+/)
    .map((p) => p.trim())
    .filter(Boolean);
}

/**
 * The resources an answer names, with their counts, in the order told; a name told again (or a
 * plural of it) is one resource. Undefined when it names fewer than two: such an answer is no
 * inventory.
 */
export function resourcesFromProse(answer: string): CountedResource[] | undefined {
  const found = new Map<string, CountedResource>();
  const singular = (name: string) => name.replace(/(?<=[a-z]{3})(?:es|s)$/, '');
  const add = (name: string, count: number) => {
    const key = singular(name);
    // "the tank" after "one mixing tank": a name told again by its last word is the same resource.
    const seen =
      found.get(key) ??
      (key.includes(' ') ? undefined : [...found.entries()].find(([k]) => k.endsWith(` ${key}`))?.[1]);
    if (seen) seen.count = Math.max(seen.count, count);
    else if (found.size < MAX_RESOURCES) found.set(key, { name, count });
  };
  let membersOf: number | undefined;
  for (const piece of pieces(answer.slice(0, 4000))) {
    for (const terms of termsOf(piece)) {
      // Where a name may start: the piece's opening, after what there is or what someone has,
      // after a count anywhere, and at each item of a list that a counted label opens.
      const starts: Array<{ at: number; count?: number }> = [];
      let i = 0;
      while (i < terms.length && /^(?:and|but|also|then|plus)$/.test(terms[i].normal)) i++;
      starts.push({ at: i });
      terms.forEach((t, k) => {
        const n = countOf(t.normal);
        if (n !== undefined && n > 0) starts.push({ at: k + 1, count: n });
        if (
          HAVING.has(t.normal) ||
          t.normal === "there's" ||
          (t.normal === 'there' && /^(?:is|are|'s)$/.test(terms[k + 1]?.normal ?? ''))
        )
          starts.push({ at: t.normal === 'there' ? k + 2 : k + 1 });
        // A list goes on after "and" or a comma with a new determiner or count ("… and the test bench").
        const next = terms[k + 1];
        if (
          next &&
          (t.normal === 'and' || t.post.includes(',')) &&
          (membersOf !== undefined || next.tags.has('Determiner') || countOf(next.normal) !== undefined)
        )
          starts.push({ at: k + 1 });
      });
      for (const start of starts) {
        let at = start.at;
        let count = start.count;
        // The determiner or count before the name says how many.
        while (
          at < terms.length &&
          (terms[at].tags.has('Determiner') ||
            ONE_WORDS.has(terms[at].normal) ||
            countOf(terms[at].normal) !== undefined)
        ) {
          count ??= countOf(terms[at].normal) ?? 1;
          at++;
        }
        const named = nameAt(terms, at);
        if (!named) continue;
        // A capitalised word alone with no article or count before it ("Priya runs the desk") is
        // someone's name: a kind of thing is said with one ("The press …"), many of them in the plural.
        const bare = at === start.at && start.count === undefined;
        if (bare && !named.name.includes(' ') && /^\p{Lu}/u.test(terms[at].text) && !/s$/.test(named.name)) continue;
        // "The strippers are eight people": the subject names the people a headcount counts.
        if (HEADCOUNT.has(named.name)) continue;
        const headcount = terms
          .slice(named.end, named.end + 4)
          .findIndex((t, k, rest) => countOf(t.normal) !== undefined && HEADCOUNT.has(rest[k + 1]?.normal ?? ''));
        if (headcount >= 0) count = countOf(terms[named.end + headcount].normal);
        // A measure is no resource ("3,000 litres", "two weeks").
        if (terms.slice(at, named.end).some((t) => t.tags.has('Unit') || t.tags.has('Duration') || t.tags.has('Date')))
          continue;
        add(named.name, count ?? 1);
      }
      // "Five suites:" or "Two repair frames:" opens a list of its members.
      const last = terms[terms.length - 1];
      membersOf = last && /:/.test(last.post) && countOf(terms[0]?.normal ?? '') !== undefined ? found.size : undefined;
    }
  }
  const resources = [...found.values()];
  return resources.length >= 2 ? resources : undefined;
}
