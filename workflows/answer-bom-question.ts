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
import type { createBomActivities, QueryRun } from '../activities/bom';
import { addUsage, zeroUsage, type TokenUsage } from '../contracts/common';
import {
  bomQuestionFlow,
  pipelineStateQuery,
  STRATEGY_NAMES,
  type BomQuestionOutput,
  type PipelineState,
  type StrategyNumber,
} from '../contracts/bom';
import { extractFocusTerms } from '../domain/bom-text';
import { MODEL, SEARCH, WAREHOUSE, withOptions } from './lib/activity-options';
import { beginFlow } from './lib/flow';

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

const MAX_LISTED_ROWS = 10;

export async function answerBomQuestion(rawInput: unknown): Promise<BomQuestionOutput> {
  const { input, progress } = beginFlow(bomQuestionFlow.type, bomQuestionFlow.input, rawInput);
  const settings = await bomSettings();
  const ragEnabled = input.ragEnabled ?? settings.ragEnabled;
  const maxStrategies = input.maxStrategies ?? settings.maxStrategies;
  const state: PipelineState = {
    stage: 'starting',
    dataset: input.dataset ?? settings.dataset,
    rag_enabled: ragEnabled,
    max_strategies: maxStrategies,
    focus_terms: [],
    schema_hints: [],
    domain_terms: {},
    reuse: { checked: false, matched: false, pattern_id: null, similarity: null, threshold: null, params: {} },
    tables: [],
    candidate_columns: [],
    ignored_columns: [],
    search_terms: [],
    concepts: [],
    missing_terms: [],
    match: 'any',
    scope: 'direct',
    parent_kind: null,
    strategy: 0,
    sql: null,
    params: {},
    attempts_log: [],
    found_results: false,
    chosen_sql: null,
    chosen_params: {},
    rows: [],
    total_rows: 0,
    suggestions: {},
    reason: null,
    fallbacks: [],
  };
  setHandler(pipelineStateQuery, () => state);
  let usage: TokenUsage = zeroUsage();
  const useTokens = (u: TokenUsage) => {
    usage = addUsage(usage, u);
    progress.tokens(u);
  };
  const stage = (name: string, detail = '') => {
    state.stage = name;
    progress.stage(name, detail);
  };
  const finish = (outcome: BomQuestionOutput['outcome'], finalAnswer: string): BomQuestionOutput => {
    state.stage = 'done';
    progress.advance(1);
    progress.finish('completed', finalAnswer.split('\n')[0]);
    return { question: input.question, final_answer: finalAnswer, outcome, pipeline_state: state, usage };
  };
  progress.setTotal(ragEnabled ? 5 : 3);

  // 0. Query reuse: a validated pattern similar enough to the question skips the SQL building.
  if (ragEnabled && settings.reuseEnabled) {
    stage('query reuse');
    const match = await matchBomQueryPattern({ question: input.question, threshold: settings.reuseThreshold }).catch(
      (err) => {
        log.warn('query-pattern search failed; building SQL instead', { error: errorText(err) });
        return undefined;
      },
    );
    state.reuse = {
      checked: match !== undefined,
      matched: match?.matched ?? false,
      pattern_id: match?.pattern_id ?? null,
      similarity: match?.similarity ?? null,
      threshold: settings.reuseThreshold,
      params: match?.params ?? {},
    };
    if (match?.matched && match.pattern) {
      const run = await runBomQueryPattern({ dataset: state.dataset, pattern: match.pattern, params: match.params });
      state.sql = run.sql;
      state.params = run.params;
      state.attempts_log.push(
        `Reuse: pattern ${match.pattern.id} (similarity ${match.similarity}) - ${run.total_rows} rows`,
      );
      if (run.rows.length > 0) {
        found(state, run);
        progress.setTotal(3);
        progress.advance(2, `${run.total_rows} row(s) from pattern ${match.pattern.id}`);
        const summary = await explain(`validated query pattern "${match.pattern.title}"`, Object.values(match.params));
        return finish(
          'answered',
          answerText(summary, state, `reused query pattern ${match.pattern.id}`, match.pattern.row_format),
        );
      }
      state.attempts_log.push('Reuse found nothing: building SQL with the strategy ladder');
    }
    progress.advance(1);
  }

  // 1. Focus terms (the model, or the deterministic fallback) and, with RAG, the schema search.
  stage(ragEnabled ? 'schema search' : 'column resolver', 'focus terms');
  try {
    const extracted = await extractBomFocusTerms({ question: input.question });
    useTokens(extracted.usage);
    state.focus_terms = extracted.focus_terms;
    if (state.focus_terms.length === 0) {
      state.focus_terms = extractFocusTerms(input.question);
      if (state.focus_terms.length) state.fallbacks.push('focus_terms (model returned none)');
    }
  } catch (err) {
    log.warn('focus-term model step failed after its retries; using the deterministic extraction', {
      error: errorText(err),
    });
    state.focus_terms = extractFocusTerms(input.question);
    state.fallbacks.push('focus_terms');
  }
  if (ragEnabled) {
    const schema = await searchBomSchema({ focusTerms: state.focus_terms }).catch((err) => {
      log.warn('schema search failed; continuing with defaults', { error: errorText(err) });
      state.fallbacks.push('schema_search');
      return undefined;
    });
    state.schema_hints = schema?.schema_hints ?? [];
    state.domain_terms = schema?.domain_terms ?? {};
    progress.advance(1, `${state.schema_hints.length} schema hint(s)`);
  }

  // 2. Column resolver.
  stage('column resolver', state.focus_terms.join(', '));
  const resolved = await resolveBomColumns({
    dataset: state.dataset,
    focusTerms: state.focus_terms,
    schemaHints: state.schema_hints,
    question: input.question,
  });
  state.tables = resolved.tables;
  state.candidate_columns = resolved.candidate_columns;
  state.ignored_columns = resolved.ignored_columns;
  state.search_terms = resolved.search_terms;
  state.concepts = (resolved.concepts ?? []).map((c) => ({
    term: c.term,
    asked: c.asked,
    strategy: c.level,
    columns: c.level === null ? [] : c.columns[c.level],
    example: c.example,
  }));
  state.missing_terms = resolved.missing_terms ?? [];
  state.match = resolved.match ?? 'any';
  state.scope = resolved.scope ?? 'direct';
  state.parent_kind = resolved.parent_kind ? `${resolved.parent_kind.term} (${resolved.parent_kind.column})` : null;
  progress.advance(1, `${resolved.candidate_columns.length} candidate column(s)`);
  if (resolved.candidate_columns.length === 0) {
    state.reason = resolved.reason;
    return finish('no_matching_columns', `No matching columns: ${resolved.reason}.`);
  }

  // A part phrase that matches nothing in the BOM tables (even respelt) means no answer: "unobtainium
  // flux capacitors" is not "capacitors". With "or", the other phrases still answer; with "and",
  // or when no phrase matched, nothing can. Older executions ran the ladder here (no grounding).
  const grounded = state.concepts.filter((c) => c.strategy !== null);
  if (
    state.missing_terms.length > 0 &&
    (state.match === 'all' || grounded.length === 0) &&
    patched('bom-grounded-terms')
  ) {
    progress.advance(1, 'no such part');
    state.suggestions = { ...closestParts(resolved.closest ?? {}), ...resolved.samples };
    state.reason = `no part of the BOM tables matches ${state.missing_terms.map((t) => `"${t}"`).join(', ')}`;
    return finish('no_results', noSuchPartText(state, resolved.closest ?? {}));
  }

  // 3. Refinement loop: at most maxStrategies iterations, stopping at the first non-empty result.
  // The grounding already shows the strictest strategy that can match each phrase: the ladder
  // starts at the lowest of them (stricter steps are logged as skipped), and each phrase is
  // searched with its own strategy or the step's, whichever is looser.
  const levels = grounded.map((c) => c.strategy as number).filter((level) => level <= maxStrategies);
  const start = levels.length > 0 && resolved.concepts && patched('bom-grounded-terms') ? Math.min(...levels) : 1;
  for (let n = 1; n < start; n++) {
    state.attempts_log.push(
      `Strategy ${n}: ${STRATEGY_NAMES[n as StrategyNumber]} - skipped (no value matches ${state.search_terms.map((t) => `"${t}"`).join(', ')} this way)`,
    );
  }
  for (let n = start; n <= maxStrategies; n++) {
    const strategy = n as StrategyNumber;
    stage('refinement loop', `strategy ${strategy}: ${STRATEGY_NAMES[strategy]}`);
    state.strategy = strategy;
    const run = await runBomStrategy({
      dataset: state.dataset,
      strategy,
      candidateColumns: state.candidate_columns,
      searchTerms: state.search_terms,
      ...(resolved.concepts
        ? { concepts: resolved.concepts, match: state.match, scope: state.scope, maxStrategies }
        : {}),
      ...(resolved.parent_kind ? { parentKind: resolved.parent_kind } : {}),
    });
    state.sql = run.sql;
    state.params = run.params;
    const looser = grounded
      .filter((c) => (c.strategy as number) > strategy && (c.strategy as number) <= maxStrategies)
      .map((c) => `"${c.term}" by ${STRATEGY_NAMES[c.strategy as StrategyNumber]}`);
    const detail = [...(run.rows.length ? ['SUCCESS'] : []), ...looser].join('; ');
    state.attempts_log.push(
      `Strategy ${strategy}: ${STRATEGY_NAMES[strategy]} - ${run.total_rows} rows${detail ? ` (${detail})` : ''}`,
    );
    if (run.rows.length > 0) {
      found(state, run);
      break;
    }
  }
  progress.advance(1, state.found_results ? `${state.total_rows} BOM(s) with strategy ${state.strategy}` : 'no rows');

  // 4. No rows: the original design's clarifying options (most frequent values of the candidate columns).
  if (!state.found_results) {
    state.suggestions = resolved.samples;
    state.reason = `no strategy (of ${maxStrategies}) matched ${state.search_terms.join(', ')} in ${state.candidate_columns.join(', ')}`;
    return finish('no_results', noResultsText(state));
  }

  // 5. Explainer.
  const scopeNote = state.scope === 'top_level' ? ', top-level items through every BOM level' : '';
  const summary = await explain(
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
  return finish(
    'answered',
    answerText(
      summary + missingNote,
      state,
      `strategy ${state.strategy}: ${STRATEGY_NAMES[state.strategy as StrategyNumber]}${scopeNote}`,
    ),
  );

  async function explain(method: string, terms: string[]): Promise<string> {
    stage('explainer');
    try {
      // The explainer reads five rows; the full list stays out of its input (and out of history twice).
      const explained = await explainBomAnswer({
        question: input.question,
        method,
        searchTerms: terms,
        totalRows: state.total_rows,
        rows: state.rows.slice(0, 5),
        match: state.match,
        scope: state.scope,
      });
      useTokens(explained.usage);
      return explained.summary;
    } catch (err) {
      log.warn('explainer model step failed after its retries; using the template', { error: errorText(err) });
      state.fallbacks.push('explain');
      return templateSummary(state, terms);
    }
  }
}

function found(state: PipelineState, run: QueryRun): void {
  state.found_results = true;
  state.chosen_sql = run.sql;
  state.chosen_params = run.params;
  state.rows = run.rows;
  state.total_rows = run.total_rows;
}

/** The explainer's fallback: the count and the first examples, from the rows alone. */
function templateSummary(state: PipelineState, terms: string[]): string {
  const examples = state.rows
    .slice(0, 3)
    .map((r) => Object.values(r).slice(0, 2).join(' '))
    .join('; ');
  const shown = state.total_rows > state.rows.length ? ` (showing the first ${state.rows.length})` : '';
  return `Found ${state.total_rows} result(s) for ${terms.join(state.match === 'all' ? ' and ' : ' or ')}${shown}, e.g. ${examples}.`;
}

/** The closest real parts per missing phrase, as clarifying options keyed like the column samples. */
function closestParts(closest: Record<string, string[]>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [term, parts] of Object.entries(closest)) if (parts.length) out[`closest parts to "${term}"`] = parts;
  return out;
}

