import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { addToCorpus } from '../helpers/replay-corpus';

describe('recording into the replay corpus', () => {
  const now = new Date('2026-11-27T23:59:00Z');

  it('dates the file and never overwrites one: a second recording that day gets a suffix', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'replay-corpus-'));
    writeFileSync(path.join(dir, 'flow-ok.json'), 'old');
    expect(path.basename(addToCorpus(dir, 'flow-ok', 'first', now))).toBe('flow-ok-2026-11-27.json');
    expect(path.basename(addToCorpus(dir, 'flow-ok', 'second', now))).toBe('flow-ok-2026-11-27-2.json');
    expect(path.basename(addToCorpus(dir, 'flow-ok', 'third', now))).toBe('flow-ok-2026-11-27-3.json');
    const read = (f: string) => readFileSync(path.join(dir, f), 'utf8');
    expect([read('flow-ok.json'), read('flow-ok-2026-11-27.json'), read('flow-ok-2026-11-27-2.json')]).toEqual([
      'old',
      'first',
      'second',
    ]);
    expect(readdirSync(dir)).toHaveLength(4);
  });
});
