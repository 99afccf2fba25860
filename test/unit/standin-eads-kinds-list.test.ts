/**
 * The kinds of problem that seem relevant (a list drawn from the choices of the principal kind)
 * are read as the principal kind is, and only from answers to it: an answer to another question
 * of the same topic (whether the plan repeats, whether work flows without a break) adds no kind.
 */
import { expect, it } from 'vitest';
import { describeWithModel } from '../helpers/installed-embedder';
import { eadsLibrary, promptFields, runEadsRule } from '../helpers/eads-fields';

const eads = eadsLibrary.get('process/scheduling-problem-type')!;
const fields = promptFields(eads.id);

async function refine(targets: string[], question: string, answer: string, known: Record<string, unknown>) {
  const remaining = fields.filter((f) => known[f.name] === undefined || f.name === 'problem-components');
  const out = (await runEadsRule('eads.refine', {
    eads: { id: eads.id, name: eads.name },
    question: { question, targets, question_type: 'text' },
    answer,
    fields: remaining,
    attempts: {},
    data_structure: known,
    context: {},
  })) as { update: Record<string, unknown> };
  return { ...known, ...out.update };
}

describeWithModel('the kinds of problem beside the principal kind', () => {
  it('holds the kind the answers about it tell, and nothing an answer to another question brushes against', async () => {
    // A sign maker: every sign passes the same stations in order.
    let known = await refine(
      ['principal-problem-type'],
      'How does work move through your workshop?',
      'Every sign goes the same way: the vinyl is cut, weeded, laid onto the panel, then trimmed and packed. Nothing skips a station.',
      {},
    );
    expect(known['principal-problem-type']).toBe('FLOW-SHOP-SCHEDULING-PROBLEM');
    known = await refine(
      ['cyclical?'],
      'Would you like a plan that repeats every week or fortnight?',
      'Yes. A fortnightly pattern that repeats would suit us, shifted a little for the busy months.',
      known,
    );
    known = await refine(
      ['continuous?'],
      'Does product flow without a break, or in separate lots?',
      'Separate lots: one order at a time, a few dozen signs each.',
      known,
    );
    expect(known['problem-components']).toEqual(['FLOW-SHOP-SCHEDULING-PROBLEM']);
  });
});
