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
