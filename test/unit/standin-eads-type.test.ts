/**
 * How the EADS stand-in reads a firm's problem type from its words, on sentences invented here:
 * the words of a route decide which route a sentence the embedding hears as "about routes" means,
 * a difference denied is no route of its own, and a choice heard fairly plainly over several
 * sentences is taken only where the embedding or the words agree somewhere.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeWithModel } from '../helpers/installed-embedder';
import { cachedLibrary } from '../../flows/eads/activities/library';
import { namesThingsOnly, readChoice, withoutLabelPairs } from '../../flows/eads/standin';
import { oneSaid, routeSaid } from '../../flows/eads/standin/meaning';

const library = cachedLibrary([path.resolve(__dirname, '..', '..', 'data', 'eads')])();
const problemType = library
  .get('process/scheduling-problem-type')!
  .fields.find((f) => f.name === 'principal-problem-type')!;
const JOB = 'JOB-SHOP-SCHEDULING-PROBLEM';
const FLOW = 'FLOW-SHOP-SCHEDULING-PROBLEM';
const SINGLE = 'SINGLE-MACHINE-SCHEDULING-PROBLEM';

describe('words of a route and of one machine (no model needed)', () => {
  it('hears routes counted as a route per kind of job', () => {
    expect(routeSaid('Nearly every order follows one of three routes through the kiln shed.')).toBe('own');
    expect(routeSaid('We have two standard ways: dipped candles, and moulded ones.', { aboutRoutes: true })).toBe(
      'own',
    );
    // Ways of something else are no routes.
    expect(routeSaid('There are two ways to look at it.')).toBeUndefined();
  });

  it('hears one route for all where the difference is denied', () => {
    expect(routeSaid('The route never varies: cut, sew, press.')).toBe('same');
    expect(routeSaid("The order of steps doesn't differ between products.")).toBe('same');
    expect(routeSaid('Every job takes a different route.')).toBe('own');
    expect(routeSaid('No two jobs go round in the same order.')).toBe('own');
  });

  it('hears sameness denied with a verb between the denial and "the same"', () => {
    expect(routeSaid("It depends on the order, they don't go the same way.")).toBe('own');
    expect(routeSaid('Crates never take the same path twice.')).toBe('own');
    expect(routeSaid('We do not change the route: every crate goes the same way.')).toBe('same');
  });

  it('hears a difference that depends on the work without a route word, only in a sentence known to be about routes', () => {
    expect(routeSaid('It varies with the kind of casting.', { aboutRoutes: true })).toBe('own');
    expect(routeSaid('Different for every repair.', { aboutRoutes: true })).toBe('own');
    expect(routeSaid('It varies with the kind of casting.')).toBeUndefined();
    // "Its own" without a route word is as likely its own lot; a denied difference is none.
    expect(routeSaid('Each repair is its own job.', { aboutRoutes: true })).toBeUndefined();
    expect(routeSaid("It doesn't differ with the kind of casting.", { aboutRoutes: true })).toBeUndefined();
  });

  it('hears no route in what the jobs differ in, when that is not their path', () => {
    // "Differ in size" is a difference of the work; readers of meaning hear "every job is different".
    expect(routeSaid('Our commissions differ in length and in the wood used.', { aboutRoutes: true })).toBeUndefined();
    expect(routeSaid('Repairs vary by weight, from a brooch to a gate.', { aboutRoutes: true })).toBeUndefined();
    expect(routeSaid('The boats are all different in size.', { aboutRoutes: true })).toBeUndefined();
    // A difference in the steps, the machines or their order is one of route.
    expect(routeSaid('Jobs differ in which machines they visit.', { aboutRoutes: true })).toBe('own');
    expect(routeSaid('Repairs vary in the order of the steps.', { aboutRoutes: true })).toBe('own');
    expect(routeSaid('It varies with the kind of casting.', { aboutRoutes: true })).toBe('own');
  });

  it('hears a route in a difference of where the jobs go or what is done to them, whatever the places are called', () => {
    // The places of a shop, going there and the work done there name a path as much as "route" does.
    for (const sentence of [
      'Our print jobs differ in the departments they pass through.',
      'Each batch of tiles differs in the cells it goes to.',
      'Gearboxes vary by the work centres they use.',
      'The panels differ in the workstations visited.',
      'Orders for brackets differ in the machining they need.',
      'The frames differ in the treatments they get: some are blasted, some galvanised, some both.',
      'Every hull differs in its journey through the yard.',
    ])
      expect(routeSaid(sentence, { aboutRoutes: true }), sentence).toBe('own');
  });

  it('hears one thing alone the work waits for, whatever it is called', () => {
    expect(oneSaid('It is really only the lathe we plan.')).toBe(true);
    expect(oneSaid('Everything here queues for the one lathe.')).toBe(true);
    expect(oneSaid('We run a single shift.')).toBe(true);
    expect(oneSaid('One of the lathes is old.')).toBe(false);
    expect(oneSaid('Parts come in, get turned and get checked.')).toBe(false);
  });
});

describe('things named one after another (no model needed)', () => {
  it('tells a list of things from a clause about the work', () => {
    expect(namesThingsOnly('the order book, the wall planner for the yard, and the delivery notes')).toBe(true);
    expect(namesThingsOnly('Sawing, planing or sanding.')).toBe(true);
    // A clause, a sentence of its own, or fewer than three things is no such list.
    expect(namesThingsOnly('Every crate goes through sawing, planing and sanding.')).toBe(false);
    expect(namesThingsOnly("It's sawing, planing and sanding.")).toBe(false);
    expect(namesThingsOnly('Sawing. Planing. Sanding.')).toBe(false);
    expect(namesThingsOnly('the order book and the wall planner')).toBe(false);
    expect(namesThingsOnly('the same steps for every crate')).toBe(false);
  });
});

describe('labels paired with names, one a line (no model needed)', () => {
  it('leaves out a list of steps and where each is done, and keeps what else the answer says', () => {
    const list = '- Sawing: the fret saw.\n- Planing: the thicknesser.\n- Test fit: the dry rig.';
    expect(withoutLabelPairs(list)).toBe('');
    expect(withoutLabelPairs(`${list} Every crate takes the same path.`)).toBe('Every crate takes the same path.');
    // Fewer than three pairs, or a clause on either side, is no such list.
    expect(withoutLabelPairs('Sawing: the fret saw. Planing: the thicknesser.')).toBe(
      'Sawing: the fret saw. Planing: the thicknesser.',
    );
    const told = 'Sawing: we use the fret saw. Planing: it goes to the thicknesser. Sanding: the sanding drum.';
    expect(withoutLabelPairs(told)).toBe(told);
  });
});

describeWithModel('reading the problem type by meaning (all-MiniLM-L6-v2 installed)', () => {
  it('reads no problem type from a list of steps and where each is done', async () => {
    const list =
      '- Sawing: the fret saw.\n- Planing: the thicknesser.\n- Test fit: the dry rig.\n- Oiling: the wax trolley.';
    expect(await readChoice(list, problemType.choices!)).toBeUndefined();
    // What the answer says beside the list is still read.
    expect(
      await readChoice(`${list} Every crate takes the same path, always in that order.`, problemType.choices!),
    ).toBe(FLOW);
  });

  it('reads no problem type from a list of the records a firm keeps', async () => {
    // "Planner" and "calendar" resemble a timetable: named in a list, they say nothing of how work moves.
    expect(
      await readChoice('the order book, the wall planner for the yard, and the class calendar', problemType.choices!),
    ).toBeUndefined();
    // A list whose words say the route is the same still says so.
    expect(await readChoice('Sawing, planing and sanding, always in that order.', problemType.choices!)).toBe(FLOW);
  });

  it('takes the route the words say where the embedding hears a route, though it hears the other one', async () => {
    // The embedding's nearest choice is the line; the words say each kind has its own path.
    expect(await readChoice('Each kind of boat takes its own path through the stations.', problemType.choices!)).toBe(
      JOB,
    );
  });

  it('takes no route from a sentence that says what the jobs differ in, when it is not their path', async () => {
    expect(await readChoice('Our commissions differ in length.', problemType.choices!)).not.toBe(JOB);
    expect(await readChoice('The orders we get vary in colour and weight.', problemType.choices!)).not.toBe(JOB);
  });

  it('reads no route of its own from a route that never varies', async () => {
    expect(await readChoice('The route never varies: cut, sew, press.', problemType.choices!)).not.toBe(JOB);
  });

  it('takes one machine heard over several sentences, never from one of them alone', async () => {
    const told = [
      'Everything here queues for the one lathe.',
      'Parts come in, get turned and get checked.',
      'What I choose every day is the order the jobs go on the lathe.',
    ];
    expect(await readChoice(told.join(' '), problemType.choices!)).toBe(SINGLE);
    expect(await readChoice(told[0], problemType.choices!)).toBeUndefined();
  });

  it('takes no other kind against the routes an answer lays out, one kind of work a record', async () => {
    // Three kinds of job with their own steps: heard as the stages of one undertaking, it is read as nothing.
    const kinds =
      'A shopfront: strip-out, first-fix wiring, plastering, signage, then the glazing. A cellar: tanking, drainage, first-fix wiring, then plastering. An attic room: joists, insulation, boarding, then the stairs.';
    expect(await readChoice(kinds, problemType.choices!)).toBeUndefined();
    // Records of who and what takes part in each event are no routes: they leave such a reading standing.
    const events =
      'Kids club: one instructor, up to eight children, two walls, an hour. Adult taster: one instructor, up to six adults, one wall, 90 minutes. Private lesson: one instructor, one or two climbers, one wall, an hour. Competition: two judges, twelve climbers, the whole centre, three hours. Squad training: me, up to eight juniors, two walls, two hours.';
    expect(await readChoice(events, problemType.choices!)).toBe('TIMETABLING-PROBLEM');
  });
});
