/**
 * `discoverFromPrp` parallelism: a plan of 8 steps × 10 candidates with the stand-in at a fixed
 * model latency, run on a local dev server. Reports the wall time against
 *   - the sequential sum: every activity's execution time added up (the seed's one-after-another
 *     orchestration would take at least this), and
 *   - the critical path: plan + the longest (search + slowest validation) chain among the steps,
 *     from the activities' own start/complete times in the history.
 * Target: wall ≤ 1.15 × critical path with the concurrency bound at or above the work in flight.
 *
 *   npx tsx bench/discovery.ts [latencyMs=200] [repeats=3] [concurrency,...=80,8]
 *
 * Worker tuning experiments (the project's worker is used otherwise): BENCH_EAGER_ACTIVITIES=<n>
 * (activities a workflow task may take back eagerly; SDK default 3), BENCH_ACTIVITY_POLLERS=<n>
 * (concurrent activity polls; default 10). BENCH_TIMELINE=1 prints each run's event timeline.
 */
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { createActivities } from '../flows/registry';
import { emitSummary } from './summary';
import { createBackends } from '../backends';
import { TASK_QUEUE } from '../contracts/common';
import { parseConfig } from '../plumbing/config';
import { discoverFromPrpFlow, type Column, type DiscoverFromPrpOutput } from '../flows/discovery/contract';
import { startFlow } from '../access/flow-client';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { freePort, startDevServer } from '../workers/dev-server';
import { createFlowWorker, installRuntime } from '../workers/worker';
import { workflowBundleOptions } from '../workers/workflow-bundle';

/** Eight conceptual groups the planner separates (identifiers, predictions, market, results, weather, venue, players, injuries). */
const BENCH_SCHEMA: Column[] = [
  { name: 'game_id', type: 'STRING', description: 'Unique identifier of the NFL game' },
  { name: 'season', type: 'INT64', description: 'NFL season year' },
  { name: 'week', type: 'INT64', description: 'Week of the season' },
  { name: 'predicted_home_score', type: 'FLOAT64', description: 'Points the model predicted for the home team' },
  { name: 'home_win_probability', type: 'FLOAT64', description: 'Predicted probability that the home team wins' },
  { name: 'closing_spread', type: 'FLOAT64', description: 'Closing point spread at the sportsbook' },
  { name: 'moneyline_home', type: 'INT64', description: 'Closing moneyline odds for the home team' },
  { name: 'actual_home_score', type: 'INT64', description: 'Final points scored by the home team' },
  { name: 'actual_winner', type: 'STRING', description: 'Team that won the game' },
  { name: 'temperature_f', type: 'FLOAT64', description: 'Air temperature at kickoff in Fahrenheit' },
  { name: 'wind_mph', type: 'FLOAT64', description: 'Wind speed at kickoff' },
  { name: 'stadium_name', type: 'STRING', description: 'Stadium where the game was played' },
  { name: 'roof_type', type: 'STRING', description: 'Open, dome or retractable roof' },
  { name: 'player_id', type: 'STRING', description: 'NFL player identifier' },
  { name: 'passing_yards', type: 'INT64', description: 'Passing yards in the game' },
  { name: 'injury_type', type: 'STRING', description: 'Injury designation on the weekly NFL injury report' },
  { name: 'practice_status', type: 'STRING', description: 'Practice participation before the game' },
];
const BENCH_PRP = `# PRP: NFL game context mart (bench)\n\nOne NFL game-level mart joining schedule, model predictions, betting lines, results, weather, venue, player stats and injuries for NFL analysts.\n`;

interface Timing {
  type: string;
  scheduled: number;
  started: number;
  completed: number;
  args: unknown[];
}

const ms = (t: { seconds?: unknown; nanos?: number | null } | null | undefined) =>
  Number(t?.seconds ?? 0) * 1000 + (t?.nanos ?? 0) / 1e6;

function decode(payloads: Array<{ data?: Uint8Array | null }> | null | undefined): unknown[] {
  return (payloads ?? []).map((p) => JSON.parse(Buffer.from(p.data ?? []).toString('utf8')));
}

