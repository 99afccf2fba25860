/**
 * Stand-in rules for `writeResearchProposal`: each stage's answer is computed from the prompt's
 * sections (the profile, the search results, the earlier stages), never looked up.
 *
 * Judgements are made by meaning (standin/meaning.ts beside this file): the kind of data the profile describes
 * decides the method (or, when two kinds fit about equally, the proposal says the choice is
 * open); a study is cited only when it is about the topic; a reduced scope uses data the
 * profile says already exist. The text is built from the researcher's own words in sentences
 * that cannot echo them or paste them everywhere (standin/text.ts): the research area appears
 * in the title, the problem statement and the main question, and nowhere else.
 *
 * The plan fills the profile's timeline, in phases scaled to it. A study that cannot be done in
 * the time at all (too few hours or weeks for its kind of data) says so and plans what fits.
 */
import type { ReceivedSections } from '../../contracts/model-tasks';
import { ModelTask, type PromptedSearchResult } from './model-tasks';
import { taskRule, type StandinRule } from '../lib/standin';
import { meaningSpace } from '../lib/standin/meaning';
import { statedSpans, type StatedSpan } from './standin/durations';
import { STUDY_DATA } from './standin/phrasings';
import { STUDY_DATA_SECOND } from './standin/phrasings-second';
import {
  DESIGN,
  existingData,
  dataStateOf,
  LITERATURE,
  firstSentence,
  holdsSkill,
  methodFits,
  methodReading,
  phrases,
  prefetchTopicFit,
  studyDesign,
  subtitleOf,
  titleOf,
  topicFit,
  type DataKind,
  type StudyDesign,
} from './standin/meaning';
import {
  capitalise,
  count,
  echoedPhrase,
  inSentence,
  isTitleCase,
  joinList,
  labelInSentence,
  learnCasing,
  sentence,
  type Casing,
} from './standin/text';

// ------------------------------------------------------------------------------------------
// Reading the prompt
// ------------------------------------------------------------------------------------------

const str = (v: unknown, fallback = ''): string => (typeof v === 'string' ? v : fallback);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
const num = (v: unknown, fallback: number): number => (typeof v === 'number' && Number.isFinite(v) ? v : fallback);
const obj = (v: unknown): Record<string, unknown> =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

interface Profile {
  academic_program: string;
  field_of_study: string;
  research_area: string;
  weekly_hours: number;
  timeline: string;
  timeline_weeks: number;
  unit: string;
  value: number;
  existing_skills: string[];
  missing_skills: string[];
  constraints: string[];
  additional_context: string;
  casing: Casing;
}

/**
 * A research area written as a yes-or-no question without its question mark ("Does mulch keep
 * slugs off lettuce") is still a question, and is read as one: "This proposal is about does …"
 * is no sentence. Only auxiliaries that are no nouns start one ("will", "can" and "may" are).
 */
function askedAsWritten(area: string): string {
  // Closing marks are walked back over: a pattern anchored at the end retries from every character.
  const before = (marks: RegExp) => {
    let end = area.length;
    while (end > 0 && marks.test(area[end - 1])) end--;
    return end;
  };
  // Already asked, its mark doubled ("…?!", "…??") or inside a bracket or quote ("…?)").
  const asked = before(/[\s!?]/);
  if (area.slice(asked).includes('?')) return `${area.slice(0, asked)}?`;
  if (/\?[\s)\]"'”’]*$/.test(area) || area.split(/\s+/).length < 4) return area;
  // The auxiliary as a word, not capitals ("IS strategy" names a field), and followed by what it
  // asks about, not by a joining word ("Does and fawns" are deer).
  const opener =
    /^(?:[Dd]o|[Dd]oes|[Dd]id|[Ii]s|[Aa]re|[Ww]as|[Ww]ere|[Hh]as|[Hh]ave|[Hh]ad|[Ss]hould|[Cc]ould|[Ww]ould)\s+(\p{L}+)/u;
  const next = opener.exec(area)?.[1];
  if (!next || /^(?:and|or|but|of|in|on|at|for|with|to|by|from)$/i.test(next)) return area;
  return `${area.slice(0, before(/[\s.!;:,]/))}?`;
}

/** `usage`: other text on the topic (search results), which shows the words written in lower case. */
function readProfile(v: unknown, usage: string[] = []): Profile {
  const p = obj(v);
  const t = obj(p.total_timeline);
  const value = num(t.value, 6);
  const unit = str(t.unit, 'months');
  const perUnit = unit === 'weeks' ? 1 : unit === 'years' ? 52 : 52 / 12;
  const area = askedAsWritten(str(p.research_area).trim()) || str(p.field_of_study, 'this study');
  const context = str(p.additional_context).trim();
  const constraints = strings(p.constraints);
  return {
    academic_program: str(p.academic_program),
    field_of_study: str(p.field_of_study),
    research_area: area,
    weekly_hours: Math.max(1, num(p.weekly_hours, 10)),
    timeline: str(p.timeline, `${value} ${value === 1 ? unit.replace(/s$/, '') : unit}`),
    timeline_weeks: num(p.timeline_weeks, value * perUnit),
    unit,
    value,
    existing_skills: strings(p.existing_skills),
    missing_skills: strings(p.missing_skills),
    constraints,
    additional_context: context,
    casing: casingOf(area, [context, ...constraints], [...usage, ...OWN_WORDS]),
  };
}

/**
 * The researcher's casing, counting the research area as the proposal writes it inside its
 * sentences: a first word lowered there ("Acoustic surveys of …" → "acoustic …") is
 * written in lower case by this proposal, and a skill label starting with it must not keep a
 * capital that then clashes with it.
 */
function casingOf(area: string, prose: string[], usage: string[]): Casing {
  const first = learnCasing([area, ...prose], usage);
  return learnCasing([inSentence(area, first, { label: isTitleCase(area) }), ...prose], usage);
}

type Level = 'undergraduate' | 'masters' | 'doctoral';

/** The program's level, from its usual names (a structured field of the profile, not a topic). */
function level(program: string): Level {
  if (/ph\.?\s?d|doctor|d\.?phil/i.test(program)) return 'doctoral';
  if (/bachelor|undergrad|b\.?sc|\bba\b|\bbs\b|honours/i.test(program)) return 'undergraduate';
  return 'masters';
}

// ------------------------------------------------------------------------------------------
// Methods by kind of data
// ------------------------------------------------------------------------------------------

type Kind = DataKind | 'review';

interface Method {
  /** The method's name, as the methodology recommends it. */
  name: string;
  /** The evidence it gives, inside "What can … show about …?". */
  evidence: string;
  /** What the data are, inside "The study works with …". */
  data: string;
  type: 'quantitative' | 'qualitative' | 'mixed-methods';
  skills: string[];
  techniques: string[];
  sources: string[];
  sample: string;
  pro: string;
  /** What the collection phase does. */
  collect: string;
  /** Studies with people need ethics approval before anything is collected. */
  people: boolean;
  resources: string[];
  /** What a study of this kind needs at the least: hours at undergraduate level, and calendar weeks. */
  minimum: { hours: number; weeks: number };
  questions: string[];
}

