/**
 * The steps of `answerBomQuestion`: settings, query-pattern reuse, focus terms (model), schema
 * search, column resolver, one strategy of the refinement loop, and the explanation (model).
 * Every warehouse, search and model call happens here, never in the workflow.
 */
import { ApplicationFailure } from '@temporalio/common';
import { z } from 'zod';
import type { Backends } from '../../backends';
import { BackendError } from '../../backends/errors';
import type { ColumnInfo } from '../../backends/warehouse/types';
import { bomSettingsSchema, type BomSettings, type StrategyNumber } from './contract';
import {
  cosineSimilarity,
  isIdentifierLike,
  isStopWord,
  itemNumbersIn,
  parseBomQuestion,
  pluralVariants,
  similarityTokens,
  valueShape,
  type ConceptMatch,
  type WhereUsedScope,
} from '../../domain/bom-text';
import { configSchema, type Config } from '../../plumbing/config';
import {
  BOM_PLAN,
  BomSqlError,
  buildStrategyQuery,
  ColumnAllowList,
  normaliseTerms,
  patternTemplateProblem,
  renderPatternTemplate,
  ROW_LIMIT,
  type ConceptQuery,
} from './activities/sql';
import { alignConcepts, Vocabulary, type GroundedConcept } from './activities/terms';
import { ModelTask } from './model-tasks';
import { askModel, backendCall, toFailure } from '../lib/activities/support';
import { FailureType } from '../../contracts/failures';

export const BOM_SCHEMA_COLLECTION = 'bom-schema';
export const BOM_PATTERN_COLLECTION = 'bom-query-patterns';
/** How long INFORMATION_SCHEMA listings and value samples are reused: they change with deployments, not per question. */
const CATALOG_TTL_MS = 5 * 60_000;
/** Distinct values sampled per column to find where a term lives (and to suggest values). */
const SAMPLE_SIZE = 25;
const SUGGESTIONS_PER_COLUMN = 6;
/** Distinct values per column the terms are grounded in (the dialect's sampling cap). */
const VOCABULARY_SIZE = 1000;

const focusTermsSchema = z.object({
  focus_terms: z
    .array(z.string().min(1).max(100))
    .max(8)
    .describe('Lower-case part phrases to search for, each whole, as written in the question'),
});
const explanationSchema = z.object({
  summary: z.string().min(1).max(400).describe('One or two sentences answering the question from the rows'),
});

/** The BOM settings of the configuration, from the worker's config or (outside the worker) the environment. */
export function bomSettingsFrom(config: Config | undefined, env: NodeJS.ProcessEnv = process.env): BomSettings {
  const c = config ?? z.object(pickBomShape()).parse(env);
  return bomSettingsSchema.parse({
    dataset: c.BOM_DATASET,
    ragEnabled: c.BOM_RAG_ENABLED,
    maxStrategies: c.BOM_MAX_STRATEGIES,
    reuseEnabled: c.BOM_QUERY_REUSE_ENABLED,
    reuseThreshold: c.BOM_QUERY_REUSE_THRESHOLD,
  });
}

function pickBomShape() {
  const shape = configSchema.in.shape;
  return {
    BOM_DATASET: shape.BOM_DATASET,
    BOM_RAG_ENABLED: shape.BOM_RAG_ENABLED,
    BOM_MAX_STRATEGIES: shape.BOM_MAX_STRATEGIES,
    BOM_QUERY_REUSE_ENABLED: shape.BOM_QUERY_REUSE_ENABLED,
    BOM_QUERY_REUSE_THRESHOLD: shape.BOM_QUERY_REUSE_THRESHOLD,
  };
}

export interface QueryPattern {
  id: string;
  title: string;
  examples: string[];
  slots: string[];
  row_format?: string;
  sql: string;
}

export interface PatternMatch {
  matched: boolean;
  pattern_id: string | null;
  similarity: number | null;
  threshold: number;
  params: Record<string, string>;
  /** The matched pattern (template and row format), so the run step needs no second search. */
  pattern?: QueryPattern;
}

