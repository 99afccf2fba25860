/**
 * `runEadsInterview`: one per project (workflow id `eads-interview-<projectId>`). The workflow
 * IS the interview's durable state: the conversation, the pursued EADS with their data
 * structures, the aggregated SCR with its conflicts, and the scheduling challenges.
 *
 * Loop: the orchestrator (an activity) picks the next EADS from the conversation and the
 * library's prerequisites; `pursueEads` runs it as a child; its result joins the state. It ends
 * when the orchestrator finds nothing left, after `maxPursuits`, or on the `finishInterview`
 * update. Every `pursuitsPerRun` pursuits it continues as new, carrying the state, so history
 * stays bounded however long the interview.
 */
import {
  allHandlersFinished,
  ApplicationFailure,
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  ParentClosePolicy,
  patched,
  proxyActivities,
  rootCause,
  setHandler,
  startChild,
  workflowInfo,
} from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { createEadsActivities } from '../activities/eads';
import { addUsage, capMessage, excerpt, flowSearchAttribute, formatZodError, zeroUsage } from '../contracts/common';
import {
  aggregatedScrQuery,
  conversationHistoryQuery,
  eadsIdSchema,
  eadsInterviewQuery,
  eadsInterviewWorkflowId,
  eadsLibraryQuery,
  eadsRecordQuery,
  finalizePursuitSignal,
  finishInterviewUpdate,
  nextEadsQuery,
  pursuitWorkflowId,
  runEadsInterviewFlow,
  startPursuitUpdate,
  type ConversationHistory,
  type EadsCatalogEntry,
  type InterviewState,
  type InterviewView,
  type PursuitContext,
  type PursuitRecord,
  type PursuitResult,
  type Recommendation,
  type RunEadsInterviewOutput,
} from '../contracts/eads';
import { aggregateScr, type AggregatedScr, type Facts } from '../domain/eads-structure';
import { beginFlow } from './lib/flow';
import { MODEL_REJECTED, modelRejection, pursueEads, STOP_ON_MODEL_REJECTION_PATCH } from './pursue-eads';
import { scheduleAfterInterview, type InterviewSchedule } from './eads-schedule-step';
import { FailureType } from '../contracts/failures';

export { pursueEads };

type EadsActivities = ReturnType<typeof createEadsActivities>;

const { loadEadsCatalog, describeFixture } = proxyActivities<EadsActivities>({
  startToCloseTimeout: '30 seconds',
  retry: {
    initialInterval: '500 milliseconds',
    backoffCoefficient: 2,
    maximumAttempts: 3,
    nonRetryableErrorTypes: [FailureType.EadsLibraryInvalid],
  },
});
// The orchestrator falls back to the prerequisite order itself on the 3rd attempt, so 3 attempts always end with a pick.
const { chooseNextEads } = proxyActivities<EadsActivities>({
  startToCloseTimeout: '1 minute',
  heartbeatTimeout: '20 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '10 seconds',
    maximumAttempts: 3,
    nonRetryableErrorTypes: [FailureType.EadsLibraryInvalid],
  },
});

/** The latest pursuit of each EADS (re-pursuing an EADS replaces its earlier result). */
function latestByEads(pursuits: PursuitRecord[]): PursuitRecord[] {
  const latest = new Map<string, PursuitRecord>();
  for (const p of pursuits) if (p.status !== 'failed' || !latest.has(p.eadsId)) latest.set(p.eadsId, p);
  return [...latest.values()];
}

/** A field's value in the latest successful pursuit that has it (e.g. `principal-problem-type`). */
function fieldValue(pursuits: PursuitRecord[], field: string): unknown {
  for (const p of [...pursuits].reverse())
    if (p.status !== 'failed' && p.dataStructure[field] !== undefined) return p.dataStructure[field];
  return undefined;
}

export function interviewContext(pursuits: PursuitRecord[]): PursuitContext {
  const product = fieldValue(pursuits, 'product-or-service-name');
  const problemType = fieldValue(pursuits, 'principal-problem-type');
  const challenges = fieldValue(pursuits, 'scheduling-challenges');
  return {
    ...(typeof product === 'string' ? { product } : {}),
    ...(typeof problemType === 'string' ? { problemType } : {}),
    schedulingChallenges: Array.isArray(challenges) ? challenges.filter((c): c is string => typeof c === 'string') : [],
  };
}

function summary(p: PursuitRecord) {
  return {
    pursuitNo: p.pursuitNo,
    eadsId: p.eadsId,
    status: p.status,
    completeness: p.completeness,
    questions: p.questions.length,
    budgetUsed: p.budgetUsed,
    source: p.source,
    interviewer: p.interviewer,
    childWorkflowId: p.childWorkflowId,
    runs: p.runs,
  };
}

