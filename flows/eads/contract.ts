/**
 * EADS interviews: the EADS file format, pursuit state, questions and answers, the
 * aggregated SCR, the messages (queries, updates, signals) of `runEadsInterview` and its child
 * `pursueEads`, and the flow definition.
 *
 * Imported by workflow code: deterministic, no I/O.
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import { z } from 'zod';
import { oneLine, slugify, tokenUsageSchema, type FlowDefinition, type TokenUsage } from '../../contracts/common';
import { describeSchedule, scheduleFromScrOutput, scheduleOptionsSchema } from '../schedule/contract';
import {
  annotationProblems,
  EADS_ID_KEY,
  EADS_TOPICS,
  type AggregatedScr,
  type EadsField,
  type Facts,
  type FieldInstruction,
  type JsonObject,
} from '../../domain/eads-structure';

// ---------------------------------------------------------------------------------------------
// The EADS file (upstream's EADS-INSTRUCTIONS message, plus this project's optional keys).

export const eadsIdSchema = z
  .string()
  .max(120, 'an EADS-id has at most 120 characters')
  .regex(
    /^(process|data|resources|optimality)\/[a-z0-9][a-z0-9-]*$/,
    'expected "<process|data|resources|optimality>/<kebab-name>"',
  );

export const interviewerTypeSchema = z.enum(EADS_TOPICS);
export type InterviewerType = z.infer<typeof interviewerTypeSchema>;

export const appliesWhenSchema = z
  .object({
    eads: eadsIdSchema,
    field: z.string().min(1),
    'one-of': z.array(z.union([z.string(), z.number(), z.boolean()])).min(1),
  })
  .strict();

/** Upstream's default cost of one question when a file gives none. */
export const DEFAULT_BUDGET_DECREMENT = 0.05;

export const eadsFileSchema = z
  .object({
    'message-type': z.literal('EADS-INSTRUCTIONS'),
    'interview-objective': z.string().trim().min(1, 'must not be empty'),
    /** Upstream leaves it out in some files: the EADS-id's topic then names the interviewer. */
    'interviewer-agent': interviewerTypeSchema.optional(),
    'budget-decrement': z.number().positive().max(1).optional(),
    /** This project's additions (upstream files load without them). */
    name: z.string().trim().min(1).optional(),
    prerequisites: z.array(eadsIdSchema).optional(),
    'applies-when': appliesWhenSchema.optional(),
    EADS: z.record(z.string(), z.unknown()).superRefine((eads, ctx) => {
      const id = eadsIdSchema.safeParse(eads[EADS_ID_KEY]);
      if (!id.success)
        ctx.addIssue({
          code: 'custom',
          path: [EADS_ID_KEY],
          message: id.error.issues[0]?.message ?? 'invalid EADS-id',
        });
      const fields = Object.keys(eads).filter((k) => k !== EADS_ID_KEY && k !== 'exhausted?');
      if (fields.length === 0) ctx.addIssue({ code: 'custom', path: [], message: 'the EADS has no fields to fill' });
      for (const problem of annotationProblems(eads, '')) {
        ctx.addIssue({ code: 'custom', path: problem.path ? [problem.path] : [], message: problem.message });
      }
    }),
  })
  .strict();
export type EadsFile = z.infer<typeof eadsFileSchema>;

/** One EADS after loading: validated, annotations stripped, fields described. */
export interface LoadedEads {
  id: string;
  name: string;
  file: string;
  topic: InterviewerType;
  interviewer: InterviewerType;
  objective: string;
  budgetDecrement: number;
  prerequisites: string[];
  appliesWhen?: z.infer<typeof appliesWhenSchema>;
  /** (a) the example structure, annotations removed. */
  example: JsonObject;
  /** (b) the instructions: the comments, by path. */
  instructions: FieldInstruction[];
  fields: EadsField[];
}

/** What the interview workflow keeps of the library: small, so it can travel in history. */
export const catalogEntrySchema = z.object({
  id: z.string(),
  name: z.string(),
  interviewer: interviewerTypeSchema,
  objective: z.string(),
  prerequisites: z.array(z.string()),
  appliesWhen: appliesWhenSchema.optional(),
  budgetDecrement: z.number(),
  fields: z.array(z.string()),
});
export type EadsCatalogEntry = z.infer<typeof catalogEntrySchema>;

