import {
  ActivityCancellationType,
  ApplicationFailure,
  isCancellation,
  proxyActivities,
  rootCause,
  setHandler,
} from '@temporalio/workflow';
import type { createDiscoveryActivities } from '../activities/discovery';
import { addUsage, zeroUsage, type TokenUsage } from '../contracts/common';
import {
  discoverFromPrpFlow,
  discoveryCountsQuery,
  type CandidateTable,
  type Column,
  type DiscoverFromPrpOutput,
  type RejectedCandidate,
  type SearchStep,
  type StepResult,
} from '../contracts/discovery';
import { extractTargetSchema } from '../domain/prp-schema';
import { LONG_MODEL, MODEL, SEARCH, withOptions } from './lib/activity-options';
import { beginFlow } from './lib/flow';
import type { ProgressTracker } from './lib/progress';
import { DiscoveryTally, sortVerdicts, type Verdict } from './discovery/discovery-tally';
import { FailureType } from '../contracts/failures';

type DiscoveryActivities = ReturnType<typeof createDiscoveryActivities>;

// Every activity waits for its cancellation to be acknowledged (the activity heartbeats and stops
// its HTTP call), so a cancelled workflow closes only once no search or model call is running.
const cancellationType = ActivityCancellationType.WAIT_CANCELLATION_COMPLETED;

// Searches are quick and cheap: fail over fast; after the retries the step records the error.
const { discoverySearchCatalog } = proxyActivities<DiscoveryActivities>(
  withOptions(SEARCH, {
    heartbeatTimeout: '10 seconds',
    retry: { maximumInterval: '5 seconds', maximumAttempts: 3 },
    cancellationType,
  }),
);
// The plan reads the whole PRP: a longer call, retried patiently (nothing happens without it).
const { discoveryPlanSearch } = proxyActivities<DiscoveryActivities>(
  withOptions(LONG_MODEL, {
    heartbeatTimeout: '5 seconds',
    retry: { backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 6 },
    cancellationType,
  }),
);
// One validation per candidate; a validation that keeps failing is recorded and fails closed.
const { discoveryValidateCandidate } = proxyActivities<DiscoveryActivities>(
  withOptions(MODEL, { heartbeatTimeout: '5 seconds', retry: { maximumAttempts: 4 }, cancellationType }),
);

/**
 * At most `limit` activities at once across all steps. A plain FIFO of waiters (deterministic:
 * workflow code runs single-threaded and promises resolve in order), handing a freed slot
 * straight to the next waiter.
 */
class Limiter {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly limit: number) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.active < this.limit) this.active++;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    }
  }
}

/** The message a person can act on: the activity's own failure rather than "Activity task failed". */
function failureMessage(err: unknown): string {
  return rootCause(err) ?? String(err);
}

/** Waits for every promise; rethrows a cancellation (the workflow ends as cancelled) only once all have settled. */
async function settleAll<T>(promises: Array<Promise<T>>): Promise<T[]> {
  const settled = await Promise.allSettled(promises);
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((s) => (s as PromiseFulfilledResult<T>).value);
}

interface StepOutcome {
  result: StepResult;
  rejected: RejectedCandidate[];
  usage: TokenUsage;
}

/**
 * Plan → search per step → validate per candidate → aggregate, with steps and validations in
 * parallel under one concurrency bound. Failures stay inside their step; cancellation stops all.
 */
