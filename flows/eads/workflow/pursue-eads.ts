/**
 * `pursueEads`: one EADS pursued to its end. The budget starts at 1.0 and each question costs
 * the EADS's decrement; each answer (a validated update from a person, or the surrogate expert
 * in surrogate mode) becomes a data-structure refinement checked against the EADS's example
 * structure. The pursuit ends when every field is filled, when the answer marks it exhausted,
 * when the budget cannot pay for another question, or on finalize. Long pursuits continue as
 * new with their state.
 *
 * The state, the handlers and their validators are in `Pursuit` (eads/pursuit.ts).
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
  proxyLocalActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import { HandlerUnfinishedPolicy } from '@temporalio/common';
import type { createEadsActivities } from '../activities';
import { capMessage } from '../../../contracts/common';
import {
  answerUpdate,
  currentQuestionQuery,
  finalizePursuitSignal,
  finalizePursuitUpdate,
  nextQuestionUpdate,
  pursueEadsInput,
  pursuitInstructionsQuery,
  pursuitQuestionsQuery,
  pursuitStatusQuery,
  type AskedQuestion,
  type PursuitResult,
} from '../contract';
import { FailureType } from '../../../contracts/failures';
import { asLocal, MODEL, QUICK_READ, withOptions } from '../../lib/workflow/activity-options';
import { endingAsEveryFlow } from '../../lib/workflow/ending';
import { beginFlow } from '../../lib/workflow/flow';
import type { ProgressTracker } from '../../lib/workflow/progress';
import { MAX_FREE_QUESTIONS, Pursuit, type PendingAnswer, type Refinement } from './pursuit';

export { MAX_FREE_QUESTIONS };

type EadsActivities = ReturnType<typeof createEadsActivities>;

const nonRetryableErrorTypes = [FailureType.EadsLibraryInvalid, FailureType.UnknownEads];
// Reading the library is quick and a broken file will not heal: few attempts.
const READ_OPTIONS = withOptions(QUICK_READ, { retry: { nonRetryableErrorTypes } });
// Model calls: patient retries with backoff (429/503 from the model are retried here, not in the client).
const MODEL_OPTIONS = withOptions(MODEL, { retry: { nonRetryableErrorTypes } });
const modelSteps = (options: typeof MODEL_OPTIONS, asLocalActivities: boolean) => {
  const { generateEadsQuestion, answerAsSurrogate, refineEadsStructure } = asLocalActivities
    ? proxyLocalActivities<EadsActivities>(asLocal(options))
    : proxyActivities<EadsActivities>(options);
  return { generateEadsQuestion, answerAsSurrogate, refineEadsStructure };
};
const remote = {
  loadPursuitPlan: proxyActivities<EadsActivities>(READ_OPTIONS).loadPursuitPlan,
  ...modelSteps(MODEL_OPTIONS, false),
};
const local = {
  loadPursuitPlan: proxyLocalActivities<EadsActivities>(asLocal(READ_OPTIONS)).loadPursuitPlan,
  ...modelSteps(MODEL_OPTIONS, true),
};

/**
 * A person waits on every step between an answer and the next question: reading the answer into
 * the data structure, writing the next question and, at a pursuit's start, loading its plan. As
 * activities each cost two trips through the server (scheduled, then completed, each a workflow
 * task); as local activities they run in the workflow task that received the answer, and the
 * next question is ready when that task ends. Behind a patch: older executions scheduled them as
 * activities, and replay them so.
 */
export const LOCAL_STEPS_PATCH = 'eads-steps-as-local-activities';
const steps = () => (patched(LOCAL_STEPS_PATCH) ? local : remote);

/**
 * The answer's reply carries the next question (or the pursuit's end), ready in the same workflow
 * task (see LOCAL_STEPS_PATCH), so the person's client waits on one update instead of two.
 * Behind a patch: older executions replied before the next question was asked.
 */
export const ANSWER_CARRIES_NEXT_PATCH = 'eads-answer-carries-next-question';

/**
 * A question nobody answers within the input's `idleTimeoutMinutes` ends the pursuit as
 * `abandoned` (and the interview with it). Behind a patch: older executions wait without end.
 */
export const EADS_IDLE_TIMEOUT_PATCH = 'eads-idle-timeout';

/**
 * A table answer that could not be read (a broken paste) costs no budget: the question is asked
 * again for free, at most MAX_FREE_QUESTIONS times per pursuit so that a pursuit still ends.
 * Behind a patch: older executions charged every question.
 */
export const FREE_UNREAD_TABLE_PATCH = 'eads-unread-table-costs-no-budget';

/**
 * An answer to a choice question that names none of the choices ("flow shop" before plain answers
 * were read, "hmm, a bit of both") costs no budget the first time: the next question spells the
 * choices out, and a second miss records the field as undetermined. Behind a patch: older
 * executions charged it.
 */
export const FREE_UNREAD_CHOICE_PATCH = 'eads-unread-choice-costs-no-budget';

