/**
 * No Docker engine runs on these machines, so the deployment files are validated as far as
 * possible without one: the compose file parses, wires the services the README promises, and
 * sets only variables the worker's configuration knows; the Dockerfile ships every source folder.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { configSchema } from '../contracts/config';

const ROOT = path.resolve(__dirname, '..');
const compose = parse(readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8')) as {
  services: Record<string, { image?: string; build?: string; environment?: Record<string, string>; depends_on?: unknown; command?: string[] }>;
};
const TEMPORAL_VARS = new Set(['TEMPORAL_ADDRESS', 'TEMPORAL_NAMESPACE', 'TEMPORAL_API_KEY', 'CONTROL_PLANE_URL', 'GOOGLE_APPLICATION_CREDENTIALS']);
const known = new Set(Object.keys((configSchema as unknown as { in: { shape: Record<string, unknown> } }).in.shape));

describe('deployment files', () => {
  it('compose runs Temporal on PostgreSQL, the Web UI, the worker, the solver and the control plane', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['control-plane', 'postgresql', 'solver', 'temporal', 'temporal-ui', 'worker']);
    expect(compose.services.temporal.environment).toMatchObject({ DB: 'postgres12', POSTGRES_SEEDS: 'postgresql' });
    expect(compose.services.worker.build).toBe('.');
    expect(compose.services['control-plane'].command).toEqual(['npx', 'tsx', 'server/main.ts']);
  });

  it('sets only variables the configuration (or the Temporal client) reads', () => {
    expect(known.size).toBeGreaterThan(20);
    for (const name of ['worker', 'control-plane', 'solver']) {
      for (const key of Object.keys(compose.services[name].environment ?? {})) {
        expect(known.has(key) || TEMPORAL_VARS.has(key), `${name}: ${key}`).toBe(true);
      }
    }
  });

  it('the image contains every source folder and no secrets', () => {
    const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
    for (const folder of ['contracts', 'backends', 'activities', 'workflows', 'workers', 'client', 'server', 'standin', 'data']) {
      expect(dockerfile, folder).toMatch(new RegExp(`^COPY ${folder} \\./${folder}$`, 'm'));
    }
    expect(dockerfile).not.toMatch(/API_KEY\s*=/);
  });
});
