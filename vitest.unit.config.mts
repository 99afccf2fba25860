import { defineConfig } from 'vitest/config';

// Unit tests of workflow state classes and pure code: no Temporal server, no worker, no bundle.
// `npx vitest run --config vitest.unit.config.mts` (the full suite runs them too, with the server).
export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts'],
    reporters: ['dot'],
  },
});
