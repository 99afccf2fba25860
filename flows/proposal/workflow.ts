/**
 * `writeResearchProposal`: interview (interactive mode) → problem formulation with a
 * literature search → objectives → methodology → data collection plan → quality control, with a
 * bounded refinement loop, an optional review gate, and a PDF written by an activity.
 *
 * Every step moves an explicit state machine (flows/proposal/workflow/state-machine.ts); the
 * transitions, with workflow timestamps, come back in the result and through the
 * `proposalState` query. An unrecoverable stage error ends in the ERROR state and fails the run
 * (`ProposalStageFailed`, the partial result in the failure's details); retryable faults are
 * retried by Temporal per activity.
 *
 * The state, the handlers and their validators are in `ProposalRun` (proposal/proposal-run.ts).
 */
import {
  ActivityFailure,
  allHandlersFinished,
  ApplicationFailure,
  condition,
  isCancellation,
  patched,
  proxyActivities,
  setHandler,
} from '@temporalio/workflow';
import type { createProposalActivities } from './activities';
import type { TokenUsage } from '../../contracts/common';
import {
  MAX_REVIEW_ROUNDS,
  researchProposalFlow,
  userProfileSchema,
  type ProposalOutput,
  type ProposalState,
  type ReviewDecision,
} from './contract';
import { HandlerUnfinishedPolicy } from '@temporalio/common';
import {
  answerQuestionUpdate,
  currentQuestionQuery,
  nextProposalStepUpdate,
  proposalStateQuery,
  reviewProposalUpdate,
} from './messages';
import { LONG_MODEL, QUICK_READ, SEARCH, withOptions } from '../lib/workflow/activity-options';
import { recordEnd } from '../lib/workflow/ending';
import { beginFlow } from '../lib/workflow/flow';
import { FailureType } from '../../contracts/failures';
import type { ProgressTracker } from '../lib/workflow/progress';
import type { Interview } from './workflow/interview';
import { asProposalDocument, ProposalRun, toRound, unresolvedIssues, type Version } from './workflow/proposal-run';

type ProposalActivities = ReturnType<typeof createProposalActivities>;

// Asking in the model's words is a nicety: quick, few retries, and the form's wording otherwise.
const { interviewStyle, phraseInterviewQuestion } = proxyActivities<ProposalActivities>(
  withOptions(QUICK_READ, { retry: { initialInterval: '1 second', maximumAttempts: 2 } }),
);
/** Interviews started after this change ask in the model's words when a general model is configured. */
export const CONVERSATIONAL_INTERVIEW_PATCH = 'conversational-interview';
/** Runs started after this change fail when a stage fails (before, they completed with status `error`). */
export const STAGE_FAILURE_FAILS_RUN_PATCH = 'proposal-stage-failure-fails-run';
// The search is quick and cheap: fail over fast.
const { searchLiterature } = proxyActivities<ProposalActivities>(SEARCH);
// Model stages: the original design's retry policy (5 attempts, exponential base 7) on 429/5xx/time-outs;
// permanent errors (400/401/403/404) are non-retryable failures and stop at once.
const { formulateProblem, defineObjectives, recommendMethodology, planDataCollection, checkQuality } =
  proxyActivities<ProposalActivities>(LONG_MODEL);
// The render heartbeats, so a worker lost mid-render is noticed in 10 s rather than at the 1-minute time-out.
const { renderProposalPdf } = proxyActivities<ProposalActivities>(
  withOptions(QUICK_READ, {
    startToCloseTimeout: '1 minute',
    heartbeatTimeout: '10 seconds',
    retry: { initialInterval: '1 second' },
  }),
);

export async function writeResearchProposal(rawInput: unknown): Promise<ProposalOutput> {
  const { input, progress } = beginFlow(researchProposalFlow.type, researchProposalFlow.input, rawInput);
  const run = new ProposalRun(input);
  setHandler(currentQuestionQuery, () => run.currentQuestion());
  setHandler(proposalStateQuery, () => run.stateView());
  setHandler(answerQuestionUpdate, (answer) => run.answer(answer), {
    validator: (answer) => run.validateAnswer(answer),
  });
  setHandler(reviewProposalUpdate, (decision) => run.review(decision), {
    validator: (decision) => run.validateReview(decision),
  });
  // Clients wait here for what comes next instead of polling the queries (a read: a run that
  // fails while one waits leaves it unanswered, and the client sees the failure).
  setHandler(nextProposalStepUpdate, (arg) => run.awaitNextStep(arg), {
    validator: (arg) => run.validateNextStep(arg),
    unfinishedPolicy: HandlerUnfinishedPolicy.ABANDON,
  });

  const out = await proposal(run, progress);
  if (run.stepWaiters > 0) {
    // Clients waiting for the next step get the result with their reply. (Runs nobody waited on
    // this way end exactly as before.)
    run.finalOutput = out;
    await condition(allHandlersFinished);
  }
  return out;
}

