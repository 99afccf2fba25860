/**
 * The in-memory form of every registered agent that discovery filters and renders: built once
 * per cache miss from the storage read, sorted by agent id (stable pagination), with each
 * agent's health derived at build time and JSON fragments pre-rendered, so a response is
 * mostly string concatenation.
 */
import { reasonerTarget, skillTarget, type HealthStatus } from '../contracts/capabilities';
import { ResponseMemo } from './cache';
import type { StoredAgent, StoredCapability, StoredManifest } from './registry-store';

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
  /** When the registry was last read or revalidated (the responses' `discovered_at`). */
  discoveredAt: string;
  loadedAt: number;
  /** The store's change count when it was read (stores that count changes). */
  storeChanges?: number;
  /** One copy of each schema, example and tag text, shared by the agents patched in later. */
  intern: (text: string) => string;
  /** Agents patched in since the storage read (their replaced text stays in `intern`). */
  patches: number;
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
function interner(): (text: string) => string {
  const seen = new Map<string, string>();
  return (text) => {
    const known = seen.get(text);
    if (known !== undefined) return known;
    seen.set(text, text);
    return text;
  };
}

type AgentHealth = (agent: Pick<StoredAgent, 'agent_id' | 'task_queue' | 'namespace' | 'reported_health'>) => {
  status: HealthStatus;
  lastHeartbeat: number | undefined;
};

/** An agent's response fields that move with time, and its JSON head rendered from them. */
function liveFields(
  a: Pick<StoredAgent, 'agent_id' | 'base_url' | 'version' | 'deployment_type'>,
  status: HealthStatus,
  lastHeartbeat: number | undefined,
): Pick<SnapshotAgent, 'health_status' | 'last_heartbeat' | 'jsonHead'> {
  const last_heartbeat = lastHeartbeat !== undefined ? isoSeconds(lastHeartbeat) : null;
  const jsonHead =
    `{"agent_id":${JSON.stringify(a.agent_id)},"base_url":${JSON.stringify(a.base_url)},"version":${JSON.stringify(a.version)}` +
    `,"health_status":${JSON.stringify(status)},"deployment_type":${JSON.stringify(a.deployment_type)},"last_heartbeat":${JSON.stringify(last_heartbeat)}`;
  return { health_status: status, last_heartbeat, jsonHead };
}

/**
 * The same agents with health and heartbeat times derived again, as of `now`: no storage read.
 * Agents whose fields did not move are shared with `previous`; rendered responses are not.
 */
export function refreshSnapshot(previous: Snapshot, health: AgentHealth, now: number, memoBytes: number): Snapshot {
  const agents = previous.agents.map((agent) => {
    const { status, lastHeartbeat } = health(agent);
    const live = liveFields(agent, status, lastHeartbeat);
    return live.jsonHead === agent.jsonHead ? agent : { ...agent, ...live };
  });
  return {
    ...previous,
    agents,
    byId: new Map(agents.map((a) => [a.agent_id, a])),
    discoveredAt: isoSeconds(now),
    loadedAt: now,
    bytes: totalBytes(agents),
    responses: new ResponseMemo(memoBytes),
  };
}

const byAgentId = (x: SnapshotAgent, y: SnapshotAgent) =>
  x.agent_id < y.agent_id ? -1 : x.agent_id > y.agent_id ? 1 : 0;

/** One agent as discovery serves it; `intern` keeps one copy of repeated schema and tag text. */
function snapshotAgent(a: StoredManifest, health: AgentHealth, intern: (text: string) => string): SnapshotAgent {
  const capability = (c: StoredCapability, target: string): SnapshotCapability => {
    const out: SnapshotCapability = { id: c.id, tags: c.tags.map(intern), target };
    if (c.description) out.description = c.description;
    if (c.input_schema) out.inputSchema = intern(c.input_schema);
    if (c.output_schema) out.outputSchema = intern(c.output_schema);
    if (c.examples) out.examples = intern(c.examples);
    return out;
  };
  const { status, lastHeartbeat } = health(a);
  return {
    agent_id: a.agent_id,
    base_url: a.base_url,
    version: a.version,
    deployment_type: a.deployment_type,
    ...(a.reported_health ? { reported_health: a.reported_health } : {}),
    ...(a.task_queue ? { task_queue: a.task_queue } : {}),
    ...(a.namespace ? { namespace: a.namespace } : {}),
    ...liveFields(a, status, lastHeartbeat),
    reasoners: a.reasoners.map((r) => capability(r, reasonerTarget(a.agent_id, r.id))),
    skills: a.skills.map((c) => capability(c, skillTarget(a.agent_id, c.id))),
  };
}

/** Approximate bytes of the agents' cached text (text shared between agents counted for each). */
function totalBytes(agents: SnapshotAgent[]): number {
  let bytes = 0;
  for (const agent of agents) {
    bytes += agent.jsonHead.length;
    for (const c of [...agent.reasoners, ...agent.skills]) {
      bytes += c.id.length + c.target.length + (c.description?.length ?? 0);
      bytes += (c.inputSchema?.length ?? 0) + (c.outputSchema?.length ?? 0) + (c.examples?.length ?? 0);
      for (const tag of c.tags) bytes += tag.length;
    }
  }
  return bytes;
}

/**
 * The snapshot with one agent registered anew (`manifest`) or gone (undefined), as a storage
 * read would give it, without the read: a registration costs one agent's work, not the
 * registry's (re-reading every manifest took a second of CPU and ~10 MB per registration at
 * 500 agents).
 */
export function withAgent(
  previous: Snapshot,
  agentId: string,
  manifest: StoredManifest | undefined,
  health: AgentHealth,
  now: number,
  memoBytes: number,
): Snapshot {
  const added = manifest ? snapshotAgent(manifest, health, previous.intern) : undefined;
  let agents = previous.agents.filter((a) => a.agent_id !== agentId);
  if (added) {
    // The list is sorted: insert in place (a new agent id usually sorts last).
    let at = agents.length;
    while (at > 0 && agents[at - 1].agent_id > agentId) at -= 1;
    agents = [...agents.slice(0, at), added, ...agents.slice(at)];
  }
  const byId = new Map(previous.byId);
  if (added) byId.set(agentId, added);
  else byId.delete(agentId);
  return {
    ...previous,
    agents,
    byId,
    discoveredAt: isoSeconds(now),
    bytes: totalBytes(agents),
    patches: previous.patches + 1,
    responses: new ResponseMemo(memoBytes),
  };
}

export function buildSnapshot(
  stored: StoredAgent[],
  health: AgentHealth,
  loadedAt: number,
  memoBytes: number,
): Snapshot {
  const intern = interner();
  const agents = stored.map((a) => snapshotAgent(a, health, intern)).sort(byAgentId);
  return {
    agents,
    byId: new Map(agents.map((a) => [a.agent_id, a])),
    discoveredAt: isoSeconds(loadedAt),
    loadedAt,
    bytes: totalBytes(agents),
    intern,
    patches: 0,
    responses: new ResponseMemo(memoBytes),
  };
}