/** What a pursuit needs of its EADS (loaded once per pursuit run by an activity). */
export interface PursuitPlan {
  id: string;
  name: string;
  interviewer: InterviewerType;
  objective: string;
  budgetDecrement: number;
  fields: EadsField[];
  instructions: FieldInstruction[];
  example: JsonObject;
}

// ---------------------------------------------------------------------------------------------
// Questions, answers, pursuit state.

export const questionTypeSchema = z.enum(['text', 'table', 'choice']);

/** What the question model call returns. */
export const questionDraftSchema = z.object({
  question: z.string().trim().min(1).max(2000),
  question_type: questionTypeSchema,
  table_template: z.string().max(4000).optional(),
  choices: z.array(z.string().min(1)).max(30).optional(),
  /**
   * What each choice means, for people: "Flow shop: every job … the same order", in the order of
   * `choices`. Filled from the EADS by the question step (never left to the model), so consoles
   * show names and definitions rather than keys.
   */
  choice_labels: z.array(z.string().min(1).max(400)).max(30).optional(),
  help_text: z.string().max(1500),
  /** The EADS fields the question aims to fill. */
  targets: z.array(z.string()).min(1).max(20),
});
export type QuestionDraft = z.infer<typeof questionDraftSchema>;

export interface AskedQuestion extends QuestionDraft {
  /** `q1`, `q2`... unique within a pursuit. */
  id: string;
  eads_id: string;
  budget_cost: number;
}

export interface QuestionAnswer {
  id: string;
  question: string;
  question_type: z.infer<typeof questionTypeSchema>;
  targets: string[];
  answer: string;
  /** Fields the answer filled. */
  filled: string[];
  commit_notes: string;
  /** False when the question was not charged to the budget (its table answer could not be read). */
  charged?: boolean;
}

export type NextAction = 'continue' | 'complete' | 'needs_clarification';

/** The reply to `process_eads_answer`. */
export interface AnswerResult {
  question_id: string;
  data_structure_update: Record<string, unknown>;
  commit_notes: string;
  completeness: number;
  next_action: NextAction;
  /**
   * What the person sees next: the pursuit's next question, its end, or `continuing` (ask
   * `nextQuestion` again). Given with the reply so a client needs no second call; absent in runs
   * recorded before it was.
   */
  next?: PursuitStep;
}

export const answerInputSchema = z
  .object({
    /** The question this answers (`q1`, `q2`...): an answer is never applied to another question. */
    questionId: z.string().min(1).max(64),
    answer: z.string().trim().min(1, 'the answer is empty').max(20_000, 'the answer is longer than 20,000 characters'),
    /** The interviewee says there is nothing more to tell on this EADS. */
    exhausted: z.boolean().optional(),
  })
  .strict();
export type AnswerInput = z.input<typeof answerInputSchema>;

/** `abandoned`: nobody answered a question within the input's `idleTimeoutMinutes`. */
export const PURSUIT_STATUSES = [
  'working',
  'complete',
  'exhausted',
  'budget-spent',
  'finalized',
  'failed',
  'abandoned',
] as const;
export type PursuitStatusName = (typeof PURSUIT_STATUSES)[number];

/** The reply to `get_eads_status` (plus context). */
export interface PursuitStatus {
  eads_id: string;
  name: string;
  interviewer_type: InterviewerType;
  pursuit_no: number;
  status: PursuitStatusName;
  data_structure: JsonObject;
  completed_fields: string[];
  remaining_fields: string[];
  completeness: number;
  budget_used: number;
  budget_remaining: number;
  budget_decrement: number;
  questions_asked: number;
  current_question: AskedQuestion | null;
  waiting_for_answer: boolean;
}

export interface FinalizeResult {
  success: boolean;
  data_structure: JsonObject;
  validation_results: {
    complete: boolean;
    completeness: number;
    missing_fields: string[];
    status: PursuitStatusName;
    notes: string;
  };
}

