/**
 * The evaluation suite's plug-in contract. Each flow's held-out set lives in `eval/<flow>/` with an
 * `index.ts` whose default export is an `EvalSuite`. Ground truth is computed independently of the
 * flow's own code (hand-written SQL, labelled tables, firms described in their own words).
 */
import type { OfflineStack } from '../workers/offline-stack';

export interface EvalMetric {
  /** e.g. "precision", "problem-type accuracy". */
  metric: string;
  value: number;
  /** The target the value must reach; `higherIsBetter: false` means value must be ≤ target. */
  target: number;
  higherIsBetter?: boolean;
  /** Number of cases the figure is computed over. */
  cases: number;
}

export interface EvalCaseFailure {
  id: string;
  why: string;
}

export interface EvalReport {
  metrics: EvalMetric[];
  /** Cases that missed, for the reader; printed under the table. */
  failures: EvalCaseFailure[];
}

export interface EvalSuite {
  /** Flow name shown in the table, e.g. "bom". */
  name: string;
  /**
   * Runs the set on the offline stack (its worker polls until the stack closes). `quick` runs a
   * small subset fast enough for `npm test`.
   */
  run(stack: OfflineStack, options: { quick: boolean; outDir: string }): Promise<EvalReport>;
}

export function meetsTarget(m: EvalMetric): boolean {
  return m.higherIsBetter === false ? m.value <= m.target : m.value >= m.target;
}
