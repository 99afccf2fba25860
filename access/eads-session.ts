/**
 * Client-side helpers for EADS interviews, over the Temporal client only: find or start a
 * project's interview, read its state with queries (waiting for a question without writing
 * history), and change it with validated updates. Used by the MCP tools and the terminal client.
 */
import { rootCause } from '@temporalio/common';
import { WorkflowNotFoundError, WorkflowUpdateFailedError, type Client, type WorkflowHandle } from '@temporalio/client';
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
  pursuitInstructionsQuery,
  pursuitQuestionsQuery,
  pursuitStatusQuery,
  runEadsInterviewFlow,
  startPursuitUpdate,
  type AnswerResult,
  type AskedQuestion,
  type ConversationHistory,
  type FinalizeResult,
  type InterviewView,
  type PursuitPlan,
  type PursuitStatus,
  type RunEadsInterviewOutput,
} from '../flows/eads/contract';
import type { AggregatedScr } from '../domain/eads-structure';
import { startFlow, type FlowWorkflow } from './flow-client';

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

export async function waitFor<T>(
  read: () => Promise<T>,
  ready: (value: T) => boolean,
  options: { timeoutMs?: number; everyMs?: number; what: string },
): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  let last: unknown;
  for (;;) {
    try {
      const value = await read();
      if (ready(value)) return value;
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) throw err;
      // Not answerable yet (the first workflow task has not run): try again.
      last = err;
    }
    if (Date.now() > deadline)
      throw new EadsSessionError(
        `timed out waiting for ${options.what}${last instanceof Error ? ` (${last.message})` : ''}`,
      );
    await new Promise((r) => setTimeout(r, options.everyMs ?? 100));
  }
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
    try {
      await this.handle.describe();
      return true;
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return false;
      throw err;
    }
  }

  /**
   * Finds the project's interview, or starts one (human answers) when there is none. An interview
   * that ended as abandoned (nobody answered within its idle timeout) is started again from its
   * `resume`, so it goes on where it stopped.
   */
  async ensure(
    options: { taskQueue?: string; orchestration?: 'auto' | 'guided'; projectName?: string } = {},
  ): Promise<{ started: boolean; resumed?: boolean }> {
    const resume = (await this.exists()) ? await this.abandonedState() : undefined;
    if (resume === null) return { started: false };
    await startFlow(
      this.client,
      runEadsInterviewFlow,
      {
        projectId: this.projectId,
        mode: 'human',
        orchestration: options.orchestration ?? 'guided',
        ...(options.projectName ? { projectName: options.projectName } : {}),
        ...(resume ? { resume } : {}),
      },
      { workflowId: this.workflowId, taskQueue: options.taskQueue, useExisting: true },
    );
    return { started: true, ...(resume ? { resumed: true } : {}) };
  }

  /** The `resume` of the project's interview when its last run ended as abandoned; null otherwise. */
  private async abandonedState(): Promise<RunEadsInterviewOutput['resume'] | null> {
    const { status } = await this.handle.describe();
    if (status.name !== 'COMPLETED') return null;
    const out = (await this.handle.result()) as RunEadsInterviewOutput;
    return out.status === 'abandoned' && out.resume ? out.resume : null;
  }

  private async require(): Promise<void> {
    if (!(await this.exists()))
      throw new EadsSessionError(
        `no EADS interview for project "${this.projectId}" (workflow ${this.workflowId}); call get_next_eads to start one`,
      );
  }

  async view(): Promise<InterviewView> {
    await this.require();
    return waitFor(
      () => this.handle.query(eadsInterviewQuery),
      () => true,
      { what: 'the interview state' },
    );
  }

  /**
   * Waits until the orchestrator has a recommendation, a pursuit is running, or the interview has
   * ended. A pursuit that has just ended does not count: the interview is about to move on.
   */
  async nextEads(): Promise<InterviewView> {
    await this.require();
    const read = async (): Promise<{ view: InterviewView; currentEnded: boolean }> => {
      const view = await this.handle.query(eadsInterviewQuery);
      if (!view.current) return { view, currentEnded: false };
      const status = await this.client.workflow.getHandle(view.current.childWorkflowId).query(pursuitStatusQuery);
      return { view, currentEnded: status.status !== 'working' };
    };
    const { view } = await waitFor(
      read,
      ({ view: v, currentEnded }) =>
        v.status === 'finished' ||
        (v.current !== null && !currentEnded) ||
        (v.nextEads !== null && v.status === 'awaiting-start') ||
        (v.status !== 'pursuing' && (v.nextEads?.exhausted ?? false)),
      { what: 'the orchestrator' },
    );
    return view;
  }

  async library() {
    await this.require();
    return waitFor(
      () => this.handle.query(eadsLibraryQuery),
      (c) => c.length > 0,
      { what: 'the EADS library' },
    );
  }

  async startPursuit(eadsId: string) {
    await this.require();
    try {
      return await this.handle.executeUpdate(startPursuitUpdate, { args: [{ eadsId }] });
    } catch (err) {
      throw new EadsSessionError(updateErrorMessage(err));
    }
  }

  /** The running pursuit's workflow handle, checked against the EADS the caller names. */
  async pursuit(eadsId?: string): Promise<{ handle: WorkflowHandle; view: InterviewView }> {
    const view = await this.view();
    if (!view.current) {
      throw new EadsSessionError(
        `no EADS is being pursued in project "${this.projectId}" (interview ${view.status}${view.nextEads?.eads_id ? `; recommended next: ${view.nextEads.eads_id}` : ''})`,
      );
    }
    if (eadsId && view.current.eadsId !== eadsId)
      throw new EadsSessionError(`project "${this.projectId}" is pursuing ${view.current.eadsId}, not ${eadsId}`);
    return { handle: this.client.workflow.getHandle(view.current.childWorkflowId), view };
  }

  async pursuitStatus(handle: WorkflowHandle): Promise<PursuitStatus> {
    return waitFor(
      () => handle.query(pursuitStatusQuery),
      (s) => s.budget_decrement > 0,
      { what: 'the pursuit to load its EADS' },
    );
  }

  async instructions(handle: WorkflowHandle): Promise<PursuitPlan> {
    const plan = await waitFor(
      () => handle.query(pursuitInstructionsQuery),
      (p) => p !== null,
      { what: 'the EADS instructions' },
    );
    return plan!;
  }

  /** Waits for the pursuit's next question; null when the pursuit ended instead. */
  async question(
    handle: WorkflowHandle,
    timeoutMs = 60_000,
  ): Promise<{ question: AskedQuestion | null; status: PursuitStatus }> {
    const status = await waitFor(
      () => handle.query(pursuitStatusQuery),
      (s) => s.status !== 'working' || (s.current_question !== null && s.waiting_for_answer),
      { what: 'the next question', timeoutMs },
    );
    return { question: status.status === 'working' ? status.current_question : null, status };
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
    const history = await waitFor(
      () => this.handle.query(conversationHistoryQuery),
      () => true,
      { what: 'the conversation' },
    );
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
    return waitFor(
      () => this.handle.query(aggregatedScrQuery, filter),
      () => true,
      { what: 'the aggregated SCR' },
    );
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
