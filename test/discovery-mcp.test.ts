/**
 * The MCP server as a client sees it: `client/mcp/main.ts` spawned with `tsx`, over stdio and
 * over Streamable HTTP, driving `discover_from_prp` on this file's harness worker (the server
 * talks to the test dev server through TEMPORAL_ADDRESS, on the harness's task queue). The model
 * is scripted per PRP (a plan and a ledger of which table supplies which columns): what is tested
 * is the MCP transport, progress and cancellation, not what the stand-in would choose.
 */
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Progress as McpProgress } from '@modelcontextprotocol/sdk/types.js';
import { CancelledFailure, WorkflowFailedError } from '@temporalio/client';
import { rootCause } from '@temporalio/common';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { DATA_DIR } from '../backends';
import { discoverFromPrpFlow, type DiscoverFromPrpOutput } from '../flows/discovery/contract';
import { flows } from '../flows/registry';
import { stableWorkflowId } from '../client/mcp/server';
import { ModelTask } from '../flows/discovery/model-tasks';
import { createHarness, type Harness } from './helpers/harness';
import { DISCOVERY_TASKS, planReply, scriptedVerdicts, type ScriptedStep } from './helpers/scripted-discovery';
import { ScriptedModel, type Reply, type Sections } from './helpers/scripted-model';

const ROOT = path.resolve(__dirname, '..');
const TSX = path.join(ROOT, 'node_modules', '.bin', 'tsx');
const MAIN = path.join(ROOT, 'client', 'mcp', 'main.ts');
const prp = (name: string) => readFileSync(path.join(DATA_DIR, 'prp', `${name}.md`), 'utf8');

/** The plan for each bundled PRP this file runs, by the PRP's title; the tables that supply its columns. */
const PLANS: Array<[RegExp, ScriptedStep[]]> = [
  [
    /Weather Impact on NFL Scoring/,
    [
      { group: 'stadiums', query: 'NFL stadiums roof type', columns: ['stadium_name', 'roof_type'] },
      {
        group: 'kickoff weather',
        query: 'NFL weather at kickoff temperature wind precipitation',
        columns: ['temperature_f', 'wind_mph', 'precipitation'],
      },
    ],
  ],
  [
    /NFL Game Prediction Accuracy Tracker/,
    [
      {
        group: 'actual results',
        query: 'NFL final scores actual home score away score winner',
        columns: ['actual_home_score', 'actual_away_score', 'actual_winner'],
      },
    ],
  ],
  [
    /NFL Spread Edge Report/,
    [
      {
        group: 'closing lines',
        query: 'NFL closing betting lines spread moneyline',
        columns: ['closing_spread', 'closing_total', 'moneyline_home'],
      },
    ],
  ],
];
const model = new ScriptedModel();
const script = {
  [ModelTask.discoveryPlan]: {
    always: (sections: Sections): Reply => {
      const plan = PLANS.find(([title]) => title.test(String(sections.prp)));
      if (!plan) throw Object.assign(new Error('no plan scripted for this PRP'), { status: 400 });
      return planReply(plan[1]);
    },
  },
  [ModelTask.discoveryValidate]: scriptedVerdicts({
    'sports-analytics-prod.nfl_core.stadiums': { columns: ['stadium_name', 'roof_type'] },
    'sports-analytics-prod.nfl_core.weather_at_kickoff': { columns: ['temperature_f', 'wind_mph', 'precipitation'] },
    'sports-analytics-prod.nfl_results.final_scores': { columns: ['actual_home_score', 'actual_away_score'] },
    'sports-analytics-prod.nfl_betting.closing_lines': {
      columns: ['closing_spread', 'closing_total', 'moneyline_home'],
    },
  }),
};

let h: Harness;
/** The servers' workflow-id key, so this file can name the workflow a call runs. */
const ID_SECRET = 'discovery-mcp-test-secret';
const serverEnv = () => ({
  ...(process.env as Record<string, string>),
  TEMPORAL_ADDRESS: inject('temporalAddress'),
  TEMPORAL_NAMESPACE: 'default',
  MCP_TASK_QUEUE: h.taskQueue,
  MCP_WORKFLOW_ID_SECRET: ID_SECRET,
});

