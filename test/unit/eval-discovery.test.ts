/** The discovery eval's scoring, on hand-made results (the suite itself runs in test/eval.test.ts). */
import { describe, expect, it } from 'vitest';
import type { DiscoverFromPrpOutput } from '../../flows/discovery/contract';
import { DEV_CASES, HELD_OUT_CASES, type DiscoveryCase } from '../../eval/discovery/cases';
import { scoreCase, selectCases, summarize } from '../../eval/discovery/index';

const c: DiscoveryCase = {
  id: 'toy',
  prp: '# toy',
  columns: [
    { name: 'a', type: 'STRING', description: 'a', sources: ['p.d.t1'] },
    { name: 'b', type: 'STRING', description: 'b', sources: ['p.d.t2'] },
    { name: 'c', type: 'STRING', description: 'derived', sources: [] },
  ],
  relevant: ['p.d.t1', 'p.d.t2'],
  acceptable: ['p.d.keys'],
};
const accepted = (...tables: string[]): Pick<DiscoverFromPrpOutput, 'results'> => ({
  results: [
    {
      conceptual_group: 'g',
      search_query: 'q',
      target_columns: [],
      candidates_found: tables.length,
      status: 'ok',
      discovered_tables: tables.map((t) => {
        const [project_id, dataset_id, table_id] = t.split('.');
        return {
          project_id,
          dataset_id,
          table_id,
          description: '',
          schema: [],
          relevance_score: 1,
          reasoning: '',
          matched_columns: [],
        };
      }),
    },
  ],
});

describe('discovery eval scoring', () => {
  it('counts relevant, wrong and merely acceptable tables apart, and columns by the labels', () => {
    const s = scoreCase(c, accepted('p.d.t1', 'p.d.keys', 'p.d.wrong', 'p.d.t1'));
    expect(s).toMatchObject({
      truePositives: 1,
      judged: 2,
      relevant: 2,
      columns: 2,
      covered: 1,
      missedTables: ['p.d.t2'],
      wrongTables: ['p.d.wrong'],
      uncoveredColumns: ['b'],
    });
    const report = summarize([s, scoreCase(c, accepted('p.d.t1', 'p.d.t2'))]);
    expect(report.metrics.map((m) => [m.metric, m.value])).toEqual([
      ['table precision', 3 / 4],
      ['table recall', 3 / 4],
      ['columns covered', 3 / 4],
      ['lowest table precision of a PRP', 1 / 2],
      ['lowest table recall of a PRP', 1 / 2],
      ['silent empty answers', 0],
    ]);
    expect(report.failures.map((f) => f.id)).toEqual(['toy']);
    expect(summarize([scoreCase(c, accepted())]).metrics[0].value).toBe(0);
  });

  it('has at least six new PRPs plus two held out, labels that name catalog tables, and a quick subset', async () => {
    const { readFileSync } = await import('node:fs');
    const catalog = new Set(
      (JSON.parse(readFileSync('data/search/table-catalog.json', 'utf8')) as Array<{ id: string }>).map((t) => t.id),
    );
    expect(DEV_CASES.length).toBeGreaterThanOrEqual(6);
    expect(HELD_OUT_CASES.length).toBeGreaterThanOrEqual(2);
    for (const k of [...DEV_CASES, ...HELD_OUT_CASES]) {
      for (const t of [...k.relevant, ...(k.acceptable ?? []), ...k.columns.flatMap((col) => col.sources)])
        expect(catalog.has(t), `${k.id}: ${t}`).toBe(true);
      // Every relevant table supplies some column, and no PRP is about NFL games like the bundled ones.
      for (const t of k.relevant)
        expect(
          k.columns.some((col) => col.sources.includes(t)),
          `${k.id}: ${t}`,
        ).toBe(true);
      expect(k.prp).not.toMatch(/\bNFL\b/);
    }
    expect(selectCases(true).length).toBeGreaterThanOrEqual(1);
    expect(selectCases(false, { DISCOVERY_EVAL_HELD_OUT: 'skip' })).toEqual(DEV_CASES);
  });
});
