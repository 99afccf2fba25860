/**
 * Clients wait on the EADS interview instead of polling it: the `nextStep` update (interview)
 * and the `nextQuestion` update (pursuit) reply once the workflow has what comes next; the
 * interview is started and asked in one call (update-with-start); a run that continues as new
 * tells the waiting clients to ask again, and the next call reaches the new run.
 *
 * The model is scripted per test: what is tested is how the workflows wait and reply, not what
 * the offline model's rules would ask or read.
 */
import { temporal } from '@temporalio/proto';
import { WorkflowUpdateStage, type WorkflowHandle } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { currentQuestionQuery, nextQuestionUpdate, nextStepUpdate } from '../flows/eads/contract';
import { EadsSession } from '../access/eads-session';
import { replyWithin } from '../access/reply-within';
import { createHarness, recordHistory, type Harness } from './helpers/harness';
import { ScriptedModel } from './helpers/scripted-model';
import { ask, EADS_TASKS, expectScriptUsedUp, pick, refined } from './helpers/eads-script';

const WARM_UP = 'process/warm-up-with-challenges';
const PROBLEM_TYPE = 'process/scheduling-problem-type';
const WARM_UP_FIELD = 'product-or-service-name';
const WARM_UP_QUESTION = 'Tell us about your bindery: what leaves your bench, and what keeps the planning awkward?';
const WARM_UP_ANSWER =
  'We hand-bind notebooks and repair old books for libraries. The sewing frame is shared by ' +
  'everyone and the autumn term brings a flood of library orders.';
const WARM_UP_UPDATE = {
  'product-or-service-name': 'hand-bound notebooks',
  'scheduling-challenges': ['bottleneck-processes', 'variation-in-demand'],
  'one-more-thing': 'The sewing frame is shared by the whole team.',
};
const PROBLEM_TYPE_QUESTION = 'Picture one order crossing the workshop: which of these fits the way it travels?';
const FLOW_SHOP_ANSWER = 'Every order is folded, sewn, glued and trimmed, always in that sequence.';
const FLOW_SHOP_UPDATE = {
  'principal-problem-type': 'FLOW-SHOP-SCHEDULING-PROBLEM',
  'problem-components': ['FLOW-SHOP-SCHEDULING-PROBLEM'],
};
const CONTINUOUS_QUESTION = 'Do the books move on one by one without pause, or in separate batches?';

/** The replies of an interview that runs the warm-up to its end and asks the problem type's second question. */
function toSecondProblemTypeQuestion() {
  return {
    'eads.orchestrate': [pick(WARM_UP), pick(PROBLEM_TYPE)],
    'eads.question': [
      ask(WARM_UP_QUESTION, ['product-or-service-name', 'scheduling-challenges']),
      ask(PROBLEM_TYPE_QUESTION, ['principal-problem-type'], { question_type: 'choice' }),
      ask(CONTINUOUS_QUESTION, ['continuous?']),
    ],
    'eads.refine': [refined(WARM_UP_UPDATE), refined(FLOW_SHOP_UPDATE)],
  };
}

/** The names of the updates accepted in a run's history, in order. */
async function acceptedUpdates(handle: WorkflowHandle): Promise<string[]> {
  const history = await handle.fetchHistory();
  return (history.events ?? [])
    .filter((e) => e.eventType === temporal.api.enums.v1.EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED)
    .map((e) => e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name ?? '?');
}

