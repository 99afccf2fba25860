/**
 * A start is not an end: a column of when something began does not supply a column of when it
 * ended, however alike the two read by meaning. Examples are invented (a sailing regatta, a
 * library's reading-room bookings).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installedEmbedder, describeWithModel, modelDir } from '../helpers/installed-embedder';
import { restoreEmbedder, spanAgreement, spanEnd, useEmbedder, validateCandidate } from '../../flows/discovery/standin';

describe('which end of a span a column marks', () => {
  it('reads start and end words in names and descriptions', () => {
    expect(spanEnd({ name: 'leg_finished_at', type: 'TIMESTAMP', description: 'When the boat crossed the line' })).toBe(
      'end',
    );
    expect(spanEnd({ name: 'gun_time', type: 'TIMESTAMP', description: 'When the leg started' })).toBe('start');
    // Both ends, or neither: the column says nothing of which end.
    expect(
      spanEnd({ name: 'leg_minutes', type: 'INT64', description: 'From start to end of the leg' }),
    ).toBeUndefined();
    expect(spanEnd({ name: 'booked_on', type: 'DATE', description: 'Day the room was booked' })).toBeUndefined();
  });

  it('reads a time something was opened or closed as a span’s ends, and only in a column of times', () => {
    expect(spanEnd({ name: 'gate_opened', type: 'TIMESTAMP', description: 'Gates opened' })).toBe('start');
    expect(spanEnd({ name: 'repair_done', type: 'DATE', description: 'Day the repair was completed' })).toBe('end');
    expect(spanEnd({ name: 'loan_closed', type: 'DATE', description: 'Day the loan was closed' })).toBe('end');
    // A status or a count that says "open" or "closed" marks no end of a span.
    expect(spanEnd({ name: 'lane_state', type: 'STRING', description: 'Closed for repairs' })).toBeUndefined();
    expect(
      spanEnd({ name: 'open_loans', type: 'INT64', description: 'Loans opened and not yet paid' }),
    ).toBeUndefined();
  });

  it('keeps a start apart from an end, and leaves other pairs alone', () => {
    const end = { name: 'booking_end', type: 'TIMESTAMP', description: 'When the reader left the room' };
    const start = { name: 'booking_start', type: 'TIMESTAMP', description: 'When the reader came in' };
    const booked = { name: 'booked_on', type: 'DATE', description: 'Day the room was booked' };
    expect(spanAgreement(end, start)).toBeLessThan(0.5);
    expect(spanAgreement(end, end)).toBe(1);
    expect(spanAgreement(end, booked)).toBe(1);
  });
});

describeWithModel('a table with only the start of what the group wants the end of (embedding model installed)', () => {
  beforeAll(async () => useEmbedder(await installedEmbedder(modelDir!)));
  afterAll(() => restoreEmbedder());

  const requirement = [
    { name: 'leg_id', type: 'STRING', description: 'One leg of the regatta' },
    { name: 'leg_finished_at', type: 'TIMESTAMP', description: 'When the first boat finished the leg' },
    { name: 'leg_winner', type: 'STRING', description: 'Boat that won the leg' },
    { name: 'winner_margin_sec', type: 'INT64', description: 'Seconds between the first and second boat' },
    { name: 'boats_retired', type: 'INT64', description: 'How many boats gave up during the leg' },
  ];
  const group = 'leg winner boats — regatta leg review';
  const targets = requirement.slice(1);

  it('does not count the start time as the finish, so one of three measures is too little', async () => {
    const starts = {
      dataset_id: 'club_racing',
      table_id: 'race_starts',
      description: 'Starts of the club’s dinghy races, with the boat that won.',
      schema: [
        { name: 'race_id', type: 'STRING', description: 'Race' },
        { name: 'started_at', type: 'TIMESTAMP', description: 'Race start time' },
        { name: 'winner', type: 'STRING', description: 'Winning boat' },
      ],
    };
    const v = await validateCandidate(group, targets, starts, requirement);
    expect(v.matched_columns).not.toContain('leg_finished_at');
    expect(v.is_good_fit).toBe(false);
  });

  it('still takes a table with the finish time and the measures', async () => {
    const results = {
      dataset_id: 'regatta',
      table_id: 'leg_results',
      description: 'Results of each regatta leg: finish time, winning boat, margin and retirements.',
      schema: [
        { name: 'leg_id', type: 'STRING', description: 'Leg' },
        { name: 'finished_at', type: 'TIMESTAMP', description: 'When the leg ended' },
        { name: 'winning_boat', type: 'STRING', description: 'Boat that won' },
        { name: 'margin_seconds', type: 'INT64', description: 'Winning margin in seconds' },
        { name: 'retirements', type: 'INT64', description: 'Boats that retired' },
      ],
    };
    const v = await validateCandidate(group, targets, results, requirement);
    expect(v.is_good_fit).toBe(true);
    expect(v.matched_columns).toContain('leg_finished_at');
  });
});
