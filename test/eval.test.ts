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
    it(`${suite.name} meets its targets on the quick subset`, async () => {
      const report = await suite.run(stack, { quick: true, outDir });
      const missed = report.metrics.filter((m) => !meetsTarget(m));
      expect(
        missed,
        `${formatTable([{ suite: suite.name, report }])}\n${report.failures.map((f) => `${f.id}: ${f.why}`).join('\n')}`,
      ).toEqual([]);
    }, 300_000);
  }
});