function noSuchPartText(state: PipelineState, closest: Record<string, string[]>): string {
  const lines = Object.entries(closest).map(([term, parts]) =>
    parts.length ? `- instead of "${term}": ${parts.join(', ')}` : `- nothing close to "${term}"`,
  );
  if (Object.values(closest).some((parts) => parts.length === 0)) {
    // Nothing resembles the phrase: the frequent values of the searched columns, as the original design offered.
    const frequent = Object.entries(state.suggestions).filter(([column]) => !column.startsWith('closest parts'));
    lines.push(...frequent.slice(0, 2).map(([column, values]) => `- ${column}: ${values.join(', ')}`));
  }
  const found = state.concepts.filter((c) => c.strategy !== null).map((c) => `"${c.asked}"`);
  return [
    `No results found: no part in the BOM tables matches ${state.missing_terms.map((t) => `"${t}"`).join(', ')}` +
      (found.length
        ? ` (${found.join(', ')} alone would match, but the question asks for ${state.match === 'all' ? 'all of them' : 'that part'}).`
        : '.'),
    'Did you mean one of these parts?',
    ...lines,
  ].join('\n');
}

/** One line per row: the pattern's format, else the ladder's BOM line, else the row's values. */
function formatRow(row: Record<string, unknown>, rowFormat?: string): string {
  if (rowFormat) return rowFormat.replace(/\{(\w+)\}/g, (_m, key: string) => String(row[key] ?? ''));
  if ('parent_item_number' in row && 'matching_components' in row) {
    const n = Number(row.matching_components);
    return `${row.parent_item_number}: ${row.parent_description ?? ''} (${n} matching component${n === 1 ? '' : 's'}, e.g. ${row.example_component})`;
  }
  return Object.values(row).join(' | ');
}

