/**
 * The resources an answer names when asked what the work is shared out between (machines, rooms,
 * lines, crews), and how many of each. People say them as the subjects of their sentences ("The
 * paint shop has …", "Two loom sheds with hoists"), as what there is or what someone has
 * ("there's one brake press", "she has the lathe"), counted anywhere ("two fitters"),
 * or as the members of a counted label ("Three kilns: the …, the …"). A name is a run of
 * modifiers ending in a noun, read with the part-of-speech tagger; amounts, spans of time,
 * pronouns and people's own names are not resources.
 */
import nlp from 'compromise';
import { sharedLexicon } from '../../../backends/lexicon/wordnet';
import { NUMBER_WORDS } from '../../../domain/schedule-model';
import { stemIdentifierWord } from '../../../domain/text';

export interface CountedResource {
  name: string;
  count: number;
}

/** The most resources one answer gives (a long answer is prose, not an inventory). */
const MAX_RESOURCES = 24;
/** The most characters read: an inventory is told in a paragraph or two. */
const MAX_ANSWER = 4000;
/** More of one kind than this is a stock of products or parts, not machines or people to plan with. */
const MAX_COUNT = 1000;
/**
 * The dictionary's kinds of sense a resource can be (a made thing, a person, a place, a group, a
 * physical object), and the kinds that only name a state, a thought, a message, a measure or a
 * time. A head noun the dictionary knows only in the latter ("the problem", "the delay") names no
 * resource; one it does not know, or knows also otherwise, is not judged by it. Acts are not among
 * them: the dictionary knows many a machine's name only as an act (a "sifter", the "bellows").
 */
const RESOURCE_KINDS = new Set(['artifact', 'person', 'location', 'group', 'object']);
const NO_RESOURCE_KINDS = new Set([
  'communication',
  'state',
  'attribute',
  'cognition',
  'event',
  'time',
  'quantity',
  'relation',
  'feeling',
  'motive',
  'process',
  'possession',
  'phenomenon',
  'shape',
]);
/** Words that deny what follows ("we do not have a crane"). */
const NEGATIONS = new Set(['not', 'no', "n't", 'never', 'without', 'nor']);
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
/**
 * A noun the tagger reads as a verb ("two press brakes:", "a mitre saw,", "Hoists - 2"): it ends a
 * list item (a comma, colon, semicolon or dash after it, or "and"), where a verb of a sentence
 * would go on ("the oven bakes the bread", "the bay holds six cars").
 */
const nounAsVerbAtEnd = (terms: Term[], k: number) =>
  terms[k].tags.has('Verb') &&
  !terms[k].tags.has('Copula') &&
  !terms[k].tags.has('Modal') &&
  !terms[k].tags.has('Auxiliary') &&
  (/[,;:-]/.test(terms[k].post) ||
    (!terms[k + 1] && /s$/.test(terms[k].text)) ||
    (!!terms[k + 1] && terms[k + 1].normal === 'and' && !HAVING.has(terms[k].normal)));
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
 * A word the tagger reads as a verb counts when a noun follows it ("two sorting benches").
 */
function nameAt(terms: Term[], at: number, counted = false): { name: string; end: number } | undefined {
  let end = at;
  let lastNoun = -1;
  while (end < terms.length && end - at < MAX_NAME_WORDS) {
    const t = terms[end];
    const verbBeforeNoun = t.tags.has('Verb') && /ing$/.test(t.normal) && terms[end + 1] && isNounHead(terms[end + 1]);
    // After a count of two or more a word in -s is a plural noun whatever the tagger says ("two cooks").
    const plural =
      ((lastNoun >= at || end === at) && nounAsVerbAtEnd(terms, end)) ||
      (counted && end === at && t.tags.has('PresentTense') && !t.tags.has('Copula') && /s$/.test(t.text));
    if (!isModifier(t) && !verbBeforeNoun && !plural) break;
    // A name given to a thing ("the hoist Rosie", "two riggers, Ann and …") follows
    // its kind: the kind is the resource.
    if (lastNoun >= at && lastNoun === end - 1 && /^\p{Lu}/u.test(t.text) && !/^\p{Lu}/u.test(terms[end - 1].text))
      break;
    if (isNounHead(t) || plural) lastNoun = end;
    end++;
    if (endsPhrase(t) || plural) break;
  }
  if (lastNoun < at) return undefined;
  // As written when in capitals (an acronym: "CNC mill"), else in lower case.
  const words = terms.slice(at, lastNoun + 1).map((t) => (/^[A-Z0-9]{2,}$/.test(t.text) ? t.text : t.normal));
  // A person's own name alone ("Ann", "Joe") is who, not what the work is shared out between;
  // an activity alone ("boxing") is work, not what does it; a unit is a measure.
  if (terms.slice(at, lastNoun + 1).every(personal) || NOT_A_RESOURCE.has(words[words.length - 1].toLowerCase()))
    return undefined;
  if (words.length === 1) {
    const only = terms[at];
    if (only.tags.has('ProperNoun') && !/^[A-Z]{2,}$/.test(only.text)) return undefined;
    if (only.tags.has('Activity') || /ing$/.test(words[0])) return undefined;
  }
  if (MEASURE_UNIT.test(words[words.length - 1].toLowerCase())) return undefined;
  return { name: words.join(' '), end: lastNoun + 1 };
}

