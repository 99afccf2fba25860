/**
 * The MCP server: one tool per flow, generated from `flows/registry.ts`, plus the tools that
 * flows register through `tools.ts`. A tool call starts the flow's workflow on Temporal (or
 * attaches to the one already running for the same request, after checking that it is one),
 * reports its `progress` query as MCP progress notifications, and returns the result. When the
 * caller cancels the request or goes away, the workflow is cancelled, unless another caller
 * still waits on it.
 *
 * It talks to Temporal only: no backends, no activities.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { WorkflowFailedError, type Client, type WorkflowHandle } from '@temporalio/client';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import { createHmac, randomBytes } from 'node:crypto';
import { z } from 'zod';
import { slugify, type FlowDefinition } from '../../contracts/common';
import { flows as registeredFlows } from '../../flows/registry';
import { failureReason, startFlow, webUiLink } from '../../access/flow-client';
import { failedProposal } from '../../access/proposal-result';
import { extraToolRegistrars, type McpContext, type ToolRegistrar } from './tools';
import { progressQuery } from '../../contracts/progress-messages';

export type ToolExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

export interface McpServerOptions {
  /** Flows to expose (default: every registered flow). */
  flows?: FlowDefinition[];
  /** Extra tool registrars (default: `extraToolRegistrars`). */
  registrars?: ToolRegistrar[];
  /** Aborts when the connection under a call goes away (HTTP response closed, stdin closed). */
  disconnectSignal?: (extra: ToolExtra) => AbortSignal | undefined;
  /** Shared across the process's sessions, so a workflow is cancelled only when its last caller leaves. */
  calls?: FlowCalls;
  progressIntervalMs?: number;
  log?: (line: string) => void;
  /**
   * Keys the workflow ids of tool calls (MCP_WORKFLOW_ID_SECRET), so no one without it can
   * predict the id a request will use; default a random one per process.
   */
  workflowIdSecret?: string;
}

/** The key when none is configured: ids stay stable for this process's lifetime. */
const PROCESS_SECRET = randomBytes(32).toString('base64url');

/** Sorted keys at every level: the same request always serialises the same way. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value as object)
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * `<slug>-<readable key>-<16 hex of HMAC-SHA256(secret, tool + canonical input)>`: the same
 * request maps to the same workflow, so a retried call attaches to the running workflow instead
 * of starting another; keyed, so no one without the secret can start a workflow under the id a
 * request will use before it does. `input` is the parsed input (defaults applied), so `{prp}` and
 * `{prp, maxCandidatesPerStep: 5}` match. Flows that name their own workflow (one EADS interview
 * per project) keep that name.
 */
export function stableWorkflowId(flow: FlowDefinition, input: unknown, secret: string = PROCESS_SECRET): string {
  if (flow.workflowId) return flow.workflowId(input as never);
  const hash = createHmac('sha256', secret)
    .update(`${flow.mcpTool}\n${canonicalJson(input)}`)
    .digest('hex')
    .slice(0, 16);
  return `${flow.slug}-${slugify(flow.idKey(input as never), 40)}-${hash}`;
}

/**
 * Why the run under the id is not this request's (a different workflow type, or for flows whose
 * id comes from the request, a different start input), or undefined when it is. Read from the
 * run's first history event, which no one can change after the start: an id someone learned
 * (from a listing, a log, an earlier result) and started something else under is not attached to.
 */
export async function foreignRun(
  client: Client,
  flow: FlowDefinition,
  input: unknown,
  execution: { workflowId: string; runId: string },
): Promise<string | undefined> {
  const { history } = await client.workflowService.getWorkflowExecutionHistory({
    namespace: client.options.namespace,
    execution,
    maximumPageSize: 1,
  });
  const started = history?.events?.[0]?.workflowExecutionStartedEventAttributes;
  if (!started) return 'its start event could not be read';
  const type = started.workflowType?.name ?? '(none)';
  if (type !== flow.type) return `it runs ${type.slice(0, 60)}`;
  // One interview per project, whoever started it and with what: the type is what must match.
  if (flow.workflowId) return undefined;
  const theirs = flow.input.safeParse(
    await decodeFromPayloadsAtIndex(client.options.loadedDataConverter, 0, started.input?.payloads),
  );
  if (!theirs.success || canonicalJson(theirs.data) !== canonicalJson(flow.input.parse(input))) {
    return 'it was started with another input';
  }
  return undefined;
}

/**
 * Who waits on which workflow in this process. A workflow is cancelled when a caller leaves
 * early and no other caller still waits on it; pending cancel requests can be awaited on shutdown.
 */
export class FlowCalls {
  private readonly waiting = new Map<string, number>();
  private readonly cancelling = new Set<Promise<void>>();
  /** Calls between their start request and `join` (the start and the check of the run take a while). */
  private readonly starting = new Set<Promise<void>>();

  constructor(private readonly log: (line: string) => void = () => undefined) {}

