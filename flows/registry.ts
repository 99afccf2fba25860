/**
 * The flows of the project: one line per flow folder. Every other list is derived from this one
 * (flows/lib/index.ts): the worker's workflows (workers/workflow-bundle.ts makes the bundle's
 * entry from it) and activities, the modules preloaded into the workflow bundle, the stand-in's
 * rules, the control plane's reasoners, the MCP server's and the CLI's tools, the console's
 * forms, and the tests' per-flow tables (from each definition's `examples`).
 * test/unit/flow-registry.test.ts fails on a flow folder that is not listed here.
 *
 * Reading it loads each flow's contract and model task ids, not its activities or stand-in
 * rules (those load on demand, in the worker and in the stand-in).
 */
import type { Backends } from '../backends';
import type { FlowDefinition } from '../contracts/common';
import type { StandinRule } from './lib/standin';
import { activitiesOf, flowDefinitions, standinRulesOf, type FlowModule } from './lib';
import platform from './platform';
import eads from './eads';
import proposal from './proposal';
import discovery from './discovery';
import bom from './bom';
import schedule from './schedule';
import agentRegistry from './agent-registry';

/** In the order people see them (the CLI, the MCP tools, the console, the control plane's manifest). */
export const FLOWS: readonly FlowModule[] = [platform, eads, proposal, discovery, bom, schedule, agentRegistry];

/** Everything people can start. */
export const flows: FlowDefinition[] = flowDefinitions(FLOWS);

export function findFlow(nameOrSlug: string): FlowDefinition | undefined {
  return flows.find((f) => f.type === nameOrSlug || f.slug === nameOrSlug);
}

/** Every activity the worker registers, built from the backends they use. */
export function createActivities(backends: Backends, modules: readonly FlowModule[] = FLOWS) {
  return activitiesOf(modules, backends);
}

/** Every rule of the model stand-in. */
export function loadStandinRules(modules: readonly FlowModule[] = FLOWS): Promise<StandinRule[]> {
  return standinRulesOf(modules);
}
