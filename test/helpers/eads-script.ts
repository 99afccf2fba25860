/**
 * Replies for the EADS interview's model tasks, for tests that script the model (ScriptedModel):
 * tests of the interview's orchestration assert what the workflows do with these replies, never
 * what the offline model's rules would have said.
 *
 *   const model = new ScriptedModel();
 *   const h = await createHarness({ rules: model.rules(EADS_TASKS) });
 *   model.script({ 'eads.orchestrate': [pick('process/warm-up-with-challenges')], ... });
 */
import path from 'node:path';
import { expect } from 'vitest';
import { cachedLibrary } from '../../flows/eads/activities/library';
import { ModelTask, type PromptedQuestion } from '../../flows/eads/model-tasks';
import type { ScriptedModel, ScriptEntry, Sections } from './scripted-model';

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

type Field = { name: string; derived?: boolean };

/**
 * A scripted firm for whole interviews (replies by prompt, any number of calls): the orchestrator
 * takes the first candidate it is offered, each question asks for one open field (a field filled
 * by derivation only when nothing else is left), the surrogate names what was asked, and every
 * answer fills the asked and derived fields with the EADS example's values. So each EADS ends
 * complete after one question per field it asks for, and the problem type is the example's.
 */
export function exampleFirm(libraryDir = path.resolve(__dirname, '..', '..', 'data', 'eads')) {
  const library = cachedLibrary([libraryDir]);
  return {
    'eads.orchestrate': {
      always: (s: Sections) =>
        pick((s.candidates as Array<{ eads_id: string }>)[0].eads_id, 'Scripted: the first candidate offered.'),
    },
    'eads.question': {
      always: (s: Sections) => {
        const open = s.remaining_fields as Field[];
        const target = (open.find((f) => !f.derived) ?? open[0]).name;
        return ask(`Scripted question ${(s.asked as unknown[]).length + 1}, about ${target}?`, [target]);
      },
    },
    'eads.surrogate_answer': {
      always: (s: Sections) => ({
        answer: `Scripted answer about ${(s.question as PromptedQuestion).targets.join(', ')}.`,
      }),
    },
    'eads.refine': {
      always: (s: Sections) => {
        const example = library().get((s.eads as { id: string }).id)!.example;
        const { targets } = s.question as PromptedQuestion;
        const filled = (s.fields as Field[])
          .filter((f) => (targets.includes(f.name) || f.derived) && f.name in example)
          .map((f) => [f.name, example[f.name]]);
        return refined(Object.fromEntries(filled));
      },
    },
  } satisfies Record<string, ScriptEntry>;
}
