/**
 * EADS interview figures on the local stack (throw-away dev server, stand-in model, one worker):
 *
 *  - per surrogate interview of each fixture: wall time, EADS pursued, questions, model calls,
 *    tokens (the stand-in counts ~4 characters per token), questions per EADS;
 *  - history size of the interview with and without continue-as-new (largest single run, and
 *    all runs together, in events and bytes);
 *  - human-mode latencies the MCP tools see: answer → refinement (`process_eads_answer`) and
 *    answer → next question ready (`get_next_question`).
 *
 *   npx tsx bench/eads.ts [interviews per fixture = 3]
 *
 * No timing targets are asserted here; the figures are printed.
 */
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import type { temporal } from '@temporalio/proto';
import { NativeConnection } from '@temporalio/worker';
import { createBackends } from '../backends';
import { EadsSession } from '../access/eads-session';
import { startFlow } from '../access/flow-client';
import { parseConfig } from '../plumbing/config';
import { runEadsInterviewFlow, type RunEadsInterviewOutput } from '../flows/eads/contract';
import { startStandin } from '../standin/server';
import { freePort, startDevServer } from '../workers/dev-server';
import { createFlowWorker, installRuntime } from '../workers/worker';

type History = temporal.api.history.v1.IHistory;
const FIXTURES = ['brewery-flow-shop', 'machine-shop-job-shop', 'school-timetable'];
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (x: number) => `${x.toFixed(0)} ms`;

/** Events and bytes of every run of a workflow id, following the continue-as-new chain. */
async function runHistories(
  client: Client,
  workflowId: string,
  firstRunId: string,
): Promise<Array<{ events: number; bytes: number }>> {
  const runs: Array<{ events: number; bytes: number }> = [];
  let runId: string | undefined = firstRunId;
  while (runId) {
    const history: History = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    const events = history.events ?? [];
    runs.push({ events: events.length, bytes: historyToJSON(history).length });
    const next: string | null | undefined =
      events[events.length - 1]?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId;
    runId = next ?? undefined;
  }
  return runs;
}

