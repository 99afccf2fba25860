/**
 * `writeResearchProposal`: interview (interactive mode) → problem formulation with a
 * literature search → objectives → methodology → data collection plan → quality control, with a
 * bounded refinement loop, an optional review gate, and a PDF written by an activity.
 *
 * Every step moves an explicit state machine (workflows/proposal/state-machine.ts); the
 * transitions, with workflow timestamps, come back in the result and through the
 * `proposalState` query. An unrecoverable stage error ends in the ERROR state with the message
 * in the result; retryable faults are retried by Temporal per activity.
 */
import {
  ActivityFailure,
  ApplicationFailure,
  condition,
  isCancellation,
  patched,
  proxyActivities,
  setHandler,
} from '@temporalio/workflow';
import type { createProposalActivities, LiteratureHit } from '../activities/proposal';
import { addUsage, formatZodError, zeroUsage, type TokenUsage } from '../contracts/common';
import {
  MAX_REVIEW_ROUNDS,
  researchProposalFlow,
  reviewDecisionSchema,
  userProfileSchema,
  type DataCollectionPlan,
  type MethodologyRecommendation,
  type ProblemDefinition,
  type ProposalDocument,
  type ProposalOutput,
  type ProposalState,
  type QualityValidation,
  type RefinementRound,
  type ResearchObjectives,
  type ReviewDecision,
  type UserProfile,
} from '../contracts/proposal';
import { beginFlow } from './lib/flow';
import { Interview } from './proposal/interview';
import {
  answerQuestionUpdate,
  currentQuestionQuery,
  proposalStateQuery,
  reviewProposalUpdate,
} from '../contracts/proposal-messages';
import { chooseBest } from '../domain/proposal-quality';
import { ProposalStateMachine } from './proposal/state-machine';
import { FailureType } from '../contracts/failures';

type ProposalActivities = ReturnType<typeof createProposalActivities>;

// The search is quick and cheap: fail over fast.
// Asking in the model's words is a nicety: quick, few retries, and the form's wording otherwise.
const { interviewStyle, phraseInterviewQuestion } = proxyActivities<ProposalActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumAttempts: 2 },
});
/** Interviews started after this change ask in the model's words when a general model is configured. */
export const CONVERSATIONAL_INTERVIEW_PATCH = 'conversational-interview';
const { searchLiterature } = proxyActivities<ProposalActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumAttempts: 5 },
});
// Model stages: the original design's retry policy (5 attempts, exponential base 7) on 429/5xx/time-outs;
// permanent errors (400/401/403/404) are non-retryable failures and stop at once.
const { formulateProblem, defineObjectives, recommendMethodology, planDataCollection, checkQuality } =
  proxyActivities<ProposalActivities>({
    startToCloseTimeout: '3 minutes',
    heartbeatTimeout: '15 seconds',
    retry: { initialInterval: '1 second', backoffCoefficient: 7, maximumInterval: '2 minutes', maximumAttempts: 5 },
  });
// The render heartbeats, so a worker lost mid-render is noticed in 10 s rather than at the 1-minute time-out.
const { renderProposalPdf } = proxyActivities<ProposalActivities>({
  startToCloseTimeout: '1 minute',
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumAttempts: 3 },
});

/** The open question in the model's words (the form's wording stays when the model cannot). */
async function rephraseOpenQuestion(interview: Interview): Promise<void> {
  const form = interview.formQuestion();
  const view = interview.current;
  if (!form || !view) return;
  const phrased = await phraseInterviewQuestion({
    field: form.field,
    prompt: form.prompt,
    hint: form.hint,
    number: view.number,
    of: view.of,
    conversation: interview.conversation(),
  });
  if (phrased) interview.rephrase(form.field, phrased.prompt);
}

