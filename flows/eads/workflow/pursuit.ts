/**
 * The state of one `pursueEads` run (one EADS pursued), with its query and update handlers,
 * their validators and the signal handler. The workflow function binds them (setHandler) and
 * drives the question loop; everything here but the two waiting update handlers is plain code,
 * so unit tests construct a pursuit and call it.
 */
import { ApplicationFailure, condition } from '@temporalio/workflow';
import type { z } from 'zod';
import { addUsage, excerpt, formatZodError, zeroUsage, type TokenUsage } from '../../../contracts/common';
import {
  answerInputSchema,
  type AnswerResult,
  type AskedQuestion,
  type FinalizeResult,
  type NextQuestionInput,
  type pursueEadsInput,
  type PursuitPlan,
  type PursuitResult,
  type PursuitState,
  type PursuitStatus,
  type PursuitStep,
  type PursuitStatusName,
  type QuestionAnswer,
  type QuestionDraft,
} from '../contract';
import { budgetUsed, canAffordQuestion, computeCompleteness, mergeRefinement } from '../../../domain/eads-structure';
import { FailureType } from '../../../contracts/failures';
import { nextValue, type Wait } from '../../lib/workflow/next-value';

export type PursuitInput = z.output<typeof pursueEadsInput>;

/** At most this many questions per pursuit go uncharged because their table answer could not be read. */
export const MAX_FREE_QUESTIONS = 2;

/** An answer taken by the `answer` update, waiting for the loop to refine the structure with it. */
export interface PendingAnswer {
  questionId: string;
  answer: string;
  exhausted: boolean;
}

/** What an answer changed, as the refinement step (or its failure) decided. */
export interface Refinement {
  update: Record<string, unknown>;
  notes: string;
  exhausted: boolean;
  /** The question is not charged to the budget. */
  free: boolean;
}

export class Pursuit {
  status: PursuitStatusName = 'working';
  /** The question asked and not answered yet. */
  current: AskedQuestion | null = null;
  pending: PendingAnswer | null = null;
  /** Set by finalize (update or signal): the pursuit ends after the question it is on. */
  finalizeNotes: string | null;
  error: string | undefined;
  /** The run is about to continue as new: waiting `nextQuestion` updates reply `continuing`. */
  continuing = false;
  /** How the handlers wait in the workflow (unit tests drive their own). */
  wait: Wait = condition;
  /** Why the pursuit was abandoned, once it was. */
  private abandonedNote: string | null = null;
  /** Replies to the answers processed in this run, by question id (a retried answer gets the same reply). */
  private readonly results = new Map<string, AnswerResult>();
  /** Undefined until the plan is loaded (a new pursuit's first steps). */
  private saved: PursuitState | undefined;

  constructor(readonly input: PursuitInput) {
    // Validated by the input schema (pursuitResumeSchema): continue-as-new state, or a starter's.
    this.saved = input.resume;
    this.finalizeNotes = this.saved?.finalizeNotes ?? null;
  }

  get started(): boolean {
    return this.saved !== undefined;
  }

