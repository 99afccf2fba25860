/**
 * A line of progress a person can read while the suite runs (the dot reporter prints only
 * dots): files done of the total, failures so far and the time taken, at most every 20 seconds
 * and at once when a file fails, naming it. The failures themselves are the dot reporter's.
 *
 * At the end, where the time went: how long the run waited before its first file (the global
 * set-up: dev server, bundle, solver) and the slowest files, each with its start-up (process,
 * set-up file, imports) and its tests and hooks. With SUITE_TIMINGS=<file> every file's figures
 * are written there as JSON, to compare runs.
 */
import { writeFileSync } from 'node:fs';
import type { Reporter, TestModule, TestSpecification } from 'vitest/node';

const EVERY_MS = 20_000;
const SLOWEST = 10;

interface FileTiming {
  file: string;
  /** Process, environment, set-up file and imports before the first hook runs, in seconds. */
  startup: number;
  /** Tests and hooks, in seconds. */
  tests: number;
  total: number;
}

const seconds = (ms: number) => Math.round(ms / 100) / 10;
const clock = (ms: number) => {
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
};

export default class ProgressReporter implements Reporter {
  private total = 0;
  private done = 0;
  private failed = 0;
  private started = Date.now();
  private firstFileAt: number | undefined;
  private lastPrint = 0;
  private readonly timings: FileTiming[] = [];

  onTestRunStart(specifications: ReadonlyArray<TestSpecification>): void {
    this.total = specifications.length;
    this.started = this.lastPrint = Date.now();
  }

  onTestModuleStart(): void {
    this.firstFileAt ??= Date.now();
  }

  onTestModuleEnd(module: TestModule): void {
    this.done++;
    const failed = module.state() === 'failed';
    if (failed) this.failed++;
    const d = module.diagnostic();
    const startup = d.prepareDuration + d.environmentSetupDuration + d.setupDuration + d.collectDuration;
    this.timings.push({
      file: module.moduleId.replace(`${process.cwd()}/`, ''),
      startup: seconds(startup),
      tests: seconds(d.duration),
      total: seconds(startup + d.duration),
    });
    const now = Date.now();
    if (!failed && now - this.lastPrint < EVERY_MS) return;
    this.lastPrint = now;
    const failures = this.failed ? `, ${this.failed} failed` : '';
    const what = failed ? ` (failed: ${module.moduleId.replace(`${process.cwd()}/`, '')})` : '';
    process.stdout.write(`\n[${this.done}/${this.total} files${failures}, ${clock(now - this.started)}]${what}\n`);
  }

  onTestRunEnd(): void {
    if (this.timings.length === 0) return;
    const wall = Date.now() - this.started;
    const slowest = [...this.timings].sort((a, b) => b.total - a.total);
    const width = Math.max(...slowest.slice(0, SLOWEST).map((t) => t.file.length));
    const lines = slowest
      .slice(0, SLOWEST)
      .map(
        (t) => `  ${t.file.padEnd(width)}  ${t.total.toFixed(1).padStart(6)} s (start-up ${t.startup.toFixed(1)} s)`,
      );
    const setup =
      this.firstFileAt === undefined ? '' : `, ${clock(this.firstFileAt - this.started)} before the first file`;
    process.stdout.write(`\n[${this.done} files in ${clock(wall)}${setup}; the slowest:]\n${lines.join('\n')}\n`);
    const out = process.env.SUITE_TIMINGS;
    if (out) {
      const setupSeconds = this.firstFileAt === undefined ? null : seconds(this.firstFileAt - this.started);
      writeFileSync(out, JSON.stringify({ wallSeconds: seconds(wall), setupSeconds, files: slowest }, null, 2));
    }
  }
}
