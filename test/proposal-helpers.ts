/** Shared by the proposal tests: read a PDF's text and link annotations with pdfjs-dist, and test profiles. */
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { UserProfile } from '../flows/proposal/contract';
import { waitFor } from './helpers/wait';

export interface PdfContent {
  pages: number;
  /** Text per page, items joined with spaces. */
  pageTexts: string[];
  /** All text, whitespace collapsed. */
  text: string;
  links: Array<{ page: number; url: string }>;
  title: string | undefined;
}

export async function readPdf(file: string): Promise<PdfContent> {
  // In a thread of its own (helpers/pdf-reader.mjs): pdf.js adds browser globals when it loads.
  const worker = new Worker(path.join(__dirname, 'helpers', 'pdf-reader.mjs'), { workerData: { file } });
  const [read] = (await Promise.all([once(worker, 'message'), once(worker, 'exit')])) as [
    [Omit<PdfContent, 'text'>],
    unknown,
  ];
  const content = read[0];
  return { ...content, text: content.pageTexts.join(' ').replace(/\s+/g, ' ') };
}

/** Text as pdfjs extracts it may break lines anywhere: compare with whitespace removed. */
export const squash = (s: string) => s.replace(/\s+/g, '');

const profileFile = (name: string) =>
  JSON.parse(readFileSync(path.resolve(__dirname, '..', 'data', 'profiles', `${name}.json`), 'utf8')) as UserProfile;

/** 10 h/week for 3 months: the first two versions overrun the timeline, the third fits. */
export const TIGHT_PROFILE = profileFile('psychology-tight-timeline');
/** Non-ASCII context (Zürich, São Paulo) for the PDF font. */
export const CLIMATE_PROFILE = profileFile('climate-phd');
/** 4 h/week for 1 month: no version can fit, whatever the refinement. */
export const IMPOSSIBLE_PROFILE: UserProfile = {
  academic_program: "Master's",
  field_of_study: 'Computer Science',
  research_area: 'Multi-agent reinforcement learning for traffic control',
  weekly_hours: 4,
  total_timeline: { value: 1, unit: 'months' },
  existing_skills: ['Python'],
  missing_skills: ['Reinforcement Learning'],
  constraints: ['No budget'],
};

/** Waits for a workflow to answer a query the way the test wants (a query may fail while it starts). */
export function until<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 20_000): Promise<T> {
  return waitFor(probe, what, { timeoutMs, everyMs: 100, retryErrors: true });
}

// ---------------------------------------------------------------------------------------------
// A scripted proposal model: canned stage replies for tests of orchestration (refinement,
// review, interviews, retries), so they depend on what the workflow does, not on the wording or
// arithmetic of the offline model's rules.

export const PROPOSAL_STAGE_TASKS = [
  'proposal.problem_formulation',
  'proposal.objectives',
  'proposal.methodology',
  'proposal.data_collection',
  'proposal.quality_control',
] as const;

type Sections = Record<string, unknown>;

/** A problem definition citing the first two search results, with `questions` secondary questions (a number, or one fewer than the previous version's). */
export function scriptedProblem(questions: number | ((previous: number | undefined) => number) = 3) {
  return (s: Sections) => {
    const results = (Array.isArray(s.search_results) ? s.search_results : []) as Array<{ id: string }>;
    const previous = (s.previous_definition as { secondary_questions?: string[] } | undefined)?.secondary_questions;
    const n = typeof questions === 'function' ? questions(previous?.length) : questions;
    return {
      working_title: 'A scripted proposal',
      problem_statement: 'The scripted model states a problem in one whole sentence.',
      main_research_question: 'What does the scripted study find?',
      secondary_questions: Array.from({ length: n }, (_, i) => `Which result does part ${i + 1} give?`),
      key_variables: ['first variable', 'second variable'],
      literature: results.slice(0, 2).map((r) => ({ result_id: r.id, relevance_note: 'Cited by the scripted model.' })),
    };
  };
}

/** One specific objective per secondary question of the prompt's problem. */
export function scriptedObjectives() {
  return (s: Sections) => {
    const questions = ((s.problem as { secondary_questions?: string[] })?.secondary_questions ?? []).length;
    return {
      general_objective: 'To answer the main research question in the time available.',
      specific_objectives: Array.from({ length: Math.max(1, questions) }, (_, i) => `Answer part ${i + 1} in turn.`),
      feasibility_notes: {
        timeline_assessment: 'The plan fits the time available.',
        skills_required: ['Python'],
        risk_factors: ['Learning a new tool takes time.'],
      },
      alignment_check: { coverage_analysis: 'Each secondary question has one objective.', coherence_score: 'High' },
    };
  };
}

/** Whole weeks of the profile's timeline, as the prompt gives them. */
const profileWeeks = (s: Sections) => Math.floor((s.profile as { timeline_weeks: number }).timeline_weeks);

/** A methodology of `weeks` weeks (default: the profile's whole timeline). */
export function scriptedMethodology(weeks?: number) {
  return (s: Sections) => {
    const w = weeks ?? profileWeeks(s);
    return {
      recommended_methodology: 'Controlled experiments',
      methodology_type: 'quantitative',
      justification: 'The method suits the questions.',
      required_skills: [],
      timeline_fit: {
        is_feasible: true,
        estimated_duration: `${w} weeks`,
        key_phases: [
          { name: 'Preparation', duration: '2 weeks', description: 'Set up the study.' },
          { name: 'Study', duration: `${w - 2} weeks`, description: 'Carry out the study.' },
        ],
      },
      alternative_methodologies: [],
    };
  };
}

/** A data collection plan of `weeks` weeks in total (default: the profile's whole timeline). */
export function scriptedPlan(weeks?: number) {
  return (s: Sections) => {
    const w = weeks ?? profileWeeks(s);
    return {
      collection_techniques: ['Structured records'],
      recommended_tools: [
        { name: 'Zotero', type: 'Reference manager', accessibility: 'Free / open source', learning_curve: 'Low' },
      ],
      data_sources: ['Records kept during the study'],
      estimated_sample_size: 'forty cases',
      timeline_breakdown: {
        preparation: { duration: '2 weeks', activities: ['Prepare the protocol'] },
        collection: { duration: `${w - 4} weeks`, activities: ['Collect the records'] },
        quality_check: { duration: '2 weeks', activities: ['Check the records'] },
        total_duration: `${w} weeks`,
      },
      resource_requirements: ['A computer'],
    };
  };
}

/** The quality model's view: passed (scores 0.9), or not passed with one major issue and a recommendation. */
export function scriptedQuality(passed: boolean, coherence = passed ? 0.9 : 0.5) {
  return {
    coherence_score: coherence,
    feasibility_score: 0.9,
    issues_identified: passed
      ? []
      : [
          {
            severity: 'major',
            component: 'research_objectives',
            description: 'The scripted reviewer wants another round.',
            impact: 'The draft is not ready.',
          },
        ],
    recommendations: passed ? ['Proceed as planned.'] : ['Narrow the scope to fewer secondary questions.'],
    refinement_targets: passed ? [] : ['problem_definition'],
  };
}

/** Every stage answers the same way, the plan fills the profile's timeline, and quality control passes: for tests where the proposal itself is incidental. */
export function passingScript() {
  return {
    'proposal.problem_formulation': { always: scriptedProblem(3) },
    'proposal.objectives': { always: scriptedObjectives() },
    'proposal.methodology': { always: scriptedMethodology() },
    'proposal.data_collection': { always: scriptedPlan() },
    'proposal.quality_control': { always: scriptedQuality(true) },
  };
}
