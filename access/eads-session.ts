/**
 * Client-side helpers for EADS interviews, over the Temporal client only: find or start a
 * project's interview, read its state with queries, change it with validated updates, and wait
 * for what comes next with the `nextStep` and `nextQuestion` updates. Those wait in the workflow
 * until it has the answer (the interview's next pursuit or recommendation, the pursuit's next
 * question, or the end), so no client here polls a query to guess whether the workflow is about
 * to move on. Used by the MCP tools, the terminal client and the console.
 */
import { rootCause } from '@temporalio/common';
import {
  WithStartWorkflowOperation,
  WorkflowFailedError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  type Client,
  type WorkflowHandle,
} from '@temporalio/client';
import {
  aggregatedScrQuery,
  answerUpdate,
  conversationHistoryQuery,
  currentQuestionQuery,
  eadsInterviewQuery,
  eadsInterviewWorkflowId,
  eadsLibraryQuery,
  eadsRecordQuery,
  finalizePursuitUpdate,
  finishInterviewUpdate,
  nextQuestionUpdate,
  nextStepUpdate,
  pursuitInstructionsQuery,
  pursuitQuestionsQuery,
  pursuitStatusQuery,
  runEadsInterviewFlow,
  startPursuitUpdate,
  type AnswerResult,
  type AskedQuestion,
  type ConversationHistory,
  type FinalizeResult,
  type InterviewStep,
  type InterviewView,
  type PursuitPlan,
  type PursuitStatus,
  type PursuitStep,
  type RunEadsInterviewOutput,
} from '../flows/eads/contract';
import type { AggregatedScr } from '../domain/eads-structure';
import { flowStartOptions, startFlow, type FlowWorkflow } from './flow-client';

/** A problem the caller can act on (no interview, wrong EADS, rejected answer...). */
export class EadsSessionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EadsSessionError';
  }
}

/** Turns a rejected or failed update into the validator's message. */
export function updateErrorMessage(err: unknown): string {
  if (err instanceof WorkflowUpdateFailedError) return rootCause(err.cause) ?? err.message;
  const message = err instanceof Error ? err.message : String(err);
  // The server's words for an update sent to a closed workflow.
  return /already completed/i.test(message) ? `that workflow has already ended (${message})` : message;
}

/**
 * True when an update failed because its workflow has closed: the server refuses an update sent
 * to a closed workflow, and fails one that was waiting in a workflow that closed under it (the
 * workflow completed before the update did). An update the workflow itself rejected leaves the
 * workflow running.
 */
async function closedUnder(handle: WorkflowHandle, err: unknown): Promise<boolean> {
  const refused =
    err instanceof WorkflowNotFoundError || (err instanceof Error && /already completed/i.test(err.message));
  if (!refused && !(err instanceof WorkflowUpdateFailedError)) return false;
  try {
    return (await handle.describe()).status.name !== 'RUNNING';
  } catch (e) {
    if (e instanceof WorkflowNotFoundError) return true;
    // Not known to be closed (the server did not answer): the update's own failure is the news.
    return false;
  }
}

/** A closed pursuit's last status; a pursuit whose history is gone (past retention) is named as such. */
async function endedPursuitStatus(pursuit: WorkflowHandle): Promise<PursuitStatus> {
  try {
    return await pursuit.query(pursuitStatusQuery);
  } catch (err) {
    if (err instanceof WorkflowNotFoundError)
      throw new EadsSessionError(
        `the pursuit ${pursuit.workflowId} no longer exists: it ended and the server no longer keeps its history`,
      );
    throw err;
  }
}

/**
 * A run that continues as new tells the updates waiting on it to ask again (`continuing`): the
 * next one reaches the new run. A run continues as new every few pursuits or questions, so a few
 * tries always reach a run that answers.
 */
const MAX_CONTINUING_REPLIES = 5;

