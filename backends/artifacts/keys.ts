/**
 * Artifact keys and references. A key is a relative, slash-separated name (`schedule/x.gantt.svg`);
 * a reference is what a result carries: the key itself for the local directory, `gs://bucket/key`
 * for Cloud Storage. Every key that reaches a store, from an activity or from a URL, passes
 * `checkKey`, so no key climbs out of the directory (`..`), names an absolute path, hides an
 * encoded slash or a NUL, or grows without bound.
 */

/** Longest key accepted (Cloud Storage allows 1,024 bytes; ours are far shorter). */
export const MAX_KEY_LENGTH = 512;
const SEGMENT = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,199}$/;

/** Why a key is refused, or undefined when it is a valid key. */
export function keyProblem(key: unknown): string | undefined {
  if (typeof key !== 'string' || key.length === 0) return 'the key is empty';
  if (key.length > MAX_KEY_LENGTH) return `the key is longer than ${MAX_KEY_LENGTH} characters`;
  // Each segment starts with a letter, digit or underscore: no '.', '..', hidden names, '%', '\', ':'.
  for (const segment of key.split('/')) {
    if (!SEGMENT.test(segment)) return 'the key has an empty or invalid segment';
  }
  return undefined;
}

export function isValidKey(key: unknown): key is string {
  return keyProblem(key) === undefined;
}

/** The key itself, or an error naming why it is refused (never echoing more than a short excerpt). */
export function checkKey(key: string): string {
  const problem = keyProblem(key);
  if (problem) throw new Error(`invalid artifact key ${JSON.stringify(String(key).slice(0, 40))}: ${problem}`);
  return key;
}

/** `gs://bucket/key` split, or undefined when the reference is not one. */
export function parseGsUri(ref: string): { bucket: string; key: string } | undefined {
  const match = /^gs:\/\/([^/]+)\/(.+)$/.exec(ref);
  return match ? { bucket: match[1]!, key: match[2]! } : undefined;
}

// Text types a browser never runs (csv and md as plain text); anything unlisted (html among them)
// is application/octet-stream, which the console sends as a download.
const CONTENT_TYPES: Record<string, string> = {
  pdf: 'application/pdf',
  png: 'image/png',
  svg: 'image/svg+xml',
  json: 'application/json; charset=utf-8',
  txt: 'text/plain; charset=utf-8',
  md: 'text/plain; charset=utf-8',
  csv: 'text/plain; charset=utf-8',
  mzn: 'text/plain; charset=utf-8',
  dzn: 'text/plain; charset=utf-8',
};

/** The content type of a key, by its extension; octet-stream for anything unknown. */
export function contentTypeOf(key: string): string {
  const ext = /\.([a-z0-9]+)$/i.exec(key)?.[1]?.toLowerCase();
  return (ext && CONTENT_TYPES[ext]) ?? 'application/octet-stream';
}

/** Whether a content type is one the console shows inline (the rest download as attachments). */
export function isKnownContentType(type: string): boolean {
  return Object.values(CONTENT_TYPES).includes(type);
}
