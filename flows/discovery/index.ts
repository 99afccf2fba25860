/** Data discovery: a requirements document's target schema matched to warehouse tables. */
import { defineFlow } from '../lib';
import type * as workflow from './workflow';
import { discoverFromPrpFlow } from './contract';
import { ModelTask } from './model-tasks';

export default defineFlow<typeof workflow>({
  folder: __dirname,
  workflows: ['discoverFromPrp'],
  definitions: [discoverFromPrpFlow],
  modelTasks: Object.values(ModelTask),
  activities: () => import('./activities').then((m) => m.createDiscoveryActivities),
  standinRules: () => import('./standin').then((m) => m.discoveryRules),
});
