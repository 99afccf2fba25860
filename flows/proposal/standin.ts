/**
 * Stand-in rules for `writeResearchProposal`: each stage's answer is computed from the prompt's
 * sections (the profile, the search results, the earlier stages), never looked up.
 *
 * The arithmetic is a small workload model, which is what makes quality control react to content:
 *   hours = 30 (preparation) + effort per objective × objectives + 20 (quality check),
 *   effort per objective by program level (undergraduate 35 h, master's 45 h, PhD 120 h),
 *   each phase lasts ceil(hours / weekly_hours) weeks.
 * A first formulation asks four secondary questions (the seed's upper bound); feedback asking to
 * narrow the scope drops the last one. So a tight profile (10 h/week for 3 months) fails quality
 * control twice and passes on the third version, and an impossible one (4 h/week for 1 month)
 * never passes, whatever the refinement.
 */
import { PROPOSAL_STOP_WORDS, stemPlural } from '../../domain/text';
import type { ReceivedSections } from '../../contracts/model-tasks';
import { ModelTask, type PromptedSearchResult } from './model-tasks';
import { taskRule, type StandinRule } from '../lib/standin';

// ------------------------------------------------------------------------------------------
// Text helpers
// ------------------------------------------------------------------------------------------

const STOP = PROPOSAL_STOP_WORDS;

const stem = stemPlural;

function terms(text: string): Set<string> {
  const out = new Set<string>();
  for (const raw of text.toLowerCase().match(/[a-z0-9][a-z0-9-]*/g) ?? []) {
    if (raw.length < 3 || STOP.has(raw)) continue;
    out.add(stem(raw));
    // "multi-agent" also counts as "agent": hyphenated compounds share their parts.
    if (raw.includes('-'))
      for (const part of raw.split('-')) if (part.length >= 3 && !STOP.has(part)) out.add(stem(part));
  }
  return out;
}

/** Coarser keys for topical matching: the first six letters ("cooperating" ~ "cooperation", "reliable" ~ "reliability"). */
function roots(text: string): Set<string> {
  return new Set([...terms(text)].map((t) => t.slice(0, 6)));
}

/** Keywords that name a kind of publication or a tool, not something to study. */
const GENERIC_KEYWORDS = new Set([
  'survey',
  'benchmark',
  'software library',
  'meta-analysis',
  'reporting guideline',
  'systematic review',
  'large language models',
  'deep learning',
  'machine learning',
]);

/** Roots of words any research text uses: they say nothing about the topic. */
const GENERIC_ROOTS = roots(
  'data model models study studies research science scientific analysis method ' +
    'methods result results system systems approach based using new large evidence ' +
    'effect effects review paper work first',
);

function shared(a: Set<string>, b: Set<string>): string[] {
  return [...a].filter((t) => b.has(t));
}

const str = (v: unknown, fallback = ''): string => (typeof v === 'string' ? v : fallback);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
const num = (v: unknown, fallback: number): number => (typeof v === 'number' && Number.isFinite(v) ? v : fallback);
const obj = (v: unknown): Record<string, unknown> =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const weeks = (n: number) => `${n} week${n === 1 ? '' : 's'}`;
/** Lower-cases the first letter for use inside a sentence, unless the phrase has capitals of its own ("Multi-Agent Systems", "LLM agents"). */
const inSentence = (s: string) => (/[A-Z]/.test(s.slice(1)) ? s : s.charAt(0).toLowerCase() + s.slice(1));

interface Profile {
  academic_program: string;
  field_of_study: string;
  research_area: string;
  weekly_hours: number;
  timeline: string;
  timeline_weeks: number;
  existing_skills: string[];
  missing_skills: string[];
  constraints: string[];
  additional_context: string;
}

function readProfile(v: unknown): Profile {
  const p = obj(v);
  const t = obj(p.total_timeline);
  return {
    academic_program: str(p.academic_program, 'Graduate'),
    field_of_study: str(p.field_of_study, 'the field'),
    research_area: str(p.research_area, 'the research area'),
    weekly_hours: Math.max(1, num(p.weekly_hours, 10)),
    timeline: str(p.timeline, `${num(t.value, 6)} ${str(t.unit, 'months')}`),
    timeline_weeks: num(p.timeline_weeks, 26),
    existing_skills: strings(p.existing_skills),
    missing_skills: strings(p.missing_skills),
    constraints: strings(p.constraints),
    additional_context: str(p.additional_context),
  };
}

// ------------------------------------------------------------------------------------------
// The workload model shared by methodology, data collection and quality control
// ------------------------------------------------------------------------------------------

function effortPerObjective(program: string): number {
  const p = program.toLowerCase();
  if (/ph\.?d|doctor/.test(p)) return 120;
  if (/bachelor|undergrad|b\.?sc|ba\b/.test(p)) return 35;
  return 45;
}

