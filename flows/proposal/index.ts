/** Research proposals: an interview, five model stages, quality control, refinement and a PDF. */
import { defineFlow } from '../lib';
import type * as workflow from './workflow';
import { researchProposalFlow } from './contract';
import { ModelTask } from './model-tasks';

export default defineFlow<typeof workflow>({
  folder: __dirname,
  workflows: ['writeResearchProposal'],
  definitions: [researchProposalFlow],
  modelTasks: Object.values(ModelTask),
  activities: () => import('./activities').then((m) => m.createProposalActivities),
  standinRules: () => import('./standin').then((m) => m.proposalRules),
});
