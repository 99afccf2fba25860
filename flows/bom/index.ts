/** BOM questions: parameterized SQL over the bills of materials, explained by the model. */
import { defineFlow } from '../lib';
import type * as workflow from './workflow';
import { bomQuestionFlow } from './contract';
import { ModelTask } from './model-tasks';

export default defineFlow<typeof workflow>({
  folder: __dirname,
  workflows: ['answerBomQuestion'],
  definitions: [bomQuestionFlow],
  modelTasks: Object.values(ModelTask),
  activities: () => import('./activities').then((m) => m.createBomActivities),
  standinRules: () => import('./standin').then((m) => m.bomRules),
});
