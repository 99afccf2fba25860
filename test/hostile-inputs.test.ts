/**
 * Hostile input, since every input comes from outside: random and adversarial values at every
 * flow's input, through the thin client AND through raw `client.workflow.start` calls that bypass
 * it, plus the queries and updates the flows define (BOM `pipelineState`, discovery
 * `discoveryCounts`, the proposal's interview and review updates). EADS messages are in
 * test/hostile-eads.test.ts, MCP tools in test/hostile-mcp.test.ts, the control-plane API in
 * test/control-plane-fuzz.test.ts.
 *
 * The properties: a bad value is refused with an error naming the field; a workflow given bad
 * input fails at once with the non-retryable `InvalidInput` (never a workflow-task failure loop
 * that leaves it running); valid input completes, or waits for a person where the flow is meant
 * to; a bad update is rejected before it reaches history and the workflow still accepts a good
 * one; nothing is left running on the task queue at the end.
 */
import { WorkflowUpdateFailedError, type Client, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidFlowInput, startFlow, validateFlowInput, type FlowOutput } from '../access/flow-client';
import { bomQuestionFlow, pipelineStateQuery } from '../flows/bom/contract';
import type { FlowDefinition } from '../contracts/common';
import { discoverFromPrpFlow, discoveryCountsQuery } from '../flows/discovery/contract';
import { runEadsInterviewFlow, eadsInterviewQuery } from '../flows/eads/contract';
import { scheduleFromScrFlow } from '../flows/schedule/contract';
import { flows } from '../flows/registry';
import { platformCheckFlow } from '../flows/platform/contract';
import { EXAMPLE_PROFILE, researchProposalFlow, type ProposalStateView } from '../flows/proposal/contract';
import {
  answerQuestionUpdate,
  currentQuestionQuery,
  proposalStateQuery,
  reviewProposalUpdate,
} from '../flows/proposal/messages';
import { createHarness, type Harness } from './helpers/harness';
import {
  fieldRejects,
  hostileValue,
  jsonRoundTrip,
  leftRunning,
  messageOf,
  mutationOf,
  SEED,
  settle,
  shapeOf,
  withField,
} from './hostile-helpers';
import { until } from './proposal-helpers';
import { progressQuery } from '../contracts/progress-messages';

/** A valid input per flow that completes quickly without a person (the base the mutations start from). */
function baseInput(flow: FlowDefinition, n: number): Record<string, unknown> {
  switch (flow.type) {
    case platformCheckFlow.type:
      return { topic: 'battery', limit: 3 };
    case bomQuestionFlow.type:
      return { question: 'Which BOMs use capacitor components?' };
    case discoverFromPrpFlow.type:
      return { ...(discoverFromPrpFlow.examples[0] as Record<string, unknown>), maxCandidatesPerStep: 2 };
    case researchProposalFlow.type:
      return { mode: 'autonomous', profile: EXAMPLE_PROFILE, maxRefinements: 0 };
    case runEadsInterviewFlow.type:
      // One pursuit, and a project id of its own: one interview per project.
      return {
        projectId: `hostile-${n}-${randomUUID().slice(0, 6)}`,
        mode: 'surrogate',
        fixture: 'brewery-flow-shop',
        maxPursuits: 1,
      };
    case scheduleFromScrFlow.type:
      return {
        ...(scheduleFromScrFlow.examples[0] as Record<string, unknown>),
        projectId: `hostile-${n}`,
        timeLimitSeconds: 2,
      };
    default:
      throw new Error(`no base input for ${flow.type}: add one so the new flow is fuzzed too`);
  }
}

/** Non-retryable failures a flow documents for input that passes the schema but cannot be used. */
const DOCUMENTED_FAILURES: Record<string, string[]> = {
  // A PRP without a section 9 and no targetSchema (docs/discovery.md).
  [discoverFromPrpFlow.type]: ['TargetSchemaMissing'],
  // A fixture id of the right shape that names no fixture: the first activity says which exist.
  [runEadsInterviewFlow.type]: ['EadsLibraryInvalid'],
  // An SCR of the right shape with nothing to schedule (no steps, timetabling), or an unknown product.
  [scheduleFromScrFlow.type]: ['ScheduleModelError'],
};

