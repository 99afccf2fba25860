/**
 * `npm run codec`: the codec endpoint on its own (a container of its own in docker-compose.yml),
 * for the Web UI and `temporal --codec-endpoint`. `npm start` runs the same endpoint in the stack.
 *
 * Listens on CODEC_HOST:CODEC_PORT, decodes with AGENT_FLOWS_PAYLOAD_KEY (and the old keys), lets
 * the Web UI at TEMPORAL_UI_URL (default http://localhost:TEMPORAL_UI_PORT) call it from the
 * browser, and requires `Authorization: Bearer CODEC_AUTH_TOKEN` when that is set.
 */
import { loadConfigOrExit, type Config } from '../plumbing/config';
import { payloadCodecFromEnv } from '../codec/payload-codec';
import { startCodecServer } from './codec-server';
import { errorText, useProcessLogging } from '../plumbing/logger';

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);
const log = useProcessLogging('codec');

async function main(config: Config): Promise<void> {
  const codec = payloadCodecFromEnv();
  if (!codec) {
    log.error('AGENT_FLOWS_PAYLOAD_KEY is not set: payloads are plaintext and there is nothing to decode');
    process.exit(2);
  }
  if (!config.CODEC_AUTH_TOKEN && !LOOPBACK.has(config.CODEC_HOST)) {
    log.warn(
      { host: config.CODEC_HOST },
      'listening beyond loopback without CODEC_AUTH_TOKEN: anyone who reaches it can decrypt payloads',
    );
  }
  const ui = config.TEMPORAL_UI_URL ? [new URL(config.TEMPORAL_UI_URL).origin] : [];
  const origins = [...ui, `http://localhost:${config.TEMPORAL_UI_PORT}`, `http://127.0.0.1:${config.TEMPORAL_UI_PORT}`];
  const server = await startCodecServer({
    codec,
    host: config.CODEC_HOST,
    port: config.CODEC_PORT,
    allowedOrigins: origins,
    authToken: config.CODEC_AUTH_TOKEN,
  });
  log.info({ url: server.url, webUiOrigins: [...new Set(origins)] }, 'codec endpoint started');
  const stop = () =>
    void server.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

const config = loadConfigOrExit();
main(config).catch((err) => {
  const code = (err as NodeJS.ErrnoException).code;
  log.error(
    { error: errorText(err), ...(code === 'EADDRINUSE' ? { port: config.CODEC_PORT } : {}) },
    `could not start${code === 'EADDRINUSE' ? ' (port in use)' : ''}`,
  );
  process.exit(1);
});
