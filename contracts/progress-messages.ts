/**
 * The `progress` query every flow answers, shared by the workflows (lib/progress.ts) and every
 * client (CLI, MCP server, control plane, tests). Definitions only: no workflow logic here.
 */
import { defineQuery } from '@temporalio/workflow';
import type { Progress } from './common';

/** Stage, status, work done of the total, the last detail, and the tokens spent so far. */
export const progressQuery = defineQuery<Progress>('progress');
