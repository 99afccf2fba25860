/**
 * The supported Node.js versions, said the same way everywhere: package.json's engines, the CI
 * matrix (which runs the README's test line), and no installed package that needs a newer Node.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const ROOT = path.resolve(__dirname, '..', '..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');
const SUPPORTED = ['20', '22', '24'];
/**
 * The oldest release of each supported line the project promises to run on: the test toolchain
 * (vitest's bundler) needs 20.19 / 22.13, so that is the honest floor.
 */
const OLDEST = ['20.19.0', '22.13.0', '24.0.0'];

interface Step {
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
}

describe('CI and supported Node.js versions', () => {
  const ci = parse(read('.github/workflows/ci.yml')) as {
    jobs: Record<string, { strategy?: { matrix?: Record<string, unknown> }; steps: Step[] }>;
  };
  const jobs = Object.values(ci.jobs);

  it('ci.yml runs on Node 20, 22 and 24 with Python 3 set up', () => {
    expect(jobs).toHaveLength(1);
    const [job] = jobs;
    expect((job.strategy?.matrix?.['node-version'] as unknown[]).map(String)).toEqual(SUPPORTED);
    const setupNode = job.steps.find((s) => s.uses?.startsWith('actions/setup-node@'));
    expect(setupNode?.with?.['node-version']).toBe('${{ matrix.node-version }}');
    const setupPython = job.steps.find((s) => s.uses?.startsWith('actions/setup-python@'));
    expect(String(setupPython?.with?.['python-version'])).toMatch(/^3(\.\d+)?$/);
    expect(job.steps[0].uses).toMatch(/^actions\/checkout@/);
  });

  it("its only run step is the README's test line, which .ci/run runs too", () => {
    const quickStart = /## Quick start\s+```bash\n([\s\S]*?)```/.exec(read('README.md'))![1].trim().split('\n');
    const testLine = quickStart.find((l) => l.endsWith('npm test'));
    expect(testLine).toBe('npm install && npm test');
    expect(jobs[0].steps.filter((s) => s.run).map((s) => s.run!.trim())).toEqual([testLine]);
    expect(
      read('.ci/run')
        .split('\n')
        .map((l) => l.trim()),
    ).toContain(testLine);
  });

  it('package.json engines say the same versions', () => {
    const range = (JSON.parse(read('package.json')) as { engines: { node: string } }).engines.node;
    for (const version of OLDEST) expect(semver.satisfies(version, range), `${version} in ${range}`).toBe(true);
    for (const version of ['18.20.0', '20.3.0', '21.7.0', '22.12.0', '23.0.0', '25.0.0'])
      expect(semver.satisfies(version, range), `${version} in ${range}`).toBe(false);
  });

  it('no locked package needs a Node.js newer than the oldest supported one (npm warns EBADENGINE)', () => {
    const lock = JSON.parse(read('package-lock.json')) as {
      packages: Record<string, { engines?: { node?: string } | string[]; dev?: boolean; optional?: boolean }>;
    };
    const unmet = Object.entries(lock.packages).flatMap(([name, pkg]) => {
      const wanted = pkg.engines && !Array.isArray(pkg.engines) ? pkg.engines.node : undefined;
      if (!name || !wanted) return [];
      return OLDEST.filter((v) => !semver.satisfies(v, wanted)).map(
        (v) => `${name.replace(/^.*node_modules\//, '')} needs node ${wanted} (not ${v})`,
      );
    });
    expect(unmet).toEqual([]);
  });
});
