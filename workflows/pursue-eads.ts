/**
 * `pursueEads`: one EADS pursued to its end. The budget starts at 1.0 and each question costs
 * the EADS's decrement; each answer (a validated update from a person, or the surrogate expert
 * in surrogate mode) becomes a data-structure refinement checked against the EADS's example
 * structure. The pursuit ends when every field is filled, when the answer marks it exhausted,
 * when the budget cannot pay for another question, or on finalize. Long pursuits continue as
 * new with their state.
 */
import {
  ActivityFailure,
  ApplicationFailure,
  ChildWorkflowFailure,
  allHandlersFinished,
  condition,
  continueAsNew,
  patched,
  proxyActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { createEadsActivities } from '../activities/eads';
import { addUsage, capMessage, excerpt, formatZodError, zeroUsage } from '../contracts/common';
import {
  answerInputSchema,
  answerUpdate,
  currentQuestionQuery,
  finalizePursuitSignal,
  finalizePursuitUpdate,
  pursueEadsInput,
  pursuitInstructionsQuery,
  pursuitQuestionsQuery,
  pursuitStatusQuery,
  type AnswerResult,
  type AskedQuestion,
  type FinalizeResult,
  type PursuitResult,
  type PursuitState,
  type PursuitStatus,
  type PursuitStatusName,
} from '../contracts/eads';
import { budgetUsed, canAffordQuestion, computeCompleteness, mergeRefinement } from '../domain/eads-structure';
import { beginFlow } from './lib/flow';
import { FailureType } from '../contracts/failures';

type EadsActivities = ReturnType<typeof createEadsActivities>;

// Reading the library is quick and a broken file will not heal: few attempts.
const { loadPursuitPlan } = proxyActivities<EadsActivities>({
  startToCloseTimeout: '30 seconds',
  retry: {
    initialInterval: '500 milliseconds',
    backoffCoefficient: 2,
    maximumAttempts: 3,
    nonRetryableErrorTypes: [FailureType.EadsLibraryInvalid, FailureType.UnknownEads],
  },
});
// Model calls: patient retries with backoff (429/503 from the model are retried here, not in the client).
const { generateEadsQuestion, answerAsSurrogate, refineEadsStructure } = proxyActivities<EadsActivities>({
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '20 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '20 seconds',
    maximumAttempts: 5,
    nonRetryableErrorTypes: [FailureType.EadsLibraryInvalid, FailureType.UnknownEads],
  },
});

/**
 * A table answer that could not be read (a broken paste) costs no budget: the question is asked
 * again for free, at most MAX_FREE_QUESTIONS times per pursuit so that a pursuit still ends.
 * Behind a patch: older executions charged every question.
 */
export const FREE_UNREAD_TABLE_PATCH = 'eads-unread-table-costs-no-budget';
export const MAX_FREE_QUESTIONS = 2;

/**
 * A model that rejects a request (invalid key, bad request: HTTP 400/401/403/404, non-retryable)
 * will reject the next ones too. The pursuit then fails with that rejection and the interview
 * stops on it (runEadsInterview), instead of failing pursuit after pursuit until maxPursuits.
 * Behind a patch: older executions keep recording a failed pursuit and moving on.
 */
export const MODEL_REJECTED = FailureType.ModelRequestRejected;
export const STOP_ON_MODEL_REJECTION_PATCH = 'eads-stop-on-model-rejection';
export function modelRejection(err: unknown): ApplicationFailure | undefined {
  const cause = err instanceof ActivityFailure || err instanceof ChildWorkflowFailure ? err.cause : undefined;
  return cause instanceof ApplicationFailure && cause.nonRetryable && cause.type === MODEL_REJECTED ? cause : undefined;
}

const failureMessage = (err: unknown): string => {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  return capMessage(cause instanceof Error ? cause.message : String(cause));
};

