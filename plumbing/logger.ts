/**
 * The one logger of the long-running processes: `npm start` (the stack), the worker, the control
 * plane, the codec endpoint, the model stand-in and the solver worker. Each line is one JSON object
 * on stdout: `level`, `timestamp`, `component` (stack, worker, solver, codec, standin,
 * control-plane), `message`, and the values it is about as fields of their own (url, address,
 * counts...). Read it with jq, e.g. `npm start | jq -r '"\(.component) \(.message)"'`.
 *
 * One configuration for all of them: the control plane's Fastify logger is built from
 * `loggerOptions` too, and the Temporal SDK's runtime logger (`sdkLogger`) writes through it, so
 * SDK, workflow and activity log lines are JSON lines of the same shape.
 *
 * LOG_LEVEL governs what it governed before: the SDK's lines and the control plane's request log.
 * A process's own lines (what runs where, warnings, failures) show at `info` and above whatever
 * LOG_LEVEL says (`debug` adds debug lines), as they did when they were printed.
 *
 * Secret-bearing fields (key, token, secret, password, authorization, cookie...) are redacted at
 * any depth, in arrays and on errors too, whatever the line; and every text of a line (the message,
 * string values, an error's message and stack) passes through `redactCredentials`, which cuts out
 * credential shapes (`?key=` in a URL, bearer tokens, Google keys) and the configured secret values.
 *
 * Command-line tools whose output is their product (the demo, the flow client, build, bench,
 * eval) print for people instead; helpers they share with the processes log through `note`.
 */
