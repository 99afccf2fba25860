/**
 * The in-memory form of every registered agent that discovery filters and renders: built once
 * per cache miss from the storage read, sorted by agent id (stable pagination), with each
 * agent's health derived at build time and JSON fragments pre-rendered, so a response is
 * mostly string concatenation.
 */
import { reasonerTarget, skillTarget, type HealthStatus } from '../contracts/capabilities';
import { ResponseMemo } from './cache';
import type { StoredAgent, StoredCapability } from './registry-store';

export interface SnapshotCapability {
  id: string;
  description?: string;
  tags: string[];
  target: string;
  /** JSON text, spliced into responses as-is. */
  inputSchema?: string;
  outputSchema?: string;
  examples?: string;
}

export interface SnapshotAgent {
  agent_id: string;
  base_url: string;
  version: string;
  deployment_type: string;
  health_status: HealthStatus;
  /** What the agent said about itself (an input to health_status). */
  reported_health?: HealthStatus;
  last_heartbeat: string | null;
  task_queue?: string;
  namespace?: string;
  /** `{"agent_id":…,"last_heartbeat":…` without the closing brace. */
  jsonHead: string;
  reasoners: SnapshotCapability[];
  skills: SnapshotCapability[];
}

export interface Snapshot {
  agents: SnapshotAgent[];
  byId: Map<string, SnapshotAgent>;
  /** When the storage read happened (the responses' `discovered_at`). */
  discoveredAt: string;
  loadedAt: number;
  /** Approximate bytes of the cached agent data. */
  bytes: number;
  responses: ResponseMemo;
}

/** RFC 3339 without milliseconds, as in the API's examples. */
export function isoSeconds(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * Agents of one version share schemas and tags: identical strings are kept once per snapshot
 * (the journal's JSON.parse gives every copy its own string).
 */
function interner(countNew: (text: string) => void): (text: string) => string {
  const seen = new Map<string, string>();
  return (text) => {
    const known = seen.get(text);
    if (known !== undefined) return known;
    seen.set(text, text);
    countNew(text);
    return text;
  };
}

export function buildSnapshot(
  stored: StoredAgent[],
  health: (agent: StoredAgent) => { status: HealthStatus; lastHeartbeat: number | undefined },
  loadedAt: number,
  memoBytes: number,
): Snapshot {
  let bytes = 0;
  const intern = interner((text) => (bytes += text.length));
  const capability = (c: StoredCapability, target: string): SnapshotCapability => {
    bytes += c.id.length + target.length + (c.description?.length ?? 0);
    const out: SnapshotCapability = { id: c.id, tags: c.tags.map(intern), target };
    if (c.description) out.description = c.description;
    if (c.input_schema) out.inputSchema = intern(c.input_schema);
    if (c.output_schema) out.outputSchema = intern(c.output_schema);
    if (c.examples) out.examples = intern(c.examples);
    return out;
  };
  const agents = stored
    .map((a): SnapshotAgent => {
      const { status, lastHeartbeat } = health(a);
      const last_heartbeat = lastHeartbeat !== undefined ? isoSeconds(lastHeartbeat) : null;
      const jsonHead =
        `{"agent_id":${JSON.stringify(a.agent_id)},"base_url":${JSON.stringify(a.base_url)},"version":${JSON.stringify(a.version)}` +
        `,"health_status":${JSON.stringify(status)},"deployment_type":${JSON.stringify(a.deployment_type)},"last_heartbeat":${JSON.stringify(last_heartbeat)}`;
      const reasoners = a.reasoners.map((r) => capability(r, reasonerTarget(a.agent_id, r.id)));
      const skills = a.skills.map((s) => capability(s, skillTarget(a.agent_id, s.id)));
      bytes += jsonHead.length;
      return {
        agent_id: a.agent_id,
        base_url: a.base_url,
        version: a.version,
        deployment_type: a.deployment_type,
        health_status: status,
        ...(a.reported_health ? { reported_health: a.reported_health } : {}),
        last_heartbeat,
        ...(a.task_queue ? { task_queue: a.task_queue } : {}),
        ...(a.namespace ? { namespace: a.namespace } : {}),
        jsonHead,
        reasoners,
        skills,
      };
    })
    .sort((x, y) => (x.agent_id < y.agent_id ? -1 : x.agent_id > y.agent_id ? 1 : 0));
  return {
    agents,
    byId: new Map(agents.map((a) => [a.agent_id, a])),
    discoveredAt: isoSeconds(loadedAt),
    loadedAt,
    bytes,
    responses: new ResponseMemo(memoBytes),
  };
}