/** One complete pass through the stages. */
interface Version {
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

function asProposalDocument(v: Version): ProposalDocument {
  return {
    title: v.title,
    problem_definition: v.problem,
    research_objectives: v.objectives,
    methodology: v.methodology,
    data_collection_plan: v.plan,
    quality_validation: v.quality,
  };
}

function toRound(v: Version): RefinementRound {
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

/** The failure's own message: an activity failure wraps the real cause. */
function describeFailure(err: unknown): { message: string; type: string | null } {
  if (err instanceof ActivityFailure && err.cause) {
    const cause = err.cause;
    return { message: cause.message, type: cause instanceof ApplicationFailure ? (cause.type ?? null) : cause.name };
  }
  return {
    message: err instanceof Error ? err.message : String(err),
    type: err instanceof ApplicationFailure ? (err.type ?? null) : null,
  };
}

export async function writeResearchProposal(rawInput: unknown): Promise<ProposalOutput> {
  const { input, progress } = beginFlow(researchProposalFlow.type, researchProposalFlow.input, rawInput);
  const sm = new ProposalStateMachine(() => new Date().toISOString());
  const idleMs = input.idleTimeoutMinutes * 60_000;
  let usage: TokenUsage = zeroUsage();
  const spend = (u: TokenUsage) => {
    usage = addUsage(usage, u);
    progress.tokens(u);
  };

  // Created before the handlers are set: an answer sent with the start (or before the first
  // workflow task runs) is dispatched the moment its handler is set, and must find its question.
  const interview: Interview | undefined =
    input.mode === 'interactive' ? new Interview(input.profile ?? {}) : undefined;
  /** False once the interview stopped taking answers (finished or abandoned). */
  let interviewOpen = interview !== undefined;
  let profile: UserProfile | null = null;
  const versions: Version[] = [];
  let cycleStart = 0;
  let autoRefinements = 0;
  let awaiting: 'answer' | 'review' | null = null;
  let pendingReview: ReviewDecision | undefined;
  const reviews: ProposalOutput['review']['rounds'] = [];
  let reviewRequests = 0;
  let chosen: Version | undefined;

  const enter = (state: ProposalState, stage: string, note?: string) => {
    sm.transition(state, note);
    progress.stage(stage, note ?? '');
  };

  setHandler(currentQuestionQuery, () => (interviewOpen ? (interview?.current ?? null) : null));
  setHandler(proposalStateQuery, () => ({
    state: sm.state,
    transitions: sm.history,
    awaiting,
    round: versions.length,
    draft:
      awaiting === 'review' && chosen
        ? {
            title: chosen.title,
            overall: chosen.quality.overall_quality_score,
            passed: chosen.quality.validation_passed,
            issues: chosen.quality.issues_identified.map((i) => `[${i.severity}] ${i.description}`),
          }
        : null,
  }));
  setHandler(
    answerQuestionUpdate,
    (answer) => {
      const next = interview!.accept(answer);
      return interviewOpen ? next : null;
    },
    {
      // Synchronous by contract: a bad answer is rejected before it reaches history, and the question stays open.
      validator: (answer) => {
        if (!interview)
          throw ApplicationFailure.create({
            type: FailureType.NoOpenQuestion,
            message: 'no interview question is open',
          });
        interview.check(answer, interviewOpen);
      },
    },
  );
  setHandler(
    reviewProposalUpdate,
    (decision) => {
      pendingReview = reviewDecisionSchema.parse(decision);
      return { accepted: pendingReview.decision };
    },
    {
      validator: (decision) => {
        if (awaiting !== 'review' || pendingReview)
          throw ApplicationFailure.create({
            type: FailureType.NoReviewOpen,
            message: `no proposal is awaiting review (state ${sm.state})`,
          });
        const parsed = reviewDecisionSchema.safeParse(decision);
        if (!parsed.success)
          throw ApplicationFailure.create({ type: FailureType.InvalidReview, message: formatZodError(parsed.error) });
        if (parsed.data.decision === 'request-changes' && reviewRequests >= MAX_REVIEW_ROUNDS) {
          throw ApplicationFailure.create({
            type: FailureType.ReviewLimit,
            message: `at most ${MAX_REVIEW_ROUNDS} change requests; approve the proposal or let the review time out`,
          });
        }
      },
    },
  );

  const result = (status: ProposalOutput['status'], extra: Partial<ProposalOutput> = {}): ProposalOutput => {
    const best = chosen ?? chooseBest(versions);
    const passed = best?.quality.validation_passed ?? false;
    return {
      status,
      state: sm.state,
      mode: input.mode,
      title: best?.title ?? null,
      profile,
      proposal: best ? asProposalDocument(best) : null,
      unresolvedIssues: best && !passed ? best.quality.issues_identified.filter((i) => i.severity !== 'minor') : [],
      refinement: {
        maxRefinements: input.maxRefinements,
        refinements: autoRefinements,
        limitReached:
          autoRefinements >= input.maxRefinements &&
          versions.length > 0 &&
          !versions[versions.length - 1].quality.validation_passed,
        chosenRound: best?.round ?? null,
        history: versions.map(toRound),
      },
      interview: interview
        ? { asked: interview.asked, answered: interview.answered, outcome: interview.done ? 'completed' : 'abandoned' }
        : null,
      review: { required: input.review, outcome: input.review ? 'not-reached' : 'not-requested', rounds: reviews },
      pdf: null,
      transitions: sm.history,
      error: null,
      usage,
      ...extra,
    };
  };

  let failedIn: ProposalState = sm.state;
  try {
    // --- Interview (interactive) or the given profile (autonomous)
    if (input.mode === 'interactive') {
      if (!interview) throw ApplicationFailure.nonRetryable('interactive mode without an interview', 'InvalidState');
      enter('INTERVIEWING', 'interview', `${interview.asked} question(s)`);
      awaiting = 'answer';
      const conversational = patched(CONVERSATIONAL_INTERVIEW_PATCH) && (await interviewStyle()) === 'conversational';
      while (!interview.done) {
        if (conversational) await rephraseOpenQuestion(interview);
        const q = interview.current!;
        const before = interview.answered;
        progress.waiting(`question ${q.number}/${q.of}: ${q.prompt}`);
        // Durable wait: survives worker restarts; an idle interview ends cleanly at the timeout.
        const answered = await condition(() => interview.answered > before, idleMs);
        if (!answered) {
          awaiting = null;
          interviewOpen = false;
          sm.transition('ABANDONED', `no answer to "${q.field}" within ${input.idleTimeoutMinutes} minute(s)`);
          progress.finish('cancelled', `interview abandoned at question ${q.number}/${q.of}`);
          return result('abandoned');
        }
      }
      awaiting = null;
      interviewOpen = false;
      profile = interview.profile();
    } else {
      profile = userProfileSchema.parse(input.profile);
    }

    // --- Stages, quality control, bounded refinement, optional review
    let trigger: RefinementRound['trigger'] = 'initial';
    let feedback: string[] = [];
    let previous: ProblemDefinition | undefined;
    for (;;) {
      const round = versions.length;
      const label = `version ${round + 1}`;
      failedIn = 'PROBLEM_FORMULATION';
      enter('PROBLEM_FORMULATION', 'problem formulation', label);
      const hits: LiteratureHit[] = await searchLiterature(profile, previous?.key_variables ?? []);
      const pf = await formulateProblem({ profile, hits, round, previous, feedback });
      spend(pf.usage);

      failedIn = 'OBJECTIVES';
      enter('OBJECTIVES', 'objectives', label);
      const objectives = await defineObjectives(profile, pf.definition);
      spend(objectives.usage);

      failedIn = 'METHODOLOGY';
      enter('METHODOLOGY', 'methodology', label);
      const methodology = await recommendMethodology(profile, pf.definition, objectives.data);
      spend(methodology.usage);

      failedIn = 'DATA_COLLECTION';
      enter('DATA_COLLECTION', 'data collection plan', label);
      const plan = await planDataCollection(profile, objectives.data, methodology.data);
      spend(plan.usage);

      failedIn = 'QUALITY_CONTROL';
      enter('QUALITY_CONTROL', 'quality control', label);
      const quality = await checkQuality({
        profile,
        problem: pf.definition,
        objectives: objectives.data,
        methodology: methodology.data,
        plan: plan.data,
      });
      spend(quality.usage);
      const version: Version = {
        round,
        trigger,
        feedback,
        title: pf.title,
        problem: pf.definition,
        objectives: objectives.data,
        methodology: methodology.data,
        plan: plan.data,
        quality: quality.data,
      };
      versions.push(version);
      progress.advance(
        1,
        `${label}: overall ${quality.data.overall_quality_score}, ${quality.data.validation_passed ? 'passed' : 'not passed'}`,
      );

      if (!quality.data.validation_passed && autoRefinements < input.maxRefinements) {
        autoRefinements++;
        enter(
          'REFINEMENT',
          'refinement',
          `quality ${quality.data.overall_quality_score} not passed: refinement ${autoRefinements}/${input.maxRefinements}`,
        );
        trigger = 'quality-control';
        feedback = quality.data.recommendations;
        previous = pf.definition;
        continue;
      }
      // Passed, or the limit is reached: keep the best version of this cycle (since the last review).
      chosen = chooseBest(versions.slice(cycleStart))!;

      if (!input.review) break;
      failedIn = 'AWAITING_REVIEW';
      enter(
        'AWAITING_REVIEW',
        'review',
        `version ${chosen.round + 1}, overall ${chosen.quality.overall_quality_score}`,
      );
      awaiting = 'review';
      progress.waiting(`waiting for approve / request-changes on version ${chosen.round + 1}`);
      const decided = await condition(() => pendingReview !== undefined, idleMs);
      awaiting = null;
      if (!decided) {
        sm.transition('ABANDONED', `no review decision within ${input.idleTimeoutMinutes} minute(s)`);
        progress.finish('cancelled', 'review timed out');
        return result('abandoned', { review: { required: true, outcome: 'timed-out', rounds: reviews } });
      }
      const decision: ReviewDecision = pendingReview!;
      pendingReview = undefined;
      reviews.push({
        decision: decision.decision,
        ...(decision.comments ? { comments: decision.comments } : {}),
        at: new Date().toISOString(),
      });
      if (decision.decision === 'approve') break;
      reviewRequests++;
      enter('REFINEMENT', 'refinement', `review requested changes (${reviewRequests}/${MAX_REVIEW_ROUNDS})`);
      trigger = 'review';
      feedback = [decision.comments!];
      previous = chosen.problem;
      cycleStart = versions.length;
      chosen = undefined;
    }

    // --- PDF (written by an activity; only its path comes back)
    const final = chosen!;
    failedIn = 'RENDERING_PDF';
    enter('RENDERING_PDF', 'pdf', final.title);
    const unresolved = final.quality.validation_passed
      ? []
      : final.quality.issues_identified.filter((i) => i.severity !== 'minor');
    const pdf = await renderProposalPdf({
      generatedAt: new Date().toISOString(),
      profile,
      proposal: asProposalDocument(final),
      history: versions.map(toRound),
      chosenRound: final.round,
      unresolvedIssues: unresolved,
      review: reviews,
    });
    sm.transition(
      'COMPLETE',
      final.quality.validation_passed
        ? 'quality control passed'
        : `best version kept after ${autoRefinements} refinement(s)`,
    );
    progress.finish('completed', `${final.title}: ${pdf.path}`);
    return result(final.quality.validation_passed ? 'completed' : 'completed_with_issues', {
      pdf,
      review: { required: input.review, outcome: input.review ? 'approved' : 'not-requested', rounds: reviews },
    });
  } catch (err) {
    // Cancellation and programming errors (e.g. an invalid transition) are not proposal errors.
    if (isCancellation(err) || !(err instanceof ActivityFailure)) throw err;
    const { message, type } = describeFailure(err);
    awaiting = null;
    sm.transition('ERROR', message);
    progress.finish('failed', `${failedIn}: ${message}`);
    return result('error', { error: { state: failedIn, message, type } });
  }
}
