import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The order test files start in: the longest first, so that the last minutes of a run are not
 * one long file running alone while the other worker idles. A file's length is vitest's own
 * record of its last run when there is one (node_modules/.vite, so only on a machine that has
 * run the suite), else the figure in test/setup/file-seconds.json (from a full run; files
 * not listed there take a few seconds). Files that failed last time still go first.
 */
const MEASURED: Record<string, number> = JSON.parse(
  readFileSync(path.join(import.meta.dirname, 'test', 'setup', 'file-seconds.json'), 'utf8'),
).seconds;

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const { root } = this.ctx.config;
    const facts = (spec: TestSpecification) => {
      const file = path.relative(root, spec.moduleId).split(path.sep).join('/');
      const last = this.ctx.cache.getFileTestResults(`${spec.project.name}:${file}`);
      return { failed: last?.failed ?? false, seconds: last ? last.duration / 1000 : (MEASURED[file] ?? 0) };
    };
    const known = new Map(files.map((spec) => [spec, facts(spec)]));
    return [...files].sort((a, b) => {
      const fa = known.get(a)!;
      const fb = known.get(b)!;
      if (fa.failed !== fb.failed) return fa.failed ? -1 : 1;
      return fb.seconds - fa.seconds;
    });
  }
}

export default defineConfig({
  test: {
    // The SDK's log lines through console, so the rule below applies to them too.
    setupFiles: ['test/setup/quiet-runtime.ts'],
    testTimeout: 90_000,
    hookTimeout: 180_000,
    pool: 'forks',
    // Three files at once on a quiet 2-core machine: most integration files spend much of their
    // time waiting (for a dev server, a time-out, a worker process starting), and a third file
    // fills that. On a machine already busy with other work, two: three then starved the tests
    // that race a clock (the crash test's kill, a 120 s hook), as measured (bench/RESULTS.md).
    // `--maxWorkers=N` decides instead.
    maxWorkers: os.loadavg()[0] > 1 ? 2 : 3,
    // The longest files first (LongestFirst above).
    sequence: { sequencer: LongestFirst },
    // Tests print only failures: a passing test's console output (worker logs, progress lines)
    // is dropped, a failing one's is shown with it; the dot reporter lists failures, not files,
    // and the progress reporter says how far the run is every 20 seconds.
    silent: 'passed-only',
    reporters: ['dot', './test/setup/progress-reporter.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          exclude: ['test/unit/**'],
          globalSetup: ['test/setup/temp-root.ts', 'test/setup/global.ts'],
        },
      },
      {
        // The fast layer, as `npm run test:unit` runs it (vitest.unit.config.mts): its files share
        // their workers' loaded modules instead of loading zod, the SDK and the flows again for
        // each of the sixty files, and need no Temporal server.
        extends: true,
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          isolate: false,
          globalSetup: ['test/setup/temp-root.ts', 'test/setup/embedding-model.ts'],
        },
      },
    ],
  },
});
