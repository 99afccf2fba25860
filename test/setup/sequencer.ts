/**
 * The order test files start in: the longest first, so that the last minutes of a run are not
 * one long file running alone while the other worker idles. A file's length is vitest's own
 * record of its last run when there is one (node_modules/.vite, so only on a machine that has
 * run the suite), else the figure in file-seconds.json (measured on a quiet 2-core machine;
 * files not listed there take a few seconds). Files that failed last time still go first.
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const MEASURED: Record<string, number> = JSON.parse(
  readFileSync(path.join(import.meta.dirname, 'file-seconds.json'), 'utf8'),
).seconds;

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
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
