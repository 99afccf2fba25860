/**
 * Once per test run: install/resolve the Temporal binaries, start ONE dev server from the
 * resolved CLI (TestWorkflowEnvironment.createLocal with an existing path), and bundle the
 * workflows once. Test files get the server address and the bundle path through `inject`.
 */
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode } from '@temporalio/worker';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { flowSearchAttribute } from '../../contracts/common';
import { DEV_SERVER_TUNING_ARGS } from '../../workers/dev-server';
import { resolveTemporalCli, resolveTestServer } from '../../workers/temporal-cli';
import { WORKFLOW_INTERCEPTOR_MODULES } from '../../workers/tracing';
import { WORKFLOWS_PATH } from '../../workers/worker';

declare module 'vitest' {
  export interface ProvidedContext {
    temporalAddress: string;
    workflowBundlePath: string;
    temporalCliPath: string;
    testServerPath: string;
  }
}

export default async function setup(project: TestProject) {
  const cli = resolveTemporalCli();
  const testServer = resolveTestServer();
  const env = await TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'existing-path', path: cli.path },
      searchAttributes: [flowSearchAttribute],
      // Extra namespaces let tests that run the real worker process stay apart from the others.
      extraArgs: [
        ...['--namespace', 'crash-test', '--namespace', 'security-test', '--namespace', 'fleet-test'],
        ...['--log-level', 'error', ...DEV_SERVER_TUNING_ARGS],
      ],
    },
  });
  const { code } = await bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    workflowInterceptorModules: WORKFLOW_INTERCEPTOR_MODULES,
    logger: { info() {}, warn() {}, error: console.error, debug() {}, trace() {}, log() {} } as never });
  const dir = mkdtempSync(path.join(os.tmpdir(), 'agent-flows-bundle-'));
  const bundlePath = path.join(dir, 'workflow-bundle.js');
  writeFileSync(bundlePath, code);

  project.provide('temporalAddress', env.address);
  project.provide('workflowBundlePath', bundlePath);
  project.provide('temporalCliPath', cli.path);
  project.provide('testServerPath', testServer.path);
  return async () => {
    await env.teardown();
  };
}