async function connectStdio(): Promise<{ client: McpClient; transport: StdioClientTransport; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: TSX,
    args: [MAIN],
    env: serverEnv(),
    cwd: ROOT,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new McpClient({ name: 'agent-flows-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport, stderr: () => stderr };
}

/** Waits until the workflow for this input exists and is running, then returns its handle. */
async function runningWorkflow(input: unknown) {
  const id = stableWorkflowId(discoverFromPrpFlow, discoverFromPrpFlow.input.parse(input), ID_SECRET);
  const handle = h.client.workflow.getHandle(id);
  for (let i = 0; i < 150; i++) {
    const status = await handle.describe().then(
      (d) => d.status.name,
      () => undefined,
    );
    if (status === 'RUNNING') return handle;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`workflow ${id} never ran`);
}

async function expectCancelled(handle: ReturnType<typeof h.client.workflow.getHandle>, log: () => string = () => '') {
  const error = await handle.result().catch((e) => e);
  expect(error).toBeInstanceOf(WorkflowFailedError);
  const cause = (error as WorkflowFailedError).cause;
  // When the run ends otherwise, say how: which events closed its activities, and the root cause.
  const story = async () =>
    ((await handle.fetchHistory()).events ?? [])
      .map((e) => {
        const failed = e.activityTaskFailedEventAttributes ?? e.activityTaskTimedOutEventAttributes;
        const name = String(e.eventType ?? '').replace('EVENT_TYPE_', '');
        return failed ? `${name}: ${failed.failure?.message ?? ''} ${failed.failure?.cause?.message ?? ''}` : name;
      })
      .join('\n');
  if (!(cause instanceof CancelledFailure)) {
    expect.fail(
      `the run ended with ${cause?.name}: ${rootCause(cause)}, not cancelled; its history:\n${await story()}\nthe server's log:\n${log()}`,
    );
  }
  expect((await handle.describe()).status.name).toBe('CANCELLED');
}

beforeAll(async () => {
  h = await createHarness({ rules: model.rules(DISCOVERY_TASKS) });
});
afterAll(async () => h?.close());
beforeEach(() => {
  h.standin.setFaults({});
  model.script(script);
});

describe('MCP over stdio (tsx client/mcp/main.ts)', () => {
  it(
    'lists one tool per flow with its input schema, and runs discover_from_prp with ' + 'progress notifications',
    async () => {
      const { client } = await connectStdio();
      try {
        const { tools } = await client.listTools();
        // One tool per registered flow, plus the tools flows register through client/mcp/tools.ts.
        expect(tools.map((t) => t.name)).toEqual(
          expect.arrayContaining([...flows.map((f) => f.mcpTool), 'get_next_eads']),
        );
        const tool = tools.find((t) => t.name === 'discover_from_prp')!;
        expect(tool.inputSchema.required).toEqual(['prp']);
        expect(Object.keys(tool.inputSchema.properties ?? {})).toEqual([
          'prp',
          'targetSchema',
          'maxCandidatesPerStep',
          'concurrency',
        ]);
        expect(tool.outputSchema?.properties).toHaveProperty('results');

        // A little model latency keeps the run long enough to be observed.
        h.standin.setFaults({ latencyMs: 150 });
        const progress: McpProgress[] = [];
        const input = { prp: prp('nfl-weather-scoring'), maxCandidatesPerStep: 3, concurrency: 2 };
        const result = await client.callTool({ name: 'discover_from_prp', arguments: input }, undefined, {
          onprogress: (p) => progress.push(p),
          resetTimeoutOnProgress: true,
        });
        expect(result.isError).toBeFalsy();
        const out = result.structuredContent as DiscoverFromPrpOutput;
        // Groups are named from their columns: find the one that searched for the wind.
        const weather = out.results.find((r) => r.target_columns.some((c) => c.name === 'wind_mph'))!;
        expect(weather.discovered_tables.map((t) => t.table_id)).toEqual(['weather_at_kickoff']);
        const workflowId = stableWorkflowId(discoverFromPrpFlow, discoverFromPrpFlow.input.parse(input), ID_SECRET);
        expect(result._meta).toMatchObject({ 'agent-flows/workflowId': workflowId });
        expect((result.content as Array<{ text: string }>)[0].text).toContain(weather.conceptual_group);

        expect(progress.length).toBeGreaterThanOrEqual(2);
        const values = progress.map((p) => p.progress);
        expect(values).toEqual([...values].sort((a, b) => a - b));
        expect(new Set(values).size).toBe(values.length);
        expect(progress.some((p) => /searched/.test(p.message ?? ''))).toBe(true);
      } finally {
        await client.close();
      }
    },
  );

  it('reports a failed flow as a tool error and rejects bad arguments before starting anything', async () => {
    const { client } = await connectStdio();
    try {
      const failed = await client.callTool({
        name: 'discover_from_prp',
        arguments: { prp: '# PRP: nothing here\n\nNo schema.' },
      });
      expect(failed.isError).toBe(true);
      expect((failed.content as Array<{ text: string }>)[0].text).toMatch(/TargetSchemaMissing: .*section 9/);
      const bad = await client.callTool({ name: 'discover_from_prp', arguments: { prp: 'x', concurrency: 0 } });
      expect(bad.isError).toBe(true);
      expect((bad.content as Array<{ text: string }>)[0].text).toMatch(/concurrency/);
    } finally {
      await client.close();
    }
  });

  it('an MCP cancellation of the request cancels the workflow', async () => {
    h.standin.setFaults({ latencyMs: 30_000 });
    const { client, stderr } = await connectStdio();
    try {
      const input = { prp: prp('nfl-betting-edge'), maxCandidatesPerStep: 1 };
      const abort = new AbortController();
      const call = client
        .callTool({ name: 'discover_from_prp', arguments: input }, undefined, { signal: abort.signal })
        .catch((e) => e);
      const handle = await runningWorkflow(input);
      abort.abort('user pressed stop');
      expect(await call).toBeInstanceOf(Error);
      await expectCancelled(handle);
      expect(stderr()).toMatch(/the MCP client cancelled the request; cancelling the workflow/);
    } finally {
      await client.close();
    }
  });

  it('closing stdin (the client disconnecting) cancels the running workflow and ends the server', async () => {
    h.standin.setFaults({ latencyMs: 30_000 });
    const { client, transport, stderr } = await connectStdio();
    const input = { prp: prp('nfl-betting-edge'), maxCandidatesPerStep: 2 };
    void client.callTool({ name: 'discover_from_prp', arguments: input }).catch(() => undefined);
    const handle = await runningWorkflow(input);
    const pid = transport.pid!;
    await transport.close(); // ends stdin first, as a client that goes away does
    await expectCancelled(handle);
    expect(stderr()).toMatch(/stdin closed: cancelling 1 running call/);
    expect(() => process.kill(pid, 0)).toThrow(); // the server process is gone
  });
});

describe('MCP over Streamable HTTP (tsx client/mcp/main.ts --http)', () => {
  let server: ChildProcess;
  let url: URL;
  let serverLog = '';

  beforeAll(async () => {
    server = spawn(TSX, [MAIN, '--http', '--port', '0'], {
      cwd: ROOT,
      env: serverEnv(),
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    url = await new Promise<URL>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`MCP HTTP server did not start: ${serverLog}`)), 60_000);
      server.stderr!.on('data', (chunk: Buffer) => {
        serverLog += chunk.toString();
        const m = /listening on (http:\/\/\S+)/.exec(serverLog);
        if (m) {
          clearTimeout(timer);
          resolve(new URL(m[1]));
        }
      });
      server.once('exit', (code) => reject(new Error(`MCP HTTP server exited with ${code}: ${serverLog}`)));
    });
  });
  afterAll(async () => {
    if (server && server.exitCode === null) {
      const exited = new Promise((r) => server.once('exit', r));
      server.kill('SIGTERM');
      await exited;
    }
  });

  async function connectHttp() {
    const transport = new StreamableHTTPClientTransport(url);
    const client = new McpClient({ name: 'agent-flows-test', version: '1.0.0' });
    await client.connect(transport);
    return { client, transport };
  }

  it('listens on 127.0.0.1 and refuses foreign Host and Origin headers (DNS rebinding)', async () => {
    expect(url.hostname).toBe('127.0.0.1');
    const post = (headers: Record<string, string>) =>
      new Promise<number>((resolve, reject) => {
        const req = http.request(
          url,
          {
            method: 'POST',
            headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.once('error', reject);
        req.end('{"jsonrpc":"2.0","id":1,"method":"ping"}');
      });
    expect(await post({ host: 'evil.example' })).toBe(403);
    expect(await post({ origin: 'http://evil.example' })).toBe(403);
    // A local caller without a session is told to initialize first.
    expect(await post({})).toBe(400);
  });

  it('runs discover_from_prp; identical concurrent calls attach to one workflow', async () => {
    const a = await connectHttp();
    const b = await connectHttp();
    try {
      h.standin.setFaults({ latencyMs: 100 });
      const input = { prp: prp('nfl-prediction-accuracy'), maxCandidatesPerStep: 2 };
      const progress: McpProgress[] = [];
      const [ra, rb] = await Promise.all([
        a.client.callTool({ name: 'discover_from_prp', arguments: input }, undefined, {
          onprogress: (p) => progress.push(p),
        }),
        b.client.callTool({ name: 'discover_from_prp', arguments: { ...input, concurrency: 8 } }),
      ]);
      expect(ra.isError).toBeFalsy();
      expect(rb.structuredContent).toEqual(ra.structuredContent);
      expect(ra._meta).toEqual(rb._meta);
      const out = ra.structuredContent as DiscoverFromPrpOutput;
      expect(out.results.flatMap((r) => r.discovered_tables.map((t) => t.table_id))).toEqual(['final_scores']);
      // Both calls ran one workflow: the plan was asked once.
      // (Counted by PRP: a hanging call of an earlier test's cancelled run may still arrive.)
      expect(
        model.prompts(ModelTask.discoveryPlan).filter((p) => /Prediction Accuracy Tracker/.test(String(p.prp))),
      ).toHaveLength(1);
      expect(progress.length).toBeGreaterThanOrEqual(1);
      // One workflow execution for both calls.
      const id = (ra._meta as Record<string, string>)['agent-flows/workflowId'];
      let runs = 0;
      for await (const w of h.client.workflow.list({ query: `WorkflowId = "${id}"` })) if (w.workflowId === id) runs++;
      expect(runs).toBe(1);
    } finally {
      await a.client.close();
      await b.client.close();
    }
  });

  it('an MCP cancellation over HTTP reaches its call (same session) and cancels the workflow', async () => {
    h.standin.setFaults({ latencyMs: 30_000 });
    const { client } = await connectHttp();
    try {
      const input = { prp: prp('nfl-weather-scoring'), maxCandidatesPerStep: 1 };
      const abort = new AbortController();
      const call = client
        .callTool({ name: 'discover_from_prp', arguments: input }, undefined, { signal: abort.signal })
        .catch((e) => e);
      const handle = await runningWorkflow(input);
      abort.abort('stop');
      expect(await call).toBeInstanceOf(Error);
      await expectCancelled(handle);
    } finally {
      await client.close();
    }
  });

  it('a client that drops the HTTP connection mid-call gets its workflow cancelled', async () => {
    h.standin.setFaults({ latencyMs: 30_000 });
    const { client, transport } = await connectHttp();
    const input = { prp: prp('nfl-weather-scoring'), maxCandidatesPerStep: 2, concurrency: 2 };
    void client.callTool({ name: 'discover_from_prp', arguments: input }).catch(() => undefined);
    const handle = await runningWorkflow(input);
    await transport.close(); // aborts the open POST: the connection closes without a goodbye
    await expectCancelled(handle, () => serverLog);
    expect(serverLog).toMatch(/the MCP client disconnected; cancelling the workflow/);
  });
});
