/**
 * A group of dates alone (a leftover of a larger group) is supplied by a table clearly about the
 * requirement that holds each date clearly, and by no other table: a table of another subject
 * that carries a date, or a group of keys alone, is still no source. Examples are invented
 * (ferry sailings, a bakery's ovens).
 */
import { describe, expect, it } from 'vitest';
import { validateCandidate } from '../../flows/discovery/standin';

const requirement = [
  { name: 'sailing_id', type: 'STRING', description: 'The ferry sailing' },
  { name: 'sailing_date', type: 'DATE', description: 'Date the ferry sailed' },
  { name: 'passengers', type: 'INT64', description: 'Passengers carried on the sailing' },
  { name: 'vehicles', type: 'INT64', description: 'Cars and vans carried on the sailing' },
  { name: 'crossing_minutes', type: 'INT64', description: 'Minutes the crossing took' },
];
const sailings = {
  project_id: 'harbour',
  dataset_id: 'ferries',
  table_id: 'sailings',
  description: 'Every ferry sailing with its date, route and departure time.',
  schema: [
    { name: 'sailing_id', type: 'STRING', description: 'Sailing identifier' },
    { name: 'sailing_date', type: 'DATE', description: 'Date of the sailing' },
    { name: 'route', type: 'STRING', description: 'Route sailed' },
    { name: 'departed_at', type: 'TIMESTAMP', description: 'Departure time' },
  ],
};
const ovens = {
  project_id: 'bakery',
  dataset_id: 'production',
  table_id: 'oven_batches',
  description: 'Bread batches baked per oven and day.',
  schema: [
    { name: 'oven_id', type: 'STRING', description: 'Oven' },
    { name: 'bake_date', type: 'DATE', description: 'Date baked' },
    { name: 'loaves', type: 'INT64', description: 'Loaves baked' },
  ],
};
const dateAlone = [requirement[1]];

describe('a group of dates alone', () => {
  it('is supplied by a table of the requirement’s subject that holds the date clearly', async () => {
    const verdict = await validateCandidate('sailing date — ferry loads', dateAlone, sailings, requirement);
    expect(verdict.is_good_fit, verdict.reasoning).toBe(true);
    expect(verdict.matched_columns).toEqual(['sailing_date']);
  });

  it('is not supplied by a table of another subject that carries a date', async () => {
    const verdict = await validateCandidate('sailing date — ferry loads', dateAlone, ovens, requirement);
    expect(verdict.is_good_fit, verdict.reasoning).toBe(false);
  });

  it('while a group of keys alone still finds no source', async () => {
    const verdict = await validateCandidate('sailing — ferry loads', [requirement[0]], sailings, requirement);
    expect(verdict.is_good_fit, verdict.reasoning).toBe(false);
  });
});