export function workload(profile: Profile, objectives: number) {
  const hours = {
    preparation: 30,
    collection: effortPerObjective(profile.academic_program) * Math.max(1, objectives),
    qualityCheck: 20,
  };
  const weeks = {
    preparation: Math.ceil(hours.preparation / profile.weekly_hours),
    collection: Math.ceil(hours.collection / profile.weekly_hours),
    qualityCheck: Math.ceil(hours.qualityCheck / profile.weekly_hours),
  };
  const totalWeeks = weeks.preparation + weeks.collection + weeks.qualityCheck;
  return { hours, weeks, totalWeeks, totalHours: hours.preparation + hours.collection + hours.qualityCheck };
}

type MethodKind =
  | 'simulation'
  | 'benchmark'
  | 'forecasting'
  | 'survey'
  | 'interviews'
  | 'mixed'
  | 'review'
  | 'field'
  | 'secondary'
  | 'comparison'
  | 'oral-history';

interface MethodChoice {
  name: string;
  type: 'quantitative' | 'qualitative' | 'mixed-methods';
  kind: MethodKind;
  skills: string[];
}

const METHODS: Record<MethodKind, MethodChoice> = {
  simulation: {
    kind: 'simulation',
    name: 'Controlled simulation experiments on agent benchmarks',
    type: 'quantitative',
    skills: ['Python', 'Experimental design', 'Statistics'],
  },
  benchmark: {
    kind: 'benchmark',
    name: 'Controlled experiments on public benchmark tasks',
    type: 'quantitative',
    skills: ['Python', 'Experimental design', 'Statistics'],
  },
  forecasting: {
    kind: 'forecasting',
    name: 'Retrospective benchmark experiments on historical observations',
    type: 'quantitative',
    skills: ['Python', 'Time-series analysis', 'Deep learning'],
  },
  survey: {
    kind: 'survey',
    name: 'Cross-sectional online survey with validated scales',
    type: 'quantitative',
    skills: ['Survey design', 'Statistics'],
  },
  interviews: {
    kind: 'interviews',
    name: 'Semi-structured interviews with thematic analysis',
    type: 'qualitative',
    skills: ['Interviewing', 'Qualitative coding'],
  },
  mixed: {
    kind: 'mixed',
    name: 'Explanatory sequential mixed-methods design (survey, then interviews)',
    type: 'mixed-methods',
    skills: ['Survey design', 'Statistics', 'Interviewing'],
  },
  review: {
    kind: 'review',
    name: 'Systematic literature review with a small empirical study',
    type: 'mixed-methods',
    skills: ['Systematic searching', 'Critical appraisal'],
  },
  field: {
    kind: 'field',
    name: 'In-situ field measurements at the study sites',
    type: 'quantitative',
    skills: ['Field protocols', 'Statistics'],
  },
  secondary: {
    kind: 'secondary',
    name: 'Secondary analysis of public datasets with a reproducible analysis pipeline',
    type: 'quantitative',
    skills: ['Data analysis', 'Statistics'],
  },
  comparison: {
    kind: 'comparison',
    name:
      'Quasi-experimental comparison of an intervention group and a comparison group, ' +
      'with a participant questionnaire',
    type: 'mixed-methods',
    skills: ['Research design', 'Statistics', 'Questionnaire design'],
  },
  'oral-history': {
    kind: 'oral-history',
    name: 'Oral history interviews with archival document analysis',
    type: 'qualitative',
    skills: ['Interviewing', 'Archival research', 'Qualitative coding'],
  },
};

/**
 * What kind of study the profile describes, read from its field, topic, context and skills: the
 * data it works with (people's answers, recordings made on site, public datasets, archives,
 * model runs) decides the method family, not the field's name alone. Each family has a few
 * general cues; the family with most cues wins, and some pairs combine (interviews and
 * archives make an oral history; field work with specimens adds laboratory tests).
 */
const METHOD_CUES: Record<string, RegExp[]> = {
  agents: [/multi-agent|\bagents?\b/, /reinforcement|game theory/, /simulat/],
  computing: [
    /language models?|\bllms?\b|neural|algorithm|benchmark|artificial intelligence|\bai\b/,
    /computer science|software|machine learning|deep learning/,
    /retriev|hallucinat|classifier|prompt/,
  ],
  forecasting: [/forecast|nowcast/, /weather|climate|precipitation/, /time[- ]series/],
  secondary: [
    /bioinformatic|genom|rna-?seq|single-cell|gene expression|proteom/,
    /public (?:datasets?|data)|published datasets|re-?analy|registry|administrative data|census/,
    /econometric/,
  ],
  field: [
    /\bfield\b(?! of)|in-situ|on site|in-service|study sites?/,
    /marine|reef|ecolog|forest|soil|crops?\b|plots?\b|agronom|farm|geolog|ocean|river|coast|wildlife|habitat/,
    /underwater|imaging|photogra|video|camera|drone|transects?/,
    /sensors?|strain|gauges?|monitor|moisture|measur/,
    /bridges?|structur|building|pipeline|railway/,
  ],
  lab: [/laborator|\blab\b|specimens?|fatigue tests?|assays?|material testing|test rig|chemical/],
  survey: [
    /survey|questionnaire/,
    /psycholog|well-being|wellbeing|attitude|opinion|self-report/,
    /social media|behaviou?r|perception/,
  ],
  comparison: [
    /educat|pedagog|teaching|classroom/,
    /students?|course|lecture|curricul/,
    /intervention|peer instruction|comparing|compare[sd]?|control group/,
  ],
  interviews: [
    /interview|qualitative|thematic|ethnograph/,
    /oral history|memories|life[- ]stor|lived experience|narrative|testimon/,
  ],
  archival: [/histor/, /archiv|minutes|newspapers?|manuscripts?|letters/],
};

