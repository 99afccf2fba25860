/**
 * The problem-type question put to firms nobody tuned the rules on: each firm below is invented
 * for this file (trades unlike the development firms'), told in a few facts the way a surrogate
 * fixture tells them, and the problem-type pursuit is played through the stand-in's own rules:
 * the question, the surrogate's answer from the facts, the refinement, and, when the type is still
 * open, the question asked again with its choices spelled out. Where a reader finds the type plain,
 * the rules must find it too; and they may never settle another type.
 */
import { expect, it } from 'vitest';
import { describeWithModel } from '../helpers/installed-embedder';
import { choiceLabel } from '../../domain/eads-structure';
import { eadsLibrary, promptFields, runEadsRule } from '../helpers/eads-fields';

const eads = eadsLibrary.get('process/scheduling-problem-type')!;
const fields = promptFields(eads.id);
const typeField = eads.fields.find((f) => f.name === 'principal-problem-type')!;
const keys = typeField.choices!.map((c) => c.key);
const labels = typeField.choices!.map((c) => `${choiceLabel(c.key, keys)}: ${c.definition}`);

const run = runEadsRule;

type Fact = { about: string; answer: string };

/** The problem-type pursuit as the interview plays it: asked, and asked again once if still open. */
async function problemTypeOf(facts: Fact[]): Promise<string | undefined> {
  const asked: Array<{ targets: string[]; question: string }> = [
    { targets: ['scheduling-challenges'], question: 'What do you make, and what makes scheduling it hard?' },
  ];
  const known: Record<string, unknown> = {};
  for (let attempt = 0; attempt < 2; attempt++) {
    const q = await run('eads.question', {
      eads: { name: eads.name, objective: 'Classify the problem.' },
      remaining_fields: fields.filter((f) => known[f.name] === undefined),
      asked,
      filled_fields: Object.keys(known),
      context: {},
    });
    const question = { ...q, ...(q.question_type === 'choice' ? { choice_labels: labels } : {}) } as Record<
      string,
      unknown
    > & { question: string; targets: string[] };
    const { answer } = await run('eads.surrogate_answer', {
      firm: { name: 'x', interviewee: 'x', about: 'x' },
      question,
      facts,
      tables: [],
    });
    const { update } = (await run('eads.refine', {
      eads: { id: eads.id, name: eads.name },
      question,
      answer,
      fields,
      attempts: {},
      data_structure: known,
      context: {},
    })) as { update: Record<string, unknown> };
    Object.assign(known, update);
    asked.push({ targets: question.targets, question: question.question });
    if (typeof known['principal-problem-type'] === 'string') return known['principal-problem-type'];
    if (!question.targets.includes('principal-problem-type')) return undefined;
  }
  return undefined;
}

const FLOW = 'FLOW-SHOP-SCHEDULING-PROBLEM';
const JOB = 'JOB-SHOP-SCHEDULING-PROBLEM';
const TIMETABLING = 'TIMETABLING-PROBLEM';
const PROJECT = 'PROJECT-SCHEDULING-PROBLEM';
const SINGLE = 'SINGLE-MACHINE-SCHEDULING-PROBLEM';