/** The child's result: one pursued EADS. */
export interface PursuitResult {
  eadsId: string;
  name: string;
  interviewer: InterviewerType;
  pursuitNo: number;
  status: Exclude<PursuitStatusName, 'working'>;
  dataStructure: JsonObject;
  completedFields: string[];
  remainingFields: string[];
  completeness: number;
  budgetUsed: number;
  budgetRemaining: number;
  budgetDecrement: number;
  questions: QuestionAnswer[];
  notes: string;
  error?: string;
  usage: TokenUsage;
  runs: number;
}

export const pursuitContextSchema = z
  .object({
    product: z.string().optional(),
    problemType: z.string().optional(),
    schedulingChallenges: z.array(z.string()).default([]),
  })
  .strict();
export type PursuitContext = z.infer<typeof pursuitContextSchema>;

export const interviewModeSchema = z.enum(['human', 'surrogate']);
export const fixtureIdSchema = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'expected a fixture id such as "brewery-flow-shop"');
/**
 * How long a person may leave a question (or, guided, the choice of the next EADS) unanswered
 * before the interview ends as `abandoned`; each answer starts the clock again. As the research
 * proposal's interview: default 7 days, at most 90.
 */
export const idleTimeoutMinutesSchema = z
  .number()
  .int()
  .min(1)
  .max(60 * 24 * 90)
  .default(60 * 24 * 7);

export const projectIdSchema = z
  .string()
  .regex(
    /^[a-z0-9][a-z0-9-]{0,47}$/,
    'expected lower-case letters, digits and dashes (at most 48), e.g. "kettle-crown"',
  );

// ---------------------------------------------------------------------------------------------
// Continue-as-new state. It travels in the public `resume` field of the input (continue-as-new
// can only pass input), so anyone can send one: it is validated like the rest of the input, and
// a bad one fails the start at once instead of failing every workflow task of the run.

const jsonObjectSchema = z.record(z.string(), z.json());
const fieldKindSchema = z.enum(['text', 'number', 'boolean', 'list', 'table', 'quantity', 'object']);
const eadsFieldSchema = z.object({
  name: z.string(),
  kind: fieldKindSchema,
  comment: z.string(),
  columns: z.array(z.object({ name: z.string(), kind: fieldKindSchema })).optional(),
  choices: z.array(z.object({ key: z.string(), definition: z.string() })).optional(),
  multiple: z.boolean().optional(),
  derived: z.boolean(),
  suggestedQuestion: z.string().optional(),
});
const pursuitPlanSchema = z.object({
  id: eadsIdSchema,
  name: z.string(),
  interviewer: interviewerTypeSchema,
  objective: z.string(),
  budgetDecrement: z.number().positive().max(1),
  fields: z.array(eadsFieldSchema),
  instructions: z.array(z.object({ path: z.string(), comment: z.string() })),
  example: jsonObjectSchema,
});
const questionAnswerSchema = z.object({
  id: z.string(),
  question: z.string(),
  question_type: questionTypeSchema,
  targets: z.array(z.string()),
  answer: z.string(),
  filled: z.array(z.string()),
  commit_notes: z.string(),
  charged: z.boolean().optional(),
});

/** `pursueEads`'s continue-as-new state: the pursuit so far. */
export const pursuitResumeSchema = z.object({
  version: z.literal(1),
  plan: pursuitPlanSchema,
  dataStructure: jsonObjectSchema,
  questions: z.array(questionAnswerSchema),
  questionsAsked: z.number().int().nonnegative(),
  exhausted: z.boolean(),
  usage: tokenUsageSchema,
  runs: z.number().int().min(1),
  finalizeNotes: z.string().nullable(),
  /** Questions not charged to the budget: table answers that could not be read (absent before that patch). */
  freeQuestions: z.number().int().nonnegative().optional(),
});
export type PursuitState = z.infer<typeof pursuitResumeSchema>;

