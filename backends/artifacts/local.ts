/** The artifact store on a local directory (ARTIFACT_DIR): the offline default, or a shared volume. */
import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { checkKey, contentTypeOf, isValidKey } from './keys';
import type { ArtifactObject, ArtifactStore, StoredArtifact } from './types';

export class LocalArtifactStore implements ArtifactStore {
  readonly kind = 'local' as const;
  readonly root: string;

  constructor(dir: string) {
    this.root = path.resolve(dir);
  }

  async put(key: string, body: Buffer | string, options: { contentType?: string } = {}): Promise<StoredArtifact> {
    const file = path.join(this.root, checkKey(key));
    await fs.mkdir(path.dirname(file), { recursive: true });
    // Temp file + rename: a reader (or another worker on a shared volume) never sees half a file,
    // and two attempts of one activity never take each other's temp file away.
    const tmp = `${file}.${process.pid}.${randomUUID()}.tmp`;
    const data = typeof body === 'string' ? Buffer.from(body) : body;
    await fs.writeFile(tmp, data);
    await fs.rename(tmp, file);
    return {
      ref: key,
      key,
      location: file,
      bytes: data.length,
      contentType: options.contentType ?? contentTypeOf(key),
    };
  }

  keyOf(ref: string): string | undefined {
    if (typeof ref !== 'string' || ref.startsWith('gs://')) return undefined;
    if (!path.isAbsolute(ref)) return isValidKey(ref) ? ref : undefined;
    // A result from before references carries the absolute path it was written to.
    const relative = path.relative(this.root, ref);
    if (!relative || relative.startsWith('..') || path.isAbsolute(relative)) return undefined;
    const key = relative.split(path.sep).join('/');
    return isValidKey(key) ? key : undefined;
  }

  async open(key: string): Promise<ArtifactObject | undefined> {
    if (!isValidKey(key)) return undefined;
    const root = await fs.realpath(this.root).catch(() => undefined);
    if (!root) return undefined;
    // A symbolic link inside the directory must not lead out of it.
    const real = await fs.realpath(path.join(root, key)).catch(() => undefined);
    const relative = real && path.relative(root, real);
    if (!relative || relative.startsWith('..') || path.isAbsolute(relative)) return undefined;
    const stat = await fs.stat(real).catch(() => undefined);
    if (!stat?.isFile()) return undefined;
    return { key, contentType: contentTypeOf(key), bytes: stat.size, stream: createReadStream(real) };
  }
}
