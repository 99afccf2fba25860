/**
 * The artifact store on a Cloud Storage bucket (ARTIFACT_BUCKET), with the official client. The
 * client honours STORAGE_EMULATOR_HOST itself (tests point it at a local emulator) and finds
 * credentials as every Google client does (Application Default Credentials).
 */
import type { Readable } from 'node:stream';
import { Storage, type Bucket } from '@google-cloud/storage';
import { checkKey, contentTypeOf, isValidKey, parseGsUri } from './keys';
import type { ArtifactObject, ArtifactStore, StoredArtifact } from './types';

export interface GcsArtifactStoreOptions {
  bucket: string;
  projectId?: string;
  /** The client itself, for tests; built from the environment otherwise. */
  storage?: Storage;
}

export class GcsArtifactStore implements ArtifactStore {
  readonly kind = 'gcs' as const;
  readonly root: string;
  private readonly bucket: Bucket;

  constructor(private readonly options: GcsArtifactStoreOptions) {
    this.root = `gs://${options.bucket}`;
    const storage = options.storage ?? new Storage({ projectId: options.projectId });
    this.bucket = storage.bucket(options.bucket);
  }

  async put(key: string, body: Buffer | string, options: { contentType?: string } = {}): Promise<StoredArtifact> {
    const data = typeof body === 'string' ? Buffer.from(body) : body;
    // Checked whatever type the caller gives: the key is an object name in a shared bucket.
    checkKey(key);
    const contentType = options.contentType ?? contentTypeOf(key);
    // One request per object (our artifacts are small): an upload either lands whole or not at all,
    // and a retried activity overwrites the same key with the same bytes.
    await this.bucket.file(key).save(data, { resumable: false, contentType, metadata: { contentType } });
    const ref = `${this.root}/${key}`;
    return { ref, key, location: ref, bytes: data.length, contentType };
  }

  keyOf(ref: string): string | undefined {
    if (typeof ref !== 'string') return undefined;
    const gs = parseGsUri(ref);
    if (gs) return gs.bucket === this.options.bucket && isValidKey(gs.key) ? gs.key : undefined;
    if (ref.includes('://')) return undefined;
    return isValidKey(ref) ? ref : undefined;
  }

  async open(key: string): Promise<ArtifactObject | undefined> {
    if (!isValidKey(key)) return undefined;
    const file = this.bucket.file(key);
    let metadata: { contentType?: string; size?: string | number };
    try {
      [metadata] = await file.getMetadata();
    } catch (err) {
      if ((err as { code?: number }).code === 404) return undefined;
      throw err;
    }
    // The type is the key's, not the uploader's: an object written with another type by someone
    // else is still served as what its name says (or as a download).
    const stream: Readable = file.createReadStream();
    return { key, contentType: contentTypeOf(key), bytes: Number(metadata.size) || undefined, stream };
  }
}
