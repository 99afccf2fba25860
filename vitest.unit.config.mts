import { defineConfig } from 'vitest/config';

// The fast layer (`npm run test:unit`): activities and pure code with fake backends, run in the
// SDK's MockActivityEnvironment. No global setup: nothing here needs a Temporal server.
export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts'],
    testTimeout: 10_000,
    silent: 'passed-only',
    reporters: ['dot'],
  },
});
