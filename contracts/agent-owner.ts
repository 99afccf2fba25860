/**
 * Agent ownership rules shared by the local journal (server/registry-store.ts) and the shared
 * `agentRegistry` workflow (flows/agent-registry/contract.ts re-exports them). Kept apart from the
 * workflow's Update and Query definitions so that the control plane's journal store does not load
 * the workflow library (@temporalio/workflow) at start.
 */

/** Instances not heard from for this long are dropped when their agent registers again. */
export const INSTANCE_EXPIRY_MS = 60 * 60 * 1000;

/** Who may move an agent: the SHA-256 (hex) of its owner's secret, and the owner's instance id. */
export interface AgentOwner {
  secret: string;
  instance: string;
}

/** Same owner: a re-registration by it changes nothing (the journal and the shared registry agree on this). */
export const sameOwner = (a: AgentOwner | undefined, b: AgentOwner | undefined): boolean =>
  a?.secret === b?.secret && a?.instance === b?.instance;
