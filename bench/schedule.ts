/**
 * Solve time and optimality gap of the CP-SAT solver (solver/worker.py) on the bundled firms'
 * SCRs with 10 / 50 / 200 generated orders: the machine shop (job shop, least total lateness)
 * and the brewery (flow shop, makespan). The gap is (objective - CP-SAT's best bound) / objective.
 *
 *   npx tsx bench/schedule.ts            # 10 s per solve (BENCH_TIME_LIMIT=30 for more)
 *
 * Calls the solver's function directly (python solver/worker.py --solve), without Temporal, so
 * the figures are the solver's own.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { mulberry32 } from '../contracts/common';
import type { SolverReply } from '../flows/schedule/contract';
import { buildScheduleProblem, type OrderInput } from '../domain/schedule-model';
import { resolveSolverPython, SOLVER_WORKER_SCRIPT } from '../workers/solver-tools';

const fixture = (id: string) =>
  JSON.parse(readFileSync(path.join(__dirname, '..', 'data', 'eads-fixtures', `${id}.json`), 'utf8'));
const shop = fixture('machine-shop-job-shop');
const brewery = fixture('brewery-flow-shop');
const jobShopScr = {
  'principal-problem-type': 'JOB-SHOP-SCHEDULING-PROBLEM',
  'unit-processes': shop.tables[0].rows,
  routings: shop.tables[1].rows,
  'resource-pools': shop.tables[3].rows,
  'primary-objective': 'MEET-DUE-DATES',
};
const flowShopScr = {
  'principal-problem-type': 'FLOW-SHOP-SCHEDULING-PROBLEM',
  'process-id': 'brewing',
  subprocesses: brewery.tables[0].rows,
  'resource-pools': brewery.tables[2].rows,
  'primary-objective': 'MINIMIZE-MAKESPAN',
};

function orders(n: number, products: string[], dueUnits: 'hours' | 'days', spread: number, seed: number): OrderInput[] {
  const rnd = mulberry32(seed);
  return Array.from({ length: n }, (_, i) => ({
    id: `o${i + 1}`,
    product: products[Math.floor(rnd() * products.length)]!,
    due: { value: Math.round(1 + rnd() * spread * n), units: dueUnits },
  }));
}

const timeLimit = Number(process.env.BENCH_TIME_LIMIT ?? 10);
const python = resolveSolverPython({ quiet: true });
console.log(`CP-SAT on ${process.env.SOLVER_WORKERS ?? 2} search worker(s), time limit ${timeLimit} s per solve\n`);
console.log('instance                  jobs  tasks  status     objective        bound   gap      solve s');
for (const [name, scr, products, units, spread] of [
  ['machine shop (job shop)', jobShopScr, ['shaft', 'flange', 'housing', 'bracket'], 'hours', 0.6],
  ['brewery (flow shop)', flowShopScr, ['pale ale', 'IPA', 'stout', 'lager'], 'days', 5],
] as const) {
  for (const n of [10, 50, 200]) {
    const problem = buildScheduleProblem(scr, { orders: orders(n, [...products], units, spread, n) });
    const tasks = problem.jobs.reduce((k, j) => k + j.tasks.length, 0);
    const run = spawnSync(python, [SOLVER_WORKER_SCRIPT, '--solve'], {
      input: JSON.stringify({ ...problem, timeLimitSeconds: timeLimit }),
      encoding: 'utf8',
      env: { ...process.env, SOLVER_TIME_LIMIT_SECONDS: String(timeLimit) },
      maxBuffer: 64 * 1024 * 1024,
    });
    if (run.status !== 0) throw new Error(run.stderr);
    const r = JSON.parse(run.stdout) as SolverReply;
    const gap =
      r.objective !== null && r.bound !== null
        ? ((r.objective - r.bound) / Math.max(1, Math.abs(r.objective))) * 100
        : NaN;
    console.log(
      `${name.padEnd(24)} ${String(n).padStart(5)} ${String(tasks).padStart(6)}  ${r.status.padEnd(9)} ${String(r.objective ?? '-').padStart(10)} ` +
        `${String(r.bound ?? '-').padStart(12)} ${Number.isNaN(gap) ? '   -  ' : `${gap.toFixed(1).padStart(5)}%`} ${r.solveSeconds.toFixed(2).padStart(10)}`,
    );
  }
}
console.log(
  `\nobjective: machine shop = total lateness (${problemUnit(jobShopScr)}), brewery = makespan (${problemUnit(flowShopScr)})`,
);

function problemUnit(scr: Parameters<typeof buildScheduleProblem>[0]) {
  return buildScheduleProblem(scr, { orders: [{ product: 'shaft' }] }).timeUnit;
}
