/** The platform check: the smallest workflow touching the model, the warehouse and search (a smoke test). */
import { defineFlow } from '../lib';
import type * as workflow from './workflow';
import { platformCheckFlow } from './contract';
import { ModelTask } from './model-tasks';

export default defineFlow<typeof workflow>({
  folder: __dirname,
  workflows: ['platformCheck'],
  definitions: [platformCheckFlow],
  modelTasks: Object.values(ModelTask),
  activities: () => import('./activities').then((m) => m.createPlatformActivities),
  standinRules: () => import('./standin').then((m) => m.platformRules),
});
