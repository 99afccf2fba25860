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
import { isValidTransition } from '../flows/proposal/workflow/state-machine';
import { answerQuestionUpdate, proposalStateQuery, reviewProposalUpdate } from '../flows/proposal/messages';
import { createHarness, recordHistory, type Harness } from './helpers/harness';
import { CLIMATE_PROFILE, IMPOSSIBLE_PROFILE, readPdf, squash, TIGHT_PROFILE, until } from './proposal-helpers';

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

describe('writeResearchProposal, autonomous', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(async () => h?.close());
  afterEach(() => {
    h.standin.setFaults({});
    h.standin.resetStats();
  });

  it('passes quality control on the first version and writes a PDF with every section and working links', async () => {
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

  it('refines twice when quality control fails twice, then passes', async () => {
    const handle = await h.start(researchProposalFlow, { mode: 'autonomous', profile: TIGHT_PROFILE });
    const out = await handle.result();
    expect(out.status).toBe('completed');
    expect(out.refinement).toMatchObject({ refinements: 2, limitReached: false, chosenRound: 2 });
    const history = out.refinement.history;
    expect(history.map((r) => r.passed)).toEqual([false, false, true]);
    expect(history.map((r) => r.trigger)).toEqual(['initial', 'quality-control', 'quality-control']);
    // The feedback that drove each refinement is quality control's own recommendation, and it narrowed the scope.
    expect(history[1].feedback.join(' ')).toMatch(/narrow the scope/i);
    expect(history.map((r) => r.secondaryQuestions)).toEqual([4, 3, 2]);
    expect(history[0].planWeeks!).toBeGreaterThan(13);
    expect(history[2].planWeeks!).toBeLessThanOrEqual(13);
    expect(history[0].criticalIssues).toBeGreaterThan(0);
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
    const handle = await h.start(researchProposalFlow, {
      mode: 'autonomous',
      profile: IMPOSSIBLE_PROFILE,
      maxRefinements: 2,
    });
    const out = await handle.result();
    expect(out.status).toBe('completed_with_issues');
    expect(out.state).toBe('COMPLETE');
    expect(out.refinement).toMatchObject({ refinements: 2, maxRefinements: 2, limitReached: true });
    expect(out.refinement.history).toHaveLength(3);
    expect(out.refinement.history.every((r) => !r.passed)).toBe(true);
    const best = Math.max(...out.refinement.history.map((r) => r.overall));
    expect(out.refinement.history[out.refinement.chosenRound!].overall).toBe(best);
    expect(out.proposal!.quality_validation.overall_quality_score).toBe(best);
    expect(out.unresolvedIssues.some((i) => i.severity === 'critical' && /weeks/.test(i.description))).toBe(true);
    expect(h.standin.stats().byTask['proposal.problem_formulation']).toBe(3);
    expectLawfulTransitions(out);
    const pdf = await readPdf(out.pdf!.path);
    expect(squash(pdf.text)).toContain(squash('Unresolved after the refinement limit'));
    await recordHistory(handle, 'research-proposal-limit-reached');
  });

  it('with maxRefinements 0 keeps the first version without refining', async () => {
    const out = await h.run(researchProposalFlow, {
      mode: 'autonomous',
      profile: TIGHT_PROFILE,
      maxRefinements: 0,
    });
    expect(out.status).toBe('completed_with_issues');
    expect(out.refinement).toMatchObject({ refinements: 0, limitReached: true, chosenRound: 0 });
    expect(out.transitions.some((t) => t.to === 'REFINEMENT')).toBe(false);
  });

  it('embeds a Unicode font: non-ASCII profile text survives into the PDF', async () => {
    const out = await h.run(researchProposalFlow, { mode: 'autonomous', profile: CLIMATE_PROFILE });
    const pdf = await readPdf(out.pdf!.path);
    expect(pdf.text).toContain('Zürich');
    expect(pdf.text).toContain('São Paulo');
  });

  it('ends in the ERROR state with the message when a stage fails non-retryably', async () => {
    h.standin.setFaults({ permanentStatus: 400, tasks: ['proposal.methodology'] });
    const handle = await h.start(researchProposalFlow, { mode: 'autonomous', profile: EXAMPLE_PROFILE });
    const out = await handle.result();
    expect(out.status).toBe('error');
    expect(out.state).toBe('ERROR');
    expect(out.error).toMatchObject({ state: 'METHODOLOGY', type: 'ModelRequestRejected' });
    expect(out.error!.message).toMatch(/proposal\.methodology.*HTTP 400/);
    expect(out.transitions.map((t) => t.to).slice(-2)).toEqual(['METHODOLOGY', 'ERROR']);
    expect(out.pdf).toBeNull();
    // Non-retryable: one attempt, not five.
    expect(h.standin.stats().byTask['proposal.methodology']).toBe(1);
    expectLawfulTransitions(out);
    await recordHistory(handle, 'research-proposal-stage-error');
  });

  it('retries a retryable model fault and completes', async () => {
    h.standin.setFaults({ burst503: 1, tasks: ['proposal.objectives'] });
    const out = await h.run(researchProposalFlow, { mode: 'autonomous', profile: EXAMPLE_PROFILE });
    expect(out.status).toBe('completed');
    const stats = h.standin.stats();
    expect(stats.faults['503']).toBe(1);
    expect(stats.byTask['proposal.objectives']).toBe(2);
  });

  it('is offered as the MCP tool write_research_proposal', async () => {
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
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(async () => h?.close());

  const awaitingReview = (handle: WorkflowHandle, round: number) =>
    until(async () => {
      const s = await handle.query(proposalStateQuery);
      return s.awaiting === 'review' && s.round === round ? s : undefined;
    }, `review of version ${round}`);

  it(
    'waits for the reviewer; request-changes feeds the comments into one more round; ' + 'approve writes the PDF',
    async () => {
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
      // The reviewer's focus reached the refined problem definition.
      expect(out.proposal!.problem_definition.main_research_question).toMatch(/reliability of the results/);
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
