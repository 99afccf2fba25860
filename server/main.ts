/**
 * `npm run control-plane`: the control plane alone (discovery, registration, execution), on
 * CONTROL_PLANE_HOST:CONTROL_PLANE_PORT, talking to the Temporal server named by the `temporal`
 * CLI's variables (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE...). `npm start` runs it in the stack.
 */
import { loadConfig, ConfigError, type Config } from '../contracts/config';
import { buildControlPlane, type ControlPlane } from './app';
import { lazyTemporal } from './temporal';

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

/** Builds and starts the control plane from the configuration; returns it with its URL. */
export async function startControlPlane(config: Config, overrides: { temporalAddress?: string } = {}): Promise<ControlPlane & { url: string }> {
  if (!config.CONTROL_PLANE_TOKEN && !LOOPBACK.has(config.CONTROL_PLANE_HOST)) {
    console.warn(`[control-plane] listening on ${config.CONTROL_PLANE_HOST} without CONTROL_PLANE_TOKEN: anyone who reaches it can register agents and start workflows`);
  }
  const controlPlane = await buildControlPlane({
    storePath: config.CONTROL_PLANE_STORE,
    temporal: lazyTemporal({ address: overrides.temporalAddress }),
    token: config.CONTROL_PLANE_TOKEN,
    cacheTtlMs: config.CONTROL_PLANE_CACHE_TTL_MS,
    heartbeatTimeoutMs: 3 * config.CONTROL_PLANE_HEARTBEAT_MS,
    healthCheckMs: 10_000,
    logLevel: config.LOG_LEVEL,
    console: { artifactDir: config.ARTIFACT_DIR },
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
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    console.error(err instanceof ConfigError ? err.message : String(err));
    process.exit(2);
  }
  startControlPlane(config).then(
    (cp) => {
      console.log(`[control-plane] ${cp.url}/api/v1/discovery/capabilities (console: ${cp.url}/console/, OpenAPI: ${cp.url}/openapi.json, metrics: ${cp.url}/metrics, store: ${config.CONTROL_PLANE_STORE})`);
      const stop = () => {
        cp.close().then(
          () => process.exit(0),
          () => process.exit(1),
        );
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    },
    (err) => {
      console.error(`[control-plane] could not start: ${err instanceof Error ? err.message : String(err)}`);
      process.exit(1);
    },
  );
}