const METHODS: Record<Kind, Method> = {
  documents: {
    name: 'Documentary analysis of archival and published primary sources',
    evidence: 'the surviving records',
    data: 'written records',
    type: 'qualitative',
    skills: ['archival research', 'source criticism', 'qualitative coding'],
    techniques: ['Systematic reading and coding of the documents', 'Transcription of key passages'],
    sources: ['Primary sources: the records and documents described in the profile'],
    sample:
      'every record series that covers the period: short series read completely, long ones by a systematic selection',
    pro: 'Direct evidence from the period or setting studied',
    collect: 'Read, photograph and code the records.',
    people: false,
    resources: ['Archive visits and permission to photograph documents'],
    minimum: { hours: 60, weeks: 4 },
    questions: [
      'Which records survive, and how complete and reliable are they?',
      'What patterns and changes over time do the records show?',
      'How do the findings compare with earlier accounts?',
      'Which questions can the records not answer, and which other sources could?',
    ],
  },
  survey: {
    name: 'Cross-sectional questionnaire survey with validated scales',
    evidence: 'a questionnaire survey',
    data: 'answers from many people',
    type: 'quantitative',
    skills: ['questionnaire design', 'statistics'],
    techniques: ['Online or paper questionnaire with validated scales'],
    sources: ['Questionnaire responses from the people the study is about'],
    sample: 'about 85 complete responses (power analysis: r = 0.3, α = 0.05, power 0.8)',
    pro: 'Results that generalise to a population and can be tested statistically',
    collect: 'Run the questionnaire and follow up those who have not answered.',
    people: true,
    resources: ['A questionnaire platform'],
    minimum: { hours: 80, weeks: 8 },
    questions: [
      'Which groups of respondents differ, and by how much?',
      'Which factors are associated with the differences?',
      'How do the results compare with earlier studies?',
      'What do the findings imply for practice?',
    ],
  },
  interviews: {
    name: 'Semi-structured interviews with thematic analysis',
    evidence: 'interviews with the people involved',
    data: 'what people say about their experience',
    type: 'qualitative',
    skills: ['interviewing', 'qualitative coding'],
    techniques: ['Semi-structured interviews, recorded and transcribed', 'Thematic coding of the transcripts'],
    sources: ['Interview transcripts'],
    sample: '12 to 15 participants, until no new themes appear',
    pro: 'Rich accounts of how and why, in the participants’ own words',
    collect: 'Hold, record and transcribe the interviews.',
    people: true,
    resources: ['A voice recorder and transcription time'],
    minimum: { hours: 80, weeks: 8 },
    questions: [
      'Which experiences do participants describe as most important?',
      'How and why do their accounts differ?',
      'How do the accounts compare with what earlier studies report?',
      'What do the findings imply for practice?',
    ],
  },
  field: {
    name: 'Field measurements at the study sites',
    evidence: 'measurements on site',
    data: 'measurements made on site',
    type: 'quantitative',
    skills: ['field protocols', 'statistics'],
    techniques: ['Instrumented measurements on site with sensors or loggers', 'Repeated measurements at fixed points'],
    sources: ['Field records from the study sites'],
    sample: 'at least two sites, each measured on repeated visits across the collection phase',
    pro: 'Evidence from real conditions rather than a model of them',
    collect: 'Make the measurements at the sites.',
    people: false,
    resources: ['Transport to the sites and the measuring equipment'],
    minimum: { hours: 100, weeks: 10 },
    questions: [
      'How large are the measured quantities, and how much do they vary between sites and over time?',
      'Which conditions explain the variation?',
      'How do the measurements compare with earlier studies?',
      'What do the results imply for practice?',
    ],
  },
  lab: {
    name: 'Controlled laboratory tests',
    evidence: 'controlled laboratory tests',
    data: 'tests under controlled conditions',
    type: 'quantitative',
    skills: ['laboratory testing', 'statistics'],
    techniques: [
      'Test runs at each level of the condition studied, with repeats',
      'Measurement with calibrated instruments',
    ],
    sources: ['Laboratory test records'],
    sample: 'three repeats at each level of the condition tested',
    pro: 'Clear causes: one condition changes while the others stay fixed',
    collect: 'Run the tests at each level of the condition studied.',
    people: false,
    resources: ['Laboratory time and consumables'],
    minimum: { hours: 80, weeks: 6 },
    questions: [
      'How does the measured outcome change as the test condition changes?',
      'How repeatable are the results across test runs?',
      'Which condition gives the best result, and why?',
      'How do the results compare with earlier studies?',
    ],
  },
  dataset: {
    name: 'Secondary analysis of existing data with a reproducible analysis pipeline',
    evidence: 'an analysis of the existing data',
    data: 'data that already exist',
    type: 'quantitative',
    skills: ['data analysis', 'statistics'],
    techniques: ['Retrieval and documentation of the existing data', 'Reproducible statistical analysis'],
    sources: ['The existing data described in the profile'],
    sample: 'the whole existing dataset, with its documentation',
    pro: 'No new collection: the time goes into the analysis',
    collect: 'Retrieve, clean and document the existing data.',
    people: false,
    resources: ['Access to the existing data and its documentation'],
    minimum: { hours: 40, weeks: 3 },
    questions: [
      'What trends and differences does the existing data show?',
      'Which factors are associated with them, once others are accounted for?',
      'How robust are the results to other ways of analysing the data?',
      'What do the findings imply for practice or policy?',
    ],
  },
  computational: {
    name: 'Controlled computational experiments on benchmark tasks',
    evidence: 'controlled computational experiments',
    data: 'software and models run on test tasks',
    type: 'quantitative',
    skills: ['Python', 'experimental design', 'statistics'],
    techniques: ['Benchmark runs with automated metric collection', 'Versioned storage of every model output'],
    sources: ['Public benchmark datasets and the outputs of each run'],
    sample: 'each condition run with three random seeds on each benchmark task',
    pro: 'Fast, repeatable comparisons under controlled conditions',
    collect: 'Run the experiments and keep every output.',
    people: false,
    resources: ['Computing time (a shared cluster or a free cloud tier)'],
    minimum: { hours: 60, weeks: 4 },
    questions: [
      'How well does the approach perform against a fair baseline?',
      'Under which conditions does it fail, and why?',
      'How do the main design choices change the results?',
      'What does it cost to run, and is that practical?',
    ],
  },
  practice: {
    name:
      'Practice-based research in the researcher’s own teaching or creative practice: structured ' +
      'observation notes, reflections written after each session, samples of participants’ work and short interviews',
    evidence: 'close study of the researcher’s own practice',
    data: 'the researcher’s own practice and the work of the people in it',
    type: 'qualitative',
    skills: ['reflective practice', 'qualitative coding'],
    techniques: [
      'Structured observation notes after each session',
      'A journal of reflections',
      'Short interviews with participants',
    ],
    sources: ['Observation notes, journal entries and samples of participants’ work', 'Interview transcripts'],
    sample: 'the researcher’s own groups over the whole collection phase, every session noted',
    pro: 'Evidence from inside the practice, where changes can be tried at once',
    collect: 'Teach or practise as planned, noting each session.',
    people: true,
    resources: ['Consent from participants (and parents or guardians where they are children)'],
    minimum: { hours: 60, weeks: 8 },
    questions: [
      'What changes in the participants’ work and engagement over the period?',
      'Which parts of the practice seem to make the difference, and why?',
      'How do the participants describe the experience?',
      'What could other practitioners take from the findings?',
    ],
  },
  intervention: {
    name: 'Comparison of an intervention group and a comparison group, with a short participant questionnaire',
    evidence: 'a comparison of groups with and without the intervention',
    data: 'outcomes of participants who receive something new, compared with others who do not',
    type: 'quantitative',
    skills: ['research design', 'statistics', 'questionnaire design'],
    techniques: ['Outcome records of both groups', 'Participant questionnaire'],
    sources: ['Outcome records of both groups', 'Questionnaire responses'],
    sample: 'two groups of similar size, about 30 participants each',
    pro: 'A direct test of whether the change makes a difference',
    collect: 'Run the intervention and record the outcomes of both groups.',
    people: true,
    resources: ['Agreement of the settings where both groups take part'],
    minimum: { hours: 100, weeks: 10 },
    questions: [
      'How do the outcomes of the two groups differ?',
      'For whom does the intervention work best?',
      'How do participants experience it?',
      'What would it take to adopt it more widely?',
    ],
  },
  review: {
    name: 'Scoping review of published studies',
    evidence: 'a review of published studies',
    data: 'published studies',
    type: 'qualitative',
    skills: ['systematic searching', 'critical appraisal'],
    techniques: ['Structured database searches', 'Screening and charting of the studies found'],
    sources: ['Published studies from bibliographic databases'],
    sample: 'the studies that meet the inclusion criteria, typically 20 to 60',
    pro: 'Feasible in little time and sets up the empirical study',
    collect: 'Search the databases and screen what they return.',
    people: false,
    resources: ['Library access to bibliographic databases'],
    minimum: { hours: 30, weeks: 2 },
    questions: [
      'What do published studies report on the topic?',
      'Which methods have they used, and with what results?',
      'Where are the gaps that a later study could fill?',
    ],
  },
};

