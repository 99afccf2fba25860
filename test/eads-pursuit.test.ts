/**
 * Human-answered pursuits: answers by validated update (bad ones rejected before history),
 * budget exhaustion, finalize and finish, a worker restart in the middle of a pursuit, and a
 * library file broken while the worker runs.
 *
 * The model is scripted per test: these tests check what the pursuits do with its replies
 * (merging updates, charging the budget, asking again), not what the offline model reads.
 */
import { WorkflowFailedError } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { NativeConnection } from '@temporalio/worker';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { EadsSession, EadsSessionError } from '../access/eads-session';
import { runEadsInterviewFlow, answerUpdate } from '../flows/eads/contract';
import { createFlowWorker } from '../workers/worker';
import { createHarness, recordHistory, type Harness } from './helpers/harness';
import { ScriptedModel } from './helpers/scripted-model';
import { ask, EADS_TASKS, expectScriptUsedUp, pick, refined } from './helpers/eads-script';

const WARM_UP = 'process/warm-up-with-challenges';
const PROBLEM_TYPE = 'process/scheduling-problem-type';
const FLOW_SHOP = 'process/flow-shop';
const WARM_UP_QUESTION = 'What do your crews deliver, and which part of planning their week goes wrong most?';
const WARM_UP_ANSWER =
  'We refit sailing boats for private owners. Planning is hard because the single slipway is ' +
  'booked solid every spring, and owners all want their boats back before the summer.';
const WARM_UP_UPDATE = {
  'product-or-service-name': 'sailing boat refits',
  'scheduling-challenges': ['bottleneck-processes', 'variation-in-demand'],
  'one-more-thing': 'Owners want their boats back before the summer.',
};
const PROBLEM_TYPE_QUESTION = 'Which of these patterns matches how a boat moves through the yard?';
const FLOW_SHOP_ANSWER = 'Each boat is hauled out, stripped, repaired, painted and relaunched, always in that order.';
const FLOW_SHOP_UPDATE = {
  'principal-problem-type': 'FLOW-SHOP-SCHEDULING-PROBLEM',
  'problem-components': ['FLOW-SHOP-SCHEDULING-PROBLEM'],
};
const warmUpScript = {
  question: ask(WARM_UP_QUESTION, ['product-or-service-name', 'scheduling-challenges']),
  refine: refined(WARM_UP_UPDATE, 'Noted the refits and the crowded slipway.'),
};

/** Event types in a workflow's history, to check what did (not) reach it. */
async function eventTypes(handle: {
  fetchHistory(): Promise<{ events?: Array<{ eventType?: unknown }> | null }>;
}): Promise<string[]> {
  const history = await handle.fetchHistory();
  return (history.events ?? []).map(
    (e) => temporal.api.enums.v1.EventType[e.eventType as number] ?? String(e.eventType),
  );
}

