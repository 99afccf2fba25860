/**
 * The proposal stand-in's judgements, made by meaning (flows/lib/standin/meaning.ts): what kind of data a
 * study works with (so which method fits), whether a study from the search is about the topic,
 * whether the profile mentions data that already exist, whether the researcher already has a
 * skill. Every class is described in general words; no field, topic or case is named here.
 */
import {
  classify,
  decide,
  decideFromEvidence,
  meaningSpace,
  type Choice,
  type Evidence,
  type EvidenceDecision,
} from '../../lib/standin/meaning';
import { stemIdentifierWord } from '../../../domain/text';
import { STUDY_DATA } from './phrasings';
import { STUDY_DATA_SECOND } from './phrasings-second';
import { STUDY_DATA_BOUNDARIES } from './phrasings-boundaries';
import { DATA_STATE_PHRASINGS } from './phrasings-data-state';
import { DATA_STATE_PAST_PHRASINGS } from './phrasings-data-state-past';
import { NO_DATA_PHRASINGS } from './phrasings-no-data';

/** The kinds of data (and so of method) a study can rest on. */
export type DataKind =
  'documents' | 'survey' | 'interviews' | 'field' | 'lab' | 'dataset' | 'computational' | 'practice' | 'intervention';

/** Each kind in general words: what the study collects or works with, never a topic. */
export const DATA_KINDS: readonly Choice<DataKind>[] = [
  {
    key: 'documents',
    descriptions: [
      'old documents, letters and records kept in an archive',
      'historical records, registers and minutes',
      'written texts such as reports, judgments, messages or published documents',
    ],
  },
  {
    key: 'survey',
    descriptions: [
      'a questionnaire answered by many people',
      "people's views and attitudes measured with a survey",
      'rating scales filled in by respondents',
    ],
  },
  {
    key: 'interviews',
    descriptions: [
      'interviews with people about their experiences',
      'conversations in which people explain their actions and reasons',
    ],
  },
  {
    key: 'field',
    descriptions: [
      'readings from sensors and instruments installed on site',
      'measurements, samples and recordings made outdoors at study sites',
    ],
  },
  {
    key: 'lab',
    descriptions: [
      'measurements of samples or specimens in a laboratory',
      'making test batches under different conditions and measuring each one',
      'testing the strength or properties of materials',
    ],
  },
  {
    key: 'dataset',
    descriptions: [
      'an existing dataset or published statistics',
      'official figures collected by others',
      'numbers recorded over many years and published for anyone to use',
    ],
  },
  {
    key: 'computational',
    descriptions: [
      'software, algorithms and machine learning models',
      'an experiment run on a computer with code and models',
      "measuring how accurate a computer system's answers are",
    ],
  },
  {
    key: 'practice',
    descriptions: [
      "a teacher studying their own teaching and their learners' work in class",
      'creative practice in a studio or rehearsal',
    ],
  },
  {
    key: 'intervention',
    descriptions: [
      'half of the participants receive a treatment and the other half do not',
      'testing whether a new programme works better than usual practice',
      'participants split into two groups that are treated differently and then compared',
    ],
  },
];

/** Each kind with the everyday phrasings the classifier learns it from. */
export const PHRASED_DATA_KINDS: readonly Choice<DataKind>[] = DATA_KINDS.map((k) => ({
  key: k.key,
  descriptions: [
    ...k.descriptions,
    ...(STUDY_DATA[k.key] ?? []),
    ...(STUDY_DATA_SECOND[k.key] ?? []),
    ...(STUDY_DATA_BOUNDARIES[k.key] ?? []),
  ],
}));

/**
 * What the kind of data is read with: every kind, and a class of clauses that say nothing about
 * the data (the subject alone, the setting, the people, the researcher's limits). A clause of that
 * class counts for no kind: forced to choose, the classifier had put a clause naming only people
 * or a setting under a trial, the kind whose phrasings name people and groups most.
 */
const NO_DATA = 'no-data' as const;
export const READ_WITH: readonly Choice<DataKind | typeof NO_DATA>[] = [
  ...PHRASED_DATA_KINDS,
  { key: NO_DATA, descriptions: NO_DATA_PHRASINGS },
];

/**
 * Designs that combine well: the second kind adds a strand the first lacks (documents and the
 * memories of people who were there; site measurements and laboratory tests). `subsumes`: the
 * first already works with the second (computational experiments run on existing datasets).
 */
