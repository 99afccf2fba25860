/**
 * The artifact store without a server: keys that would leave the store are refused (by the local
 * directory, by the Cloud Storage store's reference parsing, and by the console's route), the
 * local store writes whole files and reads old results' absolute paths, and the configuration
 * names the setting that is wrong. The Cloud Storage store against a real emulator, across
 * processes: test/artifact-store-gcs.test.ts.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyProblem, LocalArtifactStore, MAX_KEY_LENGTH } from '../../backends/artifacts';
import { GcsArtifactStore } from '../../backends/artifacts/gcs';
import { ConfigError, parseConfig } from '../../plumbing/config';
import { artifactHref } from '../../server/console/views';
import { buildProgram } from '../../client/cli';

const HOSTILE_KEYS = [
  '',
  '..',
  '.',
  '../secret.txt',
  'schedule/../../secret.txt',
  'schedule/./x.svg',
  '/etc/passwd',
  '//etc/passwd',
  'schedule//x.svg',
  'schedule/',
  'schedule\\..\\x',
  '%2e%2e/secret.txt',
  'schedule%2F..%2Fsecret.txt',
  'x.pdf\0.txt',
  'gs://other/x.pdf',
  '.hidden',
  'a b.pdf',
  `${'a/'.repeat(300)}x.pdf`,
  `${'x'.repeat(MAX_KEY_LENGTH + 1)}`,
];

describe('artifact keys', () => {
  it('refuses every key that is not a plain relative name', () => {
    for (const key of HOSTILE_KEYS) expect(keyProblem(key), JSON.stringify(key.slice(0, 60))).toBeDefined();
    for (const key of ['schedule/adv-sched-0123abcd.gantt.svg', 'research-proposal/p-1.pdf', 'x_1.dzn']) {
      expect(keyProblem(key), key).toBeUndefined();
    }
  });
});

describe('the local store', () => {
  let dir: string;
  let store: LocalArtifactStore;
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'artifact-store-'));
    mkdirSync(path.join(dir, 'out'));
    writeFileSync(path.join(dir, 'secret.txt'), 'TOPSECRET');
    store = new LocalArtifactStore(path.join(dir, 'out'));
    symlinkSync(path.join(dir, 'secret.txt'), path.join(dir, 'out', 'link.txt'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('puts whole objects and reads them back by key, with the type the name says', async () => {
    const stored = await store.put('schedule/run-1.gantt.svg', '<svg/>');
    expect(stored).toMatchObject({ ref: 'schedule/run-1.gantt.svg', bytes: 6, contentType: 'image/svg+xml' });
    expect(stored.location).toBe(path.join(dir, 'out', 'schedule', 'run-1.gantt.svg'));
    const object = await store.open('schedule/run-1.gantt.svg');
    const chunks: Buffer[] = [];
    for await (const c of object!.stream) chunks.push(c as Buffer);
    expect(Buffer.concat(chunks).toString()).toBe('<svg/>');
    expect(object!.contentType).toBe('image/svg+xml');
  });

  it('lets two attempts write one key at once without taking each other’s file away', async () => {
    const writes = Array.from({ length: 8 }, (_, i) => store.put('research-proposal/same.pdf', `%PDF-${i}`));
    await Promise.all(writes);
    expect(readFileSync(path.join(dir, 'out', 'research-proposal', 'same.pdf'), 'utf8')).toMatch(/^%PDF-\d$/);
  });

  it('refuses hostile keys for writing and reading, and links out of the directory', async () => {
    for (const key of HOSTILE_KEYS) {
      await expect(store.put(key, 'x'), JSON.stringify(key.slice(0, 60))).rejects.toThrow(/invalid artifact key/);
      expect(await store.open(key), JSON.stringify(key.slice(0, 60))).toBeUndefined();
    }
    expect(await store.open('link.txt')).toBeUndefined();
    expect(await store.open('schedule')).toBeUndefined();
  });

  it('resolves references, and absolute paths of old results only under its directory', () => {
    expect(store.keyOf('schedule/run-1.gantt.svg')).toBe('schedule/run-1.gantt.svg');
    expect(store.keyOf(path.join(dir, 'out', 'research-proposal', 'p.pdf'))).toBe('research-proposal/p.pdf');
    expect(store.keyOf(path.join(dir, 'secret.txt'))).toBeUndefined();
    expect(store.keyOf(path.join(dir, 'out', '..', 'secret.txt'))).toBeUndefined();
    expect(store.keyOf('gs://bucket/research-proposal/p.pdf')).toBeUndefined();
  });
});

describe('the CLI', () => {
  it('reads an artifact by reference through the store, and refuses what is not one of its own', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'artifact-cli-'));
    try {
      const store = new LocalArtifactStore(path.join(dir, 'out'));
      const { ref } = await store.put('schedule/run-2.dzn', 'jobs = 3;\n');
      const lines: string[] = [];
      const cli = () => buildProgram((l) => lines.push(l), { artifacts: async () => store }).exitOverride();
      await cli().parseAsync(['artifact', ref, '--out', path.join(dir, 'copy.dzn')], { from: 'user' });
      expect(readFileSync(path.join(dir, 'copy.dzn'), 'utf8')).toBe('jobs = 3;\n');
      expect(lines.join('\n')).toContain('schedule/run-2.dzn');
      writeFileSync(path.join(dir, 'secret.txt'), 'TOPSECRET');
      for (const bad of ['../secret.txt', path.join(dir, 'secret.txt'), 'gs://other/secret.txt']) {
        await expect(cli().parseAsync(['artifact', bad], { from: 'user' }), bad).rejects.toThrow(/not an artifact of/);
      }
      await expect(cli().parseAsync(['artifact', 'schedule/none.dzn'], { from: 'user' })).rejects.toThrow(
        /no artifact schedule\/none\.dzn/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the Cloud Storage store’s references', () => {
  // No request is made: keyOf only reads references.
  const store = new GcsArtifactStore({ bucket: 'our-bucket', projectId: 'p' });
  it('takes its own bucket’s keys and nothing else', async () => {
    expect(store.keyOf('gs://our-bucket/research-proposal/p.pdf')).toBe('research-proposal/p.pdf');
    expect(store.keyOf('research-proposal/p.pdf')).toBe('research-proposal/p.pdf');
    for (const ref of [
      'gs://other-bucket/research-proposal/p.pdf',
      'gs://our-bucket/../other/p.pdf',
      'gs://our-bucket//p.pdf',
      'gs://our-bucket.evil/p.pdf',
      'https://storage.googleapis.com/our-bucket/p.pdf',
      '/app/out/research-proposal/p.pdf',
      ...HOSTILE_KEYS,
    ]) {
      expect(store.keyOf(ref), ref.slice(0, 60)).toBeUndefined();
    }
    await expect(store.put('../x.pdf', 'x')).rejects.toThrow(/invalid artifact key/);
    expect(await store.open('../x.pdf')).toBeUndefined();
  });

  it('refuses an invalid key even when the caller names the content type', async () => {
    const saved: string[] = [];
    const storage = { bucket: () => ({ file: (name: string) => ({ save: async () => void saved.push(name) }) }) };
    const offline = new GcsArtifactStore({ bucket: 'our-bucket', storage: storage as never });
    await expect(offline.put('../x.pdf', 'x', { contentType: 'application/pdf' })).rejects.toThrow(
      /invalid artifact key/,
    );
    expect(saved).toEqual([]);
  });

  it('gives the console links only for its own objects', () => {
    const ctx = { artifactDir: '/nowhere', artifacts: store };
    expect(artifactHref(ctx, 'gs://our-bucket/schedule/a b.svg')).toBeUndefined();
    expect(artifactHref(ctx, 'gs://other/schedule/a.svg', 'gs://our-bucket/schedule/a.svg')).toBe(
      '/console/artifacts/schedule/a.svg',
    );
  });
});

describe('the artifact settings', () => {
  const problems = (env: Record<string, string>) => {
    try {
      parseConfig(env);
      return [];
    } catch (err) {
      return (err as ConfigError).problems;
    }
  };
  it('defaults to the local directory, and to Cloud Storage once a bucket is named', () => {
    expect(parseConfig({}).artifactStore).toBe('local');
    expect(parseConfig({ ARTIFACT_BUCKET: 'my-artifacts' }).artifactStore).toBe('gcs');
    // An empty value (`ARTIFACT_BUCKET=` in .env, `${ARTIFACT_BUCKET:-}` in compose) is unset.
    expect(parseConfig({ ARTIFACT_BUCKET: '', ARTIFACT_STORE: ' ' }).artifactStore).toBe('local');
  });
  it('names the setting that is wrong', () => {
    expect(problems({ ARTIFACT_STORE: 'gcs' })).toEqual([expect.stringMatching(/^ARTIFACT_BUCKET: required/)]);
    expect(problems({ ARTIFACT_STORE: 's3' })).toEqual([expect.stringMatching(/^ARTIFACT_STORE: /)]);
    expect(problems({ ARTIFACT_BUCKET: 'gs://my-artifacts' })).toEqual([
      expect.stringMatching(/^ARTIFACT_BUCKET: expected a bucket name/),
    ]);
    expect(problems({ ARTIFACT_STORE: 'local', ARTIFACT_BUCKET: 'b-1' })).toEqual([
      expect.stringMatching(/^ARTIFACT_BUCKET: set, but ARTIFACT_STORE=local/),
    ]);
    expect(problems({ ARTIFACT_BUCKET: 'b-1', STORAGE_EMULATOR_HOST: 'localhost:9023' })).toEqual([
      expect.stringMatching(/^STORAGE_EMULATOR_HOST: expected http/),
    ]);
  });
});
