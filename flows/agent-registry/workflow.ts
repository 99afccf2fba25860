/**
 * `agentRegistry`: the control plane's registrations when several instances share them. One
 * workflow per namespace (id CONTROL_PLANE_REGISTRY_ID) holds every agent; instances change it
 * with Updates (each answered after it is in history, so an acknowledged registration survives
 * any control-plane instance) and read it with Queries. It continues as new (carrying the
 * registrations) before its history grows large. It never ends on its own.
 *
 * Same rules as the local journal (server/registry-store.ts): an identical re-registration is a
 * heartbeat; an instance keeps the secret it first registered with; instances silent for an hour
 * are dropped when their agent registers again; the agent goes when its last instance does.
 */
import { allHandlersFinished, condition, continueAsNew, setHandler, workflowInfo } from '@temporalio/workflow';
import {
  INSTANCE_EXPIRY_MS,
  registryAgentQuery,
  registryAgentsQuery,
  registryBeatsUpdate,
  registryHeartbeatsQuery,
  registryPutUpdate,
  registryRemoveUpdate,
  registryVersionQuery,
  sameOwner,
  type AgentRegistryState,
  type RegistryBeat,
  type RegistryPut,
  type RegistryRemove,
  type StoredAgent,
} from './contract';

/**
 * Continue as new past this many history events or bytes (each registration's manifest is in
 * history), or when the server suggests it; the next run starts from the state alone.
 */
const MAX_HISTORY_EVENTS = 1000;
const MAX_HISTORY_BYTES = 4 * 1024 * 1024;

function manifestOf(agent: StoredAgent): string {
  const { registered_at: _r, updated_at: _u, instances: _i, owner: _o, secrets: _s, ...manifest } = agent;
  return JSON.stringify(manifest);
}

function applyPut(
  state: AgentRegistryState,
  put: RegistryPut,
): { created: boolean; changed: boolean; agent: StoredAgent } {
  const id = put.manifest.agent_id;
  const previous = state.agents[id];
  const instanceSecret = previous?.secrets?.[put.instance] ?? put.secret;
  const unchanged =
    previous !== undefined &&
    manifestOf(previous) === JSON.stringify(put.manifest) &&
    sameOwner(previous.owner, put.owner) &&
    put.instance in previous.instances &&
    previous.secrets?.[put.instance] === instanceSecret;
  if (previous && unchanged) {
    previous.instances[put.instance] = put.at;
    state.beats += 1;
    return { created: false, changed: false, agent: previous };
  }
  const instances: Record<string, number> = {};
  const secrets: Record<string, string> = {};
  for (const [instance, seen] of Object.entries(previous?.instances ?? {})) {
    if (seen < put.at - INSTANCE_EXPIRY_MS) continue;
    instances[instance] = seen;
    const secret = previous?.secrets?.[instance];
    if (secret) secrets[instance] = secret;
  }
  instances[put.instance] = put.at;
  if (instanceSecret) secrets[put.instance] = instanceSecret;
  const agent: StoredAgent = {
    ...put.manifest,
    registered_at: previous?.registered_at ?? put.at,
    updated_at: put.at,
    instances,
    ...(put.owner ? { owner: put.owner } : {}),
    ...(Object.keys(secrets).length ? { secrets } : {}),
  };
  state.agents[id] = agent;
  state.version += 1;
  return { created: !previous, changed: true, agent };
}

function applyBeat(state: AgentRegistryState, beat: RegistryBeat): boolean {
  const agent = state.agents[beat.id];
  if (!agent) return false;
  agent.instances[beat.instance] = Math.max(agent.instances[beat.instance] ?? 0, beat.at);
  state.beats += 1;
  if (beat.reported !== undefined && (beat.reported ?? undefined) !== agent.reported_health) {
    if (beat.reported === null) delete agent.reported_health;
    else agent.reported_health = beat.reported;
    state.version += 1;
  }
  return true;
}

function applyRemove(
  state: AgentRegistryState,
  remove: RegistryRemove,
): { removed: boolean; remainingInstances: number; agent: StoredAgent | null } {
  const agent = state.agents[remove.id];
  if (!agent) return { removed: false, remainingInstances: 0, agent: null };
  if (remove.instance !== null) {
    delete agent.instances[remove.instance];
    if (agent.secrets) delete agent.secrets[remove.instance];
  }
  state.version += 1;
  if (remove.instance === null || Object.keys(agent.instances).length === 0) {
    delete state.agents[remove.id];
    return { removed: true, remainingInstances: 0, agent: null };
  }
  return { removed: false, remainingInstances: Object.keys(agent.instances).length, agent };
}

export async function agentRegistry(
  input?: Partial<AgentRegistryState> & { maxHistoryEvents?: number },
): Promise<never> {
  const state: AgentRegistryState = {
    agents: input?.agents ?? {},
    version: input?.version ?? 0,
    beats: input?.beats ?? 0,
  };
  setHandler(registryPutUpdate, (put) => applyPut(state, put));
  setHandler(registryBeatsUpdate, (beats) => beats.map((beat) => applyBeat(state, beat)));
  setHandler(registryRemoveUpdate, (remove) => applyRemove(state, remove));
  setHandler(registryAgentsQuery, () => ({ version: state.version, agents: Object.values(state.agents) }));
  setHandler(registryAgentQuery, (id) => state.agents[id] ?? null);
  setHandler(registryVersionQuery, () => ({ version: state.version, beats: state.beats }));
  setHandler(registryHeartbeatsQuery, () => ({
    beats: state.beats,
    instances: Object.fromEntries(Object.entries(state.agents).map(([id, a]) => [id, a.instances])),
  }));
  const maxEvents = input?.maxHistoryEvents ?? MAX_HISTORY_EVENTS;
  await condition(() => {
    const info = workflowInfo();
    return info.continueAsNewSuggested || info.historyLength > maxEvents || info.historySize > MAX_HISTORY_BYTES;
  });
  // Updates already accepted finish in this run; later ones go to the next run.
  await condition(allHandlersFinished);
  return continueAsNew<typeof agentRegistry>({
    ...state,
    ...(input?.maxHistoryEvents ? { maxHistoryEvents: maxEvents } : {}),
  });
}
