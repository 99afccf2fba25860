/** The registry of flows: what the thin client, the MCP server, the demo and the control plane offer. */
import type { FlowDefinition } from './common';
import { platformCheckFlow } from './platform';
import { runEadsInterviewFlow } from './eads';
import { bomQuestionFlow } from './bom';
import { researchProposalFlow } from './proposal';
import { discoverFromPrpFlow } from './discovery';
import { scheduleFromScrFlow } from './schedule';

export const flows: FlowDefinition[] = [
  platformCheckFlow,
  runEadsInterviewFlow,
  researchProposalFlow,
  discoverFromPrpFlow,
  bomQuestionFlow,
  scheduleFromScrFlow,
];

export function findFlow(nameOrSlug: string): FlowDefinition | undefined {
  return flows.find((f) => f.type === nameOrSlug || f.slug === nameOrSlug);
}
