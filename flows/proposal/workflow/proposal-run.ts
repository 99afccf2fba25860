/**
 * The state of one `writeResearchProposal` run: the state machine, the interview, the versions
 * drafted, the review gate, with the query and update handlers and their validators. The
 * workflow function binds the handlers (setHandler) and runs the stages; everything here is
 * plain code, so unit tests construct a run and call it.
 */
import { ApplicationFailure } from '@temporalio/common';
import { condition } from '@temporalio/workflow';
import { addUsage, formatZodError, zeroUsage, type TokenUsage } from '../../../contracts/common';
import {
  MAX_REVIEW_ROUNDS,
  reviewDecisionSchema,
  type DataCollectionPlan,
  type InterviewQuestionView,
  type MethodologyRecommendation,
  type ProblemDefinition,
  type ProposalDocument,
  type ProposalInput,
  type ProposalOutput,
  type ProposalState,
  type ProposalStateView,
  type QualityValidation,
  type RefinementRound,
  type ResearchObjectives,
  type ReviewDecision,
  type UserProfile,
} from '../contract';
import { FailureType } from '../../../contracts/failures';
import { nextValue, type Wait } from '../../lib/workflow/next-value';
import type { ProposalStep } from '../messages';
import { chooseBest } from '../quality';
import { Interview } from './interview';
import { ProposalStateMachine } from './state-machine';

/** One complete pass through the stages. */
export interface Version {
  round: number;
  trigger: RefinementRound['trigger'];
  feedback: string[];
  title: string;
  problem: ProblemDefinition;
  objectives: ResearchObjectives;
  methodology: MethodologyRecommendation;
  plan: DataCollectionPlan;
  quality: QualityValidation;
}

/** What the next version is drafted from: why it is drafted, the feedback, the problem it refines. */
export interface NextRound {
  trigger: RefinementRound['trigger'];
  feedback: string[];
  previous?: ProblemDefinition;
}

export function asProposalDocument(v: Version): ProposalDocument {
  return {
    title: v.title,
    problem_definition: v.problem,
    research_objectives: v.objectives,
    methodology: v.methodology,
    data_collection_plan: v.plan,
    quality_validation: v.quality,
  };
}

export function toRound(v: Version): RefinementRound {
  return {
    round: v.round,
    trigger: v.trigger,
    overall: v.quality.overall_quality_score,
    coherence: v.quality.coherence_score,
    feasibility: v.quality.feasibility_score,
    passed: v.quality.validation_passed,
    planWeeks: v.quality.feasibility_check.plan_weeks,
    secondaryQuestions: v.problem.secondary_questions.length,
    criticalIssues: v.quality.issues_identified.filter((i) => i.severity === 'critical').length,
    feedback: v.feedback,
  };
}

/** The issues a version leaves open: none when it passed, else all but the minor ones. */
export function unresolvedIssues(v: Version) {
  return v.quality.validation_passed ? [] : v.quality.issues_identified.filter((i) => i.severity !== 'minor');
}

export class ProposalRun {
  readonly sm: ProposalStateMachine;
  /** Interactive runs only. */
  readonly interview: Interview | undefined;
  /** False once the interview stopped taking answers (finished or abandoned). */
  interviewOpen: boolean;
  profile: UserProfile | null = null;
  readonly versions: Version[] = [];
  /** The first version drafted since the last review: the best of those is the one reviewed. */
  cycleStart = 0;
  autoRefinements = 0;
  awaiting: 'answer' | 'review' | null = null;
  pendingReview: ReviewDecision | undefined;
  readonly reviews: ProposalOutput['review']['rounds'] = [];
  reviewRequests = 0;
  /** The version kept for review and the PDF. */
  chosen: Version | undefined;
  next: NextRound = { trigger: 'initial', feedback: [] };
  usage: TokenUsage = zeroUsage();
  /** The state a stage error is reported in. */
  failedIn: ProposalState;
  /** The open question once it is worded and waited on (conversational interviews reword it first). */
  questionReady: string | null = null;
  /** `nextProposalStep` updates waiting now. */
  stepWaiters = 0;
  /** How the handlers wait in the workflow (unit tests drive their own). */
  wait: Wait = condition;
  /** The run's result, once known: waiting `nextProposalStep` updates reply with it. */
  finalOutput: ProposalOutput | undefined;

