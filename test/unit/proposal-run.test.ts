/** `ProposalRun` without Temporal: its queries, validators, review gate and version bookkeeping. */
import { describe, expect, it } from 'vitest';
import {
  EXAMPLE_PROFILE,
  INTERVIEW_QUESTIONS,
  MAX_REVIEW_ROUNDS,
  proposalInput,
  type ProblemDefinition,
  type QualityValidation,
} from '../../flows/proposal/contract';
import { ProposalRun, unresolvedIssues, type Version } from '../../flows/proposal/workflow/proposal-run';
import { drivenWait } from './driven-wait';

const clock = () => {
  let t = Date.parse('2026-01-01T00:00:00Z');
  return () => new Date((t += 1000)).toISOString();
};

const run = (input: Record<string, unknown>) => new ProposalRun(proposalInput.parse(input), clock());
const autonomous = (extra: Record<string, unknown> = {}) =>
  run({ mode: 'autonomous', profile: EXAMPLE_PROFILE, ...extra });

const version = (round: number, overall: number, passed: boolean): Version => {
  const quality = {
    validation_passed: passed,
    coherence_score: 0.8,
    feasibility_score: 0.8,
    overall_quality_score: overall,
    issues_identified: [
      { severity: 'critical', component: 'methodology', description: 'no sample size', impact: 'high' },
      { severity: 'minor', component: 'title', description: 'typo', impact: 'low' },
    ],
    recommendations: [`fix round ${round}`],
    requires_refinement: !passed,
    refinement_targets: [],
    feasibility_check: { plan_weeks: 20, timeline_weeks: 26, model_feasibility: 0.8, code_feasibility: 0.8 },
  } as QualityValidation;
  return {
    round,
    trigger: round === 0 ? 'initial' : 'quality-control',
    feedback: [],
    title: `Version ${round + 1}`,
    problem: { secondary_questions: [], key_variables: [`v${round}`] } as unknown as ProblemDefinition,
    objectives: {} as Version['objectives'],
    methodology: {} as Version['methodology'],
    plan: {} as Version['plan'],
    quality,
  };
};

