/**
 * Starts the Temporal dev server (from the resolved CLI) as a child process: persistent
 * database file, Web UI, and the search attributes the flows use registered at start.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { FLOW_SEARCH_ATTRIBUTE } from '../contracts/common';
import { portInUseMessage } from '../plumbing/ports';
import { resolveTemporalCli } from './temporal-cli';

/** Custom search attributes every flow relies on. */
export const SEARCH_ATTRIBUTES: Record<string, 'Keyword' | 'Text' | 'Int' | 'Double' | 'Bool' | 'Datetime'> = {
  [FLOW_SEARCH_ATTRIBUTE]: 'Keyword',
};

export interface DevServer {
  address: string;
  uiUrl: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/** True when something accepts TCP connections at host:port. */
export function isListening(address: string, timeoutMs = 500): Promise<boolean> {
  const [host, port] = splitAddress(address);
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

export function splitAddress(address: string): [string, number] {
  const i = address.lastIndexOf(':');
  return [address.slice(0, i) || '127.0.0.1', Number(address.slice(i + 1))];
}

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Flags every dev server the project starts gets. The history service's transfer-queue reader is
 * rate-limited per shard (history.transferProcessorMaxPollRPS, default 20) and the dev server runs
 * one shard, so past ~20 rounds every workflow task waits ~40 ms for it; raising the limit brings a
 * sequential activity from ~50 ms to under 10 ms. WAL mode and normal sync take the SQLite file's
 * fsync cost (5-6 ms a round) off the path; an in-memory database ignores both pragmas' cost.
 * A self-hosted cluster takes the same dynamic-config key (docs/architecture.md).
 */
export const DEV_SERVER_TUNING_ARGS = [
  '--dynamic-config-value',
  'history.transferProcessorMaxPollRPS=1000',
  '--sqlite-pragma',
  'journal_mode=wal',
  '--sqlite-pragma',
  'synchronous=normal',
];

/** The Web UI flags: a UI port (and optional codec endpoint), or headless. */
export function devServerUiArgs(options: { uiPort?: number; uiCodecEndpoint?: string }): string[] {
  if (!options.uiPort) return ['--headless'];
  return [
    '--ui-port',
    String(options.uiPort),
    ...(options.uiCodecEndpoint ? ['--ui-codec-endpoint', options.uiCodecEndpoint] : []),
  ];
}

export async function startDevServer(options: {
  port: number;
  uiPort?: number;
  /** A file keeps workflows across restarts; undefined keeps everything in memory. */
  dbFile?: string;
  namespace?: string;
  quiet?: boolean;
  /** Codec endpoint the Web UI calls to decode encrypted payloads. */
  uiCodecEndpoint?: string;
}): Promise<DevServer> {
  const cli = resolveTemporalCli({ quiet: options.quiet });
  const args = [
    'server',
    'start-dev',
    '--ip',
    '127.0.0.1',
    '--port',
    String(options.port),
    '--namespace',
    options.namespace ?? 'default',
    '--log-level',
    'error',
  ];
  args.push(...DEV_SERVER_TUNING_ARGS, ...devServerUiArgs(options));
  if (options.dbFile) {
    mkdirSync(path.dirname(path.resolve(options.dbFile)), { recursive: true });
    args.push('--db-filename', options.dbFile);
  }
  for (const [name, type] of Object.entries(SEARCH_ATTRIBUTES)) args.push('--search-attribute', `${name}=${type}`);

  // The CLI's own message for a taken port is buried in its log; say which port and what moves it.
  if (options.uiPort && (await isListening(`127.0.0.1:${options.uiPort}`))) {
    throw new Error(
      portInUseMessage("The Temporal dev server's Web UI", `127.0.0.1:${options.uiPort}`, 'TEMPORAL_UI_PORT'),
    );
  }
  const child = spawn(cli.path, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  // The first lines (where a panic names its cause) and the last ones: a crash's goroutine dump
  // can run to many kilobytes and would push the cause out of a tail alone.
  let stderrHead = '';
  let stderrTail = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    const text = chunk.toString();
    const room = Math.max(0, 2000 - stderrHead.length);
    stderrHead += text.slice(0, room);
    stderrTail = (stderrTail + text.slice(room)).slice(-2000);
    stderr = stderrTail ? `${stderrHead}\n…\n${stderrTail}` : stderrHead;
  });
  const address = `127.0.0.1:${options.port}`;
  const deadline = Date.now() + 60_000;
  while (!(await isListening(address))) {
    if (child.exitCode !== null) {
      if (/address already in use/i.test(stderr)) {
        const ports = `127.0.0.1:${options.port}${options.uiPort ? ` or Web UI port ${options.uiPort}` : ''}`;
        throw new Error(
          `${portInUseMessage('The Temporal dev server', ports, 'TEMPORAL_ADDRESS / TEMPORAL_UI_PORT')} (${stderr.trim().split('\n').pop()})`,
        );
      }
      throw new Error(`temporal dev server exited with ${child.exitCode}: ${stderr.trim()}`);
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`temporal dev server did not listen on ${address} within 60 s: ${stderr.trim()}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  const uiUrl = options.uiPort ? `http://127.0.0.1:${options.uiPort}` : '';
  // The Web UI dials the frontend when it starts, before the frontend listens, and backs off: its
  // first requests answer 503 for a few seconds. Ready means the UI can read the namespace.
  if (uiUrl) {
    const uiDeadline = Date.now() + 30_000;
    while (Date.now() < uiDeadline) {
      const ok = await fetch(`${uiUrl}/api/v1/namespaces/${options.namespace ?? 'default'}`)
        .then((r) => r.status !== 503)
        .catch(() => false);
      if (ok) break;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  return {
    address,
    uiUrl,
    process: child,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        child.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}
