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
