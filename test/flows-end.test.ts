/**
 * Every flow ends, whatever its input. Generated hostile inputs within the size limits (long runs
 * of whitespace, pathological headings and table rows, many headings, many steps × orders, text
 * that makes backtracking patterns work, deep nesting, unicode, NUL bytes) go to every flow
 * through every way in: a start by the thin client, a raw start that skips the client's checks,
 * the control plane's execute API, the MCP tools, updates and signals to the runs waiting for a
 * person. Each run must end, Completed or Failed, within a bound, and no run on the task queue
 * may record a failed workflow task: a task that fails on bad data is retried for ever while its
 * run stays Running (what a PRP with a long heading and a 21 KB SCR did before).
 *
 * Seeded (`HOSTILE_SEED` explores others); kept to a few runs per entry point so that it takes
 * well under a minute on two cores.
 */
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WorkflowNotFoundError, WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createActivities } from '../flows/registry';
import { createMcpServer } from '../client/mcp/server';
import { bomQuestionFlow } from '../flows/bom/contract';
import { discoverFromPrpFlow, EXAMPLE_PRP } from '../flows/discovery/contract';
import {
  answerUpdate,
  currentQuestionQuery,
  eadsInterviewQuery,
  finalizePursuitSignal,
  finishInterviewUpdate,
  runEadsInterviewFlow,
} from '../flows/eads/contract';
import { platformCheckFlow } from '../flows/platform/contract';
import { EXAMPLE_PROFILE, researchProposalFlow } from '../flows/proposal/contract';
import { answerQuestionUpdate, currentQuestionQuery as proposalQuestionQuery } from '../flows/proposal/messages';
import { scheduleFromScrFlow } from '../flows/schedule/contract';
import { buildControlPlane, type ControlPlane } from '../server/app';
import { startAgentRegistration, type AgentRegistrationHandle } from '../workers/agent-registration';
import { buildLocalManifest } from '../server/manifest';
import { lazyTemporal } from '../server/temporal';
import { tempStorePath } from './control-plane-fixtures';
import { createHarness, type Harness } from './helpers/harness';
import { SEED, settle } from './hostile-helpers';
import { until } from './proposal-helpers';

/** How long any run may take to end (the slowest, a discovery over a 200 KB PRP, takes seconds). */
const BOUND_MS = 45_000;

// ---------------------------------------------------------------------------------------------
// Hostile text, at most `max` characters.

const RUN_CHARS = [' ', '\t', '\u00a0', '\u3000', '\r', '\u2028', '\u0000', '#', '|', '-', '*', '0', 'a', '.'];
const TAILS = ['', 'x', 'x\r!', '\u0000', '#', '|', ')', '?'];

function hostileText(max: number): fc.Arbitrary<string> {
  const n = (lo: number) => fc.integer({ min: Math.min(lo, max - 8), max: max - 8 });
  return fc
    .oneof(
      // A long run of one character, then something that makes the match fail.
      fc
        .tuple(fc.constantFrom(...RUN_CHARS), n(max / 2), fc.constantFrom(...TAILS))
        .map(([c, k, t]) => c.repeat(k) + t),
      // A heading or a table row around a long run.
      fc
        .tuple(
          fc.constantFrom('#', '## ', '###### ', '| ', '|--', '- a (', '1) a:'),
          fc.constantFrom(' ', '\t', '#', '-', '|'),
          n(max / 2),
        )
        .map(([head, c, k]) => `${head}${c.repeat(k)}x\r!`.slice(0, max)),
      // Alternating pairs (runs whose characters two quantifiers could both take).
      fc
        .tuple(fc.constantFrom('# ', ' -', '|-', 'a ', '0.', '\\|', '()', '  #'), n(max / 4))
        .map(([pair, k]) => pair.repeat(k / 2).slice(0, max - 1) + '\u0000'),
      // Unicode, combining marks, bidi controls, surrogate halves, NUL bytes.
      fc
        .constantFrom('ユニコード🔋', 'e\u0301', '\u202Eevil\u202C', '\uD800', '\u0000', 'İß')
        .map((u) => u.repeat(Math.floor((max - 1) / 8)) + 'x'),
      // What an attacker types at a regular expression.
      fc
        .constantFrom('(a+)+$', '(.*a){20}', '\\b', '[a-z]+', '\\', '${x}')
        .map((p) => ('a'.repeat(40) + p).repeat(Math.max(1, Math.floor(max / 60)))),
    )
    .map((s) => s.slice(0, max));
}

const sample = <T>(arb: fc.Arbitrary<T>, numRuns: number, salt: number) =>
  fc.sample(arb, { numRuns, seed: SEED + salt });

