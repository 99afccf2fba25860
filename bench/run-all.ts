/**
 * `npm run bench`: every headline benchmark, one after another on this machine, and one table of
 * their figures against the targets. Each bench runs in its own process (its own dev server and
 * memory figures); its full report goes to out/bench/<name>.log and its figures come back on its
 * BENCH_SUMMARY line. The table is also written to out/bench/summary.md.
 *
 *   npm run bench              # the figures bench/RESULTS.md quotes (~20 min on 2 cores)
 *   npm run bench -- --quick   # smaller runs, for a first look (~5 min)
 *
 * Benchmarks never gate tests: the table says "met" or "NOT met", the exit code says only whether
 * every bench ran.
 */
import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { SUMMARY_PREFIX, type Figures } from './summary';

const ROOT = path.resolve(__dirname, '..');
const OUT = path.join(ROOT, 'out', 'bench');
const { values: args } = parseArgs({ options: { quick: { type: 'boolean', default: false } } });

interface Run {
  name: string;
  script: string;
  args: string[];
  nodeFlags?: string[];
}

/** Each bench with its arguments for the full run and for --quick. */
const BENCHES: Array<Omit<Run, 'args'> & { full: string[]; quick?: string[] }> = [
  { name: 'activity-overhead', script: 'activity-overhead.ts', full: ['10,50,200', '3'], quick: ['50', '2'] },
  {
    name: 'workflow-cache-memory',
    script: 'workflow-cache-memory.ts',
    full: ['100', '2'],
    quick: ['50', '1'],
    nodeFlags: ['--expose-gc'],
  },
  { name: 'discovery-200ms', script: 'discovery.ts', full: ['200', '5', '80'], quick: ['200', '1', '80'] },
  { name: 'discovery-1000ms', script: 'discovery.ts', full: ['1000', '5', '80'] },
  { name: 'bom', script: 'bom.ts', full: [], quick: [] },
  { name: 'load', script: 'load.ts', full: ['--flows', '200'], quick: ['--flows', '50'] },
  { name: 'control-plane', script: 'control-plane.ts', full: ['10', '10'], quick: ['5', '10'] },
  // 10,000 open interviews is `npx tsx bench/open-interviews.ts` alone (~20 min): here a thousand.
  {
    name: 'open-interviews',
    script: 'open-interviews.ts',
    full: ['--runs', '1000', '--single', '50'],
    quick: ['--runs', '200', '--single', '20'],
  },
];
const RUNS: Run[] = BENCHES.filter((b) => !args.quick || b.quick).map(({ full, quick, ...run }) => ({
  ...run,
  args: args.quick ? quick! : full,
}));

/** Runs one bench; resolves with its summary lines (empty when it printed none) and exit code. */
function runBench(run: Run): Promise<{ summaries: Figures[]; code: number | null; seconds: number }> {
  const log = createWriteStream(path.join(OUT, `${run.name}.log`));
  const started = Date.now();
  const child = spawn(
    process.execPath,
    [...(run.nodeFlags ?? []), '--import', 'tsx', path.join(__dirname, run.script), ...run.args],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const summaries: Figures[] = [];
  let pending = '';
  child.stdout.on('data', (chunk: Buffer) => {
    log.write(chunk);
    pending += chunk.toString('utf8');
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines)
      if (line.startsWith(SUMMARY_PREFIX)) summaries.push(JSON.parse(line.slice(SUMMARY_PREFIX.length)) as Figures);
  });
  child.stderr.on('data', (chunk: Buffer) => log.write(chunk));
  return new Promise((resolve) =>
    child.on('close', (code) => {
      log.end();
      resolve({ summaries, code, seconds: (Date.now() - started) / 1000 });
    }),
  );
}

const num = (value: unknown, digits = 0) => (typeof value === 'number' ? value.toFixed(digits) : '–');
const verdict = (ok: boolean | undefined) => (ok === undefined ? '–' : ok ? 'met' : 'NOT met');

