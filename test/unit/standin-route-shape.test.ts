/**
 * The problem type read from the shape of the routes a firm told (flows/eads/standin/structure.ts),
 * and its use when the type was left open: only "a route per job" is ever read from structure,
 * and only where the words of the answer do not say every job takes the same route. The trades
 * and routes here are invented; so are the sentences that tell a switch of product costs time.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeWithModel } from '../helpers/installed-embedder';
import { cachedLibrary } from '../../flows/eads/activities/library';
import { askedParts, eadsRules, readChoices, whClauses } from '../../flows/eads/standin';
import { routeShape } from '../../flows/eads/standin/structure';
import { aggregateScr, UNDETERMINED } from '../../domain/eads-structure';

const library = cachedLibrary([path.resolve(__dirname, '..', '..', 'data', 'eads')])();

describe('routeShape', () => {
  it('reads a route per job where two routes visit steps in opposite orders', () => {
    // A picture framer: some frames are glazed before the mount is cut, others after.
    expect(
      routeShape([
        ['measure', 'cut mount', 'glaze', 'assemble'],
        ['measure', 'glaze', 'cut mount', 'assemble'],
      ]),
    ).toBe('own');
  });

  it('reads a route per job where kinds of work share few steps, though no order crosses', () => {
    // A piano workshop: tuning visits and full rebuilds share only the inspection.
    expect(
      routeShape([
        ['inspect', 'tune', 'voice'],
        ['inspect', 'strip action', 'replace hammers', 'restring', 'regulate', 'polish case'],
      ]),
    ).toBe('own');
  });

  it('reads one order where every route covers most steps in a common order', () => {
    // A cider press: some batches skip the filtering.
    expect(
      routeShape([
        ['wash apples', 'mill', 'press', 'filter', 'bottle'],
        ['wash apples', 'mill', 'press', 'bottle'],
      ]),
    ).toBe('same');
  });

  it('reads nothing from one route, from routes that are the same, or from two steps', () => {
    expect(routeShape([['knead', 'shape', 'fire']])).toBeUndefined();
    expect(
      routeShape([
        ['knead', 'shape', 'fire'],
        ['knead', 'shape', 'fire'],
      ]),
    ).toBeUndefined();
    expect(routeShape([['sand', 'oil'], ['oil']])).toBeUndefined();
  });

  it('reads nothing between a line and a route per job', () => {
    // Coverage 3/5 and 5/5, in one order: neither a line nor separate kinds of work.
    expect(
      routeShape([
        ['a', 'b', 'c', 'd', 'e'],
        ['a', 'c', 'e'],
      ]),
    ).toBeUndefined();
  });

  it('reads nothing where most steps queue on one piece of equipment', () => {
    // A pottery with one kiln: the routes differ, but everything waits on the kiln.
    const kit = new Map([
      ['bisque firing', ['kiln']],
      ['glaze firing', ['kiln']],
      ['lustre firing', ['kiln']],
      ['glazing', ['glaze booth']],
    ]);
    expect(
      routeShape(
        [
          ['bisque firing', 'glazing', 'glaze firing'],
          ['bisque firing', 'lustre firing'],
        ],
        kit,
      ),
    ).toBeUndefined();
  });
});

describeWithModel('the steps EADS with the type left open', () => {
  const eads = library.get('process/work-steps')!;
  const fields = eads.fields.map((f) => ({
    name: f.name,
    kind: f.kind,
    derived: f.derived,
    columns: f.columns,
    choices: f.choices,
    multiple: f.multiple,
  }));
  const refine = async (answer: string, known: Record<string, unknown> = {}) => {
    const rule = eadsRules.find((r) => r.task === 'eads.refine')!;
    const reply = (await rule.answer({
      task: 'eads.refine',
      system: '',
      turns: 1,
      responseSchema: undefined,
      sections: {
        question: {
          question: 'Which routes do different kinds of jobs take, as an ordered list of steps?',
          question_type: 'table',
          targets: ['routings'],
        },
        answer,
        fields,
        attempts: {},
        data_structure: known,
        context: {},
      },
    })) as { update: Record<string, unknown> };
    return reply.update;
  };

  it('takes a job shop from routes that cross, and nothing from routes in one order', async () => {
    const crossing = await refine(
      '| routing-id | steps |\n| --- | --- |\n| oak table | plane, joint, glue, sand, finish |\n| chair | plane, sand, joint, glue, finish |',
    );
    expect(crossing['principal-problem-type']).toBe('JOB-SHOP-SCHEDULING-PROBLEM');
    const line = await refine(
      '| routing-id | steps |\n| --- | --- |\n| still cider | wash, mill, press, filter, bottle |\n| cloudy cider | wash, mill, press, bottle |',
    );
    expect(line['principal-problem-type']).toBeUndefined();
  });

  it('reads no routes from remarks with a colon about the firm, and so no job shop', async () => {
    // The question about routes answered with what the business is and what is hard about it.
    const update = await refine(
      "Ferry crossings: we run the island boat, the harbour taxi and a summer cruise, and the tides decide most days. And crews: you can't sail without a mate, we never have enough of them, the agency's no help, it's worst in August.",
    );
    expect(update['principal-problem-type']).toBeUndefined();
  });

  it('reads routes whose steps name what they work on as "it", and the job shop they make', async () => {
    // A bicycle workshop: "it" after a verb is the wheel or frame the step works on, no speaker.
    const update = await refine(
      'Wheel builds: lace the rim, true the wheel, tension the spokes. Frame resprays: strip it, blast it, prime it, paint it.',
    );
    expect(update.routings).toEqual([
      { 'routing-id': 'wheel-builds', steps: ['lace the rim', 'true the wheel', 'tension the spokes'] },
      { 'routing-id': 'frame-resprays', steps: ['strip it', 'blast it', 'prime it', 'paint it'] },
    ]);
    expect(update['principal-problem-type']).toBe('JOB-SHOP-SCHEDULING-PROBLEM');
  });

  it('reads no job shop from steps told with their place and time, one a line', async () => {
    // The routes question answered with the list of steps: each line is a step and its time, not a route.
    const answer =
      'Sawing: the band saw, 30 minutes. Drilling: the pillar drill, 20 minutes. Enamelling: the kiln, a shift. ' +
      'Polishing: the buffing wheel, a shift. Checking: the bench, minutes a piece.';
    // As the rows stand once such an answer has been taken for routes: each a machine and a time.
    const routings = [
      ['sawing', 'the band saw', '30 minutes'],
      ['drilling', 'the pillar drill', '20 minutes'],
      ['enamelling', 'the kiln', 'a shift'],
      ['polishing', 'the buffing wheel', 'a shift'],
      ['checking', 'the bench', 'minutes a piece'],
    ].map(([id, ...steps]) => ({ 'routing-id': id, steps }));
    expect((await refine(answer, { routings }))['principal-problem-type']).toBeUndefined();
  });

  it('takes nothing where the answer says in words that every job takes the same route', async () => {
    const update = await refine(
      'Every order takes the same route really.\n| routing-id | steps |\n| --- | --- |\n| tune | inspect, tune, voice |\n| rebuild | inspect, strip action, replace hammers, restring, regulate, polish case |',
    );
    expect(update['principal-problem-type']).toBeUndefined();
  });
});

describe('the merged structure', () => {
  it('lists no conflict where a later EADS settles a choice an earlier one left undetermined', () => {
    const merged = aggregateScr([
      { eadsId: 'process/scheduling-problem-type', dataStructure: { 'principal-problem-type': UNDETERMINED } },
      { eadsId: 'process/work-steps', dataStructure: { 'principal-problem-type': 'JOB-SHOP-SCHEDULING-PROBLEM' } },
    ]);
    expect(merged.conflicts).toEqual([]);
    expect(merged.merged_scr['principal-problem-type']).toBe('JOB-SHOP-SCHEDULING-PROBLEM');
    // Two settled values that differ still conflict.
    const differing = aggregateScr([
      { eadsId: 'a/one', dataStructure: { kind: 'x' } },
      { eadsId: 'b/two', dataStructure: { kind: 'y' } },
    ]);
    expect(differing.conflicts.map((c) => c.kind)).toEqual(['same-field-different-values']);
  });
});

describeWithModel('troubles told as what a switch of product costs', () => {
  const challenges = library
    .get('process/warm-up-with-challenges')!
    .fields.find((f) => f.name === 'scheduling-challenges')!.choices!;
  it('hears a changeover in "going from one product to another means cleaning or resetting"', async () => {
    expect(
      await readChoices(
        'Every time the bottling of apple juice follows the carrot juice, the whole plant has to be rinsed through, two hours at least.',
        challenges,
      ),
    ).toContain('equipment-changeover');
    expect(
      await readChoices(
        'We print T-shirts, and moving from a black ink run to a white ink run means cleaning every screen first, nearly two hours.',
        challenges,
      ),
    ).toContain('equipment-changeover');
  });
});

describe('the parts of a question that asks two things', () => {
  it('splits at ", and" or ", or" before a question word, and only a question', () => {
    expect(askedParts('Which boats do you hire out, and what makes the bookings hard? Two lines will do.')).toEqual([
      'Which boats do you hire out',
      'what makes the bookings hard?',
    ]);
    expect(askedParts('How many kilns do you fire, or how often are they serviced?')).toHaveLength(2);
    // One thing asked, or a list inside one ask: no parts.
    expect(askedParts('Which days do you open, and at what times?')).toEqual([]);
    expect(askedParts('Do you glaze, fire and pack in that order?')).toEqual([]);
    expect(askedParts('Tell us about the kilns, and what breaks.')).toEqual([]);
  });

  it('finds the same two clauses in a label that names two things', () => {
    expect(whClauses('what the yard offers to owners, and what makes planning that work hard')).toEqual([
      'what the yard offers to owners',
      'what makes planning that work hard',
    ]);
    expect(whClauses('how the work is organised: boats moving from bay to bay, or jobs booked in a diary')).toEqual([]);
  });
});

describeWithModel('the surrogate asked two things at once', () => {
  it('answers with the fact that speaks to both, not one that matches a single part', async () => {
    const facts = [
      { about: 'when the yard opens and closes', answer: 'Half past seven until five, six days a week.' },
      { about: 'things that would be nice to have', answer: 'A second slipway, and fewer phone calls.' },
      { about: 'how a boat moves around the yard', answer: 'Trailer to the wash bay, then the cradle, then the shed.' },
      {
        about: 'what the yard does for boat owners and what makes the planning awkward',
        answer:
          'We lift, scrub, antifoul and store small boats. Everyone wants the crane in the same fortnight of spring, and the paint deliveries never come on time.',
      },
      { about: 'the records we plan from', answer: 'a booking book and a wall chart' },
    ];
    const rule = eadsRules.find((r) => r.task === 'eads.surrogate_answer')!;
    const reply = (await rule.answer({
      task: 'eads.surrogate_answer',
      system: '',
      turns: 1,
      responseSchema: undefined,
      sections: {
        question: {
          question:
            'What do you make or which services do you provide, and what makes scheduling that work hard? A few sentences are enough.',
          question_type: 'text',
          targets: ['x'],
        },
        facts,
        tables: [],
      },
    })) as { answer: string };
    expect(reply.answer).toMatch(/^We lift, scrub/);
  });

  const surrogate = eadsRules.find((r) => r.task === 'eads.surrogate_answer')!;
  const opening =
    'What do you make or which services do you provide, and what makes scheduling that work hard? A few sentences are enough.';
  const answerFrom = async (facts: Array<{ about: string; answer: string }>, question = opening) =>
    (
      (await surrogate.answer({
        task: 'eads.surrogate_answer',
        system: '',
        turns: 1,
        responseSchema: undefined,
        sections: { question: { question, question_type: 'text', targets: ['x'] }, facts, tables: [] },
      })) as { answer: string }
    ).answer;

  it('reads a label that names two things by the nearer of its halves', async () => {
    // Read whole, the opening question comes nearer the label about how work is organised
    // (classes, a timetable) than the label that names both of its halves.
    const answer = await answerFrom([
      {
        about: 'how the work is organised: pots moving between wheels and kilns, or classes put in a timetable',
        answer: 'It is a timetable of classes in two rooms; nothing moves along a line.',
      },
      { about: 'opening hours', answer: 'Ten until nine, Tuesday to Saturday.' },
      {
        about: 'what the studio offers, and why its timetable is difficult to arrange',
        answer: 'We teach throwing and glazing to adults. The kiln fires twice a week at most.',
      },
    ]);
    expect(answer).toMatch(/^We teach throwing/);
  });

  it('is not sure when only words, not meaning, bring a fact near the question', async () => {
    // The label shares "make", "work" and "hard" with the question and is about something else.
    expect(
      await answerFrom([
        { about: 'make of hard drive in the office computer that work provided', answer: 'A Seagate.' },
      ]),
    ).toMatch(/not sure/i);
  });
});
