/**
 * The project's root folder (package.json and data/ beside each other), found from this file.
 *
 * The same code runs from the sources (`contracts/`) and compiled (`dist/contracts/`), so a fixed
 * `__dirname/..` would point into dist/ after a build. Never imported by workflow code (uses fs).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';

export function findProjectRoot(start: string = __dirname): string {
  for (let dir = start; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json')) && existsSync(path.join(dir, 'data'))) return dir;
    if (path.dirname(dir) === dir) return path.resolve(__dirname, '..');
  }
}

export const PROJECT_ROOT = findProjectRoot();

/**
 * Where the project-local tools live (Temporal CLI, solver, embedding model): `.tools` in the
 * project, or AGENT_FLOWS_TOOLS_DIR (e.g. a cache shared by several checkouts).
 */
export function toolsDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.AGENT_FLOWS_TOOLS_DIR ? path.resolve(env.AGENT_FLOWS_TOOLS_DIR) : path.join(PROJECT_ROOT, '.tools');
}
