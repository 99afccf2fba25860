/**
 * Capability discovery under load: 500 registered agents × 20 capabilities, one control-plane
 * process, autocannon as the client. Prints requests per second, p50/p95/p99 latency with and
 * without schemas, the cache hit rate (from /metrics) and the server's RSS: each scenario's own
 * peak (VmHWM reset before it) and the run's. The last scenario registers a new version of one
 * agent every second while distinct queries run, so the registry changes under load.
 *
 *   npx tsx bench/control-plane.ts [seconds per scenario = 10] [connections = 10] [mode names containing…]
 *
 * The server runs in three ways: compiled to JavaScript (tsc → out/bench-control-plane/) on
 * plain node with V8's default heap sizing and compiler; the same with the memory flags the npm
 * script, docker-compose.yml and deploy/k8s use (`--optimize-for-size --max-semi-space-size=1`:
 * V8 otherwise lets a busy heap grow far past the live data; `--no-opt`, no TurboFan, saved ~10 MB
 * but cut the request rate to a quarter on a quiet machine, so it is not used); and exactly as
 * `npm run control-plane` runs it
 * from the sources (those flags + the tsx loader, which alone costs ~20-40 MB).
 * Targets: p95 < 10 ms, ≥ 2,000 req/s, RSS < 100 MB.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { syntheticAgent } from './synthetic-agents';
import { freePort } from '../workers/dev-server';
import { emitSummary } from './summary';
import { npmScriptLaunch } from './npm-script';

interface AutocannonResult {
  requests: { average: number; total: number };
  throughput: { average: number };
  errors: number;
  non2xx: number;
  latency: { p50: number; p99: number };
}
type AutocannonRequest = { method?: string; path: string };
type Instance = PromiseLike<AutocannonResult> & {
  on(event: 'response', fn: (client: unknown, status: number, bytes: number, ms: number) => void): void;
};
// autocannon ships no type declarations.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const autocannon = require('autocannon') as (opts: Record<string, unknown>) => Instance;

const ROOT = path.resolve(__dirname, '..');
const AGENTS = 500;
const CAPABILITIES = 20;
const API = '/api/v1/discovery/capabilities';

const distinctQuery = () => {
  const id = () => `agent-${String(1 + Math.floor(Math.random() * AGENTS)).padStart(4, '0')}`;
  const tags = ['ml*', 'nlp', '*search', 'web', 'vision', 'data'];
  return `?agent_ids=${id()},${id()},${id()}&tags=${tags[Math.floor(Math.random() * tags.length)]}&include_input_schema=${Math.random() < 0.5}`;
};

/** `churn`: meanwhile, one agent a second registers a new version, so the registry is read again each time. */
const scenarios: Array<{ name: string; paths?: string[]; random?: () => string; churn?: boolean }> = [
  {
    name: 'no schemas (query mix)',
    paths: [
      '?limit=20',
      '?tags=nlp*&limit=50',
      '?agent=agent-0042',
      '?reasoner=*research*&format=compact&limit=10',
      '?format=xml&limit=10',
      '?health_status=active&limit=20&include_descriptions=false',
    ],
  },
  {
    name: 'with schemas (query mix)',
    paths: [
      '?agent_ids=agent-0001,agent-0002,agent-0003&include_input_schema=true&include_output_schema=true',
      '?tags=vision&include_input_schema=true&limit=10',
      '?reasoner=deep_*&include_input_schema=true&include_output_schema=true&include_examples=true&limit=5',
    ],
  },
  {
    name: 'distinct queries (each rendered anew)',
    random: distinctQuery,
  },
  { name: 'default page (100 agents, ~2,000 capabilities)', paths: ['?'] },
  { name: 'distinct queries + a new agent version every second', random: distinctQuery, churn: true },
];

function rssMb(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? 0);
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
}

/** Resets the process's peak RSS (VmHWM), so each scenario's own peak can be read after it. */
function resetPeak(pid: number): void {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
  } catch {
    // Not allowed here: the peaks printed are then running maxima.
  }
}

