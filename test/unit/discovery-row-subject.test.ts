/**
 * The stand-in validator reads what a table's rows are about, not only the shape of its columns:
 * a column that only says which model or release produced an estimate tells nothing of the
 * subject, a column is provided by the column of its own name before a merely similar one, and
 * a name the requirement itself uses is the requirement's own domain. Tables and requirements
 * here are invented (a lending desk, a parcel depot, a cycling federation).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installedEmbedder, describeWithModel, modelDir } from '../helpers/installed-embedder';
import {
  isGeneric,
  restoreEmbedder,
  sameEntityKey,
  useEmbedder,
  validateCandidate,
} from '../../flows/discovery/standin';

describe('which-model columns', () => {
  it('counts a model’s version or date as generic, an app’s or a product’s version as content', () => {
    expect(isGeneric({ name: 'model_version', type: 'STRING' })).toBe(true);
    expect(isGeneric({ name: 'ModelVersion', type: 'STRING' })).toBe(true);
    expect(isGeneric({ name: 'model', type: 'STRING', description: 'Car model' })).toBe(false);
    expect(isGeneric({ name: 'firmware_version', type: 'STRING' })).toBe(false);
    expect(isGeneric({ name: 'scoring_model', type: 'STRING' })).toBe(false);
  });
});

describe('keys of the same rows', () => {
  it('tells keys of the same thing from keys of other things by their words', () => {
    const parcel = { name: 'parcel_id', type: 'STRING', description: 'The parcel handed in' };
    expect(sameEntityKey(parcel, { name: 'parcel_id', type: 'STRING' })).toBe(true);
    expect(sameEntityKey(parcel, { name: 'consignment_id', type: 'STRING', description: 'Parcel number' })).toBe(true);
    expect(sameEntityKey(parcel, { name: 'flight_id', type: 'STRING', description: 'Cargo flight' })).toBe(false);
    expect(sameEntityKey(parcel, { name: 'depot_id', type: 'STRING', description: 'Depot identifier' })).toBe(false);
  });
});

describeWithModel('what a table’s rows are about (embedding model installed)', () => {
  beforeAll(async () => useEmbedder(await installedEmbedder(modelDir!)));
  afterAll(() => restoreEmbedder());

  it('does not take another model’s output for a loan default score because both carry a model version', async () => {
    const requirement = [
      { name: 'loan_ref', type: 'STRING', description: 'The mortgage loan' },
      { name: 'rated_at', type: 'TIMESTAMP', description: 'When the credit model rated the loan' },
      { name: 'model_version', type: 'STRING', description: 'Release of the credit model that rated the loan' },
      { name: 'default_probability', type: 'FLOAT64', description: 'Probability of default the credit model gave' },
      { name: 'risk_grade', type: 'STRING', description: 'The grade the model put on the loan (A to E)' },
      { name: 'rating_channel', type: 'STRING', description: 'Branch or online desk that asked for the rating' },
      { name: 'went_bad', type: 'BOOL', description: 'Whether the borrower in fact stopped paying within a year' },
    ];
    // Another model of the same borrowers: its probability resembles the default score, and its
    // version column is the only other thing it shares with the group.
    const otherModel = {
      dataset_id: 'lending_ml',
      table_id: 'prepayment_scores',
      description: 'Monthly early-repayment predictions from the prepayment model.',
      schema: [
        { name: 'account_id', type: 'STRING', description: 'Borrower account' },
        { name: 'scored_on', type: 'DATE', description: 'Day scored' },
        { name: 'prepay_probability', type: 'FLOAT64', description: 'Predicted probability the borrower repays early' },
        { name: 'model_version', type: 'STRING', description: 'Model version' },
      ],
    };
    const v = await validateCandidate(
      'estimated default grade version — credit model review',
      requirement.slice(1, 6),
      otherModel,
      requirement,
    );
    expect(v.is_good_fit).toBe(false);
  });

  it('gives a target the column of its own name when a merely similar one scores as high', async () => {
    const targets = [
      { name: 'rider_id', type: 'STRING', description: 'The racing cyclist' },
      { name: 'stage_time_s', type: 'INT64', description: 'Seconds the cyclist took over the stage' },
    ];
    const results = {
      dataset_id: 'federation',
      table_id: 'stage_results',
      description: 'One row per cyclist and stage of each race: finishing time and placing.',
      schema: [
        { name: 'team_id', type: 'STRING', description: 'Identifier of the cyclist’s team' },
        { name: 'stage_id', type: 'STRING', description: 'Identifier of the race stage' },
        { name: 'rider_id', type: 'STRING', description: 'Identifier of the cyclist' },
        { name: 'stage_time_s', type: 'INT64', description: 'Finishing time over the stage in seconds' },
      ],
    };
    const v = await validateCandidate('cyclist stage times', targets, results, targets);
    expect(v.is_good_fit).toBe(true);
    expect(v.reasoning).toMatch(/rider_id(,|;|\.| )/);
    expect(v.reasoning).not.toMatch(/rider_id←/);
  });

  it('keeps a table that names the domain the requirement’s own columns name', async () => {
    const requirement = [
      { name: 'parcel_ref', type: 'STRING', description: 'The UPU-registered parcel' },
      { name: 'handed_in_on', type: 'DATE', description: 'Day the sender handed the parcel in' },
      { name: 'weight_kg', type: 'FLOAT64', description: 'Weight of the parcel in kilograms' },
      { name: 'days_in_transit', type: 'INT64', description: 'Days between hand-in and delivery' },
    ];
    const group = requirement.slice(2);
    const parcels = {
      dataset_id: 'depot',
      table_id: 'parcel_scans',
      description: 'UPU parcel records from the sorting depot: weight and days spent in transit.',
      schema: [
        { name: 'parcel_ref', type: 'STRING', description: 'Parcel' },
        { name: 'weight_kg', type: 'FLOAT64', description: 'Weight in kilograms' },
        { name: 'days_in_transit', type: 'INT64', description: 'Days in transit' },
      ],
    };
    const v = await validateCandidate('weight transit days', group, parcels, requirement);
    expect(v.is_good_fit).toBe(true);
  });

  it('turns down a table whose rows are other things when it supplies one column of a larger group', async () => {
    const requirement = [
      { name: 'parcel_id', type: 'STRING', description: 'The parcel handed in' },
      { name: 'handed_in_on', type: 'DATE', description: 'Day the sender handed the parcel in' },
      { name: 'delay_minutes', type: 'INT64', description: 'Minutes the parcel arrived later than promised' },
      { name: 'damage_reported', type: 'BOOL', description: 'Whether the receiver reported the parcel damaged' },
    ];
    const group = requirement.slice(2);
    const keyed = (key: { name: string; description: string }, description: string) => ({
      dataset_id: 'ops',
      table_id: 'delays',
      description,
      schema: [
        { ...key, type: 'STRING' },
        { name: 'delay_minutes', type: 'INT64', description: 'Minutes late against the timetable' },
      ],
    });
    const flights = keyed(
      { name: 'flight_id', description: 'Cargo flight' },
      'Delays of cargo flights against the timetable.',
    );
    const parcels = keyed({ name: 'parcel_id', description: 'Parcel' }, 'Delays of parcels against the promise.');
    const offRows = await validateCandidate('delay damage', group, flights, requirement);
    expect(offRows.is_good_fit).toBe(false);
    expect(offRows.reasoning).toMatch(/flight_id/);
    expect(await validateCandidate('delay damage', group, parcels, requirement)).toMatchObject({ is_good_fit: true });
  });

  it('turns down a same-shaped table of another circuit when the requirement’s key names its own', async () => {
    const requirement = [
      { name: 'match_id', type: 'STRING', description: 'The WTA match' },
      { name: 'winner_name', type: 'STRING', description: 'Player who won the match' },
      { name: 'winner_aces', type: 'INT64', description: 'Aces the winner served' },
      { name: 'sets_played', type: 'INT64', description: 'Sets the match went to' },
    ];
    const group = requirement.slice(1);
    const stats = (description: string) => ({
      dataset_id: 'tennis',
      table_id: 'match_stats',
      description,
      schema: [
        { name: 'match_id', type: 'STRING', description: 'Match identifier' },
        { name: 'winner_name', type: 'STRING', description: 'Name of the winning player' },
        { name: 'winner_aces', type: 'INT64', description: 'Aces served by the winner' },
        { name: 'sets_played', type: 'INT64', description: 'Number of sets played' },
      ],
    });
    const other = await validateCandidate(
      'winner aces sets',
      group,
      stats('Match statistics from every ITF junior circuit match.'),
      requirement,
    );
    expect(other.is_good_fit).toBe(false);
    expect(other.reasoning).toMatch(/not WTA data/);
    const own = stats('Match statistics from every WTA tour match.');
    expect(await validateCandidate('winner aces sets', group, own, requirement)).toMatchObject({ is_good_fit: true });
  });

  it('reads a unit or a standard in a key’s description as no domain of the rows', async () => {
    // The sample is kept under the GLP rules and the table's lab holds an ISO accreditation:
    // neither acronym says whose samples these are, and the table is keyed by the same sample.
    const requirement = [
      { name: 'sample_id', type: 'STRING', description: 'Blood sample, handled under GLP' },
      { name: 'glucose_mmol', type: 'FLOAT64', description: 'Glucose measured in the sample, mmol per litre' },
      { name: 'haemoglobin_g', type: 'FLOAT64', description: 'Haemoglobin measured in the sample, grams per litre' },
      { name: 'flagged', type: 'BOOL', description: 'Whether a doctor flagged the result for review' },
    ];
    const results = (description: string) => ({
      dataset_id: 'lab',
      table_id: 'sample_results',
      description,
      schema: [
        { name: 'sample_id', type: 'STRING', description: 'Sample' },
        { name: 'glucose_mmol', type: 'FLOAT64', description: 'Glucose, mmol/L' },
        { name: 'haemoglobin_g', type: 'FLOAT64', description: 'Haemoglobin, g/L' },
      ],
    });
    for (const description of [
      'Blood results from the ISO 15189 accredited laboratory.',
      'Blood results, couriered under GPS tracking to the laboratory.',
    ])
      expect(
        await validateCandidate('glucose haemoglobin flag', requirement.slice(1), results(description), requirement),
        description,
      ).toMatchObject({ is_good_fit: true });
    // An acronym on the samples themselves still names their domain.
    const own = [{ ...requirement[0], description: 'The NHS blood sample' }, ...requirement.slice(1)];
    const other = await validateCandidate(
      'glucose haemoglobin flag',
      own.slice(1),
      results('Blood results from VA hospital laboratories.'),
      own,
    );
    expect(other.is_good_fit).toBe(false);
  });

  it('reads the rows of a requirement without id columns from what its columns speak of', async () => {
    // Harbours named by a port code, no "_id" anywhere: a table keyed by voyages, which none of
    // the columns mentions, is not about these rows, whatever single column it shares.
    const requirement = [
      { name: 'port_code', type: 'STRING', description: 'UN/LOCODE of the harbour' },
      { name: 'harbour_name', type: 'STRING', description: 'Name of the harbour' },
      { name: 'berths', type: 'INT64', description: 'Berths the harbour has' },
      { name: 'crane_count', type: 'INT64', description: 'Cranes working at the harbour' },
      { name: 'congestion_risk', type: 'FLOAT64', description: 'Modelled chance the harbour is congested next week' },
    ];
    const group = requirement.slice(3);
    const voyages = {
      dataset_id: 'shipping',
      table_id: 'voyage_forecasts',
      description: 'Forecasts for each voyage: delay risk and crane hours booked.',
      schema: [
        { name: 'voyage_id', type: 'STRING', description: 'Voyage identifier' },
        { name: 'congestion_risk', type: 'FLOAT64', description: 'Modelled chance the voyage meets congestion' },
      ],
    };
    const v = await validateCandidate('cranes congestion', group, voyages, requirement);
    expect(v.is_good_fit).toBe(false);
    expect(v.reasoning).toMatch(/voyage_id/);
    const harbours = {
      ...voyages,
      table_id: 'harbour_forecasts',
      description: 'Forecasts for each harbour.',
      schema: [{ ...voyages.schema[0], name: 'harbour_id', description: 'Harbour identifier' }, voyages.schema[1]],
    };
    expect(await validateCandidate('cranes congestion', group, harbours, requirement)).toMatchObject({
      is_good_fit: true,
    });
  });

  it('turns down two look-alike columns of a table whose rows are other things', async () => {
    const requirement = [
      { name: 'ward_name', type: 'STRING', description: 'The hospital ward' },
      { name: 'census_day', type: 'DATE', description: 'The day counted' },
      { name: 'beds_occupied', type: 'INT64', description: 'Beds of the ward occupied that day' },
      { name: 'nurses_on_shift', type: 'INT64', description: 'Nurses working on the ward that day' },
      { name: 'admissions', type: 'INT64', description: 'Patients admitted to the ward that day' },
    ];
    const group = requirement.slice(2);
    const visits = {
      dataset_id: 'clinic',
      table_id: 'appointment_staffing',
      description: 'Staffing and room use at each outpatient appointment.',
      schema: [
        { name: 'appointment_id', type: 'STRING', description: 'Appointment identifier' },
        { name: 'beds_occupied', type: 'INT64', description: 'Beds occupied during the appointment' },
        { name: 'nurses_on_shift', type: 'INT64', description: 'Nurses on shift during the appointment' },
      ],
    };
    const v = await validateCandidate('beds nurses admissions', group, visits, requirement);
    expect(v.is_good_fit).toBe(false);
    expect(v.reasoning).toMatch(/appointment_id/);
  });
});
