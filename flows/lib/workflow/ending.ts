/**
 * One way to end, for every flow. A run that completes says so itself (`progress.finish`); a run
 * that does not ends in one of two ways, recorded the same in every flow:
 *
 * - a failed step fails the run (the error goes on to Temporal; a flow that keeps a partial result
 *   puts it in the failure's details), and the `progress` query says `failed`, with why;
 * - a cancelled run tidies its state first, in a scope the cancellation cannot stop (otherwise
 *   the first `await` of a cleanup would throw the cancellation again), then the `progress` query
 *   says `cancelled`; the cancellation goes on to Temporal (the run ends Cancelled).
 *
 * Neither schedules anything of its own: histories stay as they were (no patch needed).
 */
import { CancellationScope, ContinueAsNew, isCancellation, rootCause } from '@temporalio/workflow';
import type { ProgressTracker } from './progress';

export interface Ending {
  /** Tidies the run's state once it is cancelled (close the open question, the review...). */
  onCancel?: () => void | Promise<void>;
  /** The progress line's detail at the end (the error's message is added to it). */
  detail?: () => string;
}

/** Runs a flow's body; when it throws, records the end (`recordEnd`) and throws the same error. */
export async function endingAsEveryFlow<T>(
  progress: ProgressTracker,
  body: () => Promise<T>,
  ending: Ending = {},
): Promise<T> {
  try {
    return await body();
  } catch (err) {
    await recordEnd(progress, err, ending);
    throw err;
  }
}

/**
 * Records how a run that did not complete ended: cancelled (after the cleanup) or failed. A flow
 * that already said why it ended (its own `progress.finish`) keeps its words.
 */
export async function recordEnd(progress: ProgressTracker, err: unknown, ending: Ending = {}): Promise<void> {
  // Continuing as new is how a long run carries on, not an end.
  if (err instanceof ContinueAsNew) return;
  const cancelled = isCancellation(err);
  if (cancelled) {
    await CancellationScope.nonCancellable(async () => ending.onCancel?.());
  }
  const { status } = progress.current;
  if (status === 'failed' || status === 'cancelled') return;
  const detail = ending.detail?.() ?? progress.current.detail;
  const why = endMessage(err);
  progress.finish(cancelled ? 'cancelled' : 'failed', detail ? `${detail} — ${why}` : why);
}

/** The innermost message of an error (an activity's or a child's failure wraps its cause). */
export function endMessage(err: unknown): string {
  return rootCause(err) ?? String(err);
}
