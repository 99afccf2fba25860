/**
 * Research proposal figures on the local stack (dev server, stand-in, embedded search, worker):
 * wall time and tokens per proposal, refinement rounds, PDF render time, throughput with
 * concurrent proposals, and wall time when every model call takes extra latency (as a real
 * model does).
 *
 *   npx tsx bench/proposal.ts [runs=5] [concurrent=8] [latencyMs=300]
 *
 * Figures only, no pass/fail: the machine is shared, so read them as orders of magnitude.
 */
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createBackends } from '../backends';
import { startFlow } from '../access/flow-client';
import { parseConfig } from '../plumbing/config';
import { EXAMPLE_PROFILE, researchProposalFlow, type UserProfile } from '../flows/proposal/contract';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createProposalActivities } from '../flows/proposal/activities';
import { startStandin } from '../standin/server';
import { freePort, startDevServer } from '../workers/dev-server';
import { createFlowWorker } from '../workers/worker';

const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  return { mean: s.reduce((a, b) => a + b, 0) / s.length, p50: q(0.5), p95: q(0.95), max: s[s.length - 1] };
};
const fmt = (ms: number) => `${ms.toFixed(0)} ms`;

/** 4 hours a week for a month: the study cannot fit, so quality control never passes (four versions). */
const TOO_SHORT: UserProfile = {
  ...EXAMPLE_PROFILE,
  weekly_hours: 4,
  total_timeline: { value: 1, unit: 'months' },
};

