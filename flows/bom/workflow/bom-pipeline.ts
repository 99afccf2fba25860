/**
 * `answerBomQuestion`'s pipeline state (the original design's `pipeline_state`, answered by the
 * `pipelineState` query) with the bookkeeping of each step, and the answer texts built from it.
 * No Temporal calls here, so unit tests construct a pipeline and call it.
 */
import type { PatternMatch, QueryRun, ResolvedColumns } from '../activities';
import { addUsage, zeroUsage, type TokenUsage } from '../../../contracts/common';
import type { BomQuestionOutput, PipelineState } from '../contract';
import { nameHolds } from '../../../domain/bom-text';

const MAX_LISTED_ROWS = 10;

export class BomPipeline {
  readonly state: PipelineState;
  usage: TokenUsage = zeroUsage();

  constructor(
    readonly question: string,
    settings: { dataset: string; ragEnabled: boolean; maxStrategies: number },
  ) {
    this.state = {
      stage: 'starting',
      dataset: settings.dataset,
      rag_enabled: settings.ragEnabled,
      max_strategies: settings.maxStrategies,
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
  }

  spend(usage: TokenUsage): void {
    this.usage = addUsage(this.usage, usage);
  }

  /** The query-pattern search's outcome (undefined when the search itself failed). */
  recordReuse(match: PatternMatch | undefined, threshold: number): void {
    this.state.reuse = {
      checked: match !== undefined,
      matched: match?.matched ?? false,
      pattern_id: match?.pattern_id ?? null,
      similarity: match?.similarity ?? null,
      threshold,
      params: match?.params ?? {},
    };
  }

  /** The SQL just run (kept whether or not it found rows). */
  recordQuery(run: QueryRun): void {
    this.state.sql = run.sql;
    this.state.params = run.params;
  }

  /** The rows that answer the question, and the SQL that found them. */
  found(run: QueryRun): void {
    const state = this.state;
    state.found_results = true;
    state.chosen_sql = run.sql;
    state.chosen_params = run.params;
    state.rows = run.rows;
    state.total_rows = run.total_rows;
  }

  recordResolution(resolved: ResolvedColumns): void {
    const state = this.state;
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
      ...(c.via === 'qualifier' || c.via === 'meaning' || c.via === 'situation' ? { via: c.via } : {}),
      ...(c.similarity !== undefined ? { similarity: c.similarity } : {}),
      ...(c.exclude ? { exclude: c.exclude } : {}),
    }));
    state.missing_terms = resolved.missing_terms ?? [];
    // Set only when there is something to say, so a question without exclusions or unknown
    // words keeps the state it always had.
    if (resolved.excluded_missing?.length) state.excluded_missing = resolved.excluded_missing;
    if (resolved.unclear && Object.keys(resolved.unclear).length) state.not_understood = resolved.unclear;
    if (resolved.names_products && Object.keys(resolved.names_products).length)
      state.names_products = resolved.names_products;
    state.match = resolved.match ?? 'any';
    state.scope = resolved.scope ?? 'direct';
    state.parent_kind = resolved.parent_kind ? `${resolved.parent_kind.term} (${resolved.parent_kind.column})` : null;
  }

  /** The question's part phrases that match something in the BOM tables (not the excluded ones). */
  grounded(): PipelineState['concepts'] {
    return this.state.concepts.filter((c) => c.strategy !== null && !c.exclude);
  }

  /** The parts the question excludes ("but not Y", "other than Y") that match something. */
  excluded(): PipelineState['concepts'] {
    return this.state.concepts.filter((c) => c.strategy !== null && c.exclude);
  }

  /** With "and", or when no phrase matched, a phrase that matches nothing means no answer. */
  unanswerable(): boolean {
    const state = this.state;
    return state.missing_terms.length > 0 && (state.match === 'all' || this.grounded().length === 0);
  }

  output(outcome: BomQuestionOutput['outcome'], finalAnswer: string): BomQuestionOutput {
    this.state.stage = 'done';
    return {
      question: this.question,
      final_answer: finalAnswer,
      outcome,
      pipeline_state: this.state,
      usage: this.usage,
    };
  }
}

/** The explainer's fallback: the count and the first examples, from the rows alone. */
export function templateSummary(state: PipelineState, terms: string[]): string {
  const examples = state.rows
    .slice(0, 3)
    .map((r) => Object.values(r).slice(0, 2).join(' '))
    .join('; ');
  const shown = state.total_rows > state.rows.length ? ` (showing the first ${state.rows.length})` : '';
  const what = terms.length ? ` for ${terms.join(state.match === 'all' ? ' and ' : ' or ')}` : '';
  return `Found ${state.total_rows} result(s)${what}${shown}, e.g. ${examples}.`;
}

/** The closest real parts per missing phrase, as clarifying options keyed like the column samples. */
export function closestParts(closest: Record<string, string[]>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [term, parts] of Object.entries(closest)) if (parts.length) out[`closest parts to "${term}"`] = parts;
  return out;
}

/**
 * The phrases read by meaning, said plainly: no part's name holds the asked words, so the answer
 * rests on a reading the person should be able to check ("gearbox" read as MOTOR is a guess).
 */
