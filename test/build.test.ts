/**
 * `npm run build`: the compiled processes and the prebuilt workflow bundle work as plain Node
 * (no tsx), and the build stamp tells a current build from one the sources have moved past.
 *
 * The build goes to a temporary folder inside the project (compiled code finds node_modules and
 * data/ from where it lies), removed afterwards.
 */
import { Client, Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { TASK_QUEUE } from '../contracts/common';
import { PROJECT_ROOT as ROOT } from '../plumbing/project-root';
import { startStandin, type StandinServer } from '../standin/server';
import { build } from '../workers/build';
import { checkBuild, hashSources, STAMP_FILE, WORKFLOW_BUNDLE_FILE } from '../workers/build-stamp';
import { waitFor } from './helpers/wait';
import { logLines } from './helpers/log-lines';

const NAMESPACE = 'build-test';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Runs a compiled entry point with plain node; collects its output. */
function runCompiled(
  outDir: string,
  entry: string,
  env: Record<string, string>,
  args: string[] = [],
): ChildProcess & { output: () => string } {
  const child = spawn(process.execPath, [path.join(outDir, entry), ...args], {
    cwd: os.tmpdir(), // not the project: the compiled code must find its files on its own
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  child.stdout!.on('data', (d) => (text += d));
  child.stderr!.on('data', (d) => (text += d));
  return Object.assign(child, { output: () => text });
}

function exitOf(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) =>
    child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', (code) => resolve(code)),
  );
}

describe('build stamp', () => {
  let root: string;
  let buildDir: string;
  beforeAll(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'agent-flows-stamp-'));
    for (const dir of ['flows', 'contracts', 'data/profiles']) mkdirSync(path.join(root, dir), { recursive: true });
    writeFileSync(path.join(root, 'flows', 'workflows.ts'), 'export {};\n');
    writeFileSync(path.join(root, 'contracts', 'a.ts'), 'export const a = 1;\n');
    writeFileSync(path.join(root, 'data', 'profiles', 'p.json'), '{}\n');
    writeFileSync(path.join(root, 'package.json'), '{}\n');
    buildDir = path.join(root, 'dist');
    mkdirSync(buildDir);
    writeFileSync(path.join(buildDir, WORKFLOW_BUNDLE_FILE), '');
    const stamp = {
      sourcesHash: hashSources(root, ['data/profiles/p.json']),
      importedDataFiles: ['data/profiles/p.json'],
      builtAt: 'now',
      node: process.version,
    };
    writeFileSync(path.join(buildDir, STAMP_FILE), JSON.stringify(stamp));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('is current for its sources; stale after an edit, a new file or a change of imported data', () => {
    expect(checkBuild(buildDir, root).current).toBe(true);
    const edits: Array<[string, string]> = [
      ['contracts/a.ts', 'export const a = 2;\n'],
      ['contracts/b.ts', 'export const b = 1;\n'],
      ['data/profiles/p.json', '{"changed":true}\n'],
      ['package.json', '{"version":"2"}\n'],
    ];
    for (const [file, text] of edits) {
      const full = path.join(root, file);
      const before = existsSync(full) ? readFileSync(full, 'utf8') : undefined;
      writeFileSync(full, text);
      const check = checkBuild(buildDir, root);
      expect(check.current, file).toBe(false);
      expect(check.reason).toMatch(/older than the sources/);
      if (before === undefined) rmSync(full);
      else writeFileSync(full, before);
      expect(checkBuild(buildDir, root).current, `${file} restored`).toBe(true);
    }
  });

  it('is not a build without its bundle or stamp; is trusted where no sources sit beside it (an image)', () => {
    rmSync(path.join(buildDir, WORKFLOW_BUNDLE_FILE));
    expect(checkBuild(buildDir, root)).toMatchObject({ current: false });
    writeFileSync(path.join(buildDir, WORKFLOW_BUNDLE_FILE), '');
    rmSync(path.join(root, 'flows', 'workflows.ts'));
    writeFileSync(path.join(root, 'contracts', 'a.ts'), 'changed');
    expect(checkBuild(buildDir, root)).toMatchObject({ current: true, reason: 'build without sources beside it' });
  });
});