export const pursueEadsInput = z
  .object({
    projectId: projectIdSchema,
    eadsId: eadsIdSchema,
    pursuitNo: z.number().int().min(1),
    mode: interviewModeSchema,
    fixture: fixtureIdSchema.optional(),
    /** Continue-as-new after this many questions in one run (bounded history). */
    questionsPerRun: z.number().int().min(1).max(200).default(25),
    /** A question left unanswered this long ends the pursuit as `abandoned` (human mode). */
    idleTimeoutMinutes: idleTimeoutMinutesSchema,
    context: pursuitContextSchema.default({ schedulingChallenges: [] }),
    /** Carried by continue-as-new: the pursuit so far. */
    resume: pursuitResumeSchema.optional(),
  })
  .strict();
export type PursueEadsInput = z.input<typeof pursueEadsInput>;

// ---------------------------------------------------------------------------------------------
// The interview.

export const recommendationSchema = z.object({
  eads_id: z.string().nullable(),
  rationale: z.string(),
  interviewer_type: z.string().nullable(),
  priority: z.number(),
  source: z.enum(['model', 'fallback', 'none']),
  exhausted: z.boolean(),
  candidates: z.array(z.string()),
});
export type Recommendation = z.infer<typeof recommendationSchema>;

/** One pursuit as the interview records it. */
export interface PursuitRecord extends PursuitResult {
  childWorkflowId: string;
  rationale: string;
  source: 'model' | 'fallback' | 'requested';
}

/** What the orchestrator activity (`chooseNextEads`) reads to choose the next EADS. */
export interface OrchestratorRequest {
  /** EADS already pursued (not failed): they and their dependants' prerequisites count as done. */
  pursued: string[];
  facts: Facts;
  conversation: {
    product: string | null;
    problem_type: string | null;
    scheduling_challenges: string[];
    completed: Array<{ eads_id: string; status: PursuitRecord['status']; completeness: number }>;
  };
}

export interface InterviewState {
  version: 1;
  pursuits: PursuitRecord[];
  usage: TokenUsage;
  /** Runs of this workflow id so far (continue-as-new increments it). */
  runs: number;
  /** EADS ids the orchestrator picked, with where the pick came from, in order. */
  orchestratorLog: Array<{ eads_id: string | null; source: Recommendation['source']; rationale: string }>;
  /** The orchestrator's pick made just before continue-as-new, pursued by the next run. */
  pendingRecommendation?: Recommendation;
}

const pursuitRecordSchema = z.object({
  eadsId: z.string(),
  name: z.string(),
  interviewer: interviewerTypeSchema,
  pursuitNo: z.number().int().min(1),
  status: z.enum(PURSUIT_STATUSES).exclude(['working']),
  dataStructure: jsonObjectSchema,
  completedFields: z.array(z.string()),
  remainingFields: z.array(z.string()),
  completeness: z.number(),
  budgetUsed: z.number(),
  budgetRemaining: z.number(),
  budgetDecrement: z.number(),
  questions: z.array(questionAnswerSchema),
  notes: z.string(),
  error: z.string().optional(),
  usage: tokenUsageSchema,
  runs: z.number().int().min(1),
  childWorkflowId: z.string(),
  rationale: z.string(),
  source: z.enum(['model', 'fallback', 'requested']),
});

/** `runEadsInterview`'s continue-as-new state: the interview so far (see InterviewState). */
export const interviewResumeSchema = z.object({
  version: z.literal(1),
  pursuits: z.array(pursuitRecordSchema).max(50),
  usage: tokenUsageSchema,
  runs: z.number().int().min(1),
  orchestratorLog: z.array(
    z.object({ eads_id: z.string().nullable(), source: recommendationSchema.shape.source, rationale: z.string() }),
  ),
  pendingRecommendation: recommendationSchema
    .refine((r) => r.exhausted || r.eads_id !== null, {
      message: 'eads_id is required unless exhausted',
      path: ['eads_id'],
    })
    .optional(),
});

