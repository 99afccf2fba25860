/**
 * The `progress` query every flow answers, plus the one-line "current details" the Web UI shows.
 */
import { setCurrentDetails, setHandler } from '@temporalio/workflow';
import type { Progress, TokenUsage } from '../../../contracts/common';
import { progressQuery } from '../../../contracts/progress-messages';

export { progressQuery };

export class ProgressTracker {
  private state: Progress;

  constructor(flow: string, stage = 'starting', total: number | null = null) {
    this.state = { flow, stage, status: 'running', done: 0, total, detail: '', tokens: 0 };
    setHandler(progressQuery, () => this.state);
    this.publish();
  }

  get current(): Progress {
    return this.state;
  }

  stage(stage: string, detail = '', total?: number | null): void {
    this.state = { ...this.state, stage, detail, status: 'running', ...(total !== undefined ? { total } : {}) };
    this.publish();
  }

  /** Counts units of work done (searches, validations, questions...). */
  advance(by = 1, detail?: string): void {
    this.state = { ...this.state, done: this.state.done + by, ...(detail !== undefined ? { detail } : {}) };
    this.publish();
  }

  setTotal(total: number | null): void {
    this.state = { ...this.state, total };
    this.publish();
  }

  waiting(detail: string): void {
    this.state = { ...this.state, status: 'waiting', detail };
    this.publish();
  }

  tokens(usage: TokenUsage): void {
    this.state = { ...this.state, tokens: this.state.tokens + usage.totalTokens };
  }

  finish(status: 'completed' | 'failed' | 'cancelled', detail: string): void {
    this.state = { ...this.state, status, stage: status === 'completed' ? 'done' : this.state.stage, detail };
    this.publish();
  }

  private publish(): void {
    const { stage, status, done, total, detail } = this.state;
    const count = total !== null ? ` ${done}/${total}` : done > 0 ? ` ${done}` : '';
    setCurrentDetails(`**${stage}** (${status}${count})${detail ? ` — ${detail}` : ''}`);
  }
}
