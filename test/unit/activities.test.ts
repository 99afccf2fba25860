/**
 * Activities with fake backends in the SDK's MockActivityEnvironment: one or more per flow, no
 * Temporal server. They check what each activity sends the model (task and sections of
 * contracts/model-tasks.ts) and what it makes of the reply, including the failure paths that
 * depend on the activity context (attempt number, cancellation).
 */
import { ApplicationFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createBomActivities } from '../../flows/bom/activities';
import { createDiscoveryActivities } from '../../flows/discovery/activities';
import { createEadsActivities } from '../../flows/eads/activities';
import { createPlatformActivities } from '../../flows/platform/activities';
import { createProposalActivities } from '../../flows/proposal/activities';
import { askModel, backendCall } from '../../flows/lib/activities/support';
import { BackendError } from '../../backends/errors';
import { duckDbDialect } from '../../backends/warehouse/sql';
import type { Warehouse } from '../../backends/warehouse/types';
import { ModelTask as BomTask } from '../../flows/bom/model-tasks';
import { ModelTask as EadsTask } from '../../flows/eads/model-tasks';
import { ModelTask as PlatformTask } from '../../flows/platform/model-tasks';
import { ModelTask as ProposalTask } from '../../flows/proposal/model-tasks';
import { inActivity, inActivityEnvironment, mockActivityEnvironment } from '../helpers/activity-env';
import { fakeBackends, fakeModel } from './fake-backends';

const overloaded = () =>
  new BackendError('model overloaded', { backend: 'model', retryable: true, type: 'ModelUnavailable', status: 503 });

describe('support', () => {
  it('heartbeats while a backend call runs and turns backend errors into Temporal failures', async () => {
    const env = mockActivityEnvironment();
    let beats = 0;
    env.on('heartbeat', () => beats++);
    const failure = await env.run(() => backendCall(() => Promise.reject(overloaded()))).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect((failure as ApplicationFailure).type).toBe('ModelUnavailable');
    expect((failure as ApplicationFailure).nonRetryable).toBe(false);
    expect(beats).toBeGreaterThan(0);
  });

  it('passes the cancellation signal on', async () => {
    const env = mockActivityEnvironment();
    const running = env.run(() =>
      backendCall(
        (signal) => new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('aborted')))),
      ),
    );
    env.cancel();
    await expect(running).rejects.toThrow();
  });

  it('needs an activity context: there is no silent fallback outside one', async () => {
    const model = fakeModel(() => ({ summary: 'x', highlights: [] }));
    const request = {
      task: PlatformTask.platformSummarize,
      instructions: 'Summarise.',
      sections: { topic: 'battery', search_hits: [], warehouse_rows: [] },
      schema: z.object({ summary: z.string(), highlights: z.array(z.string()) }),
    };
    await expect(askModel(model, request)).rejects.toThrow();
    await expect(inActivity(() => askModel(model, request))).resolves.toMatchObject({ data: { summary: 'x' } });
  });
});

describe('platform', () => {
  it('summarises with the contract sections and clamps the row limit in the SQL', async () => {
    const model = fakeModel(() => ({ summary: 'Two documents.', highlights: ['A'] }));
    const queries: string[] = [];
    const warehouse = {
      name: 'fake',
      dialect: duckDbDialect,
      query: async ({ sql }: { sql: string }) => {
        queries.push(sql);
        return { rows: [{ part_number: 'P-1' }] };
      },
    } as unknown as Warehouse;
    const acts = inActivityEnvironment(createPlatformActivities(fakeBackends({ model, warehouse })));
    const out = await acts.summarizeFindings({
      topic: 'battery',
      documents: [{ title: 'A' }],
      rows: [{ part_number: 'P-1' }],
    });
    expect(out.data.summary).toBe('Two documents.');
    expect(model.requests[0].task).toBe('platform.summarize');
    expect(model.requests[0].sections).toEqual({
      topic: 'battery',
      search_hits: [{ title: 'A' }],
      warehouse_rows: [{ part_number: 'P-1' }],
    });
    await acts.queryComponents({ topic: 'battery', limit: 5000 });
    expect(queries[0]).toMatch(/LIMIT 50$/);
  });
});

