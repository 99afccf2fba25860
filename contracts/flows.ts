/** The registry of flows: what the thin client, the MCP server, the demo and the control plane offer. */
import type { FlowDefinition } from './common';
import { platformCheckFlow } from './platform';

export const flows: FlowDefinition[] = [platformCheckFlow as unknown as FlowDefinition];

export function findFlow(nameOrSlug: string): FlowDefinition | undefined {
  return flows.find((f) => f.type === nameOrSlug || f.slug === nameOrSlug);
}