async function analyse(handle: WorkflowHandle, out: DiscoverFromPrpOutput) {
  const events = (await handle.fetchHistory()).events ?? [];
  const scheduled = new Map<string, { type: string; args: unknown[]; at: number }>();
  const started = new Map<string, number>();
  const timings: Timing[] = [];
  let wfStart = 0;
  let wfEnd = 0;
  for (const e of events) {
    const id = String(e.eventId);
    if (e.workflowExecutionStartedEventAttributes) wfStart = ms(e.eventTime);
    if (e.workflowExecutionCompletedEventAttributes) wfEnd = ms(e.eventTime);
    const s = e.activityTaskScheduledEventAttributes;
    if (s)
      scheduled.set(id, { type: s.activityType?.name ?? '', args: decode(s.input?.payloads), at: ms(e.eventTime) });
    if (e.activityTaskStartedEventAttributes)
      started.set(String(e.activityTaskStartedEventAttributes.scheduledEventId), ms(e.eventTime));
    const c = e.activityTaskCompletedEventAttributes;
    if (c) {
      const key = String(c.scheduledEventId);
      const info = scheduled.get(key)!;
      timings.push({
        type: info.type,
        args: info.args,
        scheduled: info.at,
        started: started.get(key)!,
        completed: ms(e.eventTime),
      });
    }
  }
  const exec = (t: Timing) => t.completed - t.started;
  const plan = timings.filter((t) => t.type === 'discoveryPlanSearch').reduce((n, t) => n + exec(t), 0);
  const chains = out.results.map((step) => {
    const search = timings.find(
      (t) => t.type === 'discoverySearchCatalog' && (t.args[0] as { query: string }).query === step.search_query,
    );
    // A step's validation: one activity for all its candidates, or (earlier releases) one per candidate.
    const validations = timings.filter(
      (t) =>
        (t.type === 'discoveryValidateCandidates' || t.type === 'discoveryValidateCandidate') &&
        (t.args[0] as { step: { conceptual_group: string } }).step.conceptual_group === step.conceptual_group,
    );
    return (search ? exec(search) : 0) + Math.max(0, ...validations.map(exec));
  });
  if (process.env.BENCH_TIMELINE) {
    for (const e of events) {
      const kind =
        Object.keys(e).find((k) => k.endsWith('EventAttributes') && (e as Record<string, unknown>)[k]) ?? '?';
      console.log(`${(ms(e.eventTime) - wfStart).toFixed(0).padStart(6)} ${kind.replace('EventAttributes', '')}`);
    }
  }
  // Where the rest of the wall time goes: waiting for a worker to pick an activity up, and the
  // workflow tasks between one activity's completion and the next one's scheduling.
  const queued = timings.map((t) => t.started - t.scheduled).sort((a, b) => a - b);
  const lastDone = Math.max(...timings.map((t) => t.completed));
  return {
    wall: wfEnd - wfStart,
    sequential: timings.reduce((n, t) => n + exec(t), 0),
    critical: plan + Math.max(...chains),
    activities: timings.length,
    queuedMedian: queued[Math.floor(queued.length / 2)],
    queuedMax: queued[queued.length - 1],
    tail: wfEnd - lastDone,
  };
}

async function startStandinProcess(latencyMs: number): Promise<{ url: string; stop(): void }> {
  const port = await freePort();
  const child = spawn(
    path.join(__dirname, '..', 'node_modules', '.bin', 'tsx'),
    [path.join(__dirname, '..', 'standin', 'main.ts')],
    {
      env: {
        ...process.env,
        STANDIN_PORT: String(port),
        STANDIN_HOST: '127.0.0.1',
        STANDIN_FAULTS: JSON.stringify({ latencyMs }),
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => /"component":"standin"/.test(chunk.toString()) && resolve());
    child.once('exit', (code) => reject(new Error(`stand-in exited with ${code}`)));
  });
  return { url: `http://127.0.0.1:${port}`, stop: () => void child.kill('SIGTERM') };
}