/** The original design's answer shape: the summary, the rows, then the exact SQL and its parameters. */
function answerText(summary: string, state: PipelineState, method: string, rowFormat?: string): string {
  const lines = state.rows.slice(0, MAX_LISTED_ROWS).map((r) => `- ${formatRow(r, rowFormat)}`);
  const more = state.total_rows - lines.length;
  if (more > 0)
    lines.push(
      `- … and ${more} more${state.total_rows > state.rows.length ? ` (${state.rows.length} returned, LIMIT 100)` : ''}`,
    );
  return [
    summary,
    '',
    ...lines,
    '',
    `SQL used (${method}):`,
    '```sql',
    state.chosen_sql ?? '',
    '```',
    `Parameters: ${JSON.stringify(state.chosen_params)}`,
  ].join('\n');
}

function noResultsText(state: PipelineState): string {
  const options = Object.entries(state.suggestions)
    .slice(0, 2)
    .map(([column, values]) => `- ${column}: ${values.join(', ')}`);
  const mapped = Object.entries(state.domain_terms).map(([term, where]) => `- "${term}" is documented as ${where}`);
  return [
    `No results found for ${state.search_terms.map((t) => `"${t}"`).join(', ')} after ${state.attempts_log.length} attempt(s) (${state.attempts_log.join('; ')}).`,
    'Did you mean one of these values?',
    ...mapped,
    ...options,
  ].join('\n');
}

function errorText(err: unknown): string {
  if (err instanceof ActivityFailure && err.cause instanceof ApplicationFailure)
    return `${err.cause.type ?? 'error'}: ${err.cause.message}`;
  return err instanceof Error ? err.message : String(err);
}