function methodScores(text: string): Record<string, number> {
  const t = text.toLowerCase();
  return Object.fromEntries(Object.entries(METHOD_CUES).map(([k, res]) => [k, res.filter((re) => re.test(t)).length]));
}

function chooseMethod(text: string): MethodChoice {
  const s = methodScores(text);
  const imaging = /underwater|imaging|photogra|video|camera|drone/i.test(text);
  const candidates: Array<[number, MethodChoice]> = [
    [s.agents >= 1 ? s.agents + s.computing : 0, METHODS.simulation],
    [s.computing, METHODS.benchmark],
    [s.forecasting, METHODS.forecasting],
    [s.secondary, METHODS.secondary],
    [
      s.field,
      s.lab > 0
        ? {
            ...METHODS.field,
            name: 'In-situ field measurements combined with laboratory tests',
            skills: [...METHODS.field.skills, 'Laboratory testing'],
          }
        : imaging
          ? {
              ...METHODS.field,
              name: 'Field observation with image-based measurement at the study sites',
              skills: ['Field protocols', 'Image annotation', 'Statistics'],
            }
          : METHODS.field,
    ],
    [
      s.lab,
      {
        ...METHODS.field,
        name: 'Controlled laboratory tests on specimens',
        skills: ['Laboratory testing', 'Statistics'],
      },
    ],
    [s.interviews && s.archival ? s.interviews + s.archival : 0, METHODS['oral-history']],
    [s.comparison >= 2 ? s.comparison : 0, METHODS.comparison],
    [s.survey && s.interviews ? s.survey + s.interviews : 0, METHODS.mixed],
    [s.survey, METHODS.survey],
    [s.interviews, METHODS.interviews],
    [
      s.archival,
      {
        ...METHODS['oral-history'],
        name: 'Archival document analysis of primary sources',
        skills: ['Archival research'],
      },
    ],
  ];
  const [score, best] = candidates.reduce((a, b) => (b[0] > a[0] ? b : a));
  return score > 0 ? best : METHODS.review;
}

function profileText(p: Profile, extra: string[] = []): string {
  return [
    p.field_of_study,
    p.research_area,
    p.additional_context,
    ...p.existing_skills,
    ...p.missing_skills,
    ...extra,
  ].join(' ');
}

// ------------------------------------------------------------------------------------------
// Rules
// ------------------------------------------------------------------------------------------

const NARROW = /narrow|scope|fit|shorten|reduce|fewer|too long|timeline/i;

