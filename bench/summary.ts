/**
 * One machine-readable line per bench run, for `npm run bench` (bench/run-all.ts) to gather into a
 * single table: `BENCH_SUMMARY {"bench": "...", ...figures}`. The human-readable report stays as it was.
 */
export const SUMMARY_PREFIX = 'BENCH_SUMMARY ';

export type Figures = Record<string, number | string | undefined>;

export function emitSummary(bench: string, figures: Figures): void {
  console.log(`${SUMMARY_PREFIX}${JSON.stringify({ bench, ...figures })}`);
}
