/**
 * The interview as a small deterministic object: which questions remain, the answers so far,
 * and a synchronous check of a proposed answer (update validators must be synchronous).
 */
import { ApplicationFailure } from '@temporalio/common';
import {
  INTERVIEW_QUESTIONS,
  interviewAnswerSchema,
  userProfileSchema,
  type InterviewQuestion,
  type InterviewQuestionView,
  type UserProfile,
} from '../../contracts/proposal';
import { formatZodError } from '../../contracts/common';

export class Interview {
  private readonly questions: readonly InterviewQuestion[];
  private readonly answers: Record<string, unknown>;
  private index = 0;

  /** Questions whose field the prefill already holds are not asked. */
  constructor(prefill: Partial<UserProfile> = {}) {
    this.answers = { ...prefill };
    this.questions = INTERVIEW_QUESTIONS.filter((q) => prefill[q.field] === undefined);
  }

  get asked(): number {
    return this.questions.length;
  }

  get answered(): number {
    return this.index;
  }

  get done(): boolean {
    return this.index >= this.questions.length;
  }

  get current(): InterviewQuestionView | null {
    const q = this.questions[this.index];
    if (!q) return null;
    return { id: q.field, field: q.field, number: this.index + 1, of: this.questions.length, prompt: q.prompt, hint: q.hint, optional: q.optional };
  }

  /** Throws a failure whose message says what is wrong; the same question stays open. */
  check(raw: unknown): { field: string; value: unknown } {
    const q = this.questions[this.index];
    if (!q) throw ApplicationFailure.create({ type: 'NoOpenQuestion', message: 'no interview question is open' });
    const parsed = interviewAnswerSchema.safeParse(raw);
    if (!parsed.success) throw ApplicationFailure.create({ type: 'InvalidAnswer', message: `invalid answer: ${formatZodError(parsed.error)}` });
    if (parsed.data.questionId !== undefined && parsed.data.questionId !== q.field) {
      throw ApplicationFailure.create({ type: 'StaleAnswer', message: `question "${parsed.data.questionId}" is not the open one; the open question is "${q.field}"` });
    }
    const result = q.parse(parsed.data.answer);
    if (!result.ok) throw ApplicationFailure.create({ type: 'InvalidAnswer', message: result.message });
    return { field: q.field, value: result.value };
  }

  /** Records a checked answer and moves to the next question. */
  accept(raw: unknown): InterviewQuestionView | null {
    const { field, value } = this.check(raw);
    if (value === undefined) delete this.answers[field];
    else this.answers[field] = value;
    this.index++;
    return this.current;
  }

  profile(): UserProfile {
    const result = userProfileSchema.safeParse(this.answers);
    if (!result.success) throw ApplicationFailure.nonRetryable(`interview answers do not form a profile: ${formatZodError(result.error)}`, 'InvalidProfile');
    return result.data;
  }
}
