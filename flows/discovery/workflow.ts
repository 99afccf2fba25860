import {
  ActivityCancellationType,
  ApplicationFailure,
  isCancellation,
  patched,
  proxyActivities,
  setHandler,
} from '@temporalio/workflow';
import type { createDiscoveryActivities } from './activities';
import { addUsage, zeroUsage, type TokenUsage } from '../../contracts/common';
import {
  discoverFromPrpFlow,
  discoveryCountsQuery,
  type CandidateTable,
  type Column,
  type DiscoverFromPrpOutput,
  type RejectedCandidate,
  type SearchStep,
  type StepResult,
} from './contract';
import { extractTargetSchema, SCHEMA_FROM_ANY_TABLE } from './prp-schema';
import { documentDomains } from './domain-names';
import { LONG_MODEL, SEARCH, withOptions } from '../lib/workflow/activity-options';
import { recordEnd } from '../lib/workflow/ending';
import { beginFlow } from '../lib/workflow/flow';
import { DiscoveryTally, sortVerdicts } from './workflow/discovery-tally';
import { Limiter } from './workflow/limiter';
import {
  failureMessage,
  settleAll,
  validateEachCandidate,
  validateInGroups,
  VALIDATE_IN_GROUPS,
  VALIDATE_WITH_DOMAINS,
  type StepRun,
} from './workflow/validation';
import { FailureType } from '../../contracts/failures';
import { SET_ASIDE_LOOKALIKES, setAsideLookalikes } from './workflow/lookalikes';
import { RESPLIT_LEFTOVERS, RESPLIT_UNSOURCED, splitUnsupplied, type CandidateCover } from './workflow/resplit';

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

interface StepOutcome {
  result: StepResult;
  rejected: RejectedCandidate[];
  usage: TokenUsage;
  /** The columns each candidate could supply, fit or not (what a re-split follows). */
  covers: CandidateCover[];
}

/** The columns some accepted table of these outcomes supplies. */
const suppliedBy = (outcomes: StepOutcome[]): Set<string> =>
  new Set(outcomes.flatMap((o) => o.result.discovered_tables.flatMap((t) => t.matched_columns)));

/** What is still missing: target columns no accepted table supplies, the derived ones apart. */
function sourcing(
  targetSchema: Column[],
  outcomes: StepOutcome[],
  derivedByPlan: string[],
): { unsourced_columns: string[]; derived_columns: string[] } {
  const names = new Set(targetSchema.map((c) => c.name));
  const derived = [...new Set(derivedByPlan)].filter((n) => names.has(n));
  const supplied = suppliedBy(outcomes);
  return {
    unsourced_columns: targetSchema.map((c) => c.name).filter((n) => !supplied.has(n) && !derived.includes(n)),
    derived_columns: derived,
  };
}

/**
 * A step, then, if its accepted tables leave some of its columns unsupplied, one round of
 * smaller searches for those columns (see workflow/resplit.ts; with `leftovers`, also when it
 * found a table for the rest). The step reports the columns
 * that neither it nor its follow-ups found a table for; a step that searched and validated but
 * found no table says so (`no_source`), never `ok`.
 */
async function runStepAndSplits(
  run: StepSearchRun,
  step: SearchStep,
  columnsOf: (step: SearchStep) => Column[],
  leftovers = false,
): Promise<StepOutcome[]> {
  const targetColumns = columnsOf(step);
  const first = await runStep(run, step, targetColumns);
  const splits =
    first.result.status === 'failed'
      ? []
      : splitUnsupplied(step, targetColumns, first.covers, suppliedBy([first]), { leftovers });
  if (splits.length) {
    run.tally.counts.planned += splits.length;
    run.progress.advance(0, run.tally.line());
  }
  const more = await settleAll(splits.map((s) => runStep(run, s, columnsOf(s))));
  const all = [first, ...more];
  for (const o of more) o.result = { ...o.result, split_from: step.conceptual_group };
  const supplied = suppliedBy(all);
  for (const o of all) {
    const missing = o.result.target_columns.map((c) => c.name).filter((n) => !supplied.has(n));
    const noSource = o.result.status === 'ok' && o.result.discovered_tables.length === 0;
    o.result = {
      ...o.result,
      ...(noSource ? { status: 'no_source' as const } : {}),
      ...(missing.length ? { unsourced_columns: missing } : {}),
    };
  }
  return all;
}

/**
 * Plan → search per step → validate each step's candidates → aggregate, with steps and
 * validations in parallel under one concurrency bound. Failures stay inside their step;
 * cancellation stops all.
 */