function problemFormulation(sections: ReceivedSections<'proposal.problem_formulation'>) {
  const profile = readProfile(sections.profile);
  const hits: PromptedSearchResult[] = (Array.isArray(sections.search_results) ? sections.search_results : []).map(
    (h) => {
      const o = obj(h);
      return {
        id: str(o.id),
        title: str(o.title),
        source: str(o.source),
        year: typeof o.year === 'number' ? o.year : null,
        snippet: str(o.snippet),
        keywords: strings(o.keywords),
      };
    },
  );
  const previous = sections.previous_definition ? obj(sections.previous_definition) : undefined;
  const feedback = strings(sections.refinement_feedback);
  const feedbackText = feedback.join(' ');

  // Which results bear on the topic: words of the area and field count fully, words of the
  // context half, words every kind of research uses not at all; a study must share at least one
  // area or field word and score 2. Unrelated results are not cited, however few remain.
  const areaRoots = roots(`${profile.research_area} ${profile.field_of_study}`);
  const contextRoots = roots(`${profile.additional_context}`);
  const purpose = /\bfor\s+(.{3,})$/i.exec(profile.research_area)?.[1];
  const purposeRoots = purpose ? new Set([...roots(purpose)].filter((t) => !GENERIC_ROOTS.has(t))) : undefined;
  const interests = roots(`${profile.additional_context} ${profile.missing_skills.join(' ')}`);
  // The researcher's skills are means of the work (Python, statistics, R), not what it studies: a
  // study keyword naming one is never a research variable ("How do statistics and python shape X?").
  const skillRoots = roots([...profile.existing_skills, ...profile.missing_skills].join(' '));
  const relevant = hits
    .map((h, order) => {
      const overlap = [...roots(`${h.title} ${h.snippet} ${h.keywords.join(' ')}`)].filter(
        (t) => !GENERIC_ROOTS.has(t),
      );
      const onArea = overlap.filter((t) => areaRoots.has(t));
      const onContext = overlap.filter((t) => !areaRoots.has(t) && contextRoots.has(t));
      return {
        h,
        overlap: [...onArea, ...onContext],
        score: onArea.length + 0.5 * onContext.length,
        onArea: onArea.length,
        order,
      };
    })
    // "X for Y": Y names what the work is for (the application), X the means; a study that
    // shares only the means ("machine learning") is not literature on Y.
    .filter((r) => r.onArea >= 1 && r.score >= 2 && (!purposeRoots || r.overlap.some((t) => purposeRoots.has(t))))
    .sort((a, b) => b.score - a.score || a.order - b.order)
    .slice(0, 5);

  // Key variables: the cited studies' keywords that add something to the area's own words,
  // ranked by how often they occur and whether they match what the researcher said they care about.
  const scores = new Map<string, number>();
  for (const { h } of relevant) {
    for (const keyword of h.keywords) {
      const k = keyword.toLowerCase();
      const keys = [...roots(k)];
      // A keyword that repeats the area's own words adds nothing (and would echo the topic).
      if (GENERIC_KEYWORDS.has(k) || keys.some((t) => areaRoots.has(t) || skillRoots.has(t))) continue;
      const bonus = keys.some((t) => interests.has(t)) ? 2 : 0;
      scores.set(k, (scores.get(k) ?? bonus) + 1);
    }
  }
  let variables: string[] = [];
  for (const [k] of [...scores.entries()].sort((a, b) => b[1] - a[1])) {
    // "human-agent cooperation" adds nothing once "cooperation" is in.
    const keys = roots(k);
    if (!variables.some((v) => shared(roots(v), keys).length > 0)) variables.push(k);
  }
  const focus = /focus (?:more )?on ([^.;,!?]+)/i.exec(feedbackText)?.[1]?.trim().toLowerCase();
  if (focus) variables = [focus, ...variables.filter((v) => v !== focus)];
  variables = variables.slice(0, 4);
  // With fewer than two variables from the literature, the questions are about the area itself:
  // no filler variable is invented.
  const literatureBacked = variables.length >= 2;

  // Scope: four secondary questions at first; each "narrow the scope" feedback drops the last one.
  const previousCount = previous ? strings(previous.secondary_questions).length : 0;
  const narrowed = previous !== undefined && NARROW.test(feedbackText);
  const count = previous ? Math.max(1, previousCount - (narrowed ? 1 : 0)) : 4;
  const area = inSentence(profile.research_area);
  const field = inSentence(profile.field_of_study);
  const templates = literatureBacked
    ? [
        (v: string) => `How is ${v} defined and measured in current research on ${area}?`,
        (v: string) => `How does ${v} relate to the outcomes that matter in ${area}?`,
        (v: string) => `Under which conditions does ${v} change, and why?`,
        (v: string) => `What do findings on ${v} imply for practice in ${field}?`,
      ]
    : [
        () => `What is already known about ${area}, and where are the gaps?`,
        () => 'Which factors explain the differences this study observes?',
        () => `How do the new observations compare with earlier accounts in ${field}?`,
        () => `What do the findings imply for practice in ${field}?`,
      ];
  const secondary = Array.from({ length: count }, (_, i) =>
    templates[i % templates.length](variables[i % Math.max(1, variables.length)] ?? ''),
  );
  const context = firstClause(profile.additional_context);
  const main = [
    literatureBacked ? `How do ${variables[0]} and ${variables[1]} shape ${area}?` : '',
    focus ? `How does ${focus} relate to ${area}?` : '',
    context ? `What can ${inSentence(context)} reveal about ${area}?` : '',
    `Which open questions about ${area} can one project answer with the data it can collect?`,
  ].find((q) => q && !echoedPhrase(q))!;

  const cite = relevant.slice(0, 2).map(({ h }) => `“${h.title}” (${h.source}${h.year ? `, ${h.year}` : ''})`);
  const literatureSentence =
    relevant.length >= 2
      ? `${relevant.length} of the retrieved studies bear on it directly, for example ${cite.join(' and ')}${literatureBacked ? `, but they leave open how ${variables.slice(0, 3).join(', ')} interact in settings like this one` : ''}.`
      : relevant.length === 1
        ? `Only one retrieved study bears on it directly, ${cite[0]}; the literature available here is thin, so a systematic search of specialised databases is part of the first phase.`
        : 'The literature search found no study on this topic in the searched collection: ' +
          'the literature available here is thin, so a systematic search of specialised ' +
          'databases is part of the first phase, and no unrelated work is cited in its ' +
          'place.';
  // What changed since the last version, in the proposal's own words (the feedback itself stays in the refinement history).
  const revision = previous
    ? [
        narrowed
          ? `This version narrows the scope to ${count} secondary question${count === 1 ? '' : 's'}.`
          : 'This version revises the questions after review.',
        focus ? `It now centres on ${focus}.` : '',
      ]
        .filter(Boolean)
        .join(' ')
    : '';
  const statement = [
    relevant.length >= 2
      ? `${capitalise(area)} is an active topic in ${field}.`
      : `This proposal addresses ${area}, a topic in ${field}.`,
    literatureSentence,
    profile.constraints.length
      ? `The work has to respect these constraints: ${profile.constraints.map(inSentence).join(', ')}.`
      : '',
    `The project asks ${count} secondary question${count === 1 ? '' : 's'} so that it fits ${profile.timeline} at ${profile.weekly_hours} hours per week.`,
    revision,
  ]
    .filter(Boolean)
    .join(' ');

  return {
    working_title: literatureBacked
      ? `${capitalise(variables[0])} and ${variables[1]} in ${profile.research_area}`
      : `${capitalise(profile.research_area)}: a study plan in ${field}`,
    problem_statement: statement,
    main_research_question: main,
    secondary_questions: secondary,
    key_variables: variables.length ? variables : [profile.research_area],
    literature: relevant.map(({ h }) => {
      const common = shared(
        terms(`${h.title} ${h.keywords.join(' ')}`),
        terms(`${profile.research_area} ${profile.additional_context} ${variables.join(' ')}`),
      );
      const named = common.filter(
        (t) =>
          !common.some((o) => o !== t && o.includes(t)) &&
          !GENERIC_ROOTS.has(t.slice(0, 6)) &&
          !['large', 'small', 'based'].includes(t),
      );
      return {
        result_id: h.id,
        relevance_note: `${firstSentence(h.snippet) ?? `${h.title}.`}${named.length ? ` Relevant for: ${named.slice(0, 3).join(', ')}.` : ''}`,
      };
    }),
  };
}

