/**
 * Oversized fields at every entry point, so no caller can make a failure too big to record. A
 * validation error used to quote what it was given: a 1 MB unknown input key, or a 1.2 MB
 * `questionId` / `eadsId` in an update, made the failure (message, details and stack) larger than
 * Temporal's 2 MB payload limit, so the workflow task failed forever in a hot loop. Every start of
 * every flow (and of the `pursueEads` child), every update and every signal gets a 1.2 MB field
 * here: the start or update fails at once with a short message naming the field, and the workflow
 * stays healthy (queries answer, no WorkflowTaskFailed event in its history). A `resume`
 * (continue-as-new state) sent by a starter is validated like the rest of the input.
 */
import { WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bomQuestionFlow } from '../flows/bom/contract';
import { discoverFromPrpFlow } from '../flows/discovery/contract';
import {
  answerUpdate,
  eadsInterviewQuery,
  finalizePursuitSignal,
  finalizePursuitUpdate,
  finishInterviewUpdate,
  pursuitStatusQuery,
  runEadsInterviewFlow,
  startPursuitUpdate,
  type InterviewView,
  eadsRecordQuery,
  aggregatedScrQuery,
} from '../flows/eads/contract';
import { platformCheckFlow } from '../flows/platform/contract';
import { flows } from '../flows/registry';
import { EXAMPLE_PROFILE, researchProposalFlow } from '../flows/proposal/contract';
import {
  answerQuestionUpdate,
  currentQuestionQuery,
  reviewProposalUpdate,
  proposalStateQuery,
} from '../flows/proposal/messages';
import { createHarness, type Harness } from './helpers/harness';
import { messageOf, recommendation, settle } from './hostile-helpers';
import { until } from './proposal-helpers';

/** 1.2 MB: under the 2 MB payload limit alone, over it when quoted twice (message and details or stack). */
const BIG = 'k'.repeat(1_200_000);
/** A failure naming a field and quoting at most an excerpt of the value stays well under this. */
const SHORT = 3_000;

const { WorkflowTaskFailedCause } = temporal.api.enums.v1;
/**
 * Failures the server records on its own, never the workflow code's: UnhandledCommand when a
 * signal arrives while the workflow completes (the task is retried at once with the signal), and
 * ForceCloseCommand when a large signal arrives during a running task and the server flushes its
 * buffered events (seen once in a full run, with the 1.2 MB signal below; the task is retried).
 */
const SERVER_SIDE_CAUSES = new Set([
  WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_UNHANDLED_COMMAND,
  WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_FORCE_CLOSE_COMMAND,
]);

/** The workflow task failures in a history, each as its cause and message (so a failing test says why). */
async function workflowTaskFailures(handle: WorkflowHandle): Promise<string[]> {
  const history = await handle.fetchHistory();
  return (history.events ?? [])
    .map((e) => e.workflowTaskFailedEventAttributes)
    .filter((failed) => failed && !SERVER_SIDE_CAUSES.has(failed.cause!))
    .map((failed) => `${failed!.cause}: ${failed!.failure?.message ?? ''}`.slice(0, 500));
}

async function updateRejection(p: Promise<unknown>): Promise<string> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(WorkflowUpdateFailedError);
  const message = messageOf(err);
  expect(message.length).toBeLessThan(SHORT);
  return message;
}