/**
 * The names of the methods this model proposes and their techniques: the field's standard terms
 * ("semi-structured interviews"), which researchers write in their own profiles too.
 */
export const methodVocabulary = (): string[] => Object.values(METHODS).flatMap((m) => [m.name, ...m.techniques]);

/**
 * The words this stand-in itself writes in lower case (its methods' texts, its everyday phrasings
 * of study data): a researcher's label that starts with one of them had its capital only from the
 * form ("Mapping in QGIS"), and a capital left on it would clash with the same word in lower
 * case elsewhere in the proposal. A word in none of them keeps the researcher's casing.
 */
const OWN_WORDS: readonly string[] = [
  ...Object.values(METHODS).flatMap((m) =>
    Object.values(m).flatMap((v) => (typeof v === 'string' ? [v] : Array.isArray(v) ? v : [])),
  ),
  ...Object.values(STUDY_DATA).flat(),
  ...Object.values(STUDY_DATA_SECOND).flat(),
];

/** Tools per kind; paid ones are left out when the profile has no budget. */
const TOOLS: Array<{
  name: string;
  type: string;
  accessibility: string;
  learning_curve: string;
  for: Kind[];
  paid?: boolean;
}> = [
  {
    name: 'Zotero',
    type: 'Reference manager',
    accessibility: 'Free / open source',
    learning_curve: 'Low',
    for: [
      'documents',
      'survey',
      'interviews',
      'field',
      'lab',
      'dataset',
      'computational',
      'practice',
      'intervention',
      'review',
    ],
  },
  {
    name: 'Tropy',
    type: 'Organising photographs of documents',
    accessibility: 'Free / open source',
    learning_curve: 'Low',
    for: ['documents'],
  },
  {
    name: 'Taguette',
    type: 'Qualitative coding',
    accessibility: 'Free / open source',
    learning_curve: 'Low',
    for: ['documents', 'interviews', 'practice'],
  },
  {
    name: 'LimeSurvey Community Edition',
    type: 'Questionnaire platform',
    accessibility: 'Free / open source',
    learning_curve: 'Low',
    for: ['survey', 'intervention'],
  },
  {
    name: 'JASP',
    type: 'Statistics software',
    accessibility: 'Free / open source',
    learning_curve: 'Low',
    for: ['survey', 'intervention', 'lab'],
  },
  {
    name: 'SPSS',
    type: 'Statistics software',
    accessibility: 'Commercial licence',
    learning_curve: 'Low',
    for: ['survey', 'intervention'],
    paid: true,
  },
  {
    name: 'R',
    type: 'Statistics software',
    accessibility: 'Free / open source',
    learning_curve: 'Medium',
    for: ['field', 'lab', 'dataset'],
  },
  {
    name: 'QGIS',
    type: 'Mapping of study sites',
    accessibility: 'Free / open source',
    learning_curve: 'Medium',
    for: ['field'],
  },
  {
    name: 'Python with pandas',
    type: 'Programming language',
    accessibility: 'Free / open source',
    learning_curve: 'Low for Python users',
    for: ['dataset', 'computational'],
  },
  {
    name: 'MLflow',
    type: 'Experiment tracking',
    accessibility: 'Free / open source',
    learning_curve: 'Medium',
    for: ['computational'],
  },
  {
    name: 'Audacity',
    type: 'Audio recording and editing',
    accessibility: 'Free / open source',
    learning_curve: 'Low',
    for: ['interviews'],
  },
  { name: 'Rayyan', type: 'Screening of studies', accessibility: 'Free tier', learning_curve: 'Low', for: ['review'] },
];

// ------------------------------------------------------------------------------------------
// The design: kinds of data, feasibility in the time available, the plan's phases
// ------------------------------------------------------------------------------------------

interface Design {
  study: StudyDesign;
  /** The kinds the plan rests on (after any reduction of scope). */
  kinds: Kind[];
  /** The choice left open, when the profile fits two kinds about equally. */
  open: DataKind[];
  feasible: boolean;
  /** The study as described does not fit; what the plan does instead. */
  reduced?: { to: 'pilot' | 'existing-data' | 'review'; quote?: string; fits: boolean };
  availableHours: number;
  neededHours: number;
  neededWeeks: number;
  /** The clause of the profile that the design rests on, in the researcher's words. */
  because?: string;
  /** The researcher's words for how long the study must run, when that sets the weeks needed. */
  spanQuote?: string;
}

const PROGRAM_FACTOR: Record<Level, number> = { undergraduate: 1, masters: 1.5, doctoral: 3 };

function needs(kinds: Kind[], program: string): { hours: number; weeks: number } {
  const factor = PROGRAM_FACTOR[level(program)];
  const ms = kinds.map((k) => METHODS[k].minimum);
  const hours = ms.reduce((sum, m, i) => sum + (i === 0 ? m.hours : m.hours / 2), 0) * factor;
  return { hours: Math.round(hours), weeks: Math.max(...ms.map((m) => m.weeks)) };
}

/** A constraint written as a fragment, ended as a sentence so it is read on its own. */
const asSentence = (text: string) => {
  const t = text.trimEnd();
  return /[.!?]$/.test(t) ? t : `${t}.`;
};

/**
 * The longest span the researcher says gathering the data takes. A span of data that already
 * exist ("thirty years of archived tide readings") is how much there is to analyse, not how long the
 * study must run.
 */
async function gatheringSpan(context: string): Promise<StatedSpan | undefined> {
  let best: StatedSpan | undefined;
  for (const span of statedSpans(context)) {
    if (best && span.weeks <= best.weeks) continue;
    // A measurement that long after each participant starts ("the outcome at 6 months after
    // surgery") keeps the study gathering at least that long, whatever the sentence's verb.
    if (followUp(span)) {
      best = span;
      continue;
    }
    // A sentence that does not say in so many words that it plans counts when it clearly speaks
    // of collecting data ("ring the same households every month through two school years").
    if (!span.planned && (await dataStateOf(span.segment)) !== 'new') continue;
    if (plannedDuration(span) || (await dataStateOf(recordsText(span))) !== 'existing') best = span;
  }
  return best;
}

/**
 * A point of measurement after a start: "at 6 months after the operation", "at twelve weeks post
 * discharge", "follow-up at one year". The span is how long each participant is followed.
 */
function followUp(span: StatedSpan): boolean {
  if (span.lead.at(-1) !== 'at') return false;
  return (
    ['after', 'post', 'later', 'from'].includes(span.after ?? '') || span.lead.slice(-4).some((w) => /^follow/.test(w))
  );
}

