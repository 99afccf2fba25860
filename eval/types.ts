/**
 * The evaluation suite's plug-in contract. Each flow's held-out set lives in `eval/<flow>/` with an
 * `index.ts` whose default export is an `EvalSuite`. Ground truth is computed independently of the
 * flow's own code (hand-written SQL, labelled tables, firms described in their own words).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { OfflineStack } from '../workers/offline-stack';

/**
 * Which cases a run uses. `dev`: the sets in `eval/<flow>/`, which the people changing the rules
 * may read. `sealed`: the sets in `eval/sealed/<flow>/`, written by someone who never read the
 * rules and never shown to whoever changes them (see eval/sealed/README.md).
 */
export type EvalSet = 'dev' | 'sealed';
export const EVAL_SETS: readonly EvalSet[] = ['dev', 'sealed'];

export interface EvalRunOptions {
  quick: boolean;
  outDir: string;
  /** Default `dev`, so callers that predate the sealed sets keep their meaning. */
  set?: EvalSet;
  /**
   * The BOM warehouse shape the flows read: the demo's own tables (default), or the same data in
   * Odoo MRP's tables read through a schema mapping alone (`--schema odoo`).
   */
  schema?: EvalSchema;
}

export type EvalSchema = 'demo' | 'odoo';

/** What `--schema odoo` sets for the worker: the Odoo-shaped dataset and the mapping that reads it. */
export const ODOO_SCHEMA = {
  dataset: 'odoo_demo',
  mapping: path.join(__dirname, '..', 'data', 'odoo', 'mapping.json'),
} as const;

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
  run(stack: OfflineStack, options: EvalRunOptions): Promise<EvalReport>;
}

export function meetsTarget(m: EvalMetric): boolean {
  return m.higherIsBetter === false ? m.value <= m.target : m.value >= m.target;
}

/** `eval/sealed/<flow>/`: where a flow's sealed set lives. */
export function sealedDir(flow: string): string {
  return path.join(__dirname, 'sealed', flow);
}

/**
 * The sealed set's files of one kind, oldest first: each batch of cases is a file named with the
 * date it was written (`questions-2026-11-27.json`), so later batches add to the set.
 */
export function sealedFiles(flow: string, prefix: string, ext = '.json'): string[] {
  return datedFiles(sealedDir(flow), prefix, ext);
}

/**
 * A set's dated batches in one folder, oldest first. A sealed batch that has been measured once is
 * spent and moves, unchanged, to its flow's development folder, where it is read the same way.
 */
export function datedFiles(dir: string, prefix: string, ext = '.json'): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .filter((n) => n.startsWith(`${prefix}-`) && /\d{4}-\d{2}-\d{2}/.test(n) && n.endsWith(ext))
    .sort()
    .map((n) => path.join(dir, n));
}

export function readJson<T>(file: string): T {
  return JSON.parse(readFileSync(file, 'utf8')) as T;
}