describe('pursueEads answered by a person', () => {
  let h: Harness;
  const model = new ScriptedModel();
  beforeAll(async () => {
    h = await createHarness({ rules: model.rules(EADS_TASKS) });
  });
  afterAll(async () => h?.close());

  it('refines the data structure from answers, rejects bad answers in the validator, and finalizes', async () => {
    const projectId = `boatyard-${Date.now().toString(36)}`;
    const session = new EadsSession(h.client, projectId);
    model.script({
      'eads.orchestrate': [pick(WARM_UP), pick(PROBLEM_TYPE), pick(FLOW_SHOP)],
      'eads.question': [
        warmUpScript.question,
        ask(PROBLEM_TYPE_QUESTION, ['principal-problem-type'], { question_type: 'choice' }),
        ask('Does a boat ever flow on without stopping between stages?', ['continuous?']),
        ask('Which stages does every refit pass through, in order?', ['process-id', 'subprocesses']),
      ],
      'eads.refine': [warmUpScript.refine, refined(FLOW_SHOP_UPDATE)],
    });
    await session.ensure({ taskQueue: h.taskQueue, orchestration: 'auto' });
    const { handle: warmUp } = await waitForPursuit(session, 'process/warm-up-with-challenges');

    // Before any question exists, and with bad payloads: rejected, nothing written.
    const { question } = await session.question(warmUp);
    expect(question?.id).toBe('q1');
    expect(question?.question).toBe(WARM_UP_QUESTION);
    await expect(session.answer(warmUp, 'q1', '   ')).rejects.toThrow(/invalid answer: answer: the answer is empty/);
    await expect(session.answer(warmUp, 'q7', 'slipway')).rejects.toThrow(/"q7" is not the current question \("q1"\)/);
    await expect(
      warmUp.executeUpdate(answerUpdate, { args: [{ questionId: 'q1', answer: 'x', extra: true } as never] }),
    ).rejects.toMatchObject({ cause: { message: expect.stringMatching(/Unrecognized key: "extra"/) } });
    // (The accepted updates so far are the client's waits for the question, nextQuestion.)
    const before = await eventTypes(warmUp);
    const waits = before.filter((t) => t.includes('UPDATE_ACCEPTED')).length;

    const result = await session.answer(warmUp, 'q1', WARM_UP_ANSWER);
    expect(result.question_id).toBe('q1');
    expect(result.data_structure_update).toEqual(WARM_UP_UPDATE);
    expect(result.commit_notes).toBe('Noted the refits and the crowded slipway.');
    expect(result.completeness).toBe(1);
    expect(result.next_action).toBe('complete');
    // Only the accepted update reached the history.
    const after = await eventTypes(warmUp);
    expect(after.filter((t) => t.includes('UPDATE_ACCEPTED'))).toHaveLength(waits + 1);
    await expect(session.answer(warmUp, 'q1', 'again')).rejects.toThrow(/has ended \(complete\)|has already ended/);
    await recordHistory(warmUp, 'eads-pursuit-human-warm-up');

    // Problem type: answer one question, then finalize the pursuit early.
    const { handle: problemType } = await waitForPursuit(session, 'process/scheduling-problem-type');
    const q = await session.question(problemType);
    expect(q.question?.question).toBe(PROBLEM_TYPE_QUESTION);
    expect(q.question?.question_type).toBe('choice');
    // The choices come from the EADS (the scripted question named none).
    expect(q.question?.choices).toContain('FLOW-SHOP-SCHEDULING-PROBLEM');
    const flowShopAnswer = FLOW_SHOP_ANSWER;
    const reply = await session.answer(problemType, q.question!.id, flowShopAnswer);
    expect(reply.data_structure_update).toEqual(FLOW_SHOP_UPDATE);
    expect(reply.next_action).toBe('continue');
    // A retry of the answer (its reply was lost) gets the same reply and never answers the next question.
    expect(await session.answer(problemType, q.question!.id, flowShopAnswer)).toEqual(reply);
    await expect(session.answer(problemType, q.question!.id, 'Something else entirely.')).rejects.toThrow(
      /already answered with a different answer/,
    );
    const next = await session.question(problemType);
    expect(next.question?.id).toBe('q2');
    expect(next.status.questions_asked).toBe(2);
    const status = await session.pursuitStatus(problemType);
    expect(status).toMatchObject({
      eads_id: 'process/scheduling-problem-type',
      status: 'working',
      budget_decrement: 0.15,
    });
    expect(status.completed_fields).toEqual(['principal-problem-type', 'problem-components']);
    expect(status.remaining_fields).toEqual(['continuous?', 'cyclical?']);
    const finalized = await session.finalize(problemType, 'enough for now');
    expect(finalized.success).toBe(true);
    expect(finalized.validation_results).toMatchObject({
      complete: false,
      status: 'finalized',
      missing_fields: ['continuous?', 'cyclical?'],
      notes: 'enough for now',
    });
    await expect(session.finalize(problemType)).rejects.toThrow(/already ended/);

    // The interview moves on to the flow shop (the refinement classified the yard, which makes the
    // flow shop eligible: the model's pick is taken, not the fallback), then finishes on request.
    const { handle: flowShop, view: flowShopView } = await waitForPursuit(session, FLOW_SHOP);
    expect(flowShopView.nextEads).toMatchObject({ eads_id: FLOW_SHOP, source: 'model' });
    await session.question(flowShop);
    const finished = await session.finish('the baker has to go');
    expect(finished.status).toBe('finished');
    const final = await session.handle.result();
    expect(final.pursuits.map((p) => [p.eadsId, p.status])).toEqual([
      ['process/warm-up-with-challenges', 'complete'],
      ['process/scheduling-problem-type', 'finalized'],
      ['process/flow-shop', 'finalized'],
    ]);
    // The unanswered question was still charged to the EADS it was asked for.
    expect(final.pursuits[2].budgetUsed).toBeCloseTo(0.1, 6);
    expect(final.problemType).toBe('FLOW-SHOP-SCHEDULING-PROBLEM');
    await expect(session.finish()).rejects.toThrow(/already ended/);
    await recordHistory(session.handle, 'eads-interview-human-finished');
    expectScriptUsedUp(model);
  });

  it('survives a worker restart in the middle of a pursuit', async () => {
    const taskQueue = `eads-restart-${Date.now().toString(36)}`;
    const start = async () => {
      const connection = await NativeConnection.connect({ address: inject('temporalAddress') });
      const worker = await createFlowWorker({
        connection,
        backends: h.backends,
        taskQueue,
        workflowBundle: { codePath: inject('workflowBundlePath') },
      });
      const running = worker.run();
      return {
        async stop() {
          worker.shutdown();
          await running;
          await connection.close();
        },
      };
    };
    let worker = await start();
    const session = new EadsSession(h.client, `restart-${Date.now().toString(36)}`);
    model.script({
      'eads.orchestrate': [pick(WARM_UP), pick(PROBLEM_TYPE), pick(FLOW_SHOP)],
      'eads.question': [
        warmUpScript.question,
        ask(PROBLEM_TYPE_QUESTION, ['principal-problem-type'], { question_type: 'choice' }),
        ask('Does a boat ever flow on without stopping between stages?', ['continuous?']),
        ask('Would the same weekly plan serve you again and again?', ['cyclical?']),
        ask('Which stages does every refit pass through, in order?', ['process-id', 'subprocesses']),
      ],
      'eads.refine': [
        warmUpScript.refine,
        refined(FLOW_SHOP_UPDATE),
        refined({ 'continuous?': false }),
        refined({ 'cyclical?': true }),
      ],
    });
    try {
      await session.ensure({ taskQueue, orchestration: 'auto' });
      const { handle: warmUp } = await waitForPursuit(session, 'process/warm-up-with-challenges');
      const { question } = await session.question(warmUp);
      await session.answer(warmUp, question!.id, WARM_UP_ANSWER);
      const { handle } = await waitForPursuit(session, 'process/scheduling-problem-type');
      const first = await session.question(handle);
      await session.answer(handle, first.question!.id, FLOW_SHOP_ANSWER);
      await session.question(handle);

      await worker.stop();
      worker = await start();

      // The new worker rebuilds both workflows from history: same question pending, same state.
      const again = await session.question(handle);
      expect(again.question?.id).toBe('q2');
      expect(again.status.data_structure['principal-problem-type']).toBe('FLOW-SHOP-SCHEDULING-PROBLEM');
      await session.answer(handle, 'q2', 'No, one boat at a time, stage by stage.');
      const q3 = await session.question(handle);
      const done = await session.answer(handle, q3.question!.id, 'Yes, most weeks look alike.');
      expect(done.next_action).toBe('complete');
      const record = await session.eadsStatus('process/scheduling-problem-type');
      expect(record).toMatchObject({ status: 'complete', completeness: 1, questions_asked: 3, budget_used: 0.45 });
      expect(record.data_structure).toMatchObject({ 'continuous?': false, 'cyclical?': true });
      // The interview goes on to the flow shop; its first question is asked before the finish.
      await session.question((await waitForPursuit(session, FLOW_SHOP)).handle);
      await session.finish('test over');
      expectScriptUsedUp(model);
    } finally {
      await worker.stop();
    }
  });
});

