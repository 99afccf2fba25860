/**
 * `discoverFromPrp` never answers "ok" with no table: a step that searched and validated but
 * found nothing says `no_source`, and the result names every column no accepted table supplies
 * (derived ones reported apart). A PRP whose columns three tables hold gets all three.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discoverFromPrpFlow, tableName } from '../flows/discovery/contract';
import { DEV_CASES } from '../eval/discovery/cases';
import { createHarness, recordHistory, type Harness } from './helpers/harness';

describe('discoverFromPrp reports what found no source', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(async () => h?.close());

  it('names the columns no table supplies and never reports a step ok with no table', async () => {
    const handle = await h.start(discoverFromPrpFlow, {
      prp: '# Orbital debris tracking\n\nWe need fragment counts per orbit shell and the collision alerts.\n',
      targetSchema: [
        { name: 'shell_altitude_km', type: 'FLOAT64', description: 'Altitude band of the orbit shell in kilometres' },
        { name: 'fragment_count', type: 'INT64', description: 'Number of tracked debris fragments in the shell' },
        { name: 'conjunction_alerts', type: 'INT64', description: 'Close-approach warnings issued for the shell' },
        { name: 'alert_rate', type: 'FLOAT64', description: 'Derived: alerts per thousand fragments' },
      ],
    });
    const out = await handle.result();
    for (const r of out.results) {
      if (r.discovered_tables.length === 0) expect(r.status, r.conceptual_group).not.toBe('ok');
    }
    expect(out.derived_columns).toEqual(['alert_rate']);
    const accepted = new Set(out.results.flatMap((r) => r.discovered_tables.flatMap((t) => t.matched_columns)));
    expect(out.unsourced_columns).toEqual(
      ['shell_altitude_km', 'fragment_count', 'conjunction_alerts'].filter((c) => !accepted.has(c)),
    );
    expect(out.unsourced_columns!.length).toBeGreaterThan(0);
    await recordHistory(handle, 'discover-from-prp-unsourced-2026-11-27');
  });

  it('finds every table of a PRP whose groups span three tables', async () => {
    const c = DEV_CASES.find((d) => d.id === 'readmission-trial-followup')!;
    const handle = await h.start(discoverFromPrpFlow, {
      prp: c.prp,
      targetSchema: c.columns.map(({ name, type, description }) => ({ name, type, description })),
    });
    const out = await handle.result();
    const accepted = new Set(out.results.flatMap((r) => r.discovered_tables.map((t) => tableName(t))));
    for (const t of c.relevant) expect(accepted, t).toContain(t);
    expect(out.results.every((r) => !/^[A-Z]{2,5}\b/.test(r.conceptual_group))).toBe(true);
    await recordHistory(handle, 'discover-from-prp-three-sources-2026-11-27');
  });
});
