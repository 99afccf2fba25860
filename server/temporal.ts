/**
 * The control plane's way to Temporal: poller counts for health, and starting workflows.
 *
 * The Temporal client (with its protobuf definitions, ~30 MB) is loaded and connected on first
 * use only, so a control plane that only serves discovery stays small; a failed connection is
 * retried on the next use instead of failing the process.
 */
import type { Client } from '@temporalio/client';
import { countFreshPollers, type PollerCounts } from './health';
import { loadOnce } from './load-once';

export type FlowRunner = typeof import('./flow-runner');

export interface TemporalAccess {
  /** A client for the namespace (connecting on first use). Throws TemporalUnavailable. */
  client(namespace?: string): Promise<Client>;
  defaultNamespace(): string;
  /** The client library's flow functions and error classes (server/flow-runner.ts), loaded once. */
  runner(): Promise<FlowRunner>;
  /** Workflow and activity pollers seen recently on the task queue. */
  pollers(namespace: string, taskQueue: string): Promise<PollerCounts>;
  close(): Promise<void>;
}

export class TemporalUnavailable extends Error {
  constructor(cause: unknown) {
    super(`Temporal is not reachable: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = 'TemporalUnavailable';
  }
}

export interface LazyTemporalOptions {
  /** host:port; default: the `temporal` CLI's settings (TEMPORAL_ADDRESS, profiles...). */
  address?: string;
  namespace?: string;
}

export function lazyTemporal(options: LazyTemporalOptions = {}): TemporalAccess {
  let connecting: Promise<Client> | undefined;
  let base: Client | undefined;
  const byNamespace = new Map<string, Client>();
  const namespace = options.namespace ?? process.env.TEMPORAL_NAMESPACE ?? 'default';

  const connect = async (): Promise<Client> => {
    if (base) return base;
    connecting ??= (async () => {
      const { connectClient } = await import('../access/flow-client');
      return connectClient({ address: options.address, namespace });
    })();
    try {
      base = await connecting;
      return base;
    } catch (err) {
      connecting = undefined;
      throw new TemporalUnavailable(err);
    }
  };

  const runner = loadOnce((): Promise<FlowRunner> => import('./flow-runner'));
  return {
    defaultNamespace: () => namespace,
    runner,
    async client(ns = namespace) {
      const client = await connect();
      if (ns === client.options.namespace) return client;
      let other = byNamespace.get(ns);
      if (!other) {
        const { Client: ClientClass } = await import('@temporalio/client');
        other = new ClientClass({ connection: client.connection, namespace: ns });
        byNamespace.set(ns, other);
      }
      return other;
    },
    async pollers(ns, taskQueue) {
      const client = await connect();
      // A CommonJS module loaded with import(): its exports may sit on `default` only.
      const proto = (await import('@temporalio/proto')) as typeof import('@temporalio/proto') & {
        default?: typeof import('@temporalio/proto');
      };
      const temporal = proto.temporal ?? proto.default!.temporal;
      const describe = (taskQueueType: number) =>
        client.workflowService.describeTaskQueue({
          namespace: ns,
          taskQueue: { name: taskQueue, kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
          taskQueueType,
        });
      try {
        const [wf, act] = await Promise.all([
          describe(temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW),
          describe(temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY),
        ]);
        const now = Date.now();
        return {
          workflow: countFreshPollers(wf.pollers ?? [], now),
          activity: countFreshPollers(act.pollers ?? [], now),
        };
      } catch (err) {
        throw new TemporalUnavailable(err);
      }
    },
    async close() {
      const client = base ?? (connecting ? await connecting.catch(() => undefined) : undefined);
      base = undefined;
      connecting = undefined;
      byNamespace.clear();
      await client?.connection.close().catch(() => undefined);
    },
  };
}