/** The ApplicationFailure of one of `types` in a failure's cause chain (activity failures wrap it). */
function applicationFailureIn(err: unknown, types: string[]): ApplicationFailure | undefined {
  for (let e = err as { cause?: unknown } | undefined; e; e = e.cause as { cause?: unknown } | undefined) {
    if (e instanceof ApplicationFailure && types.includes(e.type ?? '')) return e;
  }
  return undefined;
}

/** Valid input that legitimately waits for a person (interview answers), rather than completing. */
function waitsForAPerson(flow: FlowDefinition, parsed: Record<string, unknown>): boolean {
  if (flow.type === researchProposalFlow.type) return parsed.mode === 'interactive' || parsed.review === true;
  if (flow.type === runEadsInterviewFlow.type) return parsed.mode === 'human' || parsed.orchestration === 'guided';
  return false;
}

/** True once the flow waits for a person: the proposal's interview or review, the EADS interview's pursuit. */
async function waitingProbe(flow: FlowDefinition, handle: WorkflowHandle): Promise<true | undefined> {
  if (flow.type === runEadsInterviewFlow.type) {
    const view = await handle.query(eadsInterviewQuery);
    return view.status === 'pursuing' || view.status === 'awaiting-start' ? true : undefined;
  }
  return (await handle.query(progressQuery)).status === 'waiting' ? true : undefined;
}

/** A stand-in for the Temporal client that records starts: proves a rejected input never reaches Temporal. */
function recordingClient() {
  const starts: Array<{ type: string; options: { args: unknown[]; workflowId: string } }> = [];
  const client = {
    workflow: {
      start: async (type: string, options: { args: unknown[]; workflowId: string }) => {
        starts.push({ type, options });
        return { workflowId: options.workflowId };
      },
    },
  } as unknown as Client;
  return { client, starts };
}

const issuesOf = (err: unknown) => (err as InvalidFlowInput).issues;

describe('every flow input through the thin client (no Temporal reached on rejection)', () => {
  it('covers every registered flow', () => {
    expect(flows.map((f) => f.type).sort()).toEqual([
      'answerBomQuestion',
      'discoverFromPrp',
      'platformCheck',
      'runEadsInterview',
      'scheduleFromScr',
      'writeResearchProposal',
    ]);
  });

  for (const flow of flows) {
    const keys = Object.keys(shapeOf(flow));

    it(`${flow.type}: a hostile field value is rejected naming that field, before any start`, async () => {
      const base = baseInput(flow, 0);
      await fc.assert(
        fc.asyncProperty(mutationOf(base, keys), async (m) => {
          const { client, starts } = recordingClient();
          const outcome = await startFlow(client, flow, m.input).then(
            () => undefined,
            (err: unknown) => err,
          );
          const valid = flow.input.safeParse(m.input).success;
          if (valid) {
            // Accepted: started exactly once, with the raw input (the workflow validates again).
            expect(outcome).toBeUndefined();
            expect(starts).toHaveLength(1);
            expect(starts[0].options.args).toEqual([m.input]);
            expect(starts[0].options.workflowId).toMatch(new RegExp(`^${flow.slug}-[a-z0-9-]+-[0-9a-f]{6}$`));
            return;
          }
          expect(outcome).toBeInstanceOf(InvalidFlowInput);
          expect(starts).toHaveLength(0);
          const issues = issuesOf(outcome);
          expect(issues.length).toBeGreaterThan(0);
          // Every issue names a field of the input (or the input itself, e.g. an unknown key).
          for (const issue of issues)
            expect(issue.field === '(input)' || keys.includes(issue.field.split('.')[0]), issue.field).toBe(true);
          if (m.action === 'set' && !keys.includes(m.key)) {
            expect(
              issues.some((i) => i.field === '(input)' && i.message.includes(m.key)),
              `unknown key ${JSON.stringify(m.key)}`,
            ).toBe(true);
          } else if (m.action === 'set' && fieldRejects(flow, m.key, m.value)) {
            expect(
              issues.some((i) => i.field.split('.')[0] === m.key),
              `field ${m.key} in ${JSON.stringify(issues)}`,
            ).toBe(true);
          }
          expect((outcome as Error).message).toContain(`${flow.type}: invalid input:`);
        }),
        { numRuns: 40, seed: SEED },
      );
    });

    it(`${flow.type}: any value as the whole input is rejected or valid, never a crash`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.oneof(hostileValue, fc.anything({ maxDepth: 2 })), async (input) => {
          const { client, starts } = recordingClient();
          const err = await startFlow(client, flow, input).then(
            () => undefined,
            (e: unknown) => e,
          );
          if (flow.input.safeParse(input).success) expect(starts).toHaveLength(1);
          else {
            expect(err).toBeInstanceOf(InvalidFlowInput);
            expect(starts).toHaveLength(0);
          }
        }),
        { numRuns: 30, seed: SEED },
      );
    });
  }
});