export async function runEadsInterview(rawInput: unknown): Promise<RunEadsInterviewOutput> {
  const { input, progress } = beginFlow(runEadsInterviewFlow.type, runEadsInterviewFlow.input, rawInput);
  // Validated by the input schema (interviewResumeSchema): continue-as-new state, or a starter's.
  const state: InterviewState = input.resume ?? {
    version: 1,
    pursuits: [],
    usage: zeroUsage(),
    runs: 1,
    orchestratorLog: [],
  };
  // Children are named after the project, not this workflow's id: one interview per project, and
  // histories that replay under any workflow id.
  const projectWorkflowId = eadsInterviewWorkflowId(input.projectId);
  let catalog: EadsCatalogEntry[] = [];
  let phase: InterviewView['status'] = 'starting';
  let current: InterviewView['current'] = null;
  let nextEads: Recommendation | null = null;
  let startRequest: string | null = null;
  let finishReason: string | null = null;
  let outcome: RunEadsInterviewOutput['status'] | null = null;
  let schedule: InterviewSchedule | undefined;

  const scrOf = (filter?: string[]): AggregatedScr =>
    aggregateScr(
      latestByEads(state.pursuits)
        .filter((p) => p.status !== 'failed')
        .map((p) => ({
          eadsId: p.eadsId,
          dataStructure: p.dataStructure,
          appliesWhen: catalog.find((c) => c.id === p.eadsId)?.appliesWhen,
        })),
      filter,
    );
  const view = (): InterviewView => {
    const context = interviewContext(state.pursuits);
    return {
      projectId: input.projectId,
      mode: input.mode,
      orchestration: input.orchestration,
      status: phase,
      current,
      nextEads,
      pursuits: state.pursuits.map(summary),
      product: context.product ?? null,
      problemType: context.problemType ?? null,
      schedulingChallenges: context.schedulingChallenges,
      usage: state.usage,
      runs: state.runs,
    };
  };
  const history = (): ConversationHistory => ({
    scheduling_challenges: interviewContext(state.pursuits).schedulingChallenges,
    activities: state.pursuits.map((p) => ({
      pursuing_eads: p.eadsId,
      pursuit_no: p.pursuitNo,
      status: p.status,
      questions_answers: p.questions.map((q) => ({ question: q.question, answer: q.answer })),
      summary_ds: p.dataStructure,
    })),
    ...(schedule && 'minizinc' in schedule
      ? { minizinc: schedule.minizinc, minizinc_results: schedule.minizinc_results }
      : {}),
  });

  setHandler(eadsInterviewQuery, view);
  setHandler(nextEadsQuery, () => nextEads);
  setHandler(conversationHistoryQuery, history);
  setHandler(aggregatedScrQuery, (filter) => {
    // A query cannot be refused before it runs: check the argument here, with a clear message.
    if (filter != null && !(Array.isArray(filter) && filter.every((f) => typeof f === 'string')))
      throw new Error('filter must be a list of EADS ids');
    return scrOf(filter ?? undefined);
  });
  setHandler(eadsRecordQuery, (eadsId) => [...state.pursuits].reverse().find((p) => p.eadsId === eadsId) ?? null);
  setHandler(eadsLibraryQuery, () => catalog);

  setHandler(
    startPursuitUpdate,
    async ({ eadsId }) => {
      if (input.orchestration === 'guided') {
        await condition(() => catalog.length > 0 || outcome !== null);
        if (!catalog.some((c) => c.id === eadsId)) {
          throw ApplicationFailure.create({
            message: `unknown EADS ${excerpt(eadsId)}; the library has ${catalog.map((c) => c.id).join(', ')}`,
            type: FailureType.UnknownEads,
            nonRetryable: true,
          });
        }
        startRequest = eadsId;
      }
      await condition(() => (current?.eadsId === eadsId && current.childWorkflowId !== '') || outcome !== null);
      if (!current || current.eadsId !== eadsId) {
        throw ApplicationFailure.create({
          message: `the interview ended (${outcome}) before ${excerpt(eadsId)} started`,
          type: FailureType.InterviewEnded,
          nonRetryable: true,
        });
      }
      const decrement = catalog.find((c) => c.id === eadsId)?.budgetDecrement ?? 0;
      return {
        eads_id: eadsId,
        pursuit_no: current.pursuitNo,
        child_workflow_id: current.childWorkflowId,
        budget: 1,
        budget_decrement: decrement,
      };
    },
    {
      validator: (arg) => {
        if (outcome !== null || finishReason !== null) throw new Error('the interview has finished');
        const id = eadsIdSchema.safeParse(arg?.eadsId);
        if (!id.success) throw new Error(`invalid eadsId: ${formatZodError(id.error)}`);
        if (catalog.length && !catalog.some((c) => c.id === arg.eadsId))
          throw new Error(
            `unknown EADS ${excerpt(arg.eadsId)}; the library has ${catalog.map((c) => c.id).join(', ')}`,
          );
        if (input.orchestration === 'auto') {
          if (current?.eadsId !== arg.eadsId) {
            throw new Error(
              `this interview is orchestrated automatically and is pursuing ${current?.eadsId ?? 'nothing yet'}; start it with orchestration "guided" to choose EADS`,
            );
          }
          return;
        }
        if (current) throw new Error(`already pursuing ${current.eadsId}; finalize it first`);
        if (startRequest) throw new Error(`a pursuit of ${startRequest} is already being started`);
      },
    },
  );

  setHandler(
    finishInterviewUpdate,
    async (arg) => {
      finishReason ??= arg?.reason ?? 'finish requested';
      if (current)
        await getExternalWorkflowHandle(current.childWorkflowId).signal(finalizePursuitSignal, {
          notes: `interview finished: ${finishReason}`,
        });
      await condition(() => outcome !== null);
      return { status: outcome!, pursuits: state.pursuits.length };
    },
    {
      validator: (arg) => {
        if (outcome !== null) throw new Error(`the interview has already ended (${outcome})`);
        if (arg !== undefined && (typeof arg !== 'object' || arg === null || Array.isArray(arg)))
          throw new Error('the argument must be an object: { reason?: string }');
        if (arg?.reason !== undefined && (typeof arg.reason !== 'string' || arg.reason.length > 1000))
          throw new Error('reason must be a string of at most 1000 characters');
      },
    },
  );

  progress.stage('load EADS library');
  catalog = await loadEadsCatalog();
  if (input.mode === 'surrogate' && state.runs === 1 && state.pursuits.length === 0) {
    const firm = await describeFixture(input.fixture!);
    progress.stage('surrogate expert', `${firm.interviewee} of ${firm.firm}`);
  }
  progress.setTotal(Math.min(input.maxPursuits, catalog.length));
  let pursuitsThisRun = 0;

  while (finishReason === null) {
    if (state.pursuits.length >= input.maxPursuits) {
      outcome = 'max-pursuits';
      break;
    }

    let recommendation = state.pendingRecommendation;
    delete state.pendingRecommendation;
    if (!recommendation) {
      phase = 'orchestrating';
      progress.stage('orchestrator', `${state.pursuits.length} EADS pursued`);
      const pursued = [...new Set(state.pursuits.filter((p) => p.status !== 'failed').map((p) => p.eadsId))];
      const facts: Facts = {};
      for (const c of catalog) {
        if (!c.appliesWhen) continue;
        const source = latestByEads(state.pursuits).find(
          (p) => p.eadsId === c.appliesWhen!.eads && p.status !== 'failed',
        );
        facts[`${c.appliesWhen.eads}.${c.appliesWhen.field}`] = source?.dataStructure[c.appliesWhen.field];
      }
      const context = interviewContext(state.pursuits);
      const choice = await chooseNextEads({
        pursued,
        facts,
        conversation: {
          product: context.product ?? null,
          problem_type: context.problemType ?? null,
          scheduling_challenges: context.schedulingChallenges,
          completed: state.pursuits.map((p) => ({ eads_id: p.eadsId, status: p.status, completeness: p.completeness })),
        },
      });
      state.usage = addUsage(state.usage, choice.usage);
      progress.tokens(choice.usage);
      recommendation = choice.recommendation;
      state.orchestratorLog.push({
        eads_id: recommendation.eads_id,
        source: recommendation.source,
        rationale: recommendation.rationale,
      });
    }
    nextEads = recommendation;
    if (recommendation.exhausted) {
      outcome = 'exhausted';
      break;
    }
    // Only when there is more to pursue, and never while an update waits on this run (a guided start).
    if (
      (pursuitsThisRun >= input.pursuitsPerRun || workflowInfo().continueAsNewSuggested) &&
      startRequest === null &&
      allHandlersFinished()
    ) {
      return continueAsNew<typeof runEadsInterview>({
        ...input,
        resume: { ...state, pendingRecommendation: recommendation, runs: state.runs + 1 },
      });
    }

    let eadsId: string;
    let source: PursuitRecord['source'];
    let rationale: string;
    if (input.orchestration === 'guided') {
      phase = 'awaiting-start';
      progress.waiting(`recommended ${recommendation.eads_id}; waiting for startPursuit`);
      await condition(() => startRequest !== null || finishReason !== null);
      if (startRequest === null) break;
      eadsId = startRequest;
      startRequest = null;
      source = eadsId === nextEads.eads_id ? (nextEads.source as PursuitRecord['source']) : 'requested';
      rationale =
        eadsId === nextEads.eads_id
          ? nextEads.rationale
          : `chosen by the interviewer (the orchestrator recommended ${nextEads.eads_id})`;
    } else {
      eadsId = nextEads.eads_id!;
      source = nextEads.source as PursuitRecord['source'];
      rationale = nextEads.rationale;
    }

    const context = interviewContext(state.pursuits);
    const pursuitNo = state.pursuits.length + 1;
    const childWorkflowId = pursuitWorkflowId(projectWorkflowId, pursuitNo, eadsId);
    phase = 'pursuing';
    progress.stage('pursue EADS', `${eadsId} (${source})`);
    let child;
    try {
      child = await startChild(pursueEads, {
        workflowId: childWorkflowId,
        args: [
          {
            projectId: input.projectId,
            eadsId,
            pursuitNo,
            mode: input.mode,
            fixture: input.fixture,
            questionsPerRun: input.questionsPerRun,
            context,
          },
        ],
        parentClosePolicy: ParentClosePolicy.TERMINATE,
        typedSearchAttributes: [{ key: flowSearchAttribute, value: 'pursueEads' }],
        staticSummary: `${eadsId} for ${input.projectId} (${input.mode})`,
      });
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      throw ApplicationFailure.create({
        message: `project "${input.projectId}" already has a running interview (pursuit ${childWorkflowId} is running); one interview per project`,
        type: FailureType.InterviewAlreadyRunning,
        nonRetryable: true,
      });
    }
    const interviewer = catalog.find((c) => c.id === eadsId)?.interviewer ?? 'process';
    current = { eadsId, pursuitNo, childWorkflowId, rationale, interviewer };
    // A finish that arrived while the child was starting.
    if (finishReason !== null)
      await getExternalWorkflowHandle(childWorkflowId).signal(finalizePursuitSignal, {
        notes: `interview finished: ${finishReason}`,
      });

    let result: PursuitResult;
    try {
      result = await child.result();
    } catch (err) {
      const message = capMessage(rootCause(err) ?? String(err));
      // The model rejects requests (invalid key, bad request): every later pursuit would fail the same way.
      if (modelRejection(err) && patched(STOP_ON_MODEL_REJECTION_PATCH)) {
        progress.finish('failed', `stopped at ${eadsId}: ${message}`);
        throw ApplicationFailure.create({
          type: MODEL_REJECTED,
          nonRetryable: true,
          message: `the interview stopped at pursuit ${pursuitNo} (${eadsId}): ${message}`,
        });
      }
      result = {
        eadsId,
        name: catalog.find((c) => c.id === eadsId)?.name ?? eadsId,
        interviewer,
        pursuitNo,
        status: 'failed',
        dataStructure: { 'EADS-id': eadsId },
        completedFields: [],
        remainingFields: catalog.find((c) => c.id === eadsId)?.fields ?? [],
        completeness: 0,
        budgetUsed: 0,
        budgetRemaining: 1,
        budgetDecrement: catalog.find((c) => c.id === eadsId)?.budgetDecrement ?? 0,
        questions: [],
        notes: `the pursuit failed: ${message}`,
        error: message,
        usage: zeroUsage(),
        runs: 1,
      };
    }
    state.pursuits.push({ ...result, childWorkflowId, rationale, source });
    state.usage = addUsage(state.usage, result.usage);
    progress.tokens(result.usage);
    progress.advance(1, `${eadsId}: ${result.status}, completeness ${result.completeness}`);
    current = null;
    pursuitsThisRun++;
  }

  outcome ??= 'finished';
  phase = 'finished';
  const context = interviewContext(state.pursuits);
  const scr = scrOf();
  if (input.schedule) {
    progress.stage('schedule', 'SCR to MiniZinc model, CP-SAT schedule and Gantt chart');
    schedule = await scheduleAfterInterview({
      projectId: input.projectId,
      firm: input.projectName,
      interviewWorkflowId: projectWorkflowId,
      mergedScr: scr.merged_scr,
      options: input.schedule,
    });
  }
  progress.finish(
    'completed',
    `${outcome}: ${state.pursuits.length} EADS pursued, ${scr.conflicts.length} conflict(s)`,
  );
  await condition(allHandlersFinished);
  return {
    projectId: input.projectId,
    status: outcome,
    product: context.product ?? null,
    problemType: context.problemType ?? null,
    schedulingChallenges: context.schedulingChallenges,
    pursuits: state.pursuits.map(summary),
    scr,
    questionsAsked: state.pursuits.reduce((n, p) => n + p.questions.length, 0),
    usage: state.usage,
    runs: state.runs,
    ...(schedule ? { schedule } : {}),
  };
}

/** The library's catalog, for clients with no interview yet (MCP `list_available_eads`). */
export async function listEadsLibrary(): Promise<EadsCatalogEntry[]> {
  return loadEadsCatalog();
}
