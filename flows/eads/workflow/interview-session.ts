/**
 * The state of one `runEadsInterview` run, with its query and update handlers and their
 * validators. The workflow function binds the handlers (setHandler) and drives the loop; the
 * reads and checks here are plain code, so unit tests construct a session and call them.
 */
import { ApplicationFailure, condition, getExternalWorkflowHandle } from '@temporalio/workflow';
import type { z } from 'zod';
import { addUsage, excerpt, formatZodError, zeroUsage, type TokenUsage } from '../../../contracts/common';
import {
  eadsIdSchema,
  finalizePursuitSignal,
  type ConversationHistory,
  type EadsCatalogEntry,
  type InterviewState,
  type InterviewStep,
  type InterviewView,
  type NextStepInput,
  type OrchestratorRequest,
  type PursuitContext,
  type PursuitRecord,
  type PursuitResult,
  type Recommendation,
  type RunEadsInterviewOutput,
  type runEadsInterviewInput,
  type StartPursuitResult,
} from '../contract';
import { aggregateScr, type AggregatedScr, type Facts } from '../../../domain/eads-structure';
import { FailureType } from '../../../contracts/failures';
import { nextValue, type Wait } from '../../lib/workflow/next-value';
import type { InterviewSchedule } from './schedule-step';

export type InterviewInput = z.output<typeof runEadsInterviewInput>;

/** The EADS to pursue next, where the choice came from, and why. */
export interface PursuitChoice {
  eadsId: string;
  source: PursuitRecord['source'];
  rationale: string;
}

/** The latest pursuit of each EADS (re-pursuing an EADS replaces its earlier result). */
function latestByEads(pursuits: PursuitRecord[]): PursuitRecord[] {
  const latest = new Map<string, PursuitRecord>();
  for (const p of pursuits) if (p.status !== 'failed' || !latest.has(p.eadsId)) latest.set(p.eadsId, p);
  return [...latest.values()];
}

/** A field's value in the latest successful pursuit that has it (e.g. `principal-problem-type`). */
function fieldValue(pursuits: PursuitRecord[], field: string): unknown {
  for (const p of [...pursuits].reverse())
    if (p.status !== 'failed' && p.dataStructure[field] !== undefined) return p.dataStructure[field];
  return undefined;
}

/** What the interview has learnt so far that every pursuit's questions should build on. */
export function interviewContext(pursuits: PursuitRecord[]): PursuitContext {
  const product = fieldValue(pursuits, 'product-or-service-name');
  const problemType = fieldValue(pursuits, 'principal-problem-type');
  const challenges = fieldValue(pursuits, 'scheduling-challenges');
  return {
    ...(typeof product === 'string' ? { product } : {}),
    ...(typeof problemType === 'string' ? { problemType } : {}),
    schedulingChallenges: Array.isArray(challenges) ? challenges.filter((c): c is string => typeof c === 'string') : [],
  };
}

function summary(p: PursuitRecord) {
  return {
    pursuitNo: p.pursuitNo,
    eadsId: p.eadsId,
    status: p.status,
    completeness: p.completeness,
    questions: p.questions.length,
    budgetUsed: p.budgetUsed,
    source: p.source,
    interviewer: p.interviewer,
    childWorkflowId: p.childWorkflowId,
    runs: p.runs,
  };
}

