/**
 * answerBomQuestion under load, on the embedded stack (own dev server, stand-in, DuckDB, one
 * worker in this process):
 *
 *   npx tsx bench/bom.ts [--questions 200] [--concurrency 50] [--model-latency-ms 0]
 *
 * Runs the same question mix twice — query reuse on (the default) and off — and prints
 * questions/min, p50/p95 latency (start → result), tokens per question from the model's reported
 * usage, the share of questions answered by each strategy / reuse / no result, and what query
 * reuse changes for the questions it applies to. Figures, never assertions.
 */
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { createBackends, type Backends } from '../backends';
import { emitSummary } from './summary';
import type { Warehouse } from '../backends/warehouse/types';
import { bomQuestionFlow, type BomQuestionOutput } from '../flows/bom/contract';
import { parseConfig } from '../plumbing/config';
import { startFlow } from '../access/flow-client';
import { startStandin } from '../standin/server';
import { freePort, startDevServer } from '../workers/dev-server';
import { createFlowWorker } from '../workers/worker';

const { values: args } = parseArgs({
  options: {
    questions: { type: 'string', default: '200' },
    concurrency: { type: 'string', default: '50' },
    'model-latency-ms': { type: 'string', default: '0' },
  },
});
const QUESTIONS = Number(args.questions);
const CONCURRENCY = Number(args.concurrency);
const MODEL_LATENCY = Number(args['model-latency-ms']);

/** A deterministic mix of realistic questions: component kinds in several phrasings, part numbers, no-answer terms. */
function questionMix(n: number): string[] {
  const kinds = [
    'battery',
    'batteries',
    'memory',
    'capacitor',
    'capacitors',
    'resistor',
    'connector',
    'connectors',
    'sensor',
    'microcontroller',
    'display',
    'fuse',
    'fastener',
    'screws',
    'enclosure',
    'cable',
    'led',
    'leds',
    'crystal',
    'inductor',
    'antenna',
    'motor',
    'obsolete',
    'battery or memory',
    'thermistor',
    'polyfuse',
    'hydraulic valves',
    'titanium springs',
    'relay',
  ];
  const phrasings = [
    'Which BOMs use {k} components?',
    'List BOMs using {k}',
    'Show the BOMs that contain {k} parts',
    'Which assemblies have {k} on them?',
  ];
  const parts = [
    'Where is part CMP-{n} used?',
    'What components are in BOM SA-{s}?',
    'Which obsolete components does FG-{f} use?',
    'Which BOMs use component CMP-{n}?',
  ];
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    if (i % 7 === 3) {
      const template = parts[((i / 7) % parts.length) | 0];
      out.push(
        template
          .replace('{n}', String(1 + ((i * 97) % 3400)).padStart(6, '0'))
          .replace('{s}', String(2001 + ((i * 13) % 400)))
          .replace('{f}', String(1001 + ((i * 7) % 200))),
      );
    } else {
      out.push(phrasings[i % phrasings.length].replace('{k}', kinds[(i * 5) % kinds.length]));
    }
  }
  return out;
}

/** Counts warehouse statements (the executed log is bounded, so it cannot be diffed over 200 runs). */
function countingWarehouse(inner: Warehouse): Warehouse & { count: number } {
  // Inherited listColumns / sampleDistinct call `this.query`, so counting query counts them all.
  const counter = Object.create(inner) as Warehouse & { count: number };
  counter.count = 0;
  counter.query = (request) => {
    counter.count++;
    return inner.query(request);
  };
  return counter;
}

interface RunResult {
  question: string;
  ms: number;
  out?: BomQuestionOutput;
  error?: string;
}

async function runBatch(
  client: Client,
  taskQueue: string,
  questions: string[],
): Promise<{ results: RunResult[]; seconds: number }> {
  const results: RunResult[] = [];
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < questions.length) {
        const question = questions[next++];
        const started = performance.now();
        try {
          const handle = await startFlow(client, bomQuestionFlow, { question }, { taskQueue });
          const out = await handle.result();
          results.push({ question, ms: performance.now() - started, out });
        } catch (err) {
          results.push({
            question,
            ms: performance.now() - started,
            error: err instanceof Error ? err.message : String(err),
          });
        }
      }
    }),
  );
  return { results, seconds: (performance.now() - t0) / 1000 };
}

const pct = (sorted: number[], p: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : NaN;
const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN);

function method(out: BomQuestionOutput): string {
  if (out.pipeline_state.reuse.matched && out.pipeline_state.strategy === 0) return 'reused pattern';
  if (out.outcome === 'answered') return `strategy ${out.pipeline_state.strategy}`;
  return out.outcome.replace(/_/g, ' ');
}

