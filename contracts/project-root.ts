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
