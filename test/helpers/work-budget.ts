/**
 * Runs synchronous code under an execution limit, the way the worker runs a workflow task (its
 * sandbox stops a task after 5 seconds; the task then fails and is retried for ever). A loop or
 * a regular expression that backtracks cannot be interrupted by a test timeout, which only fires
 * once the event loop is free again: here the code is stopped at the limit and the test fails
 * saying so, instead of hanging.
 *
 * The limits used are a thousand times what linear code needs on the inputs given (tens of
 * kilobytes take well under a millisecond), and a hundredth of what super-linear code takes
 * (a quadratic pass over 50 KB is 1.25e9 steps: tens of seconds): the outcome does not depend
 * on the machine's speed.
 */
import vm from 'node:vm';

const context = vm.createContext({});
const script = new vm.Script('run()');

export class WorkBudgetExceeded extends Error {}

/** `fn()`'s result, or WorkBudgetExceeded naming `what` when it runs longer than `ms`. */
export function withinBudget<T>(what: string, fn: () => T, ms = 2_000): T {
  let result: T;
  context.run = () => {
    result = fn();
  };
  try {
    script.runInContext(context, { timeout: ms });
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT')
      throw new WorkBudgetExceeded(`${what} ran past ${ms} ms: super-linear in its input`);
    throw err;
  } finally {
    context.run = undefined;
  }
  return result!;
}
