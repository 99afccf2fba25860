/** `Pursuit` without Temporal: its queries, validators, signal handler and question bookkeeping. */
import { describe, expect, it } from 'vitest';
import { pursueEadsInput, type PursuitPlan, type QuestionDraft } from '../../flows/eads/contract';
import { MAX_FREE_QUESTIONS, Pursuit } from '../../flows/eads/workflow/pursuit';
import { drivenWait } from './driven-wait';

const PLAN: PursuitPlan = {
  id: 'process/flow-shop',
  name: 'Flow shop',
  interviewer: 'process',
  objective: 'the flow shop',
  budgetDecrement: 0.25,
  fields: [
    { name: 'processes', kind: 'text', comment: '', derived: false },
    { name: 'machines', kind: 'text', comment: '', derived: false },
  ],
  instructions: [],
  example: {},
};

const DRAFT: QuestionDraft = {
  question: 'Which processes does the bread go through?',
  question_type: 'text',
  help_text: '',
  targets: ['processes'],
} as QuestionDraft;

const pursuit = (input: Record<string, unknown> = {}) => {
  const p = new Pursuit(
    pursueEadsInput.parse({ projectId: 'bakery', eadsId: PLAN.id, pursuitNo: 1, mode: 'human', ...input }),
  );
  p.begin(PLAN);
  return p;
};

const refinement = (update: Record<string, unknown>, extra: Partial<{ exhausted: boolean; free: boolean }> = {}) => ({
  update,
  notes: 'noted',
  exhausted: false,
  free: false,
  ...extra,
});

