/** The registry of flows: what the thin client, the MCP server, the demo and the control plane offer. */
import type { FlowDefinition } from '../contracts/common';
import { platformCheckFlow } from './platform/contract';
import { runEadsInterviewFlow } from './eads/contract';
import { bomQuestionFlow } from './bom/contract';
import { researchProposalFlow } from './proposal/contract';
import { discoverFromPrpFlow } from './discovery/contract';
import { scheduleFromScrFlow } from './schedule/contract';

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
