/**
 * Activities read their Temporal context (heartbeats, cancellation, attempt, workflow id) and no
 * longer fall back when there is none: tests that call them directly run each call in the SDK's
 * MockActivityEnvironment, as a worker would run it.
 */
import type { Info } from '@temporalio/activity';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';

/** A mock activity context whose worker logger keeps quiet about expected failures. */
export function mockActivityEnvironment(info?: Partial<Info>): MockActivityEnvironment {
  return new MockActivityEnvironment(info, { logger: new DefaultLogger('ERROR') });
}

type ActivityMap = Record<string, (...args: any[]) => Promise<unknown>>;

/** The same activities, each call run in a fresh mock activity context (with `info` overrides). */
export function inActivityEnvironment<A extends ActivityMap>(activities: A, info?: Partial<Info>): A {
  return Object.fromEntries(
    Object.entries(activities).map(([name, fn]) => [
      name,
      (...args: unknown[]) => mockActivityEnvironment(info).run(fn, ...args),
    ]),
  ) as A;
}

/** Runs one step in a fresh mock activity context. */
export function inActivity<R>(step: () => Promise<R>, info?: Partial<Info>): Promise<R> {
  return mockActivityEnvironment(info).run(step);
}