/** A PRP of many headings, each around hostile text, with a section 9 whose table holds some. */
function hostilePrp(texts: string[], headings: number): string {
  const lines = Array.from({ length: headings }, (_, i) => `## ${i}. ${texts[i % texts.length]!.slice(0, 400)} ##`);
  const rows = texts.map((t, i) => `| c${i} | STRING | ${t.slice(0, 300).replace(/[|\n]/g, ' ')} |`);
  return [
    '# PRP: hostile',
    // The heading that wedged discovery (43 s of backtracking at 2,000 spaces), whatever was generated.
    `#${' '.repeat(3_000)}x\r!`,
    ...lines,
    '## 9. Target Schema',
    '| Column | Type | Description |',
    '|' + ' '.repeat(5_000) + '---|---|---|',
    '|---|---|---|',
    ...rows,
    ...texts.map((t) => t.slice(0, 2_000)),
  ]
    .join('\n')
    .slice(0, 199_000);
}

/** A flow-shop SCR: `steps` steps (hostile names), `orders` orders in it. */
function hostileScr(names: string[], steps: number, orders: number) {
  const name = (i: number) => `${names[i % names.length]!.slice(0, 60)}-${i}`;
  return {
    'principal-problem-type': 'FLOW-SHOP-SCHEDULING-PROBLEM',
    subprocesses: Array.from({ length: steps }, (_, i) => ({
      'process-id': name(i),
      resources: [name(i % 3)],
      duration: { units: 'minutes', 'value-string': `${1 + (i % 4)} ${'9'.repeat(i % 2 ? 0 : 40)}`.trim().slice(0, 6) },
    })),
    ...(orders
      ? {
          'customer-orders': Array.from({ length: orders }, (_, i) => ({
            product: 'p',
            quantity: '1',
            'order-id': `o${i}`,
          })),
        }
      : {}),
  };
}

// ---------------------------------------------------------------------------------------------

const { WorkflowTaskFailedCause } = temporal.api.enums.v1;
/** Failures the server records on its own (a signal or update racing the completion): retried at once. */
const SERVER_SIDE = new Set([
  WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_UNHANDLED_COMMAND,
  WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_FORCE_CLOSE_COMMAND,
]);

