import { mulberry32 } from '../../contracts/common';

/**
 * A job shop CP-SAT does not solve to optimality within a minute on one search thread: 20 jobs, each
 * through 15 machines in a random order, steps of 13 to 89 minutes (about 9 KB of SCR, 300 tasks).
 * A `scheduleFromScr` input without projectId and time limit; the same seed gives the same shop.
 * Used where a solve must run its whole time limit (test/solver-fairness.test.ts, bench/solver-fairness.ts).
 */
export function hardShop(seed: number) {
  const rnd = mulberry32(seed);
  const durations = [13, 37, 61, 89];
  const machines = Array.from({ length: 15 }, (_, m) => `m${m}`);
  const processes = machines.flatMap((m) =>
    durations.map((d) => ({
      'process-id': `${m}-${d}`,
      resources: [m],
      duration: { units: 'minutes', 'value-string': String(d) },
    })),
  );
  const routings = Array.from({ length: 20 }, (_, j) => ({
    'routing-id': `r${j}`,
    steps: [...machines].sort(() => rnd() - 0.5).map((m) => `${m}-${durations[Math.floor(rnd() * durations.length)]}`),
  }));
  return {
    scr: {
      'principal-problem-type': 'JOB-SHOP-SCHEDULING-PROBLEM',
      'unit-processes': processes,
      routings,
      'resource-pools': machines.map((m) => ({ 'resource-id': m, quantity: '1' })),
      'primary-objective': 'MINIMIZE-MAKESPAN',
    },
    orders: routings.map((r) => ({ product: r['routing-id'] })),
  };
}
