/**
 * Every test process's Temporal runtime: the SDK's and core's lines at WARN and above, written
 * through `console` so that vitest shows them only with a failing test (`silent: 'passed-only'`).
 * The SDK's default logger writes to stderr directly, past vitest, so without this a passing
 * suite printed hundreds of expected "Activity failed" and "Worker state changed" lines.
 */
import { DefaultLogger, makeTelemetryFilterString, Runtime } from '@temporalio/worker';

export function installQuietRuntime(): void {
  try {
    Runtime.install({
      logger: new DefaultLogger('WARN', ({ level, message, meta }) =>
        console.error(`[${level}] ${message}`, meta ?? ''),
      ),
      telemetryOptions: {
        // Core's own warnings go through the logger too (by default they bypass it).
        logging: { filter: makeTelemetryFilterString({ core: 'WARN', other: 'ERROR' }), forward: {} },
      },
      shutdownSignals: [],
    });
  } catch {
    // already installed in this process (the SDK throws IllegalStateError): the first one holds
  }
}

installQuietRuntime();