const COMPLEMENTS: ReadonlyArray<readonly [DataKind, DataKind]> = [
  ['documents', 'interviews'],
  ['field', 'lab'],
  ['survey', 'interviews'],
  ['survey', 'dataset'],
  ['practice', 'survey'],
  ['dataset', 'computational'],
];
const SUBSUMES: ReadonlyArray<readonly [DataKind, DataKind]> = [
  ['computational', 'dataset'],
  ['dataset', 'computational'],
  // Samples measured in a laboratory are then analysed with code (sequencing, imaging), and a
  // model of measurements is tested on a computer: the two read alike, and the one ahead is the
  // study, not a choice left open between them.
  ['lab', 'computational'],
  // Records kept as documents are read for what they say and counted as data: the two read alike
  // for the same ledgers or registers, and the one ahead is the study.
  ['documents', 'dataset'],
];

const pairIn = (pairs: ReadonlyArray<readonly [DataKind, DataKind]>, a: DataKind, b: DataKind) =>
  pairs.some(([x, y]) => (x === a && y === b) || (x === b && y === a));

/**
 * Scores on the evidence scale, in the classifier's probabilities: the clearest clause's
 * probability of a kind, plus half the next clearest, plus a third of the best skill or field.
 */
export const DESIGN = {
  /** Below this (no clause at least fairly sure of one kind), the profile says too little to choose. */
  floor: 0.6,
  /** Two kinds closer than this are too close to call (unless they combine). */
  margin: 0.15,
  /** A second kind joins the design when it scores this share of the first and complements it. */
  companion: 0.8,
  /** Below the floor, a kind this far ahead of the next is still taken (tentatively). */
  standsOut: 0.15,
  /**
   * A text the classifier reads as saying nothing about the data with this probability or more
   * counts for no kind. Lower bars also dropped clauses that name the data alongside their setting
   * ("six lessons for my class"); with none dropped, a consent form or a budget still spoke for a trial.
   */
  noData: 0.6,
} as const;

export interface ProfileWords {
  research_area: string;
  additional_context: string;
  field_of_study: string;
  existing_skills: string[];
  missing_skills: string[];
  /** What the researcher must work within: often where the data will come from ("the court will share its records"). */
  constraints?: readonly string[];
}

export interface StudyDesign {
  /** The kinds the study rests on: one, or two that complement each other. Empty when open. */
  kinds: DataKind[];
  /** When the profile fits two kinds about equally well (or none clearly): the choice left open. */
  open: DataKind[];
  /** Every kind's score, highest first. */
  ranked: Array<{ key: DataKind; score: number }>;
  /** For each kind, the clause of the profile that speaks for it most (the user's words). */
  evidence: Partial<Record<DataKind, string>>;
  reason?: EvidenceDecision['reason'];
}

/** The profile's description split into clauses: each says one thing about the work. */
export function clauses(text: string): string[] {
  return (
    text
      // "2018 and 2022", "5, 6 and 7" join figures, not clauses; "with and without", "before and
      // after" join two words of one phrase ("run with and without the new step"), only as a pair:
      // "… each spring and after the thaw I weigh …" is two clauses.
      .split(
        /[.;:!?]\s+|[.;:!?]$|(?<!\d),\s+|\s+(?:(?<!\d\s+|\b(?:with\s+(?=and\s+without\b)|before\s+(?=and\s+after\b)|up\s+(?=and\s+down\b)|back\s+(?=and\s+forth\b)))and(?!\s+\d)|but|combined with|while|then|which|so that|so)\s+/i,
      )
      .map((s) =>
        s
          .trim()
          .replace(/^(?:and|but|so|then)\s+/i, '')
          // An "and" after a figure is not cut at, so a clause can end on it ("… 2022 and then …").
          .replace(/\s+and$/i, '')
          .replace(/[.!?]$/, ''),
      )
      .filter((s) => s.split(/\s+/).length >= 3)
  );
}

/**
 * How many clauses of the context, and of each constraint, the kind of data is read from. Each is
 * embedded, a few milliseconds of CPU each: a context of 2,000 characters written as three-word
 * clauses and twenty constraints of 200 made 600 of them, over two seconds for one stage. A plain
 * 2,000-character description has about 40 clauses and a constraint one to three.
 */
export const MAX_CONTEXT_CLAUSES = 80;
export const MAX_CONSTRAINT_CLAUSES = 4;

