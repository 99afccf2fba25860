/**
 * Artifacts in a Cloud Storage bucket, shared across processes, against a real emulator
 * (`gcp-storage-emulator`, installed into .tools/ from pinned wheels: workers/storage-emulator.ts):
 * two worker processes, one per namespace, each run a research proposal under the same workflow
 * id and put its PDF in the bucket; a control-plane process (the console) and the CLI, in
 * processes of their own, read every PDF back through the same store, byte for byte, and refuse
 * keys that would reach anything else ('..', encoded slashes, absolute keys, another bucket,
 * huge keys). Nothing is written to the processes' local folders.
 */
import { Storage } from '@google-cloud/storage';
import { Client, Connection } from '@temporalio/client';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startFlow } from '../access/flow-client';
import { researchProposalFlow, type ProposalOutput } from '../flows/proposal/contract';
import { startStandin, type StandinServer } from '../standin/server';
import { startStorageEmulator, type StorageEmulator } from '../workers/storage-emulator';
import { logLines } from './helpers/log-lines';
import { workerProcessEnv } from './helpers/worker-process';
import { stopChild } from './helpers/wait';

const ROOT = path.resolve(__dirname, '..');
const BUCKET = 'agent-flows-artifacts-test';
const OTHER_BUCKET = 'someone-elses-bucket';
const SECRET = 'TOPSECRET-OTHER-BUCKET';
const NAMESPACES = ['artifacts-a', 'artifacts-b'];

let emulator: StorageEmulator | undefined;
let skipReason: string | undefined;
let standin: StandinServer;
const children: ChildProcess[] = [];
const dirs: string[] = [];

function tempDir(name: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), `artifacts-${name}-`));
  dirs.push(dir);
  return dir;
}

/** The settings every process shares: the bucket on the emulator; a local folder that must stay empty. */
function storeEnv(name: string): Record<string, string> {
  return { ARTIFACT_BUCKET: BUCKET, STORAGE_EMULATOR_HOST: emulator!.url, ARTIFACT_DIR: tempDir(name) };
}

function launch(entry: string, env: NodeJS.ProcessEnv, stdio: 'ignore' | 'pipe' = 'ignore'): ChildProcess {
  const child = spawn(process.execPath, [path.join(ROOT, 'workers', 'launch.cjs'), entry], {
    cwd: ROOT,
    env,
    stdio: ['ignore', stdio, stdio],
  });
  children.push(child);
  return child;
}

async function startConsole(): Promise<string> {
  const proc = launch(
    'server/main.ts',
    {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TEMPORAL_NAMESPACE: NAMESPACES[0],
      CONTROL_PLANE_HOST: '127.0.0.1',
      CONTROL_PLANE_PORT: '0',
      CONTROL_PLANE_STORE: path.join(tempDir('console-store'), 'registry.json'),
      LOG_LEVEL: 'info',
      ...storeEnv('console'),
    },
    'pipe',
  );
  let output = '';
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`control plane did not start: ${output.slice(-2000)}`)), 120_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const started = logLines(output).find((l) => l.message === 'control plane started');
      if (started) {
        clearTimeout(timer);
        resolve(String(started.url));
      }
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
    proc.once('exit', (code) => reject(new Error(`control plane exited (${code}): ${output.slice(-2000)}`)));
  });
}

/** A GET with the path exactly as written: fetch would resolve '..' and '%2e%2e' before sending. */
function rawGet(base: string, rawPath: string): Promise<{ status: number; type?: string; body: Buffer }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, path: rawPath, method: 'GET' }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, type: res.headers['content-type'], body: Buffer.concat(chunks) }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

function runProcess(entry: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'workers', 'launch.cjs'), entry, ...args], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code: code ?? -1, output }));
  });
}

