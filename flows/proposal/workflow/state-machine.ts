/**
 * The proposal's explicit state machine (its states and the transitions allowed between them),
 * extended with the review gate, the PDF step and the idle-timeout end.
 *
 * Pure and deterministic: the clock is injected (the workflow passes its own deterministic time),
 * so the same code runs in the workflow, on replay and in unit tests.
 */
import { ApplicationFailure } from '@temporalio/common';
import type { ProposalState, StateTransition } from '../contract';

/** Every allowed move. Anything else is a programming error and fails loudly. */
export const TRANSITIONS: Readonly<Record<ProposalState, readonly ProposalState[]>> = {
  INIT: ['INTERVIEWING', 'PROBLEM_FORMULATION', 'ERROR'],
  INTERVIEWING: ['PROBLEM_FORMULATION', 'ABANDONED', 'ERROR'],
  PROBLEM_FORMULATION: ['OBJECTIVES', 'ERROR'],
  OBJECTIVES: ['METHODOLOGY', 'ERROR'],
  METHODOLOGY: ['DATA_COLLECTION', 'ERROR'],
  DATA_COLLECTION: ['QUALITY_CONTROL', 'ERROR'],
  QUALITY_CONTROL: ['REFINEMENT', 'AWAITING_REVIEW', 'RENDERING_PDF', 'ERROR'],
  REFINEMENT: ['PROBLEM_FORMULATION', 'ERROR'],
  AWAITING_REVIEW: ['REFINEMENT', 'RENDERING_PDF', 'ABANDONED', 'ERROR'],
  RENDERING_PDF: ['COMPLETE', 'ERROR'],
  COMPLETE: [],
  ABANDONED: [],
  ERROR: [],
};

export const TERMINAL_STATES: readonly ProposalState[] = ['COMPLETE', 'ABANDONED', 'ERROR'];

export function isValidTransition(from: ProposalState, to: ProposalState): boolean {
  return TRANSITIONS[from].includes(to);
}

export class ProposalStateMachine {
  private current: ProposalState = 'INIT';
  private readonly log: StateTransition[] = [];

  constructor(private readonly now: () => string) {}

  get state(): ProposalState {
    return this.current;
  }

  /** A copy, so callers (queries, results) never hold a reference that later changes. */
  get history(): StateTransition[] {
    return this.log.map((t) => ({ ...t }));
  }

  get isTerminal(): boolean {
    return TERMINAL_STATES.includes(this.current);
  }

  /** Moves to `to`, or throws a non-retryable `InvalidStateTransition` failure. */
  transition(to: ProposalState, note?: string): void {
    if (!isValidTransition(this.current, to)) {
      throw ApplicationFailure.nonRetryable(
        `invalid state transition ${this.current} → ${to}`,
        'InvalidStateTransition',
        { from: this.current, to },
      );
    }
    this.log.push({ from: this.current, to, at: this.now(), ...(note ? { note } : {}) });
    this.current = to;
  }
}
