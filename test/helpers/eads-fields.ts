/**
 * The bundled EADS library and the fields of one EADS as the stand-in's rules receive them, and
 * a way to run one rule on its own: for tests that play an interview step by step.
 */
import path from 'node:path';
import { cachedLibrary } from '../../flows/eads/activities/library';
import { eadsRules } from '../../flows/eads/standin';

export const eadsLibrary = cachedLibrary([path.resolve(__dirname, '..', '..', 'data', 'eads')])();

/** The fields of one bundled EADS in the shape of the prompt's field list. */
export function promptFields(eadsId: string) {
  return eadsLibrary.get(eadsId)!.fields.map((f) => ({
    name: f.name,
    kind: f.kind,
    derived: f.derived,
    question: f.suggestedQuestion,
    comment: f.comment,
    choices: f.choices,
    multiple: f.multiple,
  }));
}

/** Runs one EADS stand-in rule on the given prompt sections. */
export async function runEadsRule(task: string, sections: Record<string, unknown>): Promise<Record<string, unknown>> {
  const rule = eadsRules.find((r) => r.task === task)!;
  return (await rule.answer({ task, system: '', turns: 1, responseSchema: undefined, sections })) as Record<
    string,
    unknown
  >;
}
