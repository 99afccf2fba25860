/**
 * The answer's reply waits for the next question (patch eads-answer-carries-next-question): what
 * the person is told when the pursuit ends under that wait, or the answer is sent twice.
 *
 * The model is scripted per test.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkflowUpdateStage } from '@temporalio/client';
import { answerUpdate, pursuitStatusQuery } from '../flows/eads/contract';
import { EadsSession, EadsSessionError } from '../access/eads-session';
import { createHarness, type Harness } from './helpers/harness';
import { ScriptedModel } from './helpers/scripted-model';
import { ask, EADS_TASKS, pick, refined } from './helpers/eads-script';

const WARM_UP = 'process/warm-up-with-challenges';
const PROBLEM_TYPE = 'process/scheduling-problem-type';
const WARM_UP_UPDATE = {
  'product-or-service-name': 'kiln-fired tiles',
  'scheduling-challenges': ['bottleneck-processes'],
  'one-more-thing': 'One kiln serves every glaze.',
};

describe('EADS answer reply and the pursuit ending under it', () => {
  let h: Harness;
  const model = new ScriptedModel();
  beforeAll(async () => {
    h = await createHarness({ rules: model.rules(EADS_TASKS) });
  });
  afterAll(async () => h?.close());

  /** Runs the warm-up to its end and returns the problem-type pursuit with its q1 waiting. */
  async function toProblemType(session: EadsSession) {
    const begun = await session.begin({ taskQueue: h.taskQueue, orchestration: 'auto' });
    if (begun.step.kind !== 'pursuing') throw new Error(`expected a pursuit, got ${begun.step.kind}`);
    const warmUp = h.client.workflow.getHandle(begun.step.pursuit.childWorkflowId);
    await session.nextQuestion(warmUp);
    const after = await session.nextAfterAnswer(
      warmUp,
      'q1',
      await session.answer(warmUp, 'q1', 'We fire glazed tiles for bathrooms in one shared kiln.'),
    );
    if (after.kind !== 'question') throw new Error(`expected a question, got ${after.kind}`);
    return h.client.workflow.getHandle((await session.view()).current!.childWorkflowId);
  }

  it('a model that rejects the next question: the answer that was taken is still replied to', async () => {
    const session = new EadsSession(h.client, `reject-next-${Date.now().toString(36)}`);
    model.script({
      'eads.orchestrate': [pick(WARM_UP), pick(PROBLEM_TYPE)],
      // No third question is scripted: its call is refused (HTTP 400), a rejection that stops the interview.
      'eads.question': [
        ask('What do you fire, and what makes planning the kiln awkward?', ['product-or-service-name']),
        ask('How does one order travel through the workshop?', ['principal-problem-type']),
      ],
      'eads.refine': [refined(WARM_UP_UPDATE), refined({ 'principal-problem-type': 'FLOW-SHOP-SCHEDULING-PROBLEM' })],
    });
    const problemType = await toProblemType(session);
    const answered = await session.answer(problemType, 'q1', 'Every tile is pressed, glazed, then fired.');
    expect(answered).toMatchObject({
      question_id: 'q1',
      data_structure_update: { 'principal-problem-type': 'FLOW-SHOP-SCHEDULING-PROBLEM' },
      next: { kind: 'ended', status: { status: 'failed' } },
    });
    expect(await problemType.query(pursuitStatusQuery)).toMatchObject({ status: 'failed' });
    // The interview stops on the rejection; a client waiting for its next step is told so.
    const stopped = await session.nextStep(problemType.workflowId).catch((err: unknown) => err);
    expect(stopped).toBeInstanceOf(EadsSessionError);
    expect((stopped as Error).message).toMatch(
      /^the interview for project "reject-next-\w+" failed: the interview stopped at pursuit 2 .*unscripted call 3 to eads\.question/,
    );
  });
  it('the same answer sent twice while its next question is written: one answer taken, both told the same', async () => {
    const session = new EadsSession(h.client, `twice-${Date.now().toString(36)}`);
    const third = 'Do the tiles wait between glazing and firing, or go straight on?';
    model.script({
      'eads.orchestrate': [pick(WARM_UP), pick(PROBLEM_TYPE)],
      'eads.question': [
        ask('What do you fire, and what makes planning the kiln awkward?', ['product-or-service-name']),
        ask('How does one order travel through the workshop?', ['principal-problem-type']),
        async () => {
          await new Promise((resolve) => setTimeout(resolve, 1500));
          return ask(third, ['continuous?']);
        },
      ],
      'eads.refine': [refined(WARM_UP_UPDATE), refined({ 'principal-problem-type': 'FLOW-SHOP-SCHEDULING-PROBLEM' })],
    });
    const problemType = await toProblemType(session);
    const text = 'Every tile is pressed, glazed, then fired.';
    // Taken first (accepted before the others are sent: concurrent sends reach the server in any order).
    const first = (
      await problemType.startUpdate(answerUpdate, {
        args: [{ questionId: 'q1', answer: text }],
        waitForStage: WorkflowUpdateStage.ACCEPTED,
      })
    ).result();
    const second = session.answer(problemType, 'q1', text);
    // Another text for the same question, while the first is in hand: refused.
    await expect(session.answer(problemType, 'q1', 'They go round in batches.')).rejects.toThrow(
      /already|being processed/,
    );
    const [a, b] = await Promise.all([first, second]);
    expect(a).toEqual(b);
    expect(a.next).toMatchObject({ kind: 'question', question: { id: 'q2', question: third } });
    expect(model.count('eads.refine')).toBe(2);
    expect(model.prompts('eads.refine')[1]).toMatchObject({ answer: text });
    await session.finish('done');
  });
});