describe('pursueEads budget and library faults', () => {
  let h: Harness;
  let libraryDir: string;
  const model = new ScriptedModel();
  beforeAll(async () => {
    libraryDir = mkdtempSync(path.join(os.tmpdir(), 'eads-budget-'));
    writeFileSync(
      path.join(libraryDir, 'process--tiny.json'),
      JSON.stringify({
        'message-type': 'EADS-INSTRUCTIONS',
        'interview-objective': 'A small EADS with an expensive question budget.',
        'budget-decrement': 0.25,
        EADS: {
          'EADS-id': 'process/tiny',
          'shift-pattern': { val: 'two shifts', comment: 'Which shifts do you run?' },
          'lot-size': { val: '20 units', comment: 'How big is a typical lot?' },
          'peak-season': { val: 'December', comment: 'When is your busiest season?' },
        },
      }),
    );
    h = await createHarness({ config: { EADS_LIBRARY_DIRS: libraryDir }, rules: model.rules(EADS_TASKS) });
  });
  afterAll(async () => h?.close());

  it('ends a pursuit when the budget is spent, charging each question', async () => {
    const session = new EadsSession(h.client, `budget-${Date.now().toString(36)}`);
    // Every answer settles nothing: only the budget can end the pursuit. (Once the one EADS is
    // pursued nothing is eligible, and the interview ends without asking the model.)
    const questions = ['Which shifts?', 'How big is a lot?', 'When is it busiest?', 'Which shifts, once more?'];
    model.script({
      'eads.orchestrate': [pick('process/tiny')],
      'eads.question': questions.map((q) => ask(q, ['shift-pattern', 'lot-size', 'peak-season'])),
      'eads.refine': questions.map(() => refined({}, 'Nothing settled.')),
    });
    await session.ensure({ taskQueue: h.taskQueue, orchestration: 'auto' });
    const { handle } = await waitForPursuit(session, 'process/tiny');
    const results = [];
    for (let i = 1; i <= 4; i++) {
      const { question } = await session.question(handle);
      expect(question?.id).toBe(`q${i}`);
      results.push(await session.answer(handle, question!.id, "I'm not sure."));
    }
    expect(results.map((r) => r.next_action)).toEqual([
      'needs_clarification',
      'needs_clarification',
      'needs_clarification',
      'complete',
    ]);
    const final = await session.handle.result();
    expect(final.status).toBe('exhausted');
    expect(final.pursuits).toHaveLength(1);
    expect(final.pursuits[0]).toMatchObject({
      eadsId: 'process/tiny',
      status: 'budget-spent',
      questions: 4,
      budgetUsed: 1,
      completeness: 0,
    });
    const record = await session.eadsStatus('process/tiny');
    expect(record).toMatchObject({
      budget_remaining: 0,
      budget_decrement: 0.25,
      remaining_fields: ['shift-pattern', 'lot-size', 'peak-season'],
    });
    await recordHistory(h.client.workflow.getHandle(final.pursuits[0].childWorkflowId), 'eads-pursuit-budget-spent');
    expectScriptUsedUp(model);
  });

  it('fails fast, naming the file and the field, when a library file breaks', async () => {
    const broken = path.join(libraryDir, 'resources--broken.json');
    writeFileSync(
      broken,
      JSON.stringify({
        'message-type': 'EADS-INSTRUCTIONS',
        'interview-objective': 'x',
        EADS: { 'EADS-id': 'resources/broken', crew: { comment: 'no val here' } },
      }),
    );
    // The library is read before anything is asked of the model.
    model.script({});
    const handle = await h.start(runEadsInterviewFlow, { projectId: 'broken-library', mode: 'human' });
    const error = await handle.result().catch((e) => e);
    expect(error).toBeInstanceOf(WorkflowFailedError);
    const cause = (error as WorkflowFailedError).cause?.cause as { type?: string; message: string };
    expect(cause.type).toBe('EadsLibraryInvalid');
    expect(cause.message).toContain(broken);
    expect(cause.message).toContain('EADS.crew: an annotation has a "comment" but no "val"');
    await recordHistory(handle, 'eads-interview-broken-library');
    expect(model.calls).toEqual([]);
    expectScriptUsedUp(model);
  });
});