  /** Starts a new pursuit of `plan`: an empty structure holding only its EADS id. */
  begin(plan: PursuitPlan): void {
    this.saved = {
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

  /** The pursuit so far; only once it has started. */
  get state(): PursuitState {
    if (!this.saved) throw new Error('the pursuit has not loaded its plan yet');
    return this.saved;
  }

  /** How many questions the budget pays for at most. */
  get maxQuestions(): number {
    return Math.floor(1 / this.state.plan.budgetDecrement + 1e-9);
  }

  private fieldNames(): string[] {
    return this.saved?.plan.fields.map((f) => f.name) ?? [];
  }

  completion() {
    return computeCompleteness(this.fieldNames(), this.saved?.dataStructure ?? {});
  }

  /** Questions charged to the budget (asked, minus those whose table answer could not be read). */
  charged(): number {
    return (this.saved?.questionsAsked ?? 0) - (this.saved?.freeQuestions ?? 0);
  }

  // --- Queries

  statusView(): PursuitStatus {
    const state = this.saved;
    const decrement = state?.plan.budgetDecrement ?? 0;
    const completion = this.completion();
    const used = budgetUsed(this.charged(), decrement);
    return {
      eads_id: this.input.eadsId,
      name: state?.plan.name ?? this.input.eadsId,
      interviewer_type: state?.plan.interviewer ?? 'process',
      pursuit_no: this.input.pursuitNo,
      status: this.status,
      data_structure: state?.dataStructure ?? {},
      completed_fields: completion.completedFields,
      remaining_fields: completion.remainingFields,
      completeness: state ? completion.completeness : 0,
      budget_used: used,
      budget_remaining: Math.round((1 - used) * 1e6) / 1e6,
      budget_decrement: decrement,
      questions_asked: state?.questionsAsked ?? 0,
      current_question: this.current,
      waiting_for_answer: this.current !== null && this.input.mode === 'human' && this.pending === null,
    };
  }

  plan(): PursuitPlan | null {
    return this.saved?.plan ?? null;
  }

  questions(): QuestionAnswer[] {
    return this.saved?.questions ?? [];
  }

  finalizeView(): FinalizeResult {
    const view = this.statusView();
    return {
      success: this.status !== 'failed' && this.status !== 'working',
      data_structure: view.data_structure,
      validation_results: {
        complete: view.remaining_fields.length === 0,
        completeness: view.completeness,
        missing_fields: view.remaining_fields,
        status: this.status,
        notes: this.error ?? this.finalizeNotes ?? '',
      },
    };
  }

  // --- nextQuestion

  validateNextQuestion(arg: NextQuestionInput | undefined): void {
    if (arg !== undefined && (typeof arg !== 'object' || arg === null || Array.isArray(arg)))
      throw new Error('the argument must be an object: { after?: string }');
    const unknown = Object.keys(arg ?? {}).filter((k) => k !== 'after');
    if (unknown.length) throw new Error(`unknown field ${excerpt(unknown[0])}; the argument is { after?: string }`);
    if (arg?.after !== undefined && (typeof arg.after !== 'string' || !/^q\d{1,6}$/.test(arg.after)))
      throw new Error(`after must be a question id such as "q3", not ${excerpt(String(arg.after))}`);
    if (this.input.mode === 'surrogate')
      throw new Error('this pursuit is answered by the surrogate expert: no question waits for a person');
  }

  /** The question waiting for the client (never `after`, one it has dealt with), the end, or null for not yet. */
  nextQuestion(after?: string): PursuitStep | null {
    if (this.status !== 'working') return { kind: 'ended', status: this.statusView() };
    if (this.continuing) return { kind: 'continuing' };
    const current = this.current;
    if (current && this.pending === null && current.id !== after)
      return { kind: 'question', question: current, status: this.statusView() };
    return null;
  }

  /** The `nextQuestion` update: replies once the pursuit has a question for the client, or has ended. */
  async awaitNextQuestion(arg: NextQuestionInput | undefined): Promise<PursuitStep> {
    return nextValue(() => this.nextQuestion(arg?.after), this.wait);
  }

  // --- answer

  /** The answer a question was given (taken, or pending), if any. */
  private answeredWith(questionId: string): string | undefined {
    return this.pending?.questionId === questionId
      ? this.pending.answer
      : this.saved?.questions.find((q) => q.id === questionId && q.answer !== '')?.answer;
  }

  /**
   * Synchronous, so a rejected answer never reaches history. An answer names the question it
   * answers; a repeat of an answer already taken (a client retrying after a lost reply) gets the
   * first reply again: it never answers a later question.
   */
  validateAnswer(raw: unknown): void {
    const parsed = answerInputSchema.safeParse(raw);
    if (!parsed.success) throw new Error(`invalid answer: ${formatZodError(parsed.error)}`);
    const { questionId, answer } = parsed.data;
    const earlier = this.answeredWith(questionId);
    // The same answer again, while its reply can still be given (this run): the same reply.
    if (earlier === answer && (this.results.has(questionId) || this.pending?.questionId === questionId)) return;
    if (this.status !== 'working') throw new Error(`the pursuit of ${this.input.eadsId} has ended (${this.status})`);
    if (this.input.mode === 'surrogate')
      throw new Error('this pursuit is answered by the surrogate expert, not by updates');
    if (earlier !== undefined)
      throw new Error(
        `question ${excerpt(questionId)} was already answered${earlier === answer ? '' : ' with a different answer'}`,
      );
    const current = this.current;
    if (!current) throw new Error('no question is waiting for an answer yet; ask for the current question first');
    if (questionId !== current.id)
      throw new Error(`question ${excerpt(questionId)} is not the current question ("${current.id}")`);
    if (this.pending) throw new Error(`an answer to ${current.id} is already being processed`);
  }

  /**
   * Hands the answer to the loop (once) and replies with what it made of it; `withNext`, also with
   * what comes after it (the next question, or the end), so the person's client makes one call.
   */
  async answer(raw: unknown, { withNext = false }: { withNext?: boolean } = {}): Promise<AnswerResult> {
    const answer = answerInputSchema.parse(raw);
    this.takeAnswer(answer);
    await condition(() => this.results.has(answer.questionId) || this.status !== 'working');
    const reply = this.replyTo(answer.questionId);
    if (!withNext) return reply;
    return { ...reply, next: await nextValue(() => this.nextQuestion(answer.questionId), this.wait) };
  }

  /** Keeps an accepted answer for the loop; a repeat of one already taken changes nothing. */
  takeAnswer(answer: { questionId: string; answer: string; exhausted?: boolean }): void {
    const repeat = this.results.has(answer.questionId) || this.pending?.questionId === answer.questionId;
    if (!repeat)
      this.pending = { questionId: answer.questionId, answer: answer.answer, exhausted: answer.exhausted ?? false };
  }

  /** The reply to the answer to `questionId`, or the failure saying the pursuit ended before it was processed. */
  replyTo(questionId: string): AnswerResult {
    const result = this.results.get(questionId);
    if (!result)
      throw ApplicationFailure.create({
        message: `the pursuit ended (${this.status}) before the answer was processed`,
        type: FailureType.PursuitEnded,
        nonRetryable: true,
      });
    return result;
  }

  // --- finalize

  validateFinalize(arg: { notes?: string } | undefined): void {
    if (this.status !== 'working')
      throw new Error(`the pursuit of ${this.input.eadsId} has already ended (${this.status})`);
    if (arg !== undefined && (typeof arg !== 'object' || arg === null || Array.isArray(arg)))
      throw new Error('the argument must be an object: { notes?: string }');
    if (arg?.notes !== undefined && (typeof arg.notes !== 'string' || arg.notes.length > 4000))
      throw new Error('notes must be a string of at most 4000 characters');
  }

  async finalize(arg: { notes?: string } | undefined): Promise<FinalizeResult> {
    this.finalizeNotes ??= arg?.notes ?? 'finalized on request';
    await condition(() => this.status !== 'working');
    return this.finalizeView();
  }

  /** Signals cannot be refused: keep only a string note (anyone can signal a workflow). */
  onFinalizeSignal(arg: { notes?: unknown } | undefined): void {
    this.finalizeNotes ??= typeof arg?.notes === 'string' ? arg.notes.slice(0, 4000) : 'finalized by the interview';
  }

  // --- The loop's bookkeeping

  /** Why the pursuit ends before another question, or null while it goes on. */
  endReason(): Exclude<PursuitStatusName, 'working' | 'failed'> | null {
    if (this.finalizeNotes !== null) return 'finalized';
    if (this.completion().completeness >= 1) return 'complete';
    if (this.state.exhausted) return 'exhausted';
    if (!canAffordQuestion(this.charged(), this.state.plan.budgetDecrement)) return 'budget-spent';
    return null;
  }

  spend(usage: TokenUsage): void {
    this.state.usage = addUsage(this.state.usage, usage);
  }

  /** The questions asked so far, as the model sees them (to not ask them again). */
  asked() {
    return this.state.questions.map((q) => ({
      id: q.id,
      targets: q.targets,
      filled: q.filled,
      question: q.question,
      ...(q.charged === false ? { charged: false } : {}),
    }));
  }

  /** The question is charged when asked, to the EADS actually pursued. */
  ask(draft: QuestionDraft): AskedQuestion {
    const s = this.state;
    s.questionsAsked++;
    this.current = { ...draft, id: `q${s.questionsAsked}`, eads_id: s.plan.id, budget_cost: s.plan.budgetDecrement };
    return this.current;
  }

  /** A question the pursuit was finalized on before it was answered. */
  recordFinalizedUnanswered(question: AskedQuestion): void {
    this.recordUnanswered(question, 'not answered: the pursuit was finalized');
  }

  private recordUnanswered(question: AskedQuestion, why: string): void {
    this.state.questions.push({
      id: question.id,
      question: question.question,
      question_type: question.question_type,
      targets: question.targets,
      answer: '',
      filled: [],
      commit_notes: why,
    });
    this.current = null;
  }

  /** Nobody answered `question` within the idle timeout: the pursuit ends with what it has. */
  abandon(question: AskedQuestion, minutes: number): void {
    this.recordUnanswered(question, `not answered within ${minutes} minute(s)`);
    this.status = 'abandoned';
    this.error = undefined;
    this.abandonedNote = `abandoned: ${question.id} was not answered within ${minutes} minute(s)`;
  }

  /** An answer that could not be read (a table, a choice) may be asked again for free, a few times per pursuit. */
  mayWaiveCharge(unread: boolean | undefined): boolean {
    return !!unread && (this.state.freeQuestions ?? 0) < MAX_FREE_QUESTIONS;
  }

  waiveCharge(): void {
    this.state.freeQuestions = (this.state.freeQuestions ?? 0) + 1;
  }

  /** Applies what an answer changed and keeps the reply for the `answer` update waiting on it. */
  recordAnswer(question: AskedQuestion, answer: string, refinement: Refinement): AnswerResult {
    const s = this.state;
    const { update, notes, exhausted, free } = refinement;
    s.dataStructure = mergeRefinement(s.dataStructure, update);
    s.exhausted = exhausted;
    const filled = Object.keys(update);
    s.questions.push({
      id: question.id,
      question: question.question,
      question_type: question.question_type,
      targets: question.targets,
      answer,
      filled,
      commit_notes: notes,
      ...(free ? { charged: false } : {}),
    });
    const after = this.completion();
    const ends = after.completeness >= 1 || exhausted || !canAffordQuestion(this.charged(), s.plan.budgetDecrement);
    const result: AnswerResult = {
      question_id: question.id,
      data_structure_update: update,
      commit_notes: notes,
      completeness: after.completeness,
      next_action: ends ? 'complete' : filled.length ? 'continue' : 'needs_clarification',
    };
    this.results.set(question.id, result);
    this.pending = null;
    this.current = null;
    return result;
  }

  fail(error: string): void {
    this.status = 'failed';
    this.error = error;
  }

  /** The state the next run continues from. */
  resumeState(): PursuitState {
    return { ...this.state, runs: this.state.runs + 1, finalizeNotes: this.finalizeNotes };
  }

  budgetUsed(): number {
    return budgetUsed(this.charged(), this.state.plan.budgetDecrement);
  }

  result(): PursuitResult {
    const s = this.state;
    const final = this.completion();
    const used = this.budgetUsed();
    return {
      eadsId: s.plan.id,
      name: s.plan.name,
      interviewer: s.plan.interviewer,
      pursuitNo: this.input.pursuitNo,
      status: this.status as PursuitResult['status'],
      dataStructure: s.dataStructure,
      completedFields: final.completedFields,
      remainingFields: final.remainingFields,
      completeness: final.completeness,
      budgetUsed: used,
      budgetRemaining: Math.round((1 - used) * 1e6) / 1e6,
      budgetDecrement: s.plan.budgetDecrement,
      questions: s.questions,
      notes:
        this.error ??
        this.abandonedNote ??
        this.finalizeNotes ??
        `${this.status} after ${s.questionsAsked} question(s)`,
      ...(this.error ? { error: this.error } : {}),
      usage: s.usage,
      runs: s.runs,
    };
  }
}
