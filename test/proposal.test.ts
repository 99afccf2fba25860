import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { WorkflowFailedError, WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createMcpServer } from '../client/mcp/server';
import type { FlowDefinition } from '../contracts/common';
import {
  EXAMPLE_PROFILE,
  MAX_REVIEW_ROUNDS,
  researchProposalFlow,
  type ProposalOutput,
  type ProposalStateView,
} from '../flows/proposal/contract';
import { progressQuery } from '../contracts/progress-messages';
import { isValidTransition } from '../flows/proposal/workflow/state-machine';
import { answerQuestionUpdate, proposalStateQuery, reviewProposalUpdate } from '../flows/proposal/messages';
import { createHarness, recordHistory, type Harness } from './helpers/harness';
import { ScriptedModel } from './helpers/scripted-model';
import {
  CLIMATE_PROFILE,
  passingScript,
  PROPOSAL_STAGE_TASKS,
  readPdf,
  scriptedMethodology,
  scriptedObjectives,
  scriptedPlan,
  scriptedProblem,
  scriptedQuality,
  squash,
  until,
} from './proposal-helpers';

const corpus = JSON.parse(
  readFileSync(path.resolve(__dirname, '..', 'data', 'search', 'literature.json'), 'utf8'),
) as Array<{ title: string; url: string }>;
const corpusUrlByTitle = new Map(corpus.map((e) => [e.title, e.url]));

/** Every transition in the result is allowed by the table, and timestamps never go backwards. */
function expectLawfulTransitions(out: ProposalOutput) {
  expect(out.transitions[0].from).toBe('INIT');
  for (let i = 0; i < out.transitions.length; i++) {
    const t = out.transitions[i];
    expect(isValidTransition(t.from, t.to), `${t.from} → ${t.to}`).toBe(true);
    if (i > 0) {
      expect(t.from).toBe(out.transitions[i - 1].to);
      expect(Date.parse(t.at)).toBeGreaterThanOrEqual(Date.parse(out.transitions[i - 1].at));
    }
  }
  expect(out.transitions[out.transitions.length - 1].to).toBe(out.state);
}

/**
 * A run whose stage failed: it fails (non-retryable `ProposalStageFailed`, the stage's failure as
 * its cause) and carries the partial result, status `error`, in the failure's details.
 */
async function stageFailure(handle: WorkflowHandle): Promise<ProposalOutput> {
  const err = await handle.result().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(WorkflowFailedError);
  const failure = (err as WorkflowFailedError).cause;
  expect(failure).toBeInstanceOf(ApplicationFailure);
  expect(failure).toMatchObject({ type: 'ProposalStageFailed', nonRetryable: true });
  expect((await handle.describe()).status.name).toBe('FAILED');
  return (failure as ApplicationFailure).details![0] as ProposalOutput;
}

