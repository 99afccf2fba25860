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
 *
 * The state, the handlers and their validators are in `InterviewSession` (eads/interview-session.ts).
 */
import {
  allHandlersFinished,
  ApplicationFailure,
  condition,
  continueAsNew,
  ParentClosePolicy,
  patched,
  proxyActivities,
  proxyLocalActivities,
  rootCause,
  setHandler,
  startChild,
  workflowInfo,
} from '@temporalio/workflow';
import { HandlerUnfinishedPolicy, WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { createEadsActivities } from './activities';
import { capMessage, flowSearchAttribute } from '../../contracts/common';
import {
  aggregatedScrQuery,
  conversationHistoryQuery,
  eadsInterviewQuery,
  eadsInterviewWorkflowId,
  eadsLibraryQuery,
  eadsRecordQuery,
  finishInterviewUpdate,
  nextEadsQuery,
  nextStepUpdate,
  pursuitWorkflowId,
  runEadsInterviewFlow,
  startPursuitUpdate,
  type EadsCatalogEntry,
  type PursuitResult,
  type Recommendation,
  type RunEadsInterviewOutput,
} from './contract';
import { FailureType } from '../../contracts/failures';
import { asLocal, QUICK_READ, MODEL, withOptions } from '../lib/workflow/activity-options';
import { endingAsEveryFlow } from '../lib/workflow/ending';
import { beginFlow } from '../lib/workflow/flow';
import type { ProgressTracker } from '../lib/workflow/progress';
import { interviewContext, InterviewSession, type PursuitChoice } from './workflow/interview-session';
import {
  EADS_IDLE_TIMEOUT_PATCH,
  LOCAL_STEPS_PATCH,
  MODEL_REJECTED,
  modelRejection,
  pursueEads,
  STOP_ON_MODEL_REJECTION_PATCH,
} from './workflow/pursue-eads';
import { scheduleAfterInterview } from './workflow/schedule-step';
import { lowerLegacyTimeLimit, SCHEDULE_TIME_LIMIT_CAP_PATCH } from '../schedule/contract';

export { pursueEads };

type EadsActivities = ReturnType<typeof createEadsActivities>;

const { loadEadsCatalog, describeFixture } = proxyActivities<EadsActivities>(
  withOptions(QUICK_READ, { retry: { nonRetryableErrorTypes: [FailureType.EadsLibraryInvalid] } }),
);
// The orchestrator falls back to the prerequisite order itself on the 3rd attempt, so 3 attempts always end with a pick.
const CHOOSE_OPTIONS = withOptions(MODEL, {
  startToCloseTimeout: '1 minute',
  retry: {
    maximumInterval: '10 seconds',
    maximumAttempts: 3,
    nonRetryableErrorTypes: [FailureType.EadsLibraryInvalid],
  },
});
const { chooseNextEads: chooseAsActivity } = proxyActivities<EadsActivities>(CHOOSE_OPTIONS);
// Between two pursuits a person waits on the choice: run in the workflow task (see LOCAL_STEPS_PATCH).
const { chooseNextEads: chooseInTask } = proxyLocalActivities<EadsActivities>(asLocal(CHOOSE_OPTIONS));

export async function runEadsInterview(rawInput: unknown): Promise<RunEadsInterviewOutput> {
  // A schedule time limit above the cap is refused, except in interviews recorded before the cap:
  // they keep going with it lowered. (Asked only of such inputs: other histories stay as they were.)
  const lowered = lowerLegacyTimeLimit(rawInput, ['schedule']);
  const raw = lowered === rawInput || patched(SCHEDULE_TIME_LIMIT_CAP_PATCH) ? rawInput : lowered;
  const { input, progress } = beginFlow(runEadsInterviewFlow.type, runEadsInterviewFlow.input, raw);
  const session = new InterviewSession(input);
  setHandler(eadsInterviewQuery, () => session.view());
  setHandler(nextEadsQuery, () => session.nextEads);
  setHandler(conversationHistoryQuery, () => session.history());
  setHandler(aggregatedScrQuery, (filter) => session.aggregatedScr(filter));
  setHandler(eadsRecordQuery, (eadsId) => session.record(eadsId));
  setHandler(eadsLibraryQuery, () => session.catalog);
  setHandler(startPursuitUpdate, (arg) => session.startPursuit(arg), {
    validator: (arg) => session.validateStartPursuit(arg),
  });
  setHandler(finishInterviewUpdate, (arg) => session.finish(arg), { validator: (arg) => session.validateFinish(arg) });
  // Clients wait here for what comes next instead of polling the queries. Only a read: a run that
  // fails while one waits leaves it unanswered on purpose (the client sees the failure).
  setHandler(nextStepUpdate, (arg) => session.awaitNextStep(arg), {
    validator: (arg) => session.validateNextStep(arg),
    unfinishedPolicy: HandlerUnfinishedPolicy.ABANDON,
  });
  return endingAsEveryFlow(progress, () => interview(session, progress), {
    onCancel: () => void (session.phase = 'finished'),
  });
}

/** One pursuit after another, until the interview ends (or continues as new). */
async function interview(session: InterviewSession, progress: ProgressTracker): Promise<RunEadsInterviewOutput> {
  const { input } = session;
  progress.stage('load EADS library');
  session.catalog = await loadEadsCatalog();
  if (session.introducesSurrogate) {
    const firm = await describeFixture({ fixtureId: input.fixture! });
    progress.stage('surrogate expert', `${firm.interviewee} of ${firm.firm}`);
  }
  progress.setTotal(Math.min(input.maxPursuits, session.catalog.length));

  let pursuitsThisRun = 0;
  while (session.finishReason === null) {
    if (session.pursuitCount >= input.maxPursuits) {
      session.outcome = 'max-pursuits';
      break;
    }
    const recommendation = session.takePendingRecommendation() ?? (await orchestrate(session, progress));
    session.nextEads = recommendation;
    if (recommendation.exhausted) {
      session.outcome = 'exhausted';
      break;
    }
    // Only when there is more to pursue, and never while an update waits on this run (a guided start).
    const runIsLong = pursuitsThisRun >= input.pursuitsPerRun || workflowInfo().continueAsNewSuggested;
    if (runIsLong && session.startRequest === null && session.stepWaiters > 0) {
      // Clients waiting on nextStep would hold this run open: they are told to ask again, which
      // reaches the new run. (Runs nobody waited on this way never come here: nothing changes for them.)
      session.continuing = true;
      await condition(() => allHandlersFinished() || session.finishReason !== null || session.startRequest !== null);
      session.continuing = false;
    }
    if (runIsLong && session.startRequest === null && allHandlersFinished())
      return continueAsNew<typeof runEadsInterview>({ ...input, resume: session.resumeState(recommendation) });

    const choice = await nextChoice(session, progress);
    if (!choice) break;
    await pursue(session, choice, progress);
    pursuitsThisRun++;
    // Nobody answered the pursuit's question: the interview ends too, to be resumed.
    if (session.outcome === 'abandoned') break;
  }
  return finish(session, progress);
}

/** Asks the orchestrator which EADS comes next. */
async function orchestrate(session: InterviewSession, progress: ProgressTracker): Promise<Recommendation> {
  session.phase = 'orchestrating';
  progress.stage('orchestrator', `${session.pursuitCount} EADS pursued`);
  const choose = patched(LOCAL_STEPS_PATCH) ? chooseInTask : chooseAsActivity;
  const choice = await choose(session.orchestratorRequest());
  session.recordChoice(choice.recommendation, choice.usage);
  progress.tokens(choice.usage);
  return choice.recommendation;
}

/** Auto: the recommendation. Guided: the EADS a `startPursuit` asks for, or none when the interview finishes first. */
async function nextChoice(session: InterviewSession, progress: ProgressTracker): Promise<PursuitChoice | null> {
  if (session.input.orchestration !== 'guided') return session.recommendedChoice();
  session.phase = 'awaiting-start';
  progress.waiting(`recommended ${session.nextEads!.eads_id}; waiting for startPursuit`);
  const decided = () => session.startRequest !== null || session.finishReason !== null;
  if (patched(EADS_IDLE_TIMEOUT_PATCH)) {
    const { idleTimeoutMinutes } = session.input;
    await condition(decided, idleTimeoutMinutes * 60_000);
    if (!decided()) {
      session.abandon(session.nextEads!, `no pursuit was started within ${idleTimeoutMinutes} minute(s)`);
      return null;
    }
  } else {
    await condition(decided);
  }
  return session.startRequest === null ? null : session.takeStartRequest();
}

/** Runs one pursuit as a child workflow and records its result (a failed pursuit is recorded as failed). */
async function pursue(session: InterviewSession, choice: PursuitChoice, progress: ProgressTracker): Promise<void> {
  const { input } = session;
  const { eadsId } = choice;
  const context = interviewContext(session.state.pursuits);
  const pursuitNo = session.pursuitCount + 1;
  // Children are named after the project, not this workflow's id: one interview per project, and
  // histories that replay under any workflow id.
  const childWorkflowId = pursuitWorkflowId(eadsInterviewWorkflowId(input.projectId), pursuitNo, eadsId);
  session.phase = 'pursuing';
  progress.stage('pursue EADS', `${eadsId} (${choice.source})`);
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
          // Runs recorded before the idle timeout started their pursuits without it.
          ...(patched(EADS_IDLE_TIMEOUT_PATCH) ? { idleTimeoutMinutes: input.idleTimeoutMinutes } : {}),
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
  session.beginPursuit(choice, pursuitNo, childWorkflowId);
  // A finish that arrived while the child was starting.
  if (session.finishReason !== null) await session.finalizeRunningPursuit(childWorkflowId);

  let result: PursuitResult;
  try {
    result = await child.result();
  } catch (err) {
    const message = capMessage(rootCause(err) ?? String(err));
    // The model rejects requests (invalid key, bad request): every later pursuit would fail the same way.
    const stop = modelRejection(err);
    if (stop && patched(STOP_ON_MODEL_REJECTION_PATCH)) {
      progress.finish('failed', `stopped at ${eadsId}: ${message}`);
      throw ApplicationFailure.create({
        type: stop.type ?? MODEL_REJECTED,
        nonRetryable: true,
        message: `the interview stopped at pursuit ${pursuitNo} (${eadsId}): ${message}`,
      });
    }
    result = session.failedPursuit(eadsId, pursuitNo, message);
  }
  session.recordPursuit(result, choice, childWorkflowId);
  if (result.status === 'abandoned') session.abandon(session.recommendationFor(eadsId, choice), result.notes);
  progress.tokens(result.usage);
  progress.advance(1, `${eadsId}: ${result.status}, completeness ${result.completeness}`);
}

/** Ends the interview: the SCR, the schedule when asked for, and the result once every handler has replied. */
async function finish(session: InterviewSession, progress: ProgressTracker): Promise<RunEadsInterviewOutput> {
  const { input } = session;
  session.outcome ??= 'finished';
  session.phase = 'finished';
  const scr = session.scr();
  // An abandoned interview's SCR is unfinished: no schedule from it (the resumed interview makes one).
  if (input.schedule && session.outcome !== 'abandoned') {
    progress.stage('schedule', 'SCR to MiniZinc model, CP-SAT schedule and Gantt chart');
    session.schedule = await scheduleAfterInterview({
      projectId: input.projectId,
      firm: input.projectName,
      interviewWorkflowId: eadsInterviewWorkflowId(input.projectId),
      mergedScr: scr.merged_scr,
      options: input.schedule,
    });
  }
  progress.finish(
    session.outcome === 'abandoned' ? 'cancelled' : 'completed',
    `${session.outcome}${session.abandonedBecause ? ` (${session.abandonedBecause})` : ''}: ` +
      `${session.pursuitCount} EADS pursued, ${scr.conflicts.length} conflict(s)`,
  );
  // Known before the handlers finish: clients waiting on nextStep get the result with their reply.
  session.finalOutput = session.output(scr);
  await condition(allHandlersFinished);
  return session.finalOutput;
}

/** The library's catalog, for clients with no interview yet (MCP `list_available_eads`). */
export async function listEadsLibrary(): Promise<EadsCatalogEntry[]> {
  return loadEadsCatalog();
}