/** The proposal from the interview (or the given profile) to the PDF, or how it ended early. */
async function proposal(run: ProposalRun, progress: ProgressTracker): Promise<ProposalOutput> {
  const { input } = run;
  try {
    if (input.mode === 'interactive') {
      if (!(await interview(run, progress))) return run.result('abandoned');
    } else {
      run.profile = userProfileSchema.parse(input.profile);
    }
    for (;;) {
      const version = await draftVersion(run, progress);
      if (run.refinesAfter(version)) {
        run.refineAfterQualityCheck(version);
        const score = version.quality.overall_quality_score;
        const note = `quality ${score} not passed: refinement ${run.autoRefinements}/${input.maxRefinements}`;
        enter(run, progress, 'REFINEMENT', 'refinement', note);
        continue;
      }
      run.choose();
      if (!input.review) break;
      const decision = await awaitReview(run, progress);
      if (!decision)
        return run.result('abandoned', { review: { required: true, outcome: 'timed-out', rounds: run.reviews } });
      if (decision.decision === 'approve') break;
      run.requestChanges(decision);
      const note = `review requested changes (${run.reviewRequests}/${MAX_REVIEW_ROUNDS})`;
      enter(run, progress, 'REFINEMENT', 'refinement', note);
    }
    return await renderPdf(run, progress);
  } catch (err) {
    // Cancellation and programming errors (e.g. an invalid transition) are not proposal errors:
    // they end the run as in every flow.
    if (isCancellation(err) || !(err instanceof ActivityFailure)) {
      // Cancelled: nothing is left open to answer or review.
      await recordEnd(progress, err, { onCancel: () => run.closeInterview() });
      throw err;
    }
    const { message, type } = describeFailure(err);
    run.awaiting = null;
    run.sm.transition('ERROR', message);
    progress.finish('failed', `${run.failedIn}: ${message}`);
    const partial = run.result('error', { error: { state: run.failedIn, message, type } });
    // A failed stage fails the run, as in every flow; what was written so far is in the failure's
    // details. Runs started before this change complete with it as their result.
    if (!patched(STAGE_FAILURE_FAILS_RUN_PATCH)) return partial;
    throw ApplicationFailure.create({
      type: FailureType.ProposalStageFailed,
      message: `${run.failedIn}: ${message}`,
      nonRetryable: true,
      details: [partial],
      cause: err,
    });
  }
}

/** Moves the state machine and says so in the progress line. */
function enter(run: ProposalRun, progress: ProgressTracker, state: ProposalState, stage: string, note?: string) {
  run.sm.transition(state, note);
  progress.stage(stage, note ?? '');
}

/** Enters a stage whose activity failure is reported as that stage's error. */
function enterStage(run: ProposalRun, progress: ProgressTracker, state: ProposalState, stage: string, note: string) {
  run.failedIn = state;
  enter(run, progress, state, stage, note);
}

function spend(run: ProposalRun, progress: ProgressTracker, usage: TokenUsage): void {
  run.spend(usage);
  progress.tokens(usage);
}

/** Asks the open questions one by one; false when the researcher stopped answering (abandoned). */
async function interview(run: ProposalRun, progress: ProgressTracker): Promise<boolean> {
  const interview = run.interview;
  if (!interview) throw ApplicationFailure.nonRetryable('interactive mode without an interview', 'InvalidState');
  const { idleTimeoutMinutes } = run.input;
  enter(run, progress, 'INTERVIEWING', 'interview', `${interview.asked} question(s)`);
  run.awaiting = 'answer';
  const conversational = patched(CONVERSATIONAL_INTERVIEW_PATCH) && (await interviewStyle()) === 'conversational';
  while (!interview.done) {
    if (conversational) await rephraseOpenQuestion(interview);
    const q = interview.current!;
    const before = interview.answered;
    progress.waiting(`question ${q.number}/${q.of}: ${q.prompt}`);
    run.questionReady = q.id;
    // Durable wait: survives worker restarts; an idle interview ends cleanly at the timeout.
    const answered = await condition(() => interview.answered > before, idleTimeoutMinutes * 60_000);
    if (!answered) {
      run.closeInterview();
      run.sm.transition('ABANDONED', `no answer to "${q.field}" within ${idleTimeoutMinutes} minute(s)`);
      progress.finish('cancelled', `interview abandoned at question ${q.number}/${q.of}`);
      return false;
    }
  }
  run.closeInterview();
  run.profile = interview.profile();
  return true;
}

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