describe('ProposalRun', () => {
  it('interactive: the open question, answers checked by the validator, none once the interview closed', () => {
    const r = run({ mode: 'interactive' });
    const first = r.currentQuestion();
    expect(first).toMatchObject({ field: INTERVIEW_QUESTIONS[0].field, number: 1 });
    expect(() => r.validateAnswer({ answer: 'x' })).toThrow(/invalid answer/);
    expect(() => r.validateAnswer({ questionId: 'weekly_hours', answer: '10' })).toThrow(/not the open one/);
    expect(() => r.validateAnswer({ questionId: first!.id, answer: 'Psychology' })).not.toThrow();
    expect(r.answer({ questionId: first!.id, answer: 'Psychology' })).toMatchObject({ number: 2 });
    r.closeInterview();
    expect(r.currentQuestion()).toBeNull();
    expect(() => r.validateAnswer({ questionId: r.interview!.current!.id, answer: 'x' })).toThrow(
      /no interview question is open/,
    );
  });

  it('autonomous: no interview, so no answer is taken', () => {
    const r = autonomous();
    expect(r.interview).toBeUndefined();
    expect(r.currentQuestion()).toBeNull();
    expect(() => r.validateAnswer({ questionId: 'field_of_study', answer: 'x' })).toThrow(
      /no interview question is open/,
    );
  });

  it('refines a failed version until maxRefinements, then keeps the best of the cycle', () => {
    const r = autonomous({ maxRefinements: 1 });
    const v1 = version(0, 60, false);
    r.versions.push(v1);
    expect(r.refinesAfter(v1)).toBe(true);
    r.refineAfterQualityCheck(v1);
    expect(r.next).toEqual({ trigger: 'quality-control', feedback: ['fix round 0'], previous: v1.problem });
    const v2 = version(1, 55, false);
    r.versions.push(v2);
    expect(r.refinesAfter(v2)).toBe(false);
    expect(r.choose()).toBe(v1);
    expect(unresolvedIssues(v1).map((i) => i.severity)).toEqual(['critical']);
    expect(r.result('completed_with_issues')).toMatchObject({
      title: 'Version 1',
      refinement: { refinements: 1, limitReached: true, chosenRound: 0 },
      unresolvedIssues: [{ severity: 'critical' }],
      interview: null,
    });
  });

  it('review gate: refused unless a draft awaits review; changes at most MAX_REVIEW_ROUNDS times', () => {
    const r = autonomous({ review: true });
    expect(() => r.validateReview({ decision: 'approve' })).toThrow(/no proposal is awaiting review \(state INIT\)/);
    r.versions.push(version(0, 90, true));
    r.choose();
    r.awaiting = 'review';
    expect(r.stateView()).toMatchObject({ awaiting: 'review', round: 1, draft: { title: 'Version 1', passed: true } });
    expect(() => r.validateReview({ decision: 'maybe' })).toThrow();
    expect(() => r.validateReview({ decision: 'request-changes', comments: 'more data' })).not.toThrow();
    expect(r.review({ decision: 'request-changes', comments: 'more data' })).toEqual({ accepted: 'request-changes' });
    // One decision at a time.
    expect(() => r.validateReview({ decision: 'approve' })).toThrow(/no proposal is awaiting review/);
    const decision = r.takeReview();
    expect(r.reviews).toEqual([{ decision: 'request-changes', comments: 'more data', at: expect.any(String) }]);
    r.requestChanges(decision);
    expect(r).toMatchObject({ reviewRequests: 1, cycleStart: 1, chosen: undefined });
    expect(r.next).toMatchObject({ trigger: 'review', feedback: ['more data'] });

    r.reviewRequests = MAX_REVIEW_ROUNDS;
    r.versions.push(version(1, 92, true));
    r.choose();
    expect(() => r.validateReview({ decision: 'request-changes', comments: 'again' })).toThrow(
      /at most 3 change requests/,
    );
    expect(() => r.validateReview({ decision: 'approve' })).not.toThrow();
  });

  it('nextStep: a question once it is waited on, never one dealt with; the draft per review round; the result', () => {
    const r = run({ mode: 'interactive', review: true });
    const first = INTERVIEW_QUESTIONS[0].field;
    // Open but not waited on yet (a conversational interview is still wording it): not yet.
    expect(r.nextStep()).toBeNull();
    r.awaiting = 'answer';
    r.questionReady = first;
    expect(r.nextStep()).toMatchObject({ kind: 'question', id: first, question: { number: 1 } });
    expect(r.nextStep(first)).toBeNull();
    r.interview!.accept({ questionId: first, answer: "Master's" });
    // The next question is open but the loop has not come round to it.
    expect(r.nextStep(first)).toBeNull();
    r.questionReady = INTERVIEW_QUESTIONS[1].field;
    expect(r.nextStep(first)).toMatchObject({ kind: 'question', id: INTERVIEW_QUESTIONS[1].field });

    r.closeInterview();
    r.versions.push(version(0, 90, true));
    r.choose();
    r.awaiting = 'review';
    expect(r.nextStep()).toMatchObject({ kind: 'review', id: 'review-1', draft: { title: 'Version 1' } });
    r.review({ decision: 'request-changes', comments: 'more data' });
    expect(r.nextStep()).toBeNull();
    r.requestChanges(r.takeReview());
    r.versions.push(version(1, 92, true));
    r.choose();
    expect(r.nextStep('review-1')).toMatchObject({ kind: 'review', id: 'review-2' });

    r.finalOutput = r.result('abandoned');
    expect(r.nextStep('review-2')).toMatchObject({ kind: 'ended', result: { status: 'abandoned' } });
  });

  it('the nextProposalStep update replies with the step as it is when it replies, never null', async () => {
    const r = run({ mode: 'interactive', review: true });
    const driven = drivenWait();
    r.wait = driven.wait;
    const first = INTERVIEW_QUESTIONS[0].field;
    r.awaiting = 'answer';
    r.questionReady = first;
    const reply = r.awaitNextStep({});
    // Before the handler goes on, the question is answered and the loop moves on to the next one.
    r.interview!.accept({ questionId: first, answer: "Master's" });
    await Promise.resolve();
    await Promise.resolve();
    expect(driven.blocked()).toBe(1);
    r.questionReady = INTERVIEW_QUESTIONS[1].field;
    driven.unblock();
    expect(await reply).toMatchObject({ kind: 'question', id: INTERVIEW_QUESTIONS[1].field });
    expect(r.stepWaiters).toBe(0);
  });

  it('nextStep validator: an object with an optional step id', () => {
    const r = run({ mode: 'interactive' });
    expect(() => r.validateNextStep(undefined)).not.toThrow();
    expect(() => r.validateNextStep({ after: 'weekly_hours' })).not.toThrow();
    expect(() => r.validateNextStep('x')).toThrow(/must be an object/);
    expect(() => r.validateNextStep({ after: '' })).toThrow(/after must be a step id/);
    expect(() => r.validateNextStep({ after: 'x', more: 1 })).toThrow(/unknown field/);
  });

  it("counts tokens and reports the state machine's transitions in the result", () => {
    const r = autonomous();
    r.spend({ promptTokens: 3, outputTokens: 4, totalTokens: 7, calls: 1 } as never);
    r.spend({ promptTokens: 1, outputTokens: 1, totalTokens: 2, calls: 1 } as never);
    r.sm.transition('PROBLEM_FORMULATION', 'version 1');
    expect(r.result('error')).toMatchObject({
      status: 'error',
      state: 'PROBLEM_FORMULATION',
      usage: { totalTokens: 9 },
      transitions: [{ from: 'INIT', to: 'PROBLEM_FORMULATION', note: 'version 1' }],
      review: { required: false, outcome: 'not-requested' },
    });
  });
});
