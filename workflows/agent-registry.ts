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
 *
 * Who may change it: only a control plane. Every Update carries a change signed with the control
 * planes' key, and its validator (domain/registry-proof.ts) refuses anything else before it
 * is accepted, so a refused change leaves no trace in history. The control planes decide who may
 * move or remove an agent (server/registry.ts); the workflow checks that one of them did.
 */
import {
  allHandlersFinished,
  condition,
  continueAsNew,
  setDefaultSignalHandler,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import {
  INSTANCE_EXPIRY_MS,
  registryAgentCheckedQuery,
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
} from '../contracts/agent-registry';
import { checkProof, isRegistryKey, pruneNonces } from '../domain/registry-proof';

/**
 * Continue as new past this many history events or bytes (each registration's manifest is in
 * history), or when the server suggests it; the next run starts from the state alone.
 */
const MAX_HISTORY_EVENTS = 1000;
const MAX_HISTORY_BYTES = 4 * 1024 * 1024;
/** A smaller limit (tests) is raised to this: anyone may start a run, and must not make it continue as new in a loop. */
const MIN_HISTORY_EVENTS = 20;

function manifestOf(agent: StoredAgent): string {
  const { registered_at: _r, updated_at: _u, instances: _i, owner: _o, secrets: _s, ...manifest } = agent;
  return JSON.stringify(manifest);
}

export function applyPut(
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

/**
 * A heartbeat for an instance the agent has. With `knownInstancesOnly` (every signed change) a
 * heartbeat never adds one, as in the local journal: anyone allowed to send heartbeats could
 * otherwise keep an agent alive after its last real instance left. Histories from before signed
 * changes replay as they were recorded.
 */
export function applyBeat(state: AgentRegistryState, beat: RegistryBeat, knownInstancesOnly = false): boolean {
  const agent = Object.hasOwn(state.agents, beat.id) ? state.agents[beat.id] : undefined;
  if (!agent || (knownInstancesOnly && !Object.hasOwn(agent.instances, beat.instance))) return false;
  agent.instances[beat.instance] = Math.max(agent.instances[beat.instance] ?? 0, beat.at);
  state.beats += 1;
  if (beat.reported !== undefined && (beat.reported ?? undefined) !== agent.reported_health) {
    if (beat.reported === null) delete agent.reported_health;
    else agent.reported_health = beat.reported;
    state.version += 1;
  }
  return true;
}

export function applyRemove(
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

/**
 * Registrations a run may start from: only those its own previous run carried over. Anyone who
 * reaches Temporal may start (or, after terminating it, restart) a shard with any input, and the
 * key in that input is public: a run started, retried or scheduled with agents in its input would
 * serve their routing under the control planes' key. Only continue-as-new carries state here.
 */
function carriedOver(): boolean {
  const info = workflowInfo();
  return info.continuedFromExecutionRunId !== undefined && info.attempt === 1 && info.cronSchedule === undefined;
}

interface OperationArgs {
  put: RegistryPut;
  beats: RegistryBeat[];
  remove: RegistryRemove;
}

const isSigned = (update: unknown) => typeof update === 'object' && update !== null && 'signed' in update;

/**
 * An Update's change, its nonce recorded: checked in full by the validator (live), or taken from
 * history (replay, where validators do not run). Histories from before signed changes hold the
 * bare change.
 */
function changeOf<T extends keyof OperationArgs>(state: AgentRegistryState, update: unknown, _op: T): OperationArgs[T] {
  if (isSigned(update)) {
    const signed = JSON.parse((update as { signed: string }).signed) as {
      arg: OperationArgs[T];
      nonce: string;
      issued: number;
    };
    const nonces = (state.nonces ??= {});
    nonces[signed.nonce] = signed.issued;
    pruneNonces(nonces, Date.now());
    return signed.arg;
  }
  return update as OperationArgs[T];
}

export async function agentRegistry(
  input?: Partial<AgentRegistryState> & { maxHistoryEvents?: number },
): Promise<never> {
  const carried = carriedOver();
  const state: AgentRegistryState = {
    agents: (carried && input?.agents) || {},
    version: (carried && input?.version) || 0,
    beats: (carried && input?.beats) || 0,
    ...(isRegistryKey(input?.key) ? { key: input.key } : {}),
    nonces: (carried && input?.nonces) || {},
  };
  const proofContext = () => {
    const info = workflowInfo();
    return {
      key: state.key,
      namespace: info.namespace,
      shard: info.workflowId,
      chain: info.firstExecutionRunId,
      now: Date.now(),
      nonces: state.nonces ?? {},
    };
  };
  setHandler(registryPutUpdate, (update) => applyPut(state, changeOf(state, update, 'put')), {
    validator: (update) => void checkProof(update, 'put', proofContext()),
  });
  setHandler(
    registryBeatsUpdate,
    (update) => changeOf(state, update, 'beats').map((beat) => applyBeat(state, beat, isSigned(update))),
    {
      validator: (update) => void checkProof(update, 'beats', proofContext()),
    },
  );
  setHandler(registryRemoveUpdate, (update) => applyRemove(state, changeOf(state, update, 'remove')), {
    validator: (update) => void checkProof(update, 'remove', proofContext()),
  });
  // The registry takes no signals: ones sent anyway are dropped rather than kept until the next run.
  setDefaultSignalHandler(() => undefined);
  const answerKey = () => ({
    key: state.key ?? null,
    runId: workflowInfo().runId,
    chain: workflowInfo().firstExecutionRunId,
  });
  setHandler(registryAgentsQuery, () => ({
    version: state.version,
    agents: Object.values(state.agents),
    ...answerKey(),
  }));
  setHandler(registryAgentQuery, (id) =>
    typeof id === 'string' && Object.hasOwn(state.agents, id) ? state.agents[id] : null,
  );
  setHandler(registryAgentCheckedQuery, (id) => ({
    agent: typeof id === 'string' && Object.hasOwn(state.agents, id) ? state.agents[id] : null,
    ...answerKey(),
  }));
  setHandler(registryVersionQuery, () => ({ version: state.version, beats: state.beats, ...answerKey() }));
  setHandler(registryHeartbeatsQuery, () => ({
    beats: state.beats,
    instances: Object.fromEntries(Object.entries(state.agents).map(([id, a]) => [id, a.instances])),
  }));
  const maxEvents = Math.max(MIN_HISTORY_EVENTS, input?.maxHistoryEvents ?? MAX_HISTORY_EVENTS);
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