export const runEadsInterviewInput = z
  .object({
    projectId: projectIdSchema.describe('The project (one interview per project)'),
    projectName: z.string().trim().min(1).max(200).optional().describe('The firm or project, as people call it'),
    /** human: answers arrive by update; surrogate: the model plays the firm in `fixture`. */
    mode: interviewModeSchema
      .default('human')
      .describe('human: you answer the questions; surrogate: the model answers as the firm in the fixture'),
    fixture: fixtureIdSchema
      .optional()
      .describe('The firm a surrogate interview plays (needed when the mode is surrogate)'),
    /** auto: the orchestrator's pick is pursued at once; guided: a `startPursuit` update chooses. */
    orchestration: z
      .enum(['auto', 'guided'])
      .default('auto')
      .describe('auto: the next topic starts at once; guided: you choose each next topic'),
    maxPursuits: z
      .number()
      .int()
      .min(1)
      .max(50)
      .default(12)
      .describe('At most this many topics in the whole interview'),
    /** Continue-as-new after this many pursuits in one run (bounded history). */
    pursuitsPerRun: z
      .number()
      .int()
      .min(1)
      .max(100)
      .default(6)
      .describe('Start a fresh workflow run after this many topics (keeps the history short)'),
    /** Passed to each pursuit: continue-as-new after this many questions in one run. */
    questionsPerRun: z
      .number()
      .int()
      .min(1)
      .max(200)
      .default(25)
      .describe("Start a fresh run of a topic's workflow after this many questions"),
    /** No answer (or, guided, no startPursuit) for this long ends the interview as `abandoned`, with its `resume`. */
    idleTimeoutMinutes: idleTimeoutMinutesSchema.describe(
      'End the interview as abandoned when nobody answers for this many minutes (it can be resumed)',
    ),
    /** At the end, solve a schedule from the SCR (scheduleFromScr as a child): true, or orders and options. */
    schedule: z
      .union([z.boolean(), scheduleOptionsSchema])
      .optional()
      .describe('At the end, solve a schedule from what the interview found'),
    /** Carried by continue-as-new: the interview so far. */
    resume: interviewResumeSchema.optional(),
  })
  .strict()
  .superRefine((input, ctx) => {
    if (input.mode === 'surrogate' && !input.fixture)
      ctx.addIssue({ code: 'custom', path: ['fixture'], message: 'required when mode is "surrogate"' });
  });
export type RunEadsInterviewInput = z.input<typeof runEadsInterviewInput>;

const pursuitSummarySchema = z.object({
  pursuitNo: z.number(),
  eadsId: z.string(),
  status: z.string(),
  completeness: z.number(),
  questions: z.number(),
  budgetUsed: z.number(),
  source: z.string(),
  /** The interviewer type the orchestrator's pick put to work (process, data, resources, optimality). */
  interviewer: z.string().optional(),
  childWorkflowId: z.string(),
  /** Runs of the pursuit's workflow (continue-as-new adds one). */
  runs: z.number().int(),
});

export const runEadsInterviewOutput = z.object({
  projectId: z.string(),
  status: z.enum(['exhausted', 'finished', 'max-pursuits', 'abandoned']),
  product: z.string().nullable(),
  problemType: z.string().nullable(),
  schedulingChallenges: z.array(z.string()),
  pursuits: z.array(pursuitSummarySchema),
  scr: z.object({
    scr_by_eads: z.record(z.string(), z.record(z.string(), z.unknown())),
    merged_scr: z.record(z.string(), z.unknown()),
    conflicts: z.array(
      z.object({
        kind: z.string(),
        field: z.string(),
        eads: z.array(z.string()),
        detail: z.string(),
        values: z.array(z.unknown()).optional(),
      }),
    ),
  }),
  questionsAsked: z.number().int(),
  usage: tokenUsageSchema,
  runs: z.number().int(),
  /**
   * Abandoned only: the interview so far. Start the project's interview again with this as its
   * `resume` (and the same other input) to go on where it stopped: the EADS left unanswered is
   * pursued again first.
   */
  resume: interviewResumeSchema.optional(),
  /** With input `schedule`: the schedule solved from the SCR, or why there is none. */
  schedule: z
    .union([scheduleFromScrOutput, z.object({ skipped: z.string() }), z.object({ error: z.string() })])
    .optional(),
});
export type RunEadsInterviewOutput = z.infer<typeof runEadsInterviewOutput>;

