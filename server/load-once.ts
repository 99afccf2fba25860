/**
 * A lazy load (a module loaded on first use): concurrent first callers share one load, and a
 * failed load is not kept: the next call loads again. A transient failure of the first request's
 * load (out of file descriptors under load) must not fail every later request until a restart.
 */
export function loadOnce<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () =>
    (loading ??= load().catch((err: unknown) => {
      loading = undefined;
      throw err;
    }));
}
