/**
 * Writing from the researcher's own words: their phrases moved into a sentence keep their own
 * casing (proper nouns, acronyms), and only a capital that came from the start of their phrase
 * or from a form's title casing is lowered. Counts are written as words and with the right
 * plural, lists are joined as prose, and nothing is cut inside a word.
 */

/** How the researcher writes words: which they capitalise inside their own sentences (proper nouns) and which they write in lower case. */
export interface Casing {
  proper: ReadonlySet<string>;
  lower: ReadonlySet<string>;
}

/**
 * Learns the researcher's casing from their own prose: a word they capitalise right after a
 * lower-case word is a name; a run of capitals at the start of a
 * phrase teaches nothing (it may be a form's title casing).
 */
export function learnCasing(prose: readonly string[], usage: readonly string[] = []): Casing {
  const proper = new Set<string>();
  const lower = new Set<string>();
  for (const text of prose) {
    for (const part of text.split(/(?<=[.!?;:])\s+/)) {
      const words = part.match(/[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu) ?? [];
      words.forEach((w, i) => {
        if (/^\p{Ll}/u.test(w)) lower.add(w.toLowerCase());
        else if (i > 0 && /^\p{Lu}\p{Ll}/u.test(w) && /^\p{Ll}/u.test(words[i - 1])) proper.add(w.toLowerCase());
      });
    }
  }
  // Other people's text on the topic (search results) shows which words are common nouns: a
  // word they write in lower case is not a name, however the researcher's form capitalised it.
  // It shows names too: a word they capitalise right after a word in lower case, and never write
  // in lower case, is one (a tool or a place the researcher names only at the start of a skill,
  // "Python and pandas", where a first capital says nothing).
  const named = new Set<string>();
  for (const text of usage)
    for (const part of text.split(/(?<=[.!?;:])\s+/)) {
      const words = part.match(/[\p{L}][\p{L}'’-]*/gu) ?? [];
      words.forEach((w, i) => {
        if (/^\p{Ll}/u.test(w)) lower.add(w);
        else if (i > 0 && /^\p{Lu}\p{Ll}/u.test(w) && /^\p{Ll}/u.test(words[i - 1])) named.add(w.toLowerCase());
      });
    }
  for (const w of named) if (!lower.has(w)) proper.add(w);
  return { proper, lower };
}

/** A capital only at the start ("Teaching", "Multi-agent"), not an acronym or a name with inner capitals ("HPV", "PyTorch"). */
const plainCapitalised = (w: string) => /^\p{Lu}[\p{Ll}'’]*(?:-[\p{Ll}'’]+)*$/u.test(w) && w.length > 1;

/** Title casing of a word or a compound: every part a capital then lower case ("Multi-Agent", "Learning"). */
const titleWord = (w: string) =>
  w.split('-').every((part) => /^\p{Lu}[\p{Ll}'’]+$/u.test(part) || /^\p{Ll}+$/u.test(part));

/**
 * The researcher's phrase placed inside a sentence: a plain first capital is lowered (it was
 * only there because the phrase started a field), unless they write that word as a name or the
 * next word continues a run of capitals ("New Zealand farms" stays as written). `label`: the
 * phrase is a form label in title case ("Machine Learning for Climate"): its plain capitals are
 * lowered too, names kept.
 */
export function inSentence(phrase: string, casing: Casing, options: { label?: boolean } = {}): string {
  const t = phrase.trim();
  if (options.label) return lowerLabelWords(t, casing);
  const words = t.split(/\s+/);
  const first = words[0] ?? '';
  // A question word opens an indirect question ("… is about how slate quarrymen were paid"), never a name.
  if (/^(?:How|What|Why|Whether|Which|Who|Whom|Whose|When|Where)$/.test(first))
    return first.toLowerCase() + t.slice(first.length);
  if (casing.proper.has(first.toLowerCase())) return t;
  // A run of capitals at the start ("Multi-Agent Systems with …") is title casing when every
  // word of it is one that is written in lower case elsewhere; otherwise it is a name ("New
  // Zealand farms") and stays as written.
  let run = 0;
  while (run < words.length && titleWord(words[run]) && /^\p{Lu}/u.test(words[run])) run++;
  if (run >= 2) {
    const lead = words.slice(0, run);
    const common = lead.every(
      (w) => titleWord(w) && casing.lower.has(w.toLowerCase()) && !casing.proper.has(w.toLowerCase()),
    );
    return common ? [...lead.map((w) => w.toLowerCase()), ...words.slice(run)].join(' ') : t;
  }
  // "A" before a word in lower case is the article that opened the field ("A digital twin of …").
  if (first === 'A' && /^\p{Ll}/u.test(words[1] ?? '')) return 'a' + t.slice(1);
  if (!plainCapitalised(first)) return t;
  // "Shakespeare's sonnets": a capitalised word in the possessive is a name, unless the word is
  // known in lower case ("women's", "children's" written so elsewhere).
  const possessive = /^(.+?)['’]s$/u.exec(first);
  if (possessive && !casing.lower.has(possessive[1].toLowerCase()) && !casing.lower.has(first.toLowerCase())) return t;
  return first.toLowerCase() + t.slice(first.length);
}

const SMALL_WORDS = /^(?:a|an|and|as|at|by|for|from|in|into|of|on|or|the|to|with|vs|via)$/i;

/** Every word of three letters or more starts with a capital: a form label, not prose. */
export function isTitleCase(text: string): boolean {
  const words = (text.match(/[\p{L}][\p{L}'’-]*/gu) ?? []).filter((w) => !SMALL_WORDS.test(w));
  return words.length >= 2 && words.every((w) => /^\p{Lu}/u.test(w));
}

function lowerLabelWords(text: string, casing: Casing): string {
  return text.replace(/[\p{L}][\p{L}'’-]*/gu, (w) =>
    titleWord(w) && !casing.proper.has(w.toLowerCase()) ? w.toLowerCase() : w,
  );
}

/** Endings of common nouns of skill and study ("Interviewing", "Statistics", "Transcription"), never of names. */
const COMMON_ENDING = /(?:ing|ics|tion|sion|ography|ology|ment|ness|ity|ance|ence|ship|ysis|ism)$/;

/**
 * A label from the profile (a skill, a field, a constraint) inside a sentence. Several words:
 * casing from the form is lowered ("Game Theory" → "game theory", "Image annotation" → "image
 * annotation"), names kept. One word: lowered when it is a common noun by its ending or the
 * researcher writes it in lower case; otherwise kept as written ("Python", "SPSS", "Latin").
 */
export function labelInSentence(label: string, casing: Casing): string {
  const t = label.trim();
  const words = t.match(/[\p{L}][\p{L}'’-]*/gu) ?? [];
  const known = (w: string) => {
    const lower = w.toLowerCase();
    return casing.lower.has(lower) || (COMMON_ENDING.test(lower) && !casing.proper.has(lower));
  };
  if (words.length <= 1) {
    const w = words[0] ?? t;
    return plainCapitalised(w) && known(w) ? t.toLowerCase() : t;
  }
  // A label in the researcher's own mixed casing ("Python and pandas", "Linux command line"): its
  // first capital is lowered only for a word known in lower case, as for a one-word label. A
  // label so often starts with a tool's or a language's name that an unknown one is kept, and
  // quoted: the casing is then visibly the researcher's, not a capital left mid-sentence.
  const title = isTitleCase(t);
  const first = words[0] ?? '';
  if (!title && plainCapitalised(first) && t.startsWith(first) && !known(first)) return `“${t}”`;
  return inSentence(t, casing, { label: title });
}

export const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

const NUMBER_WORDS = ['no', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'];

/** "one study", "three studies", "12 studies": the count as prose, with the plural it needs. */
export function count(n: number, singular: string, plural = `${singular}s`): string {
  return `${n >= 0 && n < NUMBER_WORDS.length ? NUMBER_WORDS[n] : n} ${n === 1 ? singular : plural}`;
}

/** "a", "a and b", "a, b and c". */
export function joinList(items: readonly string[], conjunction = 'and'): string {
  const list = items.filter((s) => s.trim());
  if (list.length <= 1) return list[0] ?? '';
  return `${list.slice(0, -1).join(', ')} ${conjunction} ${list[list.length - 1]}`;
}

/** Ends a sentence with a full stop unless it already ends like one. */
export function sentence(text: string): string {
  const t = text.trim();
  return /[.!?]["”’)]?$/.test(t) ? t : `${t}.`;
}

/** Shortens a text to at most `max` characters at a word boundary; undefined when not even one word fits. */
export function fitWords(text: string, max: number): string | undefined {
  const t = text.trim().replace(/\s+/g, ' ');
  if (t.length <= max) return t;
  const cut = t.slice(0, max + 1);
  const at = cut.lastIndexOf(' ');
  return at > 0 ? t.slice(0, at).replace(/[\s,;:–-]+$/, '') : undefined;
}

const CONTENT_STOP = new Set(
  (
    'the a an and or of in on for to with by from at as is are be how what which do does that this these ' +
    'those its their into over under between within across can show about'
  ).split(' '),
);

/** A phrase of two content words that occurs twice in one sentence ("How do X and Y shape X?"): poor writing. */
export function echoedPhrase(text: string): string | undefined {
  const words = text.toLowerCase().match(/[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu) ?? [];
  const seen = new Map<string, number>();
  for (let i = 0; i + 1 < words.length; i++) {
    if (CONTENT_STOP.has(words[i]) || CONTENT_STOP.has(words[i + 1])) continue;
    const key = `${words[i]} ${words[i + 1]}`;
    const at = seen.get(key);
    if (at !== undefined && i - at >= 2) return key;
    if (at === undefined) seen.set(key, i);
  }
  return undefined;
}
