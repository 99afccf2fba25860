import { spawnSync } from 'node:child_process';
import { mkdtempSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { devServerUiArgs } from '../workers/dev-server';
import { installTemporalTools, resolveTemporalCli } from '../workers/temporal-cli';

const ROOT = path.resolve(__dirname, '..');
const saved = { ...process.env };
afterEach(() => {
  process.env = { ...saved };
});

describe('Temporal binary resolution', () => {
  it('prefers TEMPORAL_CLI_PATH, then PATH, then the project-local install', () => {
    process.env.TEMPORAL_CLI_PATH = inject('temporalCliPath');
    expect(resolveTemporalCli({ quiet: true })).toEqual({ path: inject('temporalCliPath'), source: 'env' });
    delete process.env.TEMPORAL_CLI_PATH;
    const binDir = mkdtempSync(path.join(os.tmpdir(), 'path-bin-'));
    symlinkSync(inject('temporalCliPath'), path.join(binDir, 'temporal'));
    process.env.PATH = `${binDir}:/usr/bin:/bin`;
    expect(resolveTemporalCli({ quiet: true })).toEqual({ path: path.join(binDir, 'temporal'), source: 'PATH' });
    process.env.PATH = `${path.dirname(process.execPath)}:/usr/bin:/bin`;
    expect(resolveTemporalCli({ quiet: true }).source).toBe('project-local');
  });

  it('rejects a TEMPORAL_CLI_PATH that is not an executable', () => {
    process.env.TEMPORAL_CLI_PATH = '/nonexistent/temporal';
    expect(() => resolveTemporalCli({ quiet: true })).toThrow(/TEMPORAL_CLI_PATH=\/nonexistent\/temporal is not an executable/);
  });

  it('says clearly what is missing when python3 with venv is not there', () => {
    process.env.PYTHON = '/nonexistent/python3';
    expect(() => installTemporalTools({ quiet: true, force: true })).toThrow(/"\/nonexistent\/python3" with the venv and ensurepip modules is required/);
  });

  it('npm run temporal proxies to the resolved CLI and says which one it used', () => {
    const result = spawnSync(path.join(ROOT, 'node_modules', '.bin', 'tsx'), ['workers/temporal-cli.ts', '--version'], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, TEMPORAL_CLI_PATH: inject('temporalCliPath') } });
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^temporal version 1\.9\.\d/);
    expect(result.stderr).toContain('using temporal CLI from env');
  });

  it('starts the dev server with the Web UI (and codec endpoint) or headless, never both', () => {
    expect(devServerUiArgs({ uiPort: 8233 })).toEqual(['--ui-port', '8233']);
    expect(devServerUiArgs({ uiPort: 8233, uiCodecEndpoint: 'http://127.0.0.1:8234' })).toEqual(['--ui-port', '8233', '--ui-codec-endpoint', 'http://127.0.0.1:8234']);
    expect(devServerUiArgs({})).toEqual(['--headless']);
  });
});
