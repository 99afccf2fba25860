/** EADS interviews: an orchestrated, budgeted interview filling example data structures (child workflow `pursueEads`). */
import { defineFlow } from '../lib';
import type * as workflow from './workflow';
import { runEadsInterviewFlow } from './contract';
import { ModelTask } from './model-tasks';

export default defineFlow<typeof workflow>({
  folder: __dirname,
  workflows: ['runEadsInterview', 'pursueEads', 'listEadsLibrary'],
  definitions: [runEadsInterviewFlow],
  modelTasks: Object.values(ModelTask),
  activities: () => import('./activities').then((m) => m.createEadsActivities),
  standinRules: () => import('./standin').then((m) => m.eadsRules),
});