describe('bom', () => {
  it('asks for focus terms with the question section and cleans the reply', async () => {
    const model = fakeModel(() => ({ focus_terms: ['Tantalum Capacitors', 'components', 'CMP-000023'] }));
    const { extractBomFocusTerms } = inActivityEnvironment(createBomActivities(fakeBackends({ model })));
    const out = await extractBomFocusTerms({ question: 'Which BOMs use tantalum capacitors?' });
    expect(model.requests[0]).toMatchObject({
      task: BomTask.bomFocusTerms,
      sections: { question: 'Which BOMs use tantalum capacitors?' },
    });
    // Generic words ("components") are dropped whatever the model says.
    expect(out.focus_terms).not.toContain('components');
    expect(out.focus_terms.length).toBeGreaterThan(0);
  });

  it('a failing model step is a retryable Temporal failure (the workflow falls back to keywords)', async () => {
    const model = fakeModel(() => {
      throw overloaded();
    });
    const { extractBomFocusTerms } = inActivityEnvironment(createBomActivities(fakeBackends({ model })));
    const failure = await extractBomFocusTerms({ question: 'Which BOMs use sensors?' }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect((failure as ApplicationFailure).nonRetryable).toBe(false);
  });
});

describe('discovery', () => {
  it('keeps only the target columns of the step among the columns the model vouches for', async () => {
    const model = fakeModel(() => ({
      is_good_fit: true,
      relevance_score: 0.9,
      reasoning: 'Has sales by store and week.',
      matched_columns: ['store_id', 'password', 'store_id'],
    }));
    const { discoveryValidateCandidate } = inActivityEnvironment(createDiscoveryActivities(fakeBackends({ model })));
    const out = await discoveryValidateCandidate({
      step: { conceptual_group: 'sales' },
      targetColumns: [{ name: 'store_id', type: 'STRING', description: 'The store.' }] as never,
      candidate: { table_id: 'sales', project_id: 'p', dataset_id: 'd', description: 'Weekly sales.', schema: [] },
    });
    expect(out.data.matched_columns).toEqual(['store_id']);
    const sections = model.requests[0].sections as Record<string, unknown>;
    expect(Object.keys(sections)).toEqual(['conceptual_group', 'target_columns', 'candidate_table']);
    expect(JSON.parse(String(sections.candidate_table))).toMatchObject({ table_id: 'sales' });
  });
});

describe('proposal', () => {
  const question = {
    field: 'research_area',
    prompt: 'What is your research area?',
    hint: 'A field, e.g. ecology.',
    number: 1,
    of: 8,
    conversation: [],
  };

  it("phrases an interview question in the model's words", async () => {
    const model = fakeModel(() => ({ question: '  Which field is your research in?  ' }));
    const { phraseInterviewQuestion } = inActivityEnvironment(createProposalActivities(fakeBackends({ model })));
    expect(await phraseInterviewQuestion(question)).toEqual({ prompt: 'Which field is your research in?' });
    expect(model.requests[0]).toMatchObject({
      task: ProposalTask.proposalInterviewQuestion,
      sections: { conversation: [], next_field: { field: 'research_area', number: 1, of: 8 } },
    });
  });

  it("keeps the form's wording (null) when the model fails", async () => {
    const model = fakeModel(() => {
      throw overloaded();
    });
    const { phraseInterviewQuestion } = inActivityEnvironment(createProposalActivities(fakeBackends({ model })));
    expect(await phraseInterviewQuestion(question)).toBeNull();
  });
});

describe('eads', () => {
  const args = {
    pursued: [],
    facts: {},
    conversation: { product: null, problem_type: null, scheduling_challenges: [], completed: [] },
  };

  it('falls back to the library order when the model picks an ineligible EADS', async () => {
    const model = fakeModel(() => ({
      eads_id: 'optimality/not-eligible',
      rationale: 'x',
      interviewer_type: 'x',
      priority: 1,
    }));
    const { chooseNextEads } = inActivityEnvironment(createEadsActivities(fakeBackends({ model })));
    const { recommendation } = await chooseNextEads(args);
    expect(recommendation.source).toBe('fallback');
    expect(recommendation.rationale).toMatch(/not eligible/);
    expect(recommendation.candidates).toContain(recommendation.eads_id);
    expect(model.requests[0].task).toBe(EadsTask.eadsOrchestrate);
  });

  it('keeps the troubles an earlier answer tagged when a later answer names another', async () => {
    const model = fakeModel(() => ({
      update: { 'scheduling-challenges': ['worker-availability'] },
      commit_notes: 'One more trouble.',
      exhausted: false,
    }));
    const { refineEadsStructure } = inActivityEnvironment(createEadsActivities(fakeBackends({ model })));
    const { update } = await refineEadsStructure({
      eadsId: 'process/warm-up-with-challenges',
      question: {
        id: 'q2',
        eads_id: 'process/warm-up-with-challenges',
        question: 'Is there anything else we should know?',
        question_type: 'text',
        help_text: 'A sentence or two is enough.',
        targets: ['one-more-thing'],
        budget_cost: 0.1,
      },
      answer: 'Two of our drivers left in spring.',
      dataStructure: {
        'EADS-id': 'process/warm-up-with-challenges',
        'product-or-service-name': 'garden sheds',
        'scheduling-challenges': ['variation-in-demand'],
      },
      asked: [],
      context: { schedulingChallenges: ['variation-in-demand'] },
    });
    expect(update['scheduling-challenges']).toEqual(['variation-in-demand', 'worker-availability']);
    // The filled tags are in the prompt, so the model may add to them.
    const fields = (model.requests[0].sections as { fields: Array<{ name: string }> }).fields;
    expect(fields.map((f) => f.name)).toContain('scheduling-challenges');
  });

  it('a transient model failure is retried first; the last allowed attempt falls back', async () => {
    const model = fakeModel(() => {
      throw overloaded();
    });
    const acts = createEadsActivities(fakeBackends({ model }));
    const first = inActivityEnvironment(acts, { attempt: 1 });
    await expect(first.chooseNextEads({ ...args, fallbackAfterAttempts: 3 })).rejects.toBeInstanceOf(
      ApplicationFailure,
    );
    const last = inActivityEnvironment(acts, { attempt: 3 });
    const { recommendation } = await last.chooseNextEads({ ...args, fallbackAfterAttempts: 3 });
    expect(recommendation.source).toBe('fallback');
    expect(recommendation.rationale).toMatch(/orchestrator model failed/);
  });
});
