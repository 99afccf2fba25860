/**
 * Every test process's Temporal runtime: the SDK's and core's lines at WARN and above, written
 * through `console` so that vitest shows them only with a failing test (`silent: 'passed-only'`).
 * The SDK's default logger writes to stderr directly, past vitest, so without this a passing
 * suite printed hundreds of expected "Activity failed" and "Worker state changed" lines.
 */
import { DefaultLogger, makeTelemetryFilterString, Runtime, type RuntimeOptions } from '@temporalio/worker';

/**
 * Marks these settings, so that test/setup/leak-guard.ts can tell that a file left the process's
 * runtime settings as they were (the SDK makes a new runtime from them after an idle one stops).
 */
export const QUIET_RUNTIME = Symbol.for('agent-flows.quiet-runtime');

export function installQuietRuntime(): void {
  try {
    const options: RuntimeOptions & { [QUIET_RUNTIME]?: true } = {
      [QUIET_RUNTIME]: true,
      logger: new DefaultLogger('WARN', ({ level, message, meta }) =>
        console.error(`[${level}] ${message}`, meta ?? ''),
      ),
      telemetryOptions: {
        // Core's own warnings go through the logger too (by default they bypass it).
        logging: { filter: makeTelemetryFilterString({ core: 'WARN', other: 'ERROR' }), forward: {} },
      },
      shutdownSignals: [],
    };
    Runtime.install(options);
  } catch {
    // already installed in this process (the SDK throws IllegalStateError): the first one holds
  }
}

installQuietRuntime();