describe('EADS clients wait on the workflow (nextStep, nextQuestion)', () => {
  let h: Harness;
  const model = new ScriptedModel();
  beforeAll(async () => {
    h = await createHarness({ rules: model.rules(EADS_TASKS) });
  });
  afterAll(async () => h?.close());

  it('starts the interview with its first question in one call, and each reply waits for the workflow', async () => {
    const projectId = `early-${Date.now().toString(36)}`;
    const session = new EadsSession(h.client, projectId);
    model.script(toSecondProblemTypeQuestion());

    // Update-with-start: the interview did not exist; the reply is its first pursuit.
    const begun = await session.begin({ taskQueue: h.taskQueue, orchestration: 'auto' });
    expect(begun.started).toBe(true);
    expect(begun.step).toMatchObject({
      kind: 'pursuing',
      pursuit: { eadsId: WARM_UP },
      view: { status: 'pursuing', nextEads: { eads_id: WARM_UP, source: 'model' } },
    });
    if (begun.step.kind !== 'pursuing') throw new Error('unreachable');
    expect((await session.handle.describe()).status.name).toBe('RUNNING');
    // A second client joins the same interview (no second start).
    const again = await new EadsSession(h.client, projectId).begin({ taskQueue: h.taskQueue });
    expect(again).toMatchObject({ started: false, step: { kind: 'pursuing', pursuit: begun.step.pursuit } });

    const warmUpId = begun.step.pursuit.childWorkflowId;
    const warmUp = h.client.workflow.getHandle(warmUpId);
    // Sent before anything is answered: it can only reply with what comes after q1.
    const afterQ1 = session.nextQuestion(warmUp, 'q1');
    const first = await session.nextQuestion(warmUp);
    expect(first).toMatchObject({ kind: 'question', question: { id: 'q1' }, status: { waiting_for_answer: true } });
    if (first.kind !== 'question') throw new Error('unreachable');
    expect(first.question.question).toBe(WARM_UP_QUESTION);
    expect(await warmUp.query(currentQuestionQuery)).toEqual(first.question);
    // Likewise for the interview: not the warm-up pursuit again, the step after it.
    const afterWarmUp = session.nextStep(warmUpId);

    // The answer's reply says what comes next in the pursuit: here, its end.
    expect(await session.answer(warmUp, 'q1', WARM_UP_ANSWER)).toMatchObject({
      data_structure_update: WARM_UP_UPDATE,
      next_action: 'complete',
      next: { kind: 'ended', status: { status: 'complete' } },
    });
    expect(await afterQ1).toMatchObject({ kind: 'ended', status: { status: 'complete', completeness: 1 } });
    const problemStep = await afterWarmUp;
    expect(problemStep).toMatchObject({ kind: 'pursuing', pursuit: { eadsId: PROBLEM_TYPE } });
    if (problemStep.kind !== 'pursuing') throw new Error('unreachable');
    expect(problemStep.view.pursuits.map((p) => [p.eadsId, p.status])).toEqual([[WARM_UP, 'complete']]);

    const problemType = h.client.workflow.getHandle(problemStep.pursuit.childWorkflowId);
    const q1 = await session.nextQuestion(problemType);
    expect(q1).toMatchObject({
      kind: 'question',
      question: { id: 'q1', question: PROBLEM_TYPE_QUESTION, question_type: 'choice' },
    });
    const next = session.nextQuestion(problemType, 'q1');
    const answered = await session.answer(problemType, 'q1', FLOW_SHOP_ANSWER);
    expect(answered.next_action).toBe('continue');
    const q2 = await next;
    // The same next question came with the answer's reply.
    expect(answered.next).toEqual(q2);
    expect(q2).toMatchObject({
      kind: 'question',
      question: { id: 'q2', question: CONTINUOUS_QUESTION },
      status: { questions_asked: 2, data_structure: FLOW_SHOP_UPDATE },
    });
    if (q2.kind !== 'question') throw new Error('unreachable');
    expect(await problemType.query(currentQuestionQuery)).toEqual(q2.question);

    // Malformed waits are refused by the validators, before they reach history.
    await expect(
      problemType.executeUpdate(nextQuestionUpdate, { args: [{ after: 'not a question' }] }),
    ).rejects.toMatchObject({ cause: { message: expect.stringMatching(/after must be a question id/) } });
    await expect(
      session.handle.executeUpdate(nextStepUpdate, { args: [{ afterPursuit: 7 } as never] }),
    ).rejects.toMatchObject({ cause: { message: expect.stringMatching(/afterPursuit must be/) } });

    // The end: a client waiting past the running pursuit gets the interview's result (the problem
    // type is the one the scripted refinement read).
    const ending = session.nextStep(problemStep.pursuit.childWorkflowId);
    await session.finish('the baker has to go');
    const ended = await ending;
    expect(ended).toMatchObject({
      kind: 'ended',
      result: { status: 'finished', problemType: 'FLOW-SHOP-SCHEDULING-PROBLEM' },
    });
    // Asked once more after the end: the result again, from the closed workflow.
    expect(await session.nextStep()).toMatchObject({ kind: 'ended', result: { status: 'finished' } });
    expect(await session.begin({ taskQueue: h.taskQueue })).toMatchObject({
      started: false,
      step: { kind: 'ended', result: { status: 'finished' } },
    });

    // Every wait is in the history as an update (the validators' refusals are not).
    expect((await acceptedUpdates(session.handle)).sort()).toEqual([
      'finishInterview',
      'nextStep',
      'nextStep',
      'nextStep',
      'nextStep',
    ]);
    expect((await acceptedUpdates(problemType)).sort()).toEqual(['answer', 'nextQuestion', 'nextQuestion']);
    await recordHistory(session.handle, 'eads-interview-human-next-step-2026-11-27');
    await recordHistory(problemType, 'eads-pursuit-answer-carries-next');
    expectScriptUsedUp(model);
  });

  it('an answer whose next question is slow: the caller stops waiting, the answer is taken once, a refusal still told', async () => {
    const projectId = `early-slow-${Date.now().toString(36)}`;
    const session = new EadsSession(h.client, projectId);
    model.script({
      'eads.orchestrate': [pick(WARM_UP), pick(PROBLEM_TYPE)],
      'eads.question': [
        ask(WARM_UP_QUESTION, ['product-or-service-name', 'scheduling-challenges']),
        ask(PROBLEM_TYPE_QUESTION, ['principal-problem-type'], { question_type: 'choice' }),
        // The model takes its time over the next question (well within the client's time-out).
        async () => {
          await new Promise((resolve) => setTimeout(resolve, 1500));
          return ask(CONTINUOUS_QUESTION, ['continuous?']);
        },
      ],
      'eads.refine': [refined(WARM_UP_UPDATE), refined(FLOW_SHOP_UPDATE)],
    });
    const begun = await session.begin({ taskQueue: h.taskQueue, orchestration: 'auto' });
    if (begun.step.kind !== 'pursuing') throw new Error('unreachable');
    const warmUp = h.client.workflow.getHandle(begun.step.pursuit.childWorkflowId);
    await session.nextQuestion(warmUp);
    const afterWarmUp = await session.nextAfterAnswer(
      warmUp,
      'q1',
      await session.answer(warmUp, 'q1', 'We bind books to order.'),
    );
    if (afterWarmUp.kind !== 'question') throw new Error(`expected a question, got ${afterWarmUp.kind}`);
    const problemType = h.client.workflow.getHandle((await session.view()).current!.childWorkflowId);

    // Refused by the validator: told at once, whatever the wait.
    await expect(replyWithin(session.answer(problemType, 'q7', FLOW_SHOP_ANSWER), 60_000)).rejects.toThrow(
      /not the current question/,
    );
    // Taken, but the next question is not written yet: the caller hears nothing back within its wait.
    expect(await replyWithin(session.answer(problemType, 'q1', FLOW_SHOP_ANSWER), 300)).toBe('pending');
    const next = await session.nextQuestion(problemType, 'q1');
    expect(next).toMatchObject({ kind: 'question', question: { id: 'q2', question: CONTINUOUS_QUESTION } });
    // The answer was taken once: asked again, it gets the same reply, now with the question.
    const again = await session.answer(problemType, 'q1', FLOW_SHOP_ANSWER);
    expect(again).toMatchObject({ question_id: 'q1', next });
    await session.finish('done for today');
  });

  it('guided: replies with the recommendation to start, then with the pursuit started', async () => {
    const projectId = `early-guided-${Date.now().toString(36)}`;
    const session = new EadsSession(h.client, projectId);
    // The first question may or may not be written before the finish reaches the pursuit.
    model.script({
      'eads.orchestrate': [pick(WARM_UP)],
      'eads.question': { always: ask(WARM_UP_QUESTION, [WARM_UP_FIELD]) },
    });
    const begun = await session.begin({ taskQueue: h.taskQueue, orchestration: 'guided' });
    expect(begun).toMatchObject({
      started: true,
      step: { kind: 'awaiting-start', recommendation: { eads_id: WARM_UP } },
    });
    await session.startPursuit(WARM_UP);
    expect(await session.nextStep()).toMatchObject({
      kind: 'pursuing',
      pursuit: { eadsId: WARM_UP, pursuitNo: 1 },
    });
    await session.finish('enough');
    expect(await session.nextStep()).toMatchObject({ kind: 'ended', result: { status: 'finished' } });
    expectScriptUsedUp(model);
    expect(model.count('eads.question')).toBeLessThanOrEqual(1);
  });

  it('a run that continues as new tells its waiting clients to ask again, and they reach the new run', async () => {
    const projectId = `early-can-${Date.now().toString(36)}`;
    const session = new EadsSession(h.client, projectId);
    model.script(toSecondProblemTypeQuestion());
    const begun = await session.begin({
      taskQueue: h.taskQueue,
      orchestration: 'auto',
      limits: { pursuitsPerRun: 1, questionsPerRun: 1 },
    });
    if (begun.step.kind !== 'pursuing') throw new Error(`expected a pursuit, got ${begun.step.kind}`);
    const firstRun = h.client.workflow.getHandle(session.workflowId, (await session.handle.describe()).runId);
    const warmUpId = begun.step.pursuit.childWorkflowId;
    const warmUp = h.client.workflow.getHandle(warmUpId);

    // Waiting, as a client does, while the interview's first run ends its one pursuit.
    // Accepted before the answer is sent: the answer's steps now run in one workflow task, so an
    // update still on its way could reach the run that continued as new instead.
    const waiting = (
      await session.handle.startUpdate(nextStepUpdate, {
        args: [{ afterPursuit: warmUpId }],
        waitForStage: WorkflowUpdateStage.ACCEPTED,
      })
    ).result();
    const q1 = await session.nextQuestion(warmUp);
    await session.answer(warmUp, (q1 as { question: { id: string } }).question.id, WARM_UP_ANSWER);
    expect(await waiting).toEqual({ kind: 'continuing' });
    const step = await session.nextStep(warmUpId);
    expect(step).toMatchObject({
      kind: 'pursuing',
      pursuit: { eadsId: PROBLEM_TYPE },
      view: { runs: 2 },
    });
    if (step.kind !== 'pursuing') throw new Error('unreachable');

    // The pursuit continues as new after each question: the wait for q2 is told to ask again.
    const problemType = h.client.workflow.getHandle(step.pursuit.childWorkflowId);
    const pursuitFirstRunId = (await problemType.describe()).runId;
    const pursuitFirstRun = h.client.workflow.getHandle(step.pursuit.childWorkflowId, pursuitFirstRunId);
    await session.nextQuestion(problemType);
    const waitingQ2 = (
      await problemType.startUpdate(nextQuestionUpdate, {
        args: [{ after: 'q1' }],
        waitForStage: WorkflowUpdateStage.ACCEPTED,
      })
    ).result();
    await session.answer(problemType, 'q1', FLOW_SHOP_ANSWER);
    expect(await waitingQ2).toEqual({ kind: 'continuing' });
    const q2 = await session.nextQuestion(problemType, 'q1');
    // The new run carries the state: the refinement of q1, and the question written for q2.
    expect(q2).toMatchObject({
      kind: 'question',
      question: { id: 'q2', question: CONTINUOUS_QUESTION },
      status: { questions_asked: 2, data_structure: FLOW_SHOP_UPDATE },
    });
    expect((await problemType.describe()).runId).not.toBe(pursuitFirstRunId);

    await session.finish('enough');
    expect(await session.nextStep(step.pursuit.childWorkflowId)).toMatchObject({
      kind: 'ended',
      result: { status: 'finished', runs: 2 },
    });
    await recordHistory(firstRun, 'eads-interview-next-step-continued-as-new-2026-11-27');
    await recordHistory(pursuitFirstRun, 'eads-pursuit-next-question-continued-as-new-2026-11-27');
    expectScriptUsedUp(model);
  });
});
