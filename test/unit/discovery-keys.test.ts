/**
 * What a key names, and which columns may provide an identifier: a key is the thing it
 * identifies, not what its description mentions; an identifier comes only from an identifier of
 * the same thing, never from the key of a thing the requirement names apart; and currency codes
 * and charges on money are not a domain's acronym. Examples are invented (a school district, a
 * harbour, a beekeepers' co-operative, a cruise line).
 */
import { describe, expect, it } from 'vitest';
import {
  acronymsOf,
  describedThing,
  domainMarkers,
  identifiersAgree,
  isMoneyAcronym,
  sameEntityKey,
  validateCandidate,
} from '../../flows/discovery/standin';
import { identifierWords, stemIdentifierWord } from '../../domain/text';

const said = (...texts: string[]) => new Set(texts.flatMap((t) => identifierWords(t).map(stemIdentifierWord)));

describe('what a key identifies', () => {
  it('reads the head of the description, not every thing it mentions', () => {
    const thing = (w: string) => [stemIdentifierWord(w)];
    expect(describedThing('The district the school belongs to')).toEqual(thing('district'));
    expect(describedThing('Identifier of the ferry’s home port')).toEqual(thing('port'));
    expect(describedThing('Hive inspected on the visit')).toEqual(thing('hive'));
    expect(describedThing('Unique berth identifier')).toEqual(thing('berth'));
  });

  it('does not take a key of the school’s district for the school’s key', () => {
    const school = { name: 'school_id', type: 'STRING', description: 'The school' };
    const district = { name: 'district_id', type: 'STRING', description: 'The district the school belongs to' };
    expect(sameEntityKey(district, school)).toBe(false);
    expect(sameEntityKey(school, district)).toBe(false);
  });

  it('keeps a key whose description says it is the same as the other', () => {
    const pupil = { name: 'pupil_no', type: 'STRING', description: 'Pupil (the same id as the enrolment record)' };
    expect(sameEntityKey(pupil, { name: 'enrolment_id', type: 'STRING', description: 'Enrolment' })).toBe(true);
    expect(sameEntityKey(pupil, { name: 'teacher_id', type: 'STRING', description: 'Teacher' })).toBe(false);
  });
});

describe('which identifiers may provide an identifier', () => {
  const requirement = said(
    'vessel_ref',
    'The ship calling at the harbour',
    'berth_length_m',
    'Length of the berth it moored at',
  );
  const vessel = { name: 'vessel_ref', type: 'STRING', description: 'The ship calling at the harbour' };

  it('refuses the key of a thing the requirement names apart', () => {
    expect(identifiersAgree(vessel, { name: 'berth_id', type: 'STRING', description: 'Berth' }, requirement)).toBe(
      false,
    );
  });

  it('leaves keys of things the requirement never names to their meaning', () => {
    expect(identifiersAgree(vessel, { name: 'hull_id', type: 'STRING', description: 'Hull' }, requirement)).toBe(true);
  });

  it('gives a plain column an identifier only of the thing its name speaks of', () => {
    const master = { name: 'vessel_name', type: 'STRING', description: 'Name of the ship' };
    expect(identifiersAgree(master, { name: 'vessel_id', type: 'STRING', description: 'Ship' }, requirement)).toBe(
      true,
    );
    expect(identifiersAgree(master, { name: 'berth_id', type: 'STRING', description: 'Berth' }, requirement)).toBe(
      false,
    );
  });

  it('lets plain columns be judged by their meaning', () => {
    const honey = { name: 'honey_kg', type: 'FLOAT64', description: 'Honey taken from the hive' };
    expect(identifiersAgree(honey, { name: 'yield_kg', type: 'FLOAT64' }, said('hive_id', 'honey_kg'))).toBe(true);
  });
});

describe('money is not a domain', () => {
  it('reads currency codes and charges on amounts as units, not domains', () => {
    expect(isMoneyAcronym('JPY')).toBe(true);
    expect(isMoneyAcronym('NOK')).toBe(true);
    expect(isMoneyAcronym('GST', 'fares excluding ')).toBe(true);
    expect(isMoneyAcronym('GST', '', ' paid on the fare')).toBe(true);
    expect(isMoneyAcronym('CLIA', 'members of the ', ' survey')).toBe(false);
  });

  it('keeps the domain acronym and drops the money ones', () => {
    const text =
      'Cruise bookings reported to the CLIA survey. Fares are kept in USD and JPY, excluding GST; ' +
      'port charges in NOK. CLIA members only.';
    expect(acronymsOf(text)).toEqual(['CLIA']);
    expect(domainMarkers('Harbour dues in NOK and DKK, GST included, per call.')).toEqual([]);
  });
});

describe('columns a lone search may not take', () => {
  const requirement = [
    { name: 'vintner_ref', type: 'STRING', description: 'The vineyard estate' },
    { name: 'variety', type: 'STRING', description: 'Grape variety grown on the estate plot' },
    { name: 'plot', type: 'STRING', description: 'Estate plot the grape variety was picked from' },
    { name: 'harvest_t', type: 'FLOAT64', description: 'Tonnes of grapes picked' },
  ];
  const grapes = {
    dataset_id: 'viticulture',
    table_id: 'grape_varieties',
    description: 'Grape varieties and their typical ripening dates.',
    schema: [
      { name: 'variety', type: 'STRING', description: 'Grape variety grown on the plot' },
      { name: 'ripens_week', type: 'INT64', description: 'Week of the year the grape ripens' },
    ],
  };

  it('does not give a target the column of another requirement column’s name', async () => {
    const v = await validateCandidate('estate plot', [requirement[2]], grapes, requirement);
    expect(v.reasoning).not.toMatch(/plot←variety/);
    expect(v.is_good_fit).toBe(false);
  });

  it('finds no source for identifiers searched alone', async () => {
    const estates = {
      dataset_id: 'viticulture',
      table_id: 'estate_register',
      description: 'Register of vineyard estates.',
      schema: [
        { name: 'vintner_ref', type: 'STRING', description: 'The vineyard estate' },
        { name: 'region', type: 'STRING', description: 'Wine region' },
      ],
    };
    const v = await validateCandidate('estate', [requirement[0]], estates, requirement);
    expect(v.is_good_fit).toBe(false);
  });
});
