import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { defineConfig } from 'vitest/config';

/**
 * What a cached module also depends on besides its own text: the compiler settings, and which
 * source files exist (a cached module holds its imports already resolved to files, so a file
 * added beside, moved or deleted must not be answered from the cache). Any change to either
 * transforms everything once more.
 */
function sourceTreeKey(root: string): string {
  const hash = createHash('sha256').update(readFileSync(path.join(root, 'tsconfig.json')));
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (entry.name.startsWith('.') || entry.name === 'node_modules' || entry.name === 'out') continue;
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(file);
      else if (/\.(?:m?ts|m?js|json)$/.test(entry.name)) hash.update(`${path.relative(root, file)}\n`);
    }
  };
  walk(root);
  return hash.digest('hex');
}

// The fast layer (`npm run test:unit`): workflow state classes, activities with fake backends in
// the SDK's MockActivityEnvironment, the registry and layer guards, and pure code. Nothing here
// needs a Temporal server; the set-up only makes sure the embedding model is installed (the full
// suite runs these files too).
const TREE_KEY = sourceTreeKey(import.meta.dirname);

export default defineConfig({
  plugins: [
    {
      name: 'module-cache-key',
      configureVitest({ experimental_defineCacheKeyGenerator }) {
        experimental_defineCacheKeyGenerator(() => TREE_KEY);
      },
    },
  ],
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
      // result is kept on disk under a key of the file's own text, the config, the lockfile and
      // `sourceTreeKey` (tsconfig.json and the list of source files), so an edited file is
      // transformed again and the others are read back. In out/, which git, Docker, ESLint and
      // Prettier leave alone; and not in node_modules (vitest's default), which a worktree may
      // share with others. Old entries stay until the folder is deleted (`rm -rf out/.vitest-cache`,
      // or `npx vitest --config vitest.unit.config.mts --clearCache`). `npm test` does not use it.
      fsModuleCache: true,
      fsModuleCachePath: path.join(import.meta.dirname, 'out', '.vitest-cache'),
    },
  },
});
