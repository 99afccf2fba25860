/**
 * Durable execution of every flow, proven with the real worker process (`workers/worker.ts`) on
 * a dev server of this file's own (persistent database, so nobody else's worker polls its queue):
 *
 * - Worker crash: each flow in turn is started on a fresh worker, which is SIGKILLed (its whole
 *   process group) right after the stand-in answers the flow's k-th model call plus a delay —
 *   k and the delay drawn from a seeded PRNG (`FAULTS_SEED=<n>` replays a run; the seed is
 *   printed). The next worker is started and the next flow goes on it, so earlier flows may be
 *   hit again. Each flow must complete with the same result as an undisturbed run (on a harness
 *   worker), schedule the same activities, and re-run no activity that had completed: only an
 *   activity in flight at a kill may show a second attempt, and the stand-in's model calls per
 *   task never exceed the attempts recorded in history.
 * - Server restart: all flows are started, the dev server is stopped and started again on the
 *   same database while they run, and they complete with the undisturbed results.
 */
import { Client, Connection, type WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFlow } from '../access/flow-client';
import { startStandin, type StandinServer } from '../standin/server';
import { freePort, isListening, startDevServer, type DevServer } from '../workers/dev-server';
import {
  activityRuns,
  callsOfFlow,
  caseByName,
  CRASH_TEST_RULES,
  deterministicPart,
  FLOW_CASES,
  flowOfTask,
  MODEL_TASK_OF_ACTIVITY,
  modelCallsByTask,
  scheduledCounts,
  seededRandom,
  observedRules,
  startWorkerProcess,
  waitUntil,
  type ActivityRun,
  type FlowCase,
  type WorkerProcess,
} from './faults-support';
import { createHarness, recordHistory, type Harness } from './helpers/harness';
import { settledWithin } from './helpers/wait';

/** Every model answer waits this long, so kills land mid-flow and a delay below it stays before the next answer. */
const LATENCY_MS = 150;
/** The model's delay in the server-restart test, which times nothing against it. */
const RESTART_LATENCY_MS = 50;
/** A kill may come this late after an activity closed on the server (clock reads, event write). */
const CLOCK_SLACK_MS = 250;
/**
 * The longest a crashed worker may hold up a flow: an activity that runs longer than this
 * heartbeats (and declares a heartbeat time-out), a short one has a short start-to-close time-out.
 */
const MAX_LOSS_DETECTION_MS = 30_000;
/** A workflow task running local activities is completed (its markers written) at least this often: 80 % of its 10 s time-out. */
const WORKFLOW_TASK_LOSS_WINDOW_MS = 8_000;
const CRASH_ORDER: Array<FlowCase['name']> = ['bom', 'discovery', 'proposal', 'eads'];

interface Baseline {
  result: unknown;
  calls: Record<string, number>;
  scheduled: Record<string, number>;
  /** Model calls the history accounts for (one per attempt of a model activity). */
  accounted: Record<string, number>;
  runs: ActivityRun[];
}