/** Options for starting the project's interview. */
export interface InterviewStartOptions {
  taskQueue?: string;
  orchestration?: 'auto' | 'guided';
  projectName?: string;
  /** Bounds of each run (continue-as-new), as in the interview's input; the defaults when left out. */
  limits?: { pursuitsPerRun?: number; questionsPerRun?: number };
}

export class EadsSession {
  readonly handle: WorkflowHandle<FlowWorkflow<typeof runEadsInterviewFlow>>;
  readonly workflowId: string;

  constructor(
    readonly client: Client,
    readonly projectId: string,
  ) {
    this.workflowId = eadsInterviewWorkflowId(projectId);
    this.handle = client.workflow.getHandle(this.workflowId);
  }

  /** True when an interview (running or closed) exists for the project. */
  async exists(): Promise<boolean> {
    return (await this.runStatus()) !== null;
  }

  /** The interview's execution status (RUNNING, COMPLETED...), or null when there is none. */
  private async runStatus(): Promise<string | null> {
    try {
      return (await this.handle.describe()).status.name;
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return null;
      throw err;
    }
  }

  /** The input that starts (or resumes) the project's interview with human answers. */
  private startInput(options: InterviewStartOptions, resume?: RunEadsInterviewOutput['resume']) {
    return {
      projectId: this.projectId,
      mode: 'human',
      orchestration: options.orchestration ?? 'guided',
      ...(options.projectName ? { projectName: options.projectName } : {}),
      ...options.limits,
      ...(resume ? { resume } : {}),
    };
  }

  /**
   * Finds the project's interview, or starts one (human answers) when there is none. An interview
   * that ended as abandoned (nobody answered within its idle timeout) is started again from its
   * `resume`, so it goes on where it stopped. Returns at once, without waiting for the workflow.
   */
  async ensure(options: InterviewStartOptions = {}): Promise<{ started: boolean; resumed?: boolean }> {
    const resume = (await this.exists()) ? await this.abandonedState() : undefined;
    if (resume === null) return { started: false };
    await startFlow(this.client, runEadsInterviewFlow, this.startInput(options, resume), {
      workflowId: this.workflowId,
      taskQueue: options.taskQueue,
      useExisting: true,
    });
    return { started: true, ...(resume ? { resumed: true } : {}) };
  }

  /**
   * Finds or starts the project's interview (as `ensure`) and returns its next step once the
   * interview has one. Starting and asking are one call (update-with-start): the reply comes when
   * the new interview has its first pursuit or recommendation.
   */
  async begin(
    options: InterviewStartOptions = {},
  ): Promise<{ started: boolean; resumed?: boolean; step: Exclude<InterviewStep, { kind: 'continuing' }> }> {
    const status = await this.runStatus();
    if (status === 'RUNNING') return { started: false, step: await this.nextStep() };
    const resume = status === null ? undefined : await this.abandonedState();
    if (resume === null) return { started: false, step: await this.endedStep() };
    const startWorkflowOperation = new WithStartWorkflowOperation<FlowWorkflow<typeof runEadsInterviewFlow>>(
      runEadsInterviewFlow.type,
      {
        ...flowStartOptions(runEadsInterviewFlow, this.startInput(options, resume), {
          workflowId: this.workflowId,
          taskQueue: options.taskQueue,
        }),
        // Another client starting the same project's interview at the same moment joins it.
        workflowIdConflictPolicy: 'USE_EXISTING',
      },
    );
    let step: InterviewStep;
    try {
      step = await this.client.workflow.executeUpdateWithStart(nextStepUpdate, {
        args: [{}],
        startWorkflowOperation,
      });
    } catch (err) {
      throw new EadsSessionError(updateErrorMessage(err));
    }
    // No interview was running: this call started it (or joined one started a moment before).
    return {
      started: true,
      ...(resume ? { resumed: true } : {}),
      step: step.kind === 'continuing' ? await this.nextStep() : step,
    };
  }

  /** The `resume` of the project's interview when its last run ended as abandoned; null otherwise. */
  private async abandonedState(): Promise<RunEadsInterviewOutput['resume'] | null> {
    const { status } = await this.handle.describe();
    if (status.name !== 'COMPLETED') return null;
    const out = (await this.handle.result()) as RunEadsInterviewOutput;
    return out.status === 'abandoned' && out.resume ? out.resume : null;
  }

