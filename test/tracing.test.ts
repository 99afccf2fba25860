/**
 * Tracing: one flow started through the thin client gives ONE trace whose tree is
 * client start -> workflow run -> activity start -> activity run -> backend calls,
 * with token counts on model spans and rows/bytes on warehouse spans. Spans go to an
 * in-memory exporter instead of OTLP.
 */
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { connectClient, startFlow } from '../access/flow-client';
import { bomQuestionFlow } from '../flows/bom/contract';
import { setupTracing } from '../plumbing/tracing';
import { TRACING_FOLLOWS_START } from '../flows/lib/workflow/tracing-interceptors';
import { startBigQueryFake } from './fakes/bigquery';
import { createHarness, type Harness } from './helpers/harness';

const exporter = new InMemorySpanExporter();
let h: Harness;

beforeAll(async () => {
  // Before the worker is built: its activity interceptors and workflow-span sink use this provider.
  setupTracing({}, 'agent-flows-test', { exporter });
  h = await createHarness();
}, 120_000);

afterAll(async () => {
  await h?.close();
});

const parentOf = (span: ReadableSpan) => span.parentSpanId;

describe('tracing', () => {
  it('one BOM question is one trace: client start, workflow, activities, model, search, warehouse', async () => {
    exporter.reset();
    const client = await connectClient({ address: inject('temporalAddress'), namespace: 'default' });
    try {
      const handle = await startFlow(
        client,
        bomQuestionFlow,
        { question: 'Which BOMs use fuse components?', maxStrategies: 2 },
        {
          taskQueue: h.taskQueue,
        },
      );
      await handle.result();
    } finally {
      await client.connection.close();
    }
    // Workflow spans arrive through the sink after the last workflow task: wait for the run span.
    const deadline = Date.now() + 10_000;
    while (!exporter.getFinishedSpans().some((s) => s.name.startsWith('RunWorkflow:')) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
    }
    const spans = exporter.getFinishedSpans();
    const byId = new Map(spans.map((s) => [s.spanContext().spanId, s]));
    const names = spans.map((s) => s.name);

    const root = spans.find((s) => s.name === 'StartWorkflow:answerBomQuestion');
    expect(root, names.join(', ')).toBeDefined();
    expect(parentOf(root!)).toBeUndefined();
    const traceId = root!.spanContext().traceId;
    // Everything the flow did is in the client's trace.
    expect(new Set(spans.map((s) => s.spanContext().traceId))).toEqual(new Set([traceId]));

    const run = spans.find((s) => s.name === 'RunWorkflow:answerBomQuestion');
    expect(run).toBeDefined();
    expect(parentOf(run!)).toBe(root!.spanContext().spanId);

    /** The chain of span names from a span up to the root. */
    const ancestry = (span: ReadableSpan): string[] => {
      const chain: string[] = [];
      for (let s: ReadableSpan | undefined = span; s; s = s.parentSpanId ? byId.get(s.parentSpanId) : undefined)
        chain.push(s.name);
      return chain;
    };

    const activityRuns = spans.filter((s) => s.name.startsWith('RunActivity:'));
    expect(activityRuns.length).toBeGreaterThan(2);
    for (const activity of activityRuns) {
      const chain = ancestry(activity);
      expect(chain[1], chain.join(' <- ')).toMatch(/^StartActivity:/);
      expect(chain).toContain('RunWorkflow:answerBomQuestion');
      expect(chain.at(-1)).toBe('StartWorkflow:answerBomQuestion');
    }

    for (const kind of ['model.generate', 'search.request', 'warehouse.query']) {
      const calls = spans.filter((s) => s.name === kind);
      expect(calls.length, `${kind} spans among ${names.join(', ')}`).toBeGreaterThan(0);
      for (const call of calls) {
        const chain = ancestry(call);
        // Each backend call sits inside the activity that made it, inside the workflow, inside the start.
        expect(chain[1], chain.join(' <- ')).toMatch(/^RunActivity:/);
        expect(chain.at(-1)).toBe('StartWorkflow:answerBomQuestion');
      }
    }
    const model = spans.find((s) => s.name === 'model.generate')!;
    expect(model.attributes['gen_ai.system']).toBe('standin');
    expect(model.attributes['gen_ai.usage.input_tokens']).toBeGreaterThan(0);
    expect(model.attributes['gen_ai.usage.output_tokens']).toBeGreaterThan(0);
    expect(typeof model.attributes['agent_flows.task']).toBe('string');
    const query = spans.find((s) => s.name === 'warehouse.query')!;
    expect(query.attributes['db.system']).toBe('duckdb');
    expect(typeof query.attributes['db.rows']).toBe('number');
    const search = spans.find((s) => s.name === 'search.request')!;
    expect(search.attributes['search.backend']).toBe('embedded');
    expect(typeof search.attributes['search.hits']).toBe('number');
  }, 120_000);

  it('a flow started without a trace context (as by the temporal CLI) gets activity spans only, and its history says why', async () => {
    exporter.reset();
    // The harness client has no tracing interceptor: the start carries no trace header.
    const handle = await h.start(bomQuestionFlow, { question: 'Which BOMs use fuse components?', maxStrategies: 2 });
    await handle.result();
    const spans = exporter.getFinishedSpans();
    const names = spans.map((s) => s.name);
    // The worker traces its activities (its tracing is on) ...
    expect(names.filter((n) => n.startsWith('RunActivity:')).length, names.join(', ')).toBeGreaterThan(2);
    // ... but the workflow code made no spans: no run span, no activity-start spans.
    expect(names.filter((n) => /^(RunWorkflow|StartActivity):/.test(n))).toEqual([]);
    // The decision is recorded, so a replay on any worker takes the same path.
    const history = await handle.fetchHistory();
    const markerData = (history.events ?? [])
      .flatMap((e) => Object.values(e.markerRecordedEventAttributes?.details ?? {}))
      .flatMap((p) => p.payloads ?? [])
      .map((p) => Buffer.from(p.data ?? []).toString('utf8'));
    expect(markerData.join(' ')).toContain(TRACING_FOLLOWS_START);
  }, 120_000);

  it('a BigQuery job span carries its job id, bytes processed and bytes billed (BigQuery REST fake)', async () => {
    const fake = await startBigQueryFake();
    try {
      exporter.reset();
      const bq = fake.warehouse();
      const d = bq.dialect;
      const sql = `SELECT ${d.column('part_number')} FROM ${d.table('platform_demo', 'components')} ORDER BY 1`;
      const result = await bq.query({ sql, label: 'traced step' });
      expect(result.bytesBilled).toBeGreaterThan(0);
      // (The fake answers with DuckDB underneath: its own spans are there too.)
      const span = exporter
        .getFinishedSpans()
        .find((s) => s.name === 'warehouse.query' && s.attributes['db.system'] === 'bigquery');
      expect(span?.attributes).toMatchObject({
        'db.system': 'bigquery',
        'agent_flows.step': 'traced step',
        'bigquery.job_id': result.jobId,
        'bigquery.bytes_processed': result.bytesProcessed,
        'bigquery.bytes_billed': result.bytesBilled,
        'db.rows': result.rows.length,
      });
      // The SQL itself is not put on the span (it can hold values from a user's question).
      expect(JSON.stringify(span?.attributes)).not.toContain('part_number');
    } finally {
      await fake.close();
    }
  }, 60_000);
});
