/**
 * How long one caller's short schedule takes while another caller keeps the solver busy with long
 * ones: the figure behind test/solver-fairness.test.ts (which asserts the order, not the time).
 * On a throw-away offline stack (dev server, worker, CP-SAT solver worker with its default two
 * slots and a 60 s cap): the machine shop example alone, then again while caller A's two 60 s
 * schedules (an instance CP-SAT cannot close in that time) are open. Before the solver's slots
 * were shared, the second figure was A's whole time limit (61 s measured); now it should stay
 * near the first.
 *
 *   npx tsx bench/solver-fairness.ts
 *
 * Figures only, no pass/fail: the machine is shared, so read them as orders of magnitude.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { TASK_QUEUE } from '../contracts/common';
import { progressQuery } from '../contracts/progress-messages';
import { MAX_TIME_LIMIT_SECONDS, scheduleFromScrFlow } from '../contracts/schedule';
import { startOfflineStack } from '../workers/offline-stack';
import { hardShop } from '../test/helpers/hard-shop';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function timed(client: Client, id: string, input: object, caller: string): Promise<number> {
  const began = Date.now();
  await client.workflow.execute(scheduleFromScrFlow.type, {
    taskQueue: TASK_QUEUE,
    workflowId: `${id}-${began}`,
    args: [input],
    priority: { fairnessKey: caller },
  });
  return (Date.now() - began) / 1000;
}

async function main() {
  process.env.SOLVER_TIME_LIMIT_SECONDS = String(MAX_TIME_LIMIT_SECONDS);
  process.env.SOLVER_WORKERS ??= '1';
  const artifactDir = mkdtempSync(path.join(os.tmpdir(), 'solver-fairness-bench-'));
  const stack = await startOfflineStack({ artifactDir, quiet: true });
  const short = { ...scheduleFromScrFlow.examples[0], timeLimitSeconds: 5, chart: false };
  try {
    await timed(stack.client, 'warm-up', short, 'caller-c');
    const alone = await timed(stack.client, 'short-alone', short, 'caller-c');
    console.log(`short schedule, solver idle:                       ${alone.toFixed(2)} s`);

    const long = { projectId: 'hard-shop', ...hardShop(7), timeLimitSeconds: MAX_TIME_LIMIT_SECONDS, chart: false };
    const start = (n: number) =>
      stack.client.workflow.start(scheduleFromScrFlow.type, {
        taskQueue: TASK_QUEUE,
        workflowId: `caller-a-${n}-${Date.now()}`,
        args: [long],
        priority: { fairnessKey: 'caller-a' },
      });
    const a1 = await start(1);
    const a2 = await start(2);
    // Both of A's requests have reached the solver worker (one solving, one told its place).
    for (;;) {
      const [p1, p2] = await Promise.all([a1.query(progressQuery), a2.query(progressQuery)]);
      if (p1.status === 'running' && p1.stage === 'solve' && /ahead/.test(p2.detail)) break;
      await sleep(200);
    }
    const busy = await timed(stack.client, 'short-busy', short, 'caller-c');
    console.log(`short schedule, caller A's two ${MAX_TIME_LIMIT_SECONDS} s schedules open: ${busy.toFixed(2)} s`);
    console.log(`caller A's second schedule meanwhile:              ${(await a2.query(progressQuery)).detail}`);
    await Promise.all([a2.cancel(), a1.cancel()]);
  } finally {
    await stack.close();
    rmSync(artifactDir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
