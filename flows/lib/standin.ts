import type { ModelTaskId, ReceivedSections } from '../../contracts/model-tasks';

/** A stand-in rule answers one model task from the prompt's content, deterministically. */
export interface StandinContext {
  task: string;
  system: string;
  /** The tagged sections of the first user turn, JSON bodies parsed. */
  sections: Record<string, unknown>;
  /** The response JSON schema the caller asked for (may be absent). */
  responseSchema: unknown;
  /** Number of user turns: > 1 means the caller is repairing an earlier reply. */
  turns: number;
}

export interface StandinRule {
  /** Exact task id, or a prefix ending with '.' or '*'. */
  task: string;
  description: string;
  answer(ctx: StandinContext): unknown | Promise<unknown>;
}

/** The context of a rule for one contract task: only the sections that task declares can be read. */
export interface TaskContext<T extends ModelTaskId> extends Omit<StandinContext, 'task' | 'sections'> {
  task: T;
  sections: ReceivedSections<T>;
}

/**
 * A rule for one task a flow declares in its `model-tasks.ts`. The shipped rules are all written this way,
 * so reading a section the activity does not send (a renamed one) fails to compile. Tests may
 * still write plain `StandinRule`s for made-up tasks.
 */
export function taskRule<T extends ModelTaskId>(rule: {
  task: T;
  description: string;
  answer(ctx: TaskContext<T>): unknown | Promise<unknown>;
}): StandinRule {
  return {
    task: rule.task,
    description: rule.description,
    // The server parsed these sections from a prompt tagged with this task.
    answer: (ctx) => rule.answer(ctx as TaskContext<T>),
  };
}
