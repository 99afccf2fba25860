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
import { projectIdSchema } from '../flows/eads/contract';
import { EadsSession, EadsSessionError, stepWithAnswer } from '../access/eads-session';
import { loadConfigOrExit } from '../plumbing/config';
import { connectClient, webUiLink } from '../access/flow-client';

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
    // One call finds or starts the interview and waits, in the workflow, for its first step.
    const begun = await session.begin({
      taskQueue: options.taskQueue,
      orchestration: options.orchestration ?? 'auto',
      projectName: options.projectName,
    });
    out(
      `${begun.started ? 'Started' : 'Resuming'} the EADS interview for "${options.projectId}" (workflow ${session.workflowId})`,
    );
    out(`  web ui: ${webUiLink(options.client.options.namespace, session.workflowId)}`);
    let step = begun.step;
    for (;;) {
      if (step.kind === 'ended') {
        const { result } = step;
        out(
          `\nThe interview has ended (${result.status}): ${result.pursuits.length} EADS, ${result.questionsAsked} question(s).`,
        );
        out(`  product: ${result.product ?? '(unknown)'}; problem type: ${result.problemType ?? '(undetermined)'}`);
        out(`  challenges: ${result.schedulingChallenges.join(', ') || '(none)'}`);
        for (const c of result.scr.conflicts) out(`  conflict: ${c.detail}`);
        return 0;
      }
      if (step.kind === 'awaiting-start') {
        const recommended = step.recommendation;
        out(`\nThe orchestrator recommends ${recommended.eads_id}: ${recommended.rationale}`);
        const choice = await ask(`Start it? (Enter = yes, or type another EADS id, :quit) `);
        if (choice === null || choice.trim() === ':quit') return quit(out, options.projectId);
        try {
          await session.startPursuit(choice.trim() || recommended.eads_id!);
        } catch (err) {
          if (!(err instanceof EadsSessionError)) throw err;
          out(`  not accepted: ${err.message}`);
        }
        step = await session.nextStep();
        continue;
      }
      const quitting = await pursue(step.pursuit);
      if (quitting) return quit(out, options.projectId);
      // This pursuit has ended: wait for what the interview does after it.
      step = await session.nextStep(step.pursuit.childWorkflowId);
    }
  } finally {
    rl.close();
  }

  /** Asks the pursuit's questions until it ends; true when the person quits. */
  async function pursue(pursuit: { childWorkflowId: string; rationale: string }): Promise<boolean> {
    const handle = options.client.workflow.getHandle(pursuit.childWorkflowId);
    let shownHeader = false;
    let after: string | undefined;
    // The answer's reply holds the next question in runs that give it: no second call then.
    let known: ReturnType<typeof stepWithAnswer>;
    for (;;) {
      const next = known ?? (await session.nextQuestion(handle, after));
      known = undefined;
      if (next.kind === 'ended') return false;
      const { question, status } = next;
      if (!shownHeader) {
        shownHeader = true;
        out(`\n== ${status.name} (${status.eads_id}, ${status.interviewer_type} interviewer) — ${pursuit.rationale}`);
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
      if (command === ':quit') return true;
      try {
        if (command === ':finish') {
          await session.finish('the interviewee ended the interview');
          return false;
        }
        if (command === ':finalize') {
          const result = await session.finalize(handle, 'ended by the interviewee');
          out(
            `  ${status.eads_id} finalized; missing: ${result.validation_results.missing_fields.join(', ') || 'nothing'}`,
          );
          return false;
        }
        const exhausted = command === ':done';
        const result = await session.answer(
          handle,
          question.id,
          exhausted ? "That's all I can say about this." : answer!,
          exhausted || undefined,
        );
        out(`  ${result.commit_notes} (completeness ${result.completeness}, next: ${result.next_action})`);
        after = question.id;
        known = stepWithAnswer(result);
      } catch (err) {
        if (!(err instanceof EadsSessionError)) throw err;
        // Not taken: the same question is asked again (unless the pursuit has moved on).
        out(`  not accepted: ${err.message}`);
      }
    }
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