describe('oversized fields at every entry point', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(async () => h?.close());

  const rawStart = (type: string, input: unknown) =>
    h.client.workflow.start(type, {
      taskQueue: h.taskQueue,
      workflowId: `oversized-${type}-${randomUUID().slice(0, 8)}`,
      args: [input],
    });

  /** Starts `type` with `input` (bypassing the client's own validation) and expects a short InvalidInput failure. */
  async function failsFast(type: string, input: unknown, field: RegExp): Promise<void> {
    const handle = await rawStart(type, input);
    const settled = await settle(handle, 20_000);
    expect(settled.status, `${type} should fail at once`).toBe('FAILED');
    const failure = (settled as { failure: ApplicationFailure }).failure;
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure.type).toBe('InvalidInput');
    expect(failure.nonRetryable).toBe(true);
    expect(failure.message).toMatch(new RegExp(`^${type}: invalid input: `));
    expect(failure.message).toMatch(field);
    expect(failure.message.length).toBeLessThan(SHORT);
    expect(JSON.stringify(failure.details ?? []).length).toBeLessThan(SHORT * 4);
    expect(failure.stack?.length ?? 0).toBeLessThan(SHORT * 4);
    expect(await workflowTaskFailures(handle)).toEqual([]);
  }

  // Every flow from its first example (whatever flows are added), and the interview's child workflow.
  const bases: Record<string, Record<string, unknown>> = {
    ...Object.fromEntries(flows.map((f) => [f.type, f.examples[0] as Record<string, unknown>])),
    pursueEads: { projectId: 'oversized', eadsId: 'process/scheduling-problem-type', pursuitNo: 1, mode: 'human' },
  };

  it.each(Object.keys(bases))('%s: a 1.2 MB unknown key fails the start at once with a short message', async (type) => {
    await failsFast(type, { ...bases[type], [BIG]: 1 }, /\(input\): Unrecognized key/);
  });

  it.each([
    [platformCheckFlow.type, { topic: BIG }, /topic: Too big/],
    [bomQuestionFlow.type, { question: BIG }, /question: Too big/],
    [
      discoverFromPrpFlow.type,
      { prp: 'x', targetSchema: [{ name: 'id', type: 'INT64', [BIG]: 'x' }] },
      /targetSchema\.0: Unrecognized key/,
    ],
    [
      researchProposalFlow.type,
      { mode: 'autonomous', profile: { ...EXAMPLE_PROFILE, research_area: BIG } },
      /profile\.research_area: Too big/,
    ],
    [researchProposalFlow.type, { mode: 'interactive', profile: { [BIG]: 1 } }, /profile: Unrecognized key/],
    [runEadsInterviewFlow.type, { projectId: BIG }, /projectId: /],
    [runEadsInterviewFlow.type, { projectId: 'oversized', resume: { version: 1, [BIG]: 1 } }, /resume\./],
    ['pursueEads', { ...bases.pursueEads, eadsId: `process/${BIG}` }, /eadsId: an EADS-id has at most 120 characters/],
    ['pursueEads', { ...bases.pursueEads, context: { product: 'x', [BIG]: 1 } }, /context: Unrecognized key/],
  ] as const)('%s: a 1.2 MB field (%#) fails the start at once, naming the field', async (type, input, field) => {
    await failsFast(type, input, field);
  });

  it.each([
    [runEadsInterviewFlow.type, { version: 1 }, /resume\.pursuits/],
    [
      runEadsInterviewFlow.type,
      { version: 1, pursuits: 'none', usage: {}, runs: 1, orchestratorLog: [] },
      /resume\.pursuits/,
    ],
    [
      runEadsInterviewFlow.type,
      {
        version: 1,
        pursuits: [],
        usage: { promptTokens: 0, outputTokens: 0, totalTokens: 0, calls: 0 },
        runs: 2,
        orchestratorLog: [],
        pendingRecommendation: {
          eads_id: null,
          rationale: '',
          interviewer_type: null,
          priority: 1,
          source: 'model',
          exhausted: false,
          candidates: [],
        },
      },
      /resume\.pendingRecommendation\.eads_id/,
    ],
    ['pursueEads', { version: 1 }, /resume\.plan/],
    [
      'pursueEads',
      {
        version: 1,
        plan: {
          id: 'process/x',
          name: 'x',
          interviewer: 'process',
          objective: '',
          budgetDecrement: 0,
          fields: [],
          instructions: [],
          example: {},
        },
        dataStructure: {},
        questions: [],
        questionsAsked: 0,
        exhausted: false,
        usage: { promptTokens: 0, outputTokens: 0, totalTokens: 0, calls: 0 },
        runs: 1,
        finalizeNotes: null,
      },
      /resume\.plan\.budgetDecrement/,
    ],
  ] as const)(
    "%s: a starter's bad resume state (%#) fails the start at once, naming the field",
    async (type, resume, field) => {
      const base =
        type === 'pursueEads' ? bases.pursueEads : { projectId: `resume-${randomUUID().slice(0, 6)}`, mode: 'human' };
      await failsFast(type, { ...base, resume }, field);
    },
  );

  it(
    'writeResearchProposal: 1.2 MB answerQuestion and reviewProposal fields are ' +
      'refused briefly; the interview carries on',
    async () => {
      const handle = await rawStart(researchProposalFlow.type, {
        mode: 'interactive',
        profile: { ...EXAMPLE_PROFILE, weekly_hours: undefined },
      });
      await until(
        async () => (await handle.query(currentQuestionQuery))?.field === 'weekly_hours' || undefined,
        'the open question',
      );
      expect(
        await updateRejection(
          handle.executeUpdate(answerQuestionUpdate, { args: [{ answer: '10', questionId: BIG }] }),
        ),
      ).toMatch(/questionId: Too big/);
      expect(
        await updateRejection(
          handle.executeUpdate(answerQuestionUpdate, { args: [{ answer: BIG, questionId: 'weekly_hours' }] }),
        ),
      ).toMatch(/answer: Too big/);
      expect(
        await updateRejection(
          handle.executeUpdate(answerQuestionUpdate, {
            args: [{ answer: '10', questionId: 'weekly_hours', [BIG]: 1 } as never],
          }),
        ),
      ).toMatch(/invalid answer|Unrecognized/);
      expect(await updateRejection(handle.executeUpdate(answerQuestionUpdate, { args: [BIG as never] }))).toMatch(
        /invalid answer/,
      );
      expect(
        await updateRejection(
          handle.executeUpdate(reviewProposalUpdate, { args: [{ decision: 'request-changes', comments: BIG }] }),
        ),
      ).toMatch(/no proposal is awaiting review/);
      expect(await handle.query(currentQuestionQuery)).toMatchObject({ field: 'weekly_hours' });
      expect(
        await handle.executeUpdate(answerQuestionUpdate, { args: [{ answer: '10', questionId: 'weekly_hours' }] }),
      ).toBeNull();
      expect(await workflowTaskFailures(handle)).toEqual([]);
      await handle.terminate('test done');
    },
  );

  it('writeResearchProposal review gate: a 1.2 MB decision or comment is refused briefly', async () => {
    const handle = await rawStart(researchProposalFlow.type, {
      mode: 'autonomous',
      profile: EXAMPLE_PROFILE,
      review: true,
      maxRefinements: 0,
    });
    await until(
      async () => ((await handle.query(proposalStateQuery)).awaiting === 'review' ? true : undefined),
      'the review gate',
      60_000,
    );
    expect(
      await updateRejection(
        handle.executeUpdate(reviewProposalUpdate, { args: [{ decision: 'request-changes', comments: BIG }] }),
      ),
    ).toMatch(/comments: Too big/);
    expect(
      await updateRejection(handle.executeUpdate(reviewProposalUpdate, { args: [{ decision: BIG as never }] })),
    ).toMatch(/decision: Invalid option/);
    expect(await updateRejection(handle.executeUpdate(reviewProposalUpdate, { args: [BIG as never] }))).toMatch(
      /Invalid input/,
    );
    expect((await handle.query(proposalStateQuery)).awaiting).toBe('review');
    expect(await workflowTaskFailures(handle)).toEqual([]);
    await handle.terminate('test done');
  });

  it(
    'runEadsInterview and pursueEads: 1.2 MB update and signal fields are refused ' + 'briefly; both stay healthy',
    async () => {
      const interview = await rawStart(runEadsInterviewFlow.type, {
        projectId: `oversized-${randomUUID().slice(0, 6)}`,
        mode: 'human',
        orchestration: 'guided',
        maxPursuits: 1,
      });
      const view = await recommendation(interview);
      // eadsId matching the id pattern but 1.2 MB long: it used to be quoted whole in "unknown EADS".
      expect(
        await updateRejection(interview.executeUpdate(startPursuitUpdate, { args: [{ eadsId: `process/${BIG}` }] })),
      ).toMatch(/invalid eadsId/);
      expect(await updateRejection(interview.executeUpdate(startPursuitUpdate, { args: [{ eadsId: BIG }] }))).toMatch(
        /invalid eadsId/,
      );
      expect(
        await updateRejection(interview.executeUpdate(finishInterviewUpdate, { args: [{ reason: BIG }] })),
      ).toMatch(/reason must be a string of at most 1000/);
      expect(await interview.query(eadsRecordQuery, BIG)).toBeNull();
      expect(await interview.query(aggregatedScrQuery, [BIG])).toMatchObject({ conflicts: [] });

      await interview.executeUpdate(startPursuitUpdate, { args: [{ eadsId: view.nextEads!.eads_id! }] });
      const current = await until(
        async () => (await interview.query(eadsInterviewQuery)).current ?? undefined,
        'the pursuit',
      );
      const pursuit = h.client.workflow.getHandle((current as NonNullable<InterviewView['current']>).childWorkflowId);
      const status = await until(
        async () => {
          const s = await pursuit.query(pursuitStatusQuery);
          return s.waiting_for_answer ? s : undefined;
        },
        'an open question',
        60_000,
      );
      const q = status.current_question!.id;
      expect(
        await updateRejection(
          pursuit.executeUpdate(answerUpdate, { args: [{ questionId: BIG, answer: 'We bake bread.' }] }),
        ),
      ).toMatch(/questionId: Too big/);
      expect(
        await updateRejection(pursuit.executeUpdate(answerUpdate, { args: [{ questionId: q, answer: BIG }] })),
      ).toMatch(/longer than 20,000/);
      expect(
        await updateRejection(
          pursuit.executeUpdate(answerUpdate, { args: [{ questionId: q, answer: 'x', [BIG]: 1 } as never] }),
        ),
      ).toMatch(/Unrecognized key/);
      expect(await updateRejection(pursuit.executeUpdate(finalizePursuitUpdate, { args: [{ notes: BIG }] }))).toMatch(
        /notes must be a string of at most 4000/,
      );
      expect(await pursuit.query(pursuitStatusQuery)).toMatchObject({ status: 'working', waiting_for_answer: true });
      expect(await workflowTaskFailures(pursuit)).toEqual([]);

      // A signal cannot be refused: a 1.2 MB note is cut, and the pursuit ends normally.
      await pursuit.signal(finalizePursuitSignal, { notes: BIG });
      const result = (await pursuit.result()) as { status: string; notes: string };
      expect(result.status).toBe('finalized');
      expect(result.notes.length).toBeLessThanOrEqual(4000);
      const out = (await interview.result()) as { status: string };
      expect(out.status).toBe('max-pursuits');
      expect(await workflowTaskFailures(pursuit)).toEqual([]);
      expect(await workflowTaskFailures(interview)).toEqual([]);
    },
  );

  it('the finalizePursuit signal with a 1.2 MB key or a non-object argument leaves the pursuit healthy', async () => {
    const interview = await rawStart(runEadsInterviewFlow.type, {
      projectId: `oversized-sig-${randomUUID().slice(0, 6)}`,
      mode: 'human',
      maxPursuits: 1,
    });
    const current = await until(
      async () => (await interview.query(eadsInterviewQuery)).current ?? undefined,
      'the pursuit',
      60_000,
    );
    const pursuit = h.client.workflow.getHandle((current as NonNullable<InterviewView['current']>).childWorkflowId);
    await pursuit.signal(finalizePursuitSignal, BIG as never);
    await pursuit.signal(finalizePursuitSignal, { [BIG]: 1 } as never);
    const result = (await pursuit.result()) as { status: string; notes: string };
    expect(result).toMatchObject({ status: 'finalized', notes: 'finalized by the interview' });
    expect(await workflowTaskFailures(pursuit)).toEqual([]);
    await interview.result();
    expect(await workflowTaskFailures(interview)).toEqual([]);
  });
});
