/**
 * Replies for the EADS interview's model tasks, for tests that script the model (ScriptedModel):
 * tests of the interview's orchestration assert what the workflows do with these replies, never
 * what the offline model's rules would have said.
 *
 *   const model = new ScriptedModel();
 *   const h = await createHarness({ rules: model.rules(EADS_TASKS) });
 *   model.script({ 'eads.orchestrate': [pick('process/warm-up-with-challenges')], ... });
 */
import { expect } from 'vitest';
import { ModelTask } from '../../flows/eads/model-tasks';
import type { ScriptedModel } from './scripted-model';

/** Every model task of the EADS flow. */
export const EADS_TASKS = Object.values(ModelTask);

/** An `eads.orchestrate` reply choosing `eadsId` (it must be eligible, or the fallback order decides). */
export function pick(eadsId: string, rationale = `Scripted choice: ${eadsId} comes next in this test.`) {
  return { eads_id: eadsId, rationale, interviewer_type: eadsId.split('/')[0], priority: 0.8 };
}

/** An `eads.question` reply: a text question unless `more` says otherwise. */
export function ask(
  question: string,
  targets: string[],
  more: { question_type?: 'text' | 'table' | 'choice'; table_template?: string; choices?: string[] } = {},
) {
  return { question, question_type: 'text', help_text: 'Scripted help text.', targets, ...more };
}

/** An `eads.refine` reply: the fields the answer settles. */
export function refined(update: Record<string, unknown>, commitNotes = 'Scripted refinement.', exhausted = false) {
  return { update, commit_notes: commitNotes, exhausted };
}

/** Fails the test when the model was asked something the script did not foresee, or a scripted reply went unused. */
export function expectScriptUsedUp(model: ScriptedModel): void {
  expect({ unexpected: model.unexpected, leftOver: model.leftOver() }).toEqual({ unexpected: [], leftOver: [] });
}