describe('worker crash and server restart in the middle of every flow (real worker process)', () => {
  const seed = Number(process.env.FAULTS_SEED ?? Math.floor(Math.random() * 1_000_000));
  const random = seededRandom(seed);
  const runKey = randomBytes(3).toString('hex');
  let h: Harness;
  let server: DevServer;
  let port: number;
  let dbDir: string;
  let client: Client;
  let standin: StandinServer;
  const workers: WorkerProcess[] = [];
  /** Started in `beforeAll`, beside the undisturbed runs. */
  let firstWorker: { worker: WorkerProcess; startupMs: number } | undefined;
  const baselines = new Map<string, Baseline>();

  // The kill switch: armed for one flow, fired from inside the stand-in when it answers that
  // flow's k-th call (plus the delay). A flow with parallel calls (discovery) may get its last
  // answers within the delay: answering the flow's last call fires the kill at once, so the kill
  // always comes before the flow can finish.
  const answered: Record<string, number> = {};
  let armed: { flow: string; k: number; total: number; delayMs: number; fire: () => void } | undefined;
  let timer: NodeJS.Timeout | undefined;
  // When each task's calls were answered: a kill loses the local activities of the workflow task it cut short.
  const callTimes: Record<string, number[]> = {};
  const onAnswer = (task: string) => {
    (callTimes[task] ??= []).push(Date.now());
    const flow = flowOfTask(task);
    answered[flow] = (answered[flow] ?? 0) + 1;
    if (!armed || armed.flow !== flow || answered[flow] < armed.k) return;
    const { fire, delayMs, total } = armed;
    const now = () => {
      clearTimeout(timer);
      armed = undefined;
      fire();
    };
    // Synchronously: the worker dies before this answer reaches it.
    if (delayMs === 0 || answered[flow] >= total) now();
    else timer ??= setTimeout(now, delayMs);
  };
  const workerEnv = () => ({
    TEMPORAL_ADDRESS: server.address,
    GOOGLE_GEMINI_BASE_URL: standin.url,
    MODEL_TIMEOUT_MS: '5000',
  });
  async function newWorker(): Promise<{ worker: WorkerProcess; startupMs: number }> {
    const t0 = Date.now();
    const worker = startWorkerProcess(workerEnv());
    workers.push(worker);
    await worker.ready;
    return { worker, startupMs: Date.now() - t0 };
  }

  beforeAll(async () => {
    console.log(`[faults-crash] FAULTS_SEED=${seed}`);
    dbDir = mkdtempSync(path.join(os.tmpdir(), 'faults-crash-'));
    port = await freePort();
    standin = await startStandin({ faults: { latencyMs: LATENCY_MS }, rules: observedRules(onAnswer) });
    // This file's dev server and the first worker process start while the undisturbed runs go on
    // the shared one: the worker only polls until the crash test starts its first flow.
    const own = (async () => {
      server = await startDevServer({ port, dbFile: path.join(dbDir, 'dev.db'), quiet: true });
      client = new Client({ connection: await Connection.connect({ address: server.address }) });
      firstWorker = await newWorker();
    })();
    // A failure of one is reported with the other's (not left unhandled while the other runs).
    own.catch(() => undefined);

    // Undisturbed runs on an in-process worker of the shared dev server, all at once.
    h = await createHarness({ rules: CRASH_TEST_RULES });
    await Promise.all(
      FLOW_CASES.map(async (c) => {
        const handle = await h.start(c.flow, c.input(runKey));
        const result = await handle.result();
        const runs = await activityRuns(h.client, handle.workflowId, handle.firstExecutionRunId);
        baselines.set(c.name, {
          result,
          calls: {},
          scheduled: scheduledCounts(runs),
          accounted: modelCallsByTask(runs),
          runs,
        });
      }),
    );
    // The stand-in's own count, within what the history accounts for (one call per model activity
    // at most: the orchestrator's last pick, "nothing left", asks no model).
    const byTask = h.standin.stats().byTask;
    for (const c of FLOW_CASES) {
      const b = baselines.get(c.name)!;
      b.calls = callsOfFlow(byTask, c.name);
      for (const [task, n] of Object.entries(b.calls))
        expect(n, `${c.name}: ${task}`).toBeLessThanOrEqual(b.accounted[task]);
    }
    await own;
  }, 120_000);

  afterAll(async () => {
    for (const w of workers) w.kill('SIGKILL');
    await Promise.all(workers.map((w) => settledWithin(w.exited, 5000)));
    await client?.connection.close();
    await standin?.close();
    await server?.stop();
    await h?.close();
    if (dbDir) rmSync(dbDir, { recursive: true, force: true });
  });

  it(`retries the work of a dead worker within ${MAX_LOSS_DETECTION_MS / 1000} s in every activity of every flow (heartbeat or short time-out)`, () => {
    const byType = new Map<string, { flow: string; ms: number }>();
    for (const [flow, b] of baselines)
      for (const r of b.runs)
        byType.set(r.type, { flow, ms: Math.max(r.lossDetectionMs, byType.get(r.type)?.ms ?? 0) });
    console.log(
      `[faults-crash] a lost attempt is retried after: ${[...byType].map(([type, { ms }]) => `${type} ${ms / 1000} s`).join(', ')}`,
    );
    const slow = [...byType]
      .filter(([, { ms }]) => !(ms > 0 && ms <= MAX_LOSS_DETECTION_MS))
      .map(([type, { flow, ms }]) => `${flow}: ${type} (${ms / 1000} s)`);
    expect(slow).toEqual([]);
  });

  it(
    'completes each flow after a SIGKILL at a random point, with the same result and ' +
      'no completed activity run twice',
    async () => {
      const kills: Array<{ flow: string; at: number }> = [];
      const handles = new Map<string, WorkflowHandleWithFirstExecutionRunId>();
      const report: string[] = [];
      let { worker, startupMs } = firstWorker!;
      const startups = [startupMs];

      for (const name of CRASH_ORDER) {
        const c = caseByName(name);
        const total = Object.values(baselines.get(name)!.calls).reduce((a, b) => a + b, 0);
        const k = 1 + Math.floor(random() * total);
        const delayMs = Math.floor(random() * LATENCY_MS);
        answered[name] = 0;
        const victim = worker;
        timer = undefined;
        const killed = new Promise<number>((resolve) => {
          armed = {
            flow: name,
            k,
            total,
            delayMs,
            fire: () => {
              const at = Date.now();
              victim.kill('SIGKILL');
              resolve(at);
            },
          };
        });
        handles.set(name, await startFlow(client, c.flow, c.input(runKey)));
        const at = await killed;
        kills.push({ flow: name, at });
        await victim.exited;
        report.push(`${name}: killed after model call ${k}/${total}${k < total ? ` + ${delayMs} ms` : ''}`);
        ({ worker, startupMs } = await newWorker());
        startups.push(startupMs);
      }

      await Promise.all(CRASH_ORDER.map((name) => handles.get(name)!.result()));
      const stats = standin.stats();

      for (const name of CRASH_ORDER) {
        const handle = handles.get(name)!;
        const baseline = baselines.get(name)!;
        const ownKill = kills.find((k) => k.flow === name)!.at;
        const result = await handle.result();
        expect(deterministicPart(result, runKey), `${name}: result`).toEqual(
          deterministicPart(baseline.result, runKey),
        );

        // The interview's crash lands in a child pursuit, which the corpus (parent histories) would not show.
        if (name !== 'eads') await recordHistory(handle, `${caseByName(name).flow.slug}-worker-crash`);
        const runs = await activityRuns(client, handle.workflowId, handle.firstExecutionRunId);
        expect(scheduledCounts(runs), `${name}: activities scheduled`).toEqual(baseline.scheduled);
        expect(
          runs.every((r) => r.outcome === 'completed'),
          `${name}: every activity completed`,
        ).toBe(true);
        const inFlightAtKill = (r: ActivityRun) =>
          kills.some(
            (k) => r.scheduledAt <= k.at + CLOCK_SLACK_MS && (r.closedAt ?? Infinity) >= k.at - CLOCK_SLACK_MS,
          );
        const rerun = runs.filter((r) => r.attempt > 1);
        for (const r of rerun)
          expect(
            inFlightAtKill(r),
            `${name}: ${r.type} (${r.workflowId}/${r.activityId}) ran ${r.attempt} times but was not running at a kill`,
          ).toBe(true);

        // Side effects: every model call the stand-in received belongs to an attempt in history.
        // At least one attempt's calls for every model activity that completed, less those that
        // ask no model (the undisturbed run shows how many: the orchestrator's last pick); at most
        // every attempt's. (Not "at least the undisturbed run's count": on a busy machine that run,
        // too, can lose a call to the model time-out and retry it.)
        const calls = callsOfFlow(stats.byTask, name);
        const accounted = modelCallsByTask(runs);
        const once = (rs: ActivityRun[]) => modelCallsByTask(rs.map((r) => ({ ...r, attempt: 1 })));
        const completedOnce = once(runs);
        const baselineOnce = once(baseline.runs);
        // Local activities are recorded when their workflow task completes, which the worker does at
        // least every WORKFLOW_TASK_LOSS_WINDOW_MS while they run: a kill loses the calls of the task
        // it cut short, those answered in that window before it, and they run again.
        const description = await handle.describe();
        const closedAt = description.closeTime!.getTime();
        const killsWhileRunning = kills.filter((k) => k.at > description.startTime.getTime() && k.at < closedAt);
        const localTasks = new Set(runs.filter((r) => r.local).map((r) => MODEL_TASK_OF_ACTIVITY[r.type]));
        const cutShort = (task: string) =>
          (callTimes[task] ?? []).filter((t) =>
            killsWhileRunning.some((k) => t <= k.at + CLOCK_SLACK_MS && t > k.at - WORKFLOW_TASK_LOSS_WINDOW_MS),
          ).length;
        for (const task of Object.keys(baseline.calls)) {
          const withoutModel = Math.max(0, (baselineOnce[task] ?? 0) - baseline.calls[task]);
          const unrecorded = localTasks.has(task) ? cutShort(task) : 0;
          expect(calls[task], `${name}: ${task} calls`).toBeGreaterThanOrEqual(completedOnce[task] - withoutModel);
          expect(calls[task], `${name}: ${task} calls`).toBeLessThanOrEqual(accounted[task] + unrecorded);
        }
        expect(closedAt, `${name}: still running at its kill`).toBeGreaterThan(ownKill);
        report.push(
          `${name}: completed ${closedAt - ownKill} ms after its kill (${killsWhileRunning.length} kill(s) while it ran); ` +
            `re-run: ${rerun.map((r) => `${r.type}×${r.attempt}`).join(', ') || 'none'}; ` +
            `model calls ${Object.values(calls).reduce((a, b) => a + b, 0)} (undisturbed ${Object.values(baseline.calls).reduce((a, b) => a + b, 0)})`,
        );
      }
      console.log(`[faults-crash] seed ${seed}; worker start-up ${startups.join(', ')} ms\n  ${report.join('\n  ')}`);
    },
    240_000,
  );

  it('resumes every flow after the dev server restarts on its database mid-flow', async () => {
    const restartKey = `${runKey}-r`;
    // No kill is timed against the answers here: a shorter delay only has to keep the long flows
    // running until the stop (proposal and EADS still have a dozen and more calls to go then).
    standin.setFaults({ latencyMs: RESTART_LATENCY_MS });
    const mark = { ...answered };
    const since = (flow: string) => (answered[flow] ?? 0) - (mark[flow] ?? 0);
    const handles = await Promise.all(FLOW_CASES.map((c) => startFlow(client, c.flow, c.input(restartKey))));
    // The long flows are well under way: each a few model calls in.
    await waitUntil(() => since('eads') >= 5 && since('proposal') >= 3, 'the long flows to be under way');
    const running = await Promise.all(
      handles.map(async (handle, i) =>
        (await handle.describe()).status.name === 'RUNNING' ? FLOW_CASES[i].name : undefined,
      ),
    );
    const stoppedAt = Date.now();
    await server.stop();
    server = await startDevServer({ port, dbFile: path.join(dbDir, 'dev.db'), quiet: true });
    const downMs = Date.now() - stoppedAt;
    await waitUntil(() => isListening(server.address), 'the restarted server');

    const report: string[] = [];
    await Promise.all(
      handles.map(async (handle, i) => {
        const c = FLOW_CASES[i];
        const result = await handle.result();
        report.push(
          `${c.name}: ${running.includes(c.name) ? `completed ${Date.now() - stoppedAt} ms after the stop` : 'had finished before the restart'}`,
        );
        expect(deterministicPart(result, restartKey), `${c.name}: result after the restart`).toEqual(
          deterministicPart(baselines.get(c.name)!.result, runKey),
        );
        const runs = await activityRuns(client, handle.workflowId, handle.firstExecutionRunId);
        expect(scheduledCounts(runs), `${c.name}: activities scheduled`).toEqual(baselines.get(c.name)!.scheduled);
      }),
    );
    expect(running).toEqual(expect.arrayContaining(['proposal', 'eads']));
    console.log(
      `[faults-crash] server down ${downMs} ms; running at the stop: ${running.filter(Boolean).join(', ')}\n  ${report.join('\n  ')}`,
    );
  }, 180_000);
});
