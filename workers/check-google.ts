/**
 * `npm run check:google`: what works on the configured Google services, what is missing, and what
 * the check cost. First each backend on its own (a tiny model call, the BOM dataset's columns, one
 * search per data store), then one run of each flow through Temporal on a worker of its own (its
 * own task queue, so a running `npm start` is not disturbed). Each failure is named with what to
 * do: an API not enabled, a data store absent, a permission missing, credentials.
 *
 *   npm run check:google                 # needs the Google settings in the environment or .env
 *
 * Exit 0 when everything works, 1 when something does not, 2 for invalid settings.
 */
import { Client, Connection } from '@temporalio/client';
import { loadClientConnectConfig } from '@temporalio/envconfig';
import { rootCause } from '@temporalio/common';
import { NativeConnection } from '@temporalio/worker';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { createBackends, type Backends } from '../backends';
import { startFlow } from '../access/flow-client';
import { bomQuestionFlow } from '../flows/bom/contract';
import { addUsage, zeroUsage, type FlowDefinition, type TokenUsage } from '../contracts/common';
import { loadConfigOrExit, type Config } from '../plumbing/config';
import { discoverFromPrpFlow } from '../flows/discovery/contract';
import { platformCheckFlow } from '../flows/platform/contract';
import { researchProposalFlow } from '../flows/proposal/contract';
import { createFlowWorker, prebuiltWorkflowBundle } from './worker';

export interface CheckLine {
  what: string;
  ok: boolean;
  detail: string;
  /** What to do about a failure, when the error says. */
  fix?: string;
}

export interface GoogleCheckReport {
  lines: CheckLine[];
  usage: TokenUsage;
  bytesBilled: number;
  ok: boolean;
}

/** The search collections the flows read, each a data store `<prefix><collection>`. */
const COLLECTIONS = ['platform-docs', 'bom-schema', 'bom-query-patterns', 'table-catalog', 'literature'];

/** What a Google error means for the user, from the status and message it carries. */
export function diagnose(message: string): string | undefined {
  if (/SERVICE_DISABLED|has not been used in project|is disabled|API not enabled|accessNotConfigured/i.test(message))
    return 'the API is not enabled in the project: gcloud services enable <api> (see docs/google.md)';
  if (/DataStore .* not found|dataStores\/[^ ]+ not found|NOT_FOUND.*dataStore/i.test(message))
    return 'the data store does not exist: npm run search:load';
  if (/Not found: Dataset|Not found: Table/i.test(message))
    return 'the BOM dataset is missing: npx tsx data/bigquery/load-bom.ts';
  if (/PERMISSION_DENIED|HTTP 403|accessDenied|does not have .*permission/i.test(message))
    return 'permission denied: grant the role the message names to the credentials in use';
  if (/HTTP 401|UNAUTHENTICATED|invalid authentication|API key not valid/i.test(message))
    return 'credentials refused: check GEMINI_API_KEY or gcloud auth application-default login';
  return undefined;
}

const line = (what: string, result: { ok: true; detail: string } | { ok: false; error: unknown }): CheckLine => {
  if (result.ok) return { what, ok: true, detail: result.detail };
  const message = (rootCause(result.error) ?? String(result.error)).split('\n')[0].slice(0, 300);
  return { what, ok: false, detail: message, fix: diagnose(message) };
};

async function attempt(what: string, probe: () => Promise<string>): Promise<CheckLine> {
  try {
    return line(what, { ok: true, detail: await probe() });
  } catch (error) {
    return line(what, { ok: false, error });
  }
}

/** Each backend on its own: the quickest way to tell a missing API from a flow problem. */
export async function probeBackends(backends: Backends, config: Config): Promise<CheckLine[]> {
  const lines: CheckLine[] = [];
  lines.push(
    await attempt(`model (${backends.model.name} ${config.GEMINI_MODEL})`, async () => {
      const reply = await backends.model.generate({
        task: 'platform.summarize',
        instructions: 'Summarise the topic in one sentence and list no highlights.',
        sections: { topic: 'a connectivity check' },
        schema: z.object({ summary: z.string(), highlights: z.array(z.string()).max(5) }),
      });
      return `answered (${reply.usage.totalTokens} tokens)`;
    }),
  );
  lines.push(
    await attempt(`warehouse (${backends.warehouse.name}) dataset ${config.BOM_DATASET}`, async () => {
      const columns = await backends.warehouse.listColumns(config.BOM_DATASET);
      if (columns.length === 0) throw new Error(`Not found: Dataset ${config.BOM_DATASET} (no columns)`);
      return `${new Set(columns.map((c) => c.table)).size} table(s), ${columns.length} column(s)`;
    }),
  );
  for (const collection of COLLECTIONS) {
    lines.push(
      await attempt(`search (${backends.search.name}) ${collection}`, async () => {
        const { totalSize } = await backends.search.search({ collection, query: 'check', pageSize: 1 });
        return `${totalSize} match(es)`;
      }),
    );
  }
  return lines;
}

const FLOWS: FlowDefinition[] = [platformCheckFlow, bomQuestionFlow, discoverFromPrpFlow, researchProposalFlow];

export interface FlowRunOptions {
  flows?: FlowDefinition[];
  timeoutMs?: number;
  /** A prebuilt workflow bundle (tests, `npm run build`); otherwise the worker bundles at start. */
  workflowBundle?: { codePath: string };
}

