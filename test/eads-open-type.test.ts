/**
 * A person who cannot say which kind of scheduling problem they have still gets asked for the
 * steps of their work: with the problem type left open (UNDETERMINED), no EADS that assumes a
 * flow shop, a job shop or a timetable applies, so the one that assumes no type asks for the
 * steps, and the interview's SCR holds them.
 *
 * The model is scripted: it reads no choice from "not sure" (twice), and the code records the
 * type as open and decides which EADS are eligible; the steps are the ones the script reads.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EadsSession } from '../access/eads-session';
import { UNDETERMINED } from '../domain/eads-structure';
import { createHarness, recordHistory, type Harness } from './helpers/harness';
import { ScriptedModel } from './helpers/scripted-model';
import { ask, EADS_TASKS, expectScriptUsedUp, pick, refined } from './helpers/eads-script';

const WARM_UP_ANSWER =
  'We build garden sheds to order for households nearby. Planning is hard because the timber ' +
  'deliveries come late and half the crew is on holiday in summer.';
// Says nothing about how work moves: the problem type stays open.
const NOT_SURE = "I'm not sure.";
const STEPS_ANSWER =
  'First the timber is cut to length, then the wall panels are framed, then the roof is felted, and finally the shed is painted.';

describe('an interview whose problem type stays open', () => {
  let h: Harness;
  const model = new ScriptedModel();
  beforeAll(async () => {
    h = await createHarness({ rules: model.rules(EADS_TASKS) });
  });
  afterAll(async () => h?.close());

  it('still asks for the steps of the work and records them', async () => {
    const session = new EadsSession(h.client, `open-type-${Date.now().toString(36)}`);
    const typeQuestion = ask('Which of these is closest to how a shed gets built here?', ['principal-problem-type'], {
      question_type: 'choice',
    });
    const steps = [
      { 'process-id': 'cut-timber', resources: ['mitre saw'], duration: { units: 'hours', 'value-string': '3' } },
      { 'process-id': 'frame-walls', resources: ['framing table'], duration: { units: 'hours', 'value-string': '5' } },
      { 'process-id': 'felt-roof', resources: ['roofing crew'], duration: { units: 'hours', 'value-string': '2' } },
      { 'process-id': 'paint', resources: ['paint bay'], duration: { units: 'hours', 'value-string': '4' } },
    ];
    model.script({
      'eads.orchestrate': [
        pick('process/warm-up-with-challenges'),
        pick('process/scheduling-problem-type'),
        pick('process/work-steps'),
      ],
      'eads.question': [
        ask('What do you build, and what gets in the way of planning it?', ['product-or-service-name']),
        typeQuestion,
        // The same words again: the code asks with the choices spelled out.
        typeQuestion,
        ask('Walk us through the steps of building one shed, in order.', ['subprocesses']),
        ask('Does every shed follow that route, or do some skip steps?', ['routings']),
      ],
      'eads.refine': [
        refined({
          'product-or-service-name': 'garden sheds',
          'scheduling-challenges': ['raw-material-uncertainty', 'worker-availability'],
          'one-more-thing': 'Half the crew is away in summer.',
        }),
        refined({}),
        // Nothing more to learn about the type: the pursuit ends with the type open.
        refined({}, 'Still unsure.', true),
        refined({ subprocesses: steps }),
      ],
    });
    const begun = await session.begin({ taskQueue: h.taskQueue, orchestration: 'auto' });
    if (begun.step.kind !== 'pursuing') throw new Error(`expected a pursuit, got ${begun.step.kind}`);
    let pursuit = h.client.workflow.getHandle(begun.step.pursuit.childWorkflowId);
    const pursued: string[] = [begun.step.pursuit.eadsId];
    let stepsPursuit: typeof pursuit | undefined;
    let stepsChoice: unknown;
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
      if (next.pursuit.eadsId === 'process/work-steps') stepsChoice = next.view.nextEads;
      pursuit = h.client.workflow.getHandle(next.pursuit.childWorkflowId);
    }
    expect(pursued.slice(0, 3)).toEqual([
      'process/warm-up-with-challenges',
      'process/scheduling-problem-type',
      'process/work-steps',
    ]);
    // The model's pick was eligible (no fallback), and no EADS assuming a problem type was.
    expect(stepsChoice).toMatchObject({ eads_id: 'process/work-steps', source: 'model' });
    const candidates = (stepsChoice as { candidates: string[] }).candidates;
    expect(candidates).toContain('process/work-steps');
    for (const typed of ['process/flow-shop', 'process/job-shop', 'process/timetabling'])
      expect(candidates).not.toContain(typed);
    await session.finish('enough for today');
    const ended = await session.nextStep();
    if (ended.kind !== 'ended') throw new Error(`expected the end, got ${ended.kind}`);
    expect(ended.result.problemType).toBe(UNDETERMINED);
    const recorded = ended.result.scr.scr_by_eads['process/work-steps']?.subprocesses;
    expect(recorded).toEqual(steps);
    await recordHistory(session.handle, 'eads-interview-open-type-steps');
    await recordHistory(stepsPursuit!, 'eads-pursuit-open-type-steps');
    expectScriptUsedUp(model);
  });
});
