/**
 * Durable execution, proven with the real worker process: SIGKILL it while an activity is in
 * flight, start a new one, and the workflow completes without re-running the activities that
 * had completed before the crash.
 */
import { Client, Connection } from '@temporalio/client';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { platformCheckFlow } from '../flows/platform/contract';
import { startFlow } from '../access/flow-client';
import { startStandin, type StandinServer } from '../standin/server';
import { waitFor } from './helpers/wait';
import { workerProcessEnv } from './helpers/worker-process';

const ROOT = path.resolve(__dirname, '..');
const NAMESPACE = 'crash-test';

function startWorkerProcess(standinUrl: string): ChildProcess {
  return spawn(path.join(ROOT, 'node_modules', '.bin', 'tsx'), ['workers/worker.ts'], {
    cwd: ROOT,
    env: workerProcessEnv(NAMESPACE, standinUrl),
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group: tsx runs node as a child, and the kill must reach the real worker.
    detached: true,
  });
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    // already gone
  }
}

describe('worker crash in the middle of a workflow', () => {
  let client: Client;
  let standin: StandinServer;
  const workers: ChildProcess[] = [];
  beforeAll(async () => {
    const connection = await Connection.connect({ address: inject('temporalAddress') });
    client = new Client({ connection, namespace: NAMESPACE });
    // Slow model answers keep the last activity in flight long enough to kill the worker.
    standin = await startStandin({ faults: { latencyMs: 3000 } });
  });
  afterAll(async () => {
    for (const w of workers) killGroup(w, 'SIGKILL');
    await standin?.close();
    await client?.connection.close();
  });

  it('resumes on a new worker without re-running completed activities', async () => {
    const first = startWorkerProcess(standin.url);
    workers.push(first);
    const handle = await startFlow(client, platformCheckFlow, { topic: 'memory' });

    // Wait until the model step is running: search and warehouse steps have completed by then.
    await waitFor(
      async () => (standin.stats().byTask['platform.summarize'] ? true : undefined),
      'the model call to start',
    );
    const exited = new Promise((r) => first.once('exit', r));
    killGroup(first, 'SIGKILL');
    await exited;
    // The delay has done its work (the call was in flight at the kill): the retried call needs none.
    standin.setFaults({});

    const second = startWorkerProcess(standin.url);
    workers.push(second);
    const result = await handle.result();
    killGroup(second, 'SIGTERM');

    expect(result.rows.map((r) => r.part_number).sort()).toEqual(['PD-1003', 'PD-1004']);
    // The interrupted model call ran again (once lost, once completed)...
    expect(standin.stats().byTask['platform.summarize']).toBe(2);
    // ...but every activity completed exactly once, and the ones before the crash on their first attempt.
    const events = (await handle.fetchHistory()).events ?? [];
    const scheduled = new Map<string, string>();
    const completedOnAttempt: Record<string, number[]> = {};
    const startedAttempt = new Map<string, number>();
    for (const e of events) {
      const id = String(e.eventId);
      if (e.activityTaskScheduledEventAttributes)
        scheduled.set(id, e.activityTaskScheduledEventAttributes.activityType!.name!);
      if (e.activityTaskStartedEventAttributes)
        startedAttempt.set(
          String(e.activityTaskStartedEventAttributes.scheduledEventId),
          e.activityTaskStartedEventAttributes.attempt ?? 1,
        );
      if (e.activityTaskCompletedEventAttributes) {
        const sid = String(e.activityTaskCompletedEventAttributes.scheduledEventId);
        const name = scheduled.get(sid)!;
        (completedOnAttempt[name] ??= []).push(startedAttempt.get(sid) ?? 1);
      }
    }
    expect(completedOnAttempt).toEqual({
      describeBackends: [1],
      searchPlatformDocs: [1],
      queryComponents: [1],
      summarizeFindings: [2],
    });
  }, 120_000);
});