// The model is scripted per test: these tests are about orchestration (stages, refinement bounds,
// review rounds, retries, the PDF), so they read what the workflow does with the model's replies,
// never the offline model's own wording.
describe('writeResearchProposal, autonomous', () => {
  let h: Harness;
  const model = new ScriptedModel();
  beforeAll(async () => {
    h = await createHarness({ rules: model.rules(PROPOSAL_STAGE_TASKS) });
  });
  afterAll(async () => h?.close());
  afterEach(() => {
    expect(model.unexpected).toEqual([]);
    h.standin.setFaults({});
    h.standin.resetStats();
  });

  it('passes quality control on the first version and writes a PDF with every section and working links', async () => {
    model.script(passingScript());
    const handle = await h.start(researchProposalFlow, { mode: 'autonomous', profile: EXAMPLE_PROFILE });
    expect(handle.workflowId).toMatch(/^research-proposal-multi-agent-systems-with-large-language-[0-9a-f]{6}$/);
    const out = await handle.result();

    expect(out).toMatchObject({
      status: 'completed',
      state: 'COMPLETE',
      mode: 'autonomous',
      error: null,
      unresolvedIssues: [],
    });
    expect(out.refinement).toMatchObject({ refinements: 0, maxRefinements: 3, limitReached: false, chosenRound: 0 });
    expect(out.transitions.map((t) => t.to)).toEqual([
      'PROBLEM_FORMULATION',
      'OBJECTIVES',
      'METHODOLOGY',
      'DATA_COLLECTION',
      'QUALITY_CONTROL',
      'RENDERING_PDF',
      'COMPLETE',
    ]);
    expectLawfulTransitions(out);

    const proposal = out.proposal!;
    const qv = proposal.quality_validation;
    expect(qv.validation_passed).toBe(true);
    expect(qv.overall_quality_score).toBeCloseTo(((qv.coherence_score + qv.feasibility_score) / 2) * 100, 5);
    expect(qv.feasibility_check.plan_weeks).toBeLessThanOrEqual(qv.feasibility_check.timeline_weeks);

    // Literature: every entry is a search result from the corpus, with the corpus's own URL.
    const literature = proposal.problem_definition.preliminary_literature;
    expect(literature.length).toBeGreaterThanOrEqual(2);
    for (const entry of literature) {
      expect(corpusUrlByTitle.get(entry.title), entry.title).toBe(entry.url);
      expect(() => new URL(entry.url)).not.toThrow();
    }

    // The PDF: only its path is in the result; its text has every section, its links every URL.
    expect(out.pdf!.path).toMatch(/research-proposal\/research-proposal-multi-agent.*\.pdf$/);
    expect(existsSync(out.pdf!.path)).toBe(true);
    const pdf = await readPdf(out.pdf!.path);
    expect(pdf.pages).toBe(out.pdf!.pages);
    expect(pdf.title).toBe(proposal.title);
    const text = squash(pdf.text);
    for (const heading of [
      '1. Researcher profile',
      '2. Problem definition',
      '3. Preliminary literature',
      '4. Research objectives',
      '5. Methodology',
      '6. Data collection plan',
      '7. Quality control',
      '8. Refinement history',
    ]) {
      expect(text, heading).toContain(squash(heading));
    }
    expect(text).toContain(squash(proposal.problem_definition.main_research_question));
    expect(text).toContain(squash(proposal.methodology.recommended_methodology));
    expect(text).toContain(squash(`${qv.overall_quality_score.toFixed(1)}/100`));
    for (const entry of literature) expect(text).toContain(squash(entry.title));
    const linkUrls = new Set(pdf.links.map((l) => l.url));
    expect([...linkUrls].sort()).toEqual(literature.map((e) => e.url).sort());
    expect(linkUrls.size).toBe(out.pdf!.links);
    // Title and URL line both link: at least two annotations per entry.
    expect(pdf.links.length).toBeGreaterThanOrEqual(2 * literature.length);

    // One model call per stage, and the state is readable by query after the run.
    const byTask = h.standin.stats().byTask;
    for (const task of ['problem_formulation', 'objectives', 'methodology', 'data_collection', 'quality_control'])
      expect(byTask[`proposal.${task}`]).toBe(1);
    expect(out.usage.calls).toBe(5);
    const state = await handle.query(proposalStateQuery);
    expect(state).toMatchObject({ state: 'COMPLETE', awaiting: null, round: 1 });
    expect(state.transitions).toEqual(out.transitions);
    expect(researchProposalFlow.output.safeParse(out).success).toBe(true);
    await recordHistory(handle, 'research-proposal-autonomous-pass');
  });

  it('refines twice when the plan overruns the timeline twice, feeding each check back, then passes', async () => {
    // The quality model is satisfied every time; code's feasibility check is what fails the
    // first two plans (40 and 30 weeks against 26), so each refinement carries its recommendation.
    model.script({
      'proposal.problem_formulation': { always: scriptedProblem((previous) => (previous ? previous - 1 : 4)) },
      'proposal.objectives': { always: scriptedObjectives() },
      'proposal.methodology': { always: scriptedMethodology() },
      'proposal.data_collection': [scriptedPlan(40), scriptedPlan(30), scriptedPlan(24)],
      'proposal.quality_control': { always: scriptedQuality(true) },
    });
    const handle = await h.start(researchProposalFlow, { mode: 'autonomous', profile: EXAMPLE_PROFILE });
    const out = await handle.result();
    expect(out.status).toBe('completed');
    expect(out.refinement).toMatchObject({ refinements: 2, limitReached: false, chosenRound: 2 });
    const history = out.refinement.history;
    expect(history.map((r) => r.passed)).toEqual([false, false, true]);
    expect(history.map((r) => r.trigger)).toEqual(['initial', 'quality-control', 'quality-control']);
    expect(history.map((r) => r.planWeeks)).toEqual([40, 30, 24]);
    expect(history.map((r) => r.secondaryQuestions)).toEqual([4, 3, 2]);
    expect(history[0].criticalIssues).toBeGreaterThan(0);
    // The feedback that drove each refinement is quality control's own recommendation, and the
    // next formulation was asked with it and with the version it refines.
    expect(history[1].feedback.join(' ')).toMatch(/narrow the scope/i);
    const prompts = model.prompts('proposal.problem_formulation');
    expect(prompts[0].refinement_feedback).toBeUndefined();
    expect(prompts[1].refinement_feedback).toEqual(history[1].feedback);
    expect((prompts[1].previous_definition as { secondary_questions: string[] }).secondary_questions).toHaveLength(4);
    expect(prompts[2].refinement_feedback).toEqual(history[2].feedback);
    expect(out.proposal!.problem_definition.refinement_history).toHaveLength(2);
    expect(out.transitions.filter((t) => t.to === 'REFINEMENT')).toHaveLength(2);
    expect(out.transitions.filter((t) => t.to === 'PROBLEM_FORMULATION')).toHaveLength(3);
    expectLawfulTransitions(out);
    expect(h.standin.stats().byTask['proposal.problem_formulation']).toBe(3);
    const pdf = await readPdf(out.pdf!.path);
    expect(squash(pdf.text)).toContain(squash('Version 3 (after failed quality control)'));
    await recordHistory(handle, 'research-proposal-refined-twice');
  });

  it('stops at the refinement limit with the best version and the unresolved issues', async () => {
    model.script({
      'proposal.problem_formulation': { always: scriptedProblem(3) },
      'proposal.objectives': { always: scriptedObjectives() },
      'proposal.methodology': { always: scriptedMethodology() },
      'proposal.data_collection': { always: scriptedPlan() },
      'proposal.quality_control': [
        scriptedQuality(false, 0.5),
        scriptedQuality(false, 0.6),
        scriptedQuality(false, 0.55),
      ],
    });
    const handle = await h.start(researchProposalFlow, {
      mode: 'autonomous',
      profile: EXAMPLE_PROFILE,
      maxRefinements: 2,
    });
    const out = await handle.result();
    expect(out.status).toBe('completed_with_issues');
    expect(out.state).toBe('COMPLETE');
    expect(out.refinement).toMatchObject({ refinements: 2, maxRefinements: 2, limitReached: true });
    expect(out.refinement.history).toHaveLength(3);
    expect(out.refinement.history.every((r) => !r.passed)).toBe(true);
    // The best of the three (coherence 0.6) is kept, not the last.
    expect(out.refinement.chosenRound).toBe(1);
    const best = Math.max(...out.refinement.history.map((r) => r.overall));
    expect(out.proposal!.quality_validation.overall_quality_score).toBe(best);
    expect(out.unresolvedIssues.some((i) => /another round/.test(i.description))).toBe(true);
    expect(h.standin.stats().byTask['proposal.problem_formulation']).toBe(3);
    expectLawfulTransitions(out);
    const pdf = await readPdf(out.pdf!.path);
    expect(squash(pdf.text)).toContain(squash('Unresolved after the refinement limit'));
    await recordHistory(handle, 'research-proposal-limit-reached');
  });

  it('with maxRefinements 0 keeps the first version without refining', async () => {
    model.script({ ...passingScript(), 'proposal.quality_control': [scriptedQuality(false)] });
    const out = await h.run(researchProposalFlow, {
      mode: 'autonomous',
      profile: EXAMPLE_PROFILE,
      maxRefinements: 0,
    });
    expect(out.status).toBe('completed_with_issues');
    expect(out.refinement).toMatchObject({ refinements: 0, limitReached: true, chosenRound: 0 });
    expect(out.transitions.some((t) => t.to === 'REFINEMENT')).toBe(false);
  });

  it('embeds a Unicode font: non-ASCII profile text survives into the PDF', async () => {
    model.script(passingScript());
    const out = await h.run(researchProposalFlow, { mode: 'autonomous', profile: CLIMATE_PROFILE });
    const pdf = await readPdf(out.pdf!.path);
    expect(pdf.text).toContain('Zürich');
    expect(pdf.text).toContain('São Paulo');
  });

  it('fails the run when a stage fails non-retryably: ERROR state, the partial result in the failure', async () => {
    model.script(passingScript());
    h.standin.setFaults({ permanentStatus: 400, tasks: ['proposal.methodology'] });
    const handle = await h.start(researchProposalFlow, { mode: 'autonomous', profile: EXAMPLE_PROFILE });
    const out = await stageFailure(handle);
    expect(out.status).toBe('error');
    expect(out.state).toBe('ERROR');
    expect(out.error).toMatchObject({ state: 'METHODOLOGY', type: 'ModelRequestRejected' });
    expect(out.error!.message).toMatch(/proposal\.methodology.*HTTP 400/);
    expect(out.transitions.map((t) => t.to).slice(-2)).toEqual(['METHODOLOGY', 'ERROR']);
    expect(out.pdf).toBeNull();
    // What was written before the failure is kept: the profile and the stages before methodology.
    expect(out.profile).toMatchObject({ research_area: EXAMPLE_PROFILE.research_area });
    // Non-retryable: one attempt, not five.
    expect(h.standin.stats().byTask['proposal.methodology']).toBe(1);
    expectLawfulTransitions(out);
    expect(await handle.query(progressQuery)).toMatchObject({ status: 'failed', stage: 'methodology' });
    await recordHistory(handle, 'research-proposal-stage-failed');
  });

  it('a model call the test did not script fails the run at once, naming the call', async () => {
    model.script({ 'proposal.problem_formulation': [scriptedProblem(2)] });
    const handle = await h.start(researchProposalFlow, { mode: 'autonomous', profile: EXAMPLE_PROFILE });
    const out = await stageFailure(handle);
    expect(out).toMatchObject({ status: 'error', error: { state: 'OBJECTIVES', type: 'ModelRequestRejected' } });
    expect(out.error!.message).toMatch(/unscripted call 1 to proposal\.objectives/);
    expect(model.unexpected).toEqual(['unscripted call 1 to proposal.objectives']);
    expect(h.standin.stats().byTask['proposal.objectives']).toBe(1);
    model.unexpected = [];
  });

  it('retries a retryable model fault and completes', async () => {
    model.script(passingScript());
    h.standin.setFaults({ burst503: 1, tasks: ['proposal.objectives'] });
    const out = await h.run(researchProposalFlow, { mode: 'autonomous', profile: EXAMPLE_PROFILE });
    expect(out.status).toBe('completed');
    const stats = h.standin.stats();
    expect(stats.faults['503']).toBe(1);
    expect(stats.byTask['proposal.objectives']).toBe(2);
  });

  it('is offered as the MCP tool write_research_proposal', async () => {
    model.script(passingScript());
    const server = createMcpServer(
      { client: h.client, taskQueue: h.taskQueue },
      { flows: [researchProposalFlow as unknown as FlowDefinition], registrars: [] },
    );
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const mcp = new McpClient({ name: 'proposal-test', version: '1.0.0' });
    await Promise.all([server.connect(serverSide), mcp.connect(clientSide)]);
    try {
      const { tools } = await mcp.listTools();
      const tool = tools.find((t) => t.name === 'write_research_proposal');
      expect(tool?.inputSchema.required).toEqual(['mode']);
      const call = await mcp.callTool({
        name: 'write_research_proposal',
        arguments: { mode: 'autonomous', profile: EXAMPLE_PROFILE, maxRefinements: 1 },
      });
      const out = call.structuredContent as ProposalOutput;
      expect(out).toMatchObject({ status: 'completed', state: 'COMPLETE' });
      expect(existsSync(out.pdf!.path)).toBe(true);
      const bad = await mcp.callTool({ name: 'write_research_proposal', arguments: { mode: 'autonomous' } });
      expect(bad.isError).toBe(true);
      expect(JSON.stringify(bad.content)).toMatch(/profile/);
    } finally {
      await mcp.close();
      await server.close();
    }
  });

  it('rejects bad input: autonomous needs a complete profile, the refinement bound is 0..5', async () => {
    await expect(h.start(researchProposalFlow, { mode: 'autonomous' })).rejects.toThrow(/profile/);
    await expect(
      h.start(researchProposalFlow, { mode: 'autonomous', profile: { ...EXAMPLE_PROFILE, weekly_hours: 'ten' } }),
    ).rejects.toThrow(/profile\.weekly_hours/);
    await expect(
      h.start(researchProposalFlow, { mode: 'autonomous', profile: EXAMPLE_PROFILE, maxRefinements: 6 }),
    ).rejects.toThrow(/maxRefinements/);
    // Past the client (e.g. the temporal CLI), the workflow itself fails at once, naming the field.
    const handle = await h.client.workflow.start('writeResearchProposal', {
      taskQueue: h.taskQueue,
      workflowId: `proposal-bad-${Date.now()}`,
      args: [{ mode: 'autonomous' }],
    });
    const error = await handle.result().catch((e) => e);
    expect(error).toBeInstanceOf(WorkflowFailedError);
    const cause = (error as WorkflowFailedError).cause as ApplicationFailure;
    expect(cause.type).toBe('InvalidInput');
    expect(cause.message).toContain('profile');
    await recordHistory(handle, 'research-proposal-invalid-input');
  });
});

