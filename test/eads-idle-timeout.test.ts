/**
 * Human waits end: an EADS interview nobody answers ends as `abandoned` after its
 * `idleTimeoutMinutes` (the pursuit's open question, or a guided interview's choice of the next
 * EADS), with the interview so far as `resume`; started again with it, the interview goes on
 * where it stopped. On the time-skipping test server, so the test does not wait for the timers.
 * The model is scripted per test: only the waits are tested here.
 */
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker } from '@temporalio/worker';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createBackends, type Backends } from '../backends';
import {
  eadsInterviewQuery,
  eadsInterviewWorkflowId,
  finishInterviewUpdate,
  type RunEadsInterviewOutput,
} from '../flows/eads/contract';
import { EadsSession } from '../access/eads-session';
import { startStandin, type StandinServer } from '../standin/server';
import { createFlowWorker } from '../workers/worker';
import { createTimeSkippingEnv, recordHistory, testConfig } from './helpers/harness';
import { until } from './proposal-helpers';
import { ScriptedModel } from './helpers/scripted-model';
import { ask, EADS_TASKS, expectScriptUsedUp, pick } from './helpers/eads-script';

const WARM_UP = 'process/warm-up-with-challenges';

describe('EADS interview idle timeouts (time-skipping)', () => {
  let env: TestWorkflowEnvironment;
  let standin: StandinServer;
  let backends: Backends;
  let worker: Worker;
  let running: Promise<void>;
  const taskQueue = `eads-idle-${randomUUID().slice(0, 8)}`;
  const model = new ScriptedModel();

  beforeAll(async () => {
    env = await createTimeSkippingEnv();
    standin = await startStandin({ rules: model.rules(EADS_TASKS) });
    backends = await createBackends(testConfig({ GOOGLE_GEMINI_BASE_URL: standin.url }));
    worker = await createFlowWorker({
      connection: env.nativeConnection,
      backends,
      taskQueue,
      workflowBundle: { codePath: inject('workflowBundlePath') },
    });
    running = worker.run();
  });
  afterAll(async () => {
    worker?.shutdown();
    await running;
    await backends?.close();
    await standin?.close();
    await env?.teardown();
  });

  const start = (projectId: string, input: Record<string, unknown>) =>
    env.client.workflow.start('runEadsInterview', {
      taskQueue,
      workflowId: eadsInterviewWorkflowId(projectId),
      args: [{ projectId, mode: 'human', ...input }],
    });

  it('a question nobody answers ends the pursuit and the interview as abandoned, to be resumed', async () => {
    const projectId = `idle-${randomUUID().slice(0, 6)}`;
    model.script({
      // Once: the resumed interview takes up the pending recommendation without asking again.
      'eads.orchestrate': [pick(WARM_UP)],
      // The resumed pursuit's question may or may not be written before the finish reaches it.
      'eads.question': {
        always: ask('Tell us what your firm produces and where planning it gets stuck.', ['product-or-service-name']),
      },
    });
    const handle = await start(projectId, { idleTimeoutMinutes: 45 });
    const began = await env.currentTimeMs();
    // Nobody answers the first question: the server skips ahead to the pursuit's timer.
    const out = (await handle.result()) as RunEadsInterviewOutput;
    expect((await env.currentTimeMs()) - began).toBeGreaterThanOrEqual(45 * 60_000);

    expect(out.status).toBe('abandoned');
    expect(out.pursuits).toHaveLength(1);
    const [pursuit] = out.pursuits;
    expect(pursuit).toMatchObject({ eadsId: WARM_UP, status: 'abandoned', questions: 1 });
    expect(out.schedule).toBeUndefined();
    // The resume state holds the abandoned pursuit and picks its EADS up first.
    expect(out.resume).toMatchObject({
      version: 1,
      runs: 2,
      pursuits: [{ eadsId: pursuit.eadsId, status: 'abandoned' }],
      pendingRecommendation: { eads_id: pursuit.eadsId },
    });
    expect(out.resume!.pursuits[0].questions[0]).toMatchObject({
      id: 'q1',
      answer: '',
      commit_notes: 'not answered within 45 minute(s)',
    });
    await recordHistory(handle, 'eads-interview-human-idle-timeout');
    await recordHistory(env.client.workflow.getHandle(pursuit.childWorkflowId), 'eads-pursuit-human-idle-timeout');

    // The interview client (npm run eads, the MCP tools) starts it again with `resume`: the same
    // EADS is pursued again, as pursuit 2 of run 2.
    const session = new EadsSession(env.client, projectId);
    expect(await session.ensure({ taskQueue, orchestration: 'auto' })).toEqual({ started: true, resumed: true });
    const resumed = env.client.workflow.getHandle(eadsInterviewWorkflowId(projectId));
    const view = await until(async () => {
      const v = await resumed.query(eadsInterviewQuery);
      return v.status === 'pursuing' && v.current?.childWorkflowId ? v : undefined;
    }, 'the resumed pursuit');
    expect(view.current).toMatchObject({ eadsId: pursuit.eadsId, pursuitNo: 2 });
    expect(view.runs).toBe(2);
    await resumed.executeUpdate(finishInterviewUpdate, { args: [{ reason: 'test done' }] });
    const finished = (await resumed.result()) as RunEadsInterviewOutput;
    expect(finished.status).toBe('finished');
    expect(finished.resume).toBeUndefined();
    expectScriptUsedUp(model);
    expect(model.count('eads.question')).toBeGreaterThanOrEqual(1);
  });

  it('a guided interview nobody starts a pursuit in ends as abandoned, keeping the recommendation', async () => {
    const projectId = `idle-guided-${randomUUID().slice(0, 6)}`;
    model.script({ 'eads.orchestrate': [pick(WARM_UP)] });
    const handle = await start(projectId, { orchestration: 'guided', idleTimeoutMinutes: 30 });
    const out = (await handle.result()) as RunEadsInterviewOutput;
    expect(out.status).toBe('abandoned');
    expect(out.pursuits).toEqual([]);
    expect(out.resume?.pendingRecommendation?.eads_id).toBe(WARM_UP);
    await recordHistory(handle, 'eads-interview-guided-idle-timeout');
    expectScriptUsedUp(model);
  });
});
