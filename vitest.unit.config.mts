import { defineConfig } from 'vitest/config';

// The fast layer (`npm run test:unit`): workflow state classes, activities with fake backends in
// the SDK's MockActivityEnvironment, and pure code. No global setup: nothing here needs a Temporal
// server (the full suite runs these files too).
export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts'],
    testTimeout: 10_000,
    silent: 'passed-only',
    reporters: ['dot'],
  },
});
