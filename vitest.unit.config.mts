import os from 'node:os';
import path from 'node:path';
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
    experimental: {
      // Each run turned the same few hundred TypeScript files into JavaScript again: about 2 s of
      // the main process's CPU, on the cores the two workers need, and workers waited for it. The
      // result is kept on disk under a key of the file's own text and the config (and dropped
      // when package-lock.json changes), so an edited file is transformed again and the others are
      // read back. In out/, which git, Docker, ESLint and Prettier leave alone; and not in
      // node_modules (vitest's default), which a worktree may share with others. Entries for
      // old versions of a file stay until the folder is deleted (`npx vitest --clearCache`).
      fsModuleCache: true,
      fsModuleCachePath: path.join(import.meta.dirname, 'out', '.vitest-cache'),
    },
  },
});