export interface SchemaSearchResult {
  schema_hints: string[];
  domain_terms: Record<string, string>;
  documents: number;
}

export interface ResolvedColumns {
  tables: string[];
  candidate_columns: string[];
  ignored_columns: string[];
  search_terms: string[];
  /** column → its most frequent values, for the "no results" suggestions. */
  samples: Record<string, string[]>;
  /** Why there is no candidate column (null when there are some). */
  reason: string | null;
  /** The part phrases grounded in the vocabulary (absent when the caller gave no question). */
  concepts?: GroundedConcept[];
  /** Phrases that match nothing in the BOM tables, even with their spelling corrected. */
  missing_terms?: string[];
  /** phrase → the closest real parts, for the missing ones. */
  closest?: Record<string, string[]>;
  match?: ConceptMatch;
  scope?: WhereUsedScope;
  /** Top-level scope: the kind of item asked for ("finished goods") and the item column that holds it. */
  parent_kind?: { column: string; term: string };
}

export interface QueryRun {
  sql: string;
  params: Record<string, unknown>;
  rows: Array<Record<string, unknown>>;
  total_rows: number;
}

/** A plain JSON row: bigint and Date values become numbers and ISO strings, the total column is dropped. */
function tidyRows(rows: Array<Record<string, unknown>>): { rows: Array<Record<string, unknown>>; total: number } {
  let total = rows.length;
  const out = rows.map((row) => {
    const clean: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(row)) {
      if (key === 'total_rows') {
        total = Math.max(total, Number(value));
        continue;
      }
      clean[key] = typeof value === 'bigint' ? Number(value) : value instanceof Date ? value.toISOString() : value;
    }
    return clean;
  });
  return { rows: out, total };
}

/** For the short search steps: only the error conversion, no heartbeat timer (they take milliseconds). */
/**
 * The `table.column` names that share a line of `text` with one of the terms (as a whole word,
 * singular or plural): how schema documentation in prose ties a term to a column.
 */
export function columnsNamedWithTerms(text: string, terms: string[]): string[] {
  const out: string[] = [];
  const patterns = terms.map(
    (t) =>
      new RegExp(
        `\\b(?:${pluralVariants(t)
          .map((v) => v.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&'))
          .join('|')})\\b`,
        'i',
      ),
  );
  for (const line of text.split(/\r?\n/)) {
    if (!patterns.some((p) => p.test(line))) continue;
    // Identifiers of three characters or more on each side: not "e.g." or "i.e.".
    for (const m of line.matchAll(/\b([a-z_][a-z0-9_]{2,})\.([a-z_][a-z0-9_]{2,})\b/gi)) {
      const where = `${m[1]}.${m[2]}`.toLowerCase();
      if (!out.includes(where)) out.push(where);
    }
  }
  return out;
}

async function quickCall<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw toFailure(err);
  }
}

function asFailure(err: unknown): unknown {
  if (err instanceof BomSqlError) return ApplicationFailure.nonRetryable(err.message, FailureType.BomSqlRejected);
  return err;
}

