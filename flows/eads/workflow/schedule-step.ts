/**
 * The optional last step of `runEadsInterview` (input `schedule: true` or schedule options): the
 * interview's merged SCR goes to `scheduleFromScr` as a child workflow, so the same schedule can
 * later be re-run with new orders on its own, without the interview.
 */
import { executeChild, patched, rootCause } from '@temporalio/workflow';
import { flowSearchAttribute } from '../../../contracts/common';
import type { ScheduleFromScrOutput, ScheduleOptions } from '../../schedule/contract';
import { shopKindOf } from '../../../domain/schedule-model';
import type { JsonObject } from '../../../domain/eads-structure';
import { scheduleFromScr } from '../../schedule/workflow';

/** Marks histories whose interview ends with the schedule step (only ones started with `schedule`). */
export const EADS_SCHEDULE_STEP_PATCH = 'eads-schedule-step';

export type InterviewSchedule = ScheduleFromScrOutput | { skipped: string } | { error: string };

export function scheduleWorkflowId(interviewWorkflowId: string): string {
  return `${interviewWorkflowId}--schedule`;
}

export async function scheduleAfterInterview(args: {
  projectId: string;
  firm?: string;
  interviewWorkflowId: string;
  mergedScr: JsonObject;
  options: boolean | ScheduleOptions;
}): Promise<InterviewSchedule> {
  // New command sequence only for interviews that ask for it; the marker makes that explicit in history.
  if (!patched(EADS_SCHEDULE_STEP_PATCH)) return { skipped: 'recorded before the schedule step existed' };
  if (!shopKindOf(args.mergedScr)) {
    const type = args.mergedScr['principal-problem-type'];
    return {
      skipped: `only flow-shop and job-shop interviews are scheduled yet (this one: ${typeof type === 'string' ? type : 'undetermined'})`,
    };
  }
  const options = typeof args.options === 'object' ? args.options : {};
  try {
    return await executeChild(scheduleFromScr, {
      workflowId: scheduleWorkflowId(args.interviewWorkflowId),
      args: [{ projectId: args.projectId, ...(args.firm ? { firm: args.firm } : {}), scr: args.mergedScr, ...options }],
      typedSearchAttributes: [{ key: flowSearchAttribute, value: 'scheduleFromScr' }],
      staticSummary: `schedule for ${args.projectId}`,
    });
  } catch (err) {
    // A schedule that cannot be built (missing steps, unknown product) must not lose the interview.
    const message = rootCause(err) ?? String(err);
    return { error: message };
  }
}
