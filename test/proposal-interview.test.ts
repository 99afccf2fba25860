import { WithStartWorkflowOperation, WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startFlow } from '../access/flow-client';
import { conductInterview, main as interviewCli, type InterviewIO } from '../client/proposal-interview';
import { researchProposalFlow, type InterviewQuestionView } from '../flows/proposal/contract';
import {
  answerQuestionUpdate,
  currentQuestionQuery,
  nextProposalStepUpdate,
  proposalStateQuery,
  reviewProposalUpdate,
} from '../flows/proposal/messages';
import { flowStartOptions } from '../access/flow-client';
import { createFlowWorker } from '../workers/worker';
import { createHarness, recordHistory, type Harness } from './helpers/harness';
import { ScriptedModel } from './helpers/scripted-model';
import { passingScript, PROPOSAL_STAGE_TASKS, until } from './proposal-helpers';

const openQuestion = (handle: WorkflowHandle, field: string) =>
  until(async () => {
    const q = await handle.query(currentQuestionQuery);
    return q?.field === field ? q : undefined;
  }, `question ${field}`);

/** Answers `questionId`, or (as the interview client does) the question the workflow says is open. */
async function answer(
  handle: WorkflowHandle,
  text: string,
  questionId?: string,
): Promise<InterviewQuestionView | null> {
  const id = questionId ?? (await handle.query(currentQuestionQuery))?.id ?? '(none open)';
  return handle.executeUpdate(answerQuestionUpdate, { args: [{ answer: text, questionId: id }] });
}

async function rejection(promise: Promise<unknown>): Promise<string> {
  const err = await promise.then(
    () => undefined,
    (e) => e,
  );
  expect(err).toBeInstanceOf(WorkflowUpdateFailedError);
  return (err as WorkflowUpdateFailedError).cause?.message ?? '';
}

function scriptedIO(answers: Array<string | null>): InterviewIO & { transcript: string[] } {
  const transcript: string[] = [];
  return {
    transcript,
    ask: async (prompt) => {
      transcript.push(prompt);
      return answers.length ? answers.shift()! : null;
    },
    print: (line) => transcript.push(line),
  };
}

