/**
 * The contract between the activities that prompt the model and the offline stand-in that
 * answers them: every task id, and for each task the names of the prompt's sections (the
 * `<name>…</name>` blocks of the user turn, see `backends/model/prompt.ts`).
 *
 * Both sides are typed against this module. An activity that renames or adds a section, or a
 * stand-in rule that reads a section the task does not send, no longer compiles; before, the
 * stand-in silently read `undefined` and answered something else.
 *
 * Value types describe what the activities send. The stand-in receives the sections back from
 * text (JSON bodies parsed), so it sees every value as `unknown` and checks shapes itself.
 */

/** Every task id a prompt carries (`Task: <id>` in the system instruction). */
export const ModelTask = {
  platformSummarize: 'platform.summarize',
  bomFocusTerms: 'bom.focus_terms',
  bomExplain: 'bom.explain',
  discoveryPlan: 'discovery.plan',
  discoveryValidate: 'discovery.validate',
  eadsOrchestrate: 'eads.orchestrate',
  eadsQuestion: 'eads.question',
  eadsSurrogateAnswer: 'eads.surrogate_answer',
  eadsRefine: 'eads.refine',
  proposalInterviewQuestion: 'proposal.interview_question',
  proposalProblemFormulation: 'proposal.problem_formulation',
  proposalObjectives: 'proposal.objectives',
  proposalMethodology: 'proposal.methodology',
  proposalDataCollection: 'proposal.data_collection',
  proposalQualityControl: 'proposal.quality_control',
} as const;

export type ModelTaskId = (typeof ModelTask)[keyof typeof ModelTask];

/**
 * Web searches are tagged with a task id too (logs and metrics), but carry a query, not
 * sections, and only a real model runs them: the stand-in has no rule for it.
 */
export const WebSearchTask = {
  proposalLiteratureSearch: 'proposal.literature_search',
} as const;

export type WebSearchTaskId = (typeof WebSearchTask)[keyof typeof WebSearchTask];

// ---------------------------------------------------------------------------------------------
// Sections per task.

/** A JSON document rendered into the prompt as text (the stand-in parses it back). */
type JsonText = string;

export interface PlatformSummarizeSections {
  topic: string;
  search_hits: Array<{ title: string }>;
  warehouse_rows: unknown[];
}

export interface BomFocusTermsSections {
  question: string;
}

export interface BomExplainSections {
  question: string;
  result: {
    method: string;
    search_terms: string[];
    terms_required: 'any' | 'all';
    rows_are: 'top_level_items' | 'boms_using_the_parts';
    total_rows: number;
    shown_rows: number;
  };
  /** Sample rows, each as its non-empty values joined with ` | `. */
  rows: string[];
}

export interface DiscoveryPlanSections {
  prp: string;
  /** The target columns as compact JSON. */
  target_schema: JsonText;
}

export interface DiscoveryValidateSections {
  conceptual_group: string;
  /** This step's target columns as compact JSON. */
  target_columns: JsonText;
  /** The candidate table (id, description, schema) as compact JSON. */
  candidate_table: JsonText;
}

export interface EadsOrchestrateSections {
  conversation: unknown;
  candidates: Array<{ eads_id: string; name: string; interviewer: string; objective: string; topic_rank: number }>;
}

/** An EADS field as a prompt shows it (`fieldForPrompt` in the EADS activities). */
export interface PromptedField {
  name: string;
  kind: string;
  derived?: boolean;
  [detail: string]: unknown;
}

/** The question an answer is about, as the surrogate and the refinement see it. */
export interface PromptedQuestion {
  question: string;
  question_type: 'text' | 'table' | 'choice';
  table_template?: string;
  choices?: string[];
  targets: string[];
}

export interface EadsQuestionSections {
  interviewer: { type: string; role: string; instructions: string; question_style: string; example: string };
  eads: { id: string; name: string; objective: string };
  remaining_fields: PromptedField[];
  asked: Array<{ targets: string[]; filled: string[]; question: string; charged?: false }>;
  filled_fields: string[];
  context: unknown;
}

