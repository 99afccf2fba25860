/**
 * The proposal workflow's queries and updates, shared by the workflow and its clients
 * (the interview client, tests). Definitions only: no workflow logic here.
 */
import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type {
  InterviewAnswer,
  InterviewQuestionView,
  ProposalOutput,
  ProposalStateView,
  ReviewDecision,
} from './contract';

/** The open interview question, or null when none is open. */
export const currentQuestionQuery = defineQuery<InterviewQuestionView | null>('currentQuestion');
/** State machine state, transition history, what the workflow waits for, and the draft under review. */
export const proposalStateQuery = defineQuery<ProposalStateView>('proposalState');
/** Answers the open question; rejected (with the reason) when the answer does not parse. Returns the next question. */
export const answerQuestionUpdate = defineUpdate<InterviewQuestionView | null, [InterviewAnswer]>('answerQuestion');
/** Approves the draft or requests changes (comments feed one more refinement round). */
export const reviewProposalUpdate = defineUpdate<{ accepted: ReviewDecision['decision'] }, [ReviewDecision]>(
  'reviewProposal',
);

/**
 * What the interview client does next, as the `nextProposalStep` update replies once the
 * workflow has it (the client waits in the workflow instead of polling the queries): answer
 * `question`, review `draft`, or read the result. `id` names the step: pass it back as `after`
 * once dealt with, so the same step is not the reply again.
 */
export type ProposalStep =
  | { kind: 'question'; id: string; question: InterviewQuestionView }
  | { kind: 'review'; id: string; draft: NonNullable<ProposalStateView['draft']> }
  | { kind: 'ended'; result: ProposalOutput };

/** Waits (in the workflow) for the next question, the draft to review, or the result. */
export const nextProposalStepUpdate = defineUpdate<ProposalStep, [{ after?: string }]>('nextProposalStep');
