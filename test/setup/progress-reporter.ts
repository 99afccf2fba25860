/**
 * A line of progress a person can read while the suite runs (the dot reporter prints only
 * dots): files done of the total, failures so far and the time taken, at most every 20 seconds
 * and at once when a file fails, naming it. The failures themselves are the dot reporter's.
 */
import type { Reporter, TestModule, TestSpecification } from 'vitest/node';

const EVERY_MS = 20_000;

export default class ProgressReporter implements Reporter {
  private total = 0;
  private done = 0;
  private failed = 0;
  private started = Date.now();
  private lastPrint = 0;

  onTestRunStart(specifications: ReadonlyArray<TestSpecification>): void {
    this.total = specifications.length;
    this.started = this.lastPrint = Date.now();
  }

  onTestModuleEnd(module: TestModule): void {
    this.done++;
    const failed = module.state() === 'failed';
    if (failed) this.failed++;
    const now = Date.now();
    if (!failed && now - this.lastPrint < EVERY_MS) return;
    this.lastPrint = now;
    const elapsed = Math.round((now - this.started) / 1000);
    const clock = `${Math.floor(elapsed / 60)}:${String(elapsed % 60).padStart(2, '0')}`;
    const failures = this.failed ? `, ${this.failed} failed` : '';
    const what = failed ? ` (failed: ${module.moduleId.replace(`${process.cwd()}/`, '')})` : '';
    process.stdout.write(`\n[${this.done}/${this.total} files${failures}, ${clock}]${what}\n`);
  }
}