/**
 * The part of a research area that names how the study works ("… with <a kind of model>", "…
 * using <records>", "… by <a technique>"), when it has one. A title is mostly its subject, and a
 * subject heard out of doors (weather, rivers, machines on site) reads as measuring on site
 * however the study means to work; the phrase of means on its own carries the method.
 */
export function meansPhrase(area: string): string | undefined {
  const m = /\s(?:using|with|by means of|by|through|via|from)\s+([^:]+)$/i.exec(titleOf(area).replace(/[.!?]+$/, ''));
  const phrase = m ? m[0].trim() : undefined;
  return phrase && phrase.split(/\s+/).length >= 3 ? phrase : undefined;
}

/**
 * Whether a phrase after "with", "by" or "from" names how the study works rather than who it is
 * about ("adults with hearing loss", "letters by soldiers"): read by meaning, since the same word
 * introduces both.
 */
const MEANS_OR_WHO: readonly Choice<'means' | 'who'>[] = [
  {
    key: 'means',
    descriptions: [
      'a method, technique or tool used to study something',
      'a source of data such as records, sensors or a dataset',
      'a kind of model or analysis',
    ],
  },
  {
    key: 'who',
    descriptions: [
      'a group of people and a condition or trait they have',
      'who the people are',
      'a person who did or wrote something',
    ],
  },
];

export async function readsAsMeans(phrase: string): Promise<boolean> {
  // "using", "through", "via" and "by means of" only ever introduce a means, whoever the rest names
  // ("through conversations with volunteers"): only "with", "by" and "from" are read.
  if (!/^(?:with|by|from)\s/i.test(phrase) || /^by means of\s/i.test(phrase)) return true;
  const d = await decide(phrase.replace(/^\S+\s+/, ''), MEANS_OR_WHO, { floor: 0, margin: 0 });
  return d.ranked[0]?.key !== 'who';
}

/** A research area written as a title with a subtitle ("<subject>: <kind of study>"): its two parts. */
// A colon, or a dash with spaces around it (a hyphen inside a word joins, it does not divide).
// Not a spaced dash between figures: "1990 - 2010", "aged 5 - 11" is a range.
const SUBTITLE_MARK = /:\s+|(?<!\d)\s+[—–-]\s+|\s+[—–-]\s+(?!\d)/;
export const titleOf = (area: string) => area.split(SUBTITLE_MARK)[0];
export function subtitleOf(area: string): string | undefined {
  const m = SUBTITLE_MARK.exec(area);
  const rest = m && m.index > 0 ? area.slice(m.index + m[0].length).trim() : '';
  return rest.split(/\s+/).length >= 2 ? rest : undefined;
}

/**
 * The texts the kind of data is read from: whole clauses, never runs of words cut across them. A
 * run such as "vary across towns of the same size" reads as a trial on its own, where the clause
 * it came from compares records.
 */
export function profileEvidence(p: ProfileWords): Evidence[] {
  const context = p.additional_context ?? '';
  // A clause that rules a kind of work out ("no wet lab", "no interviews with patients") names
  // that kind, and the embedding hears the name, not the "no": it is no evidence for any kind.
  const said = (text: string) => !denies(text);
  const means = meansPhrase(p.research_area);
  const subtitle = subtitleOf(p.research_area);
  return [
    { text: p.research_area },
    ...(means ? [{ text: means }] : []),
    // A subtitle often names the kind of study outright ("…: a survey of members").
    ...(subtitle ? [{ text: subtitle }] : []),
    ...clauses(context)
      .slice(0, MAX_CONTEXT_CLAUSES)
      .filter(said)
      .map((text) => ({ text })),
    ...(p.constraints ?? []).flatMap((c) =>
      clauses(c)
        .slice(0, MAX_CONSTRAINT_CLAUSES)
        .filter(said)
        .map((text) => ({ text })),
    ),
    ...(p.field_of_study ? [{ text: p.field_of_study, role: 'supporting' as const }] : []),
    ...[...p.existing_skills, ...p.missing_skills].map((text) => ({ text, role: 'supporting' as const })),
  ];
}

