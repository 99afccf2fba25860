/**
 * A research proposal whose stage failed fails its run (`ProposalStageFailed`), with what it had
 * written so far (status `error`, the failed stage and its message) in the failure's details.
 * Clients that show a proposal's result read it from there.
 */
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { FailureType } from '../contracts/failures';
import { proposalOutput, type ProposalOutput } from '../flows/proposal/contract';

/** The partial result a failed proposal run carries; undefined for any other error. */
export function failedProposal(err: unknown): ProposalOutput | undefined {
  const failure = err instanceof WorkflowFailedError ? err.cause : err;
  if (!(failure instanceof ApplicationFailure) || failure.type !== FailureType.ProposalStageFailed) return undefined;
  const parsed = proposalOutput.safeParse(failure.details?.[0]);
  return parsed.success ? parsed.data : undefined;
}
