/**
 * The thin CLI: `npm run flow -- <command>`.
 *
 *   flows                          list the flows and their example inputs
 *   start <flow> <json|@file>      start a flow, show live progress, print the result
 *         --detach                 print the id and Web UI link and return at once
 *   status <id> | result <id> | cancel <id>
 *   artifact <ref> [--out <file>]  read an artifact a result names (gs://bucket/key, or a key)
 *                                  through the configured store (ARTIFACT_BUCKET or ARTIFACT_DIR)
 *
 * It talks to Temporal only (settings as the `temporal` CLI: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE...).
 */
import { WorkflowFailedError, type Client, type WorkflowHandle } from '@temporalio/client';
import { Command, CommanderError } from 'commander';
import { closest, distance } from 'fastest-levenshtein';
import { createWriteStream, readFileSync } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { createArtifactStore, type ArtifactStore } from '../backends/artifacts';
import type { Progress } from '../contracts/common';
import { loadConfig, loadConfigOrExit } from '../plumbing/config';
import { findFlow, flows } from '../flows/registry';
import {
  connectClient,
  failureReason,
  InvalidFlowInput,
  startFlow,
  TemporalUnreachable,
  webUiLink,
} from '../access/flow-client';
import { loadTracingSettings, setupTracing } from '../plumbing/tracing';
import { progressQuery } from '../contracts/progress-messages';

function readInput(text: string | undefined): unknown {
  if (text === undefined) return {};
  const source = text.startsWith('@') ? readInputFile(text.slice(1)) : text;
  try {
    return JSON.parse(source);
  } catch (err) {
    throw new Error(
      `input is not valid JSON${text.startsWith('@') ? ` (${text.slice(1)})` : ''}: ${(err as Error).message}`,
    );
  }
}

function readInputFile(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new Error(`input file not found: ${file} (give a path after @, or the JSON itself)`);
    if (code === 'EISDIR') throw new Error(`input file is a folder: ${file}`);
    throw new Error(`cannot read the input file ${file}: ${(err as Error).message}`);
  }
}

/** The flow a name means, or an error that lists them and suggests the nearest. */
export function flowNamed(name: string) {
  const flow = findFlow(name);
  if (flow) return flow;
  const names = flows.flatMap((f) => [f.type, f.slug]);
  const nearest = closest(
    name.toLowerCase(),
    names.map((n) => n.toLowerCase()),
  );
  const suggestion = names.find((n) => n.toLowerCase() === nearest)!;
  const close = distance(name.toLowerCase(), nearest) <= Math.max(2, Math.floor(nearest.length / 3));
  throw new Error(
    `unknown flow "${name.slice(0, 60)}"${close ? `; did you mean ${suggestion}?` : ''} ` +
      `(known: ${flows.map((f) => f.type).join(', ')}; \`npm run flow -- flows\` lists them)`,
  );
}

/** The result lines people read, from a flow's own summary of its output. */
function describeOutput(type: string, result: unknown): string[] {
  const flow = findFlow(type);
  const parsed = flow?.output.safeParse(result);
  return flow && parsed?.success ? flow.describeResult(parsed.data) : [JSON.stringify(result)];
}

function formatProgress(p: Progress): string {
  const count = p.total !== null ? ` ${p.done}/${p.total}` : '';
  return `  … ${p.stage} [${p.status}${count}]${p.detail ? ` ${p.detail}` : ''}${p.tokens ? ` (${p.tokens} tokens)` : ''}`;
}

/**
 * The progress query reports what the workflow last said about itself; a workflow cancelled or
 * terminated while waiting never says more, so its last "running" is labelled with the real
 * status from describe().
 */
export function formatStatusProgress(p: Progress, workflowStatus: string): string {
  const line = formatProgress(p);
  const stillActive = p.status === 'running' || p.status === 'waiting';
  return workflowStatus !== 'RUNNING' && stillActive
    ? `${line} — last progress reported; the workflow is ${workflowStatus}`
    : line;
}

