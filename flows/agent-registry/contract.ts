/**
 * The shared agent registry (many control-plane instances, docs/scale-out.md): one long-running
 * `agentRegistry` workflow per namespace holds every registration; control-plane instances change
 * it with Updates and read it with Queries. Also the shapes the local journal stores.
 */
import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type { AgentOwner } from '../../contracts/agent-owner';
import type { HealthStatus } from '../../contracts/capabilities';

export { INSTANCE_EXPIRY_MS, sameOwner, type AgentOwner } from '../../contracts/agent-owner';

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
  [RegistryPut]
>('registryPut');
/** Heartbeats batched per instance; the answer says, per beat, whether the agent is known. */
export const registryBeatsUpdate = defineUpdate<boolean[], [RegistryBeat[]]>('registryBeats');
export const registryRemoveUpdate = defineUpdate<
  { removed: boolean; remainingInstances: number; agent: StoredAgent | null },
  [RegistryRemove]
>('registryRemove');
export const registryAgentsQuery = defineQuery<{ version: number; agents: StoredAgent[] }>('registryAgents');
export const registryAgentQuery = defineQuery<StoredAgent | null, [string]>('registryAgent');
export const registryVersionQuery = defineQuery<{ version: number; beats: number }>('registryVersion');
/** agent id -> instance id -> last heartbeat: small, for refreshing health between full reads. */
export const registryHeartbeatsQuery = defineQuery<{
  beats: number;
  instances: Record<string, Record<string, number>>;
}>('registryHeartbeats');