  /** `now` is the workflow's deterministic clock in the workflow, any clock in tests. */
  constructor(
    readonly input: ProposalInput,
    private readonly now: () => string = () => new Date().toISOString(),
  ) {
    this.sm = new ProposalStateMachine(now);
    this.failedIn = this.sm.state;
    // Created before the handlers are set: an answer sent with the start (or before the first
    // workflow task runs) is dispatched the moment its handler is set, and must find its question.
    this.interview = input.mode === 'interactive' ? new Interview(input.profile ?? {}) : undefined;
    this.interviewOpen = this.interview !== undefined;
  }

  // --- Queries

  currentQuestion(): InterviewQuestionView | null {
    return this.interviewOpen ? (this.interview?.current ?? null) : null;
  }

  stateView(): ProposalStateView {
    const draft = this.draftSummary();
    return {
      state: this.sm.state,
      transitions: this.sm.history,
      awaiting: this.awaiting,
      round: this.versions.length,
      // The query (never recorded) carries the document a reviewer reads; the nextProposalStep
      // update's reply, which history records, keeps to the summary.
      draft: draft && this.chosen ? { ...draft, document: asProposalDocument(this.chosen) } : draft,
    };
  }

  /** While awaiting review: the version to review, summarised. */
  private draftSummary(): NonNullable<ProposalStateView['draft']> | null {
    const chosen = this.chosen;
    return this.awaiting === 'review' && chosen
      ? {
          title: chosen.title,
          overall: chosen.quality.overall_quality_score,
          passed: chosen.quality.validation_passed,
          issues: chosen.quality.issues_identified.map((i) => `[${i.severity}] ${i.description}`),
        }
      : null;
  }

  // --- nextProposalStep

  validateNextStep(arg: unknown): void {
    if (arg !== undefined && (typeof arg !== 'object' || arg === null || Array.isArray(arg)))
      throw new Error('the argument must be an object: { after?: string }');
    const { after, ...rest } = (arg ?? {}) as { after?: unknown };
    if (Object.keys(rest).length) throw new Error('unknown field; the argument is { after?: string }');
    if (after !== undefined && (typeof after !== 'string' || after.length === 0 || after.length > 100))
      throw new Error('after must be a step id (1 to 100 characters)');
  }

  /** What the client does next (never the step `after`, one it has dealt with), or null for not yet. */
  nextStep(after?: string): ProposalStep | null {
    if (this.finalOutput) return { kind: 'ended', result: this.finalOutput };
    const question = this.currentQuestion();
    if (this.awaiting === 'answer' && question && this.questionReady === question.id && question.id !== after)
      return { kind: 'question', id: question.id, question };
    const draft = this.draftSummary();
    const reviewId = `review-${this.reviews.length + 1}`;
    if (draft && !this.pendingReview && reviewId !== after) return { kind: 'review', id: reviewId, draft };
    return null;
  }

  /** The `nextProposalStep` update: replies once there is a next step (the early-return pattern). */
  async awaitNextStep(arg: { after?: string } | undefined): Promise<ProposalStep> {
    this.stepWaiters++;
    try {
      return await nextValue(() => this.nextStep(arg?.after), this.wait);
    } finally {
      this.stepWaiters--;
    }
  }

  // --- answerQuestion

  /** Synchronous by contract: a bad answer is rejected before it reaches history, and the question stays open. */
  validateAnswer(answer: unknown): void {
    if (!this.interview)
      throw ApplicationFailure.create({ type: FailureType.NoOpenQuestion, message: 'no interview question is open' });
    this.interview.check(answer, this.interviewOpen);
  }

  /** Records the answer; replies with the next question (none once the interview stopped). */
  answer(answer: unknown): InterviewQuestionView | null {
    const next = this.interview!.accept(answer);
    return this.interviewOpen ? next : null;
  }

