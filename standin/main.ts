/** `npm run standin`: the offline Gemini-compatible model server on its own (STANDIN_PORT, STANDIN_FAULTS). */
import { listening } from '../plumbing/ports';
import { loadConfigOrExit } from '../plumbing/config';
import { startStandin } from './server';
import { errorText, useProcessLogging } from '../plumbing/logger';

const log = useProcessLogging('standin');

async function main() {
  const config = loadConfigOrExit();
  const faults = config.STANDIN_FAULTS;
  const standin = await listening(
    'The model stand-in',
    `${config.STANDIN_HOST}:${config.STANDIN_PORT}`,
    'STANDIN_PORT',
    () => startStandin({ host: config.STANDIN_HOST, port: config.STANDIN_PORT, faults, log: config.VERBOSE_STANDIN }),
  );
  log.info({ url: standin.url, faults: faults ?? {} }, 'Gemini-compatible stand-in started');
  const stop = () => void standin.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((err) => {
  log.error(errorText(err));
  process.exit(1);
});