/** One run of each flow through Temporal, on a worker with these backends on a task queue of its own. */
export async function runFlows(
  backends: Backends,
  temporal: { client: Client; nativeConnection: NativeConnection; namespace?: string },
  options: FlowRunOptions = {},
): Promise<{ lines: CheckLine[]; usage: TokenUsage }> {
  const { flows = FLOWS, timeoutMs = 300_000 } = options;
  const taskQueue = `check-google-${randomBytes(3).toString('hex')}`;
  const worker = await createFlowWorker({
    connection: temporal.nativeConnection,
    namespace: temporal.namespace,
    backends,
    taskQueue,
    ...(options.workflowBundle ? { workflowBundle: options.workflowBundle } : {}),
  });
  const running = worker.run();
  const lines: CheckLine[] = [];
  let usage = zeroUsage();
  try {
    for (const flow of flows) {
      const started = Date.now();
      try {
        const handle = await startFlow(temporal.client, flow, flow.examples[0], { taskQueue });
        let timer: NodeJS.Timeout | undefined;
        // Cleared once the flow answers: a pending time-out would keep the process up to five minutes.
        const output = await Promise.race([
          handle.result(),
          new Promise<never>((_, reject) => {
            timer = setTimeout(() => reject(new Error(`no result within ${timeoutMs / 1000} s`)), timeoutMs);
          }),
        ]).finally(() => clearTimeout(timer));
        const flowUsage = (output as { usage?: TokenUsage }).usage;
        if (flowUsage) usage = addUsage(usage, flowUsage);
        const summary = flow.describeResult(output)[0] ?? 'completed';
        lines.push(
          line(`flow ${flow.type}`, {
            ok: true,
            detail: `${summary} (${((Date.now() - started) / 1000).toFixed(1)} s)`,
          }),
        );
      } catch (error) {
        lines.push(line(`flow ${flow.type}`, { ok: false, error }));
      }
    }
  } finally {
    worker.shutdown();
    await running.catch(() => undefined);
  }
  return { lines, usage };
}

export function formatReport(report: GoogleCheckReport): string {
  const out = report.lines.map(
    (l) => `${l.ok ? 'ok     ' : 'MISSING'} ${l.what}: ${l.detail}${l.fix ? `\n        → ${l.fix}` : ''}`,
  );
  out.push(
    `cost of this check: ${report.usage.totalTokens} model tokens in ${report.usage.calls} call(s) by the flows; ` +
      `${(report.bytesBilled / 1e6).toFixed(1)} MB billed by BigQuery`,
  );
  out.push(
    report.ok ? 'everything works on the configured services' : 'some services are not ready: see MISSING above',
  );
  return out.join('\n');
}

export async function checkGoogle(
  backends: Backends,
  config: Config,
  temporal?: { client: Client; nativeConnection: NativeConnection; namespace?: string },
  flowOptions: FlowRunOptions = {},
): Promise<GoogleCheckReport> {
  const lines = await probeBackends(backends, config);
  let usage = zeroUsage();
  if (temporal) {
    const flows = await runFlows(backends, temporal, flowOptions);
    lines.push(...flows.lines);
    usage = flows.usage;
  }
  const bytesBilled = backends.warehouse.executed.reduce((sum, q) => sum + (q.bytesBilled ?? 0), 0);
  return { lines, usage, bytesBilled, ok: lines.every((l) => l.ok) };
}

async function main(): Promise<number> {
  const config = loadConfigOrExit();
  const google = [
    config.model !== 'standin',
    config.AGENT_FLOWS_WAREHOUSE === 'bigquery',
    config.AGENT_FLOWS_SEARCH === 'vertex',
  ];
  if (!google.some(Boolean)) {
    console.error(
      '[check:google] no Google backend is configured: set GEMINI_API_KEY (or AGENT_FLOWS_MODEL=vertex), ' +
        'AGENT_FLOWS_WAREHOUSE=bigquery, AGENT_FLOWS_SEARCH=vertex (docs/google.md)',
    );
    return 2;
  }
  const backends = await createBackends(config);
  const { connectionOptions, namespace = 'default' } = loadClientConnectConfig();
  let temporal: { client: Client; nativeConnection: NativeConnection; namespace: string } | undefined;
  try {
    const connection = await Connection.connect(connectionOptions as Parameters<typeof Connection.connect>[0]);
    temporal = {
      client: new Client({ connection, namespace }),
      nativeConnection: await NativeConnection.connect(connectionOptions),
      namespace,
    };
  } catch (err) {
    console.warn(
      `[check:google] Temporal not reachable (${(err as Error).message}): checking the backends only; start it with npm start`,
    );
  }
  try {
    const report = await checkGoogle(backends, config, temporal, { workflowBundle: prebuiltWorkflowBundle() });
    console.log(formatReport(report));
    return report.ok ? 0 : 1;
  } finally {
    await temporal?.client.connection.close();
    await temporal?.nativeConnection.close();
    await backends.close();
  }
}

if (require.main === module) {
  main().then(
    (code) => process.exit(code),
    (err: unknown) => {
      console.error(`[check:google] ${err instanceof Error ? err.message : String(err)}`);
      process.exit(1);
    },
  );
}
