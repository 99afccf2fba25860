/**
 * What the control plane loads on first use (the console's runtime, the flow contracts, the client
 * library's flow functions) is loaded again after a failed load: a transient failure of the first
 * request's load (EMFILE under load) must not leave the console and execution failing until restart.
 * Concurrent first requests share one load.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { researchAgent } from './control-plane-fixtures';

const ROOT = path.resolve(__dirname, '..');

// Run as the build runs it (tsconfig.build.json: CommonJS, where import() is a require that a later
// call makes again): each source transpiled on require, no type check.
const PROBE = `
const Module = require('node:module');
const fs = require('node:fs');
const ts = require('typescript');
require.extensions['.ts'] = (module, filename) => {
  const { outputText } = ts.transpileModule(fs.readFileSync(filename, 'utf8'), {
    fileName: filename,
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
  });
  module._compile(outputText, filename);
};
const os = require('node:os');
const path = require('node:path');
const { mkdtempSync } = require('node:fs');
// The first load of each lazily loaded module fails, as it would with the process out of file descriptors.
const failOnce = new Set(['server/console/runtime', 'flows/registry', 'server/flow-runner']);
const load = Module._load;
Module._load = function (request, parent, ...rest) {
  let file = '';
  try { file = Module._resolveFilename(request, parent); } catch {}
  for (const name of failOnce) {
    if (file.replace(/\\.[cm]?[jt]s$/, '').endsWith(name)) {
      failOnce.delete(name);
      throw Object.assign(new Error('EMFILE: too many open files, open ' + file), { code: 'EMFILE' });
    }
  }
  return load.call(this, request, parent, ...rest);
};
const { buildControlPlane } = require('./server/app');
const { lazyTemporal } = require('./server/temporal');
(async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'cp-lazy-'));
  const temporal = lazyTemporal({ address: '127.0.0.1:1' });
  const cp = await buildControlPlane({
    storePath: path.join(dir, 'agents.jsonl'),
    temporal,
    console: { artifactDir: dir },
    logLevel: 'silent',
    healthCheckMs: 0,
  });
  await cp.app.inject({ method: 'POST', url: '/api/v1/agents', payload: ${JSON.stringify(researchAgent)} });
  const execute = () =>
    cp.app.inject({ method: 'POST', url: '/api/v1/execute/agent-research-001:deep_research', payload: { input: {} } });
  const statuses = async (requests) => (await Promise.all(requests)).map((r) => r.statusCode);
  const runner = () => temporal.runner().then(() => 'loaded', (err) => err.code);
  // In this order: the console's runtime loads the flow contracts too.
  const out = {
    execute: [await statuses([execute()]), await statuses([execute()])],
    console: [await statuses([cp.app.inject('/console/'), cp.app.inject('/console/')]), await statuses([cp.app.inject('/console/')])],
    runner: [await runner(), await runner()],
  };
  await cp.close();
  process.stdout.write(JSON.stringify(out));
})().catch((err) => { console.error(err); process.exit(1); });
`;

describe('control plane lazy loads', () => {
  it('are tried again after a failed first load (shared by concurrent first requests)', () => {
    const out = execFileSync(process.execPath, ['-e', PROBE], { cwd: ROOT, encoding: 'utf8' });
    expect(JSON.parse(out)).toEqual({
      // The flow contracts: the first execution fails, the next finds no such flow (409).
      execute: [[500], [409]],
      // Two concurrent first requests share the failed load; the next request loads again.
      console: [[500, 500], [200]],
      runner: ['EMFILE', 'loaded'],
    });
  });
});