export async function pursueEads(rawInput: unknown): Promise<PursuitResult> {
  const { input, progress } = beginFlow('pursueEads', pursueEadsInput, rawInput);
  // Validated by the input schema (pursuitResumeSchema): continue-as-new state, or a starter's.
  let state: PursuitState | undefined = input.resume;
  let status: PursuitStatusName = 'working';
  let current: AskedQuestion | null = null;
  let pending: { questionId: string; answer: string; exhausted: boolean } | null = null;
  let finalizeNotes: string | null = state?.finalizeNotes ?? null;
  let error: string | undefined;
  const results = new Map<string, AnswerResult>();

  const fieldNames = () => state?.plan.fields.map((f) => f.name) ?? [];
  const statusView = (): PursuitStatus => {
    const decrement = state?.plan.budgetDecrement ?? 0;
    const asked = state?.questionsAsked ?? 0;
    const completion = computeCompleteness(fieldNames(), state?.dataStructure ?? {});
    const used = budgetUsed(asked - (state?.freeQuestions ?? 0), decrement);
    return {
      eads_id: input.eadsId,
      name: state?.plan.name ?? input.eadsId,
      interviewer_type: state?.plan.interviewer ?? 'process',
      pursuit_no: input.pursuitNo,
      status,
      data_structure: state?.dataStructure ?? {},
      completed_fields: completion.completedFields,
      remaining_fields: completion.remainingFields,
      completeness: state ? completion.completeness : 0,
      budget_used: used,
      budget_remaining: Math.round((1 - used) * 1e6) / 1e6,
      budget_decrement: decrement,
      questions_asked: asked,
      current_question: current,
      waiting_for_answer: current !== null && input.mode === 'human' && pending === null,
    };
  };
  const finalizeView = (): FinalizeResult => {
    const view = statusView();
    return {
      success: status !== 'failed' && status !== 'working',
      data_structure: view.data_structure,
      validation_results: {
        complete: view.remaining_fields.length === 0,
        completeness: view.completeness,
        missing_fields: view.remaining_fields,
        status,
        notes: error ?? finalizeNotes ?? '',
      },
    };
  };

  const stopOnModelRejection = (err: unknown) => {
    if (!modelRejection(err) || !patched(STOP_ON_MODEL_REJECTION_PATCH)) return;
    progress.finish('failed', error ?? failureMessage(err));
    throw ApplicationFailure.create({
      type: MODEL_REJECTED,
      nonRetryable: true,
      message: error ?? failureMessage(err),
    });
  };

  // Handlers first, so queries and updates work from the first workflow task on.
  setHandler(pursuitStatusQuery, statusView);
  setHandler(pursuitInstructionsQuery, () => state?.plan ?? null);
  setHandler(currentQuestionQuery, () => current);
  setHandler(pursuitQuestionsQuery, () => state?.questions ?? []);
  // An answer names the question it answers. A repeat of an answer already taken (a client
  // retrying after a lost reply) gets the first reply again: it never answers a later question.
  const answeredWith = (questionId: string): string | undefined =>
    pending?.questionId === questionId
      ? pending.answer
      : state?.questions.find((q) => q.id === questionId && q.answer !== '')?.answer;
  setHandler(
    answerUpdate,
    async (raw) => {
      const answer = answerInputSchema.parse(raw);
      const repeat = results.has(answer.questionId) || pending?.questionId === answer.questionId;
      if (!repeat)
        pending = { questionId: answer.questionId, answer: answer.answer, exhausted: answer.exhausted ?? false };
      await condition(() => results.has(answer.questionId) || status !== 'working');
      const result = results.get(answer.questionId);
      if (!result)
        throw ApplicationFailure.create({
          message: `the pursuit ended (${status}) before the answer was processed`,
          type: FailureType.PursuitEnded,
          nonRetryable: true,
        });
      return result;
    },
    {
      // Synchronous, so a rejected answer never reaches history.
      validator: (raw) => {
        const parsed = answerInputSchema.safeParse(raw);
        if (!parsed.success) throw new Error(`invalid answer: ${formatZodError(parsed.error)}`);
        const { questionId, answer } = parsed.data;
        const earlier = answeredWith(questionId);
        // The same answer again, while its reply can still be given (this run): the same reply.
        if (earlier === answer && (results.has(questionId) || pending?.questionId === questionId)) return;
        if (status !== 'working') throw new Error(`the pursuit of ${input.eadsId} has ended (${status})`);
        if (input.mode === 'surrogate')
          throw new Error('this pursuit is answered by the surrogate expert, not by updates');
        if (earlier !== undefined)
          throw new Error(
            `question ${excerpt(questionId)} was already answered${earlier === answer ? '' : ' with a different answer'}`,
          );
        if (!current) throw new Error('no question is waiting for an answer yet; ask for the current question first');
        if (questionId !== current.id)
          throw new Error(`question ${excerpt(questionId)} is not the current question ("${current.id}")`);
        if (pending) throw new Error(`an answer to ${current.id} is already being processed`);
      },
    },
  );
  setHandler(
    finalizePursuitUpdate,
    async (arg) => {
      finalizeNotes ??= arg?.notes ?? 'finalized on request';
      await condition(() => status !== 'working');
      return finalizeView();
    },
    {
      validator: (arg) => {
        if (status !== 'working') throw new Error(`the pursuit of ${input.eadsId} has already ended (${status})`);
        if (arg !== undefined && (typeof arg !== 'object' || arg === null || Array.isArray(arg)))
          throw new Error('the argument must be an object: { notes?: string }');
        if (arg?.notes !== undefined && (typeof arg.notes !== 'string' || arg.notes.length > 4000))
          throw new Error('notes must be a string of at most 4000 characters');
      },
    },
  );
  setHandler(finalizePursuitSignal, (arg) => {
    // Signals cannot be refused: keep only a string note (anyone can signal a workflow).
    finalizeNotes ??= typeof arg?.notes === 'string' ? arg.notes.slice(0, 4000) : 'finalized by the interview';
  });

  if (!state) {
    progress.stage('load EADS', input.eadsId);
    const plan = await loadPursuitPlan(input.eadsId);
    state = {
      version: 1,
      plan,
      dataStructure: { 'EADS-id': plan.id },
      questions: [],
      questionsAsked: 0,
      exhausted: false,
      usage: zeroUsage(),
      runs: 1,
      finalizeNotes: null,
    };
  }
  const s = state;
  const decrement = s.plan.budgetDecrement;
  const maxQuestions = Math.floor(1 / decrement + 1e-9);
  progress.setTotal(maxQuestions);
  const asked = () =>
    s.questions.map((q) => ({
      id: q.id,
      targets: q.targets,
      filled: q.filled,
      question: q.question,
      ...(q.charged === false ? { charged: false } : {}),
    }));
  const charged = () => s.questionsAsked - (s.freeQuestions ?? 0);
  let questionsThisRun = 0;

  for (;;) {
    const completion = computeCompleteness(fieldNames(), s.dataStructure);
    if (finalizeNotes !== null) {
      status = 'finalized';
      break;
    }
    if (completion.completeness >= 1) {
      status = 'complete';
      break;
    }
    if (s.exhausted) {
      status = 'exhausted';
      break;
    }
    if (!canAffordQuestion(charged(), decrement)) {
      status = 'budget-spent';
      break;
    }
    if (questionsThisRun >= input.questionsPerRun || workflowInfo().continueAsNewSuggested) {
      // Between questions no answer is pending; let any finished update handler return first.
      await condition(allHandlersFinished);
      return continueAsNew<typeof pursueEads>({ ...input, resume: { ...s, runs: s.runs + 1, finalizeNotes } });
    }

    progress.stage('generate question', `${completion.remainingFields.length} field(s) open`);
    let draft;
    try {
      const reply = await generateEadsQuestion({
        eadsId: s.plan.id,
        interviewer: s.plan.interviewer,
        dataStructure: s.dataStructure,
        asked: asked(),
        context: input.context,
      });
      s.usage = addUsage(s.usage, reply.usage);
      progress.tokens(reply.usage);
      draft = reply.question;
    } catch (err) {
      status = 'failed';
      error = `could not generate a question: ${failureMessage(err)}`;
      stopOnModelRejection(err);
      break;
    }
    // The question is charged when asked, to the EADS actually pursued.
    s.questionsAsked++;
    questionsThisRun++;
    const question: AskedQuestion = {
      ...draft,
      id: `q${s.questionsAsked}`,
      eads_id: s.plan.id,
      budget_cost: decrement,
    };
    current = question;

    let answerText: string;
    let answerSaysExhausted = false;
    if (input.mode === 'surrogate') {
      progress.stage('surrogate answers', question.id);
      try {
        const reply = await answerAsSurrogate({ fixtureId: input.fixture!, eadsId: s.plan.id, question });
        s.usage = addUsage(s.usage, reply.usage);
        progress.tokens(reply.usage);
        answerText = reply.answer;
      } catch (err) {
        status = 'failed';
        error = `the surrogate expert could not answer: ${failureMessage(err)}`;
        stopOnModelRejection(err);
        break;
      }
    } else {
      progress.waiting(`waiting for the answer to ${question.id}: ${question.question.slice(0, 80)}`);
      await condition(() => pending !== null || finalizeNotes !== null);
      if (!pending) {
        s.questions.push({
          id: question.id,
          question: question.question,
          question_type: question.question_type,
          targets: question.targets,
          answer: '',
          filled: [],
          commit_notes: 'not answered: the pursuit was finalized',
        });
        current = null;
        continue;
      }
      const received: { answer: string; exhausted: boolean } = pending;
      answerText = received.answer;
      answerSaysExhausted = received.exhausted;
    }

    progress.stage('refine data structure', question.id);
    let update: Record<string, unknown> = {};
    let notes: string;
    let exhausted = answerSaysExhausted;
    let free = false;
    try {
      const reply = await refineEadsStructure({
        eadsId: s.plan.id,
        question,
        answer: answerText,
        dataStructure: s.dataStructure,
        asked: asked(),
        context: input.context,
      });
      s.usage = addUsage(s.usage, reply.usage);
      progress.tokens(reply.usage);
      update = reply.update;
      notes = reply.commitNotes;
      exhausted = exhausted || reply.exhausted;
      if (reply.unreadTable && (s.freeQuestions ?? 0) < MAX_FREE_QUESTIONS && patched(FREE_UNREAD_TABLE_PATCH)) {
        s.freeQuestions = (s.freeQuestions ?? 0) + 1;
        free = true;
        notes = `${notes} The table could not be read, so this question is not charged to the budget.`.trim();
      }
    } catch (err) {
      // The answer is kept; the next question can ask again.
      notes = `the answer could not be turned into a refinement: ${failureMessage(err)}`;
    }
    s.dataStructure = mergeRefinement(s.dataStructure, update);
    s.exhausted = exhausted;
    const filled = Object.keys(update);
    s.questions.push({
      id: question.id,
      question: question.question,
      question_type: question.question_type,
      targets: question.targets,
      answer: answerText,
      filled,
      commit_notes: notes,
      ...(free ? { charged: false } : {}),
    });
    const after = computeCompleteness(fieldNames(), s.dataStructure);
    const ends = after.completeness >= 1 || exhausted || !canAffordQuestion(charged(), decrement);
    results.set(question.id, {
      question_id: question.id,
      data_structure_update: update,
      commit_notes: notes,
      completeness: after.completeness,
      next_action: ends ? 'complete' : filled.length ? 'continue' : 'needs_clarification',
    });
    progress.advance(1, `${question.id}: ${notes}`);
    pending = null;
    current = null;
  }

  current = null;
  const final = computeCompleteness(fieldNames(), s.dataStructure);
  const used = budgetUsed(charged(), decrement);
  progress.finish(
    status === 'failed' ? 'failed' : 'completed',
    `${status}: completeness ${final.completeness}, budget used ${used}`,
  );
  // Let pending update handlers (answer, finalize) return before the workflow closes.
  await condition(allHandlersFinished);
  return {
    eadsId: s.plan.id,
    name: s.plan.name,
    interviewer: s.plan.interviewer,
    pursuitNo: input.pursuitNo,
    status: status as PursuitResult['status'],
    dataStructure: s.dataStructure,
    completedFields: final.completedFields,
    remainingFields: final.remainingFields,
    completeness: final.completeness,
    budgetUsed: used,
    budgetRemaining: Math.round((1 - used) * 1e6) / 1e6,
    budgetDecrement: decrement,
    questions: s.questions,
    notes: error ?? finalizeNotes ?? `${status} after ${s.questionsAsked} question(s)`,
    ...(error ? { error } : {}),
    usage: s.usage,
    runs: s.runs,
  };
}