describe('artifacts in a Cloud Storage bucket (emulator), shared by two workers, the console and the CLI', () => {
  beforeAll(async () => {
    try {
      emulator = await startStorageEmulator([BUCKET, OTHER_BUCKET]);
    } catch (err) {
      skipReason = `the Cloud Storage emulator could not be installed or started: ${(err as Error).message}`;
      console.warn(`[artifact-store-gcs] skipped: ${skipReason}`);
      return;
    }
    standin = await startStandin();
  }, 300_000);

  afterAll(async () => {
    await Promise.all(children.map((c) => stopChild(c, 15_000)));
    await standin?.close();
    await emulator?.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('two workers write, the console and the CLI read every artifact through the store', async (ctx) => {
    if (skipReason) return ctx.skip(skipReason);
    const storage = new Storage({ apiEndpoint: emulator!.url, projectId: 'test' });
    await storage.bucket(OTHER_BUCKET).file('secret.txt').save(SECRET, { resumable: false });

    const workerDirs: string[] = [];
    for (const namespace of NAMESPACES) {
      const env = storeEnv(`worker-${namespace}`);
      workerDirs.push(env.ARTIFACT_DIR!);
      launch('workers/worker.ts', workerProcessEnv(namespace, standin.url, { DUCKDB_PATH: ':memory:', ...env }));
    }
    const consoleUrl = startConsole();

    // The same workflow id in both namespaces: the run names must still differ.
    const workflowId = `artifacts-${randomUUID().slice(0, 8)}`;
    const results = await Promise.all(
      NAMESPACES.map(async (namespace) => {
        const connection = await Connection.connect({ address: inject('temporalAddress') });
        try {
          const client = new Client({ connection, namespace });
          const handle = await startFlow(client, researchProposalFlow, researchProposalFlow.examples[0], {
            workflowId,
          });
          return (await handle.result()) as ProposalOutput;
        } finally {
          await connection.close();
        }
      }),
    );

    const refs = results.map((r) => r.pdf?.ref);
    for (const [i, r] of results.entries()) {
      expect(r.pdf?.ref, NAMESPACES[i]).toMatch(new RegExp(`^gs://${BUCKET}/research-proposal/[a-z0-9-]+\\.pdf$`));
      // The old field stays for readers of old results: where the object is.
      expect(r.pdf?.path).toBe(r.pdf?.ref);
    }
    expect(new Set(refs).size).toBe(2);
    // Nothing went to the workers' local folders.
    for (const dir of workerDirs) expect(readdirSync(dir)).toEqual([]);

    const base = await consoleUrl;
    for (const r of results) {
      const key = r.pdf!.ref!.slice(`gs://${BUCKET}/`.length);
      const [direct] = await storage.bucket(BUCKET).file(key).download();
      expect(direct.subarray(0, 5).toString()).toBe('%PDF-');
      expect(direct.length).toBe(r.pdf!.bytes);
      const served = await rawGet(base, `/console/artifacts/${key}`);
      expect(served.status, key).toBe(200);
      expect(served.type).toBe('application/pdf');
      expect(served.body.equals(direct), key).toBe(true);
    }

    // The CLI, in a process of its own, resolves the reference through the same store.
    const outFile = path.join(tempDir('cli'), 'proposal.pdf');
    const cli = await runProcess('client/cli.ts', ['artifact', refs[1]!, '--out', outFile], {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      ...storeEnv('cli'),
    });
    expect(cli.code, cli.output).toBe(0);
    const [second] = await storage
      .bucket(BUCKET)
      .file(refs[1]!.slice(`gs://${BUCKET}/`.length))
      .download();
    expect(readFileSync(outFile).equals(second)).toBe(true);
    // ... and refuses another bucket's object.
    const other = await runProcess('client/cli.ts', ['artifact', `gs://${OTHER_BUCKET}/secret.txt`], {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      ...storeEnv('cli-other'),
    });
    expect(other.code).toBe(1);
    expect(other.output).toContain(`not an artifact of gs://${BUCKET}`);
    expect(other.output).not.toContain(SECRET);

    // Keys that would reach anything but this bucket's objects.
    const key = refs[0]!.slice(`gs://${BUCKET}/`.length);
    const attacks = [
      `/console/artifacts/../b/${OTHER_BUCKET}/o/secret.txt`,
      `/console/artifacts/%2e%2e/%2e%2e/b/${OTHER_BUCKET}/o/secret.txt`,
      `/console/artifacts/research-proposal%2F..%2F..%2F${OTHER_BUCKET}%2Fsecret.txt`,
      `/console/artifacts/..%2F${OTHER_BUCKET}%2Fsecret.txt`,
      `/console/artifacts/%252e%252e%252f${OTHER_BUCKET}%252fsecret.txt`,
      `/console/artifacts/gs:%2F%2F${OTHER_BUCKET}%2Fsecret.txt`,
      `/console/artifacts/gs://${OTHER_BUCKET}/secret.txt`,
      `/console/artifacts//${OTHER_BUCKET}/secret.txt`,
      `/console/artifacts/%2F${OTHER_BUCKET}%2Fsecret.txt`,
      `/console/artifacts/${OTHER_BUCKET}/secret.txt`,
      `/console/artifacts/research-proposal/..%5c..%5csecret.txt`,
      `/console/artifacts/${key}%00.txt`,
      `/console/artifacts/${'a/'.repeat(400)}x.pdf`,
      `/console/artifacts/${'x'.repeat(5000)}.pdf`,
      `/console/artifacts/`,
    ];
    for (const attack of attacks) {
      const res = await rawGet(base, attack);
      expect(res.status, attack.slice(0, 80)).not.toBe(200);
      expect(res.body.toString(), attack.slice(0, 80)).not.toContain(SECRET);
    }
  }, 600_000);
});