  /**
   * A call is starting its workflow: it counts as active, and `settled` waits for it, so a server
   * stopping meanwhile still cancels the workflow the call then joins. Call the returned
   * function once the call has joined (or given up).
   */
  starts(): () => void {
    let done!: () => void;
    const started = new Promise<void>((resolve) => (done = resolve));
    this.starting.add(started);
    void started.then(() => this.starting.delete(started));
    return done;
  }

  join(workflowId: string): void {
    this.waiting.set(workflowId, (this.waiting.get(workflowId) ?? 0) + 1);
  }

  /** The caller is done; with `cancel`, it left before the result and the workflow should stop if nobody else waits. */
  leave(workflowId: string, cancel?: { handle: WorkflowHandle; reason: string }): void {
    const left = (this.waiting.get(workflowId) ?? 1) - 1;
    if (left > 0) this.waiting.set(workflowId, left);
    else this.waiting.delete(workflowId);
    if (!cancel) return;
    if (left > 0) {
      this.log(`${workflowId}: ${cancel.reason}; ${left} other caller(s) still wait, not cancelling`);
      return;
    }
    this.log(`${workflowId}: ${cancel.reason}; cancelling the workflow`);
    const request = cancel.handle.cancel().then(
      () => undefined,
      (err: Error) => this.log(`${workflowId}: cancel failed: ${err.message}`),
    );
    this.cancelling.add(request);
    void request.finally(() => this.cancelling.delete(request));
  }

  get active(): number {
    return [...this.waiting.values()].reduce((a, b) => a + b, 0) + this.starting.size;
  }

  /**
   * Resolves once every call still starting has joined and every cancel request sent so far (or
   * sent by those calls) has been answered, or after `timeoutMs`.
   */
  async settled(timeoutMs = 5000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while ((this.cancelling.size || this.starting.size) && Date.now() < deadline) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.allSettled([...this.cancelling, ...this.starting]),
        new Promise((r) => (timer = setTimeout(r, deadline - Date.now()))),
      ]);
      clearTimeout(timer);
    }
  }
}

function anySignal(signals: Array<AbortSignal | undefined>): AbortSignal {
  return AbortSignal.any(signals.filter((s): s is AbortSignal => s !== undefined));
}

/** The output schema as MCP wants it, when the flow's output is an object zod can describe. */
function outputSchemaOf(flow: FlowDefinition): z.ZodObject | undefined {
  if (!(flow.output instanceof z.ZodObject)) return undefined;
  try {
    z.toJSONSchema(flow.output, { io: 'output' });
    return flow.output;
  } catch {
    return undefined;
  }
}

function describeFailure(err: WorkflowFailedError): { cancelled: boolean; message: string } {
  const cancelled = err.cause?.name === 'CancelledFailure';
  return { cancelled, message: cancelled ? 'the workflow was cancelled' : failureReason(err) };
}

/** Polls the `progress` query and sends a notification each time the work done grows. */
function followProgress(handle: WorkflowHandle, extra: ToolExtra, everyMs: number): () => void {
  const progressToken = extra._meta?.progressToken;
  if (progressToken === undefined) return () => undefined;
  let stopped = false;
  let last = -1;
  const poll = async () => {
    while (!stopped) {
      try {
        const p = await handle.query(progressQuery);
        // MCP requires the progress value to grow with every notification.
        if (!stopped && p.done > last) {
          last = p.done;
          await extra.sendNotification({
            method: 'notifications/progress',
            params: {
              progressToken,
              progress: p.done,
              ...(p.total !== null ? { total: Math.max(p.total, p.done) } : {}),
              message: `${p.stage}${p.detail ? `: ${p.detail}` : ''}`,
            },
          });
        }
      } catch {
        // Not answerable yet (no worker picked up the first task) or already closed.
      }
      await new Promise((r) => setTimeout(r, everyMs));
    }
  };
  void poll();
  return () => {
    stopped = true;
  };
}

/**
 * Starts the call's workflow, or attaches to the run already open under its id when that run is
 * this request's (foreignRun); a foreign run gets the call a run of its own under an unguessable
 * id, except for flows that name their run themselves, where the call is refused.
 */
