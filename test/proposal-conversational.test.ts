/**
 * The proposal interview in conversation: with a general model (Gemini) configured, each question
 * is asked in the model's words, acknowledging the last answer; the form's fields, hints and
 * answer parsing stay the contract. A model failure falls back to the form's wording, and offline
 * (the stand-in, no conversation) the interview is the form.
 */
import type { WorkflowHandle } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelBackend } from '../backends/model/types';
import { INTERVIEW_QUESTIONS, researchProposalFlow } from '../flows/proposal/contract';
import { answerQuestionUpdate, currentQuestionQuery } from '../flows/proposal/messages';
import { createHarness, recordHistory, type Harness } from './helpers/harness';
import { until } from './proposal-helpers';

const ANSWERS: Record<string, string> = {
  academic_program: 'PhD',
  field_of_study: 'Ecology',
  research_area: 'Pollinator decline in urban green spaces',
  weekly_hours: '20',
  total_timeline: '12 months',
  existing_skills: 'R, field surveys',
  missing_skills: 'Bayesian statistics',
  constraints: 'none',
  additional_context: 'skip',
};
const FORM = new Map<string, string>(INTERVIEW_QUESTIONS.map((q) => [q.field, q.prompt]));

/** Answers the open question (whatever its wording) until the interview is over; returns the prompts seen. */
async function interview(handle: WorkflowHandle): Promise<Map<string, string>> {
  const prompts = new Map<string, string>();
  for (;;) {
    const q = await until(async () => (await handle.query(currentQuestionQuery)) ?? undefined, 'an open question');
    // Wait for the question's final wording (the model phrases it right after it opens).
    await new Promise((r) => setTimeout(r, 300));
    const open = (await handle.query(currentQuestionQuery)) ?? q;
    prompts.set(open.field, open.prompt);
    const next = await handle.executeUpdate(answerQuestionUpdate, {
      args: [{ answer: ANSWERS[open.field] ?? 'skip', questionId: open.id }],
    });
    if (next === null) return prompts;
  }
}

describe('conversational proposal interview', () => {
  let conversational: Harness;
  beforeAll(async () => {
    conversational = await createHarness({
      backends: (b) => {
        const model: ModelBackend = {
          name: 'gemini',
          canConverse: true,
          generate: (request) => b.model.generate(request),
        };
        return { ...b, model };
      },
    });
  });
  afterAll(async () => conversational?.close());

  it('asks each field in the model’s words, acknowledging the last answer; the profile is the form’s', async () => {
    const handle = await conversational.start(researchProposalFlow, { mode: 'interactive' });
    const prompts = await interview(handle);
    const fieldOfStudy = prompts.get('field_of_study')!;
    expect(fieldOfStudy).not.toBe(FORM.get('field_of_study'));
    expect(fieldOfStudy).toContain('"PhD"');
    expect(fieldOfStudy).toContain(FORM.get('field_of_study'));
    const out = await handle.result();
    expect(out.status).toMatch(/^completed/);
    expect(out.profile).toMatchObject({ field_of_study: 'Ecology', weekly_hours: 20 });
    await recordHistory(handle, 'research-proposal-conversational-interview');
  });

  it('falls back to the form’s wording when the model fails', async () => {
    conversational.standin.setFaults({ permanentStatus: 400, tasks: ['proposal.interview_question'] });
    try {
      const handle = await conversational.start(researchProposalFlow, { mode: 'interactive' });
      const prompts = await interview(handle);
      for (const [field, prompt] of prompts) expect(prompt).toBe(FORM.get(field));
      expect((await handle.result()).status).toMatch(/^completed/);
    } finally {
      conversational.standin.setFaults({});
    }
  });
});
