/**
 * `answerBomQuestion` — a BOM question-answering agent made durable:
 *
 *   query reuse (RAG) → focus terms (model) → schema search (RAG) → column resolver →
 *   refinement loop (exact → plural/singular regex → substring, stop at the first rows) →
 *   explainer (model) → final answer + SQL used.
 *
 * Every step is an activity; the original design's `pipeline_state` lives here and is answered by the
 * `pipelineState` query at any moment. Model steps have deterministic fallbacks, so the flow still
 * answers when the model is down after its retries.
 */
import {
  ActivityFailure,
  ApplicationFailure,
  log,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
} from '@temporalio/workflow';
import type { createBomActivities, ResolvedColumns } from './activities';
import type { TokenUsage } from '../../contracts/common';
import {
  bomQuestionFlow,
  pipelineStateQuery,
  STRATEGY_NAMES,
  type BomQuestionInput,
  type BomQuestionOutput,
  type StrategyNumber,
} from './contract';
import { extractFocusTerms } from '../../domain/bom-text';
import { MODEL, SEARCH, WAREHOUSE, withOptions } from '../lib/workflow/activity-options';
import { endingAsEveryFlow } from '../lib/workflow/ending';
import { beginFlow } from '../lib/workflow/flow';
import type { ProgressTracker } from '../lib/workflow/progress';
import {
  answerText,
  BomPipeline,
  closestParts,
  exclusionNote,
  meaningNote,
  noResultsText,
  noSuchPartText,
  templateSummary,
} from './workflow/bom-pipeline';

type BomActivities = ReturnType<typeof createBomActivities>;

// Reading the configured defaults is local and instant.
const { bomSettings } = proxyLocalActivities<BomActivities>({ startToCloseTimeout: '5 seconds' });
// Search is short and optional: a few quick retries, then the flow goes on without it. (Not local
// activities: under load they lengthen workflow tasks, and Vertex AI Search is a network call.)
const { matchBomQueryPattern, searchBomSchema } = proxyActivities<BomActivities>(
  withOptions(SEARCH, {
    startToCloseTimeout: '20 seconds',
    retry: { initialInterval: '300 milliseconds', maximumAttempts: 3 },
  }),
);
// Warehouse calls are the answer: more patience; invalid SQL (non-retryable) fails at once.
const { resolveBomColumns, runBomStrategy, runBomQueryPattern } = proxyActivities<BomActivities>(WAREHOUSE);
// Model calls: three attempts, then the deterministic fallback answers instead.
const { extractBomFocusTerms, explainBomAnswer } = proxyActivities<BomActivities>(
  withOptions(MODEL, {
    startToCloseTimeout: '1 minute',
    heartbeatTimeout: '15 seconds',
    retry: { initialInterval: '500 milliseconds', maximumInterval: '5 seconds', maximumAttempts: 3 },
  }),
);

export async function answerBomQuestion(rawInput: unknown): Promise<BomQuestionOutput> {
  const { input, progress } = beginFlow(bomQuestionFlow.type, bomQuestionFlow.input, rawInput);
  return endingAsEveryFlow(progress, () => answer(input, progress));
}

async function answer(input: BomQuestionInput, progress: ProgressTracker): Promise<BomQuestionOutput> {
  const settings = await bomSettings();
  const ragEnabled = input.ragEnabled ?? settings.ragEnabled;
  const maxStrategies = input.maxStrategies ?? settings.maxStrategies;
  const bom = new BomPipeline(input.question, {
    dataset: input.dataset ?? settings.dataset,
    ragEnabled,
    maxStrategies,
  });
  const { state } = bom;
  setHandler(pipelineStateQuery, () => state);
  const run: BomRun = { bom, progress };
  progress.setTotal(ragEnabled ? 5 : 3);

  // 0. Query reuse: a validated pattern similar enough to the question skips the SQL building.
  if (ragEnabled && settings.reuseEnabled) {
    const reused = await reuseQueryPattern(run, settings.reuseThreshold);
    if (reused) return reused;
  }

  // 1. Focus terms (the model, or the deterministic fallback) and, with RAG, the schema search.
  stage(run, ragEnabled ? 'schema search' : 'column resolver', 'focus terms');
  await findFocusTerms(run);
  if (ragEnabled) await searchSchema(run);

  // 2. Column resolver.
  const resolved = await resolveColumns(run);
  if (resolved.candidate_columns.length === 0) {
    state.reason = resolved.reason;
    return finish(run, 'no_matching_columns', `No matching columns: ${resolved.reason}.`);
  }

  // A part phrase that matches nothing in the BOM tables (even respelt) means no answer: "unobtainium
  // flux capacitors" is not "capacitors". With "or", the other phrases still answer; with "and",
  // or when no phrase matched, nothing can. Older executions ran the ladder here (no grounding).
  if (bom.unanswerable() && patched('bom-grounded-terms')) {
    progress.advance(1, 'no such part');
    state.suggestions = { ...closestParts(resolved.closest ?? {}), ...resolved.samples };
    state.reason = `no part of the BOM tables matches ${state.missing_terms.map((t) => `"${t}"`).join(', ')}`;
    return finish(run, 'no_results', noSuchPartText(state, resolved.closest ?? {}));
  }

  // 3. Refinement loop: at most maxStrategies iterations, stopping at the first non-empty result.
  await runStrategyLadder(run, resolved, maxStrategies);
  progress.advance(1, state.found_results ? `${state.total_rows} BOM(s) with strategy ${state.strategy}` : 'no rows');

  // 4. No rows: the original design's clarifying options (most frequent values of the candidate columns).
  if (!state.found_results) {
    state.suggestions = resolved.samples;
    state.reason = `no strategy (of ${maxStrategies}) matched ${state.search_terms.join(', ')} in ${state.candidate_columns.join(', ')}`;
    return finish(run, 'no_results', noResultsText(state));
  }

  // 5. Explainer.
  return finish(run, 'answered', await explainLadderAnswer(run, resolved));
}