import type { LogLevel as SdkLogLevel, LogMetadata, Logger as SdkLogger } from '@temporalio/common';
import pino, { type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import { redactCredentials, registerSecrets } from './redaction';
import { secretValues } from './config';

export type Component = 'stack' | 'worker' | 'solver' | 'codec' | 'standin' | 'control-plane' | 'mcp';
export type LogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'silent';

/** Field names that carry secrets: their values never reach a log line. */
export const SECRET_FIELDS = [
  'key',
  'apiKey',
  'api_key',
  'token',
  'accessToken',
  'access_token',
  'refreshToken',
  'refresh_token',
  'idToken',
  'id_token',
  'secret',
  'clientSecret',
  'client_secret',
  'password',
  'passwd',
  'authorization',
  'Authorization',
  'cookie',
  'set-cookie',
  'x-agent-secret',
  'x-goog-api-key',
  'AGENT_FLOWS_PAYLOAD_KEY',
  'AGENT_FLOWS_PAYLOAD_OLD_KEYS',
  'TEMPORAL_API_KEY',
  'GOOGLE_API_KEY',
  'GEMINI_API_KEY',
  'CONTROL_PLANE_TOKEN',
  'CONTROL_PLANE_REGISTRATION_TOKEN',
  'CODEC_AUTH_TOKEN',
  'MCP_TOKEN',
  'private_key',
  'privateKey',
  'x-api-key',
];

/**
 * The logger configuration every process shares (the control plane's Fastify logger included):
 * level names, an ISO `timestamp`, the text under `message`, scrubbing, error serializers.
 */
export function loggerOptions(options: { component?: Component; level?: LogLevel } = {}): LoggerOptions {
  return {
    level: options.level ?? 'info',
    messageKey: 'message',
    // No pid/hostname: a container or a terminal knows them; `component` says which part spoke.
    base: options.component ? { component: options.component } : undefined,
    timestamp: () => `,"timestamp":"${new Date().toISOString()}"`,
    formatters: { level: (label: string) => ({ level: label }) },
    // No pino `redact` paths: `scrubbedCall` already censors secret fields at any depth, and
    // pino's path redaction on every line cost more than half the control plane's request rate.
    serializers: { err: pino.stdSerializers.err, error: pino.stdSerializers.err, req: requestFields },
    hooks: { logMethod: scrubbedCall },
  };
}

/**
 * A Fastify request as a log field (Fastify's own request serializer, replaced by this one): its
 * url scrubbed (a `?key=` query), no headers. A plain object logged as `req` (already scrubbed) stays as it is.
 */
function requestFields(req: {
  method?: string;
  url?: string;
  host?: string;
  ip?: string;
  socket?: { remotePort?: number };
}): unknown {
  if (typeof req !== 'object' || req === null || Object.getPrototypeOf(req) === Object.prototype) return req;
  return {
    method: req.method,
    url: typeof req.url === 'string' ? scrubText(req.url) : req.url,
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  };
}

const SECRET_KEYS = new Set(SECRET_FIELDS.map((f) => f.toLowerCase()));
const CENSOR = '[redacted]';
/** Deeper than this, a value is not walked (nor written): a log line is not a data dump. */
const MAX_DEPTH = 8;

let envSecretsAt = 0;
/** A text with its credentials cut out; the environment's secret values are re-read once a second (.env loads late). */
function scrubText(text: string): string {
  const now = Date.now();
  if (now - envSecretsAt > 1000) {
    envSecretsAt = now;
    registerSecrets(...secretValues(process.env));
  }
  return redactCredentials(text);
}

/**
 * A copy of a logged value without secrets: secret-bearing fields censored at any depth, texts
 * scrubbed. Plain objects, arrays and errors are walked (an error stays an error, for the `err`
 * serializer); a value with `toJSON` (URL, Date) is logged as its JSON form; other objects (a
 * Fastify request for its serializer) are left to the serializers and the redaction paths.
 */
function scrub(value: unknown, depth = 0, seen = new WeakSet<object>()): unknown {
  if (typeof value === 'string') return scrubText(value);
  if (typeof value !== 'object' || value === null) return value;
  if (seen.has(value)) return '[Circular]';
  if (depth >= MAX_DEPTH) return '[too deep]';
  seen.add(value);
  try {
    if (Array.isArray(value)) return value.map((v) => scrub(v, depth + 1, seen));
    if (value instanceof Error) {
      const copy = Object.create(Object.getPrototypeOf(value) as object) as Error;
      for (const name of Object.getOwnPropertyNames(value)) {
        const d = Object.getOwnPropertyDescriptor(value, name)!;
        const censored = SECRET_KEYS.has(name.toLowerCase());
        if ('value' in d) d.value = censored ? CENSOR : scrub(d.value, depth + 1, seen);
        Object.defineProperty(copy, name, d);
      }
      // An error whose fields are getters on its prototype (DOMException: name, message, code) keeps
      // their values: the getters refuse a copy.
      for (const name of ['name', 'message']) {
        if (!Object.prototype.hasOwnProperty.call(copy, name)) {
          const own = { value: scrub(value[name as keyof Error], depth + 1, seen), configurable: true, writable: true };
          Object.defineProperty(copy, name, own);
        }
      }
      for (const name in value) {
        if (Object.prototype.hasOwnProperty.call(copy, name)) continue;
        const inherited = SECRET_KEYS.has(name.toLowerCase())
          ? CENSOR
          : scrub((value as unknown as Record<string, unknown>)[name], depth + 1, seen);
        Object.defineProperty(copy, name, { value: inherited, enumerable: true, configurable: true, writable: true });
      }
      return copy;
    }
    const toJSON = (value as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function') return scrub(toJSON.call(value), depth, seen);
    const proto = Object.getPrototypeOf(value) as unknown;
    if (proto !== Object.prototype && proto !== null) return value;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value))
      out[k] = SECRET_KEYS.has(k.toLowerCase()) ? CENSOR : scrub(v, depth + 1, seen);
    return out;
  } finally {
    seen.delete(value);
  }
}

/**
 * pino's `logMethod` hook: the arguments of every log call (the process's, Fastify's, the SDK's)
 * scrubbed before pino writes them. An error logged alone becomes `{ err }`, its message the line's.
 */
function scrubbedCall(this: Logger, args: Parameters<Logger['info']>, method: (...args: unknown[]) => void): void {
  const [first, ...rest] = args as unknown[];
  const texts = rest.map((v) => (typeof v === 'string' ? scrubText(v) : v));
  if (first instanceof Error) {
    method.apply(this, [{ err: scrub(first) }, ...(texts.length ? texts : [scrubText(first.message)])]);
  } else {
    method.apply(this, [scrub(first), ...texts]);
  }
}

