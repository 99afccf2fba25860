/**
 * `npm run demo`: every flow on the embedded defaults, start to finish, with nothing running before.
 *
 * Starts a throw-away dev server, the model stand-in and a worker in this process, runs each
 * flow's bundled example inputs through the thin client, prints a readable summary per run,
 * writes each result to `out/<flow>/<workflow id>.json`, stops everything, and exits non-zero
 * if any flow failed.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { TASK_QUEUE } from '../contracts/common';
import { flows } from '../flows/registry';
import { runEadsInterviewFlow } from '../flows/eads/contract';
import { followProgress } from '../client/cli';
import { startFlow } from '../access/flow-client';
import { startOfflineStack } from './offline-stack';
import { PROJECT_ROOT } from './temporal-cli';
import { screenshotConsole } from './console-screenshots';

interface RunRecord {
  flow: string;
  workflowId: string;
  ok: boolean;
  seconds: number;
  file?: string;
  error?: string;
}

async function main(): Promise<number> {
  const outDir = path.resolve(PROJECT_ROOT, process.env.ARTIFACT_DIR ?? 'out');
  mkdirSync(outDir, { recursive: true });
  const started = performance.now();

  const stack = await startOfflineStack({ artifactDir: outDir });
  const { server, standin, client } = stack;
  console.log(
    `[demo] dev server ${server.address}, stand-in ${standin.url}, worker on ${TASK_QUEUE}; results go to ${path.relative(process.cwd(), outDir) || '.'}/`,
  );

  const records: RunRecord[] = [];
  await (async () => {
    const runs = [...flows.flatMap((flow) => flow.examples.map((input) => ({ flow, input }))), ...scheduleRuns()];
    // All runs start at once: the worker interleaves them, as it would in production.
    await Promise.all(
      runs.map(async ({ flow, input }) => {
        const t0 = performance.now();
        let workflowId = '(not started)';
        const lines: string[] = [];
        try {
          const handle = await startFlow(client, flow, input);
          workflowId = handle.workflowId;
          const result = await followProgress(handle, () => undefined);
          const file = path.join(outDir, flow.slug, `${workflowId}.json`);
          mkdirSync(path.dirname(file), { recursive: true });
          writeFileSync(file, `${JSON.stringify({ flow: flow.type, workflowId, input, result }, null, 2)}\n`);
          const parsed = flow.output.safeParse(result);
          lines.push(
            ...(parsed.success
              ? flow.describeResult(parsed.data)
              : [`(result did not match the output schema: ${parsed.error.issues[0]?.message})`]),
          );
          records.push({
            flow: flow.type,
            workflowId,
            ok: parsed.success,
            seconds: (performance.now() - t0) / 1000,
            file: path.relative(PROJECT_ROOT, file),
          });
        } catch (err) {
          const message =
            err instanceof Error
              ? err.cause instanceof Error
                ? `${err.message}: ${err.cause.message}`
                : err.message
              : String(err);
          lines.push(`FAILED: ${message}`);
          records.push({
            flow: flow.type,
            workflowId,
            ok: false,
            seconds: (performance.now() - t0) / 1000,
            error: message,
          });
        }
        const record = records[records.length - 1];
        console.log(
          `\n== ${flow.title} (${flow.type}) ${record.ok ? 'ok' : 'FAILED'} in ${record.seconds.toFixed(1)} s — ${workflowId}`,
        );
        for (const line of lines) console.log(`   ${line}`);
      }),
    );
  })();

  const ok = records
    .filter((r) => r.ok)
    .map((r) => ({ slug: flows.find((f) => f.type === r.flow)?.slug ?? r.flow, workflowId: r.workflowId }));
  try {
    console.log(`\n[demo] ${await screenshotConsole(client, outDir, ok)}`);
  } catch (err) {
    console.log(`\n[demo] console screenshots failed: ${err instanceof Error ? err.message : String(err)}`);
  }
  await stack.close();

  const failed = records.filter((r) => !r.ok);
  writeFileSync(
    path.join(outDir, 'demo-summary.json'),
    `${JSON.stringify({ runs: records, tokens: standin.stats(), seconds: (performance.now() - started) / 1000 }, null, 2)}\n`,
  );
  console.log(
    `\n[demo] ${records.length - failed.length}/${records.length} flow runs completed in ${((performance.now() - started) / 1000).toFixed(1)} s; summary in ${path.relative(process.cwd(), path.join(outDir, 'demo-summary.json'))}`,
  );
  return failed.length === 0 ? 0 : 1;
}

/** One interview ending in a schedule (MiniZinc model, CP-SAT solve, Gantt chart) per bundled shop firm. */
function scheduleRuns() {
  const orders = JSON.parse(
    readFileSync(path.join(PROJECT_ROOT, 'data', 'schedule', 'demo-orders.json'), 'utf8'),
  ) as Record<string, unknown>;
  return Object.entries(orders)
    .filter(([fixture, list]) => fixture !== 'about' && Array.isArray(list))
    .map(([fixture, list]) => ({
      flow: runEadsInterviewFlow as unknown as (typeof flows)[number],
      input: {
        projectId: `demo-schedule-${fixture}`,
        mode: 'surrogate',
        fixture,
        schedule: { orders: list, timeLimitSeconds: 10 },
      },
    }));
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(`[demo] ${err instanceof Error ? err.stack : String(err)}`);
    process.exit(1);
  },
);
