import { defineConfig } from 'vitest/config';
import LongestFirst from './test/setup/sequencer';

export default defineConfig({
  test: {
    // The SDK's log lines through console, so the rule below applies to them too.
    setupFiles: ['test/setup/quiet-runtime.ts'],
    testTimeout: 90_000,
    hookTimeout: 180_000,
    pool: 'forks',
    // Three files at once on 2 cores: most integration files spend much of their time waiting
    // (for a dev server, a time-out, a worker process starting), and a third file fills that.
    // (`--maxWorkers=2` on a machine busy with other work.)
    maxWorkers: 3,
    // The longest files first (test/setup/sequencer.ts).
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
          globalSetup: ['test/setup/global.ts'],
        },
      },
      {
        // The fast layer, as `npm run test:unit` runs it (vitest.unit.config.mts): its files share
        // their workers' loaded modules instead of loading zod, the SDK and the flows again for
        // each of the sixty files, and need no Temporal server.
        extends: true,
        test: { name: 'unit', include: ['test/unit/**/*.test.ts'], isolate: false },
      },
    ],
  },
});