/** The interview's state as the `eadsInterview` query returns it (no data structures: see the SCR). */
export interface InterviewView {
  projectId: string;
  mode: 'human' | 'surrogate';
  orchestration: 'auto' | 'guided';
  status: 'starting' | 'orchestrating' | 'awaiting-start' | 'pursuing' | 'finished';
  current: {
    eadsId: string;
    pursuitNo: number;
    childWorkflowId: string;
    rationale: string;
    interviewer: string;
  } | null;
  nextEads: Recommendation | null;
  pursuits: Array<z.infer<typeof pursuitSummarySchema>>;
  product: string | null;
  problemType: string | null;
  schedulingChallenges: string[];
  usage: TokenUsage;
  runs: number;
}

/** The reply to `get_conversation_history`. */
export interface ConversationHistory {
  scheduling_challenges: string[];
  activities: Array<{
    pursuing_eads: string;
    pursuit_no: number;
    status: string;
    questions_answers: Array<{ question: string; answer: string }>;
    summary_ds: JsonObject;
  }>;
  /** With input `schedule`, once solved: the MiniZinc model and data, and the schedule. */
  minizinc?: { model: string; data: string; files: { model: string; data: string } | null } | null;
  minizinc_results?: z.infer<typeof scheduleFromScrOutput>['minizinc_results'] | null;
}

export interface StartPursuitResult {
  eads_id: string;
  pursuit_no: number;
  child_workflow_id: string;
  budget: number;
  budget_decrement: number;
}

// ---------------------------------------------------------------------------------------------
// Messages. Read-only calls are queries (nothing in history); changes are validated updates.

export const eadsInterviewQuery = defineQuery<InterviewView>('eadsInterview');
export const nextEadsQuery = defineQuery<Recommendation | null>('nextEads');
export const conversationHistoryQuery = defineQuery<ConversationHistory>('conversationHistory');
export const aggregatedScrQuery = defineQuery<AggregatedScr, [string[]?]>('aggregatedScr');
export const eadsRecordQuery = defineQuery<PursuitRecord | null, [string]>('eadsRecord');
export const eadsLibraryQuery = defineQuery<EadsCatalogEntry[]>('eadsLibrary');
export const startPursuitUpdate = defineUpdate<StartPursuitResult, [{ eadsId: string }]>('startPursuit');
export const finishInterviewUpdate = defineUpdate<{ status: string; pursuits: number }, [{ reason?: string }]>(
  'finishInterview',
);

/**
 * What an interview client does next, as the `nextStep` update replies once the interview has it
 * (the early-return pattern: the update waits in the workflow, the client never polls):
 * - `pursuing`: a pursuit is running; ask its workflow (`pursuit.childWorkflowId`) for the
 *   question with `nextQuestion`;
 * - `awaiting-start` (guided): the orchestrator recommends `recommendation`; start it (or
 *   another EADS) with `startPursuit`;
 * - `ended`: the interview is over, with its result;
 * - `continuing`: this run is continuing as new; send `nextStep` again (it reaches the new run).
 */
export type InterviewStep =
  | { kind: 'pursuing'; view: InterviewView; pursuit: NonNullable<InterviewView['current']> }
  | { kind: 'awaiting-start'; view: InterviewView; recommendation: Recommendation }
  | { kind: 'ended'; view: InterviewView; result: RunEadsInterviewOutput }
  | { kind: 'continuing' };

/** `nextStep`'s argument: `afterPursuit` names a pursuit the client saw end, so it is not the answer again. */
export interface NextStepInput {
  afterPursuit?: string;
}

/** What a pursuit's client does next, as the `nextQuestion` update replies once the pursuit has it. */
export type PursuitStep =
  | { kind: 'question'; question: AskedQuestion; status: PursuitStatus }
  | { kind: 'ended'; status: PursuitStatus }
  | { kind: 'continuing' };

/** `nextQuestion`'s argument: `after` names the question the client has dealt with (answered or dropped). */
export interface NextQuestionInput {
  after?: string;
}

/** Waits (in the workflow) until the interview has a pursuit, a recommendation to start, or has ended. */
export const nextStepUpdate = defineUpdate<InterviewStep, [NextStepInput]>('nextStep');

