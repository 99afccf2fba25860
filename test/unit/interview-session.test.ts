/** `InterviewSession` without Temporal: its queries, validators and bookkeeping on plain state. */
import { describe, expect, it } from 'vitest';
import { zeroUsage } from '../../contracts/common';
import {
  runEadsInterviewInput,
  type EadsCatalogEntry,
  type PursuitResult,
  type Recommendation,
} from '../../flows/eads/contract';
import { InterviewSession } from '../../flows/eads/workflow/interview-session';
import { drivenWait } from './driven-wait';

const CATALOG: EadsCatalogEntry[] = [
  {
    id: 'process/scheduling-problem-type',
    name: 'Problem type',
    interviewer: 'process',
    objective: 'what is scheduled',
    prerequisites: [],
    budgetDecrement: 0.2,
    fields: ['principal-problem-type', 'product-or-service-name'],
  },
  {
    id: 'process/flow-shop',
    name: 'Flow shop',
    interviewer: 'process',
    objective: 'the flow shop',
    prerequisites: ['process/scheduling-problem-type'],
    appliesWhen: { eads: 'process/scheduling-problem-type', field: 'principal-problem-type', 'one-of': ['FLOW-SHOP'] },
    budgetDecrement: 0.1,
    fields: ['processes'],
  },
];

const session = (input: Record<string, unknown> = {}) => {
  const s = new InterviewSession(runEadsInterviewInput.parse({ projectId: 'bakery', ...input }));
  s.catalog = CATALOG;
  return s;
};

const recommend = (eadsId: string, source: Recommendation['source'] = 'model'): Recommendation => ({
  eads_id: eadsId,
  rationale: `because ${eadsId}`,
  interviewer_type: 'process',
  priority: 1,
  source,
  exhausted: false,
  candidates: [eadsId],
});

const pursuitResult = (eadsId: string, pursuitNo: number, dataStructure: Record<string, unknown>): PursuitResult => ({
  eadsId,
  name: eadsId,
  interviewer: 'process',
  pursuitNo,
  status: 'complete',
  dataStructure: { 'EADS-id': eadsId, ...dataStructure },
  completedFields: Object.keys(dataStructure),
  remainingFields: [],
  completeness: 1,
  budgetUsed: 0.4,
  budgetRemaining: 0.6,
  budgetDecrement: 0.2,
  questions: [
    {
      id: 'q1',
      question: 'What do you make?',
      question_type: 'text',
      targets: [],
      answer: 'bread',
      filled: [],
      commit_notes: '',
    },
  ],
  notes: 'complete',
  usage: { ...zeroUsage(), totalTokens: 10, calls: 1 },
  runs: 1,
});

