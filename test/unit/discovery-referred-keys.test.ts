/**
 * A table keyed by a thing the requirement's rows refer to (not by the rows themselves) supplies
 * what is said of that thing, but not a column the requirement says of its own rows. A table whose
 * own first key the requirement does not name may hold the rows under another word, and is judged
 * by the keys the two share. Invented examples: a guest house's bookings, its guests, each guest's
 * yearly totals; complaints kept as service incidents.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { installedEmbedder, describeWithModel, modelDir } from '../helpers/installed-embedder';
import { restoreEmbedder, useEmbedder, validateCandidate } from '../../flows/discovery/standin';

const requirement = [
  { name: 'booking_id', type: 'STRING', description: 'One booking at the guest house' },
  { name: 'guest_id', type: 'STRING', description: 'Guest who made the booking' },
  { name: 'arrival_day', type: 'DATE', description: 'Day the guest arrived' },
  { name: 'booking_nights', type: 'INT64', description: 'Nights of the booking' },
  { name: 'home_town', type: 'STRING', description: 'Town the guest lives in' },
];
const subject = 'guest house bookings review';

describeWithModel('a table keyed by a thing the rows refer to (embedding model installed)', () => {
  beforeAll(async () => useEmbedder(await installedEmbedder(modelDir!)));
  afterAll(() => restoreEmbedder());

  const yearly = {
    dataset_id: 'guest_house',
    table_id: 'guest_year_totals',
    description: 'Each guest’s stays per year.',
    schema: [
      { name: 'guest_id', type: 'STRING', description: 'Guest' },
      { name: 'year', type: 'INT64', description: 'Year' },
      { name: 'nights', type: 'INT64', description: 'Nights stayed that year' },
    ],
  };

  it('does not take a guest’s yearly nights for the nights of each booking', async () => {
    const targets = [requirement[2], requirement[3]];
    const v = await validateCandidate(`arrival booking nights — ${subject}`, targets, yearly, requirement);
    expect(v.is_good_fit).toBe(false);
  });

  it('takes the guests’ register for what is said of each guest', async () => {
    const register = {
      dataset_id: 'guest_house',
      table_id: 'guests',
      description: 'Guests of the guest house with where they live.',
      schema: [
        { name: 'guest_id', type: 'STRING', description: 'Guest' },
        { name: 'home_town', type: 'STRING', description: 'Town of residence' },
        { name: 'first_stay', type: 'DATE', description: 'Day of the first stay' },
      ],
    };
    const v = await validateCandidate(`home town — ${subject}`, [requirement[4]], register, requirement);
    expect(v.is_good_fit).toBe(true);
  });

  it('takes a table of the rows under another word ("incident" for "complaint") that shares a key with them', async () => {
    const complaints = [
      { name: 'complaint_id', type: 'STRING', description: 'The complaint' },
      { name: 'client_id', type: 'STRING', description: 'Client account the complaint was made for' },
      { name: 'severity', type: 'STRING', description: 'Priority given to the complaint' },
      { name: 'lodged_at', type: 'TIMESTAMP', description: 'When the complaint was opened' },
      { name: 'complaint_state', type: 'STRING', description: 'Where the complaint stands now' },
    ];
    const incidents = {
      dataset_id: 'service',
      table_id: 'incidents',
      description: 'Service incidents.',
      schema: [
        { name: 'incident_id', type: 'STRING', description: 'Incident identifier' },
        { name: 'account_id', type: 'STRING', description: 'Account' },
        { name: 'priority', type: 'STRING', description: 'Priority' },
        { name: 'status', type: 'STRING', description: 'Status' },
      ],
    };
    const targets = [complaints[2], complaints[4]];
    const v = await validateCandidate('complaints handling', targets, incidents, complaints);
    expect(v.is_good_fit).toBe(true);
  });
});