  /**
   * The step of an interview that has closed: its result, or the failure it ended with, told as
   * an EadsSessionError (a model that rejects every request stops the interview; the person is
   * told why, not "Workflow execution failed").
   */
  private async endedStep(): Promise<Extract<InterviewStep, { kind: 'ended' }>> {
    let result: RunEadsInterviewOutput;
    try {
      result = (await this.handle.result()) as RunEadsInterviewOutput;
    } catch (err) {
      if (!(err instanceof WorkflowFailedError)) throw err;
      throw new EadsSessionError(
        `the interview for project "${this.projectId}" failed: ${rootCause(err.cause) ?? err.message}`,
      );
    }
    return { kind: 'ended', view: await this.handle.query(eadsInterviewQuery), result };
  }

  private async require(): Promise<void> {
    if (!(await this.exists())) throw this.missing();
  }

  private missing(): EadsSessionError {
    return new EadsSessionError(
      `no EADS interview for project "${this.projectId}" (workflow ${this.workflowId}); call get_next_eads to start one`,
    );
  }

  /**
   * Waits, in the workflow, for the interview's next step: a running pursuit (never
   * `afterPursuit`, one the caller saw end), a recommendation to start (guided), or the end.
   */
  async nextStep(afterPursuit?: string): Promise<Exclude<InterviewStep, { kind: 'continuing' }>> {
    for (let tries = 0; tries < MAX_CONTINUING_REPLIES; tries++) {
      let step: InterviewStep;
      try {
        step = await this.handle.executeUpdate(nextStepUpdate, {
          args: [afterPursuit !== undefined ? { afterPursuit } : {}],
        });
      } catch (err) {
        if (await closedUnder(this.handle, err)) return this.endedStep();
        throw new EadsSessionError(updateErrorMessage(err));
      }
      if (step.kind !== 'continuing') return step;
    }
    throw new EadsSessionError(`the interview kept continuing as new (workflow ${this.workflowId}); try again`);
  }

  /**
   * Waits, in the pursuit's workflow, for its next question (never `after`, one the caller has
   * answered or dropped), or for its end.
   */
  async nextQuestion(pursuit: WorkflowHandle, after?: string): Promise<Exclude<PursuitStep, { kind: 'continuing' }>> {
    for (let tries = 0; tries < MAX_CONTINUING_REPLIES; tries++) {
      let step: PursuitStep;
      try {
        step = await pursuit.executeUpdate(nextQuestionUpdate, { args: [after !== undefined ? { after } : {}] });
      } catch (err) {
        if (await closedUnder(pursuit, err)) return { kind: 'ended', status: await endedPursuitStatus(pursuit) };
        throw new EadsSessionError(updateErrorMessage(err));
      }
      if (step.kind !== 'continuing') return step;
    }
    throw new EadsSessionError(`the pursuit kept continuing as new (workflow ${pursuit.workflowId}); try again`);
  }

  /**
   * What the person sees after answering `questionId` in `pursuit`: the pursuit's next question,
   * or, when the answer ended the pursuit (the first EADS asks one question), the interview's next
   * step and, when that is a new pursuit, its first question. Waits in the workflows, as the
   * terminal client does between two questions; the answer's reply (`answered`) already holds the
   * pursuit's next step in runs that give it.
   */
  async nextAfterAnswer(
    pursuit: WorkflowHandle,
    questionId: string,
    answered?: AnswerResult,
  ): Promise<Exclude<PursuitStep, { kind: 'continuing' }> | Exclude<InterviewStep, { kind: 'continuing' }>> {
    const step = stepWithAnswer(answered) ?? (await this.nextQuestion(pursuit, questionId));
    if (step.kind !== 'ended') return step;
    const next = await this.nextStep(pursuit.workflowId);
    return next.kind === 'pursuing'
      ? this.nextQuestion(this.client.workflow.getHandle(next.pursuit.childWorkflowId))
      : next;
  }

