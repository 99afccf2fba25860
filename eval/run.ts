/**
 * `npm run eval`: every flow's evaluation sets on the offline stack, one table of figures per set
 * against their targets; exits non-zero when any figure misses its target.
 *
 *   npm run eval                    # all suites, development and sealed sets, two tables
 *   npm run eval -- --set dev       # the development sets only (eval/<flow>/)
 *   npm run eval -- --set sealed    # the sealed sets only (eval/sealed/<flow>/)
 *   npm run eval -- bom eads        # some suites
 *   npm run eval -- --quick         # the small development subset `npm test` runs
 *
 * The sealed sets' per-case results are written to out/eval/sealed/ but never printed, unless
 * `--show-sealed-cases`: whoever changes the rules must not see them (eval/sealed/README.md).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startOfflineStack } from '../workers/offline-stack';
import {
  EVAL_SETS,
  meetsTarget,
  ODOO_SCHEMA,
  sealedDir,
  type EvalReport,
  type EvalSchema,
  type EvalSet,
  type EvalSuite,
} from './types';

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

export interface EvalArgs {
  sets: EvalSet[];
  quick: boolean;
  showSealedCases: boolean;
  names: string[];
  schema: EvalSchema;
}

/** `--set dev|sealed|both` (default both; `--quick` alone means the development smoke subset). */
export function parseArgs(args: string[]): EvalArgs {
  const quick = args.includes('--quick');
  const showSealedCases = args.includes('--show-sealed-cases');
  const names: string[] = [];
  let set: string | undefined;
  let schema: string = 'demo';
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--schema') schema = args[++i];
    else if (a.startsWith('--schema=')) schema = a.slice('--schema='.length);
    else if (a === '--set') set = args[++i];
    else if (a.startsWith('--set=')) set = a.slice('--set='.length);
    else if (!a.startsWith('--')) names.push(a);
  }
  let sets: EvalSet[];
  if (set === undefined) sets = quick ? ['dev'] : [...EVAL_SETS];
  else if (set === 'both' || set === 'all') sets = [...EVAL_SETS];
  else if ((EVAL_SETS as readonly string[]).includes(set)) sets = [set as EvalSet];
  else throw new Error(`--set must be dev, sealed or both (got ${JSON.stringify(set ?? '')})`);
  // The sealed sets have no smoke subset: CI never depends on them.
  if (quick && sets.includes('sealed')) throw new Error('--quick runs the development sets only; drop --set sealed');
  if (schema !== 'demo' && schema !== 'odoo')
    throw new Error(`--schema must be demo or odoo (got ${JSON.stringify(schema)})`);
  return { sets, quick, showSealedCases, names, schema };
}

const SET_TITLE: Record<EvalSet, string> = {
  dev: 'development sets (eval/<flow>/: readable while changing the rules)',
  sealed: 'sealed sets (eval/sealed/<flow>/: never read while changing the rules)',
};

function commitOf(): string | null {
  try {
    const rev = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: __dirname, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], {
      cwd: __dirname,
      encoding: 'utf8',
    }).trim();
    return dirty ? `${rev}+changes` : rev;
  } catch {
    return null;
  }
}

async function main(): Promise<number> {
  const { sets, quick, showSealedCases, names, schema } = parseArgs(process.argv.slice(2));
  if (schema === 'odoo') {
    // The worker reads the BOM tables through the mapping alone; nothing else changes.
    process.env.BOM_DATASET = ODOO_SCHEMA.dataset;
    process.env.BOM_SCHEMA_MAPPING = ODOO_SCHEMA.mapping;
  }
  const outDir = path.resolve(__dirname, '..', process.env.ARTIFACT_DIR ?? 'out', 'eval');
  mkdirSync(outDir, { recursive: true });
  const suites = await loadSuites(names);
  if (suites.length === 0) {
    console.error(`[eval] no suite matches ${names.join(', ')}`);
    return 2;
  }
  if (sets.includes('sealed')) {
    // The sealed firms load by id like the bundled ones (the offline stack adds eval/eads/firms).
    const firms = path.join(sealedDir('eads'), 'firms');
    process.env.EADS_FIXTURES_DIR = [process.env.EADS_FIXTURES_DIR ?? 'data/eads-fixtures', firms].join(path.delimiter);
  }
  const bySet = new Map<EvalSet, { suite: string; report: EvalReport }[]>();
  for (const set of sets) {
    const setDir = set === 'sealed' ? path.join(outDir, 'sealed') : outDir;
    mkdirSync(setDir, { recursive: true });
    // A stack per set, writing its artifacts (the proposals' PDFs) under the set's own folder: a
    // sealed case's PDF beside the development ones would be read by whoever browses them.
    const stack = await startOfflineStack({ artifactDir: setDir, quiet: true });
    try {
      const reports: { suite: string; report: EvalReport }[] = [];
      for (const suite of suites) {
        const t0 = performance.now();
        const report = await suite.run(stack, { quick, outDir: setDir, set, schema });
        reports.push({ suite: suite.name, report });
        console.error(`[eval] ${set} ${suite.name}: ${((performance.now() - t0) / 1000).toFixed(1)} s`);
      }
      bySet.set(set, reports);
    } finally {
      await stack.close();
    }
  }
  const commit = commitOf();
  const at = new Date().toISOString();
  for (const [set, measured] of bySet) {
    console.log(`\n## ${SET_TITLE[set]}\n`);
    // A flow with no case in this set (a sealed set spent and its successor not yet installed) has
    // no figures: a row of zeros would read as a flow that failed every case.
    const empty = measured.filter(({ report }) => report.metrics.every((m) => m.cases === 0)).map((r) => r.suite);
    const reports = measured.filter(({ suite }) => !empty.includes(suite));
    if (empty.length) console.log(`  No cases in this set for: ${empty.join(', ')}.\n`);
    if (reports.length) console.log(formatTable(reports));
    const failures = reports.flatMap(({ suite, report }) => report.failures.map((f) => ({ suite, ...f })));
    if (set === 'dev' || showSealedCases) {
      for (const f of failures) console.log(`  ${f.suite} ${f.id}: ${f.why}`);
    } else if (failures.length) {
      console.log(
        `\n  ${failures.length} sealed case(s) missed; their details are in ${path.relative(process.cwd(), path.join(outDir, 'sealed'))}/` +
          ' and are not printed: once read while fixing, a case is a development case.',
      );
    }
    // Figures only; the sealed set's per-case failures stay in out/eval/sealed/.
    const figures = reports.map(({ suite, report }) => ({ suite, metrics: report.metrics }));
    writeFileSync(
      path.join(outDir, `eval-report-${set}.json`),
      `${JSON.stringify({ set, at, commit, quick, suites: figures }, null, 2)}\n`,
    );
    const casesFile = path.join(set === 'sealed' ? path.join(outDir, 'sealed') : outDir, 'failures.json');
    writeFileSync(casesFile, `${JSON.stringify(failures, null, 2)}\n`);
  }
  const dev = bySet.get('dev');
  if (dev) writeFileSync(path.join(outDir, 'eval-report.json'), `${JSON.stringify(dev, null, 2)}\n`);
  const missed = [...bySet.values()].flat().flatMap((r) => r.report.metrics.filter((m) => !meetsTarget(m)));
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
