/**
 * What the control plane loads at start. The Temporal client library (grpc-js, protobuf
 * definitions: ~30 MB of RSS), the workflow library (the shared registry's Update and Query
 * definitions) and the flow contracts (every flow's zod schemas) are loaded with the first
 * execution or console page that needs them, or with CONTROL_PLANE_REGISTRY=temporal, not by
 * building and starting the control plane: a process that only serves discovery and registration
 * stays under 100 MB RSS.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(__dirname, '..');

const PROBE = `
const os = require('node:os');
const path = require('node:path');
const { mkdtempSync } = require('node:fs');
const { buildControlPlane } = require('./server/app');
const { lazyTemporal } = require('./server/temporal');
(async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'cp-startup-'));
  const cp = await buildControlPlane({
    storePath: path.join(dir, 'agents.jsonl'),
    temporal: lazyTemporal({ address: '127.0.0.1:1' }),
    console: { artifactDir: dir },
    logLevel: 'silent',
    healthCheckMs: 0,
  });
  await cp.listen('127.0.0.1', 0);
  const loaded = Object.keys(require.cache).map((f) => path.relative(process.cwd(), f));
  await cp.close();
  process.stdout.write(JSON.stringify(loaded));
})().catch((err) => { console.error(err); process.exit(1); });
`;

describe('control plane start', () => {
  it('loads neither the Temporal client and workflow libraries nor the flow contracts', () => {
    const out = execFileSync(process.execPath, ['--import', 'tsx', '-e', PROBE], { cwd: ROOT, encoding: 'utf8' });
    const loaded = JSON.parse(out) as string[];
    expect(loaded.some((f) => f.includes('server/app'))).toBe(true);
    const heavy = loaded.filter((f) =>
      /node_modules\/(@temporalio\/(client|workflow)|@grpc\/grpc-js|protobufjs)\/|flows\/registry\.|server\/console\/runtime\./.test(
        f,
      ),
    );
    expect(heavy).toEqual([]);
  });
});