describe('InterviewSession', () => {
  it('starts empty, or from the state carried over continue-as-new', () => {
    const fresh = session();
    expect(fresh.view()).toMatchObject({ projectId: 'bakery', status: 'starting', current: null, pursuits: [] });
    expect(fresh.pursuitCount).toBe(0);
    const resumed = session({
      resume: {
        version: 1,
        pursuits: [],
        usage: zeroUsage(),
        runs: 2,
        orchestratorLog: [],
        pendingRecommendation: recommend('process/flow-shop'),
      },
    });
    expect(resumed.view().runs).toBe(2);
    expect(resumed.takePendingRecommendation()?.eads_id).toBe('process/flow-shop');
    // Taken once: the next pick is the orchestrator's.
    expect(resumed.takePendingRecommendation()).toBeUndefined();
  });

  it("introduces the surrogate expert only on a surrogate interview's first run", () => {
    expect(session().introducesSurrogate).toBe(false);
    expect(session({ mode: 'surrogate', fixture: 'brewery' }).introducesSurrogate).toBe(true);
  });

  it('startPursuit validator: refuses unknown and malformed EADS, and (auto) anything but the running pursuit', () => {
    const auto = session();
    expect(() => auto.validateStartPursuit({ eadsId: 'not an id' })).toThrow(/invalid eadsId/);
    expect(() => auto.validateStartPursuit({ eadsId: 'process/unknown' })).toThrow(/unknown EADS.*the library has/);
    expect(() => auto.validateStartPursuit({ eadsId: 'process/flow-shop' })).toThrow(/orchestrated automatically/);
    auto.beginPursuit({ eadsId: 'process/flow-shop', source: 'model', rationale: 'r' }, 1, 'child-1');
    expect(() => auto.validateStartPursuit({ eadsId: 'process/flow-shop' })).not.toThrow();
    auto.finishReason = 'done';
    expect(() => auto.validateStartPursuit({ eadsId: 'process/flow-shop' })).toThrow(/has finished/);
  });

  it('startPursuit validator (guided): one pursuit at a time', () => {
    const guided = session({ orchestration: 'guided' });
    expect(() => guided.validateStartPursuit({ eadsId: 'process/flow-shop' })).not.toThrow();
    guided.startRequest = 'process/flow-shop';
    expect(() => guided.validateStartPursuit({ eadsId: 'process/flow-shop' })).toThrow(/already being started/);
    guided.startRequest = null;
    guided.beginPursuit({ eadsId: 'process/flow-shop', source: 'requested', rationale: 'r' }, 1, 'child-1');
    expect(() => guided.validateStartPursuit({ eadsId: 'process/scheduling-problem-type' })).toThrow(
      /already pursuing process\/flow-shop/,
    );
  });

  it('startPursuit reply: the running pursuit, or a failure when the interview ended first', () => {
    const s = session();
    s.outcome = 'finished';
    expect(() => s.startedReply('process/flow-shop')).toThrow(/the interview ended \(finished\)/);
    s.beginPursuit({ eadsId: 'process/flow-shop', source: 'model', rationale: 'r' }, 3, 'child-3');
    expect(s.startedReply('process/flow-shop')).toEqual({
      eads_id: 'process/flow-shop',
      pursuit_no: 3,
      child_workflow_id: 'child-3',
      budget: 1,
      budget_decrement: 0.1,
    });
  });

  it('guided choice: the recommendation keeps its rationale, another EADS is "requested"', () => {
    const s = session({ orchestration: 'guided' });
    s.nextEads = recommend('process/scheduling-problem-type', 'fallback');
    s.startRequest = 'process/scheduling-problem-type';
    expect(s.takeStartRequest()).toEqual({
      eadsId: 'process/scheduling-problem-type',
      source: 'fallback',
      rationale: 'because process/scheduling-problem-type',
    });
    expect(s.startRequest).toBeNull();
    s.startRequest = 'process/flow-shop';
    expect(s.takeStartRequest()).toMatchObject({
      source: 'requested',
      rationale: expect.stringMatching(/recommended process\/scheduling/),
    });
  });

  it('finishInterview validator: an object with an optional short reason, not after the end', () => {
    const s = session();
    expect(() => s.validateFinish(undefined)).not.toThrow();
    expect(() => s.validateFinish({ reason: 'enough' })).not.toThrow();
    expect(() => s.validateFinish([] as never)).toThrow(/must be an object/);
    expect(() => s.validateFinish({ reason: 'x'.repeat(1001) })).toThrow(/at most 1000/);
    s.outcome = 'exhausted';
    expect(() => s.validateFinish({})).toThrow(/already ended \(exhausted\)/);
  });

  it("records pursuits: usage, context, the orchestrator's facts, the SCR and the output", () => {
    const s = session();
    s.recordChoice(recommend('process/scheduling-problem-type'), { ...zeroUsage(), totalTokens: 5, calls: 1 });
    s.nextEads = recommend('process/scheduling-problem-type');
    const choice = s.recommendedChoice();
    s.beginPursuit(choice, 1, 'child-1');
    s.recordPursuit(
      pursuitResult('process/scheduling-problem-type', 1, {
        'principal-problem-type': 'FLOW-SHOP',
        'product-or-service-name': 'bread',
      }),
      choice,
      'child-1',
    );
    expect(s.current).toBeNull();
    expect(s.state.usage.totalTokens).toBe(15);
    expect(s.state.orchestratorLog).toEqual([
      {
        eads_id: 'process/scheduling-problem-type',
        source: 'model',
        rationale: 'because process/scheduling-problem-type',
      },
    ]);
    expect(s.view()).toMatchObject({
      product: 'bread',
      problemType: 'FLOW-SHOP',
      pursuits: [{ childWorkflowId: 'child-1' }],
    });
    const request = s.orchestratorRequest();
    expect(request.pursued).toEqual(['process/scheduling-problem-type']);
    expect(request.facts).toEqual({ 'process/scheduling-problem-type.principal-problem-type': 'FLOW-SHOP' });
    expect(s.record('process/scheduling-problem-type')?.childWorkflowId).toBe('child-1');
    expect(s.record('process/flow-shop')).toBeNull();
    expect(s.history().activities[0].questions_answers).toEqual([{ question: 'What do you make?', answer: 'bread' }]);
    expect(Object.keys(s.scr().scr_by_eads)).toEqual(['process/scheduling-problem-type']);
    s.outcome = 'finished';
    expect(s.output(s.scr())).toMatchObject({ status: 'finished', questionsAsked: 1, product: 'bread' });
    expect(s.resumeState(recommend('process/flow-shop'))).toMatchObject({
      runs: 2,
      pendingRecommendation: { eads_id: 'process/flow-shop' },
    });
  });

  it("a failed pursuit is recorded with nothing learnt and the library's fields still open", () => {
    const s = session();
    expect(s.failedPursuit('process/flow-shop', 2, 'model down')).toMatchObject({
      status: 'failed',
      remainingFields: ['processes'],
      budgetDecrement: 0.1,
      error: 'model down',
      notes: 'the pursuit failed: model down',
    });
  });

  it('aggregatedScr query: checks its argument itself (a query cannot be refused before it runs)', () => {
    const s = session();
    expect(() => s.aggregatedScr('process/flow-shop')).toThrow(/filter must be a list of EADS ids/);
    expect(() => s.aggregatedScr([1])).toThrow(/filter must be a list/);
    expect(s.aggregatedScr(null)).toMatchObject({ conflicts: [] });
    expect(s.aggregatedScr(['process/flow-shop'])).toMatchObject({ conflicts: [] });
  });

  it('nextStep: nothing until there is a pursuit, a recommendation to start, or the end; never a pursuit seen to end', () => {
    const s = session();
    expect(s.nextStep()).toBeNull();
    s.phase = 'pursuing';
    s.beginPursuit({ eadsId: 'process/flow-shop', source: 'model', rationale: 'r' }, 1, 'child-1');
    expect(s.nextStep()).toMatchObject({ kind: 'pursuing', pursuit: { childWorkflowId: 'child-1' } });
    // The client saw child-1 end: the interview is recording it, so not yet.
    expect(s.nextStep('child-1')).toBeNull();
    s.recordPursuit(pursuitResult('process/flow-shop', 1, { processes: 'bake' }), recommendedChoice(), 'child-1');
    s.phase = 'orchestrating';
    expect(s.nextStep('child-1')).toBeNull();
    s.continuing = true;
    expect(s.nextStep('child-1')).toEqual({ kind: 'continuing' });
    s.continuing = false;

    const guided = session({ orchestration: 'guided' });
    guided.phase = 'awaiting-start';
    guided.nextEads = recommend('process/flow-shop');
    expect(guided.nextStep()).toMatchObject({
      kind: 'awaiting-start',
      recommendation: { eads_id: 'process/flow-shop' },
    });
    guided.startRequest = 'process/flow-shop';
    expect(guided.nextStep()).toBeNull();

    s.finalOutput = s.output(s.scr());
    expect(s.nextStep('child-1')).toMatchObject({ kind: 'ended', result: { projectId: 'bakery' } });
  });

  it('the nextStep update replies with the step as it is when it replies, never null, when the loop moves on first', async () => {
    // A guided interview waits for its start: a nextStep update finds the recommendation at once.
    const s = session({ orchestration: 'guided' });
    const driven = drivenWait();
    s.wait = driven.wait;
    s.phase = 'awaiting-start';
    s.nextEads = recommend('process/flow-shop');
    const reply = s.awaitNextStep({});
    // Before the handler goes on, the loop (already queued) takes the start it was given and
    // moves on to the pursuit: the recommendation is no longer the next step.
    s.phase = 'pursuing';
    await Promise.resolve();
    await Promise.resolve();
    // The handler waits again, for the pursuit, instead of replying null.
    expect(driven.blocked()).toBe(1);
    s.beginPursuit({ eadsId: 'process/flow-shop', source: 'model', rationale: 'r' }, 1, 'child-1');
    driven.unblock();
    expect(await reply).toMatchObject({ kind: 'pursuing', pursuit: { childWorkflowId: 'child-1' } });
    expect(s.stepWaiters).toBe(0);

    // Likewise a pursuit that ends (and is recorded) between the check and the reply.
    const auto = session();
    auto.wait = driven.wait;
    auto.phase = 'pursuing';
    auto.beginPursuit({ eadsId: 'process/flow-shop', source: 'model', rationale: 'r' }, 1, 'child-1');
    const afterRecord = auto.awaitNextStep({});
    auto.recordPursuit(pursuitResult('process/flow-shop', 1, { processes: 'bake' }), recommendedChoice(), 'child-1');
    auto.phase = 'orchestrating';
    await Promise.resolve();
    await Promise.resolve();
    auto.finalOutput = auto.output(auto.scr());
    driven.unblock();
    expect(await afterRecord).toMatchObject({ kind: 'ended', result: { projectId: 'bakery' } });
  });

  it('nextStep validator: an object with an optional pursuit id', () => {
    const s = session();
    expect(() => s.validateNextStep(undefined)).not.toThrow();
    expect(() => s.validateNextStep({ afterPursuit: 'child-1' })).not.toThrow();
    expect(() => s.validateNextStep('x' as never)).toThrow(/must be an object/);
    expect(() => s.validateNextStep({ afterPursuit: '' })).toThrow(/afterPursuit must be/);
    expect(() => s.validateNextStep({ afterPursuit: 'x'.repeat(301) })).toThrow(/afterPursuit must be/);
    expect(() => s.validateNextStep({ after: 'q1' } as never)).toThrow(/unknown field/);
  });
});

function recommendedChoice() {
  return { eadsId: 'process/flow-shop', source: 'model' as const, rationale: 'r' };
}