export async function discoverFromPrp(rawInput: unknown): Promise<DiscoverFromPrpOutput> {
  const { input, progress } = beginFlow(discoverFromPrpFlow.type, discoverFromPrpFlow.input, rawInput);
  const tally = new DiscoveryTally();
  const { counts } = tally;
  setHandler(discoveryCountsQuery, () => counts);

  try {
    const schemaSource = input.targetSchema ? 'input' : 'prp';
    const targetSchema = input.targetSchema ?? extractTargetSchema(input.prp);
    if (!targetSchema.length) {
      throw ApplicationFailure.nonRetryable(
        'discoverFromPrp: no target schema: pass targetSchema, or give the PRP a section ' +
          '9 (e.g. "## 9. Target Schema") with a markdown table of | Column | Type | ' +
          'Description |',
        FailureType.TargetSchemaMissing,
      );
    }

    progress.stage(
      'search planner',
      `${targetSchema.length} target column(s) from the ${schemaSource === 'input' ? 'input' : 'PRP'}`,
    );
    const plan = await discoveryPlanSearch({ prp: input.prp, targetSchema });
    let usage = addUsage(zeroUsage(), plan.usage);
    progress.tokens(plan.usage);
    const steps = plan.data.steps;
    const covered = new Set(steps.flatMap((s) => s.target_columns_for_validation));
    const uncovered = targetSchema.map((c) => c.name).filter((name) => !covered.has(name));
    counts.planned = steps.length;

    progress.stage('discovery orchestrator', tally.line(), steps.length);
    const run: StepRun = { limiter: new Limiter(input.concurrency), tally, progress, input };
    const columnsByName = new Map(targetSchema.map((c) => [c.name, c]));
    const outcomes = await settleAll(
      steps.map((step) =>
        runStep(
          run,
          step,
          [...new Set(step.target_columns_for_validation)].map((n) => columnsByName.get(n)!).filter(Boolean),
        ),
      ),
    );

    for (const o of outcomes) usage = addUsage(usage, o.usage);
    const output: DiscoverFromPrpOutput = {
      results: outcomes.map((o) => o.result),
      rejected: outcomes.flatMap((o) => o.rejected),
      uncovered_columns: uncovered,
      target_schema: targetSchema,
      schema_source: schemaSource,
      stats: {
        steps: steps.length,
        searches_failed: counts.searchesFailed,
        candidates: counts.candidates,
        validations_failed: counts.validationsFailed,
        fits: counts.fits,
      },
      usage,
    };
    progress.finish('completed', tally.line());
    return output;
  } catch (err) {
    progress.finish(isCancellation(err) ? 'cancelled' : 'failed', `${tally.line()} — ${failureMessage(err)}`);
    throw err;
  }
}

/** What every step of one run shares. */
interface StepRun {
  limiter: Limiter;
  tally: DiscoveryTally;
  progress: ProgressTracker;
  input: { maxCandidatesPerStep: number };
}

/** One planned step: its catalog search, then each candidate validated against the step's target columns. */
async function runStep(run: StepRun, step: SearchStep, targetColumns: Column[]): Promise<StepOutcome> {
  const { limiter, tally, progress } = run;
  const counts = tally.counts;
  const base = {
    conceptual_group: step.conceptual_group,
    search_query: step.search_query,
    target_columns: targetColumns,
  };
  let candidates: CandidateTable[];
  let skipped = 0;
  const searchFailed = (error: string): StepOutcome => {
    counts.searchesFailed++;
    progress.advance(1, tally.line());
    return {
      result: { ...base, discovered_tables: [], candidates_found: 0, status: 'failed', error },
      rejected: [],
      usage: zeroUsage(),
    };
  };
  try {
    ({ candidates, skipped } = await limiter.run(() =>
      discoverySearchCatalog({ query: step.search_query, limit: run.input.maxCandidatesPerStep }),
    ));
  } catch (err) {
    if (isCancellation(err)) throw err;
    return searchFailed(`search failed: ${failureMessage(err)}`);
  }
  // Hits, but none of them a table description (a data store of other documents, a changed
  // document schema): that is a broken catalog, not "no table fits".
  if (candidates.length === 0 && skipped > 0) {
    return searchFailed(
      `search returned ${skipped} document(s), none describing a table (table_id and a schema): check the catalog data store`,
    );
  }
  counts.searched++;
  counts.candidates += candidates.length;
  progress.setTotal((progress.current.total ?? 0) + candidates.length);
  progress.advance(1, tally.line());

  const verdicts = await settleAll(
    candidates.map(async (candidate): Promise<Verdict> => {
      try {
        const answer = await limiter.run(() =>
          discoveryValidateCandidate({ step: { conceptual_group: step.conceptual_group }, targetColumns, candidate }),
        );
        counts.validated++;
        if (answer.data.is_good_fit) counts.fits++;
        progress.tokens(answer.usage);
        progress.advance(1, tally.line());
        return { candidate, answer, error: undefined };
      } catch (err) {
        if (isCancellation(err)) throw err;
        counts.validationsFailed++;
        progress.advance(1, tally.line());
        return { candidate, answer: undefined, error: failureMessage(err) };
      }
    }),
  );

  const { discovered, rejected, usage } = sortVerdicts(step, verdicts);
  const failures = verdicts.filter((v) => !v.answer);
  return {
    result: {
      ...base,
      discovered_tables: discovered,
      candidates_found: candidates.length,
      status: failures.length ? 'partial' : 'ok',
      ...(failures.length
        ? { error: `${failures.length} of ${candidates.length} validation(s) failed: ${failures[0].error}` }
        : {}),
    },
    rejected,
    usage,
  };
}