export interface EadsSurrogateAnswerSections {
  firm: { name: string; interviewee: string; about: string };
  question: PromptedQuestion;
  facts: Array<{ about: string; answer: string }>;
  tables: Array<{ name: string; rows: Array<Record<string, unknown>> }>;
}

export interface EadsRefineSections {
  eads: { id: string; name: string };
  question: PromptedQuestion;
  answer: string;
  fields: PromptedField[];
  /** Charged questions asked so far, per field. */
  attempts: Record<string, number>;
  data_structure: unknown;
  context: unknown;
}

export interface ProposalInterviewQuestionSections {
  conversation: Array<{ question: string; answer: string }>;
  next_field: { field: string; question: string; hint: string; number: number; of: number };
}

/** The researcher's profile with its timeline in weeks and in words. */
export type PromptedProfile = Record<string, unknown> & { timeline_weeks: number; timeline: string };

/** A study from the literature search as the problem formulation's prompt lists it. */
export interface PromptedSearchResult {
  id: string;
  title: string;
  source: string;
  year: number | null;
  snippet: string;
  keywords: string[];
}

export interface ProposalProblemFormulationSections {
  profile: PromptedProfile;
  search_results: PromptedSearchResult[];
  /** Only when refining an earlier definition. */
  previous_definition?: { main_research_question: string; secondary_questions: string[]; key_variables: unknown };
  /** Only when refining: the quality check's points to address. */
  refinement_feedback?: string[];
}

export interface ProposalObjectivesSections {
  profile: PromptedProfile;
  problem: { main_research_question: string; secondary_questions: string[]; key_variables: unknown };
}

export interface ProposalMethodologySections {
  profile: PromptedProfile;
  problem: { main_research_question: string; key_variables: unknown };
  objectives: { general_objective: string; specific_objectives: unknown[] };
}

export interface ProposalDataCollectionSections {
  profile: PromptedProfile;
  objectives: { specific_objectives: unknown[] };
  methodology: { recommended_methodology: string; methodology_type: string; key_phases: string[] };
}

export interface ProposalQualityControlSections {
  profile: PromptedProfile;
  problem: {
    main_research_question: string;
    secondary_questions: string[];
    key_variables: unknown;
    literature_count: number;
    /** What the proposal cites, so quality control can judge whether it is on topic. */
    literature?: Array<{ title: string; relevance_note: string }>;
  };
  objectives: { general_objective: string; specific_objectives: unknown[]; timeline_assessment?: string };
  methodology: {
    recommended_methodology: string;
    methodology_type: string;
    justification: string;
    estimated_duration: unknown;
    /** Whether the methodology says the study fits the timeline. */
    is_feasible?: boolean;
  };
  data_collection: { collection_techniques: unknown[]; timeline_breakdown: unknown };
}

/** The sections each task's prompt carries. */
export interface ModelTaskSections {
  'platform.summarize': PlatformSummarizeSections;
  'bom.focus_terms': BomFocusTermsSections;
  'bom.explain': BomExplainSections;
  'discovery.plan': DiscoveryPlanSections;
  'discovery.validate': DiscoveryValidateSections;
  'eads.orchestrate': EadsOrchestrateSections;
  'eads.question': EadsQuestionSections;
  'eads.surrogate_answer': EadsSurrogateAnswerSections;
  'eads.refine': EadsRefineSections;
  'proposal.interview_question': ProposalInterviewQuestionSections;
  'proposal.problem_formulation': ProposalProblemFormulationSections;
  'proposal.objectives': ProposalObjectivesSections;
  'proposal.methodology': ProposalMethodologySections;
  'proposal.data_collection': ProposalDataCollectionSections;
  'proposal.quality_control': ProposalQualityControlSections;
}

/**
 * A task's sections as the stand-in reads them back from the prompt's text: the same names, any
 * of them possibly missing, every value unchecked.
 */
export type ReceivedSections<T extends ModelTaskId> = { [K in keyof ModelTaskSections[T]]?: unknown };

/** Fails to compile when a task id has no sections entry, or a sections entry names no task. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
export const EVERY_TASK_HAS_SECTIONS: Same<ModelTaskId, keyof ModelTaskSections> = true;
