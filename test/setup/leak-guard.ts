/**
 * For the integration files that share their test processes (the `integration` project): each
 * file must leave the process as it found it, or the files after it in the same process see what
 * it left (a fake's data, a timer that fires later, an environment variable), and which files
 * meet in a process changes from run to run. This set-up file, run at the start of every test
 * file, notes what the process holds; after the file's last hook it waits a moment for closing
 * things to finish closing, then fails the file, naming what it left behind:
 *
 * - handles and requests that keep the process alive (sockets, servers, child processes, timers:
 *   `process.getActiveResourcesInfo()`), each described where Node says what it is;
 * - timers the file set that have not fired nor been cleared, kept alive or not (an unref'd
 *   retry timer still fires in a later file);
 * - Temporal native connections and workers still open, and the SDK runtime's settings changed
 *   from the quiet ones every test process installs (test/setup/quiet-runtime.ts);
 * - environment variables set, changed or removed;
 * - new properties on globalThis, process listeners added, a global OpenTelemetry provider set,
 *   the working directory or process.exitCode changed.
 *
 * What the process keeps on purpose is allowed below by name, with the reason. The report says
 * where each leaked timer was made; with LEAK_GUARD_STACKS=1 also each handle (slower: it records
 * a stack for everything asynchronous the process makes).
 */
import { createHook } from 'node:async_hooks';
import timers from 'node:timers';
import { Runtime } from '@temporalio/worker';
import { afterAll } from 'vitest';
import { QUIET_RUNTIME } from './quiet-runtime';

/** How long closing things may take to finish after the file's last hook. */
const SETTLE_MS = 3_000;

/**
 * Properties that appear on globalThis the first time a module is loaded or used in a process and
 * belong to that module, loaded once for the files that share the process (as the modules
 * themselves are): Node's fetch keeps its connection pool there, zod and the OpenAI client their
 * registries, graceful-fs its retry queue, signal-exit its emitter, webpack's schema-utils a
 * switch; vitest keeps its per-file state, and this guard its records.
 */
const ALLOWED_GLOBALS = new Set<PropertyKey>([
  Symbol.for('undici.globalDispatcher.1'),
  '__zod_globalConfig',
  '__zod_globalRegistry',
  Symbol.for('openai.node.providerDefinitions.v1'),
  Symbol.for('graceful-fs.queue'),
  Symbol.for('signal-exit emitter'),
  Symbol.for('schema-utils/skipValidation'),
  Symbol.for('agent-flows.leak-guard'),
  '__vitest_worker__',
  '__vitest_index__',
  '__vitest_mocker__',
]);

/** Process listeners vitest itself adds and removes around each file. */
const ALLOWED_LISTENER_EVENTS = new Set(['uncaughtException', 'unhandledRejection']);

/**
 * signal-exit (used by libraries to clean up on exit) puts one listener on each signal the first
 * time it is used in a process, and keeps them for the process.
 */
const isSignalExitListener = (listener: unknown) =>
  /emitter/.test(String(listener)) && /listeners\(sig\)/.test(String(listener));

/**
 * Timers libraries leave pending by design, each harmless when it fires in a later file. Allowed
 * only unref'd, and only when made where named (a line of the stack that made them).
 */
const ALLOWED_TIMERS: Array<{ made: RegExp }> = [
  // A per-attempt time-out the Gemini client does not clear when the answer comes: it aborts the
  // finished request's own AbortController, nothing else.
  { made: /@google\/genai\/.*createAttemptSignal|createAttemptSignal .*@google\/genai/ },
  // The SDK keeps a parsed workflow bundle's objects 10 s for a debugger, then drops them.
  { made: /parseWorkflowCode .*@temporalio\/worker/ },
  // A connection that could not connect, closed: its subchannel in gRPC's process-wide pool waits
  // out the backoff it was in, then goes idle (a channel left open is still caught, by its idle
  // timer and its resolver's backoff).
  { made: /Subchannel\.startBackoff .*@grpc\/grpc-js/ },
];

interface Made {
  /** Where it was made: an Error whose stack is only formatted when a leak is reported. */
  at: { stack?: string };
}

interface GuardState {
  /** Timers set since the current file began (pruned of those fired or cleared). */
  timers: Set<NodeJS.Timeout>;
  made: WeakMap<object, Made>;
  stacks: boolean;
}