async function main() {
  const perFixture = Number(process.argv[2] ?? 3);
  const server = await startDevServer({ port: await freePort(), quiet: true });
  const standin = await startStandin({ port: 0 });
  const config = parseConfig({
    AGENT_FLOWS_MODEL: 'standin',
    GOOGLE_GEMINI_BASE_URL: standin.url,
    DUCKDB_PATH: ':memory:',
    WORKER_METRICS_PORT: '0',
    LOG_LEVEL: 'warn',
    ARTIFACT_DIR: 'out/bench',
  });
  installRuntime(config, { handleSignals: false });
  const nativeConnection = await NativeConnection.connect({ address: server.address });
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection });
  const backends = await createBackends(config);
  const taskQueue = 'bench-eads';
  const worker = await createFlowWorker({ connection: nativeConnection, backends, taskQueue });
  let seq = 0;
  const start = (input: Record<string, unknown>) =>
    startFlow(client, runEadsInterviewFlow, { projectId: `bench-${seq++}`, ...input }, { taskQueue });

  await worker.runUntil(async () => {
    // Warm-up: bundle loaded, library cached.
    await (await start({ mode: 'surrogate', fixture: FIXTURES[0], maxPursuits: 1 })).result();

    console.log(
      `EADS interviews on the local stack (2 shared cores; stand-in model), ${perFixture} surrogate interview(s) per fixture\n`,
    );
    console.log(
      'fixture                  wall (median)  EADS  questions  q/EADS  model calls  ' +
        'tokens (prompt+output)  tokens/question',
    );
    for (const fixture of FIXTURES) {
      const walls: number[] = [];
      let last: RunEadsInterviewOutput | undefined;
      for (let i = 0; i < perFixture; i++) {
        standin.resetStats();
        const t0 = performance.now();
        last = (await (await start({ mode: 'surrogate', fixture })).result()) as RunEadsInterviewOutput;
        walls.push(performance.now() - t0);
      }
      const r = last!;
      const stats = standin.stats();
      console.log(
        `${fixture.padEnd(24)} ${ms(median(walls)).padStart(13)}  ${String(r.pursuits.length).padStart(4)}  ${String(r.questionsAsked).padStart(9)}  ${(r.questionsAsked / r.pursuits.length).toFixed(1).padStart(6)}  ${String(r.usage.calls).padStart(11)}  ${`${r.usage.totalTokens} (${stats.promptTokens}+${stats.outputTokens})`.padStart(22)}  ${String(Math.round(r.usage.totalTokens / r.questionsAsked)).padStart(15)}`,
      );
    }

    console.log('\nHistory of one brewery interview (runEadsInterview only; each pursuit has its own history)');
    for (const [label, input] of [
      ['no continue-as-new', { pursuitsPerRun: 100, questionsPerRun: 200 }],
      ['continue-as-new every 2 pursuits', { pursuitsPerRun: 2 }],
      ['continue-as-new every pursuit', { pursuitsPerRun: 1 }],
    ] as const) {
      const handle = await start({ mode: 'surrogate', fixture: 'brewery-flow-shop', ...input });
      await handle.result();
      const runs = await runHistories(client, handle.workflowId, handle.firstExecutionRunId);
      const largest = runs.reduce((a, b) => (b.bytes > a.bytes ? b : a));
      const total = runs.reduce((a, b) => ({ events: a.events + b.events, bytes: a.bytes + b.bytes }));
      console.log(
        `  ${label.padEnd(34)} runs ${String(runs.length).padStart(2)}  largest run ${String(largest.events).padStart(4)} events ${String(Math.round(largest.bytes / 1024)).padStart(4)} KiB   all runs ${String(total.events).padStart(4)} events ${String(Math.round(total.bytes / 1024)).padStart(4)} KiB`,
      );
    }
    const flowShopPursuit = async (questionsPerRun: number) => {
      const handle = await start({ mode: 'surrogate', fixture: 'brewery-flow-shop', maxPursuits: 3, questionsPerRun });
      const result = await handle.result();
      const child = result.pursuits[2];
      const description = await client.workflow.getHandle(child.childWorkflowId).describe();
      const firstRunId = description.raw.workflowExecutionInfo?.firstRunId ?? description.runId;
      return { questions: child.questions, runs: await runHistories(client, child.childWorkflowId, firstRunId) };
    };
    for (const perRun of [200, 2]) {
      const { questions, runs } = await flowShopPursuit(perRun);
      const largest = runs.reduce((a, b) => (b.bytes > a.bytes ? b : a));
      console.log(
        `  pursueEads flow shop (${questions} q), questionsPerRun ${String(perRun).padEnd(3)}  runs ${runs.length}  largest run ${largest.events} events ${Math.round(largest.bytes / 1024)} KiB`,
      );
    }

    console.log('\nHuman mode, as the MCP tools see it (problem-type EADS, 3 answers per interview)');
    const answerMs: number[] = [];
    const nextQuestionMs: number[] = [];
    const answers = [
      'Every batch goes through the same steps in the same order.',
      'No, discrete batches.',
      'Yes, the same weekly pattern.',
    ];
    for (let i = 0; i < Math.max(3, perFixture); i++) {
      const session = new EadsSession(client, `bench-human-${i}`);
      await session.ensure({ taskQueue, orchestration: 'auto' });
      let pursuit = await waitForPursuit(session, 'process/warm-up-with-challenges');
      let q = await session.question(pursuit);
      await session.answer(
        pursuit,
        q.question!.id,
        'We brew craft beers; the fermenters are the bottleneck and demand is seasonal.',
      );
      pursuit = await waitForPursuit(session, 'process/scheduling-problem-type');
      q = await session.question(pursuit);
      for (const answer of answers) {
        const t0 = performance.now();
        const result = await session.answer(pursuit, q.question!.id, answer);
        answerMs.push(performance.now() - t0);
        if (result.next_action === 'complete') break;
        const t1 = performance.now();
        q = await session.question(pursuit);
        nextQuestionMs.push(performance.now() - t1);
      }
      await session.finish('bench');
    }
    console.log(
      `  process_eads_answer (update → refinement):  median ${ms(median(answerMs))}, max ${ms(Math.max(...answerMs))} over ${answerMs.length}`,
    );
    console.log(
      `  get_next_question (next question ready):    median ${ms(median(nextQuestionMs))}, max ${ms(Math.max(...nextQuestionMs))} over ${nextQuestionMs.length}`,
    );
  });

  await nativeConnection.close();
  await connection.close();
  await backends.close();
  await standin.close();
  await server.stop();
}

async function waitForPursuit(session: EadsSession, eadsId: string): Promise<WorkflowHandle> {
  for (;;) {
    const view = await session.view();
    if (view.current?.eadsId === eadsId) return (await session.pursuit(eadsId)).handle;
    await new Promise((r) => setTimeout(r, 20));
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
