/**
 * A table only loosely about the requirement's subject is judged by whose rows it keys, however
 * many of its columns read alike: a neighbouring domain records alike things under alike names.
 * Invented example: a fencing club's bouts, and a lawn bowls league's fixtures.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { installedEmbedder, describeWithModel, modelDir } from '../helpers/installed-embedder';
import { restoreEmbedder, subjectAgreement, useEmbedder, validateCandidate } from '../../flows/discovery/standin';

const requirement = [
  { name: 'bout_id', type: 'STRING', description: 'The fencing bout' },
  { name: 'bout_date', type: 'DATE', description: 'Day of the bout' },
  { name: 'home_club', type: 'STRING', description: 'Home club of the bout' },
  { name: 'visiting_club', type: 'STRING', description: 'Visiting club' },
  { name: 'home_final', type: 'INT64', description: 'Final touches of the home club' },
  { name: 'visiting_final', type: 'INT64', description: 'Final touches of the visiting club' },
  { name: 'weapon', type: 'STRING', description: 'Foil, epee or sabre' },
  { name: 'piste', type: 'STRING', description: 'Strip the fencers fought on' },
  { name: 'referee_id', type: 'STRING', description: 'Referee who presided over the bout' },
];
const group = 'club final touches — club fencing review';
const targets = requirement.slice(2, 6);
const sides = (key: { name: string; description: string }) => [
  { name: key.name, type: 'STRING', description: key.description },
  { name: 'home_club', type: 'STRING', description: 'Home club' },
  { name: 'away_club', type: 'STRING', description: 'Visiting club' },
  { name: 'home_shots', type: 'INT64', description: 'Final shots of the home club' },
  { name: 'away_shots', type: 'INT64', description: 'Final shots of the visiting club' },
];

describeWithModel('a table loosely about the subject, judged by its keys (embedding model installed)', () => {
  beforeAll(async () => useEmbedder(await installedEmbedder(modelDir!)));
  afterAll(() => restoreEmbedder());

  it('refuses a neighbouring domain’s table keyed by its own rows, however many columns read alike', async () => {
    const fixtures = {
      dataset_id: 'bowls',
      table_id: 'fixtures',
      description: 'Fixtures of the county lawn bowls league, played on outdoor greens each summer.',
      schema: sides({ name: 'fixture_id', description: 'Fixture identifier' }),
    };
    // The premise: the subjects are only loosely alike, and four columns read alike.
    expect((await subjectAgreement(fixtures, requirement, targets))?.verdict).toBe('uncertain');
    const v = await validateCandidate(group, targets, fixtures, requirement);
    expect(v.matched_columns.length).toBeGreaterThanOrEqual(3);
    expect(v.is_good_fit).toBe(false);
  });

  it('still takes a loosely described table keyed by the requirement’s own rows', async () => {
    const sheets = {
      dataset_id: 'bowls',
      table_id: 'scoresheets',
      description: 'Sheets of the county league, kept on paper and typed up each summer.',
      schema: sides({ name: 'bout_id', description: 'Bout identifier' }),
    };
    expect((await subjectAgreement(sheets, requirement, targets))?.verdict).toBe('uncertain');
    const v = await validateCandidate(group, targets, sheets, requirement);
    expect(v.is_good_fit).toBe(true);
  });
});