const firms: Array<{ name: string; type: string; facts: Fact[] }> = [
  {
    name: 'a pencil factory',
    type: FLOW,
    facts: [
      { about: 'what the firm makes', answer: 'We make graphite and coloured pencils for schools and art shops.' },
      {
        about: 'how a pencil gets from raw wood to the box',
        answer:
          'Every pencil goes the same way. The cedar slats are grooved, the leads are laid in, a second slat is glued on top, the sandwich is cut into pencils, they are painted, stamped with the brand and finally boxed. No pencil ever jumps a stage or comes back to one.',
      },
      { about: 'working hours', answer: 'Two shifts, six till ten, weekdays.' },
      { about: 'what goes wrong', answer: 'The paint line clogs when we switch colours and the cedar arrives late.' },
    ],
  },
  {
    name: 'an egg grading and packing station',
    type: FLOW,
    facts: [
      { about: 'the business', answer: 'We grade and pack eggs from twenty farms for supermarkets.' },
      {
        about: 'what happens to the eggs once they arrive',
        answer:
          'All trays pass the same machines one after the other: washing, drying, candling to find cracks, weighing into sizes, then packing into boxes and palletising. Whatever the farm or the size, the order of the stations never changes.',
      },
      { about: 'the working week', answer: 'Monday to Saturday, early mornings.' },
    ],
  },
  {
    name: 'a prosthetics and orthotics workshop',
    type: JOB,
    facts: [
      { about: 'the business', answer: 'We make artificial limbs and braces for patients referred by clinics.' },
      {
        about: 'how a device moves around the workshop',
        answer:
          "Each patient's device takes its own route. A leg socket goes from casting to laminating to fitting, a brace may go to the metal bench first and then to casting, and a repair can start at fitting and end at the grinder. The order in which pieces visit the benches differs from one order to the next.",
      },
      { about: 'opening hours', answer: 'Eight to five, Monday to Friday.' },
    ],
  },
  {
    name: 'a theatre scenery workshop',
    type: JOB,
    facts: [
      { about: 'what we do', answer: 'We build sets and props for touring theatre productions.' },
      {
        about: 'the path a piece of scenery follows',
        answer:
          'It depends entirely on the piece. A flat goes carpentry, then paint shop; a throne goes metalwork, carpentry, upholstery, then paint; a backdrop goes straight to the paint frame. No two pieces visit the shops in the same sequence.',
      },
      {
        about: 'what makes planning hard',
        answer: 'Designers change their minds and deadlines are fixed by opening night.',
      },
    ],
  },
  {
    name: 'a machine-embroidery business',
    type: SINGLE,
    facts: [
      { about: 'the business', answer: 'We embroider logos onto workwear and team kit.' },
      {
        about: 'how orders get done',
        answer:
          'Everything runs on our one twelve-head embroidery machine. Every order waits its turn for that machine, and only one order can be on it at a time, so the whole plan is the sequence of orders on the machine.',
      },
      { about: 'hours', answer: 'Nine to five, and Saturday mornings before Christmas.' },
    ],
  },
  {
    name: 'a crane hire firm with one crane',
    type: SINGLE,
    facts: [
      { about: 'the business', answer: 'We hire out a single mobile crane with its driver to builders.' },
      {
        about: 'how the work is organised',
        answer:
          'We only have the one crane, so every lift for every customer has to queue for it. Each job uses the crane from start to finish and then it moves to the next job. Planning means deciding which job the crane does first, second and so on.',
      },
      { about: 'what goes wrong', answer: 'Bad weather stops lifts and customers move their dates.' },
    ],
  },
  {
    name: 'a community radio station',
    type: TIMETABLING,
    facts: [
      { about: 'the station', answer: 'We are a volunteer-run community radio station.' },
      {
        about: 'how the schedule is built',
        answer:
          'Each week we put presenters and the two studios into programme slots: every show needs a presenter, a studio and an hour in the weekly grid, and the same grid repeats week after week with changes when volunteers are away.',
      },
      { about: 'what is hard', answer: 'Volunteers drop out and some can only do evenings.' },
    ],
  },
  {
    name: 'an academic conference organiser',
    type: TIMETABLING,
    facts: [
      { about: 'the business', answer: 'We organise three-day academic conferences for learned societies.' },
      {
        about: 'how the programme is planned',
        answer:
          'Every talk has to be given a room and a time slot in the programme, with its session chair free at that hour. Speakers cannot be in two sessions in the same period, and rooms hold one session per slot.',
      },
      { about: 'what is hard', answer: 'Speakers cancel late and the big rooms are few.' },
    ],
  },
  {
    name: 'a farm reservoir construction',
    type: PROJECT,
    facts: [
      { about: 'the job', answer: 'We are building a new irrigation reservoir on our farm, once, over this year.' },
      {
        about: 'how the work is planned',
        answer:
          'It is a one-off project: the survey comes first, then planning permission, then excavation, then the liner, then the pipework, and filling can only start when the liner has been tested. Each task waits for the one before it and we have a target completion date before next summer.',
      },
      { about: 'who does the work', answer: 'Two contractors and ourselves.' },
    ],
  },
  {
    name: 'an independent feature film shoot',
    type: PROJECT,
    facts: [
      { about: 'what we are doing', answer: 'We are producing one low-budget feature film.' },
      {
        about: 'how the production is scheduled',
        answer:
          'It is a single undertaking with milestones: the script is locked, then casting and location scouting, then set building, then the shoot, then editing and the sound mix, with the festival submission deadline at the end. Many tasks cannot start until others are finished.',
      },
      { about: 'what worries us', answer: 'Actors are only free on some dates and the weather at locations.' },
    ],
  },
];

/**
 * How many of the firms get their type. Written before the rules its round changed, when 7 of
 * the 10 did; 8 did after them (the pencil line and the one-crane firm stayed undetermined:
 * honest, not yet right). 7 since the surrogate reads a choice question by the clause its lead-in
 * embeds ("how work moves through your operation"): 9 more of the 89 development firms get their
 * type, and the egg station here answers "not sure" to the type question and stays undetermined.
 * Never fewer, and never another type.
 */
const RIGHT_AT_LEAST = 7;

describeWithModel('the problem type of firms nobody tuned the rules on', () => {
  const outcomes = new Map<string, string | undefined>();
  for (const firm of firms)
    it(`${firm.name}: ${firm.type} or undetermined, never another type`, async () => {
      const got = await problemTypeOf(firm.facts);
      outcomes.set(firm.name, got);
      expect([firm.type, undefined]).toContain(got);
    }, 60_000);

  it(`at least ${RIGHT_AT_LEAST} of the ${firms.length} firms get their type`, async () => {
    let right = 0;
    for (const firm of firms) {
      const got = outcomes.has(firm.name) ? outcomes.get(firm.name) : await problemTypeOf(firm.facts);
      if (got === firm.type) right++;
    }
    expect(right).toBeGreaterThanOrEqual(RIGHT_AT_LEAST);
  }, 120_000);
});
