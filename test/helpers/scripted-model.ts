/**
 * A model scripted per test, for tests of orchestration (refinement bounds, review rounds,
 * retries, interviews): each task answers from its own list of replies, in order, and a call
 * the script did not foresee fails at once (HTTP 400 from the stand-in server, non-retryable)
 * and is recorded, so a test that asks for more than it scripted fails loudly instead of
 * reading whatever the offline model's rules happen to say. Rewriting a stand-in rule cannot
 * change such a test.
 *
 *   const model = new ScriptedModel();
 *   const h = await createHarness({ rules: model.rules(['proposal.objectives', ...]) });
 *   model.script({ 'proposal.objectives': [reply1, reply2], 'proposal.methodology': { always: reply } });
 *
 * A reply is a value or a function of the prompt's sections (so it may cite the search results
 * the prompt lists, or count the previous version's questions).
 */
import type { StandinRule } from '../../flows/lib/standin';

export type Sections = Record<string, unknown>;
export type Reply = unknown;
export type ScriptEntry = Reply[] | { always: Reply };

export class ScriptedModel {
  private queues = new Map<string, ScriptEntry>();
  private used = new Map<string, number>();
  /** Every call, in order, with the sections its prompt carried. */
  calls: Array<{ task: string; sections: Sections }> = [];
  /** Calls the script had no reply for. */
  unexpected: string[] = [];

  /** Replaces the script (and forgets the calls of the last test). */
  script(entries: Record<string, ScriptEntry>): this {
    this.queues = new Map(Object.entries(entries));
    this.used = new Map();
    this.calls = [];
    this.unexpected = [];
    return this;
  }

  /** The stand-in rules that answer from the script, one per task id. */
  rules(tasks: readonly string[]): StandinRule[] {
    return tasks.map((task) => ({
      task,
      description: `scripted reply for ${task}`,
      answer: ({ sections }) => this.answer(task, sections),
    }));
  }

  /** The sections of the task's calls, in order. */
  prompts(task: string): Sections[] {
    return this.calls.filter((c) => c.task === task).map((c) => c.sections);
  }

  count(task: string): number {
    return this.calls.filter((c) => c.task === task).length;
  }

  /** Replies listed in the script but never asked for (a test expecting them would be wrong). */
  leftOver(): string[] {
    return [...this.queues.entries()]
      .filter(([task, e]) => Array.isArray(e) && (this.used.get(task) ?? 0) < e.length)
      .map(([task, e]) => `${task}: ${(e as Reply[]).length - (this.used.get(task) ?? 0)} unused`);
  }

  private answer(task: string, sections: Sections): unknown {
    this.calls.push({ task, sections });
    const entry = this.queues.get(task);
    const n = this.used.get(task) ?? 0;
    const reply = entry === undefined ? undefined : Array.isArray(entry) ? entry[n] : entry.always;
    if (entry === undefined || (Array.isArray(entry) && n >= entry.length)) {
      const what = `unscripted call ${n + 1} to ${task}`;
      this.unexpected.push(what);
      throw Object.assign(new Error(what), { status: 400 });
    }
    this.used.set(task, n + 1);
    return typeof reply === 'function' ? (reply as (s: Sections) => unknown)(sections) : reply;
  }
}