describe('writeResearchProposal, review gate', () => {
  let h: Harness;
  const model = new ScriptedModel();
  beforeAll(async () => {
    h = await createHarness({ rules: model.rules(PROPOSAL_STAGE_TASKS) });
  });
  afterAll(async () => h?.close());
  afterEach(() => expect(model.unexpected).toEqual([]));

  const awaitingReview = (handle: WorkflowHandle, round: number) =>
    until(async () => {
      const s = await handle.query(proposalStateQuery);
      return s.awaiting === 'review' && s.round === round ? s : undefined;
    }, `review of version ${round}`);

  it(
    'waits for the reviewer; request-changes feeds the comments into one more round; ' + 'approve writes the PDF',
    async () => {
      model.script(passingScript());
      const handle = await h.start(researchProposalFlow, {
        mode: 'autonomous',
        profile: EXAMPLE_PROFILE,
        review: true,
      });
      const first: ProposalStateView = await awaitingReview(handle, 1);
      expect(first.state).toBe('AWAITING_REVIEW');
      expect(first.draft).toMatchObject({ passed: true });

      // request-changes without comments is rejected and the gate stays open.
      const rejected = await handle
        .executeUpdate(reviewProposalUpdate, { args: [{ decision: 'request-changes' }] })
        .catch((e) => e);
      expect(rejected).toBeInstanceOf(WorkflowUpdateFailedError);
      expect((rejected as WorkflowUpdateFailedError).cause?.message).toMatch(/comments/);
      expect((await handle.query(proposalStateQuery)).awaiting).toBe('review');
      // No interview question is open in autonomous mode.
      const noQuestion = await handle
        .executeUpdate(answerQuestionUpdate, { args: [{ answer: '10', questionId: 'weekly_hours' }] })
        .catch((e) => e);
      expect((noQuestion as WorkflowUpdateFailedError).cause?.message).toMatch(/no interview question is open/);

      expect(
        await handle.executeUpdate(reviewProposalUpdate, {
          args: [{ decision: 'request-changes', comments: 'Please focus on reliability of the results.' }],
        }),
      ).toEqual({ accepted: 'request-changes' });
      const second = await awaitingReview(handle, 2);
      expect(second.transitions.map((t) => t.to)).toContain('REFINEMENT');
      await handle.executeUpdate(reviewProposalUpdate, { args: [{ decision: 'approve' }] });
      const out = await handle.result();

      expect(out.status).toBe('completed');
      expect(out.review.outcome).toBe('approved');
      expect(out.review.rounds.map((r) => r.decision)).toEqual(['request-changes', 'approve']);
      expect(out.refinement.history.map((r) => r.trigger)).toEqual(['initial', 'review']);
      expect(out.refinement.history[1].feedback).toEqual(['Please focus on reliability of the results.']);
      // The reviewer's comments reached the refinement, with the reviewed version to refine.
      const prompts = model.prompts('proposal.problem_formulation');
      expect(prompts).toHaveLength(2);
      expect(prompts[1].refinement_feedback).toEqual(['Please focus on reliability of the results.']);
      expect(prompts[1].previous_definition).toMatchObject({
        main_research_question: 'What does the scripted study find?',
      });
      expect(out.refinement.chosenRound).toBe(1);
      expect(out.refinement.refinements).toBe(0);
      expect(out.transitions.map((t) => t.to)).toEqual([
        'PROBLEM_FORMULATION',
        'OBJECTIVES',
        'METHODOLOGY',
        'DATA_COLLECTION',
        'QUALITY_CONTROL',
        'AWAITING_REVIEW',
        'REFINEMENT',
        'PROBLEM_FORMULATION',
        'OBJECTIVES',
        'METHODOLOGY',
        'DATA_COLLECTION',
        'QUALITY_CONTROL',
        'AWAITING_REVIEW',
        'RENDERING_PDF',
        'COMPLETE',
      ]);
      expectLawfulTransitions(out);
      const pdf = await readPdf(out.pdf!.path);
      expect(squash(pdf.text)).toContain(squash('Please focus on reliability of the results.'));
      await recordHistory(handle, 'research-proposal-review-gate');
    },
  );

  it(`accepts at most ${MAX_REVIEW_ROUNDS} change requests, then only approval`, async () => {
    model.script(passingScript());
    const handle = await h.start(researchProposalFlow, { mode: 'autonomous', profile: EXAMPLE_PROFILE, review: true });
    for (let round = 1; round <= MAX_REVIEW_ROUNDS; round++) {
      await awaitingReview(handle, round);
      await handle.executeUpdate(reviewProposalUpdate, {
        args: [{ decision: 'request-changes', comments: `Round ${round}: tighten the wording.` }],
      });
    }
    await awaitingReview(handle, MAX_REVIEW_ROUNDS + 1);
    const refused = await handle
      .executeUpdate(reviewProposalUpdate, { args: [{ decision: 'request-changes', comments: 'once more' }] })
      .catch((e) => e);
    expect((refused as WorkflowUpdateFailedError).cause?.message).toMatch(/at most 3 change requests/);
    await handle.executeUpdate(reviewProposalUpdate, { args: [{ decision: 'approve' }] });
    const out = await handle.result();
    expect(out.refinement.history.map((r) => r.trigger)).toEqual(['initial', 'review', 'review', 'review']);
    expect(out.review.rounds).toHaveLength(MAX_REVIEW_ROUNDS + 1);
  });
});
