/**
 * Credentials never reach a log line, an error or a workflow failure. A provider's error body can
 * reflect the API key (`key=...` in a quoted URL, a bearer token, the key itself); backend errors
 * become workflow failures (stored in history) and log lines. Backend errors, activity failures
 * and every text the processes' logger writes pass through `redactCredentials`.
 */
const REDACTED = '[redacted]';
/** The configured secret values (API keys, tokens), registered when the backends are created. */
const secretValues = new Set<string>();

/** Registers secret values (from the configuration) to be cut out of every error and log line. */
export function registerSecrets(...values: Array<string | undefined>): void {
  // Very short values would redact ordinary words; a real credential is longer.
  for (const v of values) if (v && v.trim().length >= 8) secretValues.add(v.trim());
}

const CREDENTIAL_PATTERNS: Array<[RegExp, string]> = [
  // Google API keys and OAuth access tokens.
  [/AIza[0-9A-Za-z_-]{30,}/g, REDACTED],
  [/ya29\.[0-9A-Za-z._-]+/g, REDACTED],
  // OpenAI API keys (sk-..., sk-proj-...), which its 401 body quotes in part.
  [/\bsk-[A-Za-z0-9_*-]{16,}/g, REDACTED],
  // Authorization: Bearer/Basic <token> (any case, with or without the header name).
  [/\b(bearer|basic)(\s+)[A-Za-z0-9._~+/=-]{6,}/gi, `$1$2${REDACTED}`],
  // Credentials in a URL's user part: https://user:password@host/...
  // A scheme is read as its last 32 characters at most: unbounded, a long word with no "://" was
  // rescanned from each of its letters. With no word boundary required, a longer scheme is still caught.
  [/([a-z][a-z0-9+.-]{0,31}:\/\/)[^\s/?#@"'<>]+@/gi, `$1${REDACTED}@`],
  // Credentials in a query string: ?key=..., &access_token=...
  [/([?&](?:key|api[_-]?key|access_token|token|sig|signature|client_secret|password)=)[^&\s"'#<>]+/gi, `$1${REDACTED}`],
  // "x-goog-api-key: ...", "api_key": "...", "authorization=..." in headers, JSON or logs.
  [
    /((?:x-goog-api-key|x-api-key|api[_-]?key|apikey|access_token|client_secret|password|authorization)["']?\s*[:=]\s*["']?)(?!bearer\b|basic\b)[^\s"',;}&]+/gi,
    `$1${REDACTED}`,
  ],
];

/** Cuts credentials out of a text: known token shapes, `key=` parameters and the configured secrets. */
export function redactCredentials(text: string): string {
  let out = text;
  for (const secret of secretValues) out = out.split(secret).join(REDACTED);
  for (const [pattern, replacement] of CREDENTIAL_PATTERNS) out = out.replace(pattern, replacement);
  return out;
}