  /** The interview stopped taking answers (finished or abandoned). */
  closeInterview(): void {
    this.awaiting = null;
    this.interviewOpen = false;
  }

  // --- reviewProposal

  validateReview(decision: unknown): void {
    if (this.awaiting !== 'review' || this.pendingReview)
      throw ApplicationFailure.create({
        type: FailureType.NoReviewOpen,
        message: `no proposal is awaiting review (state ${this.sm.state})`,
      });
    const parsed = reviewDecisionSchema.safeParse(decision);
    if (!parsed.success)
      throw ApplicationFailure.create({ type: FailureType.InvalidReview, message: formatZodError(parsed.error) });
    if (parsed.data.decision === 'request-changes' && this.reviewRequests >= MAX_REVIEW_ROUNDS) {
      throw ApplicationFailure.create({
        type: FailureType.ReviewLimit,
        message: `at most ${MAX_REVIEW_ROUNDS} change requests; approve the proposal or let the review time out`,
      });
    }
  }

  review(decision: unknown): { accepted: ReviewDecision['decision'] } {
    this.pendingReview = reviewDecisionSchema.parse(decision);
    return { accepted: this.pendingReview.decision };
  }

  /** The decision the review gate waited for, recorded with the time it was taken. */
  takeReview(): ReviewDecision {
    const decision = this.pendingReview!;
    this.pendingReview = undefined;
    this.reviews.push({
      decision: decision.decision,
      ...(decision.comments ? { comments: decision.comments } : {}),
      at: this.now(),
    });
    return decision;
  }

  // --- Versions and refinement

  spend(usage: TokenUsage): void {
    this.usage = addUsage(this.usage, usage);
  }

  /** A version that failed quality control is refined, until `maxRefinements` automatic rounds. */
  refinesAfter(version: Version): boolean {
    return !version.quality.validation_passed && this.autoRefinements < this.input.maxRefinements;
  }

  /** Counts an automatic refinement and feeds the quality check's recommendations to the next version. */
  refineAfterQualityCheck(version: Version): void {
    this.autoRefinements++;
    this.next = { trigger: 'quality-control', feedback: version.quality.recommendations, previous: version.problem };
  }

  /** Passed, or the limit is reached: keeps the best version of this cycle (since the last review). */
  choose(): Version {
    this.chosen = chooseBest(this.versions.slice(this.cycleStart))!;
    return this.chosen;
  }

  /** The reviewer's comments feed one more cycle, refining the reviewed version. */
  requestChanges(decision: ReviewDecision): void {
    this.reviewRequests++;
    this.next = { trigger: 'review', feedback: [decision.comments!], previous: this.chosen!.problem };
    this.cycleStart = this.versions.length;
    this.chosen = undefined;
  }

  result(status: ProposalOutput['status'], extra: Partial<ProposalOutput> = {}): ProposalOutput {
    const { input, versions, interview } = this;
    const best = this.chosen ?? chooseBest(versions);
    const passed = best?.quality.validation_passed ?? false;
    return {
      status,
      state: this.sm.state,
      mode: input.mode,
      title: best?.title ?? null,
      profile: this.profile,
      proposal: best ? asProposalDocument(best) : null,
      unresolvedIssues: best && !passed ? best.quality.issues_identified.filter((i) => i.severity !== 'minor') : [],
      refinement: {
        maxRefinements: input.maxRefinements,
        refinements: this.autoRefinements,
        limitReached:
          this.autoRefinements >= input.maxRefinements &&
          versions.length > 0 &&
          !versions[versions.length - 1].quality.validation_passed,
        chosenRound: best?.round ?? null,
        history: versions.map(toRound),
      },
      interview: interview
        ? { asked: interview.asked, answered: interview.answered, outcome: interview.done ? 'completed' : 'abandoned' }
        : null,
      review: {
        required: input.review,
        outcome: input.review ? 'not-reached' : 'not-requested',
        rounds: this.reviews,
      },
      pdf: null,
      transitions: this.sm.history,
      error: null,
      usage: this.usage,
      ...extra,
    };
  }
}