/** Words that make a span time still to come: "two more years", "the next four years", "another season". */
const STILL_TO_COME = new Set(['more', 'next', 'another', 'further', 'additional', 'extra', 'coming']);
/** Words that make a span how long an activity lasts: "log them for two years", "sample over three seasons". */
const LASTING = new Set(['for', 'over', 'through', 'throughout', 'during', 'across', 'lasting', 'spanning']);
/** Words that may stand between such a word and the count: "for the first two years". */
const FILLER = new Set([
  'the',
  'a',
  'an',
  'at',
  'least',
  'about',
  'around',
  'roughly',
  'some',
  'first',
  'full',
  'whole',
  'entire',
]);

/**
 * Whether the words around a span say it is time the researcher's own work takes, whatever else
 * the clause says: "two more years of my own sampling" or "install cameras for two seasons" next to
 * "the ten years of records the agency holds". "Records kept for ten years" (the word before "for"
 * a past participle) is not.
 */
function plannedDuration(span: StatedSpan): boolean {
  // "Two more years" (between the count and its unit), "another two years", "the next four
  // years" (just before the count); "more than ten years of records" says nothing of the kind.
  if (span.quote.split(' ').some((w) => STILL_TO_COME.has(w))) return true;
  const lead = [...span.lead];
  while (lead.length && FILLER.has(lead[lead.length - 1])) lead.pop();
  const word = lead.pop();
  if (word && word !== 'more' && STILL_TO_COME.has(word)) return true;
  // "Over twelve years of reports" is how much there is ("more than"), not how long work lasts.
  if (!word || !LASTING.has(word) || span.after === 'of') return false;
  const verb = lead.pop();
  return !verb || !/(?:ed|kept|held|made|taken|run|done|written|drawn|grown|known|shown|seen)$/.test(verb);
}

/**
 * The text that tells whether a span is of records already there: the part of its clause it
 * belongs to, when that part is a phrase of its own (four words or more), else the whole clause.
 */
const recordsText = (span: StatedSpan) => (span.segment.split(/\s+/).length >= 4 ? span.segment : span.clause);

/** "“two full seasons” of data collection", or "data collection “from May to October”" for a span told by its ends. */
const collectionFor = (quote: string) =>
  quote.startsWith('from ') ? `data collection “${quote}”` : `“${quote}” of data collection`;

/** The least a study needs around a stated span of gathering: setting it up, and analysing and writing up after. */
const AROUND_GATHERING_WEEKS = 4;

async function designFor(profile: Profile): Promise<Design> {
  const study = await studyDesign(profile);
  const planned: Kind[] = study.kinds.length ? study.kinds : study.open.length ? [study.open[0]] : ['review'];
  const availableHours = Math.round(profile.weekly_hours * profile.timeline_weeks);
  // The method's own minimum, or longer when the researcher says the data take longer to gather.
  const span = await gatheringSpan(profile.additional_context);
  const method = needs(planned, profile.academic_program);
  // Gathering that long leaves the weeks to prepare it and to analyse what it gave still to come.
  const need = { hours: method.hours, weeks: Math.max(method.weeks, span ? span.weeks + AROUND_GATHERING_WEEKS : 0) };
  const because = study.kinds[0] ? study.evidence[study.kinds[0]] : undefined;
  const spanQuote = span && span.weeks > method.weeks ? span.quote : undefined;
  const base = { study, availableHours, neededHours: need.hours, neededWeeks: need.weeks, because, spanQuote };
  const fits = (n: { hours: number; weeks: number }) => n.hours <= availableHours && n.weeks <= profile.timeline_weeks;
  if (fits(need)) return { ...base, kinds: study.kinds.length ? study.kinds : [], open: study.open, feasible: true };
  // The method itself fits; only the span the researcher says the data need does not ("two full
  // seasons" in ten weeks): a pilot of the same design in the time there is, and a protocol for the
  // full span, keeps the study the researcher came for.
  if (study.kinds.length && fits(method))
    return { ...base, kinds: study.kinds, open: [], feasible: false, reduced: { to: 'pilot', fits: true } };
  // Too little time for the study as described: analyse data the profile says already exist, or
  // else review what is published and plan the study for later.
  const quote = planned.includes('dataset')
    ? undefined
    : await existingData(
        [profile.additional_context, ...profile.constraints.map(asSentence)].join(' '),
        // A clause about one span only is about the data still to gather, not data already there.
        span && span.segment === span.clause ? span.clause : undefined,
      );
  // Data that already exist are the feasible scope even when a full analysis of them is tight: a
  // first analysis of part of them still answers something, where a review would answer nothing
  // the researcher came for.
  if (quote)
    return {
      ...base,
      kinds: ['dataset'],
      open: [],
      feasible: false,
      reduced: { to: 'existing-data', quote, fits: fits(needs(['dataset'], profile.academic_program)) },
    };
  return {
    ...base,
    kinds: ['review'],
    open: [],
    feasible: false,
    reduced: { to: 'review', fits: fits(needs(['review'], profile.academic_program)) },
  };
}

/** What the plan is made of, in the words the proposal uses. */
function methodOf(design: Design): { name: string; evidence: string; type: Method['type']; kinds: Kind[] } {
  const { kinds, open, study } = design;
  const lowerFirst = (s: string) => s.charAt(0).toLowerCase() + s.slice(1);
  if (design.reduced?.to === 'pilot') {
    const planned = kinds.length === 2 ? methodOf({ ...design, reduced: undefined }) : METHODS[kinds[0]];
    return {
      name: `A pilot of the planned design, ${lowerFirst(planned.name)}, and a protocol for the full study`,
      evidence: planned.evidence,
      type: planned.type,
      kinds,
    };
  }
  if (design.reduced?.to === 'review') {
    const later = study.kinds.length ? study.kinds : study.open;
    const what = later.length ? joinList(later.map((k) => METHODS[k].evidence)) : 'the empirical study';
    const name = design.reduced.fits
      ? `${METHODS.review.name} and a protocol for ${what}`
      : `A study protocol for ${what}, with a first search of published studies`;
    return { name, evidence: METHODS.review.evidence, type: 'qualitative', kinds: ['review'] };
  }
  if (open.length === 2) {
    const [a, b] = open.map((k) => METHODS[k]);
    return {
      name: `${a.name} or ${lowerFirst(b.name)}, to be settled in the first phase`,
      evidence: `${a.evidence} or ${b.evidence}`,
      type: a.type === b.type ? a.type : 'mixed-methods',
      kinds: open,
    };
  }
  if (kinds.length === 2) {
    const [a, b] = kinds.map((k) => METHODS[k]);
    const name =
      kinds.includes('survey') && kinds.includes('interviews')
        ? 'Mixed-methods design: a questionnaire survey followed by semi-structured interviews'
        : `${a.name} combined with ${lowerFirst(b.name)}`;
    return {
      name,
      evidence: `${a.evidence} and ${b.evidence}`,
      type: a.type === b.type ? a.type : 'mixed-methods',
      kinds,
    };
  }
  if (kinds.length === 1) {
    const m = METHODS[kinds[0]];
    return { name: m.name, evidence: m.evidence, type: m.type, kinds };
  }
  return {
    name: 'A design to be settled in the first phase, once the kind of data available is clear',
    evidence: 'the data this project can collect',
    type: 'mixed-methods',
    kinds: [],
  };
}

type Unit = 'days' | 'weeks' | 'months';

