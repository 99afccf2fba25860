/**
 * The bare interview's update and query (bench/open-interviews.ts): what a workflow written with
 * the SDK alone needs to wait for a person's answers and reply with the next question.
 */
import { defineQuery, defineUpdate } from '@temporalio/workflow';

export interface BareQuestion {
  id: string;
  number: number;
}

/** The open question (the first, when asked at start). */
export const bareNextQuestionUpdate = defineUpdate<BareQuestion | null, []>('bareNextQuestion');
/** Records an answer; replies with the next question (null once every question is answered). */
export const bareAnswerUpdate = defineUpdate<BareQuestion | null, [{ questionId: string; answer: string }]>(
  'bareAnswer',
);
/** The answers recorded so far. */
export const bareAnswersQuery = defineQuery<number>('bareAnswers');
