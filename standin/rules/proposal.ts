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
import type { StandinRule } from '../types';

// ------------------------------------------------------------------------------------------
// Text helpers
// ------------------------------------------------------------------------------------------

const STOP = new Set(
  'the and for with from into that this these those their there about over under between within without which what when where while how does do did are was were been being have has had not but can could should would will may might its our your his her them they you him she who whom why use using used via per than then also more most less such each other some any all one two three on in of to by as at or an a is be it we i'.split(
    ' ',
  ),
);

function stem(word: string): string {
  if (word.length > 5 && word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.length > 4 && word.endsWith('s') && !word.endsWith('ss')) return word.slice(0, -1);
  return word;
}

function terms(text: string): Set<string> {
  const out = new Set<string>();
  for (const raw of text.toLowerCase().match(/[a-z0-9][a-z0-9-]*/g) ?? []) {
    if (raw.length < 3 || STOP.has(raw)) continue;
    out.add(stem(raw));
    // "multi-agent" also counts as "agent": hyphenated compounds share their parts.
    if (raw.includes('-')) for (const part of raw.split('-')) if (part.length >= 3 && !STOP.has(part)) out.add(stem(part));
  }
  return out;
}

/** Coarser keys for topical matching: the first six letters ("cooperating" ~ "cooperation", "reliable" ~ "reliability"). */
function roots(text: string): Set<string> {
  return new Set([...terms(text)].map((t) => t.slice(0, 6)));
}

/** Keywords that name a kind of publication or a tool, not something to study. */
const GENERIC_KEYWORDS = new Set(['survey', 'benchmark', 'software library', 'meta-analysis', 'reporting guideline', 'systematic review', 'large language models', 'deep learning', 'machine learning']);

function shared(a: Set<string>, b: Set<string>): string[] {
  return [...a].filter((t) => b.has(t));
}

const str = (v: unknown, fallback = ''): string => (typeof v === 'string' ? v : fallback);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
const num = (v: unknown, fallback: number): number => (typeof v === 'number' && Number.isFinite(v) ? v : fallback);
const obj = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
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
  const hours = { preparation: 30, collection: effortPerObjective(profile.academic_program) * Math.max(1, objectives), qualityCheck: 20 };
  const weeks = {
    preparation: Math.ceil(hours.preparation / profile.weekly_hours),
    collection: Math.ceil(hours.collection / profile.weekly_hours),
    qualityCheck: Math.ceil(hours.qualityCheck / profile.weekly_hours),
  };
  const totalWeeks = weeks.preparation + weeks.collection + weeks.qualityCheck;
  return { hours, weeks, totalWeeks, totalHours: hours.preparation + hours.collection + hours.qualityCheck };
}

interface MethodChoice {
  name: string;
  type: 'quantitative' | 'qualitative' | 'mixed-methods';
  kind: 'simulation' | 'forecasting' | 'survey' | 'interviews' | 'mixed' | 'review';
  skills: string[];
}

const METHODS: Record<MethodChoice['kind'], MethodChoice> = {
  simulation: { kind: 'simulation', name: 'Controlled simulation experiments on agent benchmarks', type: 'quantitative', skills: ['Python', 'Experimental design', 'Statistics'] },
  forecasting: { kind: 'forecasting', name: 'Retrospective benchmark experiments on historical observations', type: 'quantitative', skills: ['Python', 'Time-series analysis', 'Deep learning'] },
  survey: { kind: 'survey', name: 'Cross-sectional online survey with validated scales', type: 'quantitative', skills: ['Survey design', 'Statistics'] },
  interviews: { kind: 'interviews', name: 'Semi-structured interviews with thematic analysis', type: 'qualitative', skills: ['Interviewing', 'Qualitative coding'] },
  mixed: { kind: 'mixed', name: 'Explanatory sequential mixed-methods design (survey, then interviews)', type: 'mixed-methods', skills: ['Survey design', 'Statistics', 'Interviewing'] },
  review: { kind: 'review', name: 'Systematic literature review with a small empirical study', type: 'mixed-methods', skills: ['Systematic searching', 'Critical appraisal'] },
};

function chooseMethod(text: string): MethodChoice {
  const t = text.toLowerCase();
  const simulation = /multi-agent|agent|simulat|reinforcement|game theory/.test(t);
  const forecasting = /forecast|weather|climate|time series|time-series|nowcast/.test(t);
  const survey = /survey|psycholog|well-being|wellbeing|education|social|behaviou?r/.test(t);
  const qualitative = /interview|qualitative|thematic|lived experience|perception|ethnograph/.test(t);
  if (simulation) return METHODS.simulation;
  if (forecasting) return METHODS.forecasting;
  if (survey && qualitative) return METHODS.mixed;
  if (survey) return METHODS.survey;
  if (qualitative) return METHODS.interviews;
  return METHODS.review;
}

