/**
 * `npm run eval`: every flow's held-out evaluation set on the offline stack, one table of figures
 * against their targets; exits non-zero when any figure misses its target.
 *
 *   npm run eval                 # all suites
 *   npm run eval -- bom eads     # some suites
 *   npm run eval -- --quick      # the small subset `npm test` runs
 */
import { mkdirSync, readdirSync, existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startOfflineStack } from '../workers/offline-stack';
import { meetsTarget, type EvalReport, type EvalSuite } from './types';

export async function loadSuites(names: string[] = []): Promise<EvalSuite[]> {
  const dirs = readdirSync(__dirname, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(path.join(__dirname, d.name, 'index.ts')))
    .map((d) => d.name)
    .filter((name) => names.length === 0 || names.includes(name))
    .sort();
  const suites: EvalSuite[] = [];
  for (const dir of dirs)
    suites.push(((await import(/* @vite-ignore */ `./${dir}/index`)) as { default: EvalSuite }).default);
  return suites;
}

export function formatTable(reports: { suite: string; report: EvalReport }[]): string {
  const rows = [['flow', 'metric', 'value', 'target', 'cases', 'ok']];
  for (const { suite, report } of reports) {
    for (const m of report.metrics) {
      rows.push([
        suite,
        m.metric,
        m.value.toFixed(3),
        `${m.higherIsBetter === false ? '≤' : '≥'} ${m.target}`,
        String(m.cases),
        meetsTarget(m) ? 'yes' : 'NO',
      ]);
    }
  }
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  const line = (r: string[]) => `| ${r.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  return [line(rows[0]), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.slice(1).map(line)].join('\n');
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const quick = args.includes('--quick');
  const names = args.filter((a) => !a.startsWith('--'));
  const outDir = path.resolve(__dirname, '..', process.env.ARTIFACT_DIR ?? 'out', 'eval');
  mkdirSync(outDir, { recursive: true });
  const suites = await loadSuites(names);
  if (suites.length === 0) {
    console.error(`[eval] no suite matches ${names.join(', ')}`);
    return 2;
  }
  const stack = await startOfflineStack({ artifactDir: outDir, quiet: true });
  const reports: { suite: string; report: EvalReport }[] = [];
  try {
    await (async () => {
      for (const suite of suites) {
        const t0 = performance.now();
        const report = await suite.run(stack, { quick, outDir });
        reports.push({ suite: suite.name, report });
        console.error(`[eval] ${suite.name}: ${((performance.now() - t0) / 1000).toFixed(1)} s`);
      }
    })();
  } finally {
    await stack.close();
  }
  console.log(formatTable(reports));
  for (const { suite, report } of reports) {
    for (const f of report.failures) console.log(`  ${suite} ${f.id}: ${f.why}`);
  }
  writeFileSync(path.join(outDir, 'eval-report.json'), `${JSON.stringify(reports, null, 2)}\n`);
  const missed = reports.flatMap((r) => r.report.metrics).filter((m) => !meetsTarget(m));
  return missed.length === 0 ? 0 : 1;
}

if (require.main === module) {
  main().then(
    (code) => process.exit(code),
    (err) => {
      console.error(`[eval] ${err instanceof Error ? err.stack : String(err)}`);
      process.exit(1);
    },
  );
}
