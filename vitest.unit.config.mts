import { defineConfig } from 'vitest/config';

// The fast layer (`npm run test:unit`): workflow state classes, activities with fake backends in
// the SDK's MockActivityEnvironment, the registry and layer guards, and pure code. No global
// setup: nothing here needs a Temporal server (the full suite runs these files too).
export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts'],
    testTimeout: 10_000,
    // Files share their workers' loaded modules instead of loading zod, the SDK, TypeScript and
    // the flows again for each file: less than half the CPU time. So a file here leaves no global
    // state behind (environment variables, registered secrets, embedders are restored after
    // use); the full suite runs them the same way (its `unit` project).
    isolate: false,
    silent: 'passed-only',
    reporters: ['dot'],
  },
});