function profileText(p: Profile, extra: string[] = []): string {
  return [p.field_of_study, p.research_area, p.additional_context, ...p.existing_skills, ...p.missing_skills, ...extra].join(' ');
}

// ------------------------------------------------------------------------------------------
// Rules
// ------------------------------------------------------------------------------------------

interface Hit {
  id: string;
  title: string;
  source: string;
  year: number | null;
  snippet: string;
  keywords: string[];
}

const NARROW = /narrow|scope|fit|shorten|reduce|fewer|too long|timeline/i;

function problemFormulation(sections: Record<string, unknown>) {
  const profile = readProfile(sections.profile);
  const hits: Hit[] = (Array.isArray(sections.search_results) ? sections.search_results : []).map((h) => {
    const o = obj(h);
    return { id: str(o.id), title: str(o.title), source: str(o.source), year: typeof o.year === 'number' ? o.year : null, snippet: str(o.snippet), keywords: strings(o.keywords) };
  });
  const previous = sections.previous_definition ? obj(sections.previous_definition) : undefined;
  const feedback = strings(sections.refinement_feedback);
  const feedbackText = feedback.join(' ');

  // Which results bear on the topic: at least two shared content words with the profile.
  const topic = roots(`${profile.research_area} ${profile.field_of_study} ${profile.additional_context}`);
  const areaRoots = roots(`${profile.research_area} ${profile.field_of_study}`);
  const interests = roots(`${profile.additional_context} ${profile.missing_skills.join(' ')}`);
  const relevant = hits
    .map((h, order) => {
      const overlap = shared(roots(`${h.title} ${h.snippet} ${h.keywords.join(' ')}`), topic);
      return { h, overlap, order };
    })
    .filter((r) => r.overlap.length >= 2)
    .sort((a, b) => b.overlap.length - a.overlap.length || a.order - b.order)
    .slice(0, 5);

  // Key variables: the cited studies' keywords that add something to the area's own words,
  // ranked by how often they occur and whether they match what the researcher said they care about.
  const scores = new Map<string, number>();
  for (const { h } of relevant) {
    for (const keyword of h.keywords) {
      const k = keyword.toLowerCase();
      const keys = [...roots(k)];
      if (GENERIC_KEYWORDS.has(k) || keys.every((t) => areaRoots.has(t))) continue;
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
  if (variables.length < 2) {
    const parts = profile.research_area.split(/\s+(?:and|with|for|of|in|on)\s+/i).map((s) => inSentence(s.trim())).filter(Boolean);
    variables = [...variables, ...parts.filter((p) => !variables.includes(p))];
  }
  if (variables.length < 2) variables.push('outcome quality');
  variables = variables.slice(0, 4);

  // Scope: four secondary questions at first; each "narrow the scope" feedback drops the last one.
  const previousCount = previous ? strings(previous.secondary_questions).length : 0;
  const count = previous ? Math.max(1, previousCount - (NARROW.test(feedbackText) ? 1 : 0)) : 4;
  const area = inSentence(profile.research_area);
  const templates = [
    (v: string) => `How is ${v} defined and measured in current research on ${area}?`,
    (v: string) => `How does ${v} relate to the outcomes that matter in ${area}?`,
    (v: string) => `Under which conditions does ${v} change, and why?`,
    (v: string) => `What do findings on ${v} imply for practice in ${inSentence(profile.field_of_study)}?`,
  ];
  const secondary = Array.from({ length: count }, (_, i) => templates[i % templates.length](variables[i % variables.length]));
  const main = `How do ${variables[0]} and ${variables[1]} shape ${area}?`;

  const cite = relevant.slice(0, 2).map(({ h }) => `“${h.title}” (${h.source}${h.year ? `, ${h.year}` : ''})`);
  const statement = [
    `${capitalise(area)} is an active topic in ${inSentence(profile.field_of_study)}.`,
    relevant.length
      ? `${relevant.length} of the retrieved studies bear on it directly, for example ${cite.join(' and ')}, but they leave open how ${variables.slice(0, 3).join(', ')} interact in settings like this one.`
      : 'The literature search found no study that matches the topic closely, so a systematic search is part of the first phase.',
    profile.constraints.length ? `The work has to respect these constraints: ${profile.constraints.map(inSentence).join(', ')}.` : '',
    `The project asks ${count} secondary question${count === 1 ? '' : 's'} so that it fits ${profile.timeline} at ${profile.weekly_hours} hours per week.`,
    feedback.length ? `This version addresses the feedback: ${feedback.join(' ')}` : '',
  ]
    .filter(Boolean)
    .join(' ');

  return {
    working_title: `${capitalise(variables[0])} and ${variables[1]} in ${profile.research_area}`,
    problem_statement: statement,
    main_research_question: main,
    secondary_questions: secondary,
    key_variables: variables,
    literature: relevant.map(({ h }) => {
      const common = shared(terms(`${h.title} ${h.keywords.join(' ')}`), terms(`${profile.research_area} ${profile.additional_context} ${variables.join(' ')}`));
      const named = common.filter((t) => !common.some((o) => o !== t && o.includes(t)));
      return { result_id: h.id, relevance_note: `${h.snippet || h.title}${named.length ? ` Relevant for: ${named.slice(0, 3).join(', ')}.` : ''}` };
    }),
  };
}

function objectivesRule(sections: Record<string, unknown>) {
  const profile = readProfile(sections.profile);
  const problem = obj(sections.problem);
  const main = str(problem.main_research_question, 'the main research question');
  const secondary = strings(problem.secondary_questions);
  const n = Math.max(1, secondary.length);
  const weeks = Math.max(1, Math.floor(profile.timeline_weeks));
  const specific = secondary.map((q, i) => `By week ${Math.max(1, Math.round((weeks * (i + 1)) / (n + 1)))}, produce a documented, evidence-based answer to: ${q}`);
  const mainTerms = terms(main);
  const covered = secondary.filter((q) => shared(terms(q), mainTerms).length > 0).length;
  return {
    general_objective: `To answer, with evidence gathered within ${profile.timeline}, the question: ${main}`,
    specific_objectives: specific.length ? specific : [`By week ${weeks}, answer: ${main}`],
    feasibility_notes: {
      timeline_assessment: `${n} specific objective${n === 1 ? '' : 's'} in ${profile.timeline} at ${profile.weekly_hours} hours per week (about ${Math.round(profile.timeline_weeks * profile.weekly_hours)} hours in total).`,
      skills_required: [...new Set([...profile.missing_skills, ...profile.existing_skills])].slice(0, 6),
      risk_factors: [...profile.constraints.map((c) => `Constraint: ${c}`), ...profile.missing_skills.map((s) => `Time needed to learn ${s}`)].slice(0, 6),
    },
    alignment_check: {
      coverage_analysis: `Each of the ${n} secondary question(s) maps to one specific objective; the general objective restates the main question. ${covered} of ${n} secondary question(s) share terms with the main question.`,
      coherence_score: covered >= Math.ceil(n / 2) ? 'High' : covered > 0 ? 'Medium' : 'Low',
    },
  };
}

function methodologyRule(sections: Record<string, unknown>) {
  const profile = readProfile(sections.profile);
  const problem = obj(sections.problem);
  const objectives = obj(sections.objectives);
  const specific = strings(objectives.specific_objectives);
  const method = chooseMethod(profileText(profile, strings(problem.key_variables)));
  const load = workload(profile, specific.length);
  const alternatives = (Object.values(METHODS) as MethodChoice[]).filter((m) => m.kind !== method.kind && m.kind !== 'review').slice(0, 2);
  const have = profile.existing_skills.map((s) => s.toLowerCase());
  return {
    recommended_methodology: method.name,
    methodology_type: method.type,
    justification: `${method.name} answers the ${specific.length} specific objective(s) directly and builds on the researcher's skills (${profile.existing_skills.join(', ') || 'none listed'}). It needs about ${load.totalHours} hours, i.e. ${load.totalWeeks} weeks at ${profile.weekly_hours} hours per week${profile.constraints.length ? `, and respects: ${profile.constraints.join(', ')}` : ''}.`,
    required_skills: [...new Set([...method.skills, ...profile.missing_skills])].filter((s) => !have.includes(s.toLowerCase())),
    timeline_fit: {
      is_feasible: load.totalWeeks <= profile.timeline_weeks,
      estimated_duration: weeks(load.totalWeeks),
      key_phases: [
        { name: 'Preparation', duration: weeks(load.weeks.preparation), description: 'Finalise instruments, set up tools, complete the literature search.' },
        { name: 'Data collection', duration: weeks(load.weeks.collection), description: `Collect data for ${specific.length} objective(s).` },
        { name: 'Analysis and quality check', duration: weeks(load.weeks.qualityCheck), description: 'Clean, analyse and check the data; write up.' },
      ],
    },
    alternative_methodologies: alternatives.map((m) => ({
      name: m.name,
      pros: [m.type === 'qualitative' ? 'Rich, contextual insight' : 'Results that generalise and can be tested statistically'],
      cons: [m.skills.some((s) => !have.includes(s.toLowerCase())) ? `Needs skills the researcher lacks (${m.skills.join(', ')})` : 'Less suited to the objectives as stated'],
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
  { name: 'PettingZoo', type: 'Software library', accessibility: 'Free / open source', learning_curve: 'Medium', for: ['simulation'] },
  { name: 'Python with pandas', type: 'Programming language', accessibility: 'Free / open source', learning_curve: 'Low for Python users', for: ['simulation', 'forecasting', 'survey', 'mixed'] },
  { name: 'MLflow', type: 'Experiment tracking', accessibility: 'Free / open source', learning_curve: 'Medium', for: ['simulation', 'forecasting'] },
  { name: 'xarray', type: 'Software library', accessibility: 'Free / open source', learning_curve: 'Medium', for: ['forecasting'] },
  { name: 'LimeSurvey Community Edition', type: 'Survey platform', accessibility: 'Free / open source', learning_curve: 'Low', for: ['survey', 'mixed'] },
  { name: 'JASP', type: 'Statistics software', accessibility: 'Free / open source', learning_curve: 'Low', for: ['survey', 'mixed'] },
  { name: 'SPSS', type: 'Statistics software', accessibility: 'Commercial licence', learning_curve: 'Low', for: ['survey', 'mixed'], paid: true },
  { name: 'Taguette', type: 'Qualitative coding', accessibility: 'Free / open source', learning_curve: 'Low', for: ['interviews', 'mixed'] },
  { name: 'Zotero', type: 'Reference manager', accessibility: 'Free / open source', learning_curve: 'Low', for: ['simulation', 'forecasting', 'survey', 'interviews', 'mixed', 'review'] },
];

function dataCollectionRule(sections: Record<string, unknown>) {
  const profile = readProfile(sections.profile);
  const objectives = obj(sections.objectives);
  const methodology = obj(sections.methodology);
  const n = Math.max(1, strings(objectives.specific_objectives).length);
  const method = (Object.values(METHODS) as MethodChoice[]).find((m) => m.name === str(methodology.recommended_methodology)) ?? chooseMethod(profileText(profile));
  const noBudget = profile.constraints.some((c) => /no budget|no funding|zero budget|unfunded/i.test(c));
  const tools = TOOLS.filter((t) => t.for.includes(method.kind) && !(noBudget && t.paid)).map(({ name, type, accessibility, learning_curve }) => ({ name, type, accessibility, learning_curve }));
  const load = workload(profile, n);
  const human = ['survey', 'interviews', 'mixed'].includes(method.kind);
  const byKind: Record<MethodChoice['kind'], { techniques: string[]; sources: string[]; sample: string }> = {
    simulation: { techniques: ['Simulation logs', 'Automated metric collection'], sources: ['Generated synthetic data from simulated episodes'], sample: `${200 * n} episodes (${n} condition(s) × 200 seeds)` },
    forecasting: { techniques: ['Retrieval of historical observations', 'Model output archiving'], sources: ['Public reanalysis and station records'], sample: '10 years of daily observations per region' },
    survey: { techniques: ['Online questionnaire with validated scales'], sources: ['Responses from the target population'], sample: `about ${Math.ceil(84 * (1 + 0.1 * (n - 1)))} respondents (power analysis: r = 0.3, α = 0.05, power 0.8)` },
    interviews: { techniques: ['Semi-structured interviews'], sources: ['Interview transcripts'], sample: '12-15 participants, until thematic saturation' },
    mixed: { techniques: ['Online questionnaire', 'Follow-up semi-structured interviews'], sources: ['Survey responses', 'Interview transcripts'], sample: `about ${Math.ceil(84 * (1 + 0.1 * (n - 1)))} respondents and 8-12 interviewees` },
    review: { techniques: ['Systematic database search', 'Structured data extraction'], sources: ['Published studies'], sample: '30-60 included studies' },
  };
  const spec = byKind[method.kind];
  return {
    collection_techniques: spec.techniques,
    recommended_tools: tools,
    data_sources: [...spec.sources, 'Published studies from the literature review'],
    estimated_sample_size: spec.sample,
    timeline_breakdown: {
      preparation: { duration: weeks(load.weeks.preparation), activities: ['Finalise instruments and protocol', human ? 'Obtain ethics approval' : 'Set up the environment and pipelines'] },
      collection: { duration: weeks(load.weeks.collection), activities: [`Collect data for ${n} objective(s)`, 'Log provenance of every record'] },
      quality_check: { duration: weeks(load.weeks.qualityCheck), activities: ['Check completeness and outliers', 'Document the dataset'] },
      total_duration: weeks(load.totalWeeks),
    },
    resource_requirements: [
      'A personal computer with internet access',
      ...(method.kind === 'forecasting' || /reinforcement|deep learning/i.test(profileText(profile)) ? ['GPU time (shared cluster or free cloud tier)'] : []),
      ...(human ? ['Ethics approval for research with human participants'] : []),
      `${load.totalHours} researcher hours`,
    ],
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

function qualityRule(sections: Record<string, unknown>) {
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
  const methodLinked = shared(mainTerms, terms(`${str(methodology.justification)} ${str(objectives.general_objective)}`)).length > 0;
  const coherence = Math.min(1, Math.max(0, 0.5 + 0.3 * coverage + (literature >= 2 ? 0.05 : -0.1) + (methodLinked ? 0.05 : -0.05)));

  const planWeeks = weeksIn(str(plan.total_duration));
  const ratio = planWeeks ? profile.timeline_weeks / planWeeks : null;
  const feasibility = ratio === null ? 0.6 : ratio >= 1 ? Math.max(0.75, 0.9 - 0.03 * profile.missing_skills.length) : Math.max(0, ratio * 0.95);

  const issues: Array<{ severity: 'critical' | 'major' | 'minor'; component: string; description: string; impact: string }> = [];
  const recommendations: string[] = [];
  const targets: string[] = [];
  if (ratio !== null && ratio < 1) {
    issues.push({ severity: 'major', component: 'data_collection', description: `The plan (${Math.round(planWeeks!)} weeks) is longer than the ${profile.timeline} available.`, impact: 'Objectives would be left unfinished.' });
    recommendations.push(`Narrow the scope: fewer secondary questions, so the plan fits ${Math.floor(profile.timeline_weeks)} weeks.`);
    targets.push('problem_definition', 'data_collection');
  }
  if (literature < 2) {
    issues.push({ severity: 'major', component: 'problem_definition', description: `Only ${literature} study/studies support the problem definition.`, impact: 'The research gap is weakly evidenced.' });
    recommendations.push('Broaden the literature search with synonyms of the key variables.');
  }
  if (coverage < 1) {
    issues.push({ severity: 'major', component: 'research_objectives', description: `${secondary.length - covered} secondary question(s) have no matching objective.`, impact: 'Part of the problem would go unanswered.' });
    recommendations.push('Align each specific objective with one secondary question.');
    targets.push('research_objectives');
  }
  for (const skill of profile.missing_skills.slice(0, 2)) {
    issues.push({ severity: 'minor', component: 'methodology', description: `${skill} still has to be learned.`, impact: 'Adds learning time early in the project.' });
  }
  if (!recommendations.length) recommendations.push('Proceed as planned; review the weekly time budget at each phase boundary.');
  return {
    coherence_score: Math.round(coherence * 100) / 100,
    feasibility_score: Math.round(feasibility * 100) / 100,
    issues_identified: issues,
    recommendations,
    refinement_targets: [...new Set(targets)],
  };
}

export const proposalRules: StandinRule[] = [
  { task: 'proposal.problem_formulation', description: 'Research problem from the profile and the literature search results (cites result ids only).', answer: ({ sections }) => problemFormulation(sections) },
  { task: 'proposal.objectives', description: 'General and SMART specific objectives from the research questions.', answer: ({ sections }) => objectivesRule(sections) },
  { task: 'proposal.methodology', description: 'Methodology chosen from field, topic and skills; duration from the workload model.', answer: ({ sections }) => methodologyRule(sections) },
  { task: 'proposal.data_collection', description: 'Data collection plan with a phased timeline from the workload model.', answer: ({ sections }) => dataCollectionRule(sections) },
  { task: 'proposal.quality_control', description: 'Coherence from question/objective coverage; feasibility from plan length vs timeline.', answer: ({ sections }) => qualityRule(sections) },
];
