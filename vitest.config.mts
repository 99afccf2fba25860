import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/setup/global.ts'],
    // The SDK's log lines through console, so the rule below applies to them too.
    setupFiles: ['test/setup/quiet-runtime.ts'],
    // Tests start workers, dev-server workflows and HTTP fakes: give them room on 2 cores.
    testTimeout: 90_000,
    hookTimeout: 180_000,
    pool: 'forks',
    maxWorkers: 2,
    // Tests print only failures: a passing test's console output (worker logs, progress lines)
    // is dropped, a failing one's is shown with it; the dot reporter lists failures, not files,
    // and the progress reporter says how far the run is every 20 seconds.
    silent: 'passed-only',
    reporters: ['dot', './test/setup/progress-reporter.ts'],
  },
});