const KEY = Symbol.for('agent-flows.leak-guard');
const holder = globalThis as { [KEY]?: GuardState };

/**
 * Once per process: setTimeout and setInterval (global and node:timers, one function) note each
 * timer they make, so that a timer still pending at a file's end is seen even when unref'd.
 */
function install(): GuardState {
  const stacks = process.env.LEAK_GUARD_STACKS === '1';
  const state: GuardState = { timers: new Set(), made: new WeakMap(), stacks };
  const wrap = <F extends (...args: never[]) => NodeJS.Timeout>(original: F): F => {
    const wrapped = function (this: unknown, ...args: Parameters<F>) {
      const timer = original.apply(this, args);
      // Fired and cleared timers are of no interest: dropped now and then, so the set stays small.
      if (state.timers.size > 10_000)
        for (const t of state.timers) if ((t as { _destroyed?: boolean })._destroyed) state.timers.delete(t);
      state.timers.add(timer);
      // Cheap: the stack is captured now but only turned into text if this timer is reported.
      const at: { stack?: string } = {};
      Error.captureStackTrace(at, wrapped);
      state.made.set(timer, { at });
      return timer;
    } as unknown as F;
    // util.promisify(setTimeout) and friends keep working.
    Object.assign(wrapped, original);
    return wrapped;
  };
  const setTimeoutWrapped = wrap(globalThis.setTimeout as never);
  const setIntervalWrapped = wrap(globalThis.setInterval as never);
  globalThis.setTimeout = setTimeoutWrapped;
  globalThis.setInterval = setIntervalWrapped;
  timers.setTimeout = setTimeoutWrapped;
  timers.setInterval = setIntervalWrapped;
  if (stacks) {
    createHook({
      init(_id, type, _trigger, resource) {
        if (type === 'PROMISE' || type === 'Timeout') return;
        const at: { stack?: string } = {};
        Error.captureStackTrace(at);
        state.made.set(resource as object, { at });
      },
    }).enable();
  }
  return state;
}

const state = (holder[KEY] ??= install());

/** Counts of what keeps the process alive, by kind. */
function resourceCounts(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const kind of process.getActiveResourcesInfo()) counts.set(kind, (counts.get(kind) ?? 0) + 1);
  return counts;
}

const activeHandles = (): object[] => (process as unknown as { _getActiveHandles(): object[] })._getActiveHandles();

function framesOf(thing: object): string[] {
  const stack = state.made.get(thing)?.at.stack;
  if (!stack) return [];
  return stack
    .split('\n')
    .slice(1)
    .map((line) => line.trim())
    .filter((line) => !/leak-guard|node:internal|node:async_hooks|node:timers/.test(line));
}

function where(thing: object): string {
  const frames = framesOf(thing).slice(0, 10);
  return frames.length ? `\n      made at:\n${frames.map((f) => `        ${f}`).join('\n')}` : '';
}

function allowedTimer(timer: NodeJS.Timeout): boolean {
  if (timer.hasRef()) return false;
  const frames = framesOf(timer).join('\n');
  return ALLOWED_TIMERS.some((a) => a.made.test(frames));
}

function describeHandle(handle: object): string {
  const h = handle as Record<string, unknown> & { constructor: { name: string } };
  const name = h.constructor?.name ?? typeof handle;
  if (typeof h.spawnfile === 'string') return `child process ${String(h.pid)}: ${(h.spawnargs as string[]).join(' ')}`;
  if (typeof h.listen === 'function' && typeof h.address === 'function') {
    const address = (h.address as () => unknown)();
    return `server listening on ${JSON.stringify(address)}`;
  }
  if (typeof h.remotePort === 'number' || typeof h.localPort === 'number')
    return `socket ${String(h.localAddress)}:${String(h.localPort)} -> ${String(h.remoteAddress)}:${String(h.remotePort)}`;
  return name;
}

function describeTimer(timer: NodeJS.Timeout): string {
  const t = timer as unknown as { _idleTimeout: number; _onTimeout?: { name?: string }; _repeat: number | null };
  const callback = t._onTimeout?.name || 'an anonymous function';
  const kind = t._repeat ? `interval every ${t._repeat} ms` : `timer of ${t._idleTimeout} ms`;
  return `${kind} calling ${callback}${timer.hasRef() ? '' : ' (unref’d)'}`;
}

