/**
 * The benches' trivial workflows as a flow folder, so a bench bundles them beside the project's
 * flows the way the worker bundles its own (workers/workflow-bundle.ts). No tool, no activities:
 * each bench registers the `noop` activity itself.
 */
import { defineFlow } from '../../../flows/lib';
import type * as workflow from './workflow';

export default defineFlow<typeof workflow>({
  folder: __dirname,
  workflows: ['trivialActivities', 'idleUntilTerminated', 'bareInterview'],
});