  /** The interview's state; one round trip (a missing interview is told by the query itself). */
  async view(): Promise<InterviewView> {
    try {
      return await this.handle.query(eadsInterviewQuery);
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) throw this.missing();
      throw err;
    }
  }

  /**
   * The orchestrator's recommendation, the running pursuit, or the end, once the interview has
   * one. A pursuit that has just ended does not count: the interview is about to move on, so this
   * waits for the step after it.
   */
  async nextEads(): Promise<InterviewView> {
    await this.require();
    return (await this.settled(await this.nextStep())).view;
  }

  /** `begin`, then as `nextEads`: what `get_next_eads` replies, starting the interview when there is none. */
  async recommend(options: InterviewStartOptions = {}): Promise<{ started: boolean; view: InterviewView }> {
    const { started, step } = await this.begin(options);
    return { started, view: (await this.settled(step)).view };
  }

  /** `step`, or the one after it when its pursuit has already ended (the interview is recording it). */
  private async settled(
    step: Exclude<InterviewStep, { kind: 'continuing' }>,
  ): Promise<Exclude<InterviewStep, { kind: 'continuing' }>> {
    if (step.kind !== 'pursuing') return step;
    const child = this.client.workflow.getHandle(step.pursuit.childWorkflowId);
    const { status } = await child.query(pursuitStatusQuery);
    return status === 'working' ? step : this.nextStep(step.pursuit.childWorkflowId);
  }

  async library() {
    await this.require();
    const catalog = await this.handle.query(eadsLibraryQuery);
    if (catalog.length > 0) return catalog;
    // The interview loads its library before it has a first step.
    await this.nextStep();
    return this.handle.query(eadsLibraryQuery);
  }

  async startPursuit(eadsId: string) {
    await this.require();
    try {
      return await this.handle.executeUpdate(startPursuitUpdate, { args: [{ eadsId }] });
    } catch (err) {
      throw new EadsSessionError(updateErrorMessage(err));
    }
  }

  /** The running pursuit's workflow handle, checked against the EADS the caller names (in `known`, a view just read). */
  async pursuit(eadsId?: string, known?: InterviewView): Promise<{ handle: WorkflowHandle; view: InterviewView }> {
    const view = known ?? (await this.view());
    if (!view.current) {
      throw new EadsSessionError(
        `no EADS is being pursued in project "${this.projectId}" (interview ${view.status}${view.nextEads?.eads_id ? `; recommended next: ${view.nextEads.eads_id}` : ''})`,
      );
    }
    if (eadsId && view.current.eadsId !== eadsId)
      throw new EadsSessionError(`project "${this.projectId}" is pursuing ${view.current.eadsId}, not ${eadsId}`);
    return { handle: this.client.workflow.getHandle(view.current.childWorkflowId), view };
  }

  /** The pursuit's status once it has loaded its EADS (it has by its first question). */
  async pursuitStatus(handle: WorkflowHandle): Promise<PursuitStatus> {
    const status = await handle.query(pursuitStatusQuery);
    if (status.budget_decrement > 0 || status.status !== 'working') return status;
    await this.loaded(handle);
    return handle.query(pursuitStatusQuery);
  }

  async instructions(handle: WorkflowHandle): Promise<PursuitPlan> {
    const plan = await handle.query(pursuitInstructionsQuery);
    if (plan) return plan;
    await this.loaded(handle);
    const loaded = await handle.query(pursuitInstructionsQuery);
    if (!loaded) throw new EadsSessionError(`the pursuit ${handle.workflowId} ended before it loaded its EADS`);
    return loaded;
  }

  /** Waits until a pursuit has loaded its EADS: it has by its first question (or its end). */
  private async loaded(handle: WorkflowHandle): Promise<void> {
    await this.nextQuestion(handle).catch((err: unknown) => {
      // A surrogate's pursuit asks no person: nothing to wait on there, the caller reads what there is.
      if (!(err instanceof EadsSessionError)) throw err;
    });
  }

  /** The pursuit's next question (never `after`), once it has one; null when the pursuit ended instead. */
  async question(
    handle: WorkflowHandle,
    after?: string,
  ): Promise<{ question: AskedQuestion | null; status: PursuitStatus }> {
    const step = await this.nextQuestion(handle, after);
    return { question: step.kind === 'question' ? step.question : null, status: step.status };
  }

  async currentQuestion(handle: WorkflowHandle): Promise<AskedQuestion | null> {
    return handle.query(currentQuestionQuery);
  }

  async answer(handle: WorkflowHandle, questionId: string, answer: string, exhausted?: boolean): Promise<AnswerResult> {
    try {
      return await handle.executeUpdate(answerUpdate, {
        args: [{ questionId, answer, ...(exhausted !== undefined ? { exhausted } : {}) }],
      });
    } catch (err) {
      throw new EadsSessionError(updateErrorMessage(err));
    }
  }

  async finalize(handle: WorkflowHandle, notes?: string): Promise<FinalizeResult> {
    try {
      return await handle.executeUpdate(finalizePursuitUpdate, { args: [notes !== undefined ? { notes } : {}] });
    } catch (err) {
      throw new EadsSessionError(updateErrorMessage(err));
    }
  }

  async finish(reason?: string) {
    await this.require();
    try {
      return await this.handle.executeUpdate(finishInterviewUpdate, { args: [reason !== undefined ? { reason } : {}] });
    } catch (err) {
      throw new EadsSessionError(updateErrorMessage(err));
    }
  }

  /** The conversation: finished pursuits from the interview, plus the running one's questions so far. */
  async conversation(): Promise<ConversationHistory> {
    await this.require();
    const history = await this.handle.query(conversationHistoryQuery);
    const view = await this.view();
    if (view.current) {
      const child = this.client.workflow.getHandle(view.current.childWorkflowId);
      const [questions, status] = await Promise.all([
        child.query(pursuitQuestionsQuery),
        child.query(pursuitStatusQuery),
      ]);
      history.activities.push({
        pursuing_eads: view.current.eadsId,
        pursuit_no: view.current.pursuitNo,
        status: status.status,
        questions_answers: questions.map((q) => ({ question: q.question, answer: q.answer })),
        summary_ds: status.data_structure,
      });
    }
    return history;
  }

  async scr(filter?: string[]): Promise<AggregatedScr> {
    await this.require();
    return this.handle.query(aggregatedScrQuery, filter);
  }

  /** Status of an EADS: the running pursuit's live state, or the last finished pursuit's record. */
  async eadsStatus(eadsId: string): Promise<PursuitStatus> {
    const view = await this.view();
    if (view.current?.eadsId === eadsId)
      return this.pursuitStatus(this.client.workflow.getHandle(view.current.childWorkflowId));
    const record = await this.handle.query(eadsRecordQuery, eadsId);
    if (!record) throw new EadsSessionError(`EADS ${eadsId} has not been pursued in project "${this.projectId}"`);
    return {
      eads_id: record.eadsId,
      name: record.name,
      interviewer_type: record.interviewer,
      pursuit_no: record.pursuitNo,
      status: record.status,
      data_structure: record.dataStructure,
      completed_fields: record.completedFields,
      remaining_fields: record.remainingFields,
      completeness: record.completeness,
      budget_used: record.budgetUsed,
      budget_remaining: record.budgetRemaining,
      budget_decrement: record.budgetDecrement,
      questions_asked: record.questions.length,
      current_question: null,
      waiting_for_answer: false,
    };
  }
}

/** The pursuit's next step the answer's reply carries, when it carries one a client can show. */
export function stepWithAnswer(
  answered: AnswerResult | undefined,
): Exclude<PursuitStep, { kind: 'continuing' }> | undefined {
  const next = answered?.next;
  return next && next.kind !== 'continuing' ? next : undefined;
}