export function meaningNote(state: PipelineState): string {
  const read = state.concepts.filter((c) => c.strategy !== null && c.via === 'meaning' && !c.exclude);
  // A last word that names no part, left off: said as such, not as a guess by meaning.
  const leftOff = state.concepts
    .filter((c) => c.strategy !== null && c.via === 'situation' && !c.exclude)
    .map((c) => `Read "${c.asked}" as the part "${c.term}": the word after it names no part.`);
  if (!read.length) return leftOff.join(' ');
  const readings = read.map(
    (c) => `"${c.asked}" as "${c.term}"${c.similarity !== undefined ? ` (similarity ${c.similarity.toFixed(2)})` : ''}`,
  );
  return [
    `Read by meaning: ${readings.join(', ')}. No part's name says ${read.map((c) => `"${c.asked}"`).join(' or ')}; ` +
      `if that is not what you meant, the data may have no such part.`,
    ...leftOff,
  ].join(' ');
}

/**
 * What the answer leaves out, in words: the BOMs that use an excluded part ("X but not Y"), the
 * lines of the parts "other than" the asked ones, and excluded phrases that matched nothing.
 */
export function exclusionNote(state: PipelineState): string {
  const quoted = (cs: PipelineState['concepts']) => cs.map((c) => `"${c.asked}"`).join(', ');
  const excluded = state.concepts.filter((c) => c.strategy !== null && c.exclude);
  const boms = excluded.filter((c) => c.exclude === 'bom');
  const lines = excluded.filter((c) => c.exclude === 'component');
  const kind = state.scope === 'top_level' ? 'items' : 'BOMs';
  const notes = [
    ...(boms.length ? [`Left out: the ${kind} that also use ${quoted(boms)}.`] : []),
    ...(lines.length ? [`Not counted: ${quoted(lines)} (the parts asked for, other than these).`] : []),
    ...(state.excluded_missing?.length
      ? [
          `Nothing was left out for ${state.excluded_missing.map((t) => `"${t}"`).join(', ')}: no part in the BOM tables matches it.`,
        ]
      : []),
  ];
  return notes.join(' ');
}

/** "… names products, not a part" for the missing phrases only the products' own names say. */
function namesProducts(state: PipelineState): string {
  const named = Object.entries(state.names_products ?? {}).filter(([, p]) => p.length > 0);
  if (!named.length) return '';
  return named
    .map(
      ([term, products]) =>
        ` "${term}" is said only in the names of products (${products.join(', ')}), not of a part in their BOMs.`,
    )
    .join('');
}

/** "did not understand …" for the missing phrases whose words nothing in the data means. */
function notUnderstood(state: PipelineState): string {
  const words = Object.entries(state.not_understood ?? {}).filter(([, w]) => w.length > 0);
  if (!words.length) return '';
  return ` Not understood: ${words.map(([term, w]) => `${w.map((x) => `"${x}"`).join(', ')} in "${term}"`).join('; ')}.`;
}

/**
 * The words of a missing phrase the data does know ("valves" of "whisper valves"), when every
 * offered part holds them: the offer is then the parts of that kind, and is said to be.
 */
function knownKind(state: PipelineState, term: string, parts: string[]): string | null {
  const unknown = new Set(state.not_understood?.[term] ?? []);
  if (!unknown.size || !parts.length) return null;
  const known = term.split(/\s+/).filter((w) => w && !unknown.has(w));
  if (!known.length) return null;
  return parts.every((p) => known.every((w) => nameHolds(p.toLowerCase(), w))) ? known.join(' ') : null;
}

export function noSuchPartText(state: PipelineState, closest: Record<string, string[]>): string {
  const lines = Object.entries(closest).map(([term, parts]) => {
    if (!parts.length) return `- nothing close to "${term}"`;
    const kind = knownKind(state, term, parts);
    return kind
      ? `- the ${kind} in the data (for "${term}"): ${parts.join(', ')}`
      : `- instead of "${term}": ${parts.join(', ')}`;
  });
  if (Object.values(closest).some((parts) => parts.length === 0)) {
    // Nothing resembles the phrase: the frequent values of the searched columns, as the original design offered.
    const frequent = Object.entries(state.suggestions).filter(([column]) => !column.startsWith('closest parts'));
    lines.push(...frequent.slice(0, 2).map(([column, values]) => `- ${column}: ${values.join(', ')}`));
  }
  const found = state.concepts.filter((c) => c.strategy !== null && !c.exclude).map((c) => `"${c.asked}"`);
  return [
    `No results found: no part in the BOM tables matches ${state.missing_terms.map((t) => `"${t}"`).join(', ')}` +
      (found.length
        ? ` (${found.join(', ')} alone would match, but the question asks for ${state.match === 'all' ? 'all of them' : 'that part'}).`
        : '.') +
      notUnderstood(state) +
      namesProducts(state),
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
export function answerText(summary: string, state: PipelineState, method: string, rowFormat?: string): string {
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

export function noResultsText(state: PipelineState): string {
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
