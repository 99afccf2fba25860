import { inject } from 'vitest';

/**
 * The environment of a real worker process (`workers/worker.ts`) in a test: the run's dev server,
 * a namespace of the test's own, the stand-in model and quiet logs; `extra` adds or overrides.
 */
export function workerProcessEnv(
  namespace: string,
  standinUrl: string,
  extra: Record<string, string> = {},
): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    TEMPORAL_NAMESPACE: namespace,
    AGENT_FLOWS_MODEL: 'standin',
    GOOGLE_GEMINI_BASE_URL: standinUrl,
    WORKER_METRICS_PORT: '0',
    LOG_LEVEL: 'warn',
    // The run's workflow bundle (test/setup/global.ts): bundling the workflows again in every
    // worker process cost each of them several seconds of CPU. (build.test.ts and the stack's
    // tests still start workers that bundle at start.)
    WORKFLOW_BUNDLE: inject('workflowBundlePath'),
    ...extra,
  };
}
