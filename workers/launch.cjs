/**
 * Runs one of the project's processes: `node workers/launch.cjs <entry.ts> [args]`.
 *
 * From `dist/` when `npm run build` made a build that matches the sources (plain Node: less
 * memory, faster start, the prebuilt workflow bundle); from the TypeScript sources through tsx
 * otherwise, so an edit is never shadowed by an old build. Runs the entry in this process, as
 * its main module, so signals and exit codes are the entry's own.
 */
'use strict';
const { existsSync } = require('node:fs');
const Module = require('node:module');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const [entry, ...args] = process.argv.slice(2);
if (!entry || !entry.endsWith('.ts')) {
  console.error('usage: node workers/launch.cjs <entry.ts> [args...]');
  process.exit(2);
}
const dist = path.join(root, 'dist');
const compiled = path.join(dist, entry.replace(/\.ts$/, '.js'));
let check = { current: false, reason: 'not built' };
const stampModule = path.join(dist, 'workers', 'build-stamp.js');
if (existsSync(stampModule)) {
  try {
    check = require(stampModule).checkBuild(dist, root);
  } catch (err) {
    check = { current: false, reason: `unreadable build (${err.message})` };
  }
}

function run(main) {
  process.argv = [process.argv[0], main, ...args];
  Module.runMain();
}

if (check.current && existsSync(compiled)) {
  run(compiled);
} else {
  const why = check.current ? `${path.relative(root, compiled)} is not part of the build` : check.reason;
  if (existsSync(dist)) process.stderr.write(`[launch] ${why}: running from the sources\n`);
  // What `node --import tsx` loads: TypeScript for require() and for import() alike.
  import('tsx').then(
    () => run(path.join(root, entry)),
    (err) => {
      process.stderr.write(
        `[launch] cannot load tsx to run the sources (${err.message}); npm run build, then run dist/\n`,
      );
      process.exit(1);
    },
  );
}
