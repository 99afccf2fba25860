/**
 * An agent's health, from two sources: the heartbeats its instances send to the control plane,
 * and, for agents backed by a Temporal task queue, the pollers Temporal sees on that queue
 * (DescribeTaskQueue, workflow and activity pollers). docs/discovery-api.md has the table.
 */
import type { HealthStatus } from '../contracts/capabilities';

export interface PollerCounts {
  workflow: number;
  activity: number;
}

export interface HealthInputs {
  now: number;
  /** Latest heartbeat of any instance (registration counts as one); undefined when none. */
  lastHeartbeat: number | undefined;
  heartbeatTimeoutMs: number;
  /** What the agent reported about itself in its registration or last heartbeat. */
  reported?: HealthStatus;
  /** Whether the agent names a Temporal task queue. */
  hasTaskQueue: boolean;
  /** Pollers on that queue; null when Temporal could not be asked; undefined when not checked yet. */
  pollers?: PollerCounts | null;
}

export function deriveHealth(i: HealthInputs): HealthStatus {
  const fresh = i.lastHeartbeat !== undefined && i.now - i.lastHeartbeat <= i.heartbeatTimeoutMs;
  // A fresh agent that says it is degraded/inactive/unknown is believed; "active" is checked.
  const reported = fresh && i.reported && i.reported !== 'active' ? i.reported : undefined;

  if (i.hasTaskQueue && i.pollers) {
    const { workflow, activity } = i.pollers;
    let status: HealthStatus;
    if (workflow > 0 && activity > 0) status = fresh ? 'active' : 'degraded';
    else if (workflow > 0 || activity > 0) status = 'degraded';
    else status = fresh ? 'degraded' : 'inactive';
    return reported && status === 'active' ? reported : status;
  }
  if (i.lastHeartbeat === undefined) return 'unknown';
  if (!fresh) return i.hasTaskQueue ? 'unknown' : 'inactive';
  return reported ?? 'active';
}

/** Temporal lists a poller for a few minutes after its last poll; only recent ones count as alive. */
export const POLLER_FRESH_MS = 90_000;

export function countFreshPollers(
  pollers: Array<{ lastAccessTime?: { seconds?: unknown; nanos?: number | null } | null }>,
  now: number,
): number {
  return pollers.filter((p) => {
    const seconds = p.lastAccessTime?.seconds;
    if (seconds === undefined || seconds === null) return true;
    const ms = Number(seconds) * 1000 + Math.floor((p.lastAccessTime?.nanos ?? 0) / 1e6);
    return now - ms <= POLLER_FRESH_MS;
  }).length;
}