/** What the study works with, by meaning: the kinds it rests on, or the choice it leaves open. */
export async function studyDesign(p: ProfileWords): Promise<StudyDesign> {
  const means = meansPhrase(p.research_area);
  const notMeans = means && !(await readsAsMeans(means)) ? means : undefined;
  // Each text counts by what it says about the data: its probability of a kind given that it
  // speaks of data at all, and nothing when it clearly speaks of none (see `READ_WITH`).
  const texts = await Promise.all(
    profileEvidence(p)
      .filter((e) => e.text !== notMeans)
      .map(async (e) => {
        const c = await classify(e.text, READ_WITH, { minProbability: 0 });
        const none = c.ranked.find((r) => r.key === NO_DATA)?.p ?? 0;
        return { ...e, weight: none >= DESIGN.noData ? 0 : 1 / (1 - none) };
      }),
  );
  const d = await decideFromEvidence(texts, READ_WITH, { floor: 0, margin: 0, classifier: true });
  const ranked = d.ranked.filter((r): r is { key: DataKind; score: number } => r.key !== NO_DATA);
  const { [NO_DATA]: _none, ...evidence } = d.best;
  const reason = d.reason ?? (ranked.length && ranked[0].score < DESIGN.floor ? 'below-floor' : undefined);
  if (reason === 'no-model' || reason === 'empty' || !ranked.length)
    return { kinds: [], open: [], ranked, evidence, reason };
  if (reason === 'below-floor') {
    // The profile says little about its data: a kind that still stands out is assumed (and the
    // proposal says so); two that do not are left open.
    const [a, b] = ranked;
    if (!b || a.score - b.score >= DESIGN.standsOut) return { kinds: [a.key], open: [], ranked, evidence, reason };
    return { kinds: [], open: [a.key, b.key], ranked, evidence, reason };
  }
  const [first, second] = ranked;
  if (second && (pairIn(SUBSUMES, first.key, second.key) || pairIn(COMPLEMENTS, first.key, second.key))) {
    if (second.score >= DESIGN.companion * first.score)
      return {
        kinds: pairIn(SUBSUMES, first.key, second.key) ? [first.key] : [first.key, second.key],
        open: [],
        ranked,
        evidence,
      };
  } else if (second && first.score - second.score < DESIGN.margin) {
    return { kinds: [], open: [first.key, second.key], ranked, evidence, reason: 'thin-margin' };
  }
  return { kinds: [first.key], open: [], ranked, evidence };
}

/**
 * The kinds a written method reads as: its name against the same descriptions, every kind
 * within a small margin of the best (a practice-based design with interviews reads as both).
 */
export async function methodReading(methodName: string): Promise<DataKind[]> {
  const d = await decide(methodName, DATA_KINDS, { floor: 0.2, margin: 0 });
  const top = d.ranked[0]?.score ?? 0;
  return d.key ? d.ranked.filter((r) => r.score >= top - 0.05).map((r) => r.key) : [];
}

/**
 * Whether a method fits the study the profile describes: one of the kinds it reads as is in the
 * design (or the choice left open), or scores for the profile nearly as well as the best kind.
 */
export function methodFits(reads: readonly DataKind[], design: StudyDesign): boolean {
  if (!reads.length || !design.ranked.length) return true;
  const top = design.ranked[0].score;
  const score = (k: DataKind) => design.ranked.find((r) => r.key === k)?.score ?? 0;
  return reads.some((k) => design.kinds.includes(k) || design.open.includes(k) || score(k) >= DESIGN.companion * top);
}

// ---------------------------------------------------------------------------------------------
// Literature

/** A study from the search, as the prompt shows it. */
export interface StudyText {
  title: string;
  snippet?: string;
  keywords?: string[];
}

