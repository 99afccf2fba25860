/**
 * What a flow folder declares about itself (its `index.ts`), and what flows/registry.ts lists.
 *
 * A flow folder `flows/<name>/` holds, by file name:
 *   contract.ts, messages.ts   the input and output schemas, the FlowDefinition(s), the queries,
 *                              updates and signals (shared by the workflow, clients and tests)
 *   model-tasks.ts             the model task ids and the sections of their prompts
 *   workflow.ts, workflow/     the workflow functions (the ones index.ts names are the bundle's
 *                              workflow types) and their state classes
 *   activities.ts, activities/ the activity factory `(backends) => ({ step: async (...) => ... })`
 *   standin.ts, standin/       the stand-in's rules, one per model task
 *   any other file at the top  pure rules the workflow and the activities share (preloaded
 *                              into the workflow bundle like the contract)
 *   index.ts                   this declaration
 *
 * Everything the project keeps per flow is derived from the registry's list of these (the
 * worker's workflows and activities, the modules preloaded into the workflow bundle, the
 * stand-in's rules, the tools of the control plane, the MCP server and the CLI), so adding a flow
 * is its folder and one line in flows/registry.ts. ESLint's rules for flow files go by these
 * file names, so they need no list either.
 *
 * The activities and the stand-in rules are loaded on demand: the control plane, the clients and
 * the stand-in read the registry without loading every activity (and PDF library, and backend
 * helper) with it.
 */
import path from 'node:path';
import type { Backends } from '../../backends';
import type { FlowDefinition } from '../../contracts/common';
import type { ModelTaskId } from '../../contracts/model-tasks';
import type { StandinRule } from './standin';

/** An activity factory: the activities a flow registers, built from the backends they use. */
// Activities take and return anything serialisable; each workflow types its own through proxyActivities.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type ActivityFactory = (backends: Backends) => Record<string, (...args: any[]) => Promise<unknown>>;

export interface FlowModuleOptions<W> {
  /** The flow's folder (`__dirname` of its index.ts): its name, and where its workflow.ts is. */
  folder: string;
  /**
   * The workflow types its workflow.ts exports (those started by people and their children): the
   * names the worker registers, checked against workflow.ts's exports by the type checker.
   */
  workflows: ReadonlyArray<Extract<keyof W, string>>;
  /** What people start: one FlowDefinition per workflow type offered as a tool (none for internal workflows). */
  definitions?: FlowDefinition[];
  /** Every model task the activities send (the values of the flow's `ModelTask`). */
  modelTasks?: readonly ModelTaskId[];
  /** The activity factory, loaded by the worker only. */
  activities?: () => Promise<ActivityFactory>;
  /** The stand-in's rules for the model tasks, loaded by the stand-in only. */
  standinRules?: () => Promise<StandinRule[]>;
  /**
   * Whether an error thrown in its workflow code fails the run (the default: every flow ends; see
   * endsOnError in flows/lib/workflow/flow.ts). A workflow that runs for good, like the agent
   * registry, says false: a failing task there waits for a fix instead of losing its state.
   */
  endsOnError?: boolean;
}

export interface FlowModule {
  /** The folder's name under flows/. */
  name: string;
  folder: string;
  workflows: readonly string[];
  definitions: FlowDefinition[];
  modelTasks: readonly ModelTaskId[];
  activities?: () => Promise<ActivityFactory>;
  standinRules?: () => Promise<StandinRule[]>;
  endsOnError: boolean;
}

/**
 * A flow folder's declaration. `W` is its workflow module's type (`typeof import('./workflow')`),
 * so a workflow name that workflow.ts does not export fails to compile; a definition whose
 * workflow type is not among the flow's workflows fails when the registry loads.
 */
export function defineFlow<W>(options: FlowModuleOptions<W>): FlowModule {
  const name = path.basename(options.folder);
  for (const definition of options.definitions ?? [])
    if (!options.workflows.includes(definition.type as Extract<keyof W, string>))
      throw new Error(`flows/${name}: ${definition.type} is offered but is not among the flow's workflows`);
  return {
    name,
    folder: options.folder,
    workflows: options.workflows,
    definitions: options.definitions ?? [],
    modelTasks: options.modelTasks ?? [],
    endsOnError: options.endsOnError ?? true,
    ...(options.activities ? { activities: options.activities } : {}),
    ...(options.standinRules ? { standinRules: options.standinRules } : {}),
  };
}

/** The files of a flow folder that hold workflow code (the bundle's entry imports `workflow`). */
export const WORKFLOW_MODULE = 'workflow';

/**
 * The names of a flow folder's top-level modules that are not shared with the workflows: its
 * workflow code (per workflow), its activities and stand-in rules (never in the bundle) and its
 * declaration. Every other top-level module (the contract, the messages, the model tasks, pure
 * rules) is preloaded once into the workflow bundle.
 */
export const UNSHARED_MODULES: ReadonlySet<string> = new Set([WORKFLOW_MODULE, 'activities', 'standin', 'index']);

/** Everything people can start, from every flow of the list, in its order. */
export function flowDefinitions(modules: readonly FlowModule[]): FlowDefinition[] {
  return modules.flatMap((m) => m.definitions);
}

/** Every model task the flows of the list declare. */
export function modelTasksOf(modules: readonly FlowModule[]): ModelTaskId[] {
  return modules.flatMap((m) => [...m.modelTasks]);
}

/**
 * Every activity of the flows of the list, built from the backends. Two flows registering the
 * same activity name would have one silently run the other's step: that refuses to start.
 */
export async function activitiesOf(
  modules: readonly FlowModule[],
  backends: Backends,
): Promise<ReturnType<ActivityFactory>> {
  const all: ReturnType<ActivityFactory> = {};
  const owner = new Map<string, string>();
  for (const module of modules) {
    if (!module.activities) continue;
    const activities = (await module.activities())(backends);
    for (const [name, activity] of Object.entries(activities)) {
      const other = owner.get(name);
      if (other) throw new Error(`activity ${name} is registered by both flows/${other} and flows/${module.name}`);
      owner.set(name, module.name);
      all[name] = activity;
    }
  }
  return all;
}

/**
 * The stand-in's rules of the flows of the list. Every model task a flow declares needs exactly
 * one rule, and every rule answers a declared task: otherwise the offline stack would answer a
 * prompt with an error, or a rule would wait for a task nobody sends.
 */
export async function standinRulesOf(modules: readonly FlowModule[]): Promise<StandinRule[]> {
  const rules: StandinRule[] = [];
  for (const module of modules) {
    const own = module.standinRules ? await module.standinRules() : [];
    const tasks = own.map((r) => r.task);
    const missing = module.modelTasks.filter((t) => !tasks.includes(t));
    const unknown = tasks.filter((t) => !module.modelTasks.includes(t as ModelTaskId));
    const twice = tasks.filter((t, i) => tasks.indexOf(t) !== i);
    if (missing.length || unknown.length || twice.length)
      throw new Error(
        `flows/${module.name}: ` +
          [
            missing.length ? `model tasks without a stand-in rule: ${missing.join(', ')}` : '',
            unknown.length ? `stand-in rules for tasks it does not declare: ${unknown.join(', ')}` : '',
            twice.length ? `tasks with more than one rule: ${twice.join(', ')}` : '',
          ]
            .filter(Boolean)
            .join('; '),
      );
    rules.push(...own);
  }
  return rules;
}
