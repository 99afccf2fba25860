/**
 * Starts the Python solver worker (solver/worker.py: OR-Tools CP-SAT behind a Temporal activity
 * worker on task queue `agent-flows-solver`) as a child process, and stops it.
 *
 * `npm start`, the demo/eval stack and the test harness call it; `npm run solver-worker` runs it
 * alone against TEMPORAL_ADDRESS.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { SOLVER_TASK_QUEUE } from '../contracts/schedule';
import { resolveSolverPython, SOLVER_WORKER_SCRIPT } from './solver-tools';
import type { Logger } from 'pino';
import { errorText, logger, useProcessLogging } from './logger';

export interface SolverWorker {
  process: ChildProcess;
  stop(): Promise<void>;
}

export interface SolverWorkerOptions {
  address: string;
  namespace?: string;
  taskQueue?: string;
  timeLimitSeconds?: number;
  searchWorkers?: number;
  /** Searches run at once (SOLVER_MAX_CONCURRENT, default 2); long jobs take all but one. */
  slots?: number;
  /** A job whose time limit is at most this many seconds is short (SOLVER_SHORT_JOB_SECONDS, default 10). */
  shortJobSeconds?: number;
  /**
   * Log the worker's output, a JSON line (component solver) for each line it prints; otherwise only
   * its warnings and errors are logged (the Temporal core's included), and the rest is kept and
   * shown only if it fails to start.
   */
  verbose?: boolean;
  /** How long to wait for the worker to poll (installing the packages can come first). */
  readyTimeoutMs?: number;
}

export async function startSolverWorker(options: SolverWorkerOptions): Promise<SolverWorker> {
  const python = resolveSolverPython({ quiet: !options.verbose });
  // The Node processes' malloc setting (package.json, Dockerfile) was measured for them, not for CP-SAT.
  const { MALLOC_MMAP_THRESHOLD_: _nodeMallocSetting, ...env } = process.env;
  const child = spawn(python, ['-u', SOLVER_WORKER_SCRIPT], {
    env: {
      ...env,
      TEMPORAL_ADDRESS: options.address,
      TEMPORAL_NAMESPACE: options.namespace ?? 'default',
      SOLVER_TASK_QUEUE: options.taskQueue ?? SOLVER_TASK_QUEUE,
      ...(options.timeLimitSeconds ? { SOLVER_TIME_LIMIT_SECONDS: String(options.timeLimitSeconds) } : {}),
      ...(options.searchWorkers ? { SOLVER_WORKERS: String(options.searchWorkers) } : {}),
      ...(options.slots ? { SOLVER_MAX_CONCURRENT: String(options.slots) } : {}),
      ...(options.shortJobSeconds ? { SOLVER_SHORT_JOB_SECONDS: String(options.shortJobSeconds) } : {}),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const log = logger('solver');
  // The Python worker prints JSON lines (solver/worker.py: its own, Python's and the Temporal
  // core's); each becomes one of ours. Anything else it prints (a crash's traceback) becomes a line
  // each, stderr's as warnings.
  const relay = (level: 'info' | 'warn') => {
    let partial = '';
    return (chunk: Buffer) => {
      const lines = (partial + chunk.toString()).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) relayLine(log, line, level, { warningsOnly: !options.verbose });
    };
  };
  const relayOut = relay('info');
  const relayErr = relay('warn');
  const keep = (chunk: Buffer, stream: 'stdout' | 'stderr') => {
    output = (output + chunk.toString()).slice(-8000);
    if (stream === 'stdout') relayOut(chunk);
    else if (options.verbose) relayErr(chunk);
  };
  child.stderr!.on('data', (chunk: Buffer) => keep(chunk, 'stderr'));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the solver worker did not start within ${options.readyTimeoutMs ?? 60_000} ms:\n${output}`));
    }, options.readyTimeoutMs ?? 60_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      keep(chunk, 'stdout');
      if (/"message": ?"polling task queue"/.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the solver worker exited (code ${code}) before polling:\n${output}`));
    });
  });
  return {
    process: child,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

const LEVELS = new Set(['debug', 'info', 'warn', 'error']);
/** Colour codes and other control characters, which a terminal would act on: never passed on. */
const CONTROL = /\u001b\[[0-9;?]*[ -/]*[@-~]|[\u0000-\u0008\u000b-\u001f\u007f]/g;

/**
 * One line of the Python worker's output as a JSON line of ours, its level and fields kept. With
 * `warningsOnly`, only its JSON lines at warn and error are written.
 */
export function relayLine(
  log: Logger,
  line: string,
  fallback: 'info' | 'warn',
  options: { warningsOnly?: boolean } = {},
): void {
  const text = line.trimEnd();
  if (!text) return;
  let parsed: unknown;
  try {
    parsed = text.startsWith('{') ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
    const {
      level,
      message,
      timestamp: _timestamp,
      component: _component,
      ...fields
    } = parsed as Record<string, unknown>;
    const at =
      typeof level === 'string' && LEVELS.has(level) ? (level as 'debug' | 'info' | 'warn' | 'error') : fallback;
    if (options.warningsOnly && at !== 'warn' && at !== 'error') return;
    log[at]({ source: 'python', ...fields }, String(message ?? '').replace(CONTROL, ''));
  } else if (!options.warningsOnly) {
    log[fallback]({ source: 'python' }, text.replace(CONTROL, ''));
  }
}

if (require.main === module) {
  const log = useProcessLogging('solver');
  startSolverWorker({
    address: process.env.TEMPORAL_ADDRESS ?? '127.0.0.1:7233',
    namespace: process.env.TEMPORAL_NAMESPACE,
    verbose: true,
  }).then(
    (worker) => {
      for (const signal of ['SIGINT', 'SIGTERM'] as const)
        process.on(signal, () => void worker.stop().then(() => process.exit(0)));
      worker.process.once('exit', (code) => process.exit(code ?? 1));
    },
    (err) => {
      log.error(errorText(err));
      process.exit(1);
    },
  );
}
