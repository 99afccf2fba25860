/**
 * `npm run build`: the processes compiled to plain JavaScript in `dist/` (tsconfig.build.json)
 * plus the prebuilt workflow bundle (`dist/workflow-bundle.js`) and a stamp of the sources.
 *
 * Compiled processes start faster and use less memory than the same code under tsx, and a worker
 * that loads the prebuilt bundle skips webpack at start (and the memory it leaves behind). The
 * build is made in a temporary folder and moved into place when complete, so a half-built
 * `dist/` is never used. `--out-dir <dir>` builds elsewhere (tests).
 */
import { bundleWorkflowCode } from '@temporalio/worker';
import { workflowBundleOptions } from './workflow-bundle';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../plumbing/project-root';
import { hashSources, STAMP_FILE, WORKFLOW_BUNDLE_FILE, type BuildStamp } from './build-stamp';

const quietLogger = {
  trace() {},
  debug() {},
  info() {},
  warn(message: string) {
    process.stderr.write(`[build] ${message}\n`);
  },
  error(message: string) {
    process.stderr.write(`[build] ${message}\n`);
  },
  log() {},
};

function filesUnder(dir: string, prefix: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? filesUnder(path.join(dir, entry.name), `${prefix}/${entry.name}`)
      : [`${prefix}/${entry.name}`],
  );
}

/** Runs tsc (tsconfig.build.json) into `outDir`: its exit status and what it printed. */
function compile(outDir: string): Promise<{ status: number | null; output: string }> {
  const tsc = require.resolve('typescript/bin/tsc');
  const child = spawn(
    process.execPath,
    [tsc, '-p', path.join(PROJECT_ROOT, 'tsconfig.build.json'), '--outDir', outDir],
    {
      cwd: PROJECT_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (status) => resolve({ status, output }));
  });
}

/** Builds into `outDir` (replacing it) and returns its stamp. Throws with the compiler's output. */
export async function build(outDir: string = path.join(PROJECT_ROOT, 'dist')): Promise<BuildStamp> {
  const target = path.resolve(outDir);
  const staging = `${target}.tmp-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(path.dirname(target), { recursive: true });
  try {
    // Hashed once tsc has written its output (which data files the code imports shows only there):
    // a source edited after that leaves a stamp that no longer matches; one edited during tsc does not.
    // The compiler (its own process) and the workflow bundle (webpack, here) run at the same time:
    // each keeps one core busy.
    const compiling = compile(staging);
    const bundling = bundleWorkflowCode({
      ...workflowBundleOptions(),
      logger: quietLogger as never,
    });
    // A failed compile is what is reported; the bundle's own failure then goes unread.
    bundling.catch(() => undefined);
    const compiled = await compiling;
    const importedDataFiles = filesUnder(path.join(staging, 'data'), 'data').filter((f) => !f.endsWith('.map'));
    const sourcesHash = hashSources(PROJECT_ROOT, importedDataFiles);
    if (compiled.status !== 0) throw new Error(`tsc failed:\n${compiled.output}`);

    const { code } = await bundling;
    writeFileSync(path.join(staging, WORKFLOW_BUNDLE_FILE), code);
    const stamp: BuildStamp = {
      sourcesHash,
      importedDataFiles,
      builtAt: new Date().toISOString(),
      node: process.version,
    };
    writeFileSync(path.join(staging, STAMP_FILE), `${JSON.stringify(stamp, null, 2)}\n`);
    rmSync(target, { recursive: true, force: true });
    renameSync(staging, target);
    return stamp;
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

if (require.main === module) {
  const i = process.argv.indexOf('--out-dir');
  const outDir = i > 0 ? process.argv[i + 1] : undefined;
  if (i > 0 && !outDir) {
    console.error('usage: npm run build [-- --out-dir <dir>]');
    process.exit(2);
  }
  const started = Date.now();
  build(outDir).then(
    () => {
      const shown = path.relative(process.cwd(), path.resolve(outDir ?? path.join(PROJECT_ROOT, 'dist'))) || '.';
      console.log(
        `[build] ${shown}/ (compiled processes + ${WORKFLOW_BUNDLE_FILE}) in ${Math.round((Date.now() - started) / 100) / 10} s`,
      );
    },
    (err) => {
      console.error(`[build] ${err instanceof Error ? err.message : String(err)}`);
      process.exit(1);
    },
  );
}