function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function waitUp(url: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    try {
      if ((await fetch(`${url}/healthz`)).ok) return;
    } catch {
      // not yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`control plane at ${url} did not come up`);
}

/** The node flags and variables of `npm run control-plane` (the image and k8s use the same). */
const { nodeFlags: MEMORY_FLAGS, env: MEMORY_ENV } = npmScriptLaunch('control-plane');
const COMPILED = path.join(ROOT, 'out', 'bench-control-plane', 'server', 'main.js');
const modes = [
  { name: 'compiled, default V8 heap', args: [COMPILED], env: {} },
  { name: 'compiled, memory flags', args: [...MEMORY_FLAGS, COMPILED], env: MEMORY_ENV },
  {
    name: 'npm run control-plane (memory flags + tsx loader)',
    args: [...MEMORY_FLAGS, '--import', 'tsx', 'server/main.ts'],
    env: MEMORY_ENV,
  },
];
type Mode = (typeof modes)[number];

async function startServer(mode: Mode, port: number, store: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, mode.args, {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      CONTROL_PLANE_PORT: String(port),
      CONTROL_PLANE_HOST: '127.0.0.1',
      CONTROL_PLANE_STORE: store,
      LOG_LEVEL: 'info',
      ...mode.env,
    },
    // JSON logs (one line per request) are written as in production, then discarded.
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  await waitUp(`http://127.0.0.1:${port}`);
  return child;
}

async function postAgent(url: string, agent: object): Promise<void> {
  const res = await fetch(`${url}/api/v1/agents`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(agent),
  });
  if (res.status !== 201 && res.status !== 200) throw new Error(`registration: HTTP ${res.status} ${await res.text()}`);
}

/** Re-registers agents 1, 2, 3... with a new version once a second until stopped; returns how many. */
function churn(url: string): { stop: () => Promise<number> } {
  let running = true;
  let count = 0;
  const loop = (async () => {
    while (running) {
      count += 1;
      await postAgent(url, {
        ...syntheticAgent(1 + (count % AGENTS), { capabilities: CAPABILITIES }),
        version: `2.0.${count}`,
      });
      await new Promise((r) => setTimeout(r, 1000));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return count;
    },
  };
}

async function register(url: string): Promise<number> {
  const t0 = performance.now();
  let next = 1;
  await Promise.all(
    Array.from({ length: 20 }, async () => {
      while (next <= AGENTS) {
        const i = next++;
        await postAgent(url, syntheticAgent(i, { capabilities: CAPABILITIES }));
      }
    }),
  );
  return performance.now() - t0;
}

async function metric(url: string, name: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
}

async function runMode(mode: Mode, seconds: number, connections: number) {
  const port = await freePort();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'cp-bench-'));
  const url = `http://127.0.0.1:${port}`;
  const server = await startServer(mode, port, path.join(dir, 'agents.jsonl'));
  const rssSamples: number[] = [];
  const sampler = setInterval(() => rssSamples.push(rssMb(server.pid!).rss), 250);
  try {
    const registerMs = await register(url);
    const sizes: Record<string, number> = {};
    for (const s of scenarios)
      for (const p of s.paths ?? []) sizes[p] = (await (await fetch(`${url}${API}${p}`)).text()).length;
    console.log(
      `\n## ${mode.name}: ${AGENTS} agents × ${CAPABILITIES} capabilities registered in ${(registerMs / 1000).toFixed(1)} s; idle RSS ${rssMb(server.pid!).rss.toFixed(0)} MB`,
    );
    console.log('| scenario | req/s | p50 ms | p95 ms | p99 ms | errors | avg body | peak RSS |');
    console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
    let peak = rssMb(server.pid!).peak;
    const rows = [];
    for (const s of scenarios) {
      const times: number[] = [];
      let bytes = 0;
      resetPeak(server.pid!);
      const registrations = s.churn ? churn(url) : undefined;
      const instance = autocannon({
        url,
        connections,
        duration: seconds,
        ...(s.paths
          ? { requests: s.paths.map((p): AutocannonRequest => ({ method: 'GET', path: `${API}${p}` })) }
          : {}),
        ...(s.random
          ? {
              requests: [
                { method: 'GET', setupRequest: (req: AutocannonRequest) => ({ ...req, path: `${API}${s.random!()}` }) },
              ],
            }
          : {}),
      });
      instance.on('response', (_c, _status, resBytes, ms) => {
        times.push(ms);
        bytes += resBytes;
      });
      const result = await instance;
      const registered = await registrations?.stop();
      times.sort((a, b) => a - b);
      const row = {
        scenario: registered ? s.name.replace('every second', `every second (${registered})`) : s.name,
        rps: result.requests.average,
        p50: percentile(times, 50),
        p95: percentile(times, 95),
        p99: percentile(times, 99),
        errors: result.errors + result.non2xx,
        avgBody: times.length ? bytes / times.length : 0,
        peak: rssMb(server.pid!).peak,
      };
      peak = Math.max(peak, row.peak);
      rows.push(row);
      console.log(
        `| ${row.scenario} | ${row.rps.toFixed(0)} | ${row.p50.toFixed(2)} | ${row.p95.toFixed(2)} | ${row.p99.toFixed(2)} | ${row.errors} | ${(row.avgBody / 1024).toFixed(1)} KB | ${row.peak.toFixed(0)} MB |`,
      );
    }
    const hits = await metric(url, 'agentfield_discovery_cache_hits_total');
    const misses = await metric(url, 'agentfield_discovery_cache_misses_total');
    const memo = await metric(url, 'agentfield_discovery_response_memo_hits_total');
    const { rss } = rssMb(server.pid!);
    const maxSampled = Math.max(...rssSamples);
    console.log(
      `cache: ${hits} hits, ${misses} misses → hit rate ${((100 * hits) / (hits + misses)).toFixed(3)} %; rendered-response memo hits ${memo}`,
    );
    console.log(
      `RSS: now ${rss.toFixed(0)} MB, peak (VmHWM, highest of the scenarios) ${peak.toFixed(0)} MB, max sampled under load ${maxSampled.toFixed(0)} MB`,
    );
    return { rows, hits, misses, rss, peak };
  } finally {
    clearInterval(sampler);
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
    rmSync(dir, { recursive: true, force: true });
  }
}

