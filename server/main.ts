/**
 * `npm run control-plane`: the control plane alone (discovery, registration, execution), on
 * CONTROL_PLANE_HOST:CONTROL_PLANE_PORT, talking to the Temporal server named by the `temporal`
 * CLI's variables (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE...). `npm start` runs it in the stack.
 */
import { ConfigError, loadConfigOrExit, type Config } from '../plumbing/config';
import { buildControlPlane, type ControlPlane } from './app';
import { createArtifactStore } from '../backends/artifacts';
import { isLoopbackHost } from './http-guard';
import { explainListenError } from '../plumbing/ports';
import { lazyTemporal } from './temporal';
import { currentTracing, setupTracing } from '../plumbing/tracing';
import { errorText, logger, useProcessLogging } from '../plumbing/logger';

/**
 * Builds and starts the control plane from the configuration; returns it with its URL.
 * Refuses (ConfigError) to listen beyond loopback with open registration: anyone who reached
 * it could then register agents.
 */
export async function startControlPlane(
  config: Config,
  overrides: { temporalAddress?: string } = {},
): Promise<ControlPlane & { url: string }> {
  const registrationToken = config.CONTROL_PLANE_REGISTRATION_TOKEN ?? config.CONTROL_PLANE_TOKEN;
  if (!isLoopbackHost(config.CONTROL_PLANE_HOST)) {
    if (!registrationToken) {
      throw new ConfigError([
        'CONTROL_PLANE_REGISTRATION_TOKEN: required when CONTROL_PLANE_HOST ' +
          `(${config.CONTROL_PLANE_HOST}) is not a loopback address ` +
          '(or set CONTROL_PLANE_TOKEN, which then also protects registration); e.g. openssl rand -base64 32',
      ]);
    }
    if (!config.CONTROL_PLANE_TOKEN) {
      logger('control-plane').warn(
        { host: config.CONTROL_PLANE_HOST },
        'listening beyond loopback without CONTROL_PLANE_TOKEN: anyone who reaches it can discover agents and start workflows',
      );
    }
  }
  // The shared registry's changes are signed with a key every instance derives from one secret.
  const registryKey = config.CONTROL_PLANE_REGISTRY_KEY ?? registrationToken;
  if (config.CONTROL_PLANE_REGISTRY === 'temporal' && !registryKey) {
    throw new ConfigError([
      'CONTROL_PLANE_REGISTRY_KEY: required with CONTROL_PLANE_REGISTRY=temporal (the same secret on every ' +
        'control-plane instance: the shared registry accepts only changes signed with it), or set ' +
        'CONTROL_PLANE_REGISTRATION_TOKEN / CONTROL_PLANE_TOKEN, which it then defaults to; e.g. openssl rand -base64 32',
    ]);
  }
  const controlPlane = await buildControlPlane({
    storePath: config.CONTROL_PLANE_STORE,
    ...(config.CONTROL_PLANE_REGISTRY === 'temporal' && registryKey
      ? {
          sharedRegistry: {
            workflowId: config.CONTROL_PLANE_REGISTRY_ID,
            shards: config.CONTROL_PLANE_REGISTRY_SHARDS,
            taskQueue: config.CONTROL_PLANE_REGISTRY_TASK_QUEUE,
            pollMs: config.CONTROL_PLANE_REGISTRY_POLL_MS,
            key: registryKey,
          },
        }
      : {}),
    temporal: lazyTemporal({ address: overrides.temporalAddress }),
    token: config.CONTROL_PLANE_TOKEN,
    registrationToken: config.CONTROL_PLANE_REGISTRATION_TOKEN,
    allowedHosts: config.CONTROL_PLANE_ALLOWED_HOSTS,
    maxManifestBytes: config.CONTROL_PLANE_MAX_MANIFEST_BYTES,
    maxManifestDepth: config.CONTROL_PLANE_MAX_SCHEMA_DEPTH,
    cacheTtlMs: config.CONTROL_PLANE_CACHE_TTL_MS,
    heartbeatTimeoutMs: 3 * config.CONTROL_PLANE_HEARTBEAT_MS,
    healthCheckMs: 10_000,
    logLevel: config.LOG_LEVEL,
    // The store the workers write to: a bucket shared by every replica, or the (shared) directory.
    console: { artifactDir: config.ARTIFACT_DIR, artifacts: await createArtifactStore(config) },
  });
  try {
    const url = await controlPlane.listen(config.CONTROL_PLANE_HOST, config.CONTROL_PLANE_PORT);
    return Object.assign(controlPlane, { url });
  } catch (err) {
    await controlPlane.close();
    throw err;
  }
}

if (require.main === module) {
  const config = loadConfigOrExit();
  const log = useProcessLogging('control-plane');
  setupTracing(config, 'agent-flows-control-plane');
  startControlPlane(config).then(
    (cp) => {
      log.info(
        {
          url: cp.url,
          capabilities: `${cp.url}/api/v1/discovery/capabilities`,
          console: `${cp.url}/console/`,
          openapi: `${cp.url}/openapi.json`,
          metrics: `${cp.url}/metrics`,
          store: config.CONTROL_PLANE_STORE,
        },
        'control plane started',
      );
      const stop = () => {
        cp.close().then(
          // Spans still buffered go to the collector before the process ends.
          () =>
            currentTracing()
              .shutdown()
              .finally(() => process.exit(0)),
          () => process.exit(1),
        );
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    },
    (err) => {
      const why = explainListenError(
        err,
        'The control plane',
        `${config.CONTROL_PLANE_HOST}:${config.CONTROL_PLANE_PORT}`,
        'CONTROL_PLANE_PORT',
      );
      log.error({ error: errorText(why) }, 'could not start');
      process.exit(err instanceof ConfigError ? 2 : 1);
    },
  );
}