/**
 * A model that rejects a request (invalid key, bad request: HTTP 400/401/403/404, non-retryable)
 * will reject the next ones too. The pursuit then fails with that rejection and the interview
 * stops on it (runEadsInterview), instead of failing pursuit after pursuit until maxPursuits.
 * Behind a patch: older executions keep recording a failed pursuit and moving on.
 *
 * The same for a reply the model cannot give at all (a non-retryable ModelOutputInvalid: every
 * reply of two attempts cut at the token limit, see toFailure in flows/lib/activities/support.ts):
 * the next pursuit asks the same model under the same limit. On the local model, the interview otherwise re-pursued the same EADS
 * until maxPursuits (12 pursuits, 33 minutes) without asking a single question. Old histories never
 * hold such a failure (it was always retryable before), so they replay unchanged.
 */
export const MODEL_REJECTED = FailureType.ModelRequestRejected;
export const STOP_ON_MODEL_REJECTION_PATCH = 'eads-stop-on-model-rejection';
const STOPPING_MODEL_FAILURES: ReadonlyArray<string | undefined> = [MODEL_REJECTED, FailureType.ModelOutputInvalid];
export function modelRejection(err: unknown): ApplicationFailure | undefined {
  // A local activity's failure reaches the workflow as the activity's own error, not wrapped.
  const cause =
    err instanceof ActivityFailure || err instanceof ChildWorkflowFailure
      ? err.cause
      : err instanceof ApplicationFailure
        ? err
        : undefined;
  return cause instanceof ApplicationFailure &&
    cause.nonRetryable &&
    STOPPING_MODEL_FAILURES.includes(cause.type ?? undefined)
    ? cause
    : undefined;
}

const failureMessage = (err: unknown): string => {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  return capMessage(cause instanceof Error ? cause.message : String(cause));
};

export async function pursueEads(rawInput: unknown): Promise<PursuitResult> {
  const { input, progress } = beginFlow('pursueEads', pursueEadsInput, rawInput);
  const pursuit = new Pursuit(input);
  // Handlers first, so queries and updates work from the first workflow task on.
  setHandler(pursuitStatusQuery, () => pursuit.statusView());
  setHandler(pursuitInstructionsQuery, () => pursuit.plan());
  setHandler(currentQuestionQuery, () => pursuit.current);
  setHandler(pursuitQuestionsQuery, () => pursuit.questions());
  setHandler(answerUpdate, (raw) => pursuit.answer(raw, { withNext: patched(ANSWER_CARRIES_NEXT_PATCH) }), {
    validator: (raw) => pursuit.validateAnswer(raw),
  });
  setHandler(finalizePursuitUpdate, (arg) => pursuit.finalize(arg), {
    validator: (arg) => pursuit.validateFinalize(arg),
  });
  setHandler(finalizePursuitSignal, (arg) => pursuit.onFinalizeSignal(arg));
  // Clients wait here for the next question instead of polling the status query (a read: a run
  // that fails while one waits leaves it unanswered, and the client sees the failure).
  setHandler(nextQuestionUpdate, (arg) => pursuit.awaitNextQuestion(arg), {
    validator: (arg) => pursuit.validateNextQuestion(arg),
    unfinishedPolicy: HandlerUnfinishedPolicy.ABANDON,
  });
  return endingAsEveryFlow(progress, () => pursue(pursuit, progress), {
    onCancel: () => void (pursuit.current = null),
  });
}

/** Asks, waits for the answer and refines, question after question, until the pursuit ends. */
async function pursue(pursuit: Pursuit, progress: ProgressTracker): Promise<PursuitResult> {
  const { input } = pursuit;
  if (!pursuit.started) {
    progress.stage('load EADS', input.eadsId);
    pursuit.begin(await steps().loadPursuitPlan({ eadsId: input.eadsId }));
  }
  progress.setTotal(pursuit.maxQuestions);

  let questionsThisRun = 0;
  for (;;) {
    const end = pursuit.endReason();
    if (end) {
      pursuit.status = end;
      break;
    }
    if (questionsThisRun >= input.questionsPerRun || workflowInfo().continueAsNewSuggested) {
      // Between questions no answer is pending; let any finished update handler return first.
      // A client waiting for the next question is told to ask again: it reaches the new run.
      pursuit.continuing = true;
      await condition(allHandlersFinished);
      return continueAsNew<typeof pursueEads>({ ...input, resume: pursuit.resumeState() });
    }
    const question = await askQuestion(pursuit, progress);
    if (!question) break;
    questionsThisRun++;
    const answer = await awaitAnswer(pursuit, question, progress);
    if (answer === 'failed' || answer === 'abandoned') break;
    if (answer === 'finalized') continue;
    progress.stage('refine data structure', question.id);
    const refinement = await refine(pursuit, question, answer, progress);
    const { commit_notes } = pursuit.recordAnswer(question, answer.answer, refinement);
    progress.advance(1, `${question.id}: ${commit_notes}`);
  }

  pursuit.current = null;
  progress.finish(
    pursuit.status === 'failed' ? 'failed' : pursuit.status === 'abandoned' ? 'cancelled' : 'completed',
    `${pursuit.status}: completeness ${pursuit.completion().completeness}, budget used ${pursuit.budgetUsed()}`,
  );
  // Let pending update handlers (answer, finalize) return before the workflow closes.
  await condition(allHandlersFinished);
  return pursuit.result();
}

