/**
 * The shared agent registry (many control-plane instances, docs/scale-out.md): one long-running
 * `agentRegistry` workflow per namespace holds every registration; control-plane instances change
 * it with Updates and read it with Queries. Also the shapes the local journal stores.
 *
 * Anyone who reaches the Temporal frontend can send an Update, so the workflow accepts a change
 * only with a proof it can check: the change is sent as the exact text a control plane signed
 * (Ed25519, key derived from CONTROL_PLANE_REGISTRY_KEY; the workflow holds only the public key),
 * naming the namespace, shard and run chain it is for, when it was signed and a one-time nonce. A client
 * without the key cannot make one, and a signed change read back from history is refused when
 * sent again (its nonce was used, or it is older than PROOF_WINDOW_MS).
 */
import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type { AgentOwner } from './agent-owner';
import type { HealthStatus } from './capabilities';

export { INSTANCE_EXPIRY_MS, sameOwner, type AgentOwner } from './agent-owner';

export const AGENT_REGISTRY_WORKFLOW = 'agentRegistry';

/** A capability as stored: schemas and examples kept as JSON text, spliced into responses as-is. */
export interface StoredCapability {
  id: string;
  description?: string;
  tags: string[];
  input_schema?: string;
  output_schema?: string;
  examples?: string;
}

export interface StoredAgent extends StoredManifest {
  registered_at: number;
  updated_at: number;
  /** instance id -> last heartbeat (ms since epoch). */
  instances: Record<string, number>;
  owner?: AgentOwner;
  /** instance id -> SHA-256 (hex) of the secret it first registered with, if any. */
  secrets?: Record<string, string>;
}

export interface StoredManifest {
  agent_id: string;
  base_url: string;
  version: string;
  deployment_type: string;
  task_queue?: string;
  namespace?: string;
  reported_health?: HealthStatus;
  reasoners: StoredCapability[];
  skills: StoredCapability[];
}

/** The registry workflow's state (also its continue-as-new input). */
export interface AgentRegistryState {
  agents: Record<string, StoredAgent>;
  /** Bumped by every change callers can see (registration, deregistration, reported health). */
  version: number;
  /** Bumped by every heartbeat: instances poll it to refresh last-heartbeat times. */
  beats: number;
  /**
   * The control planes' public key (Ed25519, 64 hex characters) that every change must be signed
   * with. A run without one (started before changes were signed) accepts no change.
   */
  key?: string;
  /** Nonces of the signed changes accepted within the last PROOF_WINDOW_MS -> when each was signed. */
  nonces?: Record<string, number>;
}

/**
 * A signed change is accepted only within this long of the workflow's clock (either side, for
 * clock skew between the control plane and the Temporal server); its nonce is remembered as long.
 */
export const PROOF_WINDOW_MS = 5 * 60 * 1000;
/**
 * Longest signed text the workflow looks at: checking a signature hashes the whole text, so an
 * unauthenticated sender's work is bounded before anything else. Temporal refuses payloads past
 * 2 MB by default; a registration body is at most CONTROL_PLANE_MAX_MANIFEST_BYTES (1 MB default).
 */
export const MAX_SIGNED_CHARS = 4 * 1024 * 1024;

/** What a control plane signs: one change, for one shard of one namespace, once. */
export type RegistryOperation =
  { op: 'put'; arg: RegistryPut } | { op: 'beats'; arg: RegistryBeat[] } | { op: 'remove'; arg: RegistryRemove };
export type SignedRegistryOperation = RegistryOperation & {
  v: 1;
  namespace: string;
  /** The shard's workflow id. */
  shard: string;
  /**
   * The shard's execution chain (the id of its first run; continue-as-new keeps it): a change
   * signed for a run that was since terminated and started again is refused by the new one,
   * which does not know the old one's nonces.
   */
  chain: string;
  /** When it was signed (the control plane's clock, ms). */
  issued: number;
  /** 32 hex characters, random: a change is accepted once. */
  nonce: string;
};
/** An Update's argument: the signed text exactly as signed (JSON of a SignedRegistryOperation) and its signature. */
export interface SignedUpdate {
  signed: string;
  /** Ed25519 signature of the UTF-8 bytes of `signed`, 128 hex characters. */
  sig: string;
}

export interface RegistryPut {
  manifest: StoredManifest;
  instance: string;
  /** The calling instance's clock (ms): the workflow keeps no clock of its own for registrations. */
  at: number;
  owner?: AgentOwner;
  secret?: string;
}
export interface RegistryBeat {
  id: string;
  instance: string;
  at: number;
  reported?: HealthStatus | null;
}
export interface RegistryRemove {
  id: string;
  instance: string | null;
  at: number;
}

export const registryPutUpdate = defineUpdate<
  { created: boolean; changed: boolean; agent: StoredAgent },
  [SignedUpdate]
>('registryPut');
/** Heartbeats batched per instance; the answer says, per beat, whether the agent is known. */
export const registryBeatsUpdate = defineUpdate<boolean[], [SignedUpdate]>('registryBeats');
export const registryRemoveUpdate = defineUpdate<
  { removed: boolean; remainingInstances: number; agent: StoredAgent | null },
  [SignedUpdate]
>('registryRemove');

/**
 * Which key the answering run checks changes with, and which run answered: a control plane trusts
 * an answer only when the key is its own (otherwise someone else started the shard, or it predates
 * signed changes), and replaces that run.
 */
export interface RegistryAnswerKey {
  key: string | null;
  runId: string;
  /** The execution chain the answering run belongs to: changes are signed for it. */
  chain: string;
}
export const registryAgentsQuery = defineQuery<{ version: number; agents: StoredAgent[] } & RegistryAnswerKey>(
  'registryAgents',
);
export const registryAgentQuery = defineQuery<StoredAgent | null, [string]>('registryAgent');
/** One agent with the key that vouches for it (ownership decisions use this one). */
export const registryAgentCheckedQuery = defineQuery<{ agent: StoredAgent | null } & RegistryAnswerKey, [string]>(
  'registryAgentChecked',
);
export const registryVersionQuery = defineQuery<{ version: number; beats: number } & RegistryAnswerKey>(
  'registryVersion',
);
/** agent id -> instance id -> last heartbeat: small, for refreshing health between full reads. */
export const registryHeartbeatsQuery = defineQuery<{
  beats: number;
  instances: Record<string, Record<string, number>>;
}>('registryHeartbeats');