export function createBomActivities({ model, warehouse, search, config }: Backends) {
  const catalog = new Map<string, { at: number; value: Promise<unknown> }>();
  /** Caches INFORMATION_SCHEMA listings and samples per worker for a few minutes; failures are not cached. */
  function cached<T>(key: string, load: () => Promise<T>): Promise<T> {
    const hit = catalog.get(key);
    if (hit && Date.now() - hit.at < CATALOG_TTL_MS) return hit.value as Promise<T>;
    const value = load();
    catalog.set(key, { at: Date.now(), value });
    value.catch(() => catalog.delete(key));
    return value;
  }

  async function allowList(dataset: string): Promise<ColumnAllowList> {
    const columns = await cached<ColumnInfo[]>(`${warehouse.name}:${dataset}:columns`, () =>
      backendCall(async () => {
        try {
          return await warehouse.listColumns(dataset);
        } catch (err) {
          // BigQuery answers 404 for a dataset that does not exist: that is "no columns", not a fault.
          if (err instanceof BackendError && err.options.status === 404) return [];
          throw err;
        }
      }),
    );
    return new ColumnAllowList(dataset, columns);
  }

  function sample(dataset: string, qualified: string): Promise<Array<{ value: string; count: number }>> {
    const [table, column] = qualified.split('.');
    return cached(`${warehouse.name}:${dataset}:sample:${qualified}`, () =>
      backendCall(() => warehouse.sampleDistinct(dataset, table, column, SAMPLE_SIZE)),
    );
  }

  /** The vocabulary of one column: its most frequent distinct values, up to VOCABULARY_SIZE. */
  function vocabularyOf(dataset: string, qualified: string): Promise<string[]> {
    const [table, column] = qualified.split('.');
    return cached(`${warehouse.name}:${dataset}:vocabulary:${qualified}`, async () =>
      (await backendCall(() => warehouse.sampleDistinct(dataset, table, column, VOCABULARY_SIZE))).map((v) => v.value),
    );
  }

  return {
    /** The configured defaults (workflows cannot read configuration). */
    async bomSettings(): Promise<BomSettings> {
      return bomSettingsFrom(config);
    },

    /**
     * Query reuse: finds validated patterns for the question in search, scores them by token
     * similarity to their example questions (part numbers as a slot) and fills their slots.
     */
    async matchBomQueryPattern(input: { question: string; threshold: number }): Promise<PatternMatch> {
      const { hits } = await quickCall(() =>
        search.search({ collection: BOM_PATTERN_COLLECTION, query: input.question, pageSize: 5 }),
      );
      const question = similarityTokens(input.question);
      let best: { pattern: QueryPattern; similarity: number } | undefined;
      for (const hit of hits) {
        const pattern = hit.data as unknown as QueryPattern;
        // A hit whose template is not safe to run is not a pattern (a poisoned document): skip it.
        if (
          !Array.isArray(pattern.examples) ||
          typeof pattern.sql !== 'string' ||
          typeof pattern.id !== 'string' ||
          patternTemplateProblem(pattern.sql)
        )
          continue;
        const similarity = Math.max(0, ...pattern.examples.map((e) => cosineSimilarity(question, similarityTokens(e))));
        if (!best || similarity > best.similarity) best = { pattern, similarity };
      }
      const none: PatternMatch = {
        matched: false,
        pattern_id: best?.pattern.id ?? null,
        similarity: best ? round(best.similarity) : null,
        threshold: input.threshold,
        params: {},
      };
      if (!best || best.similarity < input.threshold) return none;
      const items = itemNumbersIn(input.question);
      const params: Record<string, string> = {};
      for (const slot of best.pattern.slots ?? []) {
        if (slot !== 'item' || items.length !== 1) return none;
        params[slot] = items[0];
      }
      return { ...none, matched: true, params, pattern: best.pattern };
    },

    /** Runs a matched pattern's template, adapted to the dataset's allow-list and the question's values. */
    async runBomQueryPattern(input: {
      dataset: string;
      pattern: QueryPattern;
      params: Record<string, string>;
    }): Promise<QueryRun> {
      const allow = await allowList(input.dataset);
      let built;
      try {
        built = renderPatternTemplate({
          dialect: warehouse.dialect,
          allow,
          template: input.pattern.sql,
          params: input.params,
        });
      } catch (err) {
        throw asFailure(err);
      }
      const result = await backendCall((signal) =>
        warehouse.query({ signal, sql: built.sql, params: built.params, label: `bom-pattern-${input.pattern.id}` }),
      );
      const { rows, total } = tidyRows(result.rows);
      return { sql: built.sql, params: built.params, rows, total_rows: total };
    },

    /** The model picks the terms to search for; the caller falls back to `extractFocusTerms` if it fails. */
    async extractBomFocusTerms(input: { question: string }) {
      const { data, usage } = await askModel(model, {
        task: ModelTask.bomFocusTerms,
        instructions:
          'Extract what the question asks to find in a bill-of-materials database: ' +
          'component kinds, attribute values, part numbers. ' +
          'One entry per part phrase, kept whole with every qualifier ("tantalum ' +
          'capacitors", not "tantalum" and "capacitors"). ' +
          'Keep the words as written (lower case, singular or plural as in the question). ' +
          'Omit generic words: BOM, component, part, list, use, ' +
          'and the kind of BOM asked about (boards, assemblies, finished goods).',
        sections: { question: input.question },
        schema: focusTermsSchema,
      });
      const terms = normaliseTerms(data.focus_terms.filter((t) => !isStopWord(t))).slice(0, 6);
      return { focus_terms: terms, usage };
    },

    /** Schema documentation search: hints (table.column) and domain terms for the focus terms. */
    async searchBomSchema(input: { focusTerms: string[] }): Promise<SchemaSearchResult> {
      if (input.focusTerms.length === 0) return { schema_hints: [], domain_terms: {}, documents: 0 };
      const { hits } = await quickCall(() =>
        search.search({ collection: BOM_SCHEMA_COLLECTION, query: input.focusTerms.join(' '), pageSize: 6 }),
      );
      const hints: string[] = [];
      const domain: Record<string, string> = {};
      for (const hit of hits) {
        const doc = hit.data as {
          table?: string;
          column?: string;
          text?: string;
          domain_terms?: Record<string, string>;
        };
        if (!doc.table) {
          // An unstructured document (markdown schema docs in a data store with content): a
          // column is a hint where a line names it (`table.column`) together with the term.
          for (const where of columnsNamedWithTerms(doc.text ?? '', input.focusTerms))
            if (!hints.includes(where)) hints.push(where);
          continue;
        }
        const where = doc.column ? `${doc.table}.${doc.column}` : doc.table;
        // A hit is a hint only where the documentation maps the term (domain terms) or names the
        // column after it; a word in passing in the prose is not enough.
        const nameParts = (doc.column ?? '').toLowerCase().split('_');
        for (const term of input.focusTerms) {
          const variants = pluralVariants(term);
          const mapped = variants.map((v) => doc.domain_terms?.[v]).find((v) => v !== undefined);
          if (mapped === undefined && !variants.some((v) => nameParts.includes(v))) continue;
          if (doc.column && !hints.includes(where)) hints.push(where);
          if (mapped !== undefined && !(term in domain)) domain[term] = `${where} (${mapped})`;
        }
      }
      return { schema_hints: hints, domain_terms: domain, documents: hits.length };
    },

    /**
     * The column resolver: the STRING columns of the dataset from INFORMATION_SCHEMA, candidate
     * columns from the schema hints, the default columns and value sampling, and the search terms.
     */
    async resolveBomColumns(input: {
      dataset: string;
      focusTerms: string[];
      schemaHints: string[];
      question?: string;
    }): Promise<ResolvedColumns> {
      const parsed = input.question === undefined ? undefined : parseBomQuestion(input.question);
      const terms = normaliseTerms(parsed ? alignConcepts(parsed.concepts, input.focusTerms) : input.focusTerms);
      const empty = (reason: string, extra: Partial<ResolvedColumns> = {}): ResolvedColumns => ({
        tables: [],
        candidate_columns: [],
        ignored_columns: [],
        search_terms: terms,
        samples: {},
        reason,
        ...extra,
      });
      if (terms.length === 0)
        return empty('the question names nothing to search for (no focus terms after removing generic words)');
      const allow = await allowList(input.dataset);
      if (allow.tables.size === 0)
        return empty(`dataset ${input.dataset} has no tables (INFORMATION_SCHEMA lists no columns)`);
      const missing = allow.missingForPlan();
      if (missing.length) {
        return empty(
          `dataset ${input.dataset} has no BOM tables: missing ${missing.join(', ')} (tables found: ${[...allow.tables].sort().join(', ')})`,
        );
      }
      const strings = allow.stringColumns();
      const planTables: string[] = [BOM_PLAN.usageTable, BOM_PLAN.itemTable];
      const inPlan = strings.filter((c) => planTables.includes(c.split('.')[0]));
      const ignored = strings.filter((c) => !inPlan.includes(c));
      const hinted = input.schemaHints.filter((h) => inPlan.includes(h));
      const defaults = BOM_PLAN.defaultColumns.filter((c) => inPlan.includes(c));

      // With hints, only the hinted and default columns are sampled; without, every BOM column is,
      // and a column whose frequent values contain a term (or share a part number's shape) joins.
      const toSample = hinted.length ? [...new Set([...hinted, ...defaults])] : inPlan;
      const samples = new Map(
        await Promise.all(toSample.map(async (c) => [c, await sample(input.dataset, c)] as const)),
      );
      const evidence = hinted.length
        ? []
        : inPlan.filter((c) => {
            const values = (samples.get(c) ?? []).map((v) => v.value.toLowerCase());
            return terms.some((term) =>
              isIdentifierLike(term)
                ? values.some((v) => valueShape(v) === valueShape(term))
                : pluralVariants(term).some(
                    (variant) => variant.length >= 3 && values.some((v) => v.includes(variant)),
                  ),
            );
          });

      // Grounding (when the question is known): each part phrase against the BOM tables' values.
      let grounding: Pick<
        ResolvedColumns,
        'concepts' | 'missing_terms' | 'closest' | 'match' | 'scope' | 'parent_kind'
      > = {};
      let searchTerms = terms;
      const groundedColumns: string[] = [];
      if (parsed) {
        const vocabulary = new Vocabulary(
          await Promise.all(
            inPlan.map(async (column) => ({ column, values: await vocabularyOf(input.dataset, column) })),
          ),
        );
        // "temperature and humidity sensors" is one part: a whole object that grounds as a phrase
        // (strategy 1 or 2) is not split at its "and"/"or".
        const whole = parsed.whole ? vocabulary.ground(parsed.whole) : undefined;
        const phrases =
          whole && whole.level !== null && whole.level <= 2 && !whole.any_order
            ? normaliseTerms([parsed.whole!])
            : terms;
        const concepts = phrases.map((phrase) => vocabulary.groundWithCorrection(phrase));
        const missing = concepts.filter((c) => c.level === null).map((c) => c.asked);
        const closest: Record<string, string[]> = {};
        for (const term of missing) closest[term] = vocabulary.closest(term);
        for (const c of concepts) for (const level of [1, 2, 3] as const) groundedColumns.push(...c.columns[level]);
        grounding = {
          concepts,
          missing_terms: missing,
          closest,
          match: phrases.length > 1 ? parsed.match : 'any',
          scope: parsed.scope,
        };
        // "Which finished goods …", "Which subassemblies …" name a kind of item: when the subject
        // (or its last word) is exactly a value of an item column (FINISHED_GOOD, SUBASSEMBLY,
        // PRODUCT), the answer lists that kind only. A subject that is no such value ("boards",
        // "assemblies") is a way of saying "BOMs" and filters nothing.
        if (parsed.subject) {
          const itemColumns = inPlan.filter((c) => c.startsWith(`${BOM_PLAN.itemTable}.`));
          const words = parsed.subject.split(' ');
          for (const candidate of [parsed.subject, words[words.length - 1]]) {
            const hit = vocabulary.ground(candidate).columns[1].find((c) => itemColumns.includes(c));
            if (hit) {
              grounding.parent_kind = { column: hit, term: candidate };
              break;
            }
          }
        }
        searchTerms = concepts.filter((c) => c.level !== null).map((c) => c.term);
        if (searchTerms.length === 0) searchTerms = concepts.map((c) => c.term);
      }
      const grounded = inPlan.filter((c) => groundedColumns.includes(c));
      const candidates = [...new Set([...hinted, ...evidence, ...grounded, ...defaults])];
      if (candidates.length === 0) {
        return empty(
          `no STRING column of ${planTables.join(' or ')} in ${input.dataset} can hold the terms ${terms.join(', ')}`,
          { tables: planTables, ignored_columns: ignored },
        );
      }
      const suggestions: Record<string, string[]> = {};
      for (const c of candidates) {
        const values = samples.get(c) ?? (await sample(input.dataset, c));
        suggestions[c] = values.slice(0, SUGGESTIONS_PER_COLUMN).map((v) => v.value);
      }
      return {
        tables: planTables,
        candidate_columns: candidates,
        ignored_columns: ignored,
        search_terms: searchTerms,
        samples: suggestions,
        reason: null,
        ...grounding,
      };
    },

    /**
     * One iteration of the refinement loop: build the strategy's SQL, run it, return rows. With
     * grounded concepts, each concept starts at the strictest strategy its grounding showed can
     * match it (so "battery or tantalum capacitors" searches BATTERIES exactly and the phrase by
     * regex in the same query), in the columns where it matched.
     */
    async runBomStrategy(input: {
      dataset: string;
      strategy: StrategyNumber;
      candidateColumns: string[];
      searchTerms: string[];
      concepts?: GroundedConcept[];
      match?: ConceptMatch;
      scope?: WhereUsedScope;
      parentKind?: { column: string; term: string };
      maxStrategies?: number;
    }): Promise<QueryRun> {
      const allow = await allowList(input.dataset);
      const max = input.maxStrategies ?? 3;
      const concepts: ConceptQuery[] | undefined = input.concepts
        ?.filter((c) => c.level !== null)
        .map((c) => {
          const strategy = (
            c.level !== null && c.level <= max ? Math.max(input.strategy, c.level) : input.strategy
          ) as StrategyNumber;
          const columns = c.columns[strategy].filter((col) => input.candidateColumns.includes(col));
          return {
            term: c.term,
            strategy,
            columns,
            ...(c.substring ? { substring: c.substring } : {}),
            ...(c.any_order ? { anyOrder: true } : {}),
          };
        });
      let built;
      try {
        built = buildStrategyQuery({
          dialect: warehouse.dialect,
          allow,
          strategy: input.strategy,
          columns: input.candidateColumns,
          terms: input.searchTerms,
          ...(concepts?.length ? { concepts } : {}),
          ...(input.match ? { match: input.match } : {}),
          ...(input.scope ? { scope: input.scope } : {}),
          ...(input.parentKind ? { parentKind: input.parentKind } : {}),
        });
      } catch (err) {
        throw asFailure(err);
      }
      const result = await backendCall((signal) =>
        warehouse.query({
          signal,
          sql: built.sql,
          params: built.params,
          arrayTypes: built.arrayTypes,
          label: `bom-strategy-${input.strategy}`,
        }),
      );
      const { rows, total } = tidyRows(result.rows);
      return { sql: built.sql, params: built.params, rows, total_rows: total };
    },

    /** The explainer: a short natural-language answer from a few of the rows (the SQL is appended by code). */
    async explainBomAnswer(input: {
      question: string;
      method: string;
      searchTerms: string[];
      totalRows: number;
      rows: Array<Record<string, unknown>>;
      match?: ConceptMatch;
      scope?: WhereUsedScope;
    }) {
      const { data, usage } = await askModel(model, {
        task: ModelTask.bomExplain,
        instructions:
          'Answer the question in one or two plain sentences from the result: say how many ' +
          'rows matched (total_rows) and name up to three examples. No SQL, no markdown.',
        sections: {
          question: input.question,
          result: {
            method: input.method,
            search_terms: input.searchTerms,
            // "all": every row uses all the search terms; "any": at least one of them.
            terms_required: input.match ?? 'any',
            // "top_level": the rows are top-level items containing the terms at any BOM level.
            rows_are: input.scope === 'top_level' ? 'top_level_items' : 'boms_using_the_parts',
            total_rows: input.totalRows,
            shown_rows: Math.min(input.totalRows, ROW_LIMIT),
          },
          // A handful of rows is enough to phrase the answer; the full list is formatted by code.
          rows: input.rows.slice(0, 5).map((r) =>
            Object.values(r)
              .filter((v) => v !== null && v !== '')
              .join(' | '),
          ),
        },
        schema: explanationSchema,
      });
      return { summary: data.summary.trim(), usage };
    },
  };
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}