export const pursuitStatusQuery = defineQuery<PursuitStatus>('pursuitStatus');
export const pursuitInstructionsQuery = defineQuery<PursuitPlan | null>('pursuitInstructions');
export const currentQuestionQuery = defineQuery<AskedQuestion | null>('currentQuestion');
export const pursuitQuestionsQuery = defineQuery<QuestionAnswer[]>('pursuitQuestions');
export const answerUpdate = defineUpdate<AnswerResult, [AnswerInput]>('answer');
export const finalizePursuitUpdate = defineUpdate<FinalizeResult, [{ notes?: string }]>('finalize');
/** Waits (in the workflow) until the pursuit asks a question the client has not dealt with, or ends. */
export const nextQuestionUpdate = defineUpdate<PursuitStep, [NextQuestionInput]>('nextQuestion');
/** The interview asks its running pursuit to stop (workflows cannot send updates to each other). */
export const finalizePursuitSignal = defineSignal<[{ notes?: string }]>('finalizePursuit');

// ---------------------------------------------------------------------------------------------
// Ids and the flow definition.

/** The interview's workflow id: one per project, so any client can find it again. */
export function eadsInterviewWorkflowId(projectId: string): string {
  return `eads-interview-${projectId}`;
}

/** The child's id: the project's interview id, the pursuit number and the EADS. */
export function pursuitWorkflowId(interviewWorkflowId: string, pursuitNo: number, eadsId: string): string {
  return `${interviewWorkflowId}--${pursuitNo}-${slugify(eadsId.replace('/', '-'), 40)}`;
}

export const runEadsInterviewFlow: FlowDefinition<typeof runEadsInterviewInput, typeof runEadsInterviewOutput> = {
  type: 'runEadsInterview',
  slug: 'eads-interview',
  mcpTool: 'run_eads_interview',
  title: 'EADS interview',
  description:
    'Interviews a firm about its scheduling problem, EADS by EADS (process → data → ' +
    'resources → optimality), within a question budget per EADS; a human answers by ' +
    'update, or a surrogate expert answers from a fixture.',
  tags: ['eads', 'interview', 'scheduling', 'human-in-the-loop'],
  input: runEadsInterviewInput,
  output: runEadsInterviewOutput,
  idKey: (input) => input.projectId,
  // One interview per project: the thin client, the MCP tools and `npm run eads` all reach it by project id.
  workflowId: (input) => eadsInterviewWorkflowId(input.projectId),
  summary: (input) =>
    `EADS interview for ${oneLine(input.projectName ?? input.projectId, 60)} (${input.mode}${input.fixture ? `: ${input.fixture}` : ''}, ${input.orchestration})`,
  describeResult: (out) => [
    `${out.status}: ${out.pursuits.length} EADS pursued, ${out.questionsAsked} question(s), ${out.runs} run(s)`,
    `product: ${out.product ?? '(unknown)'}; problem type: ${out.problemType ?? '(undetermined)'}`,
    `challenges: ${out.schedulingChallenges.join(', ') || '(none)'}`,
    ...out.pursuits.map(
      (p) =>
        `${p.eadsId}: ${p.status}, completeness ${p.completeness}, ${p.questions} q, budget used ${p.budgetUsed} (${p.source})`,
    ),
    `conflicts: ${out.scr.conflicts.length ? out.scr.conflicts.map((c) => c.detail).join('; ') : 'none'}; tokens ${out.usage.totalTokens}`,
    ...(out.schedule ? scheduleLines(out.schedule) : []),
  ],
  examples: [
    {
      projectId: 'demo-brewery',
      projectName: 'Kettle & Crown Brewing',
      mode: 'surrogate',
      fixture: 'brewery-flow-shop',
    },
  ],
};

function scheduleLines(schedule: NonNullable<RunEadsInterviewOutput['schedule']>): string[] {
  if ('skipped' in schedule) return [`schedule: skipped (${schedule.skipped})`];
  if ('error' in schedule) return [`schedule: failed (${schedule.error})`];
  const r = schedule.minizinc_results;
  return [
    `schedule: ${describeSchedule(r)}`,
    ...r.conflicts.map((c) => `schedule conflict: ${c.detail}`),
    ...(schedule.chart ? [`Gantt chart: ${schedule.chart.svg} and ${schedule.chart.png}`] : []),
  ];
}
