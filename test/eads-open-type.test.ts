/**
 * A person who cannot say which kind of scheduling problem they have still gets asked for the
 * steps of their work: with the problem type left open (UNDETERMINED), no EADS that assumes a
 * flow shop, a job shop or a timetable applies, so the one that assumes no type asks for the
 * steps, and the interview's SCR holds them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EadsSession } from '../access/eads-session';
import { UNDETERMINED } from '../domain/eads-structure';
import { createHarness, recordHistory, type Harness } from './helpers/harness';

const WARM_UP_ANSWER =
  'We build garden sheds to order for households nearby. Planning is hard because the timber ' +
  'deliveries come late and half the crew is on holiday in summer.';
// Says nothing about how work moves: the problem type stays open.
const NOT_SURE = "I'm not sure.";
const STEPS_ANSWER =
  'First the timber is cut to length, then the wall panels are framed, then the roof is felted, and finally the shed is painted.';

describe('an interview whose problem type stays open', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(async () => h?.close());

  it('still asks for the steps of the work and records them', async () => {
    const session = new EadsSession(h.client, `open-type-${Date.now().toString(36)}`);
    const begun = await session.begin({ taskQueue: h.taskQueue, orchestration: 'auto' });
    if (begun.step.kind !== 'pursuing') throw new Error(`expected a pursuit, got ${begun.step.kind}`);
    let pursuit = h.client.workflow.getHandle(begun.step.pursuit.childWorkflowId);
    const pursued: string[] = [begun.step.pursuit.eadsId];
    let stepsPursuit: typeof pursuit | undefined;
    // Answers each question until the steps pursuit has been answered once.
    for (let turn = 0; turn < 20 && !stepsPursuit; turn++) {
      const step = await session.nextQuestion(pursuit);
      if (step.kind === 'question') {
        const eads = pursued[pursued.length - 1];
        const answer =
          eads === 'process/warm-up-with-challenges'
            ? WARM_UP_ANSWER
            : eads === 'process/work-steps'
              ? STEPS_ANSWER
              : NOT_SURE;
        await session.answer(pursuit, step.question.id, answer);
        if (eads === 'process/work-steps') stepsPursuit = pursuit;
        continue;
      }
      const next = await session.nextStep(pursuit.workflowId);
      if (next.kind !== 'pursuing') break;
      pursued.push(next.pursuit.eadsId);
      pursuit = h.client.workflow.getHandle(next.pursuit.childWorkflowId);
    }
    expect(pursued.slice(0, 3)).toEqual([
      'process/warm-up-with-challenges',
      'process/scheduling-problem-type',
      'process/work-steps',
    ]);
    await session.finish('enough for today');
    const ended = await session.nextStep();
    if (ended.kind !== 'ended') throw new Error(`expected the end, got ${ended.kind}`);
    expect(ended.result.problemType).toBe(UNDETERMINED);
    const steps = ended.result.scr.scr_by_eads['process/work-steps']?.subprocesses as Array<Record<string, unknown>>;
    expect(steps.map((s) => s['process-id'])).toEqual([
      expect.stringMatching(/cut/),
      expect.stringMatching(/wall|fram/),
      expect.stringMatching(/roof|felt/),
      expect.stringMatching(/paint/),
    ]);
    await recordHistory(session.handle, 'eads-interview-open-type-steps');
    await recordHistory(stepsPursuit!, 'eads-pursuit-open-type-steps');
  });
});
