/**
 * `npm run proposal:interview`: conducts the research proposal interview in the terminal.
 *
 *   npm run proposal:interview                      start a new interactive proposal
 *   npm run proposal:interview -- --review          ... with the review gate before the PDF
 *   npm run proposal:interview -- --prefill @p.json ... skipping the questions p.json answers
 *   npm run proposal:interview -- --id <workflowId> resume an interview already in progress
 *
 * It waits in the workflow for what comes next (the `nextProposalStep` update replies once the
 * workflow has the next question, the draft to review, or the result; a new interview is started
 * and asked in one call, update-with-start), reads the answer, sends it with the `answerQuestion`
 * update (a rejected answer prints the reason and the same question is asked again), handles the
 * review gate, and prints the result. Closing stdin (Ctrl-D) leaves the interview waiting
 * durably; `--id` picks it up again, from any machine.
 */
import { rootCause } from '@temporalio/common';
import {
  WithStartWorkflowOperation,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  type Client,
  type WorkflowHandle,
} from '@temporalio/client';
import { Command, CommanderError } from 'commander';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { loadConfigOrExit } from '../plumbing/config';
import { researchProposalFlow, type ProposalOutput } from '../flows/proposal/contract';
import {
  answerQuestionUpdate,
  nextProposalStepUpdate,
  reviewProposalUpdate,
  type ProposalStep,
} from '../flows/proposal/messages';
import { connectClient, flowStartOptions, InvalidFlowInput, webUiLink, type FlowWorkflow } from '../access/flow-client';
import { failedProposal } from '../access/proposal-result';

export interface InterviewIO {
  /** Resolves with the next line, or null when input has ended. */
  ask(prompt: string): Promise<string | null>;
  print(line: string): void;
}

/** Line reader over a stream that also works when lines arrive before they are asked for (pipes). */
export function terminalIO(
  input: NodeJS.ReadableStream = process.stdin,
  output: NodeJS.WritableStream = process.stdout,
): InterviewIO & { close(): void } {
  const rl = createInterface({ input, terminal: false });
  const lines: string[] = [];
  const waiting: Array<(line: string | null) => void> = [];
  let closed = false;
  rl.on('line', (line) => (waiting.length ? waiting.shift()!(line) : lines.push(line)));
  rl.on('close', () => {
    closed = true;
    while (waiting.length) waiting.shift()!(null);
  });
  return {
    ask(prompt) {
      output.write(prompt);
      if (lines.length) return Promise.resolve(lines.shift()!);
      if (closed) return Promise.resolve(null);
      return new Promise((resolve) => waiting.push(resolve));
    },
    print: (line) => void output.write(`${line}\n`),
    close: () => rl.close(),
  };
}

const updateError = (err: unknown) =>
  err instanceof WorkflowUpdateFailedError ? (rootCause(err.cause) ?? err.message) : undefined;

/** The server refused an update because the workflow has closed. */
const closedWorkflow = (err: unknown) =>
  err instanceof WorkflowNotFoundError ||
  (err instanceof Error && !(err instanceof WorkflowUpdateFailedError) && /already completed/i.test(err.message));

/** The run's result; a run failed by a stage is shown by the partial result its failure carries. */
async function resultOrPartial(handle: WorkflowHandle): Promise<ProposalOutput> {
  try {
    return (await handle.result()) as ProposalOutput;
  } catch (err) {
    const partial = failedProposal(err);
    if (partial) return partial;
    throw err;
  }
}

/**
 * Runs the interview loop against a workflow until it finishes (returns its result) or input
 * ends (returns undefined; the workflow keeps waiting). Each turn waits in the workflow for the
 * next step; `first` is a step already received (from update-with-start).
 */
export async function conductInterview(
  handle: WorkflowHandle,
  io: InterviewIO,
  options: { first?: ProposalStep } = {},
): Promise<ProposalOutput | undefined> {
  let after: string | undefined;
  let step: ProposalStep | undefined = options.first;
  for (;;) {
    if (!step) {
      try {
        step = await handle.executeUpdate(nextProposalStepUpdate, { args: [after !== undefined ? { after } : {}] });
      } catch (err) {
        // Closed already (a resumed interview that has ended, or one whose stage failed while we
        // waited): its result, or the partial result its failure carries.
        if (!closedWorkflow(err) && (await handle.describe()).status.name === 'RUNNING') throw err;
        step = { kind: 'ended', result: await resultOrPartial(handle) };
      }
    }
    const current: ProposalStep = step;
    step = undefined;
    if (current.kind === 'ended') {
      io.print('');
      for (const line of researchProposalFlow.describeResult(current.result)) io.print(`  ${line}`);
      return current.result;
    }
    if (current.kind === 'question') {
      const q = current.question;
      const answer = await io.ask(`\n(${q.number}/${q.of}) ${q.prompt}\n    ${q.hint}\n> `);
      if (answer === null) {
        io.print(
          `\ninput closed: the interview waits for you. Resume with: npm run proposal:interview -- --id ${handle.workflowId}`,
        );
        return undefined;
      }
      try {
        await handle.executeUpdate(answerQuestionUpdate, { args: [{ answer, questionId: q.id }] });
        after = current.id;
      } catch (err) {
        const reason = updateError(err);
        if (reason === undefined) throw err;
        // Not taken: the same question comes back (unless the interview has moved on).
        io.print(`  ✗ ${reason}`);
      }
      continue;
    }
    const d = current.draft;
    io.print(`\nDraft ready for review: ${d.title}`);
    io.print(`  quality ${d.overall.toFixed(1)}/100, ${d.passed ? 'passed' : 'not passed'}`);
    for (const issue of d.issues) io.print(`  ${issue}`);
    const decision = await io.ask('approve, or request changes? [a/r] > ');
    if (decision === null) {
      io.print(
        `\ninput closed: the review waits for you. Resume with: npm run proposal:interview -- --id ${handle.workflowId}`,
      );
      return undefined;
    }
    const approve = /^a(pprove)?$/i.test(decision.trim());
    const comments = approve ? undefined : await io.ask('what should change? > ');
    if (!approve && comments === null) return undefined;
    try {
      await handle.executeUpdate(reviewProposalUpdate, {
        args: [{ decision: approve ? 'approve' : 'request-changes', ...(comments ? { comments } : {}) }],
      });
      after = current.id;
      io.print(approve ? '  … writing the PDF' : '  … refining the proposal');
    } catch (err) {
      const reason = updateError(err);
      if (reason === undefined) throw err;
      io.print(`  ✗ ${reason}`);
    }
  }
}