const OTEL = Symbol.for('opentelemetry.js.api.1');
const otelKeys = () => Object.keys((globalThis as Record<symbol, object | undefined>)[OTEL] ?? {}).sort();

/** The Temporal runtime's count of native connections and workers still open. */
function nativeObjectsOpen(): number {
  const runtime = (Runtime as unknown as { _instance?: { backRefs?: Set<unknown> } })._instance;
  return runtime?.backRefs?.size ?? 0;
}

function runtimeSettingsQuiet(): boolean {
  const options = (Runtime as unknown as { defaultOptions?: Record<symbol, unknown> }).defaultOptions;
  return options === undefined || options[QUIET_RUNTIME] === true;
}

// ---- what the process holds as the file starts ----

state.timers.clear();
const startEnv = { ...process.env };
const startResources = resourceCounts();
const startHandles = new Set(activeHandles());
const startGlobals = new Set(Reflect.ownKeys(globalThis));
const startListeners = new Map(process.eventNames().map((e) => [e, new Set(process.listeners(e as never))]));
const startOtel = otelKeys();
const startNative = nativeObjectsOpen();
const startCwd = process.cwd();
const startExitCode = process.exitCode;

function leaks(): string[] {
  const found: string[] = [];
  const resources = resourceCounts();
  const grown = [...resources].filter(([kind, n]) => n > (startResources.get(kind) ?? 0));
  if (grown.length) {
    found.push(
      `still active: ${grown.map(([kind, n]) => `${n - (startResources.get(kind) ?? 0)} ${kind}`).join(', ')}`,
    );
    for (const handle of activeHandles())
      if (!startHandles.has(handle)) found.push(`  - ${describeHandle(handle)}${where(handle)}`);
  }
  const pending = [...state.timers].filter((t) => !(t as { _destroyed?: boolean })._destroyed && !allowedTimer(t));
  for (const timer of pending) found.push(`timer still pending: ${describeTimer(timer)}${where(timer)}`);
  const native = nativeObjectsOpen();
  if (native > startNative) found.push(`Temporal native connections or workers still open: ${native - startNative}`);
  if (!runtimeSettingsQuiet())
    found.push('the Temporal SDK runtime was installed with other settings than test/setup/quiet-runtime.ts');
  const env = { ...process.env };
  for (const key of new Set([...Object.keys(startEnv), ...Object.keys(env)]))
    if (startEnv[key] !== env[key])
      found.push(
        `environment variable ${key} ${startEnv[key] === undefined ? 'set' : env[key] === undefined ? 'removed' : 'changed'}`,
      );
  for (const key of Reflect.ownKeys(globalThis))
    if (!startGlobals.has(key) && !ALLOWED_GLOBALS.has(key)) found.push(`new global: ${String(key)}`);
  for (const event of process.eventNames()) {
    if (typeof event === 'string' && ALLOWED_LISTENER_EVENTS.has(event)) continue;
    const before = startListeners.get(event);
    const added = process
      .listeners(event as never)
      .filter((l: unknown) => !before?.has(l as never) && !isSignalExitListener(l));
    if (added.length) found.push(`process listeners added for ${String(event)}: ${added.length}`);
  }
  if (process.cwd() !== startCwd) found.push(`working directory changed to ${process.cwd()}`);
  if (process.exitCode !== startExitCode) found.push(`process.exitCode set to ${String(process.exitCode)}`);
  const otel = otelKeys();
  if (otel.join() !== startOtel.join())
    found.push(`OpenTelemetry globals registered: ${otel.filter((k) => !startOtel.includes(k)).join(', ')}`);
  return found;
}

afterAll(async () => {
  const deadline = Date.now() + SETTLE_MS;
  let found = leaks();
  while (found.length && Date.now() < deadline) {
    await new Promise<void>((resolve) => {
      // The guard's own wait, not the file's: out of the record.
      state.timers.delete(setTimeout(resolve, 50));
    });
    found = leaks();
  }
  // This file's own waiting timers are finished by now; the next file starts with a clean record.
  state.timers.clear();
  if (found.length)
    throw new Error(
      `This file left things behind in the test process, which later files in it would meet ` +
        `(close what the file starts, restore what it sets; test/setup/leak-guard.ts):\n${found.join('\n')}`,
    );
}, SETTLE_MS + 10_000);
