/**
 * One way to end, in every flow. A cancelled run closes Cancelled, its state is tidied (no open
 * question or review left to answer), and the `progress` query says `cancelled` with where it
 * stopped (before, only discovery said so: a cancelled proposal or platform check kept saying it
 * was waiting or running). A failed step fails the run: the proposal too, which used to complete
 * with status `error`; the terminal interview and the MCP tool show the partial result the failure carries.
 */
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { WorkflowFailedError } from '@temporalio/client';
import { CancelledFailure } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpServer } from '../client/mcp/server';
import type { FlowDefinition } from '../contracts/common';
import { progressQuery } from '../contracts/progress-messages';
import { platformCheckFlow } from '../flows/platform/contract';
import { EXAMPLE_PROFILE, researchProposalFlow } from '../flows/proposal/contract';
import { currentQuestionQuery, proposalStateQuery } from '../flows/proposal/messages';
import { main as interviewCli, type InterviewIO } from '../client/proposal-interview';
import { createHarness, recordHistory, type Harness } from './helpers/harness';
import { ScriptedModel } from './helpers/scripted-model';
import { until } from './proposal-helpers';

async function expectCancelled(handle: {
  result(): Promise<unknown>;
  describe(): Promise<{ status: { name: string } }>;
}) {
  const err = await handle.result().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(WorkflowFailedError);
  expect((err as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
  expect((await handle.describe()).status.name).toBe('CANCELLED');
}

describe('how runs end', () => {
  let h: Harness;
  const model = new ScriptedModel();
  // The platform check's summary hangs until the test lets it go (after the cancellation).
  let release: () => void = () => {};
  beforeAll(async () => {
    h = await createHarness({ rules: model.rules(['platform.summarize']) });
  });
  afterAll(async () => {
    release();
    await h?.close();
  });

  it('platform check cancelled during its model call', async () => {
    let asked = false;
    const held = new Promise<void>((r) => (release = r));
    model.script({
      'platform.summarize': {
        always: async () => {
          asked = true;
          await held;
          return { summary: 'too late', highlights: [] };
        },
      },
    });
    const handle = await h.start(platformCheckFlow, { topic: 'memory' });
    await until(async () => (asked ? true : undefined), 'the summary to be asked for');
    await handle.cancel();
    await expectCancelled(handle);
    expect(await handle.query(progressQuery)).toMatchObject({ status: 'cancelled', stage: 'summarise' });
    release();
  });

  it('proposal interview cancelled while it waits for an answer', async () => {
    const handle = await h.start(researchProposalFlow, { mode: 'interactive' });
    await until(async () => (await handle.query(currentQuestionQuery)) ?? undefined, 'the first question');
    await handle.cancel();
    await expectCancelled(handle);
    expect(await handle.query(progressQuery)).toMatchObject({ status: 'cancelled', stage: 'interview' });
    // Nothing is left open to answer.
    expect(await handle.query(proposalStateQuery)).toMatchObject({ awaiting: null });
    expect(await handle.query(currentQuestionQuery)).toBeNull();
    await recordHistory(handle, 'research-proposal-interview-cancelled');
  });

  it('the terminal interview shows a failed proposal’s partial result and exits 1', async () => {
    // The stand-in answers no proposal stage here: the first one fails (HTTP 400, non-retryable).
    const handle = await h.start(researchProposalFlow, {
      mode: 'interactive',
      profile: {
        academic_program: 'PhD',
        field_of_study: 'Psychology',
        research_area: 'Loneliness in remote work',
        existing_skills: ['SPSS'],
        missing_skills: [],
        constraints: ['No budget'],
      },
    });
    const answers = ['20', '1 year', 'skip'];
    const transcript: string[] = [];
    const io: InterviewIO = {
      ask: async (prompt) => (transcript.push(prompt), answers.shift() ?? null),
      print: (line) => void transcript.push(line),
    };
    expect(await interviewCli(['--id', handle.workflowId], io, h.client)).toBe(1);
    const text = transcript.join('\n');
    expect(text).toMatch(/^ {2}error \(ERROR\)/m);
    expect(text).toMatch(/error in PROBLEM_FORMULATION: proposal\.problem_formulation: .*HTTP 400/);
    expect((await handle.describe()).status.name).toBe('FAILED');
  });

  it('the MCP tool of a failed proposal is an error that carries the partial result', async () => {
    const server = createMcpServer(
      { client: h.client, taskQueue: h.taskQueue },
      { flows: [researchProposalFlow as unknown as FlowDefinition], registrars: [] },
    );
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const mcp = new McpClient({ name: 'ending-test', version: '1.0.0' });
    await Promise.all([server.connect(serverSide), mcp.connect(clientSide)]);
    try {
      const call = await mcp.callTool({
        name: 'write_research_proposal',
        arguments: { mode: 'autonomous', profile: EXAMPLE_PROFILE },
      });
      expect(call.isError).toBe(true);
      const content = call.content as Array<{ type: string; text: string }>;
      expect(content[0].text).toMatch(
        /did not complete: ModelRequestRejected: proposal\.problem_formulation: .*HTTP 400/,
      );
      expect(JSON.parse(content[1].text)).toMatchObject({
        status: 'error',
        state: 'ERROR',
        error: { state: 'PROBLEM_FORMULATION', type: 'ModelRequestRejected' },
      });
    } finally {
      await mcp.close();
      await server.close();
    }
  });
});
