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

/**
 * TEST_FILE_ORDER_SEED=<number> starts the files in an order shuffled by that seed instead, so that
 * which files meet in a shared test process changes from run to run, reproducibly. (vitest's own
 * `--sequence.shuffle` shuffles the tests inside each file here, not the files: this sequencer
 * decides their order.)
 */
function shuffled<T>(items: T[], seed: number): T[] {
  const out = [...items];
  let state = seed >>> 0;
  const random = () => {
    // mulberry32
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const seed = process.env.TEST_FILE_ORDER_SEED;
    const key = (spec: TestSpecification) => `${spec.project.name}:${spec.moduleId}`;
    if (seed)
      return shuffled(
        [...files].sort((a, b) => key(a).localeCompare(key(b))),
        Number(seed),
      );
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

/**
 * Integration files that run in a process of their own, not in one later files reuse; each says
 * why. Every other integration file shares its test process with the files after it and must
 * leave it as it found it: test/setup/leak-guard.ts fails the file that does not.
 */
const OWN_PROCESS = [
  // Starts the offline stack, which installs the Temporal SDK runtime with its own settings (its
  // metrics endpoint) whenever the process has none at that moment, and sets BOM_DATASET and
  // BOM_SCHEMA_MAPPING while the stack starts.
  'test/eval.test.ts',
  // Registers API keys with the process-wide log redaction, which has no way to forget them, and
  // replaces the SDK runtime's logger and console with spies.
  'test/secrets-redaction.test.ts',
  // Registers a global OpenTelemetry tracer provider (by design, once per process).
  'test/tracing.test.ts',
  // Race a clock against real worker processes (kills at seeded points, time-outs, slot counts):
  // a neighbour's leftovers in the process would change what they measure.
  'test/faults-crash.test.ts',
  'test/worker-crash.test.ts',
  'test/solver-fairness.test.ts',
  // Loads a local language model: its memory would stay with the files after it.
  'test/openai-local-model.test.ts',
];

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
        // Integration files whose processes later files reuse (`isolate: false`): zod, the SDK,
        // the flows, the stand-in, DuckDB and the embedding model are loaded once per test worker
        // instead of once per file. A file here closes what it starts (harness, servers,
        // processes, timers) and leaves no process-wide state behind; the leak guard checks that
        // at the end of each file and fails the file that does not, whichever files it meets.
        extends: true,
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          exclude: ['test/unit/**', ...OWN_PROCESS],
          isolate: false,
          // After quiet-runtime.ts (the setting above; projects add to it).
          setupFiles: ['test/setup/leak-guard.ts'],
          globalSetup: ['test/setup/temp-root.ts', 'test/setup/global.ts'],
        },
      },
      {
        // The integration files that need a process of their own (OWN_PROCESS above), on the
        // same dev server and bundle (test/setup/global.ts starts them once for both projects).
        extends: true,
        test: {
          name: 'integration-own-process',
          include: OWN_PROCESS,
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
