/**
 * The EADS interview tools, backed by the `runEadsInterview` / `pursueEads`
 * workflows through the Temporal client only. The original design's tools are stateless with state in a
 * database; here the workflow is the state: reads are queries (nothing written to history),
 * changes are validated updates.
 *
 * One interview (and one conversation) per project: workflow id `eads-interview-<project_id>`.
 * `conversation_id` is accepted for compatibility with the original tools and echoed back.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Client } from '@temporalio/client';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { projectIdSchema, type EadsCatalogEntry } from '../../flows/eads/contract';
import { EadsSession, EadsSessionError } from '../../access/eads-session';
import { replyWithin } from '../../access/reply-within';
import { buildScheduleProblem, ScheduleModelError, toMiniZinc } from '../../domain/schedule-model';
import type { ConversationHistory } from '../../flows/eads/contract';

export interface EadsToolsContext {
  client: Client;
  taskQueue: string;
  /** How long the answer tool waits for its reply, which holds the next question (default 30 s). */
  answerWaitMs?: number;
}

/** Under an MCP client's usual 60 s time-out. */
const ANSWER_WAIT_MS = 30_000;
const projectId = projectIdSchema.describe(
  'The project; one interview per project (workflow eads-interview-<project_id>)',
);
const conversationId = z
  .string()
  .max(200)
  .optional()
  .describe('Accepted for compatibility; one conversation per project');
const eadsId = z.string().min(1).max(200).describe('EADS id, e.g. "process/flow-shop"');

function ok(payload: Record<string, unknown>, summary: string): CallToolResult {
  return {
    content: [
      { type: 'text', text: summary },
      { type: 'text', text: JSON.stringify(payload) },
    ],
    structuredContent: payload,
  };
}

function fail(err: unknown): CallToolResult {
  const message = err instanceof Error ? err.message : String(err);
  return { isError: true, content: [{ type: 'text', text: message }] };
}

/** Runs a tool body; problems the caller can fix come back as tool errors, not protocol errors. */
async function guarded(work: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof EadsSessionError || err instanceof Error) return fail(err);
    throw err;
  }
}