/** The timeline in the unit a plan of its length is written in, and phases that add up to it exactly. */
function phasePlan(profile: Profile, shares: number[]): { unit: Unit; total: number; parts: number[] } {
  const weeks = profile.timeline_weeks;
  const unit: Unit = weeks < 4 ? 'days' : weeks < 26 ? 'weeks' : 'months';
  const total =
    unit === 'days'
      ? Math.floor(weeks * 7)
      : unit === 'weeks'
        ? Math.floor(weeks)
        : profile.unit === 'years'
          ? profile.value * 12
          : profile.unit === 'months'
            ? profile.value
            : Math.round((weeks * 12) / 52);
  // Largest remainder, with at least one unit per phase when there are enough units.
  const raw = shares.map((s) => s * total);
  const parts = raw.map((r) => Math.max(total >= shares.length ? 1 : 0, Math.floor(r)));
  let left = total - parts.reduce((a, b) => a + b, 0);
  const order = raw.map((r, i) => ({ i, rest: r - Math.floor(r) })).sort((a, b) => b.rest - a.rest);
  for (let k = 0; left > 0; k = (k + 1) % order.length, left--) parts[order[k].i]++;
  for (let i = parts.length - 1; left < 0 && i >= 0; i--)
    while (left < 0 && parts[i] > 1) {
      parts[i]--;
      left++;
    }
  return { unit, total, parts };
}

const span = (n: number, unit: Unit) => `${n} ${n === 1 ? unit.slice(0, -1) : unit}`;

/** An alternative method is worth naming when the profile fits it at least this share as well as the best. */
const ALTERNATIVE = 0.6;

/** Four phases: preparation, collection, analysis, writing up. */
const PHASE_SHARES = [0.15, 0.4, 0.25, 0.2];

// ------------------------------------------------------------------------------------------
// Problem formulation
// ------------------------------------------------------------------------------------------

const NARROW = /narrow|scope|fit|shorten|reduce|fewer|too long|timeline/i;

function readHits(v: unknown): PromptedSearchResult[] {
  return (Array.isArray(v) ? v : []).map((h) => {
    const o = obj(h);
    return {
      id: str(o.id),
      title: str(o.title),
      source: str(o.source),
      year: typeof o.year === 'number' ? o.year : null,
      snippet: str(o.snippet),
      keywords: strings(o.keywords),
    };
  });
}

/** The number of secondary questions a first version asks: more for a longer program. */
const QUESTIONS: Record<Level, number> = { undergraduate: 2, masters: 3, doctoral: 4 };

/** A phrase of the research area inside a sentence: a wholly title-cased area is a label. */
function areaInSentence(phrase: string, profile: Profile): string {
  return inSentence(phrase, profile.casing, { label: isTitleCase(profile.research_area) });
}

/** The research area as a question's subject; a question the researcher wrote is used as it stands. */
function mainQuestion(profile: Profile, evidence: string): string {
  const own = [profile.research_area, ...profile.additional_context.split(/(?<=[.!?])\s+/)].find((s) =>
    /\?\s*$/.test(s.trim()),
  );
  if (own && own.trim().length >= 10) return capitalise(own.trim());
  // A title with a subtitle ("<subject>: <kind of study>") is asked about its subject: a colon or
  // a dash inside a question reads as two sentences run together. A short title ("Case study:
  // …") is a label, and the whole area is the subject.
  const whole = profile.research_area.replace(/[.!?]+$/, '');
  const title = titleOf(whole).trim();
  const subject = subtitleOf(whole) && title.split(/\s+/).length >= 4 ? title : whole;
  const area = areaInSentence(subject, profile);
  const candidates = [
    `What can ${evidence} show about ${area}?`,
    `What is known, and what can be found out, about ${area}?`,
  ];
  return candidates.find((q) => !echoedPhrase(q)) ?? candidates[candidates.length - 1];
}

async function problemFormulation(sections: ReceivedSections<'proposal.problem_formulation'>) {
  const hits = readHits(sections.search_results);
  const profile = readProfile(
    sections.profile,
    hits.flatMap((h) => [h.title, h.snippet, ...h.keywords]),
  );
  const previous = sections.previous_definition ? obj(sections.previous_definition) : undefined;
  const feedbackText = strings(sections.refinement_feedback).join(' ');

  // Literature: only studies about the topic, by meaning; at most five, the closest first.
  await prefetchTopicFit(hits, profile);
  const fits = [];
  for (const h of hits) fits.push({ h, fit: await topicFit(h, profile) });
  const cited = fits
    .filter((f) => f.fit.onTopic)
    .sort((a, b) => b.fit.score - a.fit.score)
    .slice(0, 5);

  const design = await designFor(profile);
  const method = methodOf(design);

  // Scope: the first version asks more questions the longer the program; "narrow the scope" drops one.
  const previousCount = previous ? strings(previous.secondary_questions).length : 0;
  const narrowed = previous !== undefined && NARROW.test(feedbackText);
  const first = design.reduced ? 2 : QUESTIONS[level(profile.academic_program)];
  const n = previous ? Math.max(1, previousCount - (narrowed ? 1 : 0)) : first;
  const focus = /focus (?:more )?on ([^.;!?]+)/i.exec(feedbackText)?.[1]?.trim().replace(/,$/, '');
  const pool = questionPool(method.kinds);
  const secondary = [
    ...(focus ? [`What does the study find about ${inSentence(focus, profile.casing)}?`] : []),
    ...pool,
  ].slice(0, n);

  const area = profile.research_area.replace(/[.!?]+$/, '');
  // Key variables: the phrases of the area (of a question, without its question word, and only
  // the short ones: a long phrase of a question carries its verb).
  const asked = /\?\s*$/.test(profile.research_area);
  const keyVariables = [
    ...(focus ? [inSentence(focus, profile.casing)] : []),
    ...phrases(area)
      .map((p) =>
        p.replace(
          /^(?:the|a|an|its|their|our|my|his|her|does|do|did|is|are|was|were|can|could|will|would|should|how|what|which|why|whether)\s+/i,
          '',
        ),
      )
      .filter((p) => /\p{L}{3}/u.test(p) && (!asked || p.split(/\s+/).length <= 3))
      .map((p) => areaInSentence(p, profile)),
  ].slice(0, 5);

  const statement = [
    /\?\s*$/.test(profile.research_area)
      ? `This proposal asks: ${capitalise(profile.research_area.trim())}`
      : `This proposal is about ${areaInSentence(area, profile)}.`,
    profile.additional_context ? `In the researcher’s words: “${profile.additional_context.replace(/\s+/g, ' ')}”` : '',
    literatureSentence(cited.map((c) => c.h)),
    designSentence(design, profile),
    profile.constraints.length
      ? `The plan respects the ${profile.constraints.length === 1 ? 'constraint' : 'constraints'} the researcher named: ${joinList(profile.constraints.map((c) => `“${c.trim()}”`))}.`
      : '',
    // What a revision changed is the refinement history's to tell, not the problem's: a reader
    // of the final proposal meets "this version revises the questions" with nothing before it.
    focus ? `The study gives particular attention to ${inSentence(focus, profile.casing)}.` : '',
  ]
    .filter(Boolean)
    .join(' ');

  return {
    working_title: capitalise(profile.research_area.trim()).slice(0, 200),
    problem_statement: statement,
    main_research_question: mainQuestion(profile, method.evidence),
    secondary_questions: secondary,
    key_variables: keyVariables.length ? keyVariables : [areaInSentence(area, profile)],
    literature: cited.map(({ h, fit }) => {
      // The study's own words, quoted as such: its casing and claims are its authors', not the proposal's.
      const opening = firstSentence(h.snippet) ?? sentence(h.title);
      // A keyword is a label written to be read in a sentence; a phrase of the title keeps the
      // title's capitals ("… its work on Language Models Trained …") and is not named.
      const bears =
        fit.concept && h.keywords.includes(fit.concept.keyword)
          ? ` Relevant through its work on ${fit.concept.keyword}.`
          : '';
      return { result_id: h.id, relevance_note: `“${opening}”${bears}` };
    }),
  };
}