function readJsonArg(text: string): unknown {
  const source = text.startsWith('@') ? readFileSync(text.slice(1), 'utf8') : text;
  return JSON.parse(source);
}

export async function main(
  argv: string[],
  io: InterviewIO & { close?(): void } = terminalIO(),
  client?: Client,
  /** Where a new interview runs (tests: their own task queue); the flows' queue otherwise. */
  taskQueue?: string,
): Promise<number> {
  const program = new Command('proposal-interview')
    .description('Conduct (or resume) a research proposal interview in the terminal')
    .option('--id <workflowId>', 'resume the interview of this workflow')
    .option('--review', 'wait for your approval before the PDF')
    .option('--prefill <json>', 'profile fields already known (JSON or @file): their questions are skipped')
    .option('--max-refinements <n>', 'refinement bound (0..5)')
    .option('--idle-timeout-minutes <n>', 'how long the interview waits for an answer')
    .exitOverride();
  let opts: { id?: string; review?: boolean; prefill?: string; maxRefinements?: string; idleTimeoutMinutes?: string };
  try {
    opts = program.parse(argv, { from: 'user' }).opts();
  } catch (err) {
    return err instanceof CommanderError ? err.exitCode : 2; // --help exits 0, a bad option 1
  }
  const ownClient = client ?? (await connectClient());
  try {
    let handle: WorkflowHandle;
    let first: ProposalStep | undefined;
    if (opts.id) {
      handle = ownClient.workflow.getHandle(opts.id);
      const d = await handle.describe();
      // A cancelled, terminated or timed-out run has no interview left and no result to show.
      if (['CANCELLED', 'TERMINATED', 'TIMED_OUT'].includes(d.status.name)) {
        io.print(
          `${opts.id} is ${d.status.name}: its interview cannot be resumed. Start a new one with npm run proposal:interview`,
        );
        return 1;
      }
      io.print(`resuming ${opts.id} (${d.status.name})`);
    } else {
      const input = {
        mode: 'interactive' as const,
        ...(opts.review ? { review: true } : {}),
        ...(opts.prefill ? { profile: readJsonArg(opts.prefill) } : {}),
        ...(opts.maxRefinements ? { maxRefinements: Number(opts.maxRefinements) } : {}),
        ...(opts.idleTimeoutMinutes ? { idleTimeoutMinutes: Number(opts.idleTimeoutMinutes) } : {}),
      };
      // Start and ask for the first question in one call (update-with-start).
      const start = new WithStartWorkflowOperation<FlowWorkflow<typeof researchProposalFlow>>(
        researchProposalFlow.type,
        { ...flowStartOptions(researchProposalFlow, input, { taskQueue }), workflowIdConflictPolicy: 'FAIL' },
      );
      first = await ownClient.workflow.executeUpdateWithStart(nextProposalStepUpdate, {
        args: [{}],
        startWorkflowOperation: start,
      });
      handle = await start.workflowHandle();
      io.print(
        `started ${handle.workflowId}\n  web ui: ${webUiLink(ownClient.options.namespace, handle.workflowId)}\n  resume later with: npm run proposal:interview -- --id ${handle.workflowId}`,
      );
    }
    const out = await conductInterview(handle, io, { first });
    return out === undefined || out.status !== 'error' ? 0 : 1;
  } catch (err) {
    io.print(
      err instanceof InvalidFlowInput ? err.message : `error: ${err instanceof Error ? err.message : String(err)}`,
    );
    return 1;
  } finally {
    io.close?.();
    if (!client) await ownClient.connection.close();
  }
}

if (require.main === module) {
  // Exit 2 naming any invalid variable (TEMPORAL_ADDRESS, AGENT_FLOWS_PAYLOAD_KEY...) before connecting.
  loadConfigOrExit();
  void main(process.argv.slice(2)).then((code) => process.exit(code));
}
