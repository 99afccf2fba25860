import { describe, expect, it } from 'vitest';
import { statedSpan } from '../../flows/proposal/standin/durations';

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

  it('reads long hostile text in one pass', () => {
    // A pattern that backtracked would not return within the test's time-out here.
    expect(statedSpan(`I will ${'two very long '.repeat(5000)}weeks`)).toBeUndefined();
  });
});