describe('every flow ends, whatever its input', () => {
  let h: Harness;
  let cp: ControlPlane;
  let cpUrl: string;
  let registration: AgentRegistrationHandle;
  let mcpServer: McpServer;
  let mcp: McpClient;
  const agentId = `flows-end-${randomUUID().slice(0, 6)}`;

  beforeAll(async () => {
    h = await createHarness();
    cp = await buildControlPlane({
      storePath: tempStorePath(),
      temporal: lazyTemporal({ address: inject('temporalAddress') }),
      logLevel: 'silent',
      processMetrics: false,
    });
    cpUrl = await cp.listen('127.0.0.1', 0);
    registration = startAgentRegistration({
      url: cpUrl,
      manifest: buildLocalManifest({
        agentId,
        taskQueue: h.taskQueue,
        namespace: 'default',
        address: inject('temporalAddress'),
        activityNames: Object.keys(await createActivities(h.backends)),
        instanceId: 'flows-end',
      }),
      heartbeatMs: 60_000,
      log: () => undefined,
    });
    await registration.firstAttempt;
    mcpServer = createMcpServer({ client: h.client, taskQueue: h.taskQueue });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    mcp = new McpClient({ name: 'flows-end-test', version: '0.0.0' });
    await Promise.all([mcpServer.connect(serverSide), mcp.connect(clientSide)]);
  }, 120_000);
  afterAll(async () => {
    await mcp?.close();
    await mcpServer?.close();
    await registration?.stop();
    await cp?.close();
    await h?.close();
  });

  /** Runs started here, by how they were started (for the messages). */
  const started: Array<{ how: string; handle: WorkflowHandle }> = [];
  const track = (how: string, handle: WorkflowHandle) => {
    started.push({ how, handle });
    return handle;
  };

  /** The run ends within the bound, Completed or Failed. */
  async function ends(how: string, handle: WorkflowHandle): Promise<void> {
    const settled = await settle(handle, BOUND_MS);
    expect(settled.status, `${how} (${handle.workflowId}) should have ended`).not.toBe('RUNNING');
  }

  it('thin client: discovery over PRPs of pathological headings and tables, platform check', async () => {
    const texts = sample(hostileText(20_000), 6, 1);
    const runs = [
      ...[40, 2_000].map((headings, i) =>
        h.start(discoverFromPrpFlow, {
          prp: hostilePrp(texts.slice(i * 3, i * 3 + 3), headings),
          maxCandidatesPerStep: 1,
        }),
      ),
      h.start(discoverFromPrpFlow, {
        prp: `${EXAMPLE_PRP}\n${texts.join('\n')}`.slice(0, 200_000),
        maxCandidatesPerStep: 1,
      }),
      ...sample(hostileText(200), 2, 2).map((topic) => h.start(platformCheckFlow, { topic: `x${topic}`, limit: 2 })),
    ];
    const handles = await Promise.all(runs.map((p) => p.then((handle) => track('thin client', handle))));
    await Promise.all(handles.map((handle) => ends('thin client', handle)));
  });

  it('raw starts: SCRs of many steps × orders, deep nesting, a bad resume', async () => {
    const names = sample(hostileText(60), 4, 3);
    let deep: unknown = 'x';
    for (let i = 0; i < 200; i++) deep = { d: deep };
    const inputs: Array<[string, unknown]> = [
      ['scheduleFromScr', { projectId: 'flows-end-a', scr: hostileScr(names, 200, 300), timeLimitSeconds: 1 }],
      ['scheduleFromScr', { projectId: 'flows-end-b', scr: hostileScr(names, 400, 1_000), timeLimitSeconds: 1 }],
      ['scheduleFromScr', { projectId: 'flows-end-c', scr: { ...hostileScr(names, 3, 2), deep }, timeLimitSeconds: 1 }],
      [
        'discoverFromPrp',
        { prp: hostilePrp(names, 5), targetSchema: [{ name: names[0]!.slice(0, 100) || 'x', type: 'STRING', deep }] },
      ],
      [
        'runEadsInterview',
        { projectId: `flows-end-${randomUUID().slice(0, 6)}`, resume: { version: 1, pursuits: [deep] } },
      ],
      [
        'pursueEads',
        {
          projectId: 'flows-end',
          eadsId: 'process/warm-up-with-challenges',
          pursuitNo: 1,
          mode: 'human',
          resume: { version: 1, dataStructure: deep },
        },
      ],
    ];
    const handles = await Promise.all(
      inputs.map(([type, input]) =>
        h.client.workflow
          .start(type, {
            taskQueue: h.taskQueue,
            workflowId: `flows-end-raw-${type}-${randomUUID().slice(0, 8)}`,
            args: [input],
          })
          .then((handle) => track(`raw start of ${type}`, handle)),
      ),
    );
    await Promise.all(handles.map((handle) => ends('raw start', handle)));
  });

  it('control plane execute API: BOM questions, a schedule with hostile names, an autonomous proposal', async () => {
    const execute = async (flow: string, input: unknown) => {
      const res = await fetch(`${cpUrl}/api/v1/execute/${agentId}:${flow}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ input }),
      });
      const json = (await res.json()) as { workflow_id?: string; run_id?: string };
      // Refused input starts nothing (400); anything accepted is a run that must end.
      if (res.status === 400) return undefined;
      expect(res.status, JSON.stringify(json).slice(0, 300)).toBeLessThan(300);
      return track(`execute ${flow}`, h.client.workflow.getHandle(json.workflow_id!, json.run_id));
    };
    const names = sample(hostileText(60), 3, 4);
    const profileText = sample(hostileText(400), 2, 5);
    const handles = await Promise.all([
      ...sample(hostileText(500), 3, 6).map((question) =>
        execute(bomQuestionFlow.type, { question: `bom ${question}`.slice(0, 500) }),
      ),
      execute(scheduleFromScrFlow.type, {
        projectId: 'flows-end-names',
        scr: hostileScr(names, 4, 3),
        timeLimitSeconds: 1,
        chart: false,
      }),
      execute(researchProposalFlow.type, {
        mode: 'autonomous',
        profile: {
          ...EXAMPLE_PROFILE,
          research_area: `${EXAMPLE_PROFILE.research_area} ${profileText[0]}`.slice(0, 400),
          constraints: [profileText[1]!.slice(0, 200) || 'x'],
        },
        maxRefinements: 0,
      }),
    ]);
    await Promise.all(handles.filter((x): x is WorkflowHandle => !!x).map((handle) => ends('execute API', handle)));
  });

  it('MCP tools: discovery, schedule and BOM calls with hostile arguments all return', async () => {
    const texts = sample(hostileText(5_000), 3, 7);
    const calls = [
      mcp.callTool({
        name: discoverFromPrpFlow.mcpTool,
        arguments: { prp: hostilePrp(texts, 300), maxCandidatesPerStep: 1 },
      }),
      mcp.callTool({
        name: scheduleFromScrFlow.mcpTool,
        arguments: { projectId: 'flows-end-mcp', scr: hostileScr(texts, 200, 300) },
      }),
      mcp.callTool({ name: bomQuestionFlow.mcpTool, arguments: { question: `bom ${texts[0]!.slice(0, 400)}` } }),
    ];
    // Each call comes back (a result or an MCP error): its workflow, if one started, has ended.
    const results = await Promise.allSettled(calls);
    for (const r of results) if (r.status === 'rejected') expect(String(r.reason)).not.toMatch(/timed? ?out/i);
  });

  it('updates and signals: a proposal interview and an EADS pursuit given hostile answers, then finished', async () => {
    // The proposal interview with every field but one already given: the open question gets hostile answers first.
    const { weekly_hours: _, ...rest } = EXAMPLE_PROFILE;
    const proposal = track(
      'proposal interview',
      await h.start(researchProposalFlow, { mode: 'interactive', profile: rest, maxRefinements: 0 }),
    );
    const question = await until(
      () => proposal.query(proposalQuestionQuery).then((q) => q ?? undefined),
      'the open question',
    );
    for (const answer of sample(hostileText(4_000), 4, 8)) {
      await proposal
        .executeUpdate(answerQuestionUpdate, { args: [{ answer, questionId: question.id }] })
        .catch((err: unknown) => {
          expect(err).toBeInstanceOf(WorkflowUpdateFailedError);
        });
    }
    await proposal
      .executeUpdate(answerQuestionUpdate, { args: [{ answer: '20', questionId: question.id }] })
      .catch(() => undefined);

    // An EADS interview answered by a person: hostile answers and finalize signals, then finished.
    const interview = track(
      'EADS interview',
      await h.start(runEadsInterviewFlow, { projectId: `flows-end-${randomUUID().slice(0, 6)}`, mode: 'human' }),
    );
    const view = await until(async () => {
      const v = await interview.query(eadsInterviewQuery);
      return v.current?.childWorkflowId ? v : undefined;
    }, 'the first pursuit');
    const pursuit = track('EADS pursuit', h.client.workflow.getHandle(view.current!.childWorkflowId));
    const q = await until(() => pursuit.query(currentQuestionQuery).then((x) => x ?? undefined), 'the first question');
    // The first answer is taken (any text is an answer); the others are refused, or find the pursuit over.
    for (const answer of sample(hostileText(2_000), 3, 9)) {
      await pursuit.executeUpdate(answerUpdate, { args: [{ questionId: q.id, answer }] }).catch((err: unknown) => {
        expect(err instanceof WorkflowUpdateFailedError || err instanceof WorkflowNotFoundError, String(err)).toBe(
          true,
        );
      });
    }
    // Signals cannot be refused: whatever they carry, the pursuit ends (or has ended already).
    for (const notes of [...sample(hostileText(3_000), 2, 10), 42, null, { nested: { deep: [1, 2, 3] } }])
      await pursuit.signal(finalizePursuitSignal, { notes } as never).catch((err: unknown) => {
        expect(err).toBeInstanceOf(WorkflowNotFoundError);
      });
    await interview.executeUpdate(finishInterviewUpdate, { args: [{ reason: 'done' }] }).catch(() => undefined);
    await Promise.all([
      ends('proposal interview', proposal),
      ends('EADS interview', interview),
      ends('EADS pursuit', pursuit),
    ]);
  });

  it('no run on the task queue is left running, and none recorded a failed workflow task', async () => {
    // Every run of the task queue, however it was started (MCP and the execute API start their own).
    const all = new Map<string, WorkflowHandle>(started.map((s) => [s.handle.workflowId, s.handle]));
    for await (const wf of h.client.workflow.list({ query: `TaskQueue = "${h.taskQueue}"` }))
      if (!all.has(wf.workflowId)) all.set(wf.workflowId, h.client.workflow.getHandle(wf.workflowId, wf.runId));
    expect(all.size).toBeGreaterThan(15);
    const problems: string[] = [];
    for (const [id, handle] of all) {
      if ((await settle(handle, BOUND_MS)).status === 'RUNNING') problems.push(`${id}: still running`);
      const history = await handle.fetchHistory();
      for (const e of history.events ?? []) {
        const failed = e.workflowTaskFailedEventAttributes;
        if (failed && !SERVER_SIDE.has(failed.cause!))
          problems.push(
            `${id}: workflow task failed (${failed.cause}): ${(failed.failure?.message ?? '').slice(0, 200)}`,
          );
      }
    }
    expect(problems).toEqual([]);
  });
});
