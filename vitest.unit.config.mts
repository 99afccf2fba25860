import os from 'node:os';
import { defineConfig } from 'vitest/config';

// The fast layer (`npm run test:unit`): workflow state classes, activities with fake backends in
// the SDK's MockActivityEnvironment, the registry and layer guards, and pure code. Nothing here
// needs a Temporal server; the set-up only makes sure the embedding model is installed (the full
// suite runs these files too).
export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts'],
    globalSetup: ['test/setup/temp-root.ts', 'test/setup/embedding-model.ts'],
    testTimeout: 10_000,
    // Files share their workers' loaded modules instead of loading zod, the SDK, TypeScript and
    // the flows again for each file: less than half the CPU time. So a file here leaves no global
    // state behind (environment variables, registered secrets, embedders are restored after
    // use); the full suite runs them the same way (its `unit` project).
    isolate: false,
    // One worker per core. vitest's default leaves one core free (one worker on a 2-core
    // machine), and then every file ran after the other while the second core idled. These
    // files need no server and share no port or file, and the full suite already runs them
    // side by side.
    maxWorkers: os.availableParallelism(),
    silent: 'passed-only',
    reporters: ['dot'],
  },
});