function questionPool(kinds: Kind[]): string[] {
  const lists = (kinds.length ? kinds : (['review'] as Kind[])).map((k) => METHODS[k].questions);
  const out: string[] = [];
  for (let i = 0; out.length < 6 && i < 6; i++) for (const l of lists) if (l[i] && !out.includes(l[i])) out.push(l[i]);
  return out;
}

function literatureSentence(cited: PromptedSearchResult[]): string {
  const ref = (h: PromptedSearchResult) => `“${h.title}” (${h.source}${h.year ? `, ${h.year}` : ''})`;
  if (cited.length === 2)
    return `Two studies in the searched collection bear on it directly: ${ref(cited[0])} and ${ref(cited[1])}.`;
  if (cited.length > 2)
    return `${capitalise(count(cited.length, 'study', 'studies'))} in the searched collection bear on it directly, among them ${ref(cited[0])} and ${ref(cited[1])}.`;
  if (cited.length === 1)
    return (
      `One study in the searched collection bears on it directly, ${ref(cited[0])}; the literature found is ` +
      'thin, so the first phase includes a systematic search of specialised databases.'
    );
  return (
    'No matching literature was found in the searched collection. The first phase therefore includes ' +
    'a systematic search of specialised databases, and nothing unrelated is cited in its place.'
  );
}

function designSentence(design: Design, profile: Profile, quote = false): string {
  const m = methodOf(design);
  const study = design.study;
  if (design.reduced) {
    const intended = study.kinds.length ? study.kinds : study.open;
    const through = intended.length
      ? `, through ${joinList(
          intended.map((k) => METHODS[k].evidence),
          study.kinds.length ? 'and' : 'or',
        )},`
      : '';
    const time = `${profile.weekly_hours} hours a week for ${profile.timeline}`;
    const cannot = `The study as described${through} cannot be completed in ${time}`;
    if (design.reduced.to === 'pilot')
      return `The study as described${through} needs ${collectionFor(design.spanQuote ?? `${design.neededWeeks} weeks`)}, longer than the ${profile.timeline} available; the feasible scope is a pilot of the same design within that time, at ${profile.weekly_hours} hours a week, and a protocol for the full span.`;
    if (design.reduced.to === 'existing-data') {
      const scope = design.reduced.fits
        ? 'an analysis of the data that already exist'
        : 'a first analysis of part of the data that already exist';
      return quote
        ? `${cannot}; the feasible scope is ${scope}: “${design.reduced.quote}”`
        : `${cannot}; the feasible scope is ${scope}, which the researcher describes above.`;
    }
    return design.reduced.fits
      ? `${cannot}; the feasible scope is a review of published studies and a protocol for the empirical study.`
      : `${cannot}, and neither can a full literature review; the feasible scope is a study protocol with a first search of published studies.`;
  }
  if (design.open.length === 2) {
    const [a, b] = design.open.map((k) => METHODS[k]);
    if (study.reason === 'below-floor')
      return (
        `The profile does not yet make clear whether the study rests on ${a.data} or on ${b.data}, so ` +
        'the choice is left open: the first phase settles it.'
      );
    return (
      `The profile fits ${a.data} and ${b.data} about equally well, so which of the two the study ` +
      'rests on is left open: the first phase settles it, once access to both is checked.'
    );
  }
  if (!m.kinds.length) return 'The profile does not yet say what data the study will use; the first phase settles it.';
  if (study.reason === 'below-floor')
    return `The profile says little about the data the study will use; the plan assumes ${joinList(m.kinds.map((k) => METHODS[k].data))}, to be confirmed in the first phase.`;
  return `The study works with ${joinList(m.kinds.map((k) => METHODS[k].data))}.`;
}

// ------------------------------------------------------------------------------------------
// Objectives
// ------------------------------------------------------------------------------------------

async function objectivesRule(sections: ReceivedSections<'proposal.objectives'>) {
  const profile = readProfile(sections.profile);
  const problem = obj(sections.problem);
  const secondary = strings(problem.secondary_questions);
  const design = await designFor(profile);
  const method = methodOf(design);
  const plan = phasePlan(profile, PHASE_SHARES);
  // Answers fall due across the collection and analysis phases, in order.
  const start = plan.parts[0];
  const end = plan.parts[0] + plan.parts[1] + plan.parts[2];
  const unitWord = plan.unit === 'months' ? 'month' : plan.unit === 'weeks' ? 'week' : 'day';
  const n = Math.max(1, secondary.length);
  const due = (i: number) => Math.max(1, Math.round(start + ((end - start) * (i + 1)) / n));
  const specific = secondary.map((q, i) => `By ${unitWord} ${due(i)}, answer: ${q}`);
  const have = [];
  for (const s of method.kinds.flatMap((k) => METHODS[k].skills))
    if (!(await holdsSkill(s, profile.existing_skills))) have.push(s);
  return {
    general_objective: `To answer the main research question through ${method.evidence}, within ${profile.timeline}.`,
    specific_objectives: specific.length ? specific : [`By ${unitWord} ${end}, answer the main research question.`],
    feasibility_notes: {
      timeline_assessment: timelineAssessment(design, profile, n),
      skills_required: [...new Set([...profile.missing_skills, ...have.map(capitalise)])].slice(0, 6),
      risk_factors: [
        ...profile.constraints.map((c) => `The plan has to respect “${c}”.`),
        ...profile.missing_skills.map(
          (s) => `Learning ${labelInSentence(s, profile.casing)} takes time early in the project.`,
        ),
        ...(design.open.length ? ['The choice of method is still open and settles in the first phase.'] : []),
      ].slice(0, 6),
    },
    alignment_check: {
      coverage_analysis:
        `Each of the ${count(n, 'secondary question')} has one specific objective, due in the order ` +
        'the phases run; the general objective answers the main question.',
      coherence_score: 'High',
    },
  };
}

function timelineAssessment(design: Design, profile: Profile, objectives: number): string {
  const time = `${profile.timeline} at ${profile.weekly_hours} hours a week`;
  const available = `about ${design.availableHours} hours`;
  if (!design.reduced)
    return `${capitalise(count(objectives, 'specific objective'))} in ${time} (${available}); the plan spans the whole period.`;
  const over = design.spanQuote
    ? design.spanQuote.startsWith('from ')
      ? ` (the data are gathered “${design.spanQuote}”)`
      : ` (the data take “${design.spanQuote}” to gather)`
    : '';
  const needed = `at least ${design.neededHours} hours over ${design.neededWeeks} weeks${over}`;
  const instead =
    design.reduced.to === 'pilot'
      ? 'what fits is a pilot of the same design and a protocol for the full span'
      : design.reduced.to === 'existing-data'
        ? design.reduced.fits
          ? 'what fits is an analysis of the data that already exist'
          : 'what fits is a first analysis of part of the data that already exist'
        : design.reduced.fits
          ? 'what fits is a review of published studies and a protocol for the study'
          : 'not even a review of published studies fits; the plan prepares a protocol only';
  return `The study as described needs ${needed}, and ${time} gives ${available}: it cannot be completed in this time, so ${instead}.`;
}

// ------------------------------------------------------------------------------------------
// Methodology
// ------------------------------------------------------------------------------------------