/**
 * The level of a process's own lines: `debug` when LOG_LEVEL asks for it, otherwise `info`
 * (LOG_LEVEL=warn quiets the SDK and request logs, not the lines saying where things run).
 */
export function ownLevel(env: NodeJS.ProcessEnv = process.env): LogLevel {
  return env.LOG_LEVEL === 'debug' ? 'debug' : 'info';
}

let destination: DestinationStream | undefined;
/** The component this process speaks as, once it says it is a long-running process. */
let active: Component | undefined;
/** stderr instead of stdout: for a process whose stdout is a protocol (MCP over stdio). */
let toStderr = false;
/**
 * stdout, written synchronously: a line logged just before `process.exit` is not lost. Code the
 * test runner runs in-process (no `useProcessLogging`) logs through console.log instead, which it
 * shows for failing tests only: the suite prints failures, not logs.
 */
export function logDestination(): DestinationStream {
  return (destination ??=
    process.env.VITEST && !active
      ? { write: (line: string) => console.log(line.replace(/\n$/, '')) }
      : pino.destination({ dest: toStderr ? 2 : 1, sync: true }));
}

let root: Logger | undefined;
/** The process's root logger (no component: its children carry one). */
export function processLogger(): Logger {
  return (root ??= pino(loggerOptions({ level: ownLevel() }), logDestination()));
}

/** The logger of one component of this process. */
export function logger(component: Component, level?: LogLevel): Logger {
  return processLogger().child({ component }, level ? { level } : {});
}

/**
 * Marks this process as one of the long-running ones, speaking as `component`: from now on the
 * helpers it shares with command-line tools (`note`) log JSON lines instead of printing, and
 * its lines go to stdout (stderr when asked) even under the test runner (a test reads a spawned
 * process's output).
 */
export function useProcessLogging(component: Component, options: { stderr?: boolean } = {}): Logger {
  active ??= component;
  if (options.stderr && !destination) toStderr = true;
  return logger(component);
}

/**
 * A line from a helper that command-line tools share with the processes (the Temporal CLI
 * resolver, the embedding model, the solver's Python): a JSON line under the process's component
 * (with `source`) in a long-running process, a `[source] message` line on stderr otherwise.
 */
export function note(source: string, message: string, fields: Record<string, unknown> = {}): void {
  if (active) logger(active).info({ source, ...fields }, message);
  else process.stderr.write(`[${source}] ${message}\n`);
}

/** The message of an error, or the value as text: for `err.message`-style fields. */
export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

const SDK_LEVELS: Record<SdkLogLevel, LogLevel> = {
  TRACE: 'trace',
  DEBUG: 'debug',
  INFO: 'info',
  WARN: 'warn',
  ERROR: 'error',
};

/**
 * The Temporal SDK's logger (Runtime.install's `logger`: the SDK's, the core's, workflows' and
 * activities' lines) writing through pino at `level`, as DefaultLogger(level) filtered before.
 * The SDK's metadata (sdkComponent, workflowId, activityType...) become fields of the line.
 */
export function sdkLogger(level: SdkLogLevel, parent: Logger = logger('worker')): SdkLogger {
  const log = parent.child({}, { level: SDK_LEVELS[level] });
  const write = (at: SdkLogLevel, message: string, meta?: LogMetadata) => {
    const method = SDK_LEVELS[at] as Exclude<LogLevel, 'silent'>;
    // Symbol keys (the SDK's timestamp) are not fields: pino ignores them.
    if (meta) log[method](meta, message);
    else log[method](message);
  };
  // Every method goes through `log`, as DefaultLogger's do (a test may watch `log` alone).
  const adapter: SdkLogger = {
    log: (at, message, meta) => write(at, message, meta),
    trace: (message, meta) => adapter.log('TRACE', message, meta),
    debug: (message, meta) => adapter.log('DEBUG', message, meta),
    info: (message, meta) => adapter.log('INFO', message, meta),
    warn: (message, meta) => adapter.log('WARN', message, meta),
    error: (message, meta) => adapter.log('ERROR', message, meta),
  };
  return adapter;
}