export class InterviewSession {
  /** The EADS library; empty until the workflow has loaded it. */
  catalog: EadsCatalogEntry[] = [];
  phase: InterviewView['status'] = 'starting';
  /** The pursuit running now. */
  current: InterviewView['current'] = null;
  /** The orchestrator's latest pick. */
  nextEads: Recommendation | null = null;
  /** A guided interview's `startPursuit` waiting to be started by the loop. */
  startRequest: string | null = null;
  /** Set by `finishInterview`: the loop stops at the next pursuit boundary. */
  finishReason: string | null = null;
  outcome: RunEadsInterviewOutput['status'] | null = null;
  schedule: InterviewSchedule | undefined;
  /** Set once the interview has ended, just before the workflow returns it: `nextStep` replies with it. */
  finalOutput: RunEadsInterviewOutput | undefined;
  /** `nextStep` updates waiting now; the run continues as new only once they have replied. */
  stepWaiters = 0;
  /** The run is about to continue as new: waiting `nextStep` updates reply `continuing`. */
  continuing = false;
  /** How the handlers wait in the workflow (unit tests drive their own). */
  wait: Wait = condition;
  /** Abandoned: where a resumed interview picks up (the EADS left unanswered), and why it stopped. */
  private abandoned: { next: Recommendation; reason: string } | null = null;
  readonly state: InterviewState;

  constructor(readonly input: InterviewInput) {
    // Validated by the input schema (interviewResumeSchema): continue-as-new state, or a starter's.
    this.state = (input.resume as InterviewState | undefined) ?? {
      version: 1,
      pursuits: [],
      usage: zeroUsage(),
      runs: 1,
      orchestratorLog: [],
    };
  }

  /** A surrogate interview's first run introduces the firm the model plays. */
  get introducesSurrogate(): boolean {
    return this.input.mode === 'surrogate' && this.state.runs === 1 && this.state.pursuits.length === 0;
  }

  get pursuitCount(): number {
    return this.state.pursuits.length;
  }

  private entry(eadsId: string): EadsCatalogEntry | undefined {
    return this.catalog.find((c) => c.id === eadsId);
  }

  private libraryIds(): string {
    return this.catalog.map((c) => c.id).join(', ');
  }

  // --- Queries

  view(): InterviewView {
    const context = interviewContext(this.state.pursuits);
    return {
      projectId: this.input.projectId,
      mode: this.input.mode,
      orchestration: this.input.orchestration,
      status: this.phase,
      current: this.current,
      nextEads: this.nextEads,
      pursuits: this.state.pursuits.map(summary),
      product: context.product ?? null,
      problemType: context.problemType ?? null,
      schedulingChallenges: context.schedulingChallenges,
      usage: this.state.usage,
      runs: this.state.runs,
    };
  }

  history(): ConversationHistory {
    const schedule = this.schedule;
    return {
      scheduling_challenges: interviewContext(this.state.pursuits).schedulingChallenges,
      activities: this.state.pursuits.map((p) => ({
        pursuing_eads: p.eadsId,
        pursuit_no: p.pursuitNo,
        status: p.status,
        questions_answers: p.questions.map((q) => ({ question: q.question, answer: q.answer })),
        summary_ds: p.dataStructure,
      })),
      ...(schedule && 'minizinc' in schedule
        ? { minizinc: schedule.minizinc, minizinc_results: schedule.minizinc_results }
        : {}),
    };
  }

  /** The SCR merged from the latest successful pursuit of each EADS (of those in `filter`). */
  scr(filter?: string[]): AggregatedScr {
    return aggregateScr(
      latestByEads(this.state.pursuits)
        .filter((p) => p.status !== 'failed')
        .map((p) => ({
          eadsId: p.eadsId,
          dataStructure: p.dataStructure,
          appliesWhen: this.entry(p.eadsId)?.appliesWhen,
        })),
      filter,
    );
  }

  /** The `aggregatedScr` query: a query cannot be refused before it runs, so its argument is checked here. */
  aggregatedScr(filter: unknown): AggregatedScr {
    if (filter != null && !(Array.isArray(filter) && filter.every((f) => typeof f === 'string')))
      throw new Error('filter must be a list of EADS ids');
    return this.scr((filter as string[] | null | undefined) ?? undefined);
  }

  record(eadsId: string): PursuitRecord | null {
    return [...this.state.pursuits].reverse().find((p) => p.eadsId === eadsId) ?? null;
  }

  // --- startPursuit

