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
} from '../contract';
import { z } from 'zod';
import { capMessage, excerpt, formatZodError } from '../../../contracts/common';
import { FailureType } from '../../../contracts/failures';

/**
 * Answers accepted before answers had to name their question (histories from then replay
 * through `accept`, which does not run the validator's checks).
 */
const recordedAnswerSchema = z.object({ answer: z.string().max(4000), questionId: z.string().optional() });

/** An update's argument as its schema reads it, or a failure that says what is wrong with it. */
function parseAnswerArgument<S extends z.ZodType>(schema: S, raw: unknown): z.output<S> {
  const parsed = schema.safeParse(raw);
  if (!parsed.success)
    throw ApplicationFailure.create({
      type: FailureType.InvalidAnswer,
      message: `invalid answer: ${formatZodError(parsed.error)}`,
    });
  return parsed.data;
}

const noOpenQuestion = () =>
  ApplicationFailure.create({ type: FailureType.NoOpenQuestion, message: 'no interview question is open' });

/**
 * The answer's value for the open question `q`, or a failure: the answer names another question
 * (the caller's view is stale) or does not parse as the question's field.
 */
function parseOpenAnswer(q: InterviewQuestion, questionId: string | undefined, answer: string) {
  if (questionId !== undefined && questionId !== q.field) {
    throw ApplicationFailure.create({
      type: FailureType.StaleAnswer,
      message: `question ${excerpt(questionId)} is not the open one; the open question is "${q.field}"`,
    });
  }
  const result = q.parse(answer);
  if (!result.ok)
    throw ApplicationFailure.create({ type: FailureType.InvalidAnswer, message: capMessage(result.message) });
  return result.value;
}

export class Interview {
  private readonly questions: readonly InterviewQuestion[];
  private readonly answers: Record<string, unknown>;
  /** The text each answered question was answered with, by question id. */
  private readonly answerTexts = new Map<string, string>();
  private index = 0;
  /** The model's wording of a question (conversational interviews), by field. */
  private readonly phrasing = new Map<string, string>();

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
    return {
      id: q.field,
      field: q.field,
      number: this.index + 1,
      of: this.questions.length,
      prompt: this.phrasing.get(q.field) ?? q.prompt,
      hint: q.hint,
      optional: q.optional,
    };
  }

  /**
   * The update validator's check. Throws a failure whose message says what is wrong (the same
   * question stays open). Returns `repeat` for the same answer to an already answered question:
   * a retry, taken as a no-op. `open` is false once the interview stopped taking answers.
   */
  check(raw: unknown, open = true): { repeat: boolean } {
    const { questionId, answer } = parseAnswerArgument(interviewAnswerSchema, raw);
    const earlier = this.answerTexts.get(questionId);
    if (earlier === answer) return { repeat: true };
    const q = this.questions[this.index];
    if (!q || !open) throw noOpenQuestion();
    if (earlier !== undefined) {
      throw ApplicationFailure.create({
        type: FailureType.StaleAnswer,
        message: `question ${excerpt(questionId)} was already answered with a different answer`,
      });
    }
    parseOpenAnswer(q, questionId, answer);
    return { repeat: false };
  }

  /** Records an answer the validator accepted and moves to the next question; a repeat changes nothing. */
  accept(raw: unknown): InterviewQuestionView | null {
    const { questionId, answer } = parseAnswerArgument(recordedAnswerSchema, raw);
    if (questionId !== undefined && this.answerTexts.has(questionId)) return this.current;
    const q = this.questions[this.index];
    if (!q) throw noOpenQuestion();
    const value = parseOpenAnswer(q, questionId, answer);
    if (value === undefined) delete this.answers[q.field];
    else this.answers[q.field] = value;
    this.answerTexts.set(q.field, answer);
    this.index++;
    return this.current;
  }

  /** Words the open question as the model asked it; the field, hint and parsing stay the form's. */
  rephrase(field: string, prompt: string): void {
    if (this.questions[this.index]?.field === field) this.phrasing.set(field, prompt);
  }

  /** The questions answered so far, as asked, with the answers given. */
  conversation(): Array<{ question: string; answer: string }> {
    return this.questions.slice(0, this.index).map((q) => ({
      question: this.phrasing.get(q.field) ?? q.prompt,
      answer: this.answerTexts.get(q.field) ?? '',
    }));
  }

  /** The open question as the form words it (what a model rephrases). */
  formQuestion(): InterviewQuestion | undefined {
    return this.questions[this.index];
  }

  profile(): UserProfile {
    const result = userProfileSchema.safeParse(this.answers);
    if (!result.success)
      throw ApplicationFailure.nonRetryable(
        `interview answers do not form a profile: ${formatZodError(result.error)}`,
        'InvalidProfile',
      );
    return result.data;
  }
}