/** Fails the pursuit with `error`; a model that rejects requests also stops the interview. */
function failPursuit(pursuit: Pursuit, progress: ProgressTracker, error: string, err: unknown): void {
  pursuit.fail(error);
  const stop = modelRejection(err);
  if (!stop || !patched(STOP_ON_MODEL_REJECTION_PATCH)) return;
  progress.finish('failed', error);
  throw ApplicationFailure.create({ type: stop.type ?? MODEL_REJECTED, nonRetryable: true, message: error });
}

/** The model's next question, asked (and charged); null when none could be generated. */
async function askQuestion(pursuit: Pursuit, progress: ProgressTracker): Promise<AskedQuestion | null> {
  const { state, input } = pursuit;
  progress.stage('generate question', `${pursuit.completion().remainingFields.length} field(s) open`);
  try {
    const reply = await steps().generateEadsQuestion({
      eadsId: state.plan.id,
      interviewer: state.plan.interviewer,
      dataStructure: state.dataStructure,
      asked: pursuit.asked(),
      context: input.context,
    });
    pursuit.spend(reply.usage);
    progress.tokens(reply.usage);
    return pursuit.ask(reply.question);
  } catch (err) {
    failPursuit(pursuit, progress, `could not generate a question: ${failureMessage(err)}`, err);
    return null;
  }
}

/**
 * The surrogate expert's answer, or a person's (by update); `finalized` when the pursuit ended
 * before one came, `abandoned` when nobody answered within the idle timeout.
 */
async function awaitAnswer(
  pursuit: Pursuit,
  question: AskedQuestion,
  progress: ProgressTracker,
): Promise<PendingAnswer | 'failed' | 'finalized' | 'abandoned'> {
  const { state, input } = pursuit;
  if (input.mode === 'surrogate') {
    progress.stage('surrogate answers', question.id);
    try {
      const reply = await steps().answerAsSurrogate({ fixtureId: input.fixture!, eadsId: state.plan.id, question });
      pursuit.spend(reply.usage);
      progress.tokens(reply.usage);
      return { questionId: question.id, answer: reply.answer, exhausted: false };
    } catch (err) {
      failPursuit(pursuit, progress, `the surrogate expert could not answer: ${failureMessage(err)}`, err);
      return 'failed';
    }
  }
  progress.waiting(`waiting for the answer to ${question.id}: ${question.question.slice(0, 80)}`);
  const arrived = () => pursuit.pending !== null || pursuit.finalizeNotes !== null;
  if (patched(EADS_IDLE_TIMEOUT_PATCH)) {
    // Durable: the timer survives worker restarts. An answer in the same task as the timer still counts.
    await condition(arrived, input.idleTimeoutMinutes * 60_000);
    if (!arrived()) {
      pursuit.abandon(question, input.idleTimeoutMinutes);
      return 'abandoned';
    }
  } else {
    await condition(arrived);
  }
  if (pursuit.pending) return pursuit.pending;
  pursuit.recordFinalizedUnanswered(question);
  return 'finalized';
}

/** What the answer changes in the data structure; a failed refinement keeps the answer and changes nothing. */
async function refine(
  pursuit: Pursuit,
  question: AskedQuestion,
  answer: PendingAnswer,
  progress: ProgressTracker,
): Promise<Refinement> {
  const { state, input } = pursuit;
  try {
    const reply = await steps().refineEadsStructure({
      eadsId: state.plan.id,
      question,
      answer: answer.answer,
      dataStructure: state.dataStructure,
      asked: pursuit.asked(),
      context: input.context,
    });
    pursuit.spend(reply.usage);
    progress.tokens(reply.usage);
    const refinement = {
      update: reply.update,
      notes: reply.commitNotes,
      exhausted: answer.exhausted || reply.exhausted,
      free: false,
    };
    if (pursuit.mayWaiveCharge(reply.unreadTable) && patched(FREE_UNREAD_TABLE_PATCH)) {
      pursuit.waiveCharge();
      refinement.free = true;
      refinement.notes =
        `${refinement.notes} The table could not be read, so this question is not charged to the budget.`.trim();
    } else if (pursuit.mayWaiveCharge(reply.unreadChoice) && patched(FREE_UNREAD_CHOICE_PATCH)) {
      pursuit.waiveCharge();
      refinement.free = true;
      refinement.notes = `${refinement.notes} This question is not charged to the budget.`.trim();
    }
    return refinement;
  } catch (err) {
    // The answer is kept; the next question can ask again.
    return {
      update: {},
      notes: `the answer could not be turned into a refinement: ${failureMessage(err)}`,
      exhausted: answer.exhausted,
      free: false,
    };
  }
}
