/**
 * `discoverFromPrp` compares the tables its validations accepted: a look-alike that another
 * accepted table supplies every column of more clearly, or as clearly and nearer the
 * requirement's subject, is set aside and reported as superseded; verdicts without per-column
 * scores are kept as they are. The model is scripted (the plan, and which table supplies which
 * column how clearly), so what is tested is the workflow, not the stand-in's judgement.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { discoverFromPrpFlow, tableName, type ValidationVerdict } from '../flows/discovery/contract';
import { ModelTask } from '../flows/discovery/model-tasks';
import { createHarness, recordHistory, type Harness } from './helpers/harness';
import { DISCOVERY_TASKS, scriptedPlan } from './helpers/scripted-discovery';
import { ScriptedModel, type Sections } from './helpers/scripted-model';

const COLLEGE = 'sports-analytics-prod.college_football.cfb_games';
const PRO = 'sports-analytics-prod.nfl_results.final_scores';

/** Per table: the columns it supplies with how clearly, and how near its subject is. */
type Ledger = Record<string, { columns: Record<string, number>; subject: number }>;

function verdicts(ledger: Ledger, withScores: boolean) {
  return {
    always: (sections: Sections): ValidationVerdict => {
      const targets = (sections.target_columns as Array<{ name: string }>).map((c) => c.name);
      const name = tableName(sections.candidate_table as Parameters<typeof tableName>[0]);
      const entry = ledger[name];
      const matched = targets.filter((c) => entry?.columns[c] !== undefined);
      const fit = matched.length > 0;
      return {
        is_good_fit: fit,
        relevance_score: fit ? 0.8 : 0.1,
        reasoning: `scripted: ${name} supplies ${matched.join(', ') || 'none of the columns'}`,
        matched_columns: matched,
        ...(withScores && entry
          ? {
              column_scores: Object.fromEntries(matched.map((c) => [c, entry.columns[c]])),
              subject_score: entry.subject,
            }
          : {}),
      };
    },
  };
}

describe('discoverFromPrp compares look-alike tables', () => {
  const model = new ScriptedModel();
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness({ rules: model.rules(DISCOVERY_TASKS) });
  });
  beforeEach(() => model.script({}));
  afterEach(() => expect(model.unexpected).toEqual([]));
  afterAll(async () => h?.close());

  const input = {
    prp: '# Home margins in college football\n\nThe final points of each side, per game.\n',
    targetSchema: [
      { name: 'home_points', type: 'INT64', description: 'Final points of the home school' },
      { name: 'away_points', type: 'INT64', description: 'Final points of the visiting school' },
    ],
  };
  const plan = () =>
    scriptedPlan([
      {
        group: 'final points',
        query: 'final points scored by the home and away team in each football game',
        columns: ['home_points', 'away_points'],
      },
    ]);
  // The professional league's final scores read as clearly, but the college table is the
  // requirement's subject.
  const ledger: Ledger = {
    [COLLEGE]: { columns: { home_points: 0.95, away_points: 0.95 }, subject: 0.62 },
    [PRO]: { columns: { home_points: 0.9, away_points: 0.9 }, subject: 0.41 },
  };

  it('sets aside the look-alike of another subject and says why', async () => {
    model.script({ [ModelTask.discoveryPlan]: plan(), [ModelTask.discoveryValidate]: verdicts(ledger, true) });
    const handle = await h.start(discoverFromPrpFlow, input);
    const out = await handle.result();
    const validated = model.prompts(ModelTask.discoveryValidate).map((s) => tableName(s.candidate_table as never));
    // Both were candidates and both fit on their own.
    expect(validated).toEqual(expect.arrayContaining([COLLEGE, PRO]));
    expect(out.stats.fits).toBe(2);
    expect(out.results.flatMap((r) => r.discovered_tables.map(tableName))).toEqual([COLLEGE]);
    expect(out.rejected).toContainEqual(
      expect.objectContaining({ table: PRO, outcome: 'superseded', conceptual_group: 'final points' }),
    );
    expect(out.rejected.find((r) => r.table === PRO)?.reason).toContain(COLLEGE);
    expect(out.unsourced_columns).toEqual([]);
    await recordHistory(handle, 'discover-from-prp-lookalikes');
  });

  it('keeps every fit when the verdicts carry no per-column scores', async () => {
    model.script({ [ModelTask.discoveryPlan]: plan(), [ModelTask.discoveryValidate]: verdicts(ledger, false) });
    const out = await (await h.start(discoverFromPrpFlow, input)).result();
    expect(out.results.flatMap((r) => r.discovered_tables.map(tableName)).sort()).toEqual([COLLEGE, PRO].sort());
    expect(out.rejected.some((r) => r.outcome === 'superseded')).toBe(false);
  });
});