  validateStartPursuit(arg: { eadsId: string }): void {
    if (this.outcome !== null || this.finishReason !== null) throw new Error('the interview has finished');
    const id = eadsIdSchema.safeParse(arg?.eadsId);
    if (!id.success) throw new Error(`invalid eadsId: ${formatZodError(id.error)}`);
    if (this.catalog.length && !this.entry(arg.eadsId))
      throw new Error(`unknown EADS ${excerpt(arg.eadsId)}; the library has ${this.libraryIds()}`);
    if (this.input.orchestration === 'auto') {
      if (this.current?.eadsId !== arg.eadsId) {
        throw new Error(
          `this interview is orchestrated automatically and is pursuing ${this.current?.eadsId ?? 'nothing yet'}; start it with orchestration "guided" to choose EADS`,
        );
      }
      return;
    }
    if (this.current) throw new Error(`already pursuing ${this.current.eadsId}; finalize it first`);
    if (this.startRequest) throw new Error(`a pursuit of ${this.startRequest} is already being started`);
  }

  /** Guided: asks the loop to pursue `eadsId`. Both modes: replies once its child workflow has started. */
  async startPursuit({ eadsId }: { eadsId: string }): Promise<StartPursuitResult> {
    if (this.input.orchestration === 'guided') {
      await condition(() => this.catalog.length > 0 || this.outcome !== null);
      if (!this.entry(eadsId)) {
        throw ApplicationFailure.create({
          message: `unknown EADS ${excerpt(eadsId)}; the library has ${this.libraryIds()}`,
          type: FailureType.UnknownEads,
          nonRetryable: true,
        });
      }
      this.startRequest = eadsId;
    }
    await condition(
      () => (this.current?.eadsId === eadsId && this.current.childWorkflowId !== '') || this.outcome !== null,
    );
    return this.startedReply(eadsId);
  }

  /** The `startPursuit` reply for `eadsId`, or the failure saying the interview ended first. */
  startedReply(eadsId: string): StartPursuitResult {
    const current = this.current;
    if (!current || current.eadsId !== eadsId) {
      throw ApplicationFailure.create({
        message: `the interview ended (${this.outcome}) before ${excerpt(eadsId)} started`,
        type: FailureType.InterviewEnded,
        nonRetryable: true,
      });
    }
    return {
      eads_id: eadsId,
      pursuit_no: current.pursuitNo,
      child_workflow_id: current.childWorkflowId,
      budget: 1,
      budget_decrement: this.entry(eadsId)?.budgetDecrement ?? 0,
    };
  }

  // --- nextStep

  validateNextStep(arg: NextStepInput | undefined): void {
    if (arg !== undefined && (typeof arg !== 'object' || arg === null || Array.isArray(arg)))
      throw new Error('the argument must be an object: { afterPursuit?: string }');
    const unknown = Object.keys(arg ?? {}).filter((k) => k !== 'afterPursuit');
    if (unknown.length)
      throw new Error(`unknown field ${excerpt(unknown[0])}; the argument is { afterPursuit?: string }`);
    if (
      arg?.afterPursuit !== undefined &&
      (typeof arg.afterPursuit !== 'string' || arg.afterPursuit.length === 0 || arg.afterPursuit.length > 300)
    )
      throw new Error('afterPursuit must be a pursuit workflow id (1 to 300 characters)');
  }

  /** What the client does next, as soon as the interview has it (never `after`, a pursuit the client saw end). */
  nextStep(after?: string): InterviewStep | null {
    if (this.finalOutput) return { kind: 'ended', view: this.view(), result: this.finalOutput };
    if (this.continuing) return { kind: 'continuing' };
    const current = this.current;
    if (current && current.childWorkflowId !== '' && current.childWorkflowId !== after)
      return { kind: 'pursuing', view: this.view(), pursuit: current };
    if (this.phase === 'awaiting-start' && !current && this.nextEads?.eads_id && this.startRequest === null)
      return { kind: 'awaiting-start', view: this.view(), recommendation: this.nextEads };
    return null;
  }