/** What every step of one question shares. */
interface BomRun {
  bom: BomPipeline;
  progress: ProgressTracker;
}

function stage({ bom, progress }: BomRun, name: string, detail = ''): void {
  bom.state.stage = name;
  progress.stage(name, detail);
}

function useTokens({ bom, progress }: BomRun, usage: TokenUsage): void {
  bom.spend(usage);
  progress.tokens(usage);
}

function finish(run: BomRun, outcome: BomQuestionOutput['outcome'], finalAnswer: string): BomQuestionOutput {
  run.bom.state.stage = 'done';
  run.progress.advance(1);
  run.progress.finish('completed', finalAnswer.split('\n')[0]);
  return run.bom.output(outcome, finalAnswer);
}

/** The answer from a validated query pattern, or undefined when none matches or it finds no rows. */
async function reuseQueryPattern(run: BomRun, threshold: number): Promise<BomQuestionOutput | undefined> {
  const { bom, progress } = run;
  const state = bom.state;
  stage(run, 'query reuse');
  const match = await matchBomQueryPattern({ question: bom.question, threshold }).catch((err) => {
    log.warn('query-pattern search failed; building SQL instead', { error: errorText(err) });
    return undefined;
  });
  bom.recordReuse(match, threshold);
  if (match?.matched && match.pattern) {
    const reply = await runBomQueryPattern({ dataset: state.dataset, pattern: match.pattern, params: match.params });
    bom.recordQuery(reply);
    state.attempts_log.push(
      `Reuse: pattern ${match.pattern.id} (similarity ${match.similarity}) - ${reply.total_rows} rows`,
    );
    if (reply.rows.length > 0) {
      bom.found(reply);
      progress.setTotal(3);
      progress.advance(2, `${reply.total_rows} row(s) from pattern ${match.pattern.id}`);
      const summary = await explain(
        run,
        `validated query pattern "${match.pattern.title}"`,
        Object.values(match.params),
      );
      return finish(
        run,
        'answered',
        answerText(summary, state, `reused query pattern ${match.pattern.id}`, match.pattern.row_format),
      );
    }
    state.attempts_log.push('Reuse found nothing: building SQL with the strategy ladder');
  }
  progress.advance(1);
  return undefined;
}

/** The question's focus terms from the model, or the deterministic extraction when it fails or finds none. */
async function findFocusTerms(run: BomRun): Promise<void> {
  const { bom } = run;
  const state = bom.state;
  try {
    const extracted = await extractBomFocusTerms({ question: bom.question });
    useTokens(run, extracted.usage);
    state.focus_terms = extracted.focus_terms;
    if (state.focus_terms.length === 0) {
      state.focus_terms = extractFocusTerms(bom.question);
      if (state.focus_terms.length) state.fallbacks.push('focus_terms (model returned none)');
    }
  } catch (err) {
    log.warn('focus-term model step failed after its retries; using the deterministic extraction', {
      error: errorText(err),
    });
    state.focus_terms = extractFocusTerms(bom.question);
    state.fallbacks.push('focus_terms');
  }
}

/** Schema hints and documented domain terms for the focus terms (none when the search fails). */
async function searchSchema({ bom, progress }: BomRun): Promise<void> {
  const state = bom.state;
  const schema = await searchBomSchema({ focusTerms: state.focus_terms }).catch((err) => {
    log.warn('schema search failed; continuing with defaults', { error: errorText(err) });
    state.fallbacks.push('schema_search');
    return undefined;
  });
  state.schema_hints = schema?.schema_hints ?? [];
  state.domain_terms = schema?.domain_terms ?? {};
  progress.advance(1, `${state.schema_hints.length} schema hint(s)`);
}