async function methodologyRule(sections: ReceivedSections<'proposal.methodology'>) {
  const profile = readProfile(sections.profile);
  const design = await designFor(profile);
  const method = methodOf(design);
  const plan = phasePlan(profile, PHASE_SHARES);
  const skills = method.kinds.flatMap((k) => METHODS[k].skills);
  const required: string[] = [];
  for (const s of [...new Set([...skills, ...profile.missing_skills])])
    if (!(await holdsSkill(s, profile.existing_skills))) required.push(s);
  const existing = profile.existing_skills.map((s) => labelInSentence(s, profile.casing));
  const justification = [
    design.reduced || design.open.length === 2 || !method.kinds.length
      ? designSentence(design, profile, true)
      : `The study works with ${joinList(method.kinds.map((k) => METHODS[k].data))}, and this method is made for data of that kind.`,
    existing.length ? `It builds on the researcher’s existing skills: ${joinList(existing)}.` : '',
    `The phases below fill the ${profile.timeline} at ${profile.weekly_hours} hours a week.`,
  ]
    .filter(Boolean)
    .join(' ');

  // Alternatives: the kinds the profile fits next; with a reduced scope, the study as described.
  const intended = design.study.kinds.length ? design.study.kinds : design.study.open;
  const others = design.reduced
    ? intended.map((key) => ({ key, score: 0 }))
    : design.study.ranked
        .filter((r) => !method.kinds.includes(r.key) && r.score >= ALTERNATIVE * (design.study.ranked[0]?.score ?? 0))
        .slice(0, 2);
  const alternatives = [];
  for (const r of others) {
    const m = METHODS[r.key];
    const lacking = [];
    for (const s of m.skills) if (!(await holdsSkill(s, profile.existing_skills))) lacking.push(s);
    alternatives.push({
      name: m.name,
      pros: [m.pro],
      cons: [
        design.reduced
          ? 'Cannot be completed in the time available.'
          : r.score < DESIGN.companion * (design.study.ranked[0]?.score ?? 0)
            ? 'Fits the data the profile describes less directly.'
            : 'About as close a fit to the profile; the first phase decides between them.',
        ...(lacking.length ? [`Needs skills the profile does not list: ${joinList(lacking)}.`] : []),
      ],
    });
  }

  const kinds: Kind[] = method.kinds.length ? method.kinds : ['review'];
  const names = [
    'Preparation',
    kinds.includes('review')
      ? 'Searching and screening'
      : kinds.includes('dataset') && kinds.length === 1
        ? 'Preparing the data'
        : 'Data collection',
    'Analysis',
    'Writing up',
  ];
  const what = [
    kinds.some((k) => METHODS[k].people)
      ? 'Ethics approval, instruments and access to participants; the literature search.'
      : 'Access to the sources, the tools and the protocol; the literature search.',
    kinds.map((k) => METHODS[k].collect).join(' '),
    'Analyse the data against each secondary question.',
    'Write up, check against the objectives and revise.',
  ];
  return {
    recommended_methodology: method.name,
    methodology_type: method.type,
    justification,
    required_skills: required.map(capitalise),
    timeline_fit: {
      // The recommended method's own fit: a pilot or an analysis of existing data made to fit does.
      is_feasible: !design.reduced || (design.reduced.to !== 'review' && design.reduced.fits),
      estimated_duration: span(plan.total, plan.unit),
      key_phases: names.map((name, i) => ({ name, duration: span(plan.parts[i], plan.unit), description: what[i] })),
    },
    alternative_methodologies: alternatives,
  };
}

// ------------------------------------------------------------------------------------------
// Data collection
// ------------------------------------------------------------------------------------------

async function dataCollectionRule(sections: ReceivedSections<'proposal.data_collection'>) {
  const profile = readProfile(sections.profile);
  const design = await designFor(profile);
  const method = methodOf(design);
  const kinds: Kind[] = method.kinds.length ? method.kinds : ['review'];
  const noBudget = await hasNoBudget(profile.constraints);
  const tools = TOOLS.filter((t) => t.for.some((k) => kinds.includes(k)) && !(noBudget && t.paid)).map(
    ({ name, type, accessibility, learning_curve }) => ({ name, type, accessibility, learning_curve }),
  );
  const plan = phasePlan(profile, PHASE_SHARES);
  const people = kinds.some((k) => METHODS[k].people);
  const imaging = kinds.includes('field') && (await recordsImages(design));
  const techniques = kinds.flatMap((k) =>
    k === 'field' && imaging
      ? [
          'Standardised photographs or video recorded at fixed points on each site',
          'Annotation and measurement of the recorded images',
        ]
      : METHODS[k].techniques,
  );
  return {
    collection_techniques: techniques,
    recommended_tools: tools,
    data_sources: [...kinds.flatMap((k) => METHODS[k].sources), 'Published studies found in the literature search'],
    estimated_sample_size: kinds.map((k) => METHODS[k].sample).join('; '),
    timeline_breakdown: {
      preparation: {
        duration: span(plan.parts[0], plan.unit),
        activities: [
          people ? 'Obtain ethics approval' : 'Arrange access to the sources and the equipment',
          'Finalise the protocol and the instruments',
        ],
      },
      collection: {
        duration: span(plan.parts[1], plan.unit),
        activities: [...kinds.map((k) => METHODS[k].collect.replace(/\.$/, '')), 'Record where every item comes from'],
      },
      quality_check: {
        duration: span(plan.parts[2] + plan.parts[3], plan.unit),
        activities: ['Check completeness and consistency', 'Analyse the data and write up the findings'],
      },
      total_duration: span(plan.total, plan.unit),
    },
    resource_requirements: [
      'A personal computer with internet access',
      ...kinds.flatMap((k) => METHODS[k].resources),
      ...(people ? ['Ethics approval for research with human participants'] : []),
      `About ${design.availableHours} researcher hours (${profile.weekly_hours} a week)`,
    ],
  };
}

/** Whether the constraints rule out paid tools, by meaning. */
async function hasNoBudget(constraints: string[]): Promise<boolean> {
  const meaning = await meaningSpace();
  if (!meaning) return false;
  for (const c of constraints) {
    const [money] = await meaning.similarities(c, ['no money for software or equipment']);
    if (money >= 0.45) return true;
  }
  return false;
}

/** Whether the site work records images (photographs, video) rather than instrument readings. */
async function recordsImages(design: Design): Promise<boolean> {
  const meaning = await meaningSpace();
  const text = design.study.evidence.field;
  if (!meaning || !text) return false;
  const [images, readings] = await meaning.similarities(text, [
    'photographs, video or images taken at the sites',
    'readings from sensors, gauges or loggers',
  ]);
  return images > readings;
}

// ------------------------------------------------------------------------------------------
// Quality control: what the proposal claims, checked against the profile by meaning
// ------------------------------------------------------------------------------------------

/** Coherence at most, with an off-topic citation or a method that does not fit the data: below the pass mark (0.7). */
const OFF_TOPIC_COHERENCE = 0.6;
const WRONG_METHOD_COHERENCE = 0.5;

interface Issue {
  severity: 'critical' | 'major' | 'minor';
  component: string;
  description: string;
  impact: string;
}