function report(label: string, batch: { results: RunResult[]; seconds: number }, queries: number) {
  const ok = batch.results.filter((r) => r.out);
  const latencies = batch.results.map((r) => r.ms).sort((a, b) => a - b);
  const tokens = ok.map((r) => r.out!.usage.totalTokens).sort((a, b) => a - b);
  console.log(
    `\n== ${label}: ${batch.results.length} questions, ${CONCURRENCY} at once, ${batch.seconds.toFixed(1)} s (load average now ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' / ')} on ${os.cpus().length} cores)`,
  );
  console.log(`   throughput      ${((batch.results.length / batch.seconds) * 60).toFixed(0)} questions/min`);
  console.log(
    `   latency         p50 ${pct(latencies, 50).toFixed(0)} ms, p95 ${pct(latencies, 95).toFixed(0)} ms, max ${latencies[latencies.length - 1].toFixed(0)} ms`,
  );
  console.log(
    `   tokens/question mean ${mean(tokens).toFixed(0)}, p95 ${pct(tokens, 95)}, max ${tokens[tokens.length - 1]} (target <= 1500: ${tokens[tokens.length - 1] <= 1500 ? 'met' : 'NOT met'}); model calls/question ${mean(ok.map((r) => r.out!.usage.calls)).toFixed(2)}`,
  );
  console.log(`   warehouse statements/question ${(queries / batch.results.length).toFixed(2)}`);
  const shares = new Map<string, number>();
  for (const r of ok) shares.set(method(r.out!), (shares.get(method(r.out!)) ?? 0) + 1);
  console.log(
    `   answered by     ${[...shares]
      .sort((a, b) => b[1] - a[1])
      .map(([k, v]) => `${k} ${((100 * v) / batch.results.length).toFixed(1)}%`)
      .join(', ')}`,
  );
  const unanswered = [...new Set(ok.filter((r) => r.out!.outcome !== 'answered').map((r) => r.question))];
  console.log(
    `   not answered    ${unanswered.length} distinct: ${unanswered
      .slice(0, 6)
      .map((q) => JSON.stringify(q))
      .join(', ')}${unanswered.length > 6 ? ', …' : ''}`,
  );
  const failed = batch.results.filter((r) => r.error);
  if (failed.length) console.log(`   FAILED          ${failed.length}: ${failed[0].error}`);
}

async function main() {
  Runtime.install({ logger: new DefaultLogger('ERROR'), shutdownSignals: [] });
  const server = await startDevServer({ port: await freePort(), quiet: true });
  const standin = await startStandin({ port: 0, faults: { latencyMs: MODEL_LATENCY } });
  const config = parseConfig({
    AGENT_FLOWS_MODEL: 'standin',
    GOOGLE_GEMINI_BASE_URL: standin.url,
    DUCKDB_PATH: ':memory:',
    WORKER_METRICS_PORT: '0',
    LOG_LEVEL: 'error',
  });
  const created = await createBackends(config);
  const warehouse = countingWarehouse(created.warehouse);
  const nativeConnection = await NativeConnection.connect({ address: server.address });
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection });
  const questions = questionMix(QUESTIONS);

  const runs: Array<{ label: string; reuse: boolean; batch?: { results: RunResult[]; seconds: number } }> = [
    { label: 'query reuse ON (default)', reuse: true },
    { label: 'query reuse OFF', reuse: false },
  ];
  console.log(
    `answerBomQuestion bench: ${QUESTIONS} questions, concurrency ${CONCURRENCY}, stand-in model latency ${MODEL_LATENCY} ms, DuckDB bom_demo, dev server ${server.address}`,
  );
  for (const run of runs) {
    // Each configuration gets its own worker and task queue (the settings come from the worker's config).
    const backends: Backends = { ...created, warehouse, config: { ...config, BOM_QUERY_REUSE_ENABLED: run.reuse } };
    const taskQueue = `bench-bom-${randomUUID().slice(0, 6)}`;
    const worker = await createFlowWorker({ connection: nativeConnection, backends, taskQueue });
    await worker.runUntil(async () => {
      await runBatch(client, taskQueue, questions.slice(0, 5)); // warm-up: bundle load, catalog cache
      const before = warehouse.count;
      run.batch = await runBatch(client, taskQueue, questions);
      report(run.label, run.batch, warehouse.count - before);
      if (run.reuse) {
        const latencies = run.batch.results.map((r) => r.ms).sort((a, b) => a - b);
        emitSummary('bom', {
          concurrency: CONCURRENCY,
          questionsPerMin: (run.batch.results.length / run.batch.seconds) * 60,
          p95Ms: pct(latencies, 95),
        });
      }
    });
  }

  // The effect of reuse on the questions a pattern covers.
  const [on, off] = runs.map((r) => r.batch!.results);
  const covered = new Set(on.filter((r) => r.out && r.out.pipeline_state.reuse.matched).map((r) => r.question));
  const pick = (results: RunResult[]) => results.filter((r) => covered.has(r.question) && r.out);
  const describe = (results: RunResult[]) => {
    const ms = results.map((r) => r.ms).sort((a, b) => a - b);
    return `p50 ${pct(ms, 50).toFixed(0)} ms, tokens ${mean(results.map((r) => r.out!.usage.totalTokens)).toFixed(0)}, model calls ${mean(results.map((r) => r.out!.usage.calls)).toFixed(2)}, answered ${results.filter((r) => r.out!.outcome === 'answered').length}/${results.length}`;
  };
  console.log(
    `\n== query reuse effect on the ${covered.size} distinct question(s) a pattern matched (${pick(on).length} runs)`,
  );
  console.log(`   reuse on : ${describe(pick(on))}`);
  console.log(`   reuse off: ${describe(pick(off))}`);
  const onTokens = mean(on.filter((r) => r.out).map((r) => r.out!.usage.totalTokens));
  const offTokens = mean(off.filter((r) => r.out).map((r) => r.out!.usage.totalTokens));
  console.log(`   whole mix: tokens/question ${onTokens.toFixed(0)} with reuse vs ${offTokens.toFixed(0)} without`);
  console.log(`\n(the seed spends ~3,900 tokens per question; the stand-in counts ~4 characters per token)`);

  await nativeConnection.close();
  await connection.close();
  await created.close();
  await standin.close();
  await server.stop();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