/** The table rows: measure, figure, target, met. */
function rows(results: Map<string, Figures[]>): string[][] {
  const one = (name: string) => results.get(name)?.[0];
  const out: string[][] = [];
  const overhead = one('activity-overhead');
  if (overhead)
    out.push([
      `per activity, ${overhead.n} sequential`,
      `project ${num(overhead.projectMs, 1)} ms, bare SDK ${num(overhead.bareMs, 1)} ms, ratio ${num(overhead.ratio, 2)}`,
      '≤ 10 ms, ratio ≤ 1.1',
      verdict(Number(overhead.projectMs) <= 10 && Number(overhead.ratio) <= 1.1),
    ]);
  const memory = one('workflow-cache-memory');
  if (memory)
    out.push([
      'memory per cached workflow',
      // A difference of two RSS readings: below zero means smaller than their noise, not negative memory.
      `${Number(memory.projectMb) < 0 ? `< 0.1 MB (measured ${num(memory.projectMb, 2)}: below the RSS noise)` : `${num(memory.projectMb, 2)} MB`} (contracts per workflow: ${num(memory.unsharedMb, 2)} MB; bare: ${num(memory.bareMb, 2)} MB)`,
      '≤ 1 MB',
      verdict(Number(memory.projectMb) <= 1),
    ]);
  for (const name of ['discovery-200ms', 'discovery-1000ms']) {
    const discovery = one(name);
    if (discovery)
      out.push([
        `discovery wall / critical path, ${discovery.latencyMs} ms model`,
        `${num(discovery.ratio, 2)} (${num(discovery.wallMs)} / ${num(discovery.criticalMs)} ms)`,
        '≤ 1.15',
        verdict(Number(discovery.ratio) <= 1.15),
      ]);
  }
  const bom = one('bom');
  if (bom)
    out.push([
      `BOM questions, ${bom.concurrency} at once`,
      `${num(bom.questionsPerMin)} questions/min, p95 ${num(Number(bom.p95Ms) / 1000, 1)} s`,
      '–',
      '–',
    ]);
  const load = one('load');
  if (load)
    out.push([
      `${load.flows} mixed flows at once`,
      `${load.completed}/${load.flows} done, ${num(load.flowsPerMin)} flows/min, p95 ${num(load.p95S, 1)} s, worker RSS peak ${num(load.workerRssPeakMb)} MB`,
      'worker RSS < 500 MB',
      verdict(Number(load.workerRssPeakMb) < 500 && load.completed === load.flows),
    ]);
  for (const plane of results.get('control-plane') ?? [])
    out.push([
      `control plane, ${plane.mode}`,
      `${num(plane.rps)} req/s, p95 ${num(plane.p95Ms, 2)} ms, RSS peak ${num(plane.rssPeakMb)} MB`,
      '≥ 2,000 req/s, p95 < 10 ms, RSS < 100 MB',
      verdict(Number(plane.rps) >= 2000 && Number(plane.p95Ms) < 10 && Number(plane.rssPeakMb) < 100),
    ]);
  const interviews = one('open-interviews');
  if (interviews) {
    out.push([
      `${interviews.runs} open interviews (+ as many bare SDK ones): answer → next question`,
      `p50/p95/p99 ${num(interviews.oursP50Ms)}/${num(interviews.oursP95Ms)}/${num(interviews.oursP99Ms)} ms, bare p95 ${num(interviews.bareP95Ms)} ms, ratio ${num(interviews.ratio, 2)}; worker RSS ${num(interviews.workerRssOpenMb)} MB; lost ${interviews.lost}, duplicated ${interviews.duplicated}; resumed ${num(interviews.resumeMs)} ms after a worker kill`,
      'p95 ≤ 2 × bare, RSS < 600 MB, none lost or duplicated',
      verdict(
        Number(interviews.ratio) <= 2 &&
          Number(interviews.workerRssOpenMb) < 600 &&
          interviews.lost === 0 &&
          interviews.duplicated === 0,
      ),
    ]);
    out.push([
      'one person: answer → next question (terminal, console; slower of the two flows)',
      `p95 ${num(interviews.onePersonTerminalP95Ms)} ms, ${num(interviews.onePersonConsoleP95Ms)} ms`,
      'p95 ≤ 150 ms',
      verdict(Number(interviews.onePersonTerminalP95Ms) <= 150 && Number(interviews.onePersonConsoleP95Ms) <= 150),
    ]);
  }
  return out;
}

async function main() {
  mkdirSync(OUT, { recursive: true });
  const results = new Map<string, Figures[]>();
  const failed: string[] = [];
  for (const run of RUNS) {
    process.stdout.write(`${run.name} … `);
    const { summaries, code, seconds } = await runBench(run);
    console.log(`${code === 0 ? 'done' : `FAILED (exit ${code})`} in ${seconds.toFixed(0)} s`);
    if (code !== 0 || !summaries.length) failed.push(run.name);
    results.set(run.name, summaries);
  }
  const header = ['measure', 'figure', 'target', ''];
  const table = [header, header.map(() => '---'), ...rows(results)].map((r) => `| ${r.join(' | ')} |`);
  const context = `${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} cores, load average ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}, node ${process.version}${args.quick ? ', --quick' : ''}`;
  const text = [`npm run bench — ${context}`, '', ...table].join('\n');
  console.log(`\n${text}`);
  writeFileSync(path.join(OUT, 'summary.md'), `${text}\n`);
  if (failed.length) console.log(`\nfailed: ${failed.join(', ')} (see out/bench/<name>.log)`);
  process.exit(failed.length ? 1 : 0);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
