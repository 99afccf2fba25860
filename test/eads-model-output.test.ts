/**
 * An EADS interview whose model cannot write a question within its token limit ends at once,
 * saying why, instead of pursuing one EADS after another until maxPursuits without asking
 * anything (on the local model: 12 pursuits in 33 minutes, each failing after 5 attempts).
 *
 * The worker runs AGENT_FLOWS_MODEL=openai against the Chat Completions wire fake: the
 * orchestrator's reply is valid, every reply to the question, repairs included, is cut at the
 * token limit (`finish_reason: length`) in both attempts the step gets for that.
 */
import { PassThrough } from 'node:stream';
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTerminalInterview } from '../client/eads-interview';
import { EadsSessionError } from '../access/eads-session';
import { eadsInterviewWorkflowId, pursuitWorkflowId, runEadsInterviewFlow } from '../flows/eads/contract';
import { startOpenAIFake, type OpenAIFake } from './fakes/openai';
import { createHarness, recordHistory, type Harness } from './helpers/harness';

/** The orchestrator's reply, valid: the interview starts with the warm-up. */
const orchestratorReply = {
  content: JSON.stringify({
    eads_id: 'process/warm-up-with-challenges',
    rationale: 'Start with the warm-up.',
    interviewer_type: 'process',
    priority: 1,
  }),
};

describe('EADS interview on a model whose replies are cut at the token limit', () => {
  let fake: OpenAIFake;
  let h: Harness;
  beforeAll(async () => {
    fake = await startOpenAIFake();
    h = await createHarness({
      config: {
        AGENT_FLOWS_MODEL: 'openai',
        OPENAI_BASE_URL: fake.url,
        OPENAI_MODEL: 'small-model',
        MODEL_MAX_REPAIRS: '1',
      },
    });
  });
  afterAll(async () => {
    await h?.close();
    await fake?.close();
  });

  it('stops at the first question with a non-retryable ModelOutputInvalid that says the replies were cut', async () => {
    const cut = { content: '{"question":"What do you make, and how, and why, and', finishReason: 'length' };
    fake.script(
      orchestratorReply,
      // The question's first attempt (the reply and its repair), then its second, at once.
      cut,
      cut,
      cut,
      cut,
    );
    const handle = await h.start(runEadsInterviewFlow, {
      projectId: `cut-replies-${Date.now().toString(36)}`,
      mode: 'surrogate',
      fixture: 'brewery-flow-shop',
    });
    const error = await handle.result().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(WorkflowFailedError);
    const failure = (error as WorkflowFailedError).cause;
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure).toMatchObject({ type: 'ModelOutputInvalid', nonRetryable: true });
    expect((failure as ApplicationFailure).message).toMatch(
      /^the interview stopped at pursuit 1 \(process\/warm-up-with-challenges\): could not generate a question: eads\.question: .*every reply was cut off at the token limit \(set by the server\) \(attempt 2\): not retried further/,
    );
    // One orchestrator call and two attempts at the question with one repair each: nothing more asked.
    expect(
      fake.requests.map((r) => (r.body.response_format as { json_schema: { name: string } }).json_schema.name),
    ).toEqual(['eads_orchestrate', 'eads_question', 'eads_question', 'eads_question', 'eads_question']);
    await recordHistory(handle, 'eads-interview-model-output-cut');
    await recordHistory(
      h.client.workflow.getHandle(pursuitWorkflowId(handle.workflowId, 1, 'process/warm-up-with-challenges')),
      'eads-pursuit-model-output-cut',
    );
  });

  it('ends the terminal client on the failed interview, even when the pursuit fails while the client waits for its question', async () => {
    // The question's replies come slowly, so the client's update waiting for the first question
    // is in flight when the pursuit fails: the server then fails that update, and the client
    // must still end on the interview's failure, not on the failed update.
    const cut = {
      content: '{"question":"What do you make, and how, and why, and',
      finishReason: 'length',
      delayMs: 300,
    };
    fake.script(orchestratorReply, cut, cut, cut, cut);
    const projectId = `cut-terminal-${Date.now().toString(36)}`;
    const input = new PassThrough();
    const output = new PassThrough();
    let printed = '';
    output.on('data', (c: Buffer) => (printed += c.toString('utf8')));
    const ended = await runTerminalInterview({
      client: h.client,
      projectId,
      input,
      output,
      taskQueue: h.taskQueue,
    }).then(
      (code) => ({ code }),
      (error: unknown) => ({ error }),
    );
    input.end();
    // The person is told why the interview stopped: the cut-off replies, not "Workflow execution failed".
    expect('error' in ended ? ended.error : ended, printed.slice(-1500)).toBeInstanceOf(EadsSessionError);
    expect((ended as { error: EadsSessionError }).error.message).toMatch(
      /the interview for project .* failed: .*cut off at the token limit/,
    );
    const failure = await h.client.workflow
      .getHandle(eadsInterviewWorkflowId(projectId))
      .result()
      .catch((err: WorkflowFailedError) => err.cause);
    expect(failure).toMatchObject({ type: 'ModelOutputInvalid', nonRetryable: true });
    const run = await h.client.workflow.getHandle(eadsInterviewWorkflowId(projectId)).describe();
    expect(run.status.name).toBe('FAILED');
  });
});