describe('compiled processes (npm run build into a temporary folder)', () => {
  let outDir: string;
  let standin: StandinServer;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    outDir = mkdtempSync(path.join(ROOT, '.build-test-'));
    await build(outDir);
    standin = await startStandin({ port: 0 });
  }, 240_000);

  afterAll(async () => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    await standin?.close();
    if (outDir) rmSync(outDir, { recursive: true, force: true });
  });

  it('writes the compiled entry points, the workflow bundle and a stamp matching the sources', () => {
    for (const entry of [
      'workers/worker.js',
      'workers/stack.js',
      'server/main.js',
      'server/codec-main.js',
      'standin/main.js',
      'client/mcp/main.js',
      'workers/healthcheck.js',
    ]) {
      expect(existsSync(path.join(outDir, entry)), entry).toBe(true);
    }
    expect(checkBuild(outDir)).toMatchObject({ current: true, bundlePath: path.join(outDir, WORKFLOW_BUNDLE_FILE) });
  });

  it('the compiled control plane serves /healthz and passes its container health check', async () => {
    const port = await freePort();
    const env = {
      CONTROL_PLANE_PORT: String(port),
      CONTROL_PLANE_STORE: path.join(outDir, 'agents.jsonl'),
      TEMPORAL_ADDRESS: inject('temporalAddress'),
    };
    const cp = runCompiled(outDir, 'server/main.js', env);
    children.push(cp);
    await waitFor(
      () => (cp.output().includes('/api/v1/discovery/capabilities') ? true : cp.exitCode !== null ? false : undefined),
      'control plane',
    );
    expect(cp.exitCode, cp.output()).toBeNull();
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    const check = runCompiled(outDir, 'workers/healthcheck.js', env, ['control-plane']);
    expect(await exitOf(check), check.output()).toBe(0);
    cp.kill('SIGTERM');
    expect(await exitOf(cp)).toBe(0);
    // Down: the health check says so.
    const after = runCompiled(outDir, 'workers/healthcheck.js', env, ['control-plane']);
    expect(await exitOf(after)).toBe(1);
  }, 60_000);

  it('the compiled worker loads the prebuilt bundle, runs a flow and passes its health check', async () => {
    const connection = await Connection.connect({ address: inject('temporalAddress') });
    try {
      // A namespace of its own: the real worker process polls agent-flows, which other tests use.
      await connection.workflowService
        .registerNamespace({ namespace: NAMESPACE, workflowExecutionRetentionPeriod: msToTs('1 day') })
        .catch((err: Error) => {
          if (!/already/i.test(err.message)) throw err;
        });
      await waitFor(
        () =>
          connection.workflowService.describeNamespace({ namespace: NAMESPACE }).then(
            () => true,
            () => undefined,
          ),
        'namespace',
      );
      const metricsPort = await freePort();
      const env = {
        TEMPORAL_ADDRESS: inject('temporalAddress'),
        TEMPORAL_NAMESPACE: NAMESPACE,
        AGENT_FLOWS_MODEL: 'standin',
        GOOGLE_GEMINI_BASE_URL: standin.url,
        WORKER_METRICS_PORT: String(metricsPort),
        ARTIFACT_DIR: path.join(outDir, 'out'),
        LOG_LEVEL: 'warn',
      };
      const worker = runCompiled(outDir, 'workers/worker.js', env);
      children.push(worker);
      await waitFor(
        () =>
          worker.output().includes('"message":"polling task queue"')
            ? true
            : worker.exitCode !== null
              ? false
              : undefined,
        'worker',
        { timeoutMs: 90_000 },
      );
      expect(worker.exitCode, worker.output()).toBeNull();
      expect(logLines(worker.output())).toContainEqual(
        expect.objectContaining({
          component: 'worker',
          message: 'prebuilt workflow bundle',
          bundle: path.relative(ROOT, path.join(outDir, WORKFLOW_BUNDLE_FILE)),
        }),
      );
      expect(worker.output()).not.toMatch(/webpack|bundling the workflows/);

      const client = new Client({ connection, namespace: NAMESPACE });
      const result = await client.workflow.execute('platformCheck', {
        taskQueue: TASK_QUEUE,
        workflowId: `build-test-platform-check-${Date.now()}`,
        args: [{ topic: 'battery' }],
        workflowExecutionTimeout: '60 seconds',
      });
      expect(result).toMatchObject({ topic: 'battery', backends: { model: 'standin' } });

      const check = await waitFor(
        async () => {
          const probe = runCompiled(outDir, 'workers/healthcheck.js', env, ['worker']);
          return (await exitOf(probe)) === 0 ? probe.output() : undefined;
        },
        'worker health check',
        { timeoutMs: 30_000 },
      );
      expect(check).toContain(`worker polling ${TASK_QUEUE}`);
      worker.kill('SIGTERM');
      expect(await exitOf(worker)).toBe(0);
    } finally {
      await connection.close();
    }
  }, 150_000);
});