export function registerEadsTools(server: McpServer, ctx: EadsToolsContext): void {
  const session = (project: string) => new EadsSession(ctx.client, project);

  server.registerTool(
    'get_next_eads',
    {
      description:
        'Recommends the next EADS to pursue from the conversation so far and the library ' +
        "prerequisites (process → data → resources → optimality). Starts the project's " +
        'interview (human answers, guided orchestration) when there is none yet.',
      inputSchema: { project_id: projectId, conversation_id: conversationId },
    },
    async ({ project_id, conversation_id }) =>
      guarded(async () => {
        const s = session(project_id);
        // Starts the interview when there is none and waits, in the workflow, for its recommendation.
        const { started, view } = await s.recommend({ taskQueue: ctx.taskQueue, orchestration: 'guided' });
        const rec = view.nextEads;
        const payload = {
          project_id,
          conversation_id: conversation_id ?? project_id,
          eads_id: view.current?.eadsId ?? rec?.eads_id ?? null,
          rationale: view.current?.rationale ?? rec?.rationale ?? '',
          interviewer_type: view.current?.interviewer ?? rec?.interviewer_type ?? null,
          priority: rec?.priority ?? 0,
          source: rec?.source ?? 'none',
          exhausted: view.status === 'finished' || (rec?.exhausted ?? false),
          candidates: rec?.candidates ?? [],
          interview_status: view.status,
          already_pursuing: view.current !== null,
          interview_started: started,
        };
        const text = payload.exhausted
          ? `Interview for ${project_id} is exhausted: no EADS left to pursue.`
          : view.current
            ? `Already pursuing ${view.current.eadsId} (pursuit ${view.current.pursuitNo}).`
            : `Next EADS: ${payload.eads_id} (${payload.interviewer_type} interviewer, ${payload.source}): ${payload.rationale}`;
        return ok(payload, text);
      }),
  );

  server.registerTool(
    'start_eads_pursuit',
    {
      description:
        'Begins pursuing an EADS (the recommended one or another): returns its ' +
        'instructions, the current data structure and the budget (1.0; each question ' +
        "costs the EADS's decrement).",
      inputSchema: { project_id: projectId, conversation_id: conversationId, eads_id: eadsId },
    },
    async ({ project_id, eads_id }) =>
      guarded(async () => {
        const s = session(project_id);
        const started = await s.startPursuit(eads_id);
        const child = ctx.client.workflow.getHandle(started.child_workflow_id);
        const [plan, status] = await Promise.all([s.instructions(child), s.pursuitStatus(child)]);
        const payload = {
          eads_id,
          pursuit_no: started.pursuit_no,
          child_workflow_id: started.child_workflow_id,
          eads_instructions: {
            name: plan.name,
            interviewer_type: plan.interviewer,
            interview_objective: plan.objective,
            fields: plan.fields.map((f) => ({
              name: f.name,
              kind: f.kind,
              derived: f.derived,
              instruction: f.comment,
              ...(f.columns ? { columns: f.columns.map((c) => c.name) } : {}),
              ...(f.choices ? { choices: f.choices.map((c) => c.key) } : {}),
            })),
            example: plan.example,
          },
          current_state: status.data_structure,
          /** Allocated to this pursuit; each question costs budget_decrement (charged when asked). */
          budget: 1,
          budget_remaining: status.budget_remaining,
          budget_decrement: status.budget_decrement,
        };
        return ok(
          payload,
          `Pursuing ${eads_id} (pursuit ${started.pursuit_no}): ${plan.fields.length} field(s), budget 1.0, ${status.budget_decrement} per question.`,
        );
      }),
  );

  server.registerTool(
    'list_available_eads',
    {
      description:
        'Lists the EADS in the library for an interviewer type, with prerequisites and ' +
        "whether they are met given the completed EADS (and the project's interview when " +
        'project_id is given).',
      inputSchema: {
        interviewer_type: z.enum(['process', 'data', 'resources', 'optimality']).optional(),
        completed_eads: z.array(z.string()).max(100).optional(),
        project_context: z.record(z.string(), z.unknown()).optional(),
        project_id: projectId.optional(),
      },
    },
    async ({ interviewer_type, completed_eads, project_id }) =>
      guarded(async () => {
        let catalog: EadsCatalogEntry[];
        const completed = new Set(completed_eads ?? []);
        if (project_id) {
          const s = session(project_id);
          catalog = await s.library();
          for (const p of (await s.view()).pursuits) if (p.status !== 'failed') completed.add(p.eadsId);
        } else {
          // No interview to ask: a short workflow reads the library through its activity.
          catalog = await ctx.client.workflow.execute('listEadsLibrary', {
            taskQueue: ctx.taskQueue,
            workflowId: `eads-library-${randomBytes(4).toString('hex')}`,
            args: [],
          });
        }
        const eads_list = catalog
          .filter((e) => !interviewer_type || e.interviewer === interviewer_type)
          .map((e) => ({
            id: e.id,
            name: e.name,
            objective: e.objective,
            interviewer_type: e.interviewer,
            prerequisites: e.prerequisites,
            prerequisites_met: e.prerequisites.every((p) => completed.has(p)),
            ...(e.appliesWhen ? { applies_when: e.appliesWhen } : {}),
            completed: completed.has(e.id),
            budget_decrement: e.budgetDecrement,
          }));
        return ok(
          { eads_list },
          `${eads_list.length} EADS${interviewer_type ? ` for the ${interviewer_type} interviewer` : ''}.`,
        );
      }),
  );

  server.registerTool(
    'get_next_question',
    {
      description:
        'The next question of the EADS being pursued (waits until it is generated). ' +
        'responses_so_far is not needed: the pursuit workflow holds the answers.',
      inputSchema: {
        project_id: projectId,
        conversation_id: conversationId,
        eads_id: eadsId,
        responses_so_far: z.record(z.string(), z.unknown()).optional(),
      },
    },
    async ({ project_id, eads_id }) =>
      guarded(async () => {
        const s = session(project_id);
        const { handle } = await s.pursuit(eads_id);
        const { question, status } = await s.question(handle);
        if (!question) {
          return ok(
            {
              question: null,
              pursuit_status: status.status,
              completeness: status.completeness,
              budget_remaining: status.budget_remaining,
            },
            `The pursuit of ${eads_id} has ended (${status.status}).`,
          );
        }
        const payload = {
          question_id: question.id,
          question: question.question,
          question_type: question.question_type,
          table_template: question.table_template ?? '',
          choices: question.choices ?? [],
          help_text: question.help_text,
          budget_cost: question.budget_cost,
          budget_remaining: status.budget_remaining,
          targets: question.targets,
        };
        return ok(payload, `${question.id}: ${question.question}`);
      }),
  );

  server.registerTool(
    'process_eads_answer',
    {
      description:
        "Processes the interviewee's answer: refines the EADS data structure and reports " +
        'completeness and the next action (continue, complete, needs_clarification).',
      inputSchema: {
        project_id: projectId,
        conversation_id: conversationId,
        eads_id: eadsId,
        question_id: z.string().min(1).max(40),
        answer: z.string().min(1).max(20_000),
        exhausted: z.boolean().optional().describe('The interviewee has nothing more to say on this EADS'),
      },
    },
    async ({ project_id, eads_id, question_id, answer, exhausted }) =>
      guarded(async () => {
        const s = session(project_id);
        const { handle } = await s.pursuit(eads_id);
        const result = await replyWithin(
          s.answer(handle, question_id, answer, exhausted),
          ctx.answerWaitMs ?? ANSWER_WAIT_MS,
        );
        if (result === 'pending')
          return ok(
            { question_id, status: 'pending' },
            `The answer to ${question_id} was sent; the next question is still being written. Call get_next_question for it (sending the same answer again gets its reply, never a second answer).`,
          );
        const next =
          result.next?.kind === 'question'
            ? ` Next question (${result.next.question.id}): ${result.next.question.question}`
            : '';
        return ok(
          { ...result },
          `${result.commit_notes} Completeness ${result.completeness}; next: ${result.next_action}.${next}`,
        );
      }),
  );

  server.registerTool(
    'get_eads_status',
    {
      description:
        'The state of an EADS in the project: data structure, completed and remaining ' +
        'fields, completeness, budget used and remaining.',
      inputSchema: { project_id: projectId, conversation_id: conversationId, eads_id: eadsId },
    },
    async ({ project_id, eads_id }) =>
      guarded(async () => {
        const status = await session(project_id).eadsStatus(eads_id);
        return ok(
          { ...status },
          `${eads_id}: ${status.status}, completeness ${status.completeness}, budget used ${status.budget_used}, remaining ${status.budget_remaining}.`,
        );
      }),
  );

  server.registerTool(
    'finalize_eads',
    {
      description:
        'Ends the pursuit of an EADS now and stores its data structure in the interview; ' +
        'reports which fields are still missing.',
      inputSchema: {
        project_id: projectId,
        conversation_id: conversationId,
        eads_id: eadsId,
        final_notes: z.string().max(4000).optional(),
      },
    },
    async ({ project_id, eads_id, final_notes }) =>
      guarded(async () => {
        const s = session(project_id);
        const { handle } = await s.pursuit(eads_id);
        const result = await s.finalize(handle, final_notes);
        return ok(
          { ...result },
          `${eads_id} finalized: completeness ${result.validation_results.completeness}${result.validation_results.missing_fields.length ? `, missing ${result.validation_results.missing_fields.join(', ')}` : ''}.`,
        );
      }),
  );

  server.registerTool(
    'get_conversation_history',
    {
      description:
        'The conversation so far: scheduling challenges and, per pursued EADS, its ' +
        'questions, answers and data structure.',
      inputSchema: { project_id: projectId, conversation_id: conversationId, include_minizinc: z.boolean().optional() },
    },
    async ({ project_id, include_minizinc }) =>
      guarded(async () => {
        const s = session(project_id);
        const history = await s.conversation();
        const { minizinc, minizinc_results, ...rest } = history;
        const payload = { ...rest, ...(include_minizinc ? await minizincOf(s, { minizinc, minizinc_results }) : {}) };
        return ok(
          payload,
          `${history.activities.length} EADS pursued; challenges: ${history.scheduling_challenges.join(', ') || '(none yet)'}.`,
        );
      }),
  );

  server.registerTool(
    'get_aggregated_scr',
    {
      description: 'All schema-conforming responses so far: by EADS, merged, and the conflicts between EADS.',
      inputSchema: {
        project_id: projectId,
        conversation_id: conversationId,
        eads_filter: z.array(z.string()).max(50).optional(),
      },
    },
    async ({ project_id, eads_filter }) =>
      guarded(async () => {
        const scr = await session(project_id).scr(eads_filter);
        return ok(
          { ...scr },
          `${Object.keys(scr.scr_by_eads).length} EADS in the SCR, ${scr.conflicts.length} conflict(s).`,
        );
      }),
  );
}

/**
 * The interview's MiniZinc model: the one its schedule step solved (input `schedule`), else one
 * generated now from the SCR so far (not solved: the `schedule_from_scr` tool solves it), else
 * null with the reason (e.g. no flow-shop or job-shop steps yet).
 */
async function minizincOf(s: EadsSession, solved: Pick<ConversationHistory, 'minizinc' | 'minizinc_results'>) {
  if (solved.minizinc) return { minizinc: solved.minizinc, minizinc_results: solved.minizinc_results ?? null };
  try {
    const scr = await s.scr();
    const { model, data } = toMiniZinc(buildScheduleProblem(scr.merged_scr));
    return {
      minizinc: { model, data, files: null },
      minizinc_results: null,
      minizinc_note:
        'Generated from the SCR so far; not solved yet: call schedule_from_scr with this SCR and your orders.',
    };
  } catch (err) {
    if (!(err instanceof ScheduleModelError)) throw err;
    return { minizinc: null, minizinc_results: null, minizinc_note: `No model yet: ${err.message}.` };
  }
}