export async function discoverFromPrp(rawInput: unknown): Promise<DiscoverFromPrpOutput> {
  const { input, progress } = beginFlow(discoverFromPrpFlow.type, discoverFromPrpFlow.input, rawInput);
  // Runs started before candidates were validated in groups validate each in its own activity.
  // Asked in the first workflow task: the patch records a marker and a search-attribute update,
  // which would otherwise slow the task between a step's search and its validations.
  const validate = patched(VALIDATE_IN_GROUPS) ? validateInGroups : validateEachCandidate;
  // Runs started before groups were re-split report steps as before: no follow-up searches.
  const resplit = patched(RESPLIT_UNSOURCED);
  // Runs started before leftover columns were searched report them unsourced, as before.
  const leftovers = resplit && patched(RESPLIT_LEFTOVERS);
  // Runs started before validations were told the document's domain names judge tables without them.
  const withDomains = patched(VALIDATE_WITH_DOMAINS);
  // Runs started before accepted tables were compared with each other keep every look-alike.
  const compareLookalikes = patched(SET_ASIDE_LOOKALIKES);
  const tally = new DiscoveryTally();
  const { counts } = tally;
  setHandler(discoveryCountsQuery, () => counts);

  try {
    const schemaSource = input.targetSchema ? 'input' : 'prp';
    let targetSchema = input.targetSchema ?? extractTargetSchema(input.prp);
    // A PRP without a section 9 may hold its layout under a heading of its own; runs started
    // before such a table was read failed here, and replay as they ran.
    if (!targetSchema.length && !input.targetSchema && patched(SCHEMA_FROM_ANY_TABLE))
      targetSchema = extractTargetSchema(input.prp, { anyTable: true });
    if (!targetSchema.length) {
      throw ApplicationFailure.nonRetryable(
        'discoverFromPrp: no target schema: pass targetSchema, or give the PRP a markdown table ' +
          'of | Column | Type | Description |, in a section 9 (e.g. "## 9. Target Schema") or under ' +
          'a heading of its own',
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
    const run: StepSearchRun = {
      limiter: new Limiter(input.concurrency),
      tally,
      progress,
      input,
      validate,
      requirement: targetSchema,
      ...(withDomains ? { domains: documentDomains(input.prp) } : {}),
    };
    const columnsByName = new Map(targetSchema.map((c) => [c.name, c]));
    const columnsOf = (step: SearchStep) =>
      [...new Set(step.target_columns_for_validation)].map((n) => columnsByName.get(n)!).filter(Boolean);
    const outcomes = (
      await settleAll(
        steps.map((step) =>
          resplit
            ? runStepAndSplits(run, step, columnsOf, leftovers)
            : runStep(run, step, columnsOf(step)).then((o) => [o]),
        ),
      )
    ).flat();

    for (const o of outcomes) usage = addUsage(usage, o.usage);
    // Each candidate was judged on its own: look-alikes (other leagues' games, another ledger)
    // that a better source makes redundant are set aside, and reported as such.
    let setAside: RejectedCandidate[] = [];
    if (compareLookalikes) {
      const compared = setAsideLookalikes(
        outcomes.map((o) => o.result),
        run.domains,
      );
      outcomes.forEach((o, i) => (o.result = compared.results[i]));
      setAside = compared.rejected;
    }
    const output: DiscoverFromPrpOutput = {
      results: outcomes.map((o) => o.result),
      rejected: [...outcomes.flatMap((o) => o.rejected), ...setAside],
      uncovered_columns: uncovered,
      ...(resplit ? sourcing(targetSchema, outcomes, plan.data.derived_columns ?? []) : {}),
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
    await recordEnd(progress, err, { detail: () => tally.line() });
    throw err;
  }
}

/** What every step of one run shares, how many candidates a search returns, and how they are validated. */
interface StepSearchRun extends StepRun {
  input: { maxCandidatesPerStep: number };
  validate: typeof validateInGroups;
}

/** One planned step: its catalog search, then each candidate validated against the step's target columns. */
async function runStep(run: StepSearchRun, step: SearchStep, targetColumns: Column[]): Promise<StepOutcome> {
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
      covers: [],
    };
  };
  try {
    ({ candidates, skipped } = await limiter.run(1, () =>
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

  const verdicts = await run.validate(run, { step, targetColumns, candidates });

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
    covers: verdicts.flatMap((v) => (v.answer ? [{ matched: v.answer.data.matched_columns }] : [])),
  };
}