/** One pass through the stages, from the literature search to quality control. */
async function draftVersion(run: ProposalRun, progress: ProgressTracker): Promise<Version> {
  const profile = run.profile!;
  const { trigger, feedback, previous } = run.next;
  const round = run.versions.length;
  const label = `version ${round + 1}`;
  enterStage(run, progress, 'PROBLEM_FORMULATION', 'problem formulation', label);
  const hits = await searchLiterature({ profile, focusTerms: previous?.key_variables ?? [] });
  const pf = await formulateProblem({ profile, hits, round, previous, feedback });
  spend(run, progress, pf.usage);

  enterStage(run, progress, 'OBJECTIVES', 'objectives', label);
  const objectives = await defineObjectives({ profile, problem: pf.definition });
  spend(run, progress, objectives.usage);

  enterStage(run, progress, 'METHODOLOGY', 'methodology', label);
  const methodology = await recommendMethodology({ profile, problem: pf.definition, objectives: objectives.data });
  spend(run, progress, methodology.usage);

  enterStage(run, progress, 'DATA_COLLECTION', 'data collection plan', label);
  const plan = await planDataCollection({ profile, objectives: objectives.data, methodology: methodology.data });
  spend(run, progress, plan.usage);

  enterStage(run, progress, 'QUALITY_CONTROL', 'quality control', label);
  const quality = await checkQuality({
    profile,
    problem: pf.definition,
    objectives: objectives.data,
    methodology: methodology.data,
    plan: plan.data,
  });
  spend(run, progress, quality.usage);
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
  run.versions.push(version);
  const { overall_quality_score, validation_passed } = quality.data;
  progress.advance(1, `${label}: overall ${overall_quality_score}, ${validation_passed ? 'passed' : 'not passed'}`);
  return version;
}

/** Waits for approve / request-changes on the chosen version; undefined when the review timed out. */
async function awaitReview(run: ProposalRun, progress: ProgressTracker): Promise<ReviewDecision | undefined> {
  const chosen = run.chosen!;
  const { idleTimeoutMinutes } = run.input;
  const version = `version ${chosen.round + 1}`;
  enterStage(run, progress, 'AWAITING_REVIEW', 'review', `${version}, overall ${chosen.quality.overall_quality_score}`);
  run.awaiting = 'review';
  progress.waiting(`waiting for approve / request-changes on ${version}`);
  const decided = await condition(() => run.pendingReview !== undefined, idleTimeoutMinutes * 60_000);
  run.awaiting = null;
  if (!decided) {
    run.sm.transition('ABANDONED', `no review decision within ${idleTimeoutMinutes} minute(s)`);
    progress.finish('cancelled', 'review timed out');
    return undefined;
  }
  return run.takeReview();
}

/** The PDF of the chosen version (written by an activity; only its path comes back). */
async function renderPdf(run: ProposalRun, progress: ProgressTracker): Promise<ProposalOutput> {
  const final = run.chosen!;
  const passed = final.quality.validation_passed;
  enterStage(run, progress, 'RENDERING_PDF', 'pdf', final.title);
  const pdf = await renderProposalPdf({
    generatedAt: new Date().toISOString(),
    profile: run.profile!,
    proposal: asProposalDocument(final),
    history: run.versions.map(toRound),
    chosenRound: final.round,
    unresolvedIssues: unresolvedIssues(final),
    review: run.reviews,
  });
  run.sm.transition(
    'COMPLETE',
    passed ? 'quality control passed' : `best version kept after ${run.autoRefinements} refinement(s)`,
  );
  progress.finish('completed', `${final.title}: ${pdf.path}`);
  const { review } = run.input;
  return run.result(passed ? 'completed' : 'completed_with_issues', {
    pdf,
    review: { required: review, outcome: review ? 'approved' : 'not-requested', rounds: run.reviews },
  });
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