async function startOwnRun(
  ctx: McpContext,
  flow: FlowDefinition,
  args: unknown,
  secret: string | undefined,
  log: (line: string) => void,
): Promise<{ workflowId: string; handle: WorkflowHandle } | { refused: CallToolResult }> {
  // `args` is already validated by the SDK against flow.input, defaults applied.
  const workflowId = stableWorkflowId(flow, args, secret);
  const handle = await startFlow(ctx.client, flow, args, { taskQueue: ctx.taskQueue, workflowId, useExisting: true });
  const foreign = await foreignRun(ctx.client, flow, args, { workflowId, runId: handle.firstExecutionRunId }).catch(
    (err: Error) => `it could not be checked (${err.message.slice(0, 100)})`,
  );
  if (!foreign) return { workflowId, handle };
  if (flow.workflowId) {
    // The flow's own name for the run (one interview per project) is taken by something else:
    // another name would not be found by the tools that follow it, so say so instead.
    log(`${flow.mcpTool}: not attaching to workflow ${workflowId}: ${foreign}`);
    const text = `${flow.title}: workflow ${workflowId} is not a ${flow.type} run: ${foreign}`;
    return { refused: { isError: true, content: [{ type: 'text', text }] } };
  }
  // Not ours to attach to: this request gets a run of its own, under an id no one can guess.
  log(`${flow.mcpTool}: not attaching to workflow ${workflowId}: ${foreign}; starting a new one`);
  const ownId = `${workflowId}-${randomBytes(8).toString('hex')}`;
  return {
    workflowId: ownId,
    handle: await startFlow(ctx.client, flow, args, { taskQueue: ctx.taskQueue, workflowId: ownId }),
  };
}

export function registerFlowTool(
  server: McpServer,
  ctx: McpContext,
  flow: FlowDefinition,
  options: McpServerOptions,
  calls: FlowCalls,
): void {
  const log = options.log ?? (() => undefined);
  const outputSchema = outputSchemaOf(flow);
  server.registerTool(
    flow.mcpTool,
    {
      title: flow.title,
      description: `${flow.description} Runs as the durable Temporal workflow ${flow.type}; progress is reported while it runs, and cancelling the call cancels the workflow.`,
      inputSchema: (flow.input as z.ZodObject).loose(),
      ...(outputSchema ? { outputSchema } : {}),
    },
    async (args: unknown, extra: ToolExtra): Promise<CallToolResult> => {
      // Taken before the workflow starts: a client that goes away while it is starting still
      // cancels it (the transport forgets a closed request once its connection is gone).
      const stop = anySignal([extra.signal, options.disconnectSignal?.(extra)]);
      const joined = calls.starts();
      let run: Awaited<ReturnType<typeof startOwnRun>>;
      try {
        run = await startOwnRun(ctx, flow, args, options.workflowIdSecret, log);
      } catch (err) {
        joined();
        throw err;
      }
      if ('refused' in run) {
        joined();
        return run.refused;
      }
      const { workflowId, handle } = run;
      const link = webUiLink(ctx.client.options.namespace, workflowId);
      log(`${flow.mcpTool}: workflow ${workflowId} (${link})`);
      calls.join(workflowId);
      let left = false;
      const onStop = () => {
        if (left) return;
        left = true;
        const reason = extra.signal.aborted ? 'the MCP client cancelled the request' : 'the MCP client disconnected';
        calls.leave(workflowId, { handle, reason });
      };
      stop.addEventListener('abort', onStop, { once: true });
      if (stop.aborted) onStop();
      joined();
      const stopProgress = followProgress(handle, extra, options.progressIntervalMs ?? 500);
      try {
        const result = await handle.result();
        const parsed = flow.output.safeParse(result);
        const lines = parsed.success ? flow.describeResult(parsed.data) : [];
        return {
          content: [
            { type: 'text', text: [`${flow.title}: workflow ${workflowId} completed (${link})`, ...lines].join('\n') },
            { type: 'text', text: JSON.stringify(result) },
          ],
          ...(outputSchema ? { structuredContent: result as Record<string, unknown> } : {}),
          _meta: { 'agent-flows/workflowId': workflowId },
        };
      } catch (err) {
        if (!(err instanceof WorkflowFailedError)) throw err;
        const { message } = describeFailure(err);
        // A proposal whose stage failed carries what it had written: the caller gets it too.
        const partial = failedProposal(err);
        return {
          isError: true,
          content: [
            { type: 'text', text: `${flow.title}: workflow ${workflowId} did not complete: ${message} (${link})` },
            ...(partial ? [{ type: 'text' as const, text: JSON.stringify(partial) }] : []),
          ],
          _meta: { 'agent-flows/workflowId': workflowId },
        };
      } finally {
        stopProgress();
        stop.removeEventListener('abort', onStop);
        if (!left) {
          left = true;
          calls.leave(workflowId);
        }
      }
    },
  );
}

/** One MCP server (one per session on HTTP, one per process on stdio). */
export function createMcpServer(ctx: McpContext, options: McpServerOptions = {}): McpServer {
  const server = new McpServer(
    { name: 'agent-flows', title: 'agent-flows: durable AI agent workflows', version: '0.1.0' },
    {
      instructions:
        'Each tool runs one agent-flows workflow on Temporal and returns its result. ' +
        'Calls can take minutes: progress notifications are sent when the caller passes a ' +
        'progressToken. Cancelling a call cancels its workflow.',
    },
  );
  const calls = options.calls ?? new FlowCalls(options.log);
  for (const flow of options.flows ?? registeredFlows) registerFlowTool(server, ctx, flow, options, calls);
  for (const register of options.registrars ?? extraToolRegistrars) register(server, ctx);
  return server;
}
