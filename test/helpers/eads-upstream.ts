/**
 * Where the upstream EADS examples are, for the upstream-compatibility check in
 * test/unit/eads-library.test.ts, or why the check is skipped.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';

/**
 * Upstream's examples are not part of this repository, and the project reads nothing from outside
 * it: EADS_UPSTREAM_DIR names a copy; without it the check is skipped, with the reason.
 */
export function upstreamDir(env: NodeJS.ProcessEnv = process.env): { dir?: string; reason?: string } {
  if (env.EADS_UPSTREAM_DIR) {
    const dir = path.resolve(env.EADS_UPSTREAM_DIR);
    return existsSync(dir) ? { dir } : { reason: `EADS_UPSTREAM_DIR=${env.EADS_UPSTREAM_DIR} does not exist` };
  }
  return {
    reason: 'no copy of the upstream EADS examples: set EADS_UPSTREAM_DIR to run the upstream-compatibility check',
  };
}
