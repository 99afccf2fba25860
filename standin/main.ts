/** `npm run standin`: the offline Gemini-compatible model server on its own (STANDIN_PORT, STANDIN_FAULTS). */
import { configOrExit } from '../workers/worker';
import { startStandin } from './server';

async function main() {
  const config = configOrExit();
  const faults = config.STANDIN_FAULTS;
  const standin = await startStandin({ host: config.STANDIN_HOST, port: config.STANDIN_PORT, faults, log: config.VERBOSE_STANDIN });
  console.log(`[standin] Gemini-compatible stand-in on ${standin.url} (faults: ${JSON.stringify(faults ?? {})})`);
  const stop = () => void standin.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
