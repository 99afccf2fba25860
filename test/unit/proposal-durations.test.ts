import { describe, expect, it } from 'vitest';
import { statedSpan } from '../../flows/proposal/standin/durations';
import { withinBudget } from '../helpers/work-budget';

describe('how long the researcher says the study must run', () => {
  it('reads counted spans and month ranges in plan sentences', () => {
    expect(statedSpan('I want to record the nests over three breeding seasons.')?.weeks).toBe(117);
    expect(statedSpan('The plan is to log the wells for 18 months.')?.weeks).toBe(78);
    expect(statedSpan('I will sample the ponds from March to October, weekly.')?.weeks).toBe(35);
    expect(statedSpan('Ideally I follow the same pupils for two school years.')?.quote).toBe('two school years');
  });

  it('takes the longest span when several are planned', () => {
    expect(statedSpan('I will run six-week pilots, then I need a full year of follow-up.')?.weeks).toBe(52);
  });

  it('ignores spans of the past and sentences that plan nothing', () => {
    expect(statedSpan('I have taught for ten years. The school opened two years ago.')).toBeUndefined();
    expect(statedSpan('The archive holds 40 years of minutes.')).toBeUndefined();
    expect(statedSpan('I would like to use the rates for the last five years.')).toBeUndefined();
  });

  it('reads the count that belongs to the unit, and the upper end of a range', () => {
    expect(statedSpan('I will log the sites for twenty-four months.')?.weeks).toBe(104);
    expect(statedSpan('I plan to run a two-year study.')?.weeks).toBe(104);
    expect(statedSpan('Ideally I follow them for three to five years.')?.weeks).toBe(260);
    expect(statedSpan('I will need one or two years of readings.')?.weeks).toBe(104);
    expect(statedSpan('I will sample from April to April.')?.weeks).toBe(52);
    // A count belongs to the nearest unit after it: "ten weeks this year" is no ten years.
    expect(statedSpan('I will have ten weeks this year for it.')?.weeks).toBe(10);
  });

  it('reads a plan said with "I\'d …" and a span of months told with words between its ends', () => {
    expect(statedSpan("I'd visit the farms and then follow them for two years.")?.weeks).toBe(104);
    const show =
      'I want to follow the tour from its first rehearsal in October, through the previews, to the last night in March.';
    expect(statedSpan(show)).toMatchObject({ weeks: 26, quote: 'from October to March' });
    expect(statedSpan('I will watch the crop as it grows in April and until it is cut in August.')?.weeks).toBe(22);
    // "to" after a month with no "from" is a purpose, and "may" with no word of time the verb.
    expect(statedSpan('I will meet them in March to plan the visits in May.')).toBeUndefined();
    expect(statedSpan('I will check whether the work may run until June.')).toBeUndefined();
  });

  it('reads halves, decimals and vague counts as the length they say', () => {
    expect(statedSpan('I plan to monitor the hedges for two and a half years.')?.weeks).toBe(130);
    expect(statedSpan('I plan to monitor the hedges for 2.5 years.')?.weeks).toBe(130);
    expect(statedSpan('I need a year and a half of tide readings.')?.weeks).toBe(78);
    expect(statedSpan('I need half a year of tide readings.')?.weeks).toBe(26);
    expect(statedSpan('I will need a couple of years to follow the cohort.')?.weeks).toBe(104);
    expect(statedSpan('I will need a few months to recruit the clinics.')?.weeks).toBe(13);
    expect(statedSpan('I will need fifteen months of fieldwork.')?.weeks).toBe(65);
    expect(statedSpan('I plan to follow the plots for sixteen weeks.')?.weeks).toBe(16);
    expect(statedSpan('I plan to monitor the hedges for two and a half years.')?.quote).toBe('two and a half years');
  });

  it('ignores limits, earlier studies and the past in a plan sentence', () => {
    expect(statedSpan('I hope to finish within six months; the previous study needed 3 years.')).toBeUndefined();
    expect(statedSpan("I'd worked on farms for three summers before.")).toBeUndefined();
    expect(statedSpan('The plant needed to close for two years after the flood.')).toBeUndefined();
  });

  it('reads teaching years, terms, semesters, fortnights, decades and short unit forms', () => {
    // A teaching year runs September to June: two of them end in the second June.
    expect(statedSpan('I will collect lesson recordings over two academic years.')?.weeks).toBe(91);
    expect(statedSpan('I plan to observe one full school year of tutorials.')?.weeks).toBe(39);
    expect(statedSpan('I will follow the reading group for three terms.')?.weeks).toBe(39);
    expect(statedSpan('I will run the module for two semesters.')?.weeks).toBe(36);
    expect(statedSpan('I will keep a sound diary for a fortnight.')?.weeks).toBe(2);
    expect(statedSpan('I plan to revisit the dunes for a decade.')?.weeks).toBe(520);
    expect(statedSpan('I will follow the apprentices for 2 yrs.')?.weeks).toBe(104);
    expect(statedSpan('I will log the heat pumps for a half-year.')?.weeks).toBe(26);
  });

  it('reads no span from a rate, a year group or a year written as a range', () => {
    expect(statedSpan('I will spend 30 hours per week on the coding.')).toBeUndefined();
    expect(statedSpan('I will interview each nurse twice a year.')).toBeUndefined();
    expect(statedSpan('I will visit the allotments every two weeks for three months.')?.weeks).toBe(13);
    expect(statedSpan('I will work with 28 Year 10 pupils at my school.')).toBeUndefined();
    expect(statedSpan('I will run the questionnaire during the 2025-26 school year.')).toBeUndefined();
  });

  it('reads long hostile text in one pass', () => {
    // A pattern that backtracked would not return within the test's time-out here.
    expect(statedSpan(`I will ${'two very long '.repeat(5000)}weeks`)).toBeUndefined();
  });

  it('reads a long run of white space in one pass', () => {
    // The clause splits try a run of spaces from each of its positions: 19,000 spaces (about the most
    // read) took most of a second that way, where one pass is well under a millisecond.
    const spaces = `I will need${' '.repeat(19_000)}two years.`;
    expect(withinBudget('statedSpan', () => statedSpan(spaces), 150)?.weeks).toBe(104);
  });
});
