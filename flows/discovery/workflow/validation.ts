/**
 * Validating a step's candidates, two ways: several candidates per activity (runs started since
 * 2026-11-26), or one activity per candidate (earlier runs, kept so their histories replay).
 * Either way each candidate ends with the model's verdict or the error that kept it from one,
 * and the run's counters and progress line follow.
 */
import {
  ActivityCancellationType,
  ActivityFailure,
  isCancellation,
  proxyActivities,
  rootCause,
  TimeoutFailure,
} from '@temporalio/workflow';
import type { createDiscoveryActivities } from '../activities';
import {
  deliverableOf,
  readGroupVerdicts,
  type CandidateTable,
  type Column,
  type GroupVerdict,
  type SearchStep,
} from '../contract';
import { MODEL, withOptions } from '../../lib/workflow/activity-options';
import type { ProgressTracker } from '../../lib/workflow/progress';
import type { DocumentDomains } from '../domain-names';
import type { DiscoveryTally, Verdict } from './discovery-tally';
import type { Limiter } from './limiter';

type DiscoveryActivities = ReturnType<typeof createDiscoveryActivities>;

/** The `patched()` id of validating several candidates per activity. */
export const VALIDATE_IN_GROUPS = 'discovery-validate-in-groups';

/**
 * The `patched()` id of sending each validation the domain names the document uses as its own
 * and those it rules out: a table naming the requirement's own league or agency is judged as
 * about the requirement, not as "another subject".
 */
export const VALIDATE_WITH_DOMAINS = 'discovery-validate-with-domains';

// Every activity waits for its cancellation to be acknowledged (the activity heartbeats and stops
// its HTTP calls), so a cancelled workflow closes only once no model call is running.
const cancellationType = ActivityCancellationType.WAIT_CANCELLATION_COMPLETED;

/** Attempts per candidate: a validation that keeps failing is recorded and fails closed. */
const VALIDATION_ATTEMPTS = 4;
const validationOptions = withOptions(MODEL, {
  heartbeatTimeout: '5 seconds',
  retry: { maximumAttempts: VALIDATION_ATTEMPTS },
  cancellationType,
});
const { discoveryValidateCandidate, discoveryValidateCandidates } =
  proxyActivities<DiscoveryActivities>(validationOptions);

/** What every step of one run shares. */
export interface StepRun {
  limiter: Limiter;
  tally: DiscoveryTally;
  progress: ProgressTracker;
  /** The requirement's columns: each group of candidates is sent them (capped, see `deliverableOf`). */
  requirement?: readonly Column[];
  /** The document's domain names: each group of candidates is sent them (runs since the patch below). */
  domains?: DocumentDomains;
}

interface StepCandidates {
  step: SearchStep;
  targetColumns: Column[];
  candidates: CandidateTable[];
}

/** The message a person can act on: the activity's own failure rather than "Activity task failed". */
export function failureMessage(err: unknown): string {
  return rootCause(err) ?? String(err);
}

/**
 * A step's candidates in as few activities as the concurrency bound allows: each takes the
 * slots free when its turn comes (up to the candidates left) and validates that many at once.
 * With the bound at or above the work in flight, that is one activity for the whole step.
 */
export async function validateInGroups(run: StepRun, work: StepCandidates): Promise<Verdict[]> {
  const { step, targetColumns, candidates } = work;
  const groups: Array<Promise<Verdict[]>> = [];
  for (let from = 0; from < candidates.length;) {
    const lease = await run.limiter.acquire(candidates.length - from);
    const group = candidates.slice(from, from + lease.slots);
    from += group.length;
    groups.push(validateGroup(run, { step, targetColumns, candidates: group }).finally(() => lease.release()));
  }
  return (await settleAll(groups)).flat();
}

/** One activity for these candidates; its verdicts enter the counters and progress as it completes. */
async function validateGroup(run: StepRun, { step, targetColumns, candidates }: StepCandidates): Promise<Verdict[]> {
  let verdicts: GroupVerdict[];
  try {
    ({ verdicts } = await discoveryValidateCandidates({
      step: { conceptual_group: step.conceptual_group },
      targetColumns,
      candidates,
      attempts: VALIDATION_ATTEMPTS,
      ...(run.requirement ? { deliverable: deliverableOf(run.requirement, targetColumns) } : {}),
      ...(run.domains ? { domains: run.domains } : {}),
    }));
  } catch (err) {
    if (isCancellation(err)) throw err;
    // The activity itself gave up (its last attempt timed out, its worker kept dying): the
    // verdicts its last heartbeat recorded stand; the candidates still open fail closed.
    const error = failureMessage(err);
    const recorded =
      err instanceof ActivityFailure && err.cause instanceof TimeoutFailure
        ? readGroupVerdicts(err.cause.lastHeartbeatDetails, candidates.length)
        : undefined;
    verdicts = candidates.map((_, i) => recorded?.[i] ?? { error });
  }
  return candidates.map((candidate, i): Verdict => {
    const v = verdicts[i];
    const verdict: Verdict =
      v && 'answer' in v
        ? { candidate, answer: v.answer, error: undefined }
        : { candidate, answer: undefined, error: v?.error ?? 'no verdict' };
    record(run, verdict);
    return verdict;
  });
}

/** One activity per candidate, each under the run's concurrency bound. */
export async function validateEachCandidate(run: StepRun, work: StepCandidates): Promise<Verdict[]> {
  const { step, targetColumns, candidates } = work;
  return settleAll(
    candidates.map(async (candidate): Promise<Verdict> => {
      let verdict: Verdict;
      try {
        const answer = await run.limiter.run(1, () =>
          discoveryValidateCandidate({ step: { conceptual_group: step.conceptual_group }, targetColumns, candidate }),
        );
        verdict = { candidate, answer, error: undefined };
      } catch (err) {
        if (isCancellation(err)) throw err;
        verdict = { candidate, answer: undefined, error: failureMessage(err) };
      }
      record(run, verdict);
      return verdict;
    }),
  );
}

/** A verdict in the counters and the progress line. */
function record({ tally, progress }: StepRun, verdict: Verdict): void {
  const counts = tally.counts;
  if (verdict.answer) {
    counts.validated++;
    if (verdict.answer.data.is_good_fit) counts.fits++;
    progress.tokens(verdict.answer.usage);
  } else counts.validationsFailed++;
  progress.advance(1, tally.line());
}

/** Waits for every promise; rethrows a cancellation (the workflow ends as cancelled) only once all have settled. */
export async function settleAll<T>(promises: Array<Promise<T>>): Promise<T[]> {
  const settled = await Promise.allSettled(promises);
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((s) => (s as PromiseFulfilledResult<T>).value);
}
