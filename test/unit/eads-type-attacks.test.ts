/**
 * Answers about how work moves, written by a fresh-context attacker in trades of its own, that
 * the problem-type reader once read as the WRONG type: a denied difference or sameness read as
 * what it denies, a difference in something else read as a route of its own, one machine told
 * as "the same route" read as a line, and a numbered answer that changes its mind. Each must
 * come out right or undetermined (the interviewer asks again), never another type.
 */
import path from 'node:path';
import { expect, it } from 'vitest';
import { describeWithModel } from '../helpers/installed-embedder';
import { cachedLibrary } from '../../flows/eads/activities/library';
import { readChoice } from '../../flows/eads/standin';
import { choiceFromPlainAnswer } from '../../domain/eads-structure';

const library = cachedLibrary([path.resolve(__dirname, '..', '..', 'data', 'eads')])();
const problemType = library
  .get('process/scheduling-problem-type')!
  .fields.find((f) => f.name === 'principal-problem-type')!;
const [FLOW, JOB, SINGLE] = [
  'FLOW-SHOP-SCHEDULING-PROBLEM',
  'JOB-SHOP-SCHEDULING-PROBLEM',
  'SINGLE-MACHINE-SCHEDULING-PROBLEM',
];

const answers: Array<[string, string]> = [
  // A difference denied: one route for all.
  [
    FLOW,
    'Honey comes in from the hives, gets uncapped, spun, strained, settled and jarred. Nothing ever goes in a different order.',
  ],
  [FLOW, "No job takes a different route; it's cutting, then stitching, then pressing, for every wetsuit."],
  [FLOW, 'None of our lamps ever go a different way: wire, assemble, test, box.'],
  [FLOW, "Nobody's order goes through the steps differently here: every quilt is pieced, layered, quilted and bound."],
  [FLOW, "We never do things in a different order; it's knead, shape, dry, pack for every pasta."],
  // Sameness denied: a route per job.
  [
    JOB,
    "There isn't a fixed sequence. Some gates and railings start on the plasma cutter, some on the bender, some on the welding bench.",
  ],
  [JOB, "We've got no fixed route at all; each job goes wherever it needs to go."],
  [JOB, 'The sequence is never identical from one restoration to the next.'],
  [JOB, 'Not every job follows the same route. Some skip the paint shop, some go to it twice.'],
  [JOB, 'Not one of our jobs follows the same route as the last.'],
  [JOB, "There's no set order and no fixed route in the repair bays."],
  // A difference in something else, beside a route word.
  [FLOW, 'Each batch of cider is unique in flavour, but they all go press, ferment, filter, bottle, in that order.'],
  [FLOW, 'Every order is different, different sizes and colours, but the steps are always cut, sew, pack.'],
  [FLOW, "It's a production line. The order of the products changes every day but the stations never do."],
  [SINGLE, 'Each customer order varies in size, and the steps around our single press are trivial.'],
  // One machine told as one route.
  [
    SINGLE,
    "Orders go through the same steps: a quick check, then the engraving machine, then a wipe and into the box. The engraver is the only machine and it's what everything waits for.",
  ],
  [
    SINGLE,
    'Everything takes the same route, through our one big press, and the only question is which job goes first.',
  ],
];

describeWithModel('problem-type answers that were once read as the wrong type', () => {
  for (const [type, answer] of answers)
    it(`${type.split('-')[0].toLowerCase()} or undetermined: ${answer.slice(0, 60)}…`, async () => {
      expect([type, undefined]).toContain(await readChoice(answer, problemType.choices!));
    });

  it('still reads a plain route answer', async () => {
    expect(
      await readChoice('Every job takes its own route through the shop; no two are alike.', problemType.choices!),
    ).toBe(JOB);
    expect(
      await readChoice(
        'Every batch goes the same way through the same stations, in the same order.',
        problemType.choices!,
      ),
    ).toBe(FLOW);
  });
});

it('takes no number from an answer that changes its mind', () => {
  const choices = problemType.choices!;
  for (const answer of ['1) no, actually 2', '2. Or rather 1.', '3 - no wait, 5', '1: not us at all, we are 2'])
    expect(choiceFromPlainAnswer(answer, choices)).toBeUndefined();
  expect(choiceFromPlainAnswer('2', choices)).toBe(JOB);
  expect(choiceFromPlainAnswer('1) Flow shop', choices)).toBe(FLOW);
});