describe('raw workflow starts that bypass the client, queries and updates', () => {
  let h: Harness;
  const handles: WorkflowHandle[] = [];
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(async () => h?.close());

  // Started by type name with raw arguments on purpose (the thin client would refuse them); the result is still the flow's.
  const rawStart = async <F extends FlowDefinition>(flow: F, args: unknown[]) => {
    const handle = await h.client.workflow.start<(...args: unknown[]) => Promise<FlowOutput<F>>>(flow.type, {
      taskQueue: h.taskQueue,
      workflowId: `hostile-raw-${flow.slug}-${randomUUID().slice(0, 8)}`,
      args,
    });
    handles.push(handle);
    return handle;
  };

  /** The workflow must fail at once with InvalidInput carrying the same fields the client names. */
  async function expectInvalidInput(flow: FlowDefinition, handle: WorkflowHandle, sent: unknown) {
    const settled = await settle(handle, 20_000);
    expect(settled.status, `${flow.type} with ${JSON.stringify(sent)?.slice(0, 200)}`).toBe('FAILED');
    const failure = (settled as { failure: ApplicationFailure }).failure;
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure.type).toBe('InvalidInput');
    expect(failure.nonRetryable).toBe(true);
    expect(failure.message).toContain(`${flow.type}: invalid input:`);
    let clientFields: string[] = [];
    try {
      validateFlowInput(flow, sent);
    } catch (err) {
      clientFields = issuesOf(err).map((i) => i.field);
    }
    const workflowFields = (failure.details?.[0] as Array<{ field: string }>).map((i) => i.field);
    expect(workflowFields).toEqual(clientFields);
    // Failed on the first workflow task: no activity ever ran.
    const history = await handle.fetchHistory();
    expect(history.events?.some((e) => e.activityTaskScheduledEventAttributes)).toBe(false);
  }

  for (const flow of flows) {
    it(`${flow.type}: hostile raw inputs fail fast with InvalidInput; valid ones complete (or wait for a person)`, async () => {
      const keys = Object.keys(shapeOf(flow));
      const sampled = fc.sample(mutationOf(baseInput(flow, 0), keys), { numRuns: 8, seed: SEED }).map((m, i) => {
        // Keep EADS project ids unique per run (one interview per project), unless that is the field under attack.
        if (flow.type === runEadsInterviewFlow.type && m.key !== 'projectId')
          return withField(m.input, 'projectId', baseInput(flow, i + 1).projectId);
        return m.input;
      });
      const handPicked: unknown[][] = [
        [],
        [null],
        ['a string'],
        [[baseInput(flow, 90)]],
        [withField(baseInput(flow, 91), '__proto__', { polluted: true })],
        [{ ...baseInput(flow, 92), unknownField: "'; DROP TABLE x; --" }],
      ];
      const cases = [...sampled.map((input) => [input]), ...handPicked];
      const started = await Promise.all(cases.map(async (args) => ({ args, handle: await rawStart(flow, args) })));

      for (const { args, handle } of started) {
        const sent = jsonRoundTrip(args[0]);
        const parsed = flow.input.safeParse(sent);
        if (!parsed.success) {
          await expectInvalidInput(flow, handle, sent);
          continue;
        }
        if (waitsForAPerson(flow, parsed.data as Record<string, unknown>)) {
          // Legitimately waiting: healthy (no failing workflow task), then stopped by us.
          await until(() => waitingProbe(flow, handle), `${flow.type} waiting`, 30_000);
          const described = await handle.describe();
          expect(described.status.name).toBe('RUNNING');
          expect(described.raw.pendingWorkflowTask?.attempt ?? 1).toBeLessThanOrEqual(1);
          await handle.terminate('hostile-input test: valid input waiting for a person');
          continue;
        }
        const settled = await settle(handle, 90_000);
        const what = `${flow.type} with valid ${JSON.stringify(sent).slice(0, 200)}: ${settled.status === 'FAILED' ? messageOf(settled.failure) : settled.status}`;
        const documented =
          settled.status === 'FAILED'
            ? applicationFailureIn(settled.failure, DOCUMENTED_FAILURES[flow.type] ?? [])
            : undefined;
        if (documented) {
          // A documented answer to valid-but-unusable input: fails fast and says how to fix it.
          expect(documented.nonRetryable, what).toBe(true);
          continue;
        }
        expect(settled.status, what).toBe('COMPLETED');
      }
    });
  }

  it(
    'answerBomQuestion: queries with hostile arguments answer unchanged; unknown ' +
      'queries are refused; the workflow stays completed',
    async () => {
      const handle = await rawStart(bomQuestionFlow, [{ question: 'Which BOMs use capacitor components?' }]);
      const out = await handle.result();
      const args = fc.sample(fc.array(hostileValue, { maxLength: 3 }), { numRuns: 10, seed: SEED });
      for (const a of args) {
        expect(await handle.query(pipelineStateQuery, ...a)).toEqual(out.pipeline_state);
        expect(await handle.query(progressQuery, ...a)).toMatchObject({
          flow: 'answerBomQuestion',
          status: 'completed',
        });
      }
      for (const name of ['pipelinestate', '__stack_trace_x', 'DROP TABLE', '']) {
        await expect(handle.query(name)).rejects.toThrow();
      }
      expect((await handle.describe()).status.name).toBe('COMPLETED');
    },
  );

  it('discoverFromPrp and platformCheck: their queries ignore hostile arguments', async () => {
    const discovery = await rawStart(discoverFromPrpFlow, [baseInput(discoverFromPrpFlow, 0)]);
    const platform = await rawStart(platformCheckFlow, [baseInput(platformCheckFlow, 0)]);
    await Promise.all([discovery.result(), platform.result()]);
    const counts = await discovery.query(discoveryCountsQuery);
    for (const a of fc.sample(fc.array(hostileValue, { maxLength: 3 }), { numRuns: 8, seed: SEED })) {
      expect(await discovery.query(discoveryCountsQuery, ...a)).toEqual(counts);
      expect(await platform.query(progressQuery, ...a)).toMatchObject({ flow: 'platformCheck', status: 'completed' });
    }
  });

  it(
    'writeResearchProposal: hostile interview answers and review decisions are ' +
      'rejected before history; valid ones still go through',
    async () => {
      const handle = await rawStart(researchProposalFlow, [{ mode: 'interactive', review: true, maxRefinements: 0 }]);
      const answer = (value: unknown) => handle.executeUpdate(answerQuestionUpdate, { args: [value as never] });
      const review = (value: unknown) => handle.executeUpdate(reviewProposalUpdate, { args: [value as never] });
      const rejected = async (p: Promise<unknown>, pattern: RegExp) => {
        const err = await p.then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(err).toBeInstanceOf(WorkflowUpdateFailedError);
        expect(messageOf(err)).toMatch(pattern);
      };
      let accepted = 0;
      const ok = async (value: unknown) => {
        await answer(value);
        accepted++;
      };

      await until(
        async () => (await handle.query(currentQuestionQuery))?.field === 'academic_program' || undefined,
        'first question',
      );
      await ok({ answer: "Master's", questionId: 'academic_program' });
      await ok({ answer: 'Computer Science', questionId: 'field_of_study' });
      await ok({ answer: 'Multi-agent systems with LLM agents', questionId: 'research_area' });
      expect((await handle.query(currentQuestionQuery))?.field).toBe('weekly_hours');

      // weekly_hours takes a whole number 1..80: anything else, of any shape, is refused with the reason.
      const isHours = (v: unknown) => {
        const a = (jsonRoundTrip(v) as { answer?: unknown; questionId?: unknown } | null) ?? {};
        if (typeof a !== 'object' || Array.isArray(a) || typeof a.answer !== 'string' || a.answer.length > 4000)
          return false;
        if (a.questionId !== 'weekly_hours') return false;
        const m = /^\s*(\d{1,3})\s*(h|hrs?|hours?)?\s*((per|a|\/)\s*(week|wk))?\s*$/i.exec(a.answer);
        return !!m && Number(m[1]) >= 1 && Number(m[1]) <= 80;
      };
      const hostileAnswers = fc.sample(
        fc.oneof(
          hostileValue,
          fc.record({ answer: hostileValue }),
          fc.record({ answer: fc.constantFrom('15', '0', '81', 'ten', '15; DROP TABLE x'), questionId: hostileValue }),
        ),
        { numRuns: 30, seed: SEED },
      );
      let rejections = 0;
      for (const value of hostileAnswers) {
        if (isHours(value)) continue;
        await rejected(answer(value), /invalid answer|weekly_hours|not the open one|already answered|expected/i);
        rejections++;
      }
      expect(rejections).toBeGreaterThan(20);
      // No review is open during the interview, whatever the decision looks like.
      await rejected(review({ decision: 'approve' }), /no proposal is awaiting review/);
      await rejected(review("'; DROP TABLE x; --"), /no proposal is awaiting review/);
      expect(await handle.query(currentQuestionQuery)).toMatchObject({ field: 'weekly_hours', number: 4 });

      await ok({ answer: '15 hours per week', questionId: 'weekly_hours' });
      await ok({ answer: '6 months', questionId: 'total_timeline' });
      await ok({ answer: 'Python', questionId: 'existing_skills' });
      await ok({ answer: 'none', questionId: 'missing_skills' });
      await ok({ answer: 'none', questionId: 'constraints' });
      await ok({ answer: 'skip', questionId: 'additional_context' });

      // The review gate: hostile decisions are refused with the reason; an answer is not expected any more.
      await until(
        async () => ((await handle.query(proposalStateQuery)) as ProposalStateView).awaiting === 'review' || undefined,
        'review gate',
        60_000,
      );
      const hostileDecisions = fc.sample(
        fc.oneof(
          hostileValue,
          fc.record({ decision: hostileValue }),
          fc.record({
            decision: fc.constant('request-changes'),
            comments: fc.constantFrom(undefined, '', '   ', 'x'.repeat(4001)),
          }),
        ),
        { numRuns: 20, seed: SEED },
      );
      for (const value of hostileDecisions) await rejected(review(value), /decision|comments|invalid|expected/i);
      await rejected(answer({ answer: '15', questionId: 'weekly_hours' }), /no interview question is open/);
      await review({ decision: 'approve' });
      accepted++;

      const out = await handle.result();
      expect(out.status).toMatch(/^completed/);
      expect(out.review.rounds.map((r) => r.decision)).toEqual(['approve']);
      expect(out.profile?.weekly_hours).toBe(15);
      // Rejected updates never reached history: only the accepted ones were recorded.
      const history = await handle.fetchHistory();
      expect(history.events?.filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes).length).toBe(accepted);
    },
  );

  it('leaves no workflow running on the task queue', async () => {
    expect(handles.length).toBeGreaterThan(40);
    expect(await leftRunning(h.client, h.taskQueue)).toEqual([]);
    for (const handle of handles) expect((await handle.describe()).status.name, handle.workflowId).not.toBe('RUNNING');
  });
});