describe('writeResearchProposal, interactive', () => {
  let h: Harness;
  // The interview is what these tests are about: the stages after it answer from a script.
  const model = new ScriptedModel().script(passingScript());
  beforeAll(async () => {
    h = await createHarness({ rules: model.rules(PROPOSAL_STAGE_TASKS) });
  });
  afterAll(async () => {
    expect(model.unexpected).toEqual([]);
    await h?.close();
  });

  it('interviews through updates: a bad answer is rejected and the same question stays open', async () => {
    const handle = await h.start(researchProposalFlow, { mode: 'interactive' });
    expect(handle.workflowId).toMatch(/^research-proposal-interactive-interview-[0-9a-f]{6}$/);
    const first = await openQuestion(handle, 'academic_program');
    expect(first).toMatchObject({ number: 1, of: 9 });
    expect((await handle.query(proposalStateQuery)).state).toBe('INTERVIEWING');

    expect(await answer(handle, "Master's", 'academic_program')).toMatchObject({ field: 'field_of_study', number: 2 });
    await answer(handle, 'Computer Science');
    await answer(handle, 'Multi-agent systems with LLM agents');

    // weekly_hours must be a number: rejected with the reason, and the question is still open.
    expect(await rejection(answer(handle, 'ten-ish'))).toMatch(/weekly_hours must be a whole number/);
    expect(await rejection(answer(handle, '0'))).toMatch(/between 1 and 80/);
    expect(await handle.query(currentQuestionQuery)).toMatchObject({ field: 'weekly_hours', number: 4 });
    // An answer meant for another question is refused instead of landing in the wrong field.
    expect(await rejection(answer(handle, '15', 'total_timeline'))).toMatch(/not the open one/);
    // No review is open during the interview.
    expect(await rejection(handle.executeUpdate(reviewProposalUpdate, { args: [{ decision: 'approve' }] }))).toMatch(
      /no proposal is awaiting review/,
    );

    const afterHours = await answer(handle, '15 hours per week', 'weekly_hours');
    expect(afterHours).toMatchObject({ field: 'total_timeline', number: 5 });
    // A retry of that answer (its reply was lost) gets the same reply and fills nothing else.
    expect(await answer(handle, '15 hours per week', 'weekly_hours')).toEqual(afterHours);
    expect(await handle.query(currentQuestionQuery)).toMatchObject({ field: 'total_timeline', number: 5 });
    // A different answer to an answered question, or an answer naming no question, is refused.
    expect(await rejection(answer(handle, '20', 'weekly_hours'))).toMatch(/already answered/);
    const anonymous = handle.executeUpdate(answerQuestionUpdate, { args: [{ answer: '6 months' } as never] });
    expect(await rejection(anonymous)).toMatch(/invalid answer: questionId/);
    expect(await rejection(answer(handle, 'half a year'))).toMatch(/total_timeline/);
    await answer(handle, '6 months');
    await answer(handle, 'Python, Data Analysis');
    await answer(handle, 'Game Theory; Reinforcement Learning');
    await answer(handle, 'none');
    expect(await answer(handle, 'skip')).toBeNull();

    const out = await handle.result();
    expect(out.status).toBe('completed');
    expect(out.interview).toEqual({ asked: 9, answered: 9, outcome: 'completed' });
    expect(out.profile).toEqual({
      academic_program: "Master's",
      field_of_study: 'Computer Science',
      research_area: 'Multi-agent systems with LLM agents',
      weekly_hours: 15,
      total_timeline: { value: 6, unit: 'months' },
      existing_skills: ['Python', 'Data Analysis'],
      missing_skills: ['Game Theory', 'Reinforcement Learning'],
      constraints: [],
    });
    expect(out.transitions.map((t) => t.to).slice(0, 2)).toEqual(['INTERVIEWING', 'PROBLEM_FORMULATION']);
    expect(await handle.query(currentQuestionQuery)).toBeNull();
    // Rejected answers never reached history: nine answers and the one repeat are recorded.
    const history = await handle.fetchHistory();
    const accepted = (history.events ?? []).filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes);
    expect(accepted).toHaveLength(10);
    await recordHistory(handle, 'research-proposal-interview');
  });

  it('skips questions the prefill answers', async () => {
    const handle = await h.start(researchProposalFlow, {
      mode: 'interactive',
      profile: {
        academic_program: 'PhD',
        field_of_study: 'Psychology',
        research_area: 'Loneliness in remote work',
        existing_skills: ['SPSS'],
        missing_skills: [],
        constraints: ['No budget'],
      },
    });
    expect(await openQuestion(handle, 'weekly_hours')).toMatchObject({ number: 1, of: 3 });
    await handle.terminate('test done');
  });

  it('takes an answer that arrives with the start, before the workflow has run (update-with-start)', async () => {
    // The update reaches the workflow in its first task, before the workflow code sets its
    // handlers: it used to be refused with "no interview question is open".
    const workflowId = `research-proposal-with-start-${randomUUID().slice(0, 6)}`;
    const startWorkflowOperation = new WithStartWorkflowOperation('writeResearchProposal', {
      workflowId,
      taskQueue: h.taskQueue,
      args: [{ mode: 'interactive' }],
      workflowIdConflictPolicy: 'FAIL',
    });
    const next = await h.client.workflow.executeUpdateWithStart(answerQuestionUpdate, {
      args: [{ answer: 'PhD', questionId: 'academic_program' }],
      startWorkflowOperation,
    });
    expect(next).toMatchObject({ field: 'field_of_study', number: 2 });
    const handle = await startWorkflowOperation.workflowHandle();
    expect(await handle.query(currentQuestionQuery)).toMatchObject({ field: 'field_of_study' });
    await handle.terminate('test done');
  });

  it('survives a worker restart in the middle of the interview', async () => {
    const taskQueue = `proposal-restart-${randomUUID().slice(0, 8)}`;
    const connection = await NativeConnection.connect({ address: inject('temporalAddress') });
    const makeWorker = () =>
      createFlowWorker({
        connection,
        backends: h.backends,
        taskQueue,
        workflowBundle: { codePath: inject('workflowBundlePath') },
      });
    try {
      const first = await makeWorker();
      const firstRun = first.run();
      const handle = await startFlow(
        h.client,
        researchProposalFlow,
        { mode: 'interactive', profile: { academic_program: "Bachelor's", field_of_study: 'Psychology' } },
        { taskQueue },
      );
      await openQuestion(handle, 'research_area');
      await answer(handle, 'Social media use and adolescent well-being');
      await answer(handle, '12');
      first.shutdown();
      await firstRun;

      // A new worker (empty cache) rebuilds the interview from history and carries on.
      const second = await makeWorker();
      const out = await second.runUntil(async () => {
        expect(await openQuestion(handle, 'total_timeline')).toMatchObject({ number: 3, of: 7 });
        await answer(handle, '5 months');
        await answer(handle, 'Survey Design, SPSS');
        await answer(handle, 'Advanced Statistics');
        await answer(handle, 'No budget, Remote only');
        await answer(handle, '');
        return await handle.result();
      });
      expect(out.status).toBe('completed');
      expect(out.profile).toMatchObject({
        research_area: 'Social media use and adolescent well-being',
        weekly_hours: 12,
        total_timeline: { value: 5, unit: 'months' },
        constraints: ['No budget', 'Remote only'],
      });
      expect(out.profile!.additional_context).toBeUndefined();
      expect(out.interview).toEqual({ asked: 7, answered: 7, outcome: 'completed' });
      await recordHistory(handle, 'research-proposal-interview-worker-restart');
    } finally {
      await connection.close();
    }
  });

  it('the terminal client says plainly that a cancelled interview cannot be resumed, and asks nothing', async () => {
    const handle = await h.start(researchProposalFlow, { mode: 'interactive' });
    await openQuestion(handle, 'academic_program');
    await handle.cancel();
    await until(async () => ((await handle.describe()).status.name === 'CANCELLED' ? true : undefined), 'cancelled');
    const io = scriptedIO(['should never be asked']);
    expect(await interviewCli(['--id', handle.workflowId], io, h.client)).toBe(1);
    expect(io.transcript.join('\n')).toBe(
      `${handle.workflowId} is CANCELLED: its interview cannot be resumed. Start a new one with npm run proposal:interview`,
    );
  });

  it('the terminal client conducts the interview, reprompts after a rejected answer and resumes by id', async () => {
    const handle = await h.start(researchProposalFlow, {
      mode: 'interactive',
      review: true,
      profile: {
        academic_program: "Master's",
        field_of_study: 'Environmental Science',
        research_area: 'Machine learning for weather forecasting',
        existing_skills: ['Python'],
        missing_skills: ['Deep Learning'],
        constraints: [],
      },
    });
    // First session: a bad answer, a good one, then the input ends (Ctrl-D).
    const session1 = scriptedIO(['lots', '20', null]);
    expect(await conductInterview(handle, session1)).toBeUndefined();
    expect(session1.transcript.join('\n')).toMatch(/✗ weekly_hours must be a whole number/);
    expect(session1.transcript.filter((l) => l.includes('How many hours per week'))).toHaveLength(2);
    expect(session1.transcript.join('\n')).toContain(`--id ${handle.workflowId}`);

    // Second session, by id: the remaining answers, then the review gate (approve).
    const session2 = scriptedIO(['1 year', 'Loss of access to the GPU cluster', 'a']);
    expect(await interviewCli(['--id', handle.workflowId], session2, h.client)).toBe(0);
    const transcript = session2.transcript.join('\n');
    expect(transcript).toContain(`resuming ${handle.workflowId}`);
    expect(transcript).toMatch(/\(2\/3\) How much time do you have in total\?/);
    expect(transcript).toMatch(/Draft ready for review/);
    expect(transcript).toMatch(/completed \(COMPLETE\)/);
    const out = await handle.result();
    expect(out.profile).toMatchObject({
      weekly_hours: 20,
      total_timeline: { value: 1, unit: 'years' },
      additional_context: 'Loss of access to the GPU cluster',
    });
    expect(out.review.outcome).toBe('approved');
  });

  const PREFILL = {
    academic_program: "Master's",
    field_of_study: 'Environmental Science',
    research_area: 'Machine learning for weather forecasting',
    existing_skills: ['Python'],
    missing_skills: ['Deep Learning'],
    constraints: [],
  };

  it('nextProposalStep replies once the workflow has the next question, the draft to review, then the result', async () => {
    // Started and asked in one call: the reply is the first open question.
    const start = new WithStartWorkflowOperation(researchProposalFlow.type, {
      ...flowStartOptions(
        researchProposalFlow,
        { mode: 'interactive', review: true, profile: PREFILL },
        {
          taskQueue: h.taskQueue,
        },
      ),
      workflowIdConflictPolicy: 'FAIL',
    });
    const first = await h.client.workflow.executeUpdateWithStart(nextProposalStepUpdate, {
      args: [{}],
      startWorkflowOperation: start,
    });
    const handle = await start.workflowHandle();
    expect(first).toMatchObject({ kind: 'question', id: 'weekly_hours', question: { number: 1, of: 3 } });
    // Sent before the answer: it can only reply with the question after it.
    const second = handle.executeUpdate(nextProposalStepUpdate, { args: [{ after: 'weekly_hours' }] });
    await answer(handle, '20', 'weekly_hours');
    expect(await second).toMatchObject({ kind: 'question', id: 'total_timeline', question: { number: 2 } });
    expect(await handle.query(currentQuestionQuery)).toMatchObject({ field: 'total_timeline' });
    await answer(handle, '1 year', 'total_timeline');
    // Waiting past the last question: the draft, once the stages have written and checked it.
    const draft = handle.executeUpdate(nextProposalStepUpdate, { args: [{ after: 'additional_context' }] });
    await answer(handle, 'none', 'additional_context');
    const review = await draft;
    expect(review).toMatchObject({ kind: 'review', id: 'review-1', draft: { passed: true } });
    const state = await handle.query(proposalStateQuery);
    expect(state.state).toBe('AWAITING_REVIEW');
    // The query carries the draft document for the console's review page; the update's reply,
    // which history records, keeps to the summary.
    expect(state.draft?.document?.title).toBe(state.draft?.title);
    expect(state.draft?.document?.problem_definition.main_research_question).toBeTruthy();
    expect(review).not.toHaveProperty('draft.document');
    await expect(
      handle.executeUpdate(nextProposalStepUpdate, { args: [{ after: 7 } as never] }),
    ).rejects.toBeInstanceOf(WorkflowUpdateFailedError);
    const ending = handle.executeUpdate(nextProposalStepUpdate, { args: [{ after: 'review-1' }] });
    await handle.executeUpdate(reviewProposalUpdate, { args: [{ decision: 'approve' }] });
    const ended = await ending;
    expect(ended).toMatchObject({ kind: 'ended', result: { status: 'completed', review: { outcome: 'approved' } } });
    expect(ended).toEqual({ kind: 'ended', result: await handle.result() });
    await recordHistory(handle, 'research-proposal-next-step-2026-11-27');
  });

  it('the terminal client starts an interview with its first question in one call and never polls', async () => {
    const io = scriptedIO(['20', '1 year', 'none', 'a']);
    expect(await interviewCli(['--review', '--prefill', JSON.stringify(PREFILL)], io, h.client, h.taskQueue)).toBe(0);
    const transcript = io.transcript.join('\n');
    expect(transcript).toMatch(/^started research-proposal-/m);
    expect(transcript).toMatch(/\(1\/3\) How many hours per week/);
    expect(transcript).toMatch(/Draft ready for review/);
    expect(transcript).toMatch(/completed \(COMPLETE\)/);
  });
});
