/**
 * Tells whether a build (`npm run build` → `dist/`) matches the sources it was built from.
 *
 * The build records a hash of every source file that went into it; a process that finds the
 * sources beside the build rehashes them (about a hundred small files, a few milliseconds) and
 * uses the build only when nothing changed, so an edit is never shadowed by an old `dist/`. An
 * image that ships the build without the sources (the Docker image) trusts the build.
 *
 * Plain Node only (no TypeScript loader, no Temporal): `workers/launch.cjs` loads the compiled
 * copy of this file to choose between `dist/` and the sources.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../plumbing/project-root';

/** Folders compiled by tsconfig.build.json; the workflow bundle is built from workflows/, domain/ and contracts/. */
export const SOURCE_DIRS = [
  'plumbing',
  'contracts',
  'domain',
  'codec',
  'backends',
  'flows',
  'access',
  'workers',
  'client',
  'server',
  'standin',
];
/** Files outside those folders that change what the build produces. */
export const BUILD_INPUTS = ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json'];
export const STAMP_FILE = 'build-stamp.json';
export const WORKFLOW_BUNDLE_FILE = 'workflow-bundle.js';

export interface BuildStamp {
  /** sha256 over the source files, in path order. */
  sourcesHash: string;
  /** Data files the compiler copied in because sources import them (JSON), relative to the root. */
  importedDataFiles: string[];
  builtAt: string;
  node: string;
}

function listFiles(dir: string, root: string, out: string[]): void {
  if (!existsSync(dir)) return;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) listFiles(full, root, out);
    else if (entry.isFile()) out.push(path.relative(root, full).split(path.sep).join('/'));
  }
}

/** The files a build depends on, relative to the root, sorted. */
export function buildInputFiles(root: string, importedDataFiles: string[] = []): string[] {
  const files: string[] = [];
  for (const dir of SOURCE_DIRS) listFiles(path.join(root, dir), root, files);
  for (const file of [...BUILD_INPUTS, ...importedDataFiles]) if (existsSync(path.join(root, file))) files.push(file);
  return [...new Set(files)].sort();
}

export function hashSources(root: string, importedDataFiles: string[] = []): string {
  const hash = createHash('sha256');
  for (const file of buildInputFiles(root, importedDataFiles)) {
    hash
      .update(file)
      .update('\0')
      .update(readFileSync(path.join(root, file)))
      .update('\0');
  }
  return hash.digest('hex');
}

export function readStamp(buildDir: string): BuildStamp | undefined {
  try {
    return JSON.parse(readFileSync(path.join(buildDir, STAMP_FILE), 'utf8')) as BuildStamp;
  } catch {
    return undefined;
  }
}

export interface BuildCheck {
  /** True when the build exists and matches the sources (or no sources are there to compare). */
  current: boolean;
  reason: string;
  bundlePath?: string;
}

/** Whether the build in `buildDir` may be used for the sources under `root`. */
export function checkBuild(buildDir: string, root: string = PROJECT_ROOT): BuildCheck {
  const stamp = readStamp(buildDir);
  const bundle = path.join(buildDir, WORKFLOW_BUNDLE_FILE);
  if (!stamp || !existsSync(bundle)) return { current: false, reason: `no complete build in ${buildDir}` };
  const sourcesPresent = existsSync(path.join(root, 'flows', 'workflows.ts'));
  if (!sourcesPresent) return { current: true, reason: 'build without sources beside it', bundlePath: bundle };
  if (hashSources(root, stamp.importedDataFiles) !== stamp.sourcesHash) {
    return {
      current: false,
      reason: `${path.relative(root, buildDir) || buildDir} is older than the sources (npm run build)`,
    };
  }
  return { current: true, reason: `built ${stamp.builtAt}`, bundlePath: bundle };
}

/**
 * WORKFLOW_BUNDLE: a workflow bundle made elsewhere from these same sources (the test run makes
 * one for all its workers), used as it is. A path with no file stops the worker, naming it.
 */
export function configuredWorkflowBundle(config: { WORKFLOW_BUNDLE?: string }): { codePath: string } | undefined {
  if (!config.WORKFLOW_BUNDLE) return undefined;
  // A directory passes existsSync and would fail much later, inside the SDK, with EISDIR.
  if (!existsSync(config.WORKFLOW_BUNDLE) || !statSync(config.WORKFLOW_BUNDLE).isFile())
    throw new Error(`WORKFLOW_BUNDLE: no file at ${config.WORKFLOW_BUNDLE}`);
  return { codePath: path.resolve(config.WORKFLOW_BUNDLE) };
}
