/**
 * The offline model on wording it was not written around: problem type and challenges from what
 * a firm's answer says, tables with or without a header row or told in prose, yes/no from the
 * alternative taken. (The proposal stand-in's: test/unit/standin-proposal.test.ts.) The sentences
 * here are new, not the fixtures' or the eval's.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cachedLibrary } from '../../flows/eads/activities/library';
import { mapHeaders, rankTexts } from '../../domain/text-match';
import { eadsRules } from '../../flows/eads/standin';

const library = cachedLibrary([path.resolve(__dirname, '..', '..', 'data', 'eads')])();

async function refine(
  eadsId: string,
  targets: string[],
  questionText: string,
  answer: string,
  questionType = 'text',
  known: Record<string, unknown> = {},
): Promise<Record<string, unknown>> {
  const eads = library.get(eadsId)!;
  const fields = eads.fields.map((f) => ({
    name: f.name,
    kind: f.kind,
    derived: f.derived,
    columns: f.columns,
    choices: f.choices,
    multiple: f.multiple,
  }));
  const rule = eadsRules.find((r) => r.task === 'eads.refine')!;
  const reply = (await rule.answer({
    task: 'eads.refine',
    system: '',
    turns: 1,
    responseSchema: undefined,
    sections: {
      question: { question: questionText, question_type: questionType, targets },
      answer,
      fields,
      data_structure: known,
      context: {},
      attempts: {},
    },
  })) as { update: Record<string, unknown> };
  return reply.update;
}

const HOW = 'Which of these best describes how work moves through your operation?';
const typeOf = async (answer: string) =>
  (await refine('process/scheduling-problem-type', ['principal-problem-type'], HOW, answer))['principal-problem-type'];

describe('EADS stand-in reads meaning', () => {
  it('tells flow shop, job shop and timetabling apart from how the answer describes the work, or leaves it open', async () => {
    const FLOW = 'FLOW-SHOP-SCHEDULING-PROBLEM';
    const JOB = 'JOB-SHOP-SCHEDULING-PROBLEM';
    const TT = 'TIMETABLING-PROBLEM';
    const cases: Array<[string, string]> = [
      [
        'Each tray of seedlings is sown, germinated, pricked out and hardened off; all trays follow one fixed sequence.',
        FLOW,
      ],
      ['Our bottles move down the same line every time: rinse, fill, cap, label. Nothing jumps ahead.', FLOW],
      [
        'Every casting has its own route, depending on the customer drawing: some go to the lathe first, others to the drill.',
        JOB,
      ],
      ['It depends on the boat: which of the yard bays it visits, and in what order, differs from job to job.', JOB],
      ['We allocate tutors and seminar rooms to teaching sessions in fixed weekly periods.', TT],
      ['We book drivers and coaches into morning and afternoon slots of the weekly rota.', TT],
    ];
    // The orchestration's guarantee: a reading is the right type or an honest "undetermined"
    // (asked again, then recorded as such), never another type; and most descriptions are read.
    let decided = 0;
    for (const [answer, want] of cases) {
      const got = await typeOf(answer);
      expect([want, undefined], answer).toContain(got);
      if (got) decided++;
    }
    expect(decided).toBeGreaterThanOrEqual(4);
  });

  it('tags the challenges an answer names in its own words, and no others', async () => {
    const answer =
      'We roast coffee for cafés. Going from a dark roast to a decaf means purging the ' +
      'whole roaster, which takes an hour. ' +
      'The packing machine is the slowest step and bags queue up in front of it. Christmas orders double our volume. ' +
      'Green beans sometimes arrive late from the port.';
    const update = await refine(
      'process/warm-up-with-challenges',
      ['product-or-service-name', 'scheduling-challenges', 'one-more-thing'],
      'What do you make, and what makes scheduling hard?',
      answer,
    );
    const all = ['equipment-changeover', 'bottleneck-processes', 'variation-in-demand', 'raw-material-uncertainty'];
    // Each tag heard is one the answer names (none invented), and at least half of them are heard.
    const got = update['scheduling-challenges'] as string[];
    for (const t of got) expect(all).toContain(t);
    expect(got.length).toBeGreaterThanOrEqual(2);
  });

  it('hears the same troubles in other phrasings', async () => {
    const tags = async (answer: string) =>
      (
        await refine(
          'process/warm-up-with-challenges',
          ['scheduling-challenges'],
          'What makes scheduling hard?',
          answer,
        )
      )['scheduling-challenges'];
    expect(await tags('Each lesson needs a tutor and one of our study rooms at the same hour.')).toEqual([
      'resource-assignment',
    ]);
    expect(await tags('Parts from overseas suppliers are often weeks late.')).toEqual(['raw-material-uncertainty']);
    expect(await tags('We are chronically short of bakers for the night shift.')).toEqual(['worker-availability']);
  });

  it('reads a table answer with its header row, without it, and with the firm’s own column names', async () => {
    const q = 'Walk through the production steps in order.';
    const steps = async (answer: string) =>
      (
        (await refine('process/flow-shop', ['subprocesses'], q, answer, 'table')).subprocesses as Array<
          Record<string, unknown>
        >
      )?.map((r) => r['process-id']);
    const header = '| process-id | inputs | outputs | resources | duration |\n| --- | --- | --- | --- | --- |\n';
    const rows =
      '| rinse | bottles | clean bottles | rinser | 5 minutes |\n| fill | clean bottles, juice | filled bottles | filler | 10 minutes |\n';
    expect(await steps(header + rows)).toEqual(['rinse', 'fill']);
    expect(await steps(rows)).toEqual(['rinse', 'fill']);
    expect(
      await steps(
        `| step | time | machine |\n| --- | --- | --- |\n| rinse | 5 minutes | rinser |\n| fill | 10 minutes | filler |`,
      ),
    ).toEqual(['rinse', 'fill']);
    const prose = await refine(
      'process/flow-shop',
      ['subprocesses'],
      q,
      'First the hides are soaked, then they are tanned in the drums, after that the ' +
        'leather is dried on the frames, and finally it is trimmed.',
      'table',
    );
    const names = (prose.subprocesses as Array<Record<string, unknown>>).map((r) => String(r['process-id']));
    expect(names).toHaveLength(4);
    expect(names.map((n) => /soak|tann|dri|trim/.exec(n)?.[0])).toEqual(['soak', 'tann', 'dri', 'trim']);
  });

  it('reads steps told as a comma list, and takes no word overlap or washing for a reading', async () => {
    const q = 'Walk through the production steps in order.';
    const told = await refine(
      'process/flow-shop',
      ['subprocesses'],
      q,
      'Every crate takes the same route: it is graded, rinsed in the flume, sliced, ' +
        'dried on the racks and bagged, then boxed.',
      'table',
    );
    const names = (told.subprocesses as Array<Record<string, unknown>>).map((r) => String(r['process-id']));
    expect(names.map((n) => /grad|rins|slic|dri|bag|box/.exec(n)?.[0])).toEqual([
      'grad',
      'rins',
      'slic',
      'dri',
      'bag',
      'box',
    ]);
    // "one customer's load at a time" shares words with single-machine sequencing but describes nothing.
    expect(await typeOf('Loads go through one at a time, one customer per load.')).toBeUndefined();
    const warmUp = await refine(
      'process/warm-up-with-challenges',
      ['scheduling-challenges'],
      'What makes scheduling hard?',
      'We wash and press uniforms for hospitals. Staff are hard to find for the night shift.',
    );
    expect(warmUp['scheduling-challenges']).toEqual(['worker-availability']);
  });

  it('gathers the troubles over the answers: one named in a later answer joins those of the first', async () => {
    const later = await refine(
      'process/warm-up-with-challenges',
      ['one-more-thing'],
      'Is there anything else we should know?',
      'We lost three drivers last year and nobody replaced them.',
      'text',
      { 'scheduling-challenges': ['variation-in-demand'] },
    );
    expect(later['scheduling-challenges']).toEqual(['variation-in-demand', 'worker-availability']);
    // An answer that adds no trouble changes nothing.
    const same = await refine(
      'process/warm-up-with-challenges',
      ['one-more-thing'],
      'Is there anything else we should know?',
      'We bake bread and rolls for cafes in town.',
      'text',
      { 'scheduling-challenges': ['variation-in-demand'] },
    );
    expect(same['scheduling-challenges']).toBeUndefined();
  });

  it('reads what there is from a list of counted things, one row per thing with how many', async () => {
    const pools = await refine(
      'resources/resource-pools',
      ['resource-pools'],
      'Which resources do you schedule, how many of each do you have?',
      'Two kilns, one pug mill, a glazing booth and the drying room. Five potters, of whom one throws the big pieces.',
      'table',
    );
    expect(pools['resource-pools']).toEqual([
      { 'resource-id': 'kilns', quantity: '2' },
      { 'resource-id': 'pug mill', quantity: '1' },
      { 'resource-id': 'glazing booth', quantity: '1' },
      { 'resource-id': 'drying room', quantity: '1' },
      { 'resource-id': 'potters', quantity: '5' },
    ]);
  });

  it('reads no counted things or records from figures, shares, rates or amounts of one thing', async () => {
    const pools = (answer: string) =>
      refine('resources/resource-pools', ['resource-pools'], 'What do you schedule, and how many?', answer, 'table');
    for (const answer of [
      'Ring 555 0144, 555 0145 or 555 0146.',
      'Three of our clients, four of our vans.',
      'Open 5 days a week, 4 weeks per month.',
      '30 dollars, 45 dollars, 60 dollars.',
      'We work 7 hours, 8 hours or 9 hours.',
    ])
      expect((await pools(answer))['resource-pools'], answer).toBeUndefined();
    for (const answer of [
      'Office: 555 0144, 555 0145. Depot: 555 0146, 555 0147.',
      'Remark: we moved. Remark: we grew.',
    ])
      expect(
        (await refine('process/job-shop', ['routings'], 'Which routings do jobs follow?', answer, 'table')).routings,
        answer,
      ).toBeUndefined();
  });

  it('reads labelled records as one row each, never one record’s items as steps', async () => {
    const kinds = await refine(
      'process/timetabling',
      ['event-types'],
      'Which kinds of events do you schedule?',
      'Beginners class: one tutor, one studio, up to 10 learners, 60 minutes, twice a week. ' +
        'Masterclass: a guest tutor and the big studio, 2 hours, once a month. ' +
        'Open practice: the small studio, no tutor, 90 minutes, every Sunday.',
      'table',
    );
    const rows = kinds['event-types'] as Array<Record<string, unknown>>;
    expect(rows.map((r) => r['event-type-id'])).toEqual(['beginners-class', 'masterclass', 'open-practice']);
    expect(rows[0].constituents).toEqual(['one tutor', 'one studio', 'up to 10 learners', 'twice a week']);
    expect(rows[1].duration).toEqual({ units: 'hours', 'value-string': '2' });
    const routings = await refine(
      'process/job-shop',
      ['routings'],
      'Which standard routings do jobs follow?',
      'Gates: cutting, welding, galvanising. Railings: bending, welding, painting.',
      'table',
    );
    expect(routings.routings).toEqual([
      { 'routing-id': 'gates', steps: ['cutting', 'welding', 'galvanising'] },
      { 'routing-id': 'railings', steps: ['bending', 'welding', 'painting'] },
    ]);
    // Records told one a sentence, named by their opening words, with no colon.
    const told = await refine(
      'process/timetabling',
      ['event-types'],
      'Which kinds of events do you schedule?',
      'Evening lessons in the big pool, one coach and up to eight swimmers, forty-five minutes. ' +
        'Club galas at the leisure centre, every swimmer in the squad with four timekeepers, a whole Saturday. ' +
        'Stroke clinics, a visiting coach, ten swimmers at most, two hours.',
      'table',
    );
    const toldRows = told['event-types'] as Array<Record<string, unknown>>;
    expect(toldRows.map((r) => r['event-type-id'])).toEqual(['evening-lessons', 'club-galas', 'stroke-clinics']);
    expect(toldRows[0].constituents).toContain('big pool');
    // A paragraph of prose is no table of records.
    const prose = await refine(
      'process/timetabling',
      ['event-types'],
      'Which kinds of events do you schedule?',
      'We run lessons most evenings, and galas now and then. It depends on the season, really, and on the coaches.',
      'table',
    );
    expect(prose['event-types']).toBeUndefined();
    // Sentences that open with when or how often ("In spring, …", "Usually, …") are not named records.
    for (const scene of [
      'In spring, the orchard walks with a warden and a dozen visitors. In autumn, cider talks in the barn with one speaker.',
      'Usually, we start with the wax. Then, it sets for a day or so. After that, the candles go in the boxes.',
    ]) {
      const told = await refine(
        'process/timetabling',
        ['event-types'],
        'Which kinds of events do you schedule?',
        scene,
        'table',
      );
      expect(told['event-types']).toBeUndefined();
    }
    // One thing's measures in a comma list are not a sequence of steps.
    const one = await refine(
      'process/timetabling',
      ['event-types'],
      'Which kinds of events do you schedule?',
      'Each class has one tutor, one studio, up to 10 learners, 60 minutes, twice a week.',
      'table',
    );
    expect(one['event-types']).toBeUndefined();
  });

  it('answers a yes/no question put as two alternatives from the alternative the answer takes', async () => {
    const q =
      'Does product flow continuously from one step to the next, as in a refinery, or ' +
      'do you work in discrete batches or jobs?';
    expect(
      (await refine('process/scheduling-problem-type', ['continuous?'], q, 'We work in separate lots of 200 kg each.'))[
        'continuous?'
      ],
    ).toBe(false);
  });

  it('maps table headers and ranks facts by meaning', () => {
    expect(
      mapHeaders(
        ['stage', 'consumes', 'yields', 'machine', 'time'],
        ['process-id', 'inputs', 'outputs', 'resources', 'duration'],
      ),
    ).toEqual([0, 1, 2, 3, 4]);
    // Two headers fit "resources" alike: the later one takes it, and the first still names the row.
    expect(mapHeaders(['plant', 'tool', 'hours'], ['process-id', 'resources', 'duration'])).toEqual([0, 1, 2]);
    // Without a name column nothing is held back for one.
    expect(mapHeaders(['plant', 'tool'], ['resources'])).toEqual([0]);
    const scores = rankTexts('Which raw materials or ingredients go into the product?', [
      'what leaves the plant at the end',
      'what is consumed: ingredients going into the bars',
      'shift pattern and closures',
    ]);
    expect(scores.indexOf(Math.max(...scores))).toBe(1);
  });
});