  /** The `nextStep` update: replies once there is a next step (the early-return pattern). */
  async awaitNextStep(arg: NextStepInput | undefined): Promise<InterviewStep> {
    const after = arg?.afterPursuit;
    this.stepWaiters++;
    try {
      return await nextValue(() => this.nextStep(after), this.wait);
    } finally {
      this.stepWaiters--;
    }
  }

  // --- finishInterview

  validateFinish(arg: { reason?: string } | undefined): void {
    if (this.outcome !== null) throw new Error(`the interview has already ended (${this.outcome})`);
    if (arg !== undefined && (typeof arg !== 'object' || arg === null || Array.isArray(arg)))
      throw new Error('the argument must be an object: { reason?: string }');
    if (arg?.reason !== undefined && (typeof arg.reason !== 'string' || arg.reason.length > 1000))
      throw new Error('reason must be a string of at most 1000 characters');
  }

  /** Stops the loop (finalizing the running pursuit) and replies when the interview has ended. */
  async finish(arg: { reason?: string } | undefined): Promise<{ status: string; pursuits: number }> {
    this.finishReason ??= arg?.reason ?? 'finish requested';
    if (this.current) await this.finalizeRunningPursuit(this.current.childWorkflowId);
    await condition(() => this.outcome !== null);
    return { status: this.outcome!, pursuits: this.state.pursuits.length };
  }

  /** Tells a pursuit the interview is finishing: it ends after the question it is on. */
  async finalizeRunningPursuit(childWorkflowId: string): Promise<void> {
    await getExternalWorkflowHandle(childWorkflowId).signal(finalizePursuitSignal, {
      notes: `interview finished: ${this.finishReason}`,
    });
  }

  // --- The loop's bookkeeping

  /** The pick carried over continue-as-new, taken once. */
  takePendingRecommendation(): Recommendation | undefined {
    const pending = this.state.pendingRecommendation;
    delete this.state.pendingRecommendation;
    return pending;
  }

  /** What the orchestrator decides from: the EADS pursued, the facts prerequisites test, the conversation. */
  orchestratorRequest(): OrchestratorRequest {
    const pursuits = this.state.pursuits;
    // A failed or abandoned pursuit leaves its EADS to be pursued again.
    const pursued = [
      ...new Set(pursuits.filter((p) => p.status !== 'failed' && p.status !== 'abandoned').map((p) => p.eadsId)),
    ];
    const facts: Facts = {};
    for (const c of this.catalog) {
      if (!c.appliesWhen) continue;
      const source = latestByEads(pursuits).find((p) => p.eadsId === c.appliesWhen!.eads && p.status !== 'failed');
      facts[`${c.appliesWhen.eads}.${c.appliesWhen.field}`] = source?.dataStructure[c.appliesWhen.field];
    }
    const context = interviewContext(pursuits);
    return {
      pursued,
      facts,
      conversation: {
        product: context.product ?? null,
        problem_type: context.problemType ?? null,
        scheduling_challenges: context.schedulingChallenges,
        completed: pursuits.map((p) => ({ eads_id: p.eadsId, status: p.status, completeness: p.completeness })),
      },
    };
  }

  recordChoice(recommendation: Recommendation, usage: TokenUsage): void {
    this.state.usage = addUsage(this.state.usage, usage);
    this.state.orchestratorLog.push({
      eads_id: recommendation.eads_id,
      source: recommendation.source,
      rationale: recommendation.rationale,
    });
  }

  /** The state the next run continues from, pursuing `recommendation` first. */
  resumeState(recommendation: Recommendation): InterviewState {
    return { ...this.state, pendingRecommendation: recommendation, runs: this.state.runs + 1 };
  }

