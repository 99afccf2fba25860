/**
 * Start-of-workflow chores shared by every flow: validate the single JSON argument and tag the
 * execution with the `AgentFlow` search attribute (so `temporal workflow list --query
 * 'AgentFlow="..."'` works for flows started by any client, including the `temporal` CLI).
 */
import { upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { z } from 'zod';
import { flowSearchAttribute, parseFlowInput } from '../../../contracts/common';
import { ProgressTracker } from './progress';

export function beginFlow<S extends z.ZodType>(
  flow: string,
  schema: S,
  raw: unknown,
): { input: z.output<S>; progress: ProgressTracker } {
  const progress = new ProgressTracker(flow);
  const input = parseFlowInput(flow, schema, raw);
  if (workflowInfo().typedSearchAttributes.get(flowSearchAttribute) !== flow) {
    upsertSearchAttributes([{ key: flowSearchAttribute, value: flow }]);
  }
  return { input, progress };
}
