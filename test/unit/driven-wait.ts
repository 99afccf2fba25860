/**
 * A stand-in for the SDK's `condition` that a unit test drives, with the SDK's timing: the
 * condition is checked at once (an update handler that finds its value goes on), else again at
 * each `unblock()` (as the SDK does once the workflow code it ran has settled). Either way the
 * code after the `await` runs later, after the code already queued: so a test that changes the
 * state right after calling a handler runs exactly where the workflow's main loop can run.
 */
import type { Wait } from '../../flows/lib/workflow/next-value';

export function drivenWait(): { wait: Wait; unblock(): void; blocked(): number } {
  const blocked: { ready: () => boolean; resolve: () => void }[] = [];
  return {
    wait: (ready) =>
      new Promise<void>((resolve) => {
        if (ready()) resolve();
        else blocked.push({ ready, resolve });
      }),
    unblock() {
      for (const b of [...blocked])
        if (b.ready()) {
          blocked.splice(blocked.indexOf(b), 1);
          b.resolve();
        }
    },
    blocked: () => blocked.length,
  };
}