  /** Auto: the orchestrator's pick. */
  recommendedChoice(): PursuitChoice {
    const next = this.nextEads!;
    return { eadsId: next.eads_id!, source: next.source as PursuitRecord['source'], rationale: next.rationale };
  }

  /** Guided: the requested EADS, the orchestrator's rationale when it is the recommended one. */
  takeStartRequest(): PursuitChoice {
    const eadsId = this.startRequest!;
    const next = this.nextEads!;
    this.startRequest = null;
    if (eadsId === next.eads_id)
      return { eadsId, source: next.source as PursuitRecord['source'], rationale: next.rationale };
    return {
      eadsId,
      source: 'requested',
      rationale: `chosen by the interviewer (the orchestrator recommended ${next.eads_id})`,
    };
  }

  /** Marks `choice` as the running pursuit (what `startPursuit` replies with). */
  beginPursuit(choice: PursuitChoice, pursuitNo: number, childWorkflowId: string): void {
    const interviewer = this.entry(choice.eadsId)?.interviewer ?? 'process';
    this.current = { eadsId: choice.eadsId, pursuitNo, childWorkflowId, rationale: choice.rationale, interviewer };
  }

  /** Nobody answered within the idle timeout: the interview ends, and `next` is pursued first when resumed. */
  abandon(next: Recommendation, reason: string): void {
    this.outcome = 'abandoned';
    this.abandoned = { next, reason };
  }

  /** Why the interview was abandoned, if it was. */
  get abandonedBecause(): string | null {
    return this.abandoned?.reason ?? null;
  }

  /** A recommendation to pursue `eadsId` again (the orchestrator's own when it is the one pursued). */
  recommendationFor(eadsId: string, choice: PursuitChoice): Recommendation {
    if (this.nextEads?.eads_id === eadsId) return this.nextEads;
    return {
      eads_id: eadsId,
      rationale: choice.rationale,
      interviewer_type: this.entry(eadsId)?.interviewer ?? null,
      priority: 1,
      source: 'fallback',
      exhausted: false,
      candidates: [eadsId],
    };
  }

  /** The result recorded for a pursuit whose workflow failed: nothing learnt, nothing charged. */
  failedPursuit(eadsId: string, pursuitNo: number, message: string): PursuitResult {
    const entry = this.entry(eadsId);
    return {
      eadsId,
      name: entry?.name ?? eadsId,
      interviewer: entry?.interviewer ?? 'process',
      pursuitNo,
      status: 'failed',
      dataStructure: { 'EADS-id': eadsId },
      completedFields: [],
      remainingFields: entry?.fields ?? [],
      completeness: 0,
      budgetUsed: 0,
      budgetRemaining: 1,
      budgetDecrement: entry?.budgetDecrement ?? 0,
      questions: [],
      notes: `the pursuit failed: ${message}`,
      error: message,
      usage: zeroUsage(),
      runs: 1,
    };
  }

  recordPursuit(result: PursuitResult, choice: PursuitChoice, childWorkflowId: string): void {
    this.state.pursuits.push({ ...result, childWorkflowId, rationale: choice.rationale, source: choice.source });
    this.state.usage = addUsage(this.state.usage, result.usage);
    this.current = null;
  }

  output(scr: AggregatedScr): RunEadsInterviewOutput {
    const context = interviewContext(this.state.pursuits);
    return {
      projectId: this.input.projectId,
      status: this.outcome!,
      product: context.product ?? null,
      problemType: context.problemType ?? null,
      schedulingChallenges: context.schedulingChallenges,
      pursuits: this.state.pursuits.map(summary),
      scr,
      questionsAsked: this.state.pursuits.reduce((n, p) => n + p.questions.length, 0),
      usage: this.state.usage,
      runs: this.state.runs,
      ...(this.abandoned ? { resume: this.resumeState(this.abandoned.next) } : {}),
      ...(this.schedule ? { schedule: this.schedule } : {}),
    };
  }
}