export const LITERATURE = {
  /**
   * Mean similarity of the study to the topic (title with keywords, title with first sentence).
   * Studies that share one name with the topic but not its subject (burnout among hospital nurses
   * for a study of volunteer rescue teams) sit at 0.41-0.45, where studies on
   * the topic are as many as elsewhere. On the 102 development profiles (a set of such siblings
   * among them), 0.45 rather than 0.40 cut off-topic citations from 5 to 1 and, by itself, kept at
   * least one on-topic study for every profile that had one; below the floor a study still counts through a
   * skill the researcher names (`skill`).
   */
  floor: 0.45,
  /**
   * And one of its keywords or title phrases must name something the research area names, this
   * closely (phrases and short runs of words of the area). On the development profiles, with the
   * study above the floor, on-topic studies named the area's subject at 0.61 and up; sibling
   * studies sharing one broad name (a kind of software agent, put to another use) at 0.56, and a
   * general study of people working with AI at 0.59. At 0.62 three profiles lose their only
   * on-topic study: the margin is thin either side. The context is not read here: it also tells
   * the setting, and a phrase of it (where participants are recruited) brought in studies of the
   * setting.
   */
  concept: 0.6,
  /** And it must be closer to the topic than to research in general by this much. */
  overGeneral: 0.05,
  /**
   * And, with the words it shares with the research area left out of both, still this close to
   * the area. A study that shares one name with the topic but not its subject (the same device
   * put to another use, the same condition in another population) owes its closeness to that
   * name: 40 pairs written blind by a fresh helper, half such siblings and half on-topic studies
   * in other words, put the siblings at 0.03-0.23 without their shared words and the on-topic
   * studies at 0.25-0.64 (test/unit/topic-fit-pairs.test.ts): a thin margin on the set it was set
   * on, kept below the lowest on-topic value. A study whose words are all the topic's is stripped
   * to nothing and left out. It has a cost: of the 102
   * development profiles, five lost their only on-topic study, whose one link with the topic is
   * the method or artefact both name; a skill the researcher lists still brings such a study in
   * (`skill`), and otherwise the proposal says the collection holds no matching literature.
   */
  beyondShared: 0.25,
  /**
   * A study this close to the topic as a whole (title with keywords and with its first sentence)
   * is on topic without a keyword naming the topic's words: keywords are often the field's broad
   * labels ("education, statistics") where the title names the topic itself. On the development
   * profiles no off-topic study came above 0.54; a sibling study (bird visits to garden feeders
   * for insects visiting wild flowers) reached 0.605, on-topic ones with broad keywords 0.71-0.81.
   */
  whole: 0.65,
  /** Quality control, which sees only a title and a note, flags a citation below this as off topic. */
  clearlyOff: 0.3,
  /**
   * A study about a method or tool the researcher lists as a skill ("survival analysis",
   * "spatial statistics") bears on the study even when its title shares none of the topic's words: one
   * of its keywords (or its title) this close to a skill, with the study at least this close to
   * the topic as a whole. On the first development profiles, skill matches of 0.7 or more with
   * the study at 0.3 or more were all labelled on topic or acceptable; a later blind set had
   * general skills (a kind of software library, a kind of simulation) bring in
   * general studies at 0.71-0.78, and 0.8 keeps them out (off-topic citations over 140 profiles
   * 11 -> 6; the rest are skills the study names word for word, "Python"), at the cost of seven
   * profiles left saying the collection holds nothing matching. This holds above the floor too,
   * for a study whose closeness comes only from the words it shares with the area. The method the
   * area itself names ("… with large language models") does not count as a skill: it made the
   * method's studies of other subjects (the same kind of model put to other uses) look
   * like literature on the topic.
   */
  skill: 0.8,
  skillFloor: 0.3,
  /**
   * A study as close to the topic as the floor needs less of a skill: one of its keywords (or its
   * title) this close to a skill the researcher names. Over every pair of the 146 development
   * profiles and the 71 studies of the collection, this brought in 24 studies labelled on topic or
   * acceptable (the method references of studies that apply a method: a survey of multi-agent
   * training for a study that trains such agents) and no study labelled off topic; 0.6 brought
   * in two off-topic ones, as did a topic floor of 0.42.
   */
  skillNear: 0.65,
} as const;

/** Research in general: a study that only resembles this is a method reference, not topical literature. */
const GENERAL_RESEARCH = 'a research study that collects and analyses data';

/** The first whole sentence of a text (an abstract may arrive cut mid-word), or undefined. */
export function firstSentence(text: string | undefined): string | undefined {
  const m = /^(.{20,}?[.!?])(?:\s|$)/.exec((text ?? '').trim());
  return m ? m[1] : undefined;
}

/** Short phrases of a text: what its parts name, split at function words and punctuation. */
export function phrases(text: string): string[] {
  return [
    ...new Set(
      text
        .split(
          /[.;:!?,()]\s*|\s+[—–-]\s+|\s+(?:and|or|but|with|in|of|for|from|on|at|to|by|among|between|about|before|after|during|using|that|which|who|what|how|i|we|my|our|their|the|a|an)\s+/i,
        )
        .map((s) => s.trim())
        .filter((s) => s.length >= 4),
    ),
  ];
}

