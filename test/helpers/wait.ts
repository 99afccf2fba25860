import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';

/**
 * Polls `probe` until it answers (anything but undefined) and returns the answer; fails naming
 * `what` after `timeoutMs`. With `retryErrors`, a probe that throws has simply not answered yet
 * (e.g. a server still starting).
 */
export async function waitFor<T>(
  probe: () => T | undefined | Promise<T | undefined>,
  what: string,
  options: { timeoutMs?: number; everyMs?: number; retryErrors?: boolean } = {},
): Promise<T> {
  const { timeoutMs = 60_000, everyMs = 200, retryErrors = false } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = retryErrors
      ? await Promise.resolve()
          .then(probe)
          .catch(() => undefined)
      : await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/**
 * Waits for `promise` to settle, at most `ms`: true if it settled. Its timer is cleared either
 * way, where `Promise.race` with a bare `setTimeout` left it pending after the file ended.
 */
export async function settledWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([promise.then(...settled), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
const settled = [() => true as const, () => true as const] as const;

/** Stops a child process: SIGTERM, SIGKILL if it is still running after `graceMs`; resolves once it has exited. */
export async function stopChild(child: ChildProcess, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  if (await settledWithin(exited, graceMs)) return;
  child.kill('SIGKILL');
  await exited;
}