describe('Pursuit', () => {
  it('before its plan is loaded, answers its queries with what it knows', () => {
    const p = new Pursuit(pursueEadsInput.parse({ projectId: 'bakery', eadsId: PLAN.id, pursuitNo: 2, mode: 'human' }));
    expect(p.started).toBe(false);
    expect(p.plan()).toBeNull();
    expect(p.questions()).toEqual([]);
    expect(p.statusView()).toMatchObject({ eads_id: PLAN.id, pursuit_no: 2, completeness: 0, budget_remaining: 1 });
  });

  it('asks, charges, and records an answer with the reply the answer update gives', () => {
    const p = pursuit();
    expect(p.maxQuestions).toBe(4);
    expect(p.endReason()).toBeNull();
    const q = p.ask(DRAFT);
    expect(q).toMatchObject({ id: 'q1', eads_id: PLAN.id, budget_cost: 0.25 });
    expect(p.statusView()).toMatchObject({ questions_asked: 1, budget_used: 0.25, waiting_for_answer: true });

    p.validateAnswer({ questionId: 'q1', answer: 'mixing, baking' });
    p.takeAnswer({ questionId: 'q1', answer: 'mixing, baking' });
    expect(p.statusView().waiting_for_answer).toBe(false);
    const reply = p.recordAnswer(q, 'mixing, baking', refinement({ processes: 'mixing, baking' }));
    expect(reply).toEqual({
      question_id: 'q1',
      data_structure_update: { processes: 'mixing, baking' },
      commit_notes: 'noted',
      completeness: 0.5,
      next_action: 'continue',
    });
    expect(p.replyTo('q1')).toBe(reply);
    expect(p.current).toBeNull();
    expect(p.questions()).toHaveLength(1);
  });

  it('answer validator: names the question, once; a retry of the same answer is accepted', () => {
    const p = pursuit();
    expect(() => p.validateAnswer({ questionId: 'q1', answer: 'x' })).toThrow(/no question is waiting/);
    const q = p.ask(DRAFT);
    expect(() => p.validateAnswer({ questionId: 'q1', answer: '' })).toThrow(/invalid answer/);
    expect(() => p.validateAnswer({ questionId: 'q1', answer: 'x', extra: 1 })).toThrow(/invalid answer/);
    expect(() => p.validateAnswer({ questionId: 'q9', answer: 'x' })).toThrow(/not the current question/);
    p.takeAnswer({ questionId: 'q1', answer: 'x' });
    // The same answer while it is processed: a retry, accepted (it gets the same reply).
    expect(() => p.validateAnswer({ questionId: 'q1', answer: 'x' })).not.toThrow();
    expect(() => p.validateAnswer({ questionId: 'q1', answer: 'y' })).toThrow(/with a different answer/);
    p.recordAnswer(q, 'x', refinement({}));
    expect(() => p.validateAnswer({ questionId: 'q1', answer: 'x' })).not.toThrow();
    expect(() => p.validateAnswer({ questionId: 'q1', answer: 'y' })).toThrow(/already answered with a different/);
    p.status = 'complete';
    expect(() => p.validateAnswer({ questionId: 'q2', answer: 'x' })).toThrow(/has ended \(complete\)/);
  });

  it('a surrogate pursuit takes no answers by update', () => {
    const p = pursuit({ mode: 'surrogate', fixture: 'brewery' });
    p.ask(DRAFT);
    expect(() => p.validateAnswer({ questionId: 'q1', answer: 'x' })).toThrow(/surrogate expert/);
  });

  it('ends when complete, exhausted, out of budget, or finalized (finalize first)', () => {
    const complete = pursuit();
    complete.recordAnswer(complete.ask(DRAFT), 'a', refinement({ processes: 'p', machines: 'm' }));
    expect(complete.endReason()).toBe('complete');

    const exhausted = pursuit();
    const reply = exhausted.recordAnswer(exhausted.ask(DRAFT), 'nothing more', refinement({}, { exhausted: true }));
    expect(reply.next_action).toBe('complete');
    expect(exhausted.endReason()).toBe('exhausted');

    const spent = pursuit();
    for (let i = 0; i < 4; i++) spent.recordAnswer(spent.ask(DRAFT), 'hm', refinement({}));
    expect(spent.endReason()).toBe('budget-spent');

    spent.onFinalizeSignal({ notes: 'stop' });
    expect(spent.endReason()).toBe('finalized');
  });

  it('a question whose table answer could not be read is not charged, a few times per pursuit', () => {
    const p = pursuit();
    for (let i = 0; i < MAX_FREE_QUESTIONS; i++) {
      expect(p.mayWaiveCharge(true)).toBe(true);
      p.waiveCharge();
      p.recordAnswer(p.ask(DRAFT), '| broken', refinement({}, { free: true }));
    }
    expect(p.mayWaiveCharge(true)).toBe(false);
    expect(p.mayWaiveCharge(false)).toBe(false);
    expect(p.statusView()).toMatchObject({ questions_asked: MAX_FREE_QUESTIONS, budget_used: 0 });
    expect(p.questions().every((q) => q.charged === false)).toBe(true);
  });

  it('finalize validator and signal: the signal keeps only a string note, the first one wins', () => {
    const p = pursuit();
    expect(() => p.validateFinalize(undefined)).not.toThrow();
    expect(() => p.validateFinalize('stop' as never)).toThrow(/must be an object/);
    expect(() => p.validateFinalize({ notes: 'x'.repeat(4001) })).toThrow(/at most 4000/);
    p.onFinalizeSignal({ notes: { $where: 'sleep(1000)' } });
    expect(p.finalizeNotes).toBe('finalized by the interview');
    p.onFinalizeSignal({ notes: 'later' });
    expect(p.finalizeNotes).toBe('finalized by the interview');
    p.status = 'finalized';
    expect(() => p.validateFinalize({})).toThrow(/already ended \(finalized\)/);
    expect(p.finalizeView()).toMatchObject({
      success: true,
      validation_results: { notes: 'finalized by the interview' },
    });
  });

  it('an unanswered question is recorded when the pursuit is finalized before its answer', () => {
    const p = pursuit();
    p.recordFinalizedUnanswered(p.ask(DRAFT));
    expect(p.questions()).toMatchObject([{ id: 'q1', answer: '', commit_notes: /finalized/ }]);
    expect(p.current).toBeNull();
  });

  it('carries its state over continue-as-new, and fails with the error in its result', () => {
    const p = pursuit();
    p.recordAnswer(p.ask(DRAFT), 'a', refinement({ processes: 'p' }));
    p.onFinalizeSignal({ notes: 'wrap up' });
    const resume = p.resumeState();
    expect(resume).toMatchObject({ runs: 2, finalizeNotes: 'wrap up', questionsAsked: 1 });
    const next = new Pursuit(
      pursueEadsInput.parse({ projectId: 'bakery', eadsId: PLAN.id, pursuitNo: 1, mode: 'human', resume }),
    );
    expect(next.started).toBe(true);
    expect(next.finalizeNotes).toBe('wrap up');
    next.fail('model down');
    expect(() => next.replyTo('q2')).toThrow(/the pursuit ended \(failed\)/);
    expect(next.result()).toMatchObject({
      status: 'failed',
      error: 'model down',
      notes: 'model down',
      completeness: 0.5,
      runs: 2,
    });
  });

  it('the nextQuestion update replies with the question as it is when it replies, never null', async () => {
    const p = pursuit();
    const driven = drivenWait();
    p.wait = driven.wait;
    p.ask(DRAFT);
    const reply = p.awaitNextQuestion({});
    // Before the handler goes on, an answer already queued is taken: q1 waits for no one now.
    p.takeAnswer({ questionId: 'q1', answer: 'mixing' });
    await Promise.resolve();
    await Promise.resolve();
    expect(driven.blocked()).toBe(1);
    p.status = 'finalized';
    driven.unblock();
    expect(await reply).toMatchObject({ kind: 'ended', status: { status: 'finalized' } });
  });

  it('nextQuestion: nothing until a question the client has not dealt with is asked, or the pursuit ends', () => {
    const p = new Pursuit(pursueEadsInput.parse({ projectId: 'bakery', eadsId: PLAN.id, pursuitNo: 1, mode: 'human' }));
    expect(p.nextQuestion()).toBeNull();
    p.begin(PLAN);
    expect(p.nextQuestion()).toBeNull();
    const q1 = p.ask(DRAFT);
    expect(p.nextQuestion()).toMatchObject({
      kind: 'question',
      question: { id: 'q1' },
      status: { questions_asked: 1 },
    });
    // The client answered q1 (or dropped it): not q1 again.
    expect(p.nextQuestion('q1')).toBeNull();
    p.takeAnswer({ questionId: 'q1', answer: 'mixing' });
    expect(p.nextQuestion()).toBeNull();
    p.recordAnswer(q1, 'mixing', refinement({ processes: 'mixing' }));
    expect(p.nextQuestion('q1')).toBeNull();
    p.ask(DRAFT);
    expect(p.nextQuestion('q1')).toMatchObject({ kind: 'question', question: { id: 'q2' } });
    p.continuing = true;
    expect(p.nextQuestion('q2')).toEqual({ kind: 'continuing' });
    p.status = 'finalized';
    expect(p.nextQuestion('q2')).toMatchObject({ kind: 'ended', status: { status: 'finalized' } });
  });

  it('nextQuestion validator: an optional question id, and only for a person', () => {
    const p = pursuit();
    expect(() => p.validateNextQuestion(undefined)).not.toThrow();
    expect(() => p.validateNextQuestion({ after: 'q12' })).not.toThrow();
    expect(() => p.validateNextQuestion({ after: 'twelve' })).toThrow(/after must be a question id/);
    expect(() => p.validateNextQuestion([] as never)).toThrow(/must be an object/);
    expect(() => p.validateNextQuestion({ afterPursuit: 'x' } as never)).toThrow(/unknown field/);
    const surrogate = pursuit({ mode: 'surrogate', fixture: 'brewery-flow-shop' });
    expect(() => surrogate.validateNextQuestion({})).toThrow(/surrogate expert/);
  });
});