/**
 * Whether a bare name after a comma is an item of a list ("lathe, mill, grinder.", "mills - 3,"):
 * the name ends the item (a comma, a full stop, a count or "and" follows), not a clause ("…, beats
 * the grit out").
 */
function listItemAt(terms: Term[], at: number): boolean {
  if (!isNounHead(terms[at]) || terms[at].tags.has('ProperNoun')) return false;
  const named = nameAt(terms, at);
  if (!named) return false;
  const after = terms[named.end];
  return endsPhrase(terms[named.end - 1]) || !after || after.tags.has('Value') || after.normal === 'and';
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
  const lexicon = sharedLexicon();
  const namesAResource = (head: string) => {
    const kinds = lexicon?.senseKinds?.(head) ?? [];
    return kinds.some((k) => RESOURCE_KINDS.has(k)) || !kinds.every((k) => NO_RESOURCE_KINDS.has(k)) || !kinds.length;
  };
  // One key for a name however it is told ("the lathe", "two lathes"): its words' stems.
  const singular = (name: string) => name.toLowerCase().split(' ').map(stemIdentifierWord).join(' ');
  /** Adds a resource (or raises the count of one told before); returns its key. */
  const add = (name: string, count: number): string | undefined => {
    const key = singular(name);
    // "the press" after "one brake press": a name told again by its last word is the same resource.
    const seenKey = found.has(key)
      ? key
      : key.includes(' ')
        ? undefined
        : [...found.keys()].find((k) => k.endsWith(` ${key}`));
    if (seenKey) {
      const seen = found.get(seenKey)!;
      seen.count = Math.max(seen.count, count);
      return seenKey;
    }
    if (found.size >= MAX_RESOURCES) return undefined;
    found.set(key, { name, count });
    return key;
  };
  let inMemberList = false;
  for (const piece of pieces(opening(answer, MAX_ANSWER))) {
    for (const terms of termsOf(piece)) {
      // Where a name may start: the piece's opening, after what there is or what someone has,
      // after a count, and at each item of a list.
      const starts: Array<{ at: number; count?: number }> = [];
      let i = 0;
      while (i < terms.length && /^(?:and|but|also|then|plus)$/.test(terms[i].normal)) i++;
      starts.push({ at: i });
      terms.forEach((t, k) => {
        const n = countOf(t.normal);
        // A count followed by a comma or a full stop is told after its name ("hoists - 2, sifters - 3").
        if (n !== undefined && n > 0 && !endsPhrase(t) && k + 1 < terms.length) starts.push({ at: k + 1, count: n });
        if (
          HAVING.has(t.normal) ||
          t.normal === "there's" ||
          (t.normal === 'there' && /^(?:is|are|'s)$/.test(terms[k + 1]?.normal ?? ''))
        )
          starts.push({ at: t.normal === 'there' ? k + 2 : k + 1 });
        // A list goes on after "and", "plus" or a comma with a new determiner or count ("… and the test bench").
        const next = terms[k + 1];
        if (
          next &&
          (t.normal === 'and' || t.normal === 'plus' || t.post.includes(',')) &&
          (inMemberList ||
            next.tags.has('Determiner') ||
            countOf(next.normal) !== undefined ||
            (t.post.includes(',') && listItemAt(terms, k + 1)))
        )
          starts.push({ at: k + 1 });
      });
      // The names found here by the index of the word after them, for a count told after a name.
      const endingAt = new Map<number, string>();
      for (const start of starts) {
        // "We do not have a crane", "there is no hoist": what is denied is not there.
        const before = terms.slice(Math.max(0, start.at - 3), start.at);
        if (before.some((t) => NEGATIONS.has(t.normal) || /n't$/.test(t.normal))) continue;
        let at = start.at;
        let count = start.count;
        // Whether a number says how many (not just an article).
        let numbered = start.count !== undefined;
        let denied = false;
        // The determiner or count before the name says how many.
        while (
          at < terms.length &&
          (terms[at].tags.has('Determiner') ||
            ONE_WORDS.has(terms[at].normal) ||
            countOf(terms[at].normal) !== undefined)
        ) {
          if (NEGATIONS.has(terms[at].normal)) denied = true;
          if (countOf(terms[at].normal) !== undefined && terms[at].normal !== 'one') numbered = true;
          count ??= countOf(terms[at].normal) ?? 1;
          at++;
        }
        if (denied) continue;
        const named = nameAt(terms, at, count !== undefined && count > 1);
        if (!named) continue;
        // A capitalised word alone with no article or count before it ("Ann runs the till") is
        // someone's name: a kind of thing is said with one ("The press …"), many of them in the plural.
        const bare = at === start.at && start.count === undefined;
        if (bare && !named.name.includes(' ') && /^\p{Lu}/u.test(terms[at].text) && !/s$/.test(named.name)) continue;
        // "The packers are six people": the subject names the people a headcount counts.
        if (HEADCOUNT.has(named.name.toLowerCase())) continue;
        // A label that opens a list ("The machines are: …", "Machines:") is no row; a counted one
        // ("Two ovens: …") still says how many.
        const labelEnd = terms[named.end - 1].post.includes(':') ? named.end - 1 : named.end;
        if (
          !numbered &&
          (terms[labelEnd]?.post.includes(':') || terms[named.end - 1].post.includes(':')) &&
          (labelEnd === named.end - 1 || terms[labelEnd]?.tags.has('Copula'))
        )
          continue;
        const headcount = terms
          .slice(named.end, named.end + 4)
          .findIndex((t, k, rest) => countOf(t.normal) !== undefined && HEADCOUNT.has(rest[k + 1]?.normal ?? ''));
        if (headcount >= 0) count = countOf(terms[named.end + headcount].normal);
        // A measure is no resource ("3,000 litres", "two weeks"); nor a head that names no thing.
        if (terms.slice(at, named.end).some((t) => t.tags.has('Unit') || t.tags.has('Duration') || t.tags.has('Date')))
          continue;
        if (!namesAResource(named.name.split(' ').pop()!.toLowerCase())) continue;
        if (count !== undefined && (count < 1 || count > MAX_COUNT)) continue;
        const key = add(named.name, count ?? 1);
        if (key) endingAt.set(named.end, key);
      }
      // "Hoists - 2", "Sifters: 5": a count right after a name, and nothing named after it.
      terms.forEach((t, k) => {
        const n = countOf(t.normal);
        if (n === undefined || n < 1 || n > MAX_COUNT || (!endsPhrase(t) && k + 1 < terms.length)) return;
        const key = endingAt.get(k);
        if (key) found.get(key)!.count = n;
      });
      // "Three kilns:" or "Two loom sheds:" opens a list of its members.
      const last = terms[terms.length - 1];
      inMemberList = !!last && /:/.test(last.post) && countOf(terms[0]?.normal ?? '') !== undefined;
    }
  }
  const resources = [...found.values()];
  return resources.length >= 2 ? resources : undefined;
}

/** The opening of a long answer, cut at the end of a sentence. */
function opening(answer: string, max: number): string {
  if (answer.length <= max) return answer;
  const cut = answer.slice(0, max);
  const end = Math.max(cut.lastIndexOf('. '), cut.lastIndexOf('; '), cut.lastIndexOf('\n'));
  return end > max / 2 ? cut.slice(0, end + 1) : cut.slice(0, cut.lastIndexOf(' ') > 0 ? cut.lastIndexOf(' ') : max);
}
