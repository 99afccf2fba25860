/**
 * The thin client's library: connect with the `temporal` CLI's settings, start a flow with a
 * readable id, the AgentFlow search attribute and a one-line summary, and build Web UI links.
 * Used by the CLI, the MCP server, the control plane and the demo. It talks to Temporal only.
 */
import {
  Client,
  Connection,
  WorkflowIdReusePolicy,
  type WorkflowHandleWithFirstExecutionRunId,
  type WorkflowStartOptions,
} from '@temporalio/client';
import { loadClientConnectConfig } from '@temporalio/envconfig';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry/lib/client';
import { randomBytes } from 'node:crypto';
import type { z } from 'zod';
import { dataConverterFromEnv } from '../codec/payload-codec';
import {
  flowSearchAttribute,
  formatIssues,
  safeParseFlowInput,
  slugify,
  TASK_QUEUE,
  zodIssues,
  type FlowDefinition,
} from '../contracts/common';

/** Connecting to Temporal failed: says where it tried and what to do next. */
export class TemporalUnreachable extends Error {
  constructor(
    readonly address: string,
    cause: unknown,
  ) {
    const local = isLoopback(address);
    super(
      `cannot reach Temporal at ${address}: ${cause instanceof Error ? cause.message : String(cause)}. ` +
        (local
          ? 'Start the local stack with `npm start` (or point TEMPORAL_ADDRESS at a running server).'
          : 'Check TEMPORAL_ADDRESS, the network and the TLS settings (TEMPORAL_TLS_*, TEMPORAL_API_KEY).'),
      { cause },
    );
    this.name = 'TemporalUnreachable';
  }
}

function isLoopback(address: string): boolean {
  const host = address.replace(/:\d+$/, '').replace(/^\[|\]$/g, '');
  return host === 'localhost' || host === '::1' || host.startsWith('127.');
}

export async function connectClient(overrides: { address?: string; namespace?: string } = {}): Promise<Client> {
  const { connectionOptions, namespace } = loadClientConnectConfig();
  const options = {
    ...(connectionOptions as Parameters<typeof Connection.connect>[0]),
    ...(overrides.address ? { address: overrides.address } : {}),
  };
  const address = options?.address ?? 'localhost:7233';
  // A server on this machine that is not running refuses at once: say so in seconds, not after
  // the SDK's 10-second deadline. A remote server keeps the SDK's deadline.
  const connectTimeout = options?.connectTimeout ?? (isLoopback(address) ? '3s' : undefined);
  const connection = Connection.lazy({ ...options, ...(connectTimeout ? { connectTimeout } : {}) });
  try {
    await connection.ensureConnected();
  } catch (err) {
    // Closed, or its channel keeps trying to reconnect, timers and all, for as long as the process
    // lives: the control plane connects again on each request while Temporal is down.
    await connection.close().catch(() => undefined);
    throw new TemporalUnreachable(address, err);
  }
  return new Client({
    connection,
    namespace: overrides.namespace ?? namespace ?? 'default',
    dataConverter: dataConverterFromEnv(),
    // A start carries the caller's span context (a no-op unless tracing is set up).
    interceptors: { workflow: [new OpenTelemetryWorkflowClientInterceptor()] },
  });
}

export class InvalidFlowInput extends Error {
  constructor(
    readonly flow: string,
    readonly issues: Array<{ field: string; message: string }>,
  ) {
    super(`${flow}: invalid input: ${formatIssues(issues)}`);
    this.name = 'InvalidFlowInput';
  }
}

/** Validates input on the client side too, so a bad call never creates a workflow. */
export function validateFlowInput(flow: FlowDefinition, input: unknown): unknown {
  const result = safeParseFlowInput(flow.input, input);
  if (!result.success) {
    throw new InvalidFlowInput(flow.type, zodIssues(result.error));
  }
  return result.data;
}

/** `<slug>-<readable key>-<6 hex>`: says what the workflow is and stays unique. */
export function workflowIdFor(flow: FlowDefinition, input: unknown, suffix = randomBytes(3).toString('hex')): string {
  if (flow.workflowId) return flow.workflowId(input as never);
  return `${flow.slug}-${slugify(flow.idKey(input as never), 40)}-${suffix}`;
}

export interface StartOptions {
  workflowId?: string;
  taskQueue?: string;
  /** Reuse a running workflow with the same id instead of failing (stable ids from MCP requests). */
  useExisting?: boolean;
}

/** What a flow's workflow returns: the parsed output of its contract. */
export type FlowOutput<F extends FlowDefinition> = z.output<F['output']>;

/** A flow's workflow as the client sees it: one JSON argument in, the flow's output out. */
export type FlowWorkflow<F extends FlowDefinition> = (input: unknown) => Promise<FlowOutput<F>>;

/** Starts a flow; the handle's `result()` is typed with the flow's output. */
export async function startFlow<F extends FlowDefinition>(
  client: Client,
  flow: F,
  rawInput: unknown,
  options: StartOptions = {},
): Promise<WorkflowHandleWithFirstExecutionRunId<FlowWorkflow<F>>> {
  return client.workflow.start<FlowWorkflow<F>>(flow.type, flowStartOptions(flow, rawInput, options));
}

/**
 * How a flow is started (validated input, id, search attribute, summary, memo): what `startFlow`
 * sends, and what a client passes to `WithStartWorkflowOperation` to start a flow and send it an
 * update in one call (update-with-start).
 */
export function flowStartOptions<F extends FlowDefinition>(
  flow: F,
  rawInput: unknown,
  options: StartOptions = {},
): WorkflowStartOptions<FlowWorkflow<F>> {
  const parsed = validateFlowInput(flow, rawInput);
  const workflowId = options.workflowId ?? workflowIdFor(flow, parsed);
  return {
    taskQueue: options.taskQueue ?? TASK_QUEUE,
    workflowId,
    // The raw input goes to the workflow, which validates it again (and applies defaults).
    args: [rawInput],
    typedSearchAttributes: [{ key: flowSearchAttribute, value: flow.type }],
    staticSummary: flow.summary(parsed as never),
    memo: { flow: flow.type, input: flow.summary(parsed as never) },
    workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
    ...(options.useExisting ? { workflowIdConflictPolicy: 'USE_EXISTING' as const } : {}),
  };
}

export { failureReason } from './failure-reason';

// The Web UI links live in their own module (no Temporal client library): the control plane's
// console renders them before anything has loaded the client.
export { webUiBase, webUiLink } from './web-ui';