async function main() {
  const runs = Number(process.argv[2] ?? 5);
  const concurrent = Number(process.argv[3] ?? 8);
  const latencyMs = Number(process.argv[4] ?? 300);
  Runtime.install({ logger: new DefaultLogger('ERROR'), shutdownSignals: [] });
  const artifactDir = mkdtempSync(path.join(os.tmpdir(), 'proposal-bench-'));
  const server = await startDevServer({ port: await freePort(), quiet: true });
  const standin = await startStandin();
  const config = parseConfig({
    AGENT_FLOWS_MODEL: 'standin',
    GOOGLE_GEMINI_BASE_URL: standin.url,
    WORKER_METRICS_PORT: '0',
    ARTIFACT_DIR: artifactDir,
    LOG_LEVEL: 'error',
  });
  const backends = await createBackends(config);
  const nativeConnection = await NativeConnection.connect({ address: server.address });
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection });
  const taskQueue = `bench-proposal-${randomUUID().slice(0, 6)}`;
  const worker = await createFlowWorker({ connection: nativeConnection, backends, taskQueue });

  const runOne = async (profile: UserProfile) => {
    const t0 = performance.now();
    const handle = await startFlow(client, researchProposalFlow, { mode: 'autonomous', profile }, { taskQueue });
    const out = await handle.result();
    if (!out.pdf) throw new Error(`no PDF: ${out.status} ${out.error?.message ?? ''}`);
    return { ms: performance.now() - t0, out };
  };

  const lines: string[] = [];
  await worker.runUntil(async () => {
    await runOne(EXAMPLE_PROFILE); // warm-up: bundle load, search index, fonts

    for (const [label, profile] of [
      ['passes first time (bundled example)', EXAMPLE_PROFILE],
      ['timeline too short (QC never passes: four versions)', TOO_SHORT],
    ] as const) {
      const results = [];
      for (let i = 0; i < runs; i++) results.push(await runOne(profile));
      const w = stats(results.map((r) => r.ms));
      const o = results[0].out;
      const tokens = o.usage.totalTokens;
      lines.push(
        `${label}: ${runs} sequential runs`,
        `  wall time per proposal: mean ${fmt(w.mean)}, p50 ${fmt(w.p50)}, max ${fmt(w.max)}`,
        `  versions ${o.refinement.history.length} (refinements ${o.refinement.refinements}), model calls ${o.usage.calls}, tokens ${tokens} (prompt ${o.usage.promptTokens}, output ${o.usage.outputTokens}), ~${Math.round(tokens / o.refinement.history.length)} tokens per version`,
        `  PDF ${o.pdf!.pages} pages, ${(o.pdf!.bytes / 1024).toFixed(0)} KiB, ${o.pdf!.links} linked references`,
      );
    }

    // Throughput: proposals started together, interleaved by one worker.
    const t0 = performance.now();
    const together = await Promise.all(Array.from({ length: concurrent }, () => runOne(EXAMPLE_PROFILE)));
    const total = performance.now() - t0;
    const w = stats(together.map((r) => r.ms));
    lines.push(
      `${concurrent} concurrent proposals: ${fmt(total)} in total, ${((concurrent / total) * 60_000).toFixed(0)} proposals/min; per proposal p50 ${fmt(w.p50)}, max ${fmt(w.max)}`,
    );

    // With model latency: the stages are sequential, so wall time ≈ calls × latency + overhead.
    standin.setFaults({ latencyMs });
    const slow = await runOne(EXAMPLE_PROFILE);
    standin.setFaults({});
    lines.push(
      `with ${latencyMs} ms per model call: ${fmt(slow.ms)} for ${slow.out.usage.calls} calls (overhead beyond model time ${fmt(slow.ms - slow.out.usage.calls * latencyMs)})`,
    );
  });

  // The PDF render alone (in process, no Temporal), from the last proposal.
  const last = (await runOneOffline()) as number[];
  lines.push(
    `PDF render + write alone: mean ${fmt(stats(last).mean)}, p95 ${fmt(stats(last).p95)} (${last.length} renders)`,
  );

  async function runOneOffline(): Promise<number[]> {
    // Activities need an activity context (heartbeats, workflow id): each call gets the SDK's mock one.
    const direct = createProposalActivities(backends);
    const run =
      <A extends unknown[], R>(fn: (...args: A) => Promise<R>) =>
      (...args: A): Promise<R> =>
        new MockActivityEnvironment().run(fn, ...args);
    const acts = {
      searchLiterature: run(direct.searchLiterature),
      formulateProblem: run(direct.formulateProblem),
      defineObjectives: run(direct.defineObjectives),
      recommendMethodology: run(direct.recommendMethodology),
      planDataCollection: run(direct.planDataCollection),
      checkQuality: run(direct.checkQuality),
      renderProposalPdf: run(direct.renderProposalPdf),
    };
    const hits = await acts.searchLiterature({ profile: EXAMPLE_PROFILE });
    const pf = await acts.formulateProblem({ profile: EXAMPLE_PROFILE, hits, round: 0 });
    const ob = await acts.defineObjectives({ profile: EXAMPLE_PROFILE, problem: pf.definition });
    const me = await acts.recommendMethodology({
      profile: EXAMPLE_PROFILE,
      problem: pf.definition,
      objectives: ob.data,
    });
    const pl = await acts.planDataCollection({ profile: EXAMPLE_PROFILE, objectives: ob.data, methodology: me.data });
    const qc = await acts.checkQuality({
      profile: EXAMPLE_PROFILE,
      problem: pf.definition,
      objectives: ob.data,
      methodology: me.data,
      plan: pl.data,
    });
    const proposal = {
      title: pf.title,
      problem_definition: pf.definition,
      research_objectives: ob.data,
      methodology: me.data,
      data_collection_plan: pl.data,
      quality_validation: qc.data,
    };
    const times: number[] = [];
    for (let i = 0; i < 20; i++) {
      const t = performance.now();
      await acts.renderProposalPdf({
        generatedAt: new Date().toISOString(),
        profile: EXAMPLE_PROFILE,
        proposal,
        history: [],
        chosenRound: 0,
        unresolvedIssues: [],
        review: [],
      });
      times.push(performance.now() - t);
    }
    return times;
  }

  await nativeConnection.close();
  await connection.close();
  await backends.close();
  await standin.close();
  await server.stop();
  rmSync(artifactDir, { recursive: true, force: true });
  console.log(
    `writeResearchProposal bench (local dev server, stand-in model, embedded search; ${os.cpus().length} cores shared with other work)`,
  );
  for (const line of lines) console.log(line);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
