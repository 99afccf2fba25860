/**
 * Where the upstream EADS examples are, for the upstream-compatibility check in
 * test/unit/eads-library.test.ts, or why the check is skipped.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';

/**
 * Upstream's examples are not part of this repository. EADS_UPSTREAM_DIR names a copy; without it
 * a checkout next to this one (as in the workspace the project grew in) is used when present.
 */
export function upstreamDir(
  env: NodeJS.ProcessEnv = process.env,
  root = path.resolve(__dirname, '..', '..'),
): { dir?: string; reason?: string } {
  if (env.EADS_UPSTREAM_DIR) {
    const dir = path.resolve(env.EADS_UPSTREAM_DIR);
    return existsSync(dir) ? { dir } : { reason: `EADS_UPSTREAM_DIR=${env.EADS_UPSTREAM_DIR} does not exist` };
  }
  const sibling = path.resolve(root, '..', 'shared', 'reference', 'eads-upstream');
  if (existsSync(sibling)) return { dir: sibling };
  return {
    reason: 'no copy of the upstream EADS examples: set EADS_UPSTREAM_DIR to run the upstream-compatibility check',
  };
}