/** Polls the `progress` query and prints each change until the workflow finishes. */
export async function followProgress(
  handle: WorkflowHandle,
  print: (line: string) => void,
  everyMs = 500,
): Promise<unknown> {
  let last = '';
  let finished = false;
  const result = handle.result().finally(() => {
    finished = true;
  });
  const poll = (async () => {
    while (!finished) {
      try {
        const line = formatProgress(await handle.query(progressQuery));
        if (line !== last) print((last = line));
      } catch {
        // Not answerable yet (no worker has run the first task) or already closed.
      }
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  try {
    return await result;
  } finally {
    await poll;
  }
}

async function withClient<T>(work: (client: Client) => Promise<T>): Promise<T> {
  const client = await connectClient();
  try {
    return await work(client);
  } finally {
    await client.connection.close();
  }
}

export interface CliDeps {
  /** The artifact store (default: the one the configuration names, as the worker and console use). */
  artifacts?: () => Promise<ArtifactStore>;
  /** Where `artifact` without --out writes the bytes (default: standard output). */
  stdout?: NodeJS.WritableStream;
}

export function buildProgram(out: (line: string) => void = console.log, deps: CliDeps = {}): Command {
  const program = new Command('agent-flows')
    .description('Start and inspect agent-flows workflows on Temporal')
    .showHelpAfterError();

  program
    .command('flows')
    .description('list the flows, their workflow types and an example input')
    .action(() => {
      for (const flow of flows) {
        out(
          `${flow.slug.padEnd(26)} type=${flow.type}\n${' '.repeat(27)}${flow.description}\n${' '.repeat(27)}example: ${JSON.stringify(flow.examples[0])}`,
        );
      }
    });

  program
    .command('start')
    .description('start a flow with a JSON input (inline or @file)')
    .argument('<flow>', 'workflow type or slug, e.g. answerBomQuestion')
    .argument('[input]', 'JSON object, or @path/to/file.json')
    .option('--id <workflowId>', 'explicit workflow id (default: <slug>-<key>-<suffix>)')
    .option('--detach', 'return after starting, without waiting for the result')
    .option('--json', 'print only the result JSON')
    .action(
      async (name: string, inputText: string | undefined, opts: { id?: string; detach?: boolean; json?: boolean }) => {
        const flow = flowNamed(name);
        const input = readInput(inputText);
        await withClient(async (client) => {
          const handle = await startFlow(client, flow, input, { workflowId: opts.id });
          const link = webUiLink(client.options.namespace, handle.workflowId, handle.firstExecutionRunId);
          if (!opts.json) out(`started ${flow.type} ${handle.workflowId}\n  web ui: ${link}`);
          if (opts.detach) return;
          const result = await followProgress(handle, opts.json ? () => undefined : out);
          if (opts.json) out(JSON.stringify(result, null, 2));
          else {
            out(`completed ${handle.workflowId}`);
            for (const line of describeOutput(flow.type, result)) out(`  ${line}`);
          }
        });
      },
    );

  program
    .command('status')
    .description('show a workflow status and its progress')
    .argument('<workflowId>')
    .action(async (workflowId: string) => {
      await withClient(async (client) => {
        const handle = client.workflow.getHandle(workflowId);
        const description = await handle.describe();
        const state = description.status.name;
        out(
          `${workflowId} ${description.type} ${state} (started ${description.startTime.toISOString()}${description.closeTime ? `, closed ${description.closeTime.toISOString()}` : ''})`,
        );
        out(`  web ui: ${webUiLink(client.options.namespace, workflowId, description.runId)}`);
        let progress: Progress | undefined;
        try {
          progress = await handle.query(progressQuery);
        } catch {
          // closed workflows without a worker cannot answer queries
        }
        if (progress) out(formatStatusProgress(progress, state));
      });
    });

  program
    .command('result')
    .description('wait for a workflow and print its result as `start` does (--json: the result JSON)')
    .argument('<workflowId>')
    .option('--json', 'print only the result JSON')
    .action(async (workflowId: string, opts: { json?: boolean }) => {
      await withClient(async (client) => {
        const handle = client.workflow.getHandle(workflowId);
        const result = await handle.result();
        if (opts.json) return out(JSON.stringify(result, null, 2));
        const { type } = await handle.describe();
        out(`completed ${workflowId} (${type})`);
        for (const line of describeOutput(type, result)) out(`  ${line}`);
      });
    });

  program
    .command('cancel')
    .description('request cancellation of a workflow')
    .argument('<workflowId>')
    .action(async (workflowId: string) => {
      await withClient(async (client) => {
        const handle = client.workflow.getHandle(workflowId);
        const { status } = await handle.describe();
        // Temporal accepts a cancel request for a closed run and does nothing with it.
        if (status.name !== 'RUNNING') throw new Error(`${workflowId} is already ${status.name}: nothing to cancel`);
        await handle.cancel();
        out(`cancellation requested for ${workflowId}`);
      });
    });

  program
    .command('artifact')
    .description('read an artifact a result names (gs://bucket/key or a key) through the configured store')
    .argument('<ref>', 'the reference in the result (pdf.ref, chart.refs.svg...)')
    .option('--out <file>', 'write it to this file (default: standard output)')
    .action(async (ref: string, opts: { out?: string }) => {
      const store = await (deps.artifacts ?? (() => createArtifactStore(loadConfig())))();
      const key = store.keyOf(ref);
      // The same check the console makes: another bucket, '..', an absolute path are not ours to read.
      if (!key) throw new Error(`not an artifact of ${store.root}: ${JSON.stringify(ref.slice(0, 80))}`);
      const object = await store.open(key);
      if (!object) throw new Error(`no artifact ${key} in ${store.root}`);
      if (!opts.out) return pipeline(object.stream, deps.stdout ?? process.stdout, { end: false });
      await pipeline(object.stream, createWriteStream(opts.out));
      out(`wrote ${opts.out} (${object.contentType}) from ${store.root}/${key}`);
    });

  return program;
}

export async function main(argv: string[]): Promise<number> {
  try {
    await buildProgram().exitOverride().parseAsync(argv, { from: 'user' });
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode;
    if (err instanceof InvalidFlowInput || err instanceof TemporalUnreachable) console.error(err.message);
    else if (err instanceof WorkflowFailedError) console.error(`workflow failed: ${failureReason(err)}`);
    else console.error(err instanceof Error ? err.message : String(err));
    return 1;
  }
}

if (require.main === module) {
  // Exit 2 naming any invalid variable (TEMPORAL_ADDRESS, AGENT_FLOWS_PAYLOAD_KEY...) before connecting.
  loadConfigOrExit();
  // OTEL_EXPORTER_OTLP_ENDPOINT set: the start's span is the root of the flow's trace (flushed before exit).
  const tracing = setupTracing(loadTracingSettings(), 'agent-flows-cli');
  void main(process.argv.slice(2)).then(async (code) => {
    await tracing.shutdown().catch(() => undefined);
    process.exit(code);
  });
}
