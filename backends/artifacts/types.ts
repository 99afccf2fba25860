/**
 * Where activities put the files they make (proposal PDFs, Gantt charts, MiniZinc models) and
 * where the console and the CLI read them back: a local directory offline, a Cloud Storage bucket
 * when several workers and control-plane replicas on other hosts share them. Results carry the
 * reference `put` returns, never file contents.
 */
import type { Readable } from 'node:stream';

export interface StoredArtifact {
  /** The stable reference a result carries: the key (local) or `gs://bucket/key` (Cloud Storage). */
  ref: string;
  key: string;
  /** Where it is for a person: the absolute file path (local) or the `gs://` URI. */
  location: string;
  bytes: number;
  contentType: string;
}

export interface ArtifactObject {
  key: string;
  contentType: string;
  bytes?: number;
  stream: Readable;
}

export interface ArtifactStore {
  readonly kind: 'local' | 'gcs';
  /** The directory or `gs://bucket`: for messages. */
  readonly root: string;
  /** Writes an object whole (a retried activity writes the same key again, never half an object). */
  put(key: string, body: Buffer | string, options?: { contentType?: string }): Promise<StoredArtifact>;
  /**
   * The key a result's reference names, or undefined when it is not one of this store's: a key,
   * this bucket's `gs://` URI, or (results written before references) an absolute path under the
   * local directory. Another bucket, a path elsewhere or an invalid key give undefined.
   */
  keyOf(ref: string): string | undefined;
  /** Opens a valid key for reading; undefined when the key is invalid or nothing is there. */
  open(key: string): Promise<ArtifactObject | undefined>;
}
