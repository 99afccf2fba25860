/**
 * Adding to the replay corpus (test/replay/). The corpus only grows: its older files are the
 * histories the previous releases wrote, which running workflows still have and the current code
 * must keep replaying (docs/versioning.md), so a new recording never takes their place.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Writes `<name>-<YYYY-MM-DD>.json` (the UTC date of `now`) into `dir`, or `<name>-<date>-2.json`,
 * `-3`... when that name is taken: never over an existing file. Returns the file's path.
 */
export function addToCorpus(dir: string, name: string, json: string, now = new Date()): string {
  const base = `${name}-${now.toISOString().slice(0, 10)}`;
  for (let n = 1; ; n++) {
    const file = path.join(dir, `${n === 1 ? base : `${base}-${n}`}.json`);
    try {
      // 'wx' refuses an existing file, so two recordings (even at once) never overwrite each other.
      writeFileSync(file, json, { flag: 'wx' });
      return file;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
}
