/**
 * How an npm script of package.json starts its node process (`NAME=value node --flag …
 * workers/launch.cjs entry.ts`): the benches start the process they measure the same way, so a
 * flag changed in package.json is measured without editing a bench.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

export function npmScriptLaunch(name: string): { env: Record<string, string>; nodeFlags: string[] } {
  const root = path.resolve(__dirname, '..');
  const scripts = (
    JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
  ).scripts;
  const words = scripts[name]?.split(/\s+/) ?? [];
  const node = words.indexOf('node');
  if (node < 0) throw new Error(`npm run ${name} does not run node: ${words.join(' ')}`);
  const env = Object.fromEntries(
    words
      .slice(0, node)
      .map((assignment) => [
        assignment.slice(0, assignment.indexOf('=')),
        assignment.slice(assignment.indexOf('=') + 1),
      ]),
  );
  return { env, nodeFlags: words.slice(node + 1).filter((word) => word.startsWith('--')) };
}