async function resolveColumns(run: BomRun): Promise<ResolvedColumns> {
  const { bom, progress } = run;
  const state = bom.state;
  stage(run, 'column resolver', state.focus_terms.join(', '));
  const resolved = await resolveBomColumns({
    dataset: state.dataset,
    focusTerms: state.focus_terms,
    schemaHints: state.schema_hints,
    question: bom.question,
  });
  bom.recordResolution(resolved);
  progress.advance(1, `${resolved.candidate_columns.length} candidate column(s)`);
  return resolved;
}

/**
 * The strategy ladder (exact → plural/singular regex → substring), stopping at the first rows.
 * The grounding already shows the strictest strategy that can match each phrase: the ladder
 * starts at the lowest of them (stricter steps are logged as skipped), and each phrase is
 * searched with its own strategy or the step's, whichever is looser.
 */
async function runStrategyLadder(run: BomRun, resolved: ResolvedColumns, maxStrategies: number): Promise<void> {
  const { bom } = run;
  const state = bom.state;
  const grounded = bom.grounded();
  const levels = grounded.map((c) => c.strategy as number).filter((level) => level <= maxStrategies);
  const start = levels.length > 0 && resolved.concepts && patched('bom-grounded-terms') ? Math.min(...levels) : 1;
  for (let n = 1; n < start; n++) {
    state.attempts_log.push(
      `Strategy ${n}: ${STRATEGY_NAMES[n as StrategyNumber]} - skipped (no value matches ${state.search_terms.map((t) => `"${t}"`).join(', ')} this way)`,
    );
  }
  for (let n = start; n <= maxStrategies; n++) {
    const strategy = n as StrategyNumber;
    stage(run, 'refinement loop', `strategy ${strategy}: ${STRATEGY_NAMES[strategy]}`);
    state.strategy = strategy;
    const reply = await runBomStrategy({
      dataset: state.dataset,
      strategy,
      candidateColumns: state.candidate_columns,
      searchTerms: state.search_terms,
      ...(resolved.concepts
        ? { concepts: resolved.concepts, match: state.match, scope: state.scope, maxStrategies }
        : {}),
      ...(resolved.parent_kind ? { parentKind: resolved.parent_kind } : {}),
    });
    bom.recordQuery(reply);
    const looser = grounded
      .filter((c) => (c.strategy as number) > strategy && (c.strategy as number) <= maxStrategies)
      .map((c) => `"${c.term}" by ${STRATEGY_NAMES[c.strategy as StrategyNumber]}`);
    const detail = [...(reply.rows.length ? ['SUCCESS'] : []), ...looser].join('; ');
    state.attempts_log.push(
      `Strategy ${strategy}: ${STRATEGY_NAMES[strategy]} - ${reply.total_rows} rows${detail ? ` (${detail})` : ''}`,
    );
    if (reply.rows.length > 0) {
      bom.found(reply);
      break;
    }
  }
}

/** The final answer for rows the ladder found: the explainer's summary, the rows and the SQL. */
async function explainLadderAnswer(run: BomRun, resolved: ResolvedColumns): Promise<string> {
  const state = run.bom.state;
  const scopeNote = state.scope === 'top_level' ? ', top-level items through every BOM level' : '';
  const summary = await explain(
    run,
    `strategy ${state.strategy} (${STRATEGY_NAMES[state.strategy as StrategyNumber]})${scopeNote}`,
    state.search_terms,
  );
  const missingNote = state.missing_terms.length
    ? `\n\nNo part matches ${state.missing_terms.map((t) => `"${t}"`).join(', ')}; closest real parts: ${
        Object.values(resolved.closest ?? {})
          .flat()
          .slice(0, 5)
          .join(', ') || 'none'
      }.`
    : '';
  const excluded = exclusionNote(state);
  const reading = meaningNote(state);
  return answerText(
    summary + (reading ? ` ${reading}` : '') + (excluded ? ` ${excluded}` : '') + missingNote,
    state,
    `strategy ${state.strategy}: ${STRATEGY_NAMES[state.strategy as StrategyNumber]}${scopeNote}`,
  );
}

/** The explainer's summary of the rows found, or the template when the model fails. */
async function explain(run: BomRun, method: string, terms: string[]): Promise<string> {
  const state = run.bom.state;
  stage(run, 'explainer');
  try {
    // The explainer reads five rows; the full list stays out of its input (and out of history twice).
    const explained = await explainBomAnswer({
      question: run.bom.question,
      method,
      searchTerms: terms,
      totalRows: state.total_rows,
      rows: state.rows.slice(0, 5),
      match: state.match,
      scope: state.scope,
    });
    useTokens(run, explained.usage);
    return explained.summary;
  } catch (err) {
    log.warn('explainer model step failed after its retries; using the template', { error: errorText(err) });
    state.fallbacks.push('explain');
    return templateSummary(state, terms);
  }
}

function errorText(err: unknown): string {
  if (err instanceof ActivityFailure && err.cause instanceof ApplicationFailure)
    return `${err.cause.type ?? 'error'}: ${err.cause.message}`;
  return err instanceof Error ? err.message : String(err);
}
