/**
 * The discovery flow's model tasks and the sections of their prompts (see contracts/model-tasks.ts).
 */
import type { JsonText } from '../../contracts/model-tasks';

export interface DiscoveryPlanSections {
  prp: string;
  /** The target columns as compact JSON. */
  target_schema: JsonText;
}

export interface DiscoveryValidateSections {
  conceptual_group: string;
  /** This step's target columns as compact JSON. */
  target_columns: JsonText;
  /** The candidate table (id, description, schema) as compact JSON. */
  candidate_table: JsonText;
  /** Every column of the requirement (name, description) as compact JSON; absent in older runs. */
  deliverable_columns?: JsonText;
  /**
   * The domain names the requirements document uses as its own and those it only rules out,
   * and the sentences that rule data out (`{ own, excluded, ruled_out }`) as compact JSON;
   * absent in older runs.
   */
  document_domains?: JsonText;
}

/** Every task id this flow's prompts carry (`Task: <id>`); each has a stand-in rule in ./standin.ts. */
export const ModelTask = {
  discoveryPlan: 'discovery.plan',
  discoveryValidate: 'discovery.validate',
} as const;

declare module '../../contracts/model-tasks' {
  interface ModelTaskSections {
    'discovery.plan': DiscoveryPlanSections;
    'discovery.validate': DiscoveryValidateSections;
  }
}