/** Waits until the project's interview pursues `eadsId` and returns the pursuit's handle. */
async function waitForPursuit(session: EadsSession, eadsId: string) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      const found = await session.pursuit(eadsId);
      return found;
    } catch (err) {
      if (!(err instanceof EadsSessionError) || Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

describe('pursueEads: a table answer that cannot be read costs no budget', () => {
  let h: Harness;
  const model = new ScriptedModel();
  beforeAll(async () => {
    const libraryDir = mkdtempSync(path.join(os.tmpdir(), 'eads-unread-'));
    writeFileSync(
      path.join(libraryDir, 'process--steps-table.json'),
      JSON.stringify({
        'message-type': 'EADS-INSTRUCTIONS',
        'interview-objective': 'The steps of the process, as a table.',
        'budget-decrement': 0.5,
        EADS: {
          'EADS-id': 'process/steps-table',
          steps: {
            val: [{ 'process-id': 'cut', duration: { units: 'minutes', 'value-string': '10' } }],
            comment: 'Which steps, in order, and how long does each take? One row per step.',
          },
        },
      }),
    );
    h = await createHarness({ config: { EADS_LIBRARY_DIRS: libraryDir }, rules: model.rules(EADS_TASKS) });
  });
  afterAll(async () => h?.close());

  it('asks again for free after an unreadable paste (twice at most), then charges as usual', async () => {
    const session = new EadsSession(h.client, `unread-${Date.now().toString(36)}`);
    // The refinement reads nothing from the broken pastes; the code decides they were tables it
    // could not read. The last answer is read into two rows.
    const tableQuestion = (n: number) =>
      ask(`Steps table, attempt ${n}: one row per step with how long it takes.`, ['steps'], {
        question_type: 'table',
      });
    const steps = [
      { 'process-id': 'shear', duration: { units: 'minutes', 'value-string': '10' } },
      { 'process-id': 'fold', duration: { units: 'minutes', 'value-string': '25' } },
    ];
    model.script({
      'eads.orchestrate': [pick('process/steps-table')],
      'eads.question': [1, 2, 3, 4].map(tableQuestion),
      'eads.refine': [refined({}), refined({}), refined({}), refined({ steps })],
    });
    await session.ensure({ taskQueue: h.taskQueue, orchestration: 'auto' });
    const { handle } = await waitForPursuit(session, 'process/steps-table');
    const budgets: number[] = [];
    let { question } = await session.question(handle);
    for (let i = 1; i <= 3; i++) {
      expect(question?.id).toBe(`q${i}`);
      await session.answer(handle, question!.id, '| oops |');
      // The budget includes the next question, charged as soon as it is asked: read it once the
      // next question is there (the answer's reply comes before the next question is written).
      ({ question } = await session.question(handle));
      budgets.push((await session.eadsStatus('process/steps-table')).budget_used as number);
    }
    // The two unreadable pastes leave it at one question (0.5) each time; the third is charged
    // like any answer.
    expect(budgets).toEqual([0.5, 0.5, 1]);
    const done = await session.answer(
      handle,
      question!.id,
      '| process-id | duration |\n| --- | --- |\n| shear | 10 minutes |\n| fold | 25 minutes |',
    );
    expect(done.next_action).toBe('complete');
    expect(done.data_structure_update).toEqual({ steps });
    const final = await session.handle.result();
    expect(final.pursuits[0]).toMatchObject({
      eadsId: 'process/steps-table',
      status: 'complete',
      questions: 4,
      budgetUsed: 1,
    });
    await recordHistory(
      h.client.workflow.getHandle(final.pursuits[0].childWorkflowId),
      'eads-pursuit-unread-table-free',
    );
    expect((await session.eadsStatus('process/steps-table')).data_structure).toMatchObject({ steps });
    expectScriptUsedUp(model);
  });
});

describe('pursueEads: a choice answer that names no choice costs no budget the first time', () => {
  let h: Harness;
  const model = new ScriptedModel();
  beforeAll(async () => {
    const libraryDir = mkdtempSync(path.join(os.tmpdir(), 'eads-unread-choice-'));
    writeFileSync(
      path.join(libraryDir, 'process--work-kind.json'),
      JSON.stringify({
        'message-type': 'EADS-INSTRUCTIONS',
        'interview-objective': 'How the work is organised.',
        'budget-decrement': 0.5,
        EADS: {
          'EADS-id': 'process/work-kind',
          'work-kind': {
            val: 'LINE',
            comment:
              'Which of these describes how work moves? The value must be one of:\n' +
              ' 1) LINE : every job goes through the same steps in the same order.\n' +
              ' 2) WORKSHOP : each job takes its own route through the machines.',
          },
        },
      }),
    );
    h = await createHarness({ config: { EADS_LIBRARY_DIRS: libraryDir }, rules: model.rules(EADS_TASKS) });
  });
  afterAll(async () => h?.close());

  it('asks again with the choices numbered for free, then records the choice as undetermined', async () => {
    const session = new EadsSession(h.client, `unread-choice-${Date.now().toString(36)}`);
    // The model asks the same words twice and reads no choice from either answer: putting the
    // question another way, not charging it and recording UNDETERMINED are the code's doing.
    const choiceQuestion = ask('How does a job make its way through your place?', ['work-kind'], {
      question_type: 'choice',
    });
    model.script({
      'eads.orchestrate': [pick('process/work-kind')],
      'eads.question': [choiceQuestion, choiceQuestion],
      'eads.refine': [refined({}), refined({})],
    });
    await session.ensure({ taskQueue: h.taskQueue, orchestration: 'auto' });
    const { handle } = await waitForPursuit(session, 'process/work-kind');
    const first = await session.question(handle);
    expect(first.question?.question_type).toBe('choice');
    const unread = await session.answer(handle, first.question!.id, 'Hard to say, really.');
    expect(unread.data_structure_update['work-kind']).toBeUndefined();
    const again = await session.question(handle);
    expect(again.question?.id).toBe('q2');
    // Spelled out by number and name, and the first question was not charged.
    expect(again.question?.question).toMatch(/1\) Line\b[\s\S]*2\) Workshop\b/);
    expect((await session.eadsStatus('process/work-kind')).budget_used).toBe(0.5);
    const settled = await session.answer(handle, 'q2', 'Still hard to say.');
    expect(settled.data_structure_update['work-kind']).toBe('UNDETERMINED');
    const final = await session.handle.result();
    expect(final.pursuits[0]).toMatchObject({ eadsId: 'process/work-kind', questions: 2, budgetUsed: 0.5 });
    await recordHistory(
      h.client.workflow.getHandle(final.pursuits[0].childWorkflowId),
      'eads-pursuit-unread-choice-free',
    );
    expectScriptUsedUp(model);
  });
});