function compile(): void {
  const outDir = path.join(ROOT, 'out', 'bench-control-plane');
  rmSync(outDir, { recursive: true, force: true });
  const t0 = performance.now();
  try {
    execFileSync(
      process.execPath,
      [
        path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'),
        '--outDir',
        outDir,
        '--rootDir',
        ROOT,
        '--module',
        'commonjs',
        '--moduleResolution',
        'node10',
        '--target',
        'es2022',
        '--esModuleInterop',
        '--skipLibCheck',
        '--resolveJsonModule',
        '--types',
        'node',
        path.join(ROOT, 'server', 'main.ts'),
      ],
      { cwd: ROOT, stdio: 'pipe' },
    );
  } catch {
    // Type errors elsewhere in the tree (work in progress) do not stop tsc from emitting.
  }
  console.log(`compiled the control plane with tsc in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}

async function main() {
  const seconds = Number(process.argv[2] ?? 10);
  const connections = Number(process.argv[3] ?? 10);
  console.log(
    `# control-plane discovery bench: ${os.cpus().length} cores (shared with other work; load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}), ${seconds} s per scenario, ${connections} connections, node ${process.version}`,
  );
  const only = process.argv[4];
  compile();
  const results = [];
  for (const mode of modes.filter((m) => !only || m.name.includes(only)))
    results.push({ mode, ...(await runMode(mode, seconds, connections)) });
  console.log('\n## targets (no-schema query mix): p95 < 10 ms, ≥ 2,000 req/s, peak RSS < 100 MB');
  for (const r of results) {
    const row = r.rows[0];
    emitSummary('control-plane', { mode: r.mode.name, rps: row.rps, p95Ms: row.p95, rssPeakMb: r.peak });
    console.log(
      `- ${r.mode.name}: p95 ${row.p95.toFixed(2)} ms (${row.p95 < 10 ? 'met' : 'MISSED'}), ${row.rps.toFixed(0)} req/s (${row.rps >= 2000 ? 'met' : 'MISSED'}), peak RSS ${r.peak.toFixed(0)} MB (${r.peak < 100 ? 'met' : 'MISSED'})`,
    );
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
