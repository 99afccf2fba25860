/**
 * The early-return pattern of update handlers that wait for what comes next (`nextStep`,
 * `nextQuestion`, `nextProposalStep`), read once.
 */
import { condition } from '@temporalio/workflow';

/** How a handler waits in its workflow: the SDK's `condition`; unit tests pass one they drive. */
export type Wait = (ready: () => boolean) => Promise<void>;

/**
 * The first value `read` gives that is not null, as it is when the handler goes on. Waiting for
 * `read() !== null` and then reading again is not the same: the condition is true when it is
 * checked, but the code after the `await` runs later, after the workflow code already queued to
 * run (the main loop going on in the same activation: a pursuit that just ended is recorded, a
 * guided start just taken moves on to the next pursuit), and that can take the value away again.
 * The second read was then null and the update replied null. So the value is read once, after the
 * wait, and when it has gone the handler waits again for the next one. No commands either way:
 * replay is unchanged.
 */
export async function nextValue<T>(read: () => T | null, wait: Wait = condition): Promise<T> {
  for (;;) {
    await wait(() => read() !== null);
    const value = read();
    if (value !== null) return value;
  }
}