async function qualityRule(sections: ReceivedSections<'proposal.quality_control'>) {
  const profile = readProfile(sections.profile);
  const problem = obj(sections.problem);
  const objectives = obj(sections.objectives);
  const methodology = obj(sections.methodology);
  const plan = obj(obj(sections.data_collection).timeline_breakdown);
  const issues: Issue[] = [];
  const recommendations: string[] = [];
  const targets = new Set<string>();
  let coherence = 0.9;

  // The cited literature is about the topic.
  const literature = (Array.isArray(problem.literature) ? problem.literature : []).map(obj);
  const count_ = literature.length || num(problem.literature_count, 0);
  for (const entry of literature) {
    const title = str(entry.title);
    const fit = await topicFit({ title, snippet: str(entry.relevance_note) }, profile);
    // Quality control sees a title and a note, not the whole record: it flags what is clearly off topic.
    if (fit.score < LITERATURE.clearlyOff) {
      issues.push({
        severity: 'major',
        component: 'problem_definition',
        description: `“${title}” is not on the topic of the proposal.`,
        impact: 'An off-topic citation misrepresents what is known.',
      });
      // An off-topic citation keeps the draft below the pass mark, however well the rest reads.
      coherence = Math.min(coherence - 0.1, OFF_TOPIC_COHERENCE);
      targets.add('problem_definition');
    }
  }
  if (issues.length)
    recommendations.push('Cite only studies on the topic; say plainly when the searched collection has none.');
  if (count_ === 0) {
    issues.push({
      severity: 'major',
      component: 'problem_definition',
      description: 'No matching literature was found in the searched collection.',
      impact: 'The research gap is not yet evidenced.',
    });
    recommendations.push('Search specialised databases for studies on the topic before the questions are fixed.');
  } else if (count_ === 1) {
    issues.push({
      severity: 'major',
      component: 'problem_definition',
      description: 'Only one study in the searched collection supports the problem definition.',
      impact: 'The research gap is weakly evidenced.',
    });
    recommendations.push('Search specialised databases for more studies on the topic.');
  }

  // The method fits the kind of data the profile describes.
  const design = await studyDesign(profile);
  const reads = await methodReading(str(methodology.recommended_methodology));
  const reduced = methodology.is_feasible === false || /cannot be completed/i.test(str(objectives.timeline_assessment));
  // A reduced scope (stated as such) is judged by the feasibility check, not here.
  if (!reduced && !methodFits(reads, design)) {
    issues.push({
      severity: 'major',
      component: 'methodology',
      description: `The method (${str(methodology.recommended_methodology)}) does not fit the kind of data the profile describes.`,
      impact: 'The data collected would not answer the questions.',
    });
    recommendations.push('Choose a method made for the data the study works with, as the profile describes it.');
    targets.add('methodology').add('data_collection');
    coherence = Math.min(coherence - 0.1, WRONG_METHOD_COHERENCE);
  }

  // Every secondary question has an objective (by meaning, not shared words).
  const secondary = strings(problem.secondary_questions);
  const specific = strings(objectives.specific_objectives);
  const meaning = await meaningSpace();
  let uncovered = 0;
  if (meaning)
    for (const q of secondary) {
      const s = specific.length ? Math.max(...(await meaning.similarities(q, specific))) : 0;
      if (s < 0.6) uncovered++;
    }
  if (uncovered) {
    issues.push({
      severity: 'major',
      component: 'research_objectives',
      description: `${capitalise(count(uncovered, 'secondary question'))} ${uncovered === 1 ? 'has' : 'have'} no matching objective.`,
      impact: 'Part of the problem would go unanswered.',
    });
    recommendations.push('Give each secondary question one specific objective.');
    targets.add('research_objectives');
    coherence -= 0.1 * uncovered;
  }

  // The plan's length against the timeline, and what the methodology says about feasibility.
  const planWeeks = weeksIn(str(plan.total_duration));
  const ratio = planWeeks ? planWeeks / Math.max(1, profile.timeline_weeks) : null;
  let feasibility = ratio === null ? 0.6 : ratio > 1 ? Math.max(0, 0.9 / ratio) : ratio < 0.8 ? 0.6 : 0.9;
  if (ratio !== null && ratio < 0.8) {
    issues.push({
      severity: 'major',
      component: 'data_collection',
      description: `The plan covers about ${Math.round(planWeeks!)} weeks of the ${Math.round(profile.timeline_weeks)} available.`,
      impact: 'The time the researcher has is not planned.',
    });
    recommendations.push('Scale the phases to the whole timeline.');
    targets.add('data_collection');
  }
  if (reduced) {
    feasibility = Math.min(feasibility, methodology.is_feasible === false ? 0.4 : 0.75);
    issues.push({
      severity: methodology.is_feasible === false ? 'critical' : 'major',
      component: 'methodology',
      description: 'The study as described does not fit the time available; the plan covers a reduced scope.',
      impact: 'The original questions are only partly answered.',
    });
    recommendations.push('Agree the reduced scope with the supervisor, or extend the timeline.');
  }
  for (const skill of profile.missing_skills.slice(0, 2))
    issues.push({
      severity: 'minor',
      component: 'methodology',
      description: `Learning ${labelInSentence(skill, profile.casing)} is part of the plan.`,
      impact: 'Adds learning time early in the project.',
    });
  if (!recommendations.length)
    recommendations.push('Proceed as planned; review the time budget at each phase boundary.');
  const round2 = (x: number) => Math.round(Math.min(1, Math.max(0, x)) * 100) / 100;
  return {
    coherence_score: round2(coherence),
    feasibility_score: round2(feasibility),
    issues_identified: issues.slice(0, 10),
    recommendations: [...new Set(recommendations)].slice(0, 8),
    refinement_targets: [...targets].slice(0, 4),
  };
}

function weeksIn(text: string): number | null {
  let total = 0;
  let found = false;
  for (const m of text.matchAll(/(\d+(?:\.\d+)?)\s*(days?|weeks?|months?|years?)/gi)) {
    const v = Number(m[1]);
    const u = m[2].toLowerCase();
    total += u.startsWith('d') ? v / 7 : u.startsWith('w') ? v : u.startsWith('m') ? (v * 52) / 12 : v * 52;
    found = true;
  }
  return found ? total : null;
}

/**
 * A question in conversation: the last answer acknowledged in its own words, then the field's
 * question and hint. (The stand-in only answers this when a test makes it the conversational
 * model; offline interviews use the form.)
 */
function interviewQuestionRule(sections: ReceivedSections<'proposal.interview_question'>) {
  const next = obj(sections.next_field);
  const turns = Array.isArray(sections.conversation) ? sections.conversation.map(obj) : [];
  const last = turns.at(-1);
  const lastAnswer = typeof last?.answer === 'string' ? last.answer.trim().slice(0, 80) : '';
  const ack = lastAnswer && !/^(skip|none|-)$/i.test(lastAnswer) ? `Thanks — "${lastAnswer}" noted. ` : '';
  const question = typeof next.question === 'string' ? next.question : 'What is your answer?';
  const hint = typeof next.hint === 'string' && next.hint ? ` (${next.hint})` : '';
  return { question: `${ack}${question}${hint}`.slice(0, 400) };
}

export const proposalRules: StandinRule[] = [
  taskRule({
    task: ModelTask.proposalInterviewQuestion,
    description: 'The next interview question in conversation: acknowledges the last answer, asks the field.',
    answer: ({ sections }) => interviewQuestionRule(sections),
  }),
  taskRule({
    task: ModelTask.proposalProblemFormulation,
    description: 'Research problem from the profile; cites search results that are on the topic by meaning.',
    answer: ({ sections }) => problemFormulation(sections),
  }),
  taskRule({
    task: ModelTask.proposalObjectives,
    description: 'A general objective and one specific objective per secondary question, due across the plan.',
    answer: ({ sections }) => objectivesRule(sections),
  }),
  taskRule({
    task: ModelTask.proposalMethodology,
    description: 'Methodology for the kind of data the profile describes (by meaning), phased over the timeline.',
    answer: ({ sections }) => methodologyRule(sections),
  }),
  taskRule({
    task: ModelTask.proposalDataCollection,
    description: 'Data collection plan for the chosen method, phased over the whole timeline.',
    answer: ({ sections }) => dataCollectionRule(sections),
  }),
  taskRule({
    task: ModelTask.proposalQualityControl,
    description: 'Checks topic fit of the literature and of the method by meaning, coverage, and plan length.',
    answer: ({ sections }) => qualityRule(sections),
  }),
];
