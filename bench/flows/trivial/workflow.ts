/** Bench-only workflow: N trivial activities one after another, to measure Temporal's per-activity cost. */
import { condition, proxyActivities, proxyLocalActivities, setHandler } from '@temporalio/workflow';
import { bareAnswersQuery, bareAnswerUpdate, bareNextQuestionUpdate, type BareQuestion } from './messages';

interface TrivialActivities {
  noop(i: number): Promise<number>;
}

const { noop } = proxyActivities<TrivialActivities>({ startToCloseTimeout: '10 seconds' });
const local = proxyLocalActivities<TrivialActivities>({ startToCloseTimeout: '10 seconds' });

export async function trivialActivities(n: number, useLocal = false): Promise<number> {
  let sum = 0;
  for (let i = 0; i < n; i++) sum += await (useLocal ? local.noop(i) : noop(i));
  return sum;
}

/** Bench-only workflow that stays open (and cached) until cancelled or terminated: memory per cached workflow. */
export async function idleUntilTerminated(): Promise<void> {
  await new Promise<void>(() => undefined);
}

/**
 * Bench-only interview written with the SDK alone (bench/open-interviews.ts): waits for answers by
 * update and replies with the next question, no activity; a question left unanswered for
 * `idleTimeoutMinutes` ends it, as the project's interviews do.
 */
export async function bareInterview(input: { idleTimeoutMinutes: number; questions?: number }): Promise<string> {
  const total = input.questions ?? 9;
  const answers: string[] = [];
  const question = (): BareQuestion | null =>
    answers.length < total ? { id: `q${answers.length + 1}`, number: answers.length + 1 } : null;
  setHandler(bareAnswersQuery, () => answers.length);
  setHandler(bareNextQuestionUpdate, question);
  setHandler(
    bareAnswerUpdate,
    ({ answer }) => {
      answers.push(answer);
      return question();
    },
    {
      validator: ({ questionId }) => {
        if (questionId !== question()?.id) throw new Error(`question ${questionId} is not the open one`);
      },
    },
  );
  while (answers.length < total) {
    const before = answers.length;
    if (!(await condition(() => answers.length > before, input.idleTimeoutMinutes * 60_000))) return 'abandoned';
  }
  return 'done';
}
