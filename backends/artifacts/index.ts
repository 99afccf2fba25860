/**
 * The artifact store the configuration names: Cloud Storage when ARTIFACT_STORE=gcs (the default
 * once ARTIFACT_BUCKET is set), else the local directory ARTIFACT_DIR. The worker hands it to the
 * activities; the control plane and the CLI read through the same one. The Cloud Storage client is
 * loaded only when configured.
 */
import type { Config } from '../../plumbing/config';
import { LocalArtifactStore } from './local';
import type { ArtifactStore } from './types';

export type { ArtifactObject, ArtifactStore, StoredArtifact } from './types';
export { checkKey, contentTypeOf, isKnownContentType, isValidKey, keyProblem, MAX_KEY_LENGTH } from './keys';
export { LocalArtifactStore } from './local';

type ArtifactConfig = Pick<Config, 'ARTIFACT_DIR' | 'artifactStore' | 'ARTIFACT_BUCKET' | 'GOOGLE_CLOUD_PROJECT'>;

export async function createArtifactStore(config: ArtifactConfig): Promise<ArtifactStore> {
  if (config.artifactStore === 'gcs') {
    const { GcsArtifactStore } = await import('./gcs');
    return new GcsArtifactStore({ bucket: config.ARTIFACT_BUCKET!, projectId: config.GOOGLE_CLOUD_PROJECT });
  }
  return new LocalArtifactStore(config.ARTIFACT_DIR);
}
