/**
 * A code is an identifier when its first word heads another key or name column of the
 * requirement (a kennel's code beside the kennel's name): carrying it says no more of a table's
 * content than carrying the kennel's key. A code of something the requirement names no other
 * way (a breed's code, a currency) still classifies the row. Examples are invented (boarding
 * kennels, a seed bank).
 */
import { describe, expect, it } from 'vitest';
import { codeNamesAThing, isCode, validateCandidate } from '../../flows/discovery/standin';

const kennelCode = { name: 'kennel_code', type: 'STRING', description: 'Kennel the dog stayed at' };
const kennelName = { name: 'kennel_name', type: 'STRING', description: 'Name of the kennel' };
const nights = { name: 'nights_booked', type: 'INT64', description: 'Nights the dog was booked in for' };
const breedCode = { name: 'breed_code', type: 'STRING', description: 'Breed of the dog' };

describe('codes that name a thing', () => {
  it('reads a code as an identifier when the requirement keys or names the same thing', () => {
    expect(codeNamesAThing(kennelCode, [kennelCode, kennelName, nights])).toBe(true);
    expect(isCode(kennelCode, [kennelCode, kennelName, nights])).toBe(false);
    const kennelId = { name: 'kennel_id', type: 'STRING', description: 'The kennel' };
    expect(isCode(kennelCode, [kennelId, kennelCode])).toBe(false);
  });

  it('keeps a code of something named no other way as what the row records', () => {
    expect(codeNamesAThing(breedCode, [kennelCode, kennelName, breedCode, nights])).toBe(false);
    expect(isCode(breedCode, [kennelCode, kennelName, breedCode, nights])).toBe(true);
    expect(isCode(kennelCode)).toBe(true);
  });

  it('does not take a register of kennels for a source of bookings because it lists their codes', async () => {
    const requirement = [kennelCode, kennelName, nights, breedCode];
    const register = {
      project_id: 'pets',
      dataset_id: 'kennels',
      table_id: 'register',
      description: 'Registered boarding kennels with their codes, names and towns.',
      schema: [
        { name: 'kennel_code', type: 'STRING', description: 'Kennel code' },
        { name: 'town', type: 'STRING', description: 'Town the kennel is in' },
        { name: 'phone', type: 'STRING', description: 'Telephone number of the kennel' },
      ],
    };
    const verdict = await validateCandidate(
      'kennel bookings — boarding stays',
      [kennelCode, nights],
      register,
      requirement,
      { own: [], excluded: [] },
    );
    expect(verdict.is_good_fit, verdict.reasoning).toBe(false);
  });
});
