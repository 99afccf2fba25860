/**
 * The research proposal's model tasks and the sections of their prompts (see
 * contracts/model-tasks.ts).
 */
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

/** Every task id this flow's prompts carry (`Task: <id>`); each has a stand-in rule in ./standin.ts. */
export const ModelTask = {
  proposalInterviewQuestion: 'proposal.interview_question',
  proposalProblemFormulation: 'proposal.problem_formulation',
  proposalObjectives: 'proposal.objectives',
  proposalMethodology: 'proposal.methodology',
  proposalDataCollection: 'proposal.data_collection',
  proposalQualityControl: 'proposal.quality_control',
} as const;

declare module '../../contracts/model-tasks' {
  interface ModelTaskSections {
    'proposal.interview_question': ProposalInterviewQuestionSections;
    'proposal.problem_formulation': ProposalProblemFormulationSections;
    'proposal.objectives': ProposalObjectivesSections;
    'proposal.methodology': ProposalMethodologySections;
    'proposal.data_collection': ProposalDataCollectionSections;
    'proposal.quality_control': ProposalQualityControlSections;
  }
}

/**
 * Web searches are tagged with a task id too (logs and metrics), but carry a query, not
 * sections, and only a real model runs them: the stand-in has no rule for it.
 */
export const WebSearchTask = {
  proposalLiteratureSearch: 'proposal.literature_search',
} as const;

export type WebSearchTaskId = (typeof WebSearchTask)[keyof typeof WebSearchTask];
