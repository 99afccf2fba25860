/**
 * Idle timeouts on the time-skipping test server: an abandoned interview (and an unanswered
 * review gate) ends cleanly after the configured idle time, without the test waiting for it.
 */
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker } from '@temporalio/worker';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createBackends, type Backends } from '../backends';
import { EXAMPLE_PROFILE, type ProposalOutput } from '../flows/proposal/contract';
import { startStandin, type StandinServer } from '../standin/server';
import { answerQuestionUpdate, proposalStateQuery } from '../flows/proposal/messages';
import { createFlowWorker } from '../workers/worker';
import { createTimeSkippingEnv, recordHistory, testConfig } from './helpers/harness';
import { ScriptedModel } from './helpers/scripted-model';
import { passingScript, PROPOSAL_STAGE_TASKS } from './proposal-helpers';

describe('writeResearchProposal idle timeouts (time-skipping)', () => {
  let env: TestWorkflowEnvironment;
  let standin: StandinServer;
  let backends: Backends;
  let worker: Worker;
  let running: Promise<void>;
  const taskQueue = `proposal-timeout-${randomUUID().slice(0, 8)}`;

  beforeAll(async () => {
    env = await createTimeSkippingEnv();
    // The stages answer from a script: these tests are about the idle clocks, not the proposal.
    standin = await startStandin({ rules: new ScriptedModel().script(passingScript()).rules(PROPOSAL_STAGE_TASKS) });
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

  it('ends an abandoned interview cleanly after the idle timeout', async () => {
    const handle = await env.client.workflow.start('writeResearchProposal', {
      taskQueue,
      workflowId: `research-proposal-idle-${randomUUID().slice(0, 6)}`,
      args: [{ mode: 'interactive', idleTimeoutMinutes: 90 }],
    });
    await handle.executeUpdate(answerQuestionUpdate, { args: [{ answer: 'PhD', questionId: 'academic_program' }] });
    const started = await env.currentTimeMs();
    // Nobody answers question 2: the server skips ahead to the timer.
    const out = (await handle.result()) as ProposalOutput;
    const skippedMs = (await env.currentTimeMs()) - started;

    expect(out).toMatchObject({
      status: 'abandoned',
      state: 'ABANDONED',
      profile: null,
      proposal: null,
      pdf: null,
      error: null,
    });
    expect(out.interview).toEqual({ asked: 9, answered: 1, outcome: 'abandoned' });
    expect(out.transitions.map((t) => t.to)).toEqual(['INTERVIEWING', 'ABANDONED']);
    expect(out.transitions[1].note).toMatch(/no answer to "field_of_study" within 90 minute/);
    // Workflow time moved by the idle timeout (the test itself took seconds).
    expect(skippedMs).toBeGreaterThanOrEqual(90 * 60_000);
    expect(Date.parse(out.transitions[1].at) - Date.parse(out.transitions[0].at)).toBeGreaterThanOrEqual(90 * 60_000);
    expect(standin.stats().requests).toBe(0);
    await recordHistory(handle, 'research-proposal-interview-idle-timeout');
  });

  it('each answer restarts the idle clock', async () => {
    const handle = await env.client.workflow.start('writeResearchProposal', {
      taskQueue,
      workflowId: `research-proposal-idle-${randomUUID().slice(0, 6)}`,
      args: [{ mode: 'interactive', idleTimeoutMinutes: 60 }],
    });
    // Sent at once: the answer names its question, and the first question is open from the first
    // workflow task, so an update that arrives with the start is not refused.
    await handle.executeUpdate(answerQuestionUpdate, { args: [{ answer: 'PhD', questionId: 'academic_program' }] });
    await env.sleep('45 minutes');
    await handle.executeUpdate(answerQuestionUpdate, { args: [{ answer: 'Biology', questionId: 'field_of_study' }] });
    await env.sleep('45 minutes');
    // 90 minutes after the start, but only 45 since the last answer: still waiting.
    expect((await handle.query(proposalStateQuery)).state).toBe('INTERVIEWING');
    const out = (await handle.result()) as ProposalOutput;
    expect(out.interview).toEqual({ asked: 9, answered: 2, outcome: 'abandoned' });
  });

  it('an unanswered review gate ends as abandoned, keeping the proposal but writing no PDF', async () => {
    const handle = await env.client.workflow.start('writeResearchProposal', {
      taskQueue,
      workflowId: `research-proposal-review-idle-${randomUUID().slice(0, 6)}`,
      args: [{ mode: 'autonomous', profile: EXAMPLE_PROFILE, review: true, idleTimeoutMinutes: 30 }],
    });
    const out = (await handle.result()) as ProposalOutput;
    expect(out).toMatchObject({ status: 'abandoned', state: 'ABANDONED', pdf: null });
    expect(out.review).toEqual({ required: true, outcome: 'timed-out', rounds: [] });
    expect(out.proposal?.quality_validation.validation_passed).toBe(true);
    expect(out.transitions.map((t) => t.to).slice(-2)).toEqual(['AWAITING_REVIEW', 'ABANDONED']);
  });
});