/** The first whole sentence of a text (an abstract may arrive cut mid-word), or undefined. */
function firstSentence(text: string): string | undefined {
  const m = /^(.{20,}?[.!?])(?:\s|$)/.exec(text.trim());
  return m ? m[1] : undefined;
}

/** The first clause of a sentence, without its full stop ("Counting reef fish from video."). */
function firstClause(text: string): string {
  const clause =
    text
      .trim()
      .split(/[.;:!?]\s|[.;:!?]$/)[0]
      ?.trim() ?? '';
  return clause.length >= 10 && clause.length <= 140 ? clause : '';
}

/** A two-word phrase that occurs twice in one sentence ("How do X and Y shape X?"): poor writing. */
function echoedPhrase(sentence: string): string | undefined {
  const words = sentence.toLowerCase().match(/[a-z0-9][a-z0-9'-]*/g) ?? [];
  const seen = new Set<string>();
  for (let i = 0; i + 1 < words.length; i++) {
    if (STOP.has(words[i]) || STOP.has(words[i + 1])) continue;
    const key = `${words[i]} ${words[i + 1]}`;
    if (seen.has(key)) return key;
    seen.add(key);
  }
  return undefined;
}

function objectivesRule(sections: ReceivedSections<'proposal.objectives'>) {
  const profile = readProfile(sections.profile);
  const problem = obj(sections.problem);
  const main = str(problem.main_research_question, 'the main research question');
  const secondary = strings(problem.secondary_questions);
  const n = Math.max(1, secondary.length);
  const weeks = Math.max(1, Math.floor(profile.timeline_weeks));
  const specific = secondary.map(
    (q, i) =>
      `By week ${Math.max(1, Math.round((weeks * (i + 1)) / (n + 1)))}, produce a documented, evidence-based answer to: ${q}`,
  );
  const mainTerms = terms(main);
  const covered = secondary.filter((q) => shared(terms(q), mainTerms).length > 0).length;
  return {
    general_objective: `To answer, with evidence gathered within ${profile.timeline}, the question: ${main}`,
    specific_objectives: specific.length ? specific : [`By week ${weeks}, answer: ${main}`],
    feasibility_notes: {
      timeline_assessment: `${n} specific objective${n === 1 ? '' : 's'} in ${profile.timeline} at ${profile.weekly_hours} hours per week (about ${Math.round(profile.timeline_weeks * profile.weekly_hours)} hours in total).`,
      skills_required: [...new Set([...profile.missing_skills, ...profile.existing_skills])].slice(0, 6),
      risk_factors: [
        ...profile.constraints.map((c) => `Constraint: ${c}`),
        ...profile.missing_skills.map((s) => `Time needed to learn ${s}`),
      ].slice(0, 6),
    },
    alignment_check: {
      coverage_analysis: `Each of the ${n} secondary question(s) maps to one specific objective; the general objective restates the main question. ${covered} of ${n} secondary question(s) share terms with the main question.`,
      coherence_score: covered >= Math.ceil(n / 2) ? 'High' : covered > 0 ? 'Medium' : 'Low',
    },
  };
}

function methodologyRule(sections: ReceivedSections<'proposal.methodology'>) {
  const profile = readProfile(sections.profile);
  const objectives = obj(sections.objectives);
  const specific = strings(objectives.specific_objectives);
  // The profile alone decides, so the data collection plan reaches the same method.
  const method = chooseMethod(profileText(profile));
  const load = workload(profile, specific.length);
  const alternatives = (Object.values(METHODS) as MethodChoice[])
    .filter((m) => m.kind !== method.kind && m.kind !== 'review')
    .slice(0, 2);
  const have = profile.existing_skills.map((s) => s.toLowerCase());
  return {
    recommended_methodology: method.name,
    methodology_type: method.type,
    justification: `${method.name} answers the ${specific.length} specific objective(s) directly and builds on the researcher's skills (${profile.existing_skills.join(', ') || 'none listed'}). It needs about ${load.totalHours} hours, i.e. ${load.totalWeeks} weeks at ${profile.weekly_hours} hours per week${profile.constraints.length ? `, and respects: ${profile.constraints.join(', ')}` : ''}.`,
    required_skills: [...new Set([...method.skills, ...profile.missing_skills])].filter(
      (s) => !have.includes(s.toLowerCase()),
    ),
    timeline_fit: {
      is_feasible: load.totalWeeks <= profile.timeline_weeks,
      estimated_duration: weeks(load.totalWeeks),
      key_phases: [
        {
          name: 'Preparation',
          duration: weeks(load.weeks.preparation),
          description: 'Finalise instruments, set up tools, complete the literature search.',
        },
        {
          name: 'Data collection',
          duration: weeks(load.weeks.collection),
          description: `Collect data for ${specific.length} objective(s).`,
        },
        {
          name: 'Analysis and quality check',
          duration: weeks(load.weeks.qualityCheck),
          description: 'Clean, analyse and check the data; write up.',
        },
      ],
    },
    alternative_methodologies: alternatives.map((m) => ({
      name: m.name,
      pros: [
        m.type === 'qualitative'
          ? 'Rich, contextual insight'
          : 'Results that generalise and can be tested statistically',
      ],
      cons: [
        m.skills.some((s) => !have.includes(s.toLowerCase()))
          ? `Needs skills the researcher lacks (${m.skills.join(', ')})`
          : 'Less suited to the objectives as stated',
      ],
    })),
  };
}

interface Tool {
  name: string;
  type: string;
  accessibility: string;
  learning_curve: string;
  for: MethodChoice['kind'][];
  paid?: boolean;
}

const TOOLS: Tool[] = [
  {
    name: 'PettingZoo',
    type: 'Software library',
    accessibility: 'Free / open source',
    learning_curve: 'Medium',
    for: ['simulation'],
  },
  {
    name: 'Python with pandas',
    type: 'Programming language',
    accessibility: 'Free / open source',
    learning_curve: 'Low for Python users',
    for: ['simulation', 'benchmark', 'forecasting', 'survey', 'mixed', 'secondary'],
  },
  {
    name: 'MLflow',
    type: 'Experiment tracking',
    accessibility: 'Free / open source',
    learning_curve: 'Medium',
    for: ['simulation', 'benchmark', 'forecasting'],
  },
  {
    name: 'xarray',
    type: 'Software library',
    accessibility: 'Free / open source',
    learning_curve: 'Medium',
    for: ['forecasting'],
  },
  {
    name: 'LimeSurvey Community Edition',
    type: 'Survey platform',
    accessibility: 'Free / open source',
    learning_curve: 'Low',
    for: ['survey', 'mixed', 'comparison'],
  },
  {
    name: 'JASP',
    type: 'Statistics software',
    accessibility: 'Free / open source',
    learning_curve: 'Low',
    for: ['survey', 'mixed', 'comparison'],
  },
  {
    name: 'SPSS',
    type: 'Statistics software',
    accessibility: 'Commercial licence',
    learning_curve: 'Low',
    for: ['survey', 'mixed'],
    paid: true,
  },
  {
    name: 'Taguette',
    type: 'Qualitative coding',
    accessibility: 'Free / open source',
    learning_curve: 'Low',
    for: ['interviews', 'mixed', 'oral-history'],
  },
  {
    name: 'R',
    type: 'Statistics software',
    accessibility: 'Free / open source',
    learning_curve: 'Medium',
    for: ['field', 'secondary', 'comparison'],
  },
  {
    name: 'Fiji (ImageJ)',
    type: 'Image analysis',
    accessibility: 'Free / open source',
    learning_curve: 'Medium',
    for: ['field'],
  },
  {
    name: 'QGIS',
    type: 'Mapping of study sites',
    accessibility: 'Free / open source',
    learning_curve: 'Medium',
    for: ['field'],
  },
  {
    name: 'Snakemake',
    type: 'Analysis workflow manager',
    accessibility: 'Free / open source',
    learning_curve: 'Medium',
    for: ['secondary'],
  },
  {
    name: 'Audacity',
    type: 'Audio recording and editing',
    accessibility: 'Free / open source',
    learning_curve: 'Low',
    for: ['oral-history'],
  },
  {
    name: 'Zotero',
    type: 'Reference manager',
    accessibility: 'Free / open source',
    learning_curve: 'Low',
    for: [
      'simulation',
      'benchmark',
      'forecasting',
      'survey',
      'interviews',
      'mixed',
      'review',
      'field',
      'secondary',
      'comparison',
      'oral-history',
    ],
  },
];

function dataCollectionRule(sections: ReceivedSections<'proposal.data_collection'>) {
  const profile = readProfile(sections.profile);
  const objectives = obj(sections.objectives);
  const methodology = obj(sections.methodology);
  const n = Math.max(1, strings(objectives.specific_objectives).length);
  const chosen = chooseMethod(profileText(profile));
  const method =
    chosen.name === str(methodology.recommended_methodology)
      ? chosen
      : ((Object.values(METHODS) as MethodChoice[]).find((m) => m.name === str(methodology.recommended_methodology)) ??
        chosen);
  const noBudget = profile.constraints.some((c) => /no budget|no funding|zero budget|unfunded/i.test(c));
  const tools = TOOLS.filter((t) => t.for.includes(method.kind) && !(noBudget && t.paid)).map(
    ({ name, type, accessibility, learning_curve }) => ({ name, type, accessibility, learning_curve }),
  );
  const load = workload(profile, n);
  const human =
    ['survey', 'interviews', 'mixed', 'comparison'].includes(method.kind) ||
    (method.kind === 'oral-history' && /interview/i.test(method.name));
  const byKind: Record<MethodChoice['kind'], { techniques: string[]; sources: string[]; sample: string }> = {
    simulation: {
      techniques: ['Simulation logs', 'Automated metric collection'],
      sources: ['Generated synthetic data from simulated episodes'],
      sample: `${200 * n} episodes (${n} condition(s) × 200 seeds)`,
    },
    forecasting: {
      techniques: ['Retrieval of historical observations', 'Model output archiving'],
      sources: ['Public reanalysis and station records'],
      sample: '10 years of daily observations per region',
    },
    survey: {
      techniques: ['Online questionnaire with validated scales'],
      sources: ['Responses from the target population'],
      sample: `about ${Math.ceil(84 * (1 + 0.1 * (n - 1)))} respondents (power analysis: r = 0.3, α = 0.05, power 0.8)`,
    },
    interviews: {
      techniques: ['Semi-structured interviews'],
      sources: ['Interview transcripts'],
      sample: '12-15 participants, until thematic saturation',
    },
    mixed: {
      techniques: ['Online questionnaire', 'Follow-up semi-structured interviews'],
      sources: ['Survey responses', 'Interview transcripts'],
      sample: `about ${Math.ceil(84 * (1 + 0.1 * (n - 1)))} respondents and 8-12 interviewees`,
    },
    review: {
      techniques: ['Systematic database search', 'Structured data extraction'],
      sources: ['Published studies'],
      sample: '30-60 included studies',
    },
    benchmark: {
      techniques: ['Benchmark runs with automated metric collection', 'Archiving of model outputs'],
      sources: ['Public benchmark datasets and model outputs'],
      sample: `${n} condition(s) × 3 seeds on each benchmark`,
    },
    field: fieldSpec(method.name, n),
    secondary: {
      techniques: [
        'Retrieval of published datasets from public repositories',
        'Reproducible analysis pipeline with documented parameters',
      ],
      sources: ['Public data repositories'],
      sample: `${2 + n} published datasets`,
    },
    comparison: {
      techniques: ['Outcome records of the intervention and comparison groups', 'Participant questionnaire'],
      sources: ['Outcome records (e.g. assessments) of both groups', 'Questionnaire responses'],
      sample: 'two groups of about 60 participants each',
    },
    'oral-history': /interview/i.test(method.name)
      ? {
          techniques: ['Recorded life-story interviews', 'Archival document analysis'],
          sources: ['Interview recordings and transcripts', 'Archive records'],
          sample: '12-20 narrators and the matching archive series',
        }
      : {
          techniques: ['Archival document analysis'],
          sources: ['Archive records'],
          sample: 'the archive series that cover the period',
        },
  };
  const spec = byKind[method.kind];
  return {
    collection_techniques: spec.techniques,
    recommended_tools: tools,
    data_sources: [...spec.sources, 'Published studies from the literature review'],
    estimated_sample_size: spec.sample,
    timeline_breakdown: {
      preparation: {
        duration: weeks(load.weeks.preparation),
        activities: [
          'Finalise instruments and protocol',
          human ? 'Obtain ethics approval' : 'Set up the environment and pipelines',
        ],
      },
      collection: {
        duration: weeks(load.weeks.collection),
        activities: [`Collect data for ${n} objective(s)`, 'Log provenance of every record'],
      },
      quality_check: {
        duration: weeks(load.weeks.qualityCheck),
        activities: ['Check completeness and outliers', 'Document the dataset'],
      },
      total_duration: weeks(load.totalWeeks),
    },
    resource_requirements: [
      'A personal computer with internet access',
      ...(method.kind === 'forecasting' || /reinforcement|deep learning/i.test(profileText(profile))
        ? ['GPU time (shared cluster or free cloud tier)']
        : []),
      ...(human ? ['Ethics approval for research with human participants'] : []),
      `${load.totalHours} researcher hours`,
    ],
  };
}

/** Field work: what is recorded on site (images or instrument readings), plus laboratory tests when the study has them. */
function fieldSpec(name: string, n: number): { techniques: string[]; sources: string[]; sample: string } {
  const imaging = /image/i.test(name);
  const lab = /laborator/i.test(name);
  const onSite = /field|in-situ/i.test(name);
  return {
    techniques: [
      ...(onSite && imaging
        ? [
            'Standardised in-situ image or video recording at fixed sites',
            'Annotation and measurement of the recorded images',
          ]
        : []),
      ...(onSite && !imaging
        ? ['Instrumented in-situ measurements with sensors or loggers', 'Repeated monitoring at fixed points']
        : []),
      ...(lab ? ['Laboratory tests on specimens or samples'] : []),
    ],
    sources: [
      ...(onSite ? ['Field recordings from the study sites'] : []),
      ...(lab ? ['Laboratory test records'] : []),
    ],
    sample: `${2 * n} site visits${lab ? ` and ${6 * n} laboratory specimens` : ''}`,
  };
}

function weeksIn(text: string): number | null {
  let total = 0;
  let found = false;
  for (const m of text.matchAll(/(\d+(?:\.\d+)?)\s*(weeks?|months?|years?)/gi)) {
    const v = Number(m[1]);
    total += m[2].toLowerCase().startsWith('w') ? v : m[2].toLowerCase().startsWith('m') ? (v * 52) / 12 : v * 52;
    found = true;
  }
  return found ? total : null;
}

function qualityRule(sections: ReceivedSections<'proposal.quality_control'>) {
  const profile = readProfile(sections.profile);
  const problem = obj(sections.problem);
  const objectives = obj(sections.objectives);
  const methodology = obj(sections.methodology);
  const plan = obj(obj(sections.data_collection).timeline_breakdown);
  const secondary = strings(problem.secondary_questions);
  const specific = strings(objectives.specific_objectives);
  const literature = num(problem.literature_count, 0);

  // Coherence: every secondary question is covered by an objective, and the method speaks to the question.
  const covered = secondary.filter((q) => {
    const qt = terms(q);
    return specific.some((o) => shared(qt, terms(o)).length >= Math.ceil(qt.size / 2));
  }).length;
  const coverage = secondary.length ? covered / secondary.length : 0;
  const mainTerms = terms(str(problem.main_research_question));
  const methodLinked =
    shared(mainTerms, terms(`${str(methodology.justification)} ${str(objectives.general_objective)}`)).length > 0;
  const coherence = Math.min(
    1,
    Math.max(0, 0.5 + 0.3 * coverage + (literature >= 2 ? 0.05 : -0.1) + (methodLinked ? 0.05 : -0.05)),
  );

  const planWeeks = weeksIn(str(plan.total_duration));
  const ratio = planWeeks ? profile.timeline_weeks / planWeeks : null;
  const feasibility =
    ratio === null
      ? 0.6
      : ratio >= 1
        ? Math.max(0.75, 0.9 - 0.03 * profile.missing_skills.length)
        : Math.max(0, ratio * 0.95);

  const issues: Array<{
    severity: 'critical' | 'major' | 'minor';
    component: string;
    description: string;
    impact: string;
  }> = [];
  const recommendations: string[] = [];
  const targets: string[] = [];
  if (ratio !== null && ratio < 1) {
    issues.push({
      severity: 'major',
      component: 'data_collection',
      description: `The plan (${Math.round(planWeeks!)} weeks) is longer than the ${profile.timeline} available.`,
      impact: 'Objectives would be left unfinished.',
    });
    recommendations.push(
      `Narrow the scope: fewer secondary questions, so the plan fits ${Math.floor(profile.timeline_weeks)} weeks.`,
    );
    targets.push('problem_definition', 'data_collection');
  }
  if (literature < 2) {
    issues.push({
      severity: 'major',
      component: 'problem_definition',
      description: `Only ${literature} study/studies support the problem definition.`,
      impact: 'The research gap is weakly evidenced.',
    });
    recommendations.push('Broaden the literature search with synonyms of the key variables.');
  }
  if (coverage < 1) {
    issues.push({
      severity: 'major',
      component: 'research_objectives',
      description: `${secondary.length - covered} secondary question(s) have no matching objective.`,
      impact: 'Part of the problem would go unanswered.',
    });
    recommendations.push('Align each specific objective with one secondary question.');
    targets.push('research_objectives');
  }
  for (const skill of profile.missing_skills.slice(0, 2)) {
    issues.push({
      severity: 'minor',
      component: 'methodology',
      description: `${skill} still has to be learned.`,
      impact: 'Adds learning time early in the project.',
    });
  }
  if (!recommendations.length)
    recommendations.push('Proceed as planned; review the weekly time budget at each phase boundary.');
  return {
    coherence_score: Math.round(coherence * 100) / 100,
    feasibility_score: Math.round(feasibility * 100) / 100,
    issues_identified: issues,
    recommendations,
    refinement_targets: [...new Set(targets)],
  };
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
    description: 'Research problem from the profile and the literature search results (cites result ids only).',
    answer: ({ sections }) => problemFormulation(sections),
  }),
  taskRule({
    task: ModelTask.proposalObjectives,
    description: 'General and SMART specific objectives from the research questions.',
    answer: ({ sections }) => objectivesRule(sections),
  }),
  taskRule({
    task: ModelTask.proposalMethodology,
    description: 'Methodology chosen from field, topic and skills; duration from the workload model.',
    answer: ({ sections }) => methodologyRule(sections),
  }),
  taskRule({
    task: ModelTask.proposalDataCollection,
    description: 'Data collection plan with a phased timeline from the workload model.',
    answer: ({ sections }) => dataCollectionRule(sections),
  }),
  taskRule({
    task: ModelTask.proposalQualityControl,
    description: 'Coherence from question/objective coverage; feasibility from plan length vs timeline.',
    answer: ({ sections }) => qualityRule(sections),
  }),
];