async function main() {
  // The figures are for plain payloads: the history is decoded here to attribute activities to steps.
  delete process.env.AGENT_FLOWS_PAYLOAD_KEY;
  const latencyMs = Number(process.argv[2] ?? 200);
  const repeats = Number(process.argv[3] ?? 3);
  const bounds = (process.argv[4] ?? '80,8').split(',').map(Number);

  const server = await startDevServer({ port: await freePort(), quiet: true });
  // The stand-in runs in its own process, as with `npm start`: 80 concurrent answers would
  // otherwise compete with the worker for the same event loop.
  const standin = await startStandinProcess(latencyMs);
  const config = parseConfig({
    AGENT_FLOWS_MODEL: 'standin',
    GOOGLE_GEMINI_BASE_URL: standin.url,
    AGENT_FLOWS_WAREHOUSE: 'duckdb',
    DUCKDB_PATH: ':memory:',
    AGENT_FLOWS_SEARCH: 'embedded',
    WORKER_METRICS_PORT: '0',
    LOG_LEVEL: 'warn',
  });
  installRuntime(config, { handleSignals: false });
  const nativeConnection = await NativeConnection.connect({ address: server.address });
  const backends = await createBackends(config);
  // The project's worker, optionally with more activity pollers (BENCH_ACTIVITY_POLLERS): 80
  // activities scheduled at once are dispatched by at most `pollers` concurrent long polls.
  // BENCH_EAGER_ACTIVITIES raises how many activities a workflow task may take back eagerly (default 3).
  const pollers = process.env.BENCH_ACTIVITY_POLLERS ? Number(process.env.BENCH_ACTIVITY_POLLERS) : undefined;
  const eager = process.env.BENCH_EAGER_ACTIVITIES ? Number(process.env.BENCH_EAGER_ACTIVITIES) : undefined;
  const worker =
    pollers || eager
      ? await Worker.create({
          connection: nativeConnection,
          taskQueue: TASK_QUEUE,
          workflowsPath: workflowBundleOptions().workflowsPath,
          bundlerOptions: { webpackConfigHook: workflowBundleOptions().webpackConfigHook },
          activities: await createActivities(backends),
          maxConcurrentActivityTaskExecutions: 200,
          ...(pollers ? { maxConcurrentActivityTaskPolls: pollers } : {}),
          ...(eager ? { maxEagerActivityReservationsPerWorkflowTask: eager } : {}),
        })
      : await createFlowWorker({ connection: nativeConnection, backends, maxConcurrentActivityTaskExecutions: 200 });
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection });

  const rows: Array<
    { concurrency: number; steps: number; candidates: number; clientWall: number } & Awaited<ReturnType<typeof analyse>>
  > = [];
  await worker.runUntil(async () => {
    // Warm-up, not measured: one run of the full size loads the workflow bundle and the catalog
    // index and warms the stand-in's rules (its first full run is several times slower).
    await (
      await startFlow(client, discoverFromPrpFlow, {
        prp: BENCH_PRP,
        targetSchema: BENCH_SCHEMA,
        maxCandidatesPerStep: 10,
        concurrency: Math.max(...bounds),
      })
    ).result();
    for (const concurrency of bounds) {
      for (let r = 0; r < repeats; r++) {
        const t0 = performance.now();
        const handle = await startFlow(
          client,
          discoverFromPrpFlow,
          { prp: BENCH_PRP, targetSchema: BENCH_SCHEMA, maxCandidatesPerStep: 10, concurrency },
          { taskQueue: TASK_QUEUE },
        );
        const out = await handle.result();
        const clientWall = performance.now() - t0;
        const a = await analyse(handle, out);
        rows.push({ concurrency, steps: out.results.length, candidates: out.stats.candidates, clientWall, ...a });
      }
    }
  });
  await connection.close();
  await nativeConnection.close();
  await backends.close();
  standin.stop();
  await server.stop();

  console.log(
    `discoverFromPrp: plan of ${rows[0].steps} steps × ${rows[0].candidates / rows[0].steps} candidates, stand-in latency ${latencyMs} ms, ${repeats} run(s) per bound`,
  );
  console.log(
    '(wall: workflow start → completion in the history; sequential sum and critical ' +
      'path from the activities’ own start/complete times)',
  );
  for (const concurrency of bounds) {
    // The median run by its own ratio: a run whose model calls were slow has a long wall time and a
    // long critical path alike, so sorting by wall time alone would pick runs by the model's luck.
    const runs = rows
      .filter((r) => r.concurrency === concurrency)
      .sort((a, b) => a.wall / a.critical - b.wall / b.critical);
    const m = runs[Math.floor(runs.length / 2)];
    const ratio = m.wall / m.critical;
    console.log(
      `  concurrency ${String(concurrency).padEnd(3)} median run: wall ${m.wall.toFixed(0)} ms (client ${m.clientWall.toFixed(0)} ms) | sequential sum ${m.sequential.toFixed(0)} ms (${(m.sequential / m.wall).toFixed(1)}× the wall) | ` +
        `critical path ${m.critical.toFixed(0)} ms → wall/critical ${ratio.toFixed(2)}` +
        (concurrency >= m.candidates
          ? `  target ≤ 1.15: ${ratio <= 1.15 ? 'met' : 'NOT met'}`
          : `  (bounded: ≥ ${Math.ceil(m.candidates / concurrency)} validation rounds expected)`),
    );
    console.log(
      `      runs: ${runs.map((r) => `${r.wall.toFixed(0)}/${r.critical.toFixed(0)}`).join(', ')} (wall/critical ms)`,
    );
    if (concurrency >= m.candidates)
      emitSummary('discovery', { latencyMs, wallMs: m.wall, criticalMs: m.critical, ratio });
    console.log(
      `      median run: ${m.activities} activities, scheduled→started median ${m.queuedMedian.toFixed(0)} ms, max ${m.queuedMax.toFixed(0)} ms; last activity → workflow completed ${m.tail.toFixed(0)} ms`,
    );
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