const SPAN_STOP = new Set(
  'a an the and or but of in on at to for from by with about as into over under between among during before after when where while whether how what which who why that this these those its their his her our my your i we you they it is are was were be been do does did can could will would should may might must not no than then so such very actually really just also use uses used using make makes made get gets take takes help helps affect affects show shows find finds'.split(
    ' ',
  ),
);
/** Runs of two or three words of a text that neither start nor end on a function word: the short names a title is made of. */
export function spans(text: string): string[] {
  const words = text.split(/[^\p{L}\p{N}'’-]+/u).filter(Boolean);
  const out = new Set<string>();
  for (let n = 2; n <= 3; n++)
    for (let i = 0; i + n <= words.length; i++) {
      const run = words.slice(i, i + n);
      if (SPAN_STOP.has(run[0].toLowerCase()) || SPAN_STOP.has(run[n - 1].toLowerCase())) continue;
      out.add(run.join(' '));
    }
  return [...out];
}

export interface TopicFit {
  onTopic: boolean;
  score: number;
  /** The study's keyword (or title phrase) closest to the topic, and the topic's phrase it matched. */
  concept?: { keyword: string; phrase: string; score: number };
}

/** The texts `topicFit` compares, for one study and the topic. */
function topicTexts(study: StudyText, p: Pick<ProfileWords, 'research_area' | 'additional_context'>) {
  const topics = [p.research_area, `${p.research_area}. ${p.additional_context ?? ''}`.trim()];
  return {
    topics,
    topicPhrases: [...new Set([...phrases(topics[0]), ...spans(topics[0])])],
    keywords: study.keywords?.length ? study.keywords : phrases(study.title),
    titlePhrases: phrases(study.title),
    withKeywords: `${study.title}. ${(study.keywords ?? []).join(', ')}`,
    withSentence: `${study.title}. ${firstSentence(study.snippet) ?? ''}`.trim(),
  };
}

/**
 * Embeds the texts `topicFit` compares first for these studies, in one batch (one model run, not
 * dozens): the topic and each study's two short forms. Keywords are embedded later, and only for
 * the studies that come close enough to need them.
 */
export async function prefetchTopicFit(
  studies: readonly StudyText[],
  p: Pick<ProfileWords, 'research_area' | 'additional_context'>,
): Promise<void> {
  const meaning = await meaningSpace();
  if (!meaning) return;
  const texts = new Set<string>([GENERAL_RESEARCH]);
  for (const study of studies) {
    const t = topicTexts(study, p);
    for (const x of [...t.topics, t.withKeywords, t.withSentence]) texts.add(x);
  }
  await meaning.prefetch([...texts]);
}

/** The content words of a text, as stems ("timbers" and "timber" are one). */
const contentStems = (text: string): Set<string> =>
  new Set(
    (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])
      .filter((w) => w.length > 2 && !SPAN_STOP.has(w))
      .map(stemIdentifierWord),
  );
/** A text without the words of these stems. */
const withoutStems = (text: string, stems: ReadonlySet<string>): string =>
  text
    .replace(/[\p{L}\p{N}]+/gu, (w) => (stems.has(stemIdentifierWord(w.toLowerCase())) ? ' ' : w))
    .replace(/\s+/g, ' ')
    .trim();

/**
 * How close a study is to the research area once the words they share are left out of both: a
 * study on the topic still speaks of it in its other words; one that only shares a name does not.
 * A study that uses most of the area's words is about its subject, said the same way (1).
 */
async function closenessBeyondSharedWords(
  meaning: NonNullable<Awaited<ReturnType<typeof meaningSpace>>>,
  area: string,
  studyTexts: readonly string[],
): Promise<number> {
  const areaStems = contentStems(area);
  const shared = new Set([...contentStems(studyTexts.join(' '))].filter((w) => areaStems.has(w)));
  // A study that uses most of the words of an area of some length speaks of its subject in the
  // same words (an area of two or three words is one name, and sharing it says nothing more).
  if (areaStems.size >= 4 && shared.size > areaStems.size / 2) return 1;
  const rest = withoutStems(area, shared);
  const s = await meaning.similarities(
    rest,
    studyTexts.map((t) => withoutStems(t, shared)),
  );
  return s.reduce((a, b) => a + b, 0) / s.length;
}

/** Whether a study is about the research topic, by meaning: similar enough, naming a shared concept, more than research in general. */
export async function topicFit(
  study: StudyText,
  p: Pick<ProfileWords, 'research_area' | 'additional_context'> &
    Partial<Pick<ProfileWords, 'existing_skills' | 'missing_skills'>>,
): Promise<TopicFit> {
  const meaning = await meaningSpace();
  if (!meaning) return { onTopic: false, score: 0 };
  const { topics, topicPhrases, keywords, titlePhrases, withKeywords, withSentence } = topicTexts(study, p);
  const a = Math.max(...(await meaning.similarities(withKeywords, topics)));
  const b = Math.max(...(await meaning.similarities(withSentence, topics)));
  const score = (a + b) / 2;
  const general = (await meaning.similarities(withSentence, [GENERAL_RESEARCH]))[0];
  if (score - general < LITERATURE.overGeneral) return { onTopic: false, score };
  if (score >= LITERATURE.whole) return { onTopic: true, score };
  // Between the floor and the whole, the closeness must not come from shared wording alone.
  if (
    score >= LITERATURE.floor &&
    (await closenessBeyondSharedWords(meaning, topics[0], [withKeywords, withSentence])) >= LITERATURE.beyondShared
  ) {
    // Close enough: does a name the study goes by (a keyword, or a phrase of its title) name
    // something the research area names? Keywords are often the field's broad labels ("public
    // health", "education") where the title names the study's own subject, and an area written as
    // a clause ("how nurses … when …") names its subjects in short runs of words, not in the parts
    // between its function words.
    const concept = await closestPair(meaning, [...new Set([...keywords, ...titlePhrases])], topicPhrases);
    if ((concept?.score ?? 0) >= LITERATURE.concept) return { onTopic: true, score, concept };
  }
  // Not about the topic's subject, or close only through the words both use: a study about a
  // method or tool the researcher lists as a skill still bears on the study, wherever its
  // closeness to the topic comes from (above the floor as much as below it).
  const skills = [...(p.missing_skills ?? []), ...(p.existing_skills ?? [])].filter((s) => s.trim());
  // A skill matched closely counts for a study loosely near the topic; one matched fairly, for a
  // study as near the topic as the floor.
  if (score < LITERATURE.skillFloor || !skills.length) return { onTopic: false, score };
  const concept = await closestPair(meaning, [...keywords, study.title], skills);
  const match = concept?.score ?? 0;
  const onTopic = match >= LITERATURE.skill || (match >= LITERATURE.skillNear && score >= LITERATURE.floor);
  return { onTopic, score, concept: onTopic ? concept : undefined };
}

/** The keyword and phrase closest in meaning among all pairs of the two lists, with their similarity. */
async function closestPair(
  meaning: NonNullable<Awaited<ReturnType<typeof meaningSpace>>>,
  keywords: readonly string[],
  phrases: readonly string[],
): Promise<TopicFit['concept']> {
  await meaning.prefetch([...keywords, ...phrases]);
  let concept: TopicFit['concept'];
  for (const keyword of keywords) {
    const s = await meaning.similarities(keyword, [...phrases]);
    const i = s.indexOf(Math.max(...s));
    if (i >= 0 && (!concept || s[i] > concept.score)) concept = { keyword, phrase: phrases[i], score: s[i] };
  }
  return concept;
}

// ---------------------------------------------------------------------------------------------
// Existing data and skills

/**
 * Whether a sentence speaks of data that already exist, of data the researcher will collect, or of
 * neither: a classifier learnt from everyday sentences of each kind across many fields, written
 * blind in two batches (the second for records and measurements others made in the past).
 * Similarity to a few descriptions could not tell "the utility already exports two years of logs"
 * from "I will fit sensors and log them" (both near 0.25), and read a place name alone as data
 * already there.
 */
const DATA_STATE: readonly Choice<'existing' | 'new' | 'neither'>[] = [
  {
    key: 'existing',
    descriptions: [
      'data that already exist and were collected in the past',
      'records that were already kept',
      'data that is already available to use',
      'data gathered earlier that has never been studied',
      ...DATA_STATE_PHRASINGS.existing,
      ...DATA_STATE_PAST_PHRASINGS.existing,
    ],
  },
  {
    key: 'new',
    descriptions: [
      'I will collect new data',
      'measurements I plan to make',
      'people I will ask',
      ...DATA_STATE_PHRASINGS.new,
      ...DATA_STATE_PAST_PHRASINGS.new,
    ],
  },
  { key: 'neither', descriptions: [...DATA_STATE_PHRASINGS.neither, ...DATA_STATE_PAST_PHRASINGS.neither] },
];

/**
 * How sure the classifier must be that a sentence speaks of data already there. Five-fold
 * cross-validation on the phrasings of both batches (no case involved): at 0.5, 0.89 of the
 * sentences it takes are right and it finds 0.80 of them; higher bars find fewer (0.74 at 0.6,
 * 0.58 at 0.8) without being more often right (0.89-0.91).
 */
export const EXISTING_DATA_PROBABILITY = 0.5;

/**
 * What a sentence (or clause) clearly speaks of: data that already exist, data the researcher
 * will collect, or neither; undefined when the classifier is not sure.
 */
export async function dataStateOf(text: string): Promise<'existing' | 'new' | 'neither' | undefined> {
  const key = (await classify(text, DATA_STATE, { minProbability: EXISTING_DATA_PROBABILITY })).key;
  // The embedding hears "no records exist" as records existing: a negated sentence is no sign of data already there.
  return key === 'existing' && denies(text) ? undefined : key;
}

/**
 * A negation anywhere in the sentence ("no records exist", "nobody has logged", "never shared",
 * "hasn't been kept"). Sentence embeddings barely hear it, so a sentence that denies data reads as
 * one that has them; such a sentence is never taken as data already there (at worst a sentence
 * about data not yet analysed is passed over, which leaves the choice open rather than wrong).
 */
const NEGATED = /\b(?:no|not|never|none|nobody|nothing|neither|nor|cannot|without)\b|n['’]t\b/i;
/**
 * A clause after the main one: a relative clause, also one opened by a quantifier ("…, which
 * nobody has looked at so far", "…, none of which has been studied"), a contrasting one ("…, but
 * nobody uses them"). Each speaks of something else than whether the data are there. (Not ", and":
 * it also ends a list, "the ledgers, letters, and maps were never catalogued".) Spaces are single
 * here (see `denies`).
 */
const LATER_CLAUSE =
  /,? (?:(?:none|some|all|most|many|each|several|any|few|one|both|either|neither) of )?(?:which|who|whom|whose)\b|,? (?:but|although|though|while|whereas)\b/i;
/**
 * Negators that deny nothing: a comparison bounding an amount or a date ("no later than", "no
 * fewer than", "not less than"), a focus that adds to what is there ("not only … but also") and
 * two conditions compared ("with and without the new step").
 */
const NOT_A_DENIAL = /\b(?:no|not) (?:more|less|\w+er) than\b|\bnot only\b|\bwith (?:and|or) without\b/gi;
/** Whether a sentence's main clause (its words before any `LATER_CLAUSE`) is negated. */
export const denies = (text: string) =>
  // One space for every run first: a pattern that starts at each space of a long run and scans
  // the rest of it would be quadratic in the run's length.
  NEGATED.test(text.replace(/\s+/g, ' ').split(LATER_CLAUSE)[0].replace(NOT_A_DENIAL, ' '));

/**
 * The profile's own sentence about data that already exist (for a reduced scope), if it has one:
 * a whole sentence (or a part between semicolons) the classifier clearly reads as data already
 * there. Whole sentences, not fragments: "at an untouched reference meadow", cut out of a sentence
 * about measuring, is no data already kept. `gathering`: the words that say how long gathering the
 * data takes; a sentence holding them is no data already there, however it reads.
 */
export async function existingData(context: string, gathering?: string): Promise<string | undefined> {
  const sentences = context
    .split(/(?<=[.!?;])\s+/)
    .map((s) => s.trim())
    .filter((s) => s.split(/\s+/).length >= 4)
    // The words that say how long the data take to gather speak of data still to come.
    .filter((s) => !gathering || !s.includes(gathering.trim()));
  let best: { text: string; p: number } | undefined;
  for (const text of sentences) {
    if (denies(text)) continue;
    const c = await classify(text, DATA_STATE, { minProbability: EXISTING_DATA_PROBABILITY });
    const p = c.ranked.find((r) => r.key === 'existing')?.p ?? 0;
    if (c.key === 'existing' && (!best || p > best.p)) best = { text, p };
  }
  return best?.text;
}

/** Whether the researcher already has a skill: the same words, or the same meaning. */
export async function holdsSkill(skill: string, held: readonly string[]): Promise<boolean> {
  const norm = (s: string) =>
    s
      .toLowerCase()
      .replace(/[^a-z0-9+#]+/g, ' ')
      .trim();
  const s = norm(skill);
  if (held.some((h) => norm(h) === s || ` ${norm(h)} `.includes(` ${s} `) || ` ${s} `.includes(` ${norm(h)} `)))
    return true;
  const meaning = await meaningSpace();
  if (!meaning || !held.length) return false;
  return Math.max(...(await meaning.similarities(skill, [...held]))) >= 0.75;
}
