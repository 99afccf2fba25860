/**
 * MCP tool calls and the workflows they attach to (client/mcp/server.ts). A call's workflow id
 * is keyed with the server's secret, so no one can work it out from the request and start
 * something else under it first; and an id someone learned anyway (it shows in listings, logs and
 * results) is only attached to when the run under it has the call's workflow type and start
 * input, read from its history. Identical calls still share one workflow, across servers that
 * share the secret. Payloads are encrypted here, so the input check reads through the codec.
 */
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson, createMcpServer, FlowCalls, stableWorkflowId } from '../client/mcp/server';
import { eadsInterviewWorkflowId } from '../flows/eads/contract';
import { platformCheckFlow, type PlatformCheckOutput } from '../flows/platform/contract';
import { createHarness, type Harness } from './helpers/harness';
import { waitFor } from './helpers/wait';

const SECRET = 'mcp-ids-test-secret-0123456789';

let h: Harness;
const logs: string[] = [];
const connected: Array<{ server: McpServer; mcp: McpClient }> = [];

/** An MCP server (as one `npm run mcp` process would be) and a client connected to it. */
async function mcpWith(secret: string | undefined): Promise<McpClient> {
  const server = createMcpServer(
    { client: h.client, taskQueue: h.taskQueue },
    { workflowIdSecret: secret, calls: new FlowCalls(), log: (line) => logs.push(line) },
  );
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const mcp = new McpClient({ name: 'mcp-ids-test', version: '0.0.0' });
  await Promise.all([server.connect(serverSide), mcp.connect(clientSide)]);
  connected.push({ server, mcp });
  return mcp;
}

const workflowIdOf = (result: { _meta?: Record<string, unknown> }) =>
  String(result._meta?.['agent-flows/workflowId'] ?? '');

beforeAll(async () => {
  h = await createHarness({ payloadKey: randomBytes(32).toString('base64') });
});
afterAll(async () => {
  for (const { mcp, server } of connected) {
    await mcp.close();
    await server.close();
  }
  await h?.close();
});

describe('MCP workflow ids', () => {
  it('are keyed with the server secret: the request alone does not give them away', () => {
    const input = platformCheckFlow.input.parse({ topic: 'battery' });
    const unkeyed = createHash('sha256')
      .update(`${platformCheckFlow.mcpTool}\n${canonicalJson(input)}`)
      .digest('hex');
    const id = stableWorkflowId(platformCheckFlow, input, SECRET);
    expect(id).toMatch(/^platform-check-battery-[0-9a-f]{16}$/);
    expect(id).not.toContain(unkeyed.slice(0, 12));
    // Stable for one secret (retries attach), different for another (or for the per-process default).
    expect(stableWorkflowId(platformCheckFlow, { ...input }, SECRET)).toBe(id);
    expect(stableWorkflowId(platformCheckFlow, input, `${SECRET}!`)).not.toBe(id);
    expect(stableWorkflowId(platformCheckFlow, input)).not.toBe(id);
  });

  it.each([
    ['the same workflow type with another input', 'platformCheck', { topic: 'what the squatter wants' }],
    ['another workflow type', 'answerBomQuestion', { question: 'Which BOMs use capacitors?' }],
  ])('are not attached to a run someone else started under them: %s', async (_case, type, squatterInput) => {
    const mcp = await mcpWith(SECRET);
    const input = { topic: `battery ${randomUUID().slice(0, 8)}` };
    // The id leaked (a listing, a log, an earlier result); the squatter starts first, on a queue
    // no worker polls, so its run is still open when the call comes.
    const id = stableWorkflowId(platformCheckFlow, platformCheckFlow.input.parse(input), SECRET);
    const squatter = await h.client.workflow.start(type, {
      taskQueue: `squatter-${randomUUID().slice(0, 8)}`,
      workflowId: id,
      args: [squatterInput],
    });
    const call = mcp.callTool({ name: platformCheckFlow.mcpTool, arguments: input });
    // Once the server has chosen its workflow, the squatter's run ends; a call attached to it
    // would now report that failure.
    await waitFor(() => logs.find((l) => l.includes(id)), 'the MCP server to choose its workflow');
    await squatter.terminate('the test ends the squatting run');
    const result = await call;
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    expect((result.structuredContent as PlatformCheckOutput).topic).toBe(input.topic);
    const own = workflowIdOf(result);
    expect(own).not.toBe(id);
    expect(own).toMatch(new RegExp(`^${id}-[0-9a-f]{16}$`));
    expect(logs.join('\n')).toContain(
      `not attaching to workflow ${id}: ${type === 'platformCheck' ? 'it was started with another input' : `it runs ${type}`}`,
    );
  });

  it('are not attached to a run whose start input cannot be read (another key, garbage)', async () => {
    const mcp = await mcpWith(SECRET);
    const input = { topic: `battery ${randomUUID().slice(0, 8)}` };
    const id = stableWorkflowId(platformCheckFlow, platformCheckFlow.input.parse(input), SECRET);
    // Started with the raw API, as a client with its own (or no) codec can: the input claims to be
    // encrypted but is not ours to decrypt.
    await h.client.workflowService.startWorkflowExecution({
      namespace: 'default',
      workflowId: id,
      workflowType: { name: platformCheckFlow.type },
      taskQueue: { name: `squatter-${randomUUID().slice(0, 8)}` },
      input: {
        payloads: [
          {
            metadata: { encoding: Buffer.from('binary/encrypted'), 'encryption-key-id': Buffer.from('not-ours') },
            data: randomBytes(64),
          },
        ],
      },
      requestId: randomUUID(),
      identity: 'squatter',
    });
    const call = mcp.callTool({ name: platformCheckFlow.mcpTool, arguments: input });
    await waitFor(() => logs.find((l) => l.includes(id)), 'the MCP server to choose its workflow');
    await h.client.workflow.getHandle(id).terminate('the test ends the squatting run');
    const result = await call;
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    expect((result.structuredContent as PlatformCheckOutput).topic).toBe(input.topic);
    expect(workflowIdOf(result)).toMatch(new RegExp(`^${id}-[0-9a-f]{16}$`));
    expect(logs.join('\n')).toMatch(new RegExp(`not attaching to workflow ${id}: it could not be checked`));
  });

  it('refuses an EADS interview id held by another workflow type, naming it', async () => {
    const mcp = await mcpWith(SECRET);
    const projectId = `squatted-${randomUUID().slice(0, 8)}`;
    const id = eadsInterviewWorkflowId(projectId);
    const squatter = await h.client.workflow.start('platformCheck', {
      taskQueue: `squatter-${randomUUID().slice(0, 8)}`,
      workflowId: id,
      args: [{ topic: 'not an interview' }],
    });
    const call = mcp.callTool({
      name: 'run_eads_interview',
      arguments: { projectId, mode: 'surrogate', fixture: 'brewery-flow-shop' },
    });
    await waitFor(() => logs.find((l) => l.includes(id)), 'the MCP server to look at the interview id');
    await squatter.terminate('the test ends the squatting run');
    const result = await call;
    expect(result.isError).toBe(true);
    expect((result.content as Array<{ text: string }>)[0].text).toMatch(
      new RegExp(`workflow ${id} is not a runEadsInterview run: it runs platformCheck`),
    );
  });

  it('still attaches identical calls to one workflow, across servers sharing the secret', async () => {
    const [a, b] = [await mcpWith(SECRET), await mcpWith(SECRET)];
    h.standin.setFaults({ latencyMs: 1500 });
    try {
      const input = { topic: `shared ${randomUUID().slice(0, 8)}` };
      const [ra, rb] = await Promise.all([
        a.callTool({ name: platformCheckFlow.mcpTool, arguments: input }),
        b.callTool({ name: platformCheckFlow.mcpTool, arguments: { ...input, limit: 5 } }),
      ]);
      expect(ra.isError).toBeFalsy();
      expect(workflowIdOf(ra)).toBe(stableWorkflowId(platformCheckFlow, platformCheckFlow.input.parse(input), SECRET));
      expect(workflowIdOf(rb)).toBe(workflowIdOf(ra));
      expect(rb.structuredContent).toEqual(ra.structuredContent);
      let runs = 0;
      for await (const w of h.client.workflow.list({ query: `WorkflowId = "${workflowIdOf(ra)}"` })) {
        if (w.workflowId === workflowIdOf(ra)) runs++;
      }
      expect(runs).toBe(1);
      // A server with another secret names the same request differently.
      const other = await mcpWith('another-secret-0123456789');
      const rc = await other.callTool({ name: platformCheckFlow.mcpTool, arguments: input });
      expect(workflowIdOf(rc)).not.toBe(workflowIdOf(ra));
    } finally {
      h.standin.setFaults({});
    }
  });
});

