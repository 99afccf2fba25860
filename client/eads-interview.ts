/**
 * Be interviewed in the terminal: `npm run eads -- <project-id>`.
 *
 * Finds the project's interview (workflow `eads-interview-<project-id>`) or starts one with
 * human answers, shows each question (type, help, choices or table template), reads the answer
 * and shows how it refined the EADS. Leave with `:quit` at any time and run the same command
 * later to resume where you left off: the interview lives in Temporal, not in this process.
 *
 * Commands at the answer prompt: `:done` (nothing more on this EADS), `:finalize` (end this
 * EADS now), `:finish` (end the whole interview), `:quit` (leave; resume later).
 * Table answers span several lines: paste the rows, then an empty line.
 */
import type { Client } from '@temporalio/client';
import { Command } from 'commander';
import readline from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { projectIdSchema } from '../contracts/eads';
import { EadsSession, EadsSessionError } from './eads-session';
import { loadConfigOrExit } from '../contracts/config';
import { connectClient, webUiLink } from './flow-client';

export interface TerminalOptions {
  client: Client;
  projectId: string;
  input: Readable;
  output: Writable;
  taskQueue?: string;
  orchestration?: 'auto' | 'guided';
  projectName?: string;
}

/** Runs the interview loop until the interview ends or the person quits. Returns an exit code. */
export async function runTerminalInterview(options: TerminalOptions): Promise<number> {
  const out = (line = '') => options.output.write(`${line}\n`);
  const rl = readline.createInterface({ input: options.input, terminal: false });
  const lines = rl[Symbol.asyncIterator]();
  const ask = async (prompt: string): Promise<string | null> => {
    options.output.write(prompt);
    const next = await lines.next();
    return next.done ? null : next.value;
  };
  const readAnswer = async (multiline: boolean): Promise<string | null> => {
    const first = await ask('> ');
    if (first === null || !multiline || first.trim().startsWith(':')) return first;
    const rows = [first];
    for (;;) {
      const more = await ask('. ');
      if (more === null || more.trim() === '') break;
      rows.push(more);
    }
    return rows.join('\n');
  };

  const session = new EadsSession(options.client, options.projectId);
  try {
    const { started } = await session.ensure({
      taskQueue: options.taskQueue,
      orchestration: options.orchestration ?? 'auto',
      projectName: options.projectName,
    });
    out(
      `${started ? 'Started' : 'Resuming'} the EADS interview for "${options.projectId}" (workflow ${session.workflowId})`,
    );
    out(`  web ui: ${webUiLink(options.client.options.namespace, session.workflowId)}`);
    let lastPursuit = '';
    for (;;) {
      const view = await session.view();
      if (view.status === 'finished') {
        const result = await session.handle.result();
        out(
          `\nThe interview has ended (${result.status}): ${result.pursuits.length} EADS, ${result.questionsAsked} question(s).`,
        );
        out(`  product: ${result.product ?? '(unknown)'}; problem type: ${result.problemType ?? '(undetermined)'}`);
        out(`  challenges: ${result.schedulingChallenges.join(', ') || '(none)'}`);
        for (const c of result.scr.conflicts) out(`  conflict: ${c.detail}`);
        return 0;
      }
      if (view.status === 'awaiting-start' && view.nextEads?.eads_id) {
        out(`\nThe orchestrator recommends ${view.nextEads.eads_id}: ${view.nextEads.rationale}`);
        const choice = await ask(`Start it? (Enter = yes, or type another EADS id, :quit) `);
        if (choice === null || choice.trim() === ':quit') return quit(out, options.projectId);
        await session.startPursuit(choice.trim() || view.nextEads.eads_id);
        continue;
      }
      if (!view.current) {
        await new Promise((r) => setTimeout(r, 200));
        continue;
      }
      // The pursuit may end between this view and the next query: then the interview is choosing
      // the next EADS, and the loop looks again.
      const found = await session.pursuit(view.current.eadsId).catch((err: unknown) => {
        if (err instanceof EadsSessionError) return undefined;
        throw err;
      });
      if (!found) {
        await new Promise((r) => setTimeout(r, 100));
        continue;
      }
      const { handle } = found;
      const { question, status } = await session.question(handle, 120_000);
      if (!question) {
        // The pursuit just ended; the interview is recording it and choosing the next EADS.
        await new Promise((r) => setTimeout(r, 100));
        continue;
      }
      if (view.current.childWorkflowId !== lastPursuit) {
        lastPursuit = view.current.childWorkflowId;
        out(
          `\n== ${status.name} (${status.eads_id}, ${status.interviewer_type} interviewer) — ${view.current.rationale}`,
        );
      }
      out(`\n[${question.id}] ${question.question}`);
      if (question.help_text) out(`  (${question.help_text})`);
      // People read names and meanings; a number, a name or their own words are all accepted.
      if (question.choices?.length)
        (question.choice_labels ?? question.choices).forEach((c, i) => out(`  ${i + 1}) ${c}`));
      if (question.table_template) out(`  reply as a table, then an empty line:\n${question.table_template}`);
      out(
        `  budget left ${status.budget_remaining} (this question costs ${question.budget_cost}); completeness ${status.completeness}`,
      );
      const answer = await readAnswer(question.question_type === 'table');
      const command = answer?.trim() ?? ':quit';
      if (command === ':quit') return quit(out, options.projectId);
      try {
        if (command === ':finish') {
          await session.finish('the interviewee ended the interview');
          continue;
        }
        if (command === ':finalize') {
          const result = await session.finalize(handle, 'ended by the interviewee');
          out(
            `  ${status.eads_id} finalized; missing: ${result.validation_results.missing_fields.join(', ') || 'nothing'}`,
          );
          continue;
        }
        const exhausted = command === ':done';
        const result = await session.answer(
          handle,
          question.id,
          exhausted ? "That's all I can say about this." : answer!,
          exhausted || undefined,
        );
        out(`  ${result.commit_notes} (completeness ${result.completeness}, next: ${result.next_action})`);
      } catch (err) {
        if (!(err instanceof EadsSessionError)) throw err;
        out(`  not accepted: ${err.message}`);
      }
    }
  } finally {
    rl.close();
  }
}

function quit(out: (line?: string) => void, projectId: string): number {
  out(`\nLeaving; the interview keeps its state. Resume with: npm run eads -- ${projectId}`);
  return 0;
}

if (require.main === module) {
  loadConfigOrExit();
  const program = new Command('eads-interview')
    .description('Be interviewed about your scheduling problem, EADS by EADS (resumable by project id)')
    .argument('<project-id>', 'lower-case letters, digits and dashes, e.g. kettle-crown')
    .option('--name <name>', 'a readable project name')
    .option('--guided', 'choose each EADS yourself (the orchestrator only recommends)')
    .action(async (projectId: string, opts: { name?: string; guided?: boolean }) => {
      const parsed = projectIdSchema.safeParse(projectId);
      if (!parsed.success) throw new Error(`project id: ${parsed.error.issues[0]?.message}`);
      const client = await connectClient();
      try {
        process.exitCode = await runTerminalInterview({
          client,
          projectId,
          input: process.stdin,
          output: process.stdout,
          orchestration: opts.guided ? 'guided' : 'auto',
          projectName: opts.name,
        });
      } finally {
        await client.connection.close();
      }
    });
  program.parseAsync(process.argv).catch((err) => {
    console.error(err instanceof Error ? err.message : String(err));
    process.exit(1);
  });
}
