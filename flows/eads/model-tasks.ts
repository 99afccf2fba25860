/**
 * The EADS interview's model tasks and the sections of their prompts (see contracts/model-tasks.ts).
 */
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
  /** The choices in words ("Flow shop: every job …"), when the question offers them. */
  choice_labels?: string[];
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

/** Every task id this flow's prompts carry (`Task: <id>`); each has a stand-in rule in ./standin.ts. */
export const ModelTask = {
  eadsOrchestrate: 'eads.orchestrate',
  eadsQuestion: 'eads.question',
  eadsSurrogateAnswer: 'eads.surrogate_answer',
  eadsRefine: 'eads.refine',
} as const;

declare module '../../contracts/model-tasks' {
  interface ModelTaskSections {
    'eads.orchestrate': EadsOrchestrateSections;
    'eads.question': EadsQuestionSections;
    'eads.surrogate_answer': EadsSurrogateAnswerSections;
    'eads.refine': EadsRefineSections;
  }
}
