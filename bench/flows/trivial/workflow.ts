/** Bench-only workflow: N trivial activities one after another, to measure Temporal's per-activity cost. */
import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';

interface TrivialActivities {
  noop(i: number): Promise<number>;
}

const { noop } = proxyActivities<TrivialActivities>({ startToCloseTimeout: '10 seconds' });
const local = proxyLocalActivities<TrivialActivities>({ startToCloseTimeout: '10 seconds' });

export async function trivialActivities(n: number, useLocal = false): Promise<number> {
  let sum = 0;
  for (let i = 0; i < n; i++) sum += await (useLocal ? local.noop(i) : noop(i));
  return sum;
}

/** Bench-only workflow that stays open (and cached) until cancelled or terminated: memory per cached workflow. */
export async function idleUntilTerminated(): Promise<void> {
  await new Promise<void>(() => undefined);
}