describe('MCP calls', () => {
  it('a caller who goes away while its workflow is still starting gets that workflow cancelled', async () => {
    // The HTTP transport forgets a request once its connection closes, so the call must hold its
    // disconnect signal from the moment it arrives, not from when its workflow has started.
    h.standin.setFaults({ latencyMs: 30_000 });
    const connection = new AbortController();
    let open = true;
    let started!: () => void;
    const starting = new Promise<void>((resolve) => (started = resolve));
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slowStart = new Proxy(h.client.workflow, {
      get(target, key, receiver) {
        if (key !== 'start') return Reflect.get(target, key, receiver);
        return async (...args: Parameters<typeof target.start>) => {
          started();
          await gate;
          return target.start(...args);
        };
      },
    });
    const client = new Proxy(h.client, {
      get: (target, key, receiver) => (key === 'workflow' ? slowStart : Reflect.get(target, key, receiver)),
    });
    const server = createMcpServer(
      { client, taskQueue: h.taskQueue },
      {
        workflowIdSecret: SECRET,
        calls: new FlowCalls(),
        log: (line) => logs.push(line),
        disconnectSignal: () => (open ? connection.signal : undefined),
      },
    );
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const mcp = new McpClient({ name: 'mcp-leaver', version: '0.0.0' });
    await Promise.all([server.connect(serverSide), mcp.connect(clientSide)]);
    connected.push({ server, mcp });
    try {
      const input = { topic: `leaver ${randomUUID().slice(0, 8)}` };
      void mcp.callTool({ name: platformCheckFlow.mcpTool, arguments: input }).catch(() => undefined);
      await starting;
      open = false; // the connection closes, and the transport forgets the request
      connection.abort(new Error('HTTP client disconnected'));
      release();
      const handle = h.client.workflow.getHandle(
        stableWorkflowId(platformCheckFlow, platformCheckFlow.input.parse(input), SECRET),
      );
      const status = async () => (await handle.describe().catch(() => undefined))?.status.name;
      await waitFor(async () => ((await status()) === 'CANCELLED' ? true : undefined), 'the workflow cancelled', {
        timeoutMs: 20_000,
      });
    } finally {
      h.standin.setFaults({});
    }
  });
});
