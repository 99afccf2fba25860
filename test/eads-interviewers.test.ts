/**
 * The four interviewer types reach the model: each question prompt carries the brief and question
 * style of the interviewer its EADS names, the type is in the question activity's input in
 * history, and each pursuit in the result says which interviewer ran it. The model is a scripted
 * firm (its replies do not matter here, only what the prompts carry).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runEadsInterviewFlow } from '../flows/eads/contract';
import { INTERVIEWERS } from '../flows/eads/activities/interviewers';
import type { StandinRule } from '../flows/lib/standin';
import { createHarness, type Harness } from './helpers/harness';
import { ScriptedModel } from './helpers/scripted-model';
import { EADS_TASKS, exampleFirm } from './helpers/eads-script';

describe('interviewer types in the question prompt', () => {
  const model = new ScriptedModel().script(exampleFirm());
  const systems: string[] = [];
  // The scripted rules, with the question rule wrapped to record the prompt's instructions too.
  const recording: StandinRule[] = model.rules(EADS_TASKS).map((r) =>
    r.task === 'eads.question'
      ? {
          ...r,
          answer(ctx) {
            systems.push(ctx.system);
            return r.answer(ctx);
          },
        }
      : r,
  );
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness({ rules: recording });
  });
  afterAll(async () => h?.close());

  it('gives each EADS the brief of its own interviewer, and records the type in history and result', async () => {
    const projectId = `interviewers-${Date.now().toString(36)}`;
    const handle = await h.start(runEadsInterviewFlow, {
      projectId,
      mode: 'surrogate',
      fixture: 'machine-shop-job-shop',
    });
    const result = await handle.result();
    expect(model.unexpected).toEqual([]);
    const seen = model.prompts('eads.question').map((s) => ({
      eads: String((s.eads as { id: string }).id),
      interviewer: s.interviewer as Record<string, string>,
    }));
    expect(seen.length).toBeGreaterThan(0);
    for (const q of seen) {
      const topic = q.eads.split('/')[0] as keyof typeof INTERVIEWERS;
      expect(q.interviewer, q.eads).toMatchObject({
        type: topic,
        question_style: INTERVIEWERS[topic].question_style,
        instructions: INTERVIEWERS[topic].instructions,
      });
    }
    expect(new Set(seen.map((q) => q.interviewer.type))).toEqual(
      new Set(['process', 'data', 'resources', 'optimality']),
    );
    expect(systems[0]).toMatch(/as the interviewer described in <interviewer>/);

    for (const p of result.pursuits) expect(p.interviewer, p.eadsId).toBe(p.eadsId.split('/')[0]);
    // History: the questions are written in the pursuit's workflow task (local activities, whose
    // markers keep the result, not the input), and the pursuit's recorded result names its interviewer.
    const child = h.client.workflow.getHandle(
      result.pursuits.find((p) => p.eadsId === 'resources/resource-pools')!.childWorkflowId,
    );
    const events = (await child.fetchHistory()).events!;
    const payload = (p: { data?: Uint8Array | null } | undefined) => JSON.parse(Buffer.from(p!.data!).toString());
    const localTypes = events
      .filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity')
      .map((e) => payload(e.markerRecordedEventAttributes!.details!.data!.payloads![0]).activity_type);
    expect(localTypes).toContain('generateEadsQuestion');
    const completed = events.find((e) => e.workflowExecutionCompletedEventAttributes)!;
    expect(payload(completed.workflowExecutionCompletedEventAttributes!.result!.payloads![0]).interviewer).toBe(
      'resources',
    );
  });
});
