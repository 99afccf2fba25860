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
  exactForms,
  isIdentifierLike,
  isStopWord,
  itemNumbersIn,
  parseBomQuestion,
  pluralVariants,
  similarityTokens,
  valueShape,
  type ConceptMatch,
  type ParsedBomQuestion,
  type WhereUsedScope,
} from '../../domain/bom-text';
import { configSchema, type Config } from '../../plumbing/config';
import {
  BOM_PLAN,
  BomSqlError,
  buildKindUsageQuery,
  buildLeafValuesQuery,
  buildOverlapQuery,
  buildStrategyQuery,
  ColumnAllowList,
  normaliseTerms,
  patternTemplateProblem,
  renderPatternTemplate,
  ROW_LIMIT,
  type ConceptQuery,
} from './activities/sql';
import {
  alignConcepts,
  EmbeddingMeaning,
  Grounder,
  MEANING_THRESHOLDS,
  namesNoThing,
  partNames,
  Vocabulary,
  type GroundedConcept,
  type Meaning,
  type PartName,
} from './activities/terms';
import { sharedEmbedder } from '../../backends/embedding';
import { sharedLexicon, type Lexicon } from '../../backends/lexicon/wordnet';
import { ModelTask } from './model-tasks';
import { BomSchemaView, loadBomSchemaMapping } from './activities/mapping';
import { sampleDistinctSql } from '../../backends/warehouse/sql';
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
/** Fewer distinct values than this among the parts, and a column names states, not parts. */
const MIN_NAME_VALUES = 5;

/** The bom.focus_terms reply. */
export const focusTermsSchema = z.object({
  focus_terms: z
    .array(z.string().min(1).max(100))
    .max(8)
    .describe('Lower-case part phrases to search for, each whole, as written in the question'),
});
/** The bom.explain reply. */
export const explanationSchema = z.object({
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
  /** Excluded phrases ("but not Y") that match nothing: nothing is left out for them. */
  excluded_missing?: string[];
  /** Missing phrase → its words that nothing in the data means ("whisper" in "whisper valves"). */
  unclear?: Record<string, string[]>;
  /** Missing phrase → the products whose names it is said in (it names them, not a part of theirs). */
  names_products?: Record<string, string[]>;
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

/**
 * Judging meaning embeds texts (the parts' names once per worker, ~100 on a cold start): on a
 * busy machine that outlasts the activity's heartbeat timeout unless it heartbeats meanwhile,
 * as a backend call does (the embedder lets the event loop run between texts).
 */
function heartbeating(meaning: Meaning | undefined): Meaning | undefined {
  if (!meaning) return undefined;
  return {
    similarities: (text, others) => backendCall(() => meaning.similarities(text, others)),
    ...(meaning.isWord ? { isWord: meaning.isWord.bind(meaning) } : {}),
  };
}

export interface BomActivityOptions {
  /**
   * How the grounding judges meaning (synonyms, "did you mean"). Default: the process's sentence
   * embedder (backends/embedding), or none when no model is installed (then words only).
   */
  meaning?: () => Promise<Meaning | undefined>;
  /** The dictionary that tells a synonym from a neighbour. Default: WordNet (backends/lexicon); null for none. */
  lexicon?: Lexicon | null;
}

/** What the items the BOMs end in are, and what the items inside them are, in general words. */
const KIND_ROLES = {
  top: 'the products we sell to customers',
  inside: 'the assemblies and boards built into other items',
} as const;

export function createBomActivities({ model, warehouse, search, config }: Backends, options: BomActivityOptions = {}) {
  const catalog = new Map<string, { at: number; value: Promise<unknown> }>();
  // The user's own schema (BOM_SCHEMA_MAPPING), read once at worker start so a bad file stops the
  // worker rather than a question; without it the demo's tables are read as they are.
  const view = config?.BOM_SCHEMA_MAPPING
    ? new BomSchemaView(loadBomSchemaMapping(config.BOM_SCHEMA_MAPPING))
    : undefined;
  // Read when a query is built, not here: a worker may hold these activities without a warehouse.
  const dialectOf = () => (view ? view.dialect(warehouse.dialect) : warehouse.dialect);
  /** The most frequent distinct values of a logical column (through the mapping's derived table, if any). */
  async function distinct(dataset: string, table: string, column: string, limit: number) {
    if (!view) return warehouse.sampleDistinct(dataset, table, column, limit);
    const { sql } = sampleDistinctSql(dialectOf(), dataset, table, column, limit);
    const { rows } = await warehouse.query<{ value: unknown; count: unknown }>({ sql, label: 'sample-distinct' });
    return rows.map((r) => ({ value: String(r.value), count: Number(r.count) }));
  }
  let defaultMeaning: Promise<Meaning | undefined> | undefined;
  const meaningOf =
    options.meaning ??
    (() =>
      (defaultMeaning ??= sharedEmbedder({ setting: config?.AGENT_FLOWS_EMBEDDING_MODEL }).then((s) =>
        s.embedder ? new EmbeddingMeaning(s.embedder) : undefined,
      )));
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
    return new ColumnAllowList(dataset, view ? view.logicalColumns(columns) : columns);
  }

  function sample(dataset: string, qualified: string): Promise<Array<{ value: string; count: number }>> {
    const [table, column] = qualified.split('.');
    return cached(`${warehouse.name}:${dataset}:sample:${qualified}`, () =>
      backendCall(() => distinct(dataset, table, column, SAMPLE_SIZE)),
    );
  }

  /** The vocabulary of one column: its most frequent distinct values, up to VOCABULARY_SIZE. */
  function vocabularyOf(dataset: string, qualified: string): Promise<string[]> {
    const [table, column] = qualified.split('.');
    return cached(`${warehouse.name}:${dataset}:vocabulary:${qualified}`, async () =>
      (await backendCall(() => distinct(dataset, table, column, VOCABULARY_SIZE))).map((v) => v.value),
    );
  }

  /** Runs one of the grounding's own small queries (built by bom-sql, values as parameters). */
  async function count(
    label: string,
    built: {
      sql: string;
      params: Record<string, unknown>;
      arrayTypes?: Record<string, 'STRING' | 'INT64' | 'FLOAT64'>;
    },
  ): Promise<number> {
    const result = await backendCall((signal) =>
      warehouse.query({ signal, sql: built.sql, params: built.params as never, arrayTypes: built.arrayTypes, label }),
    );
    const row = result.rows[0] ?? {};
    return Number(Object.values(row)[0] ?? 0);
  }

  /** The names of the products (the items the BOMs end in), from the item columns that name things. */
  async function productNamesOf(allow: ColumnAllowList, columns: string[]): Promise<string[]> {
    const names: string[] = [];
    for (const column of columns) {
      const values = await itemValuesOf(allow, column, true, true);
      // As for parts: a column of a handful of values (a status, an item type) names nothing.
      if (values.length >= MIN_NAME_VALUES) names.push(...values);
    }
    return names;
  }

  /** The names of the parts the BOMs are made of (leaf items), from every item column, cached like the vocabulary. */
  function partNamesOf(dataset: string, allow: ColumnAllowList, columns: string[]): Promise<PartName[]> {
    return cached(`${warehouse.name}:${dataset}:part-names:${columns.join(',')}`, async () => {
      const values: string[] = [];
      const contexts = new Map<string, string | null>();
      // The kind each part is filed under (its category), beside its other names: meaning reads a
      // name with its kind ("Crystal", an OSCILLATOR).
      const kindColumn = BOM_PLAN.defaultColumns[0];
      const withKind = columns.includes(kindColumn) && allow.has(kindColumn);
      for (const column of columns) {
        const columnValues = await itemValuesOf(allow, column, false);
        // A column of a handful of values (a status, a unit, an item type) says what state a
        // part is in, not what it is.
        if (columnValues.length < MIN_NAME_VALUES) continue;
        values.push(...columnValues);
        if (withKind && column !== kindColumn) {
          // A value filed under several kinds (a maker's name) names no kind of part: null.
          for (const [value, kind] of await itemKindsOf(allow, column, kindColumn))
            contexts.set(value, contexts.has(value) && contexts.get(value) !== kind ? null : kind);
        }
      }
      return partNames(values, contexts);
    });
  }

  /** value → the kind of the parts (leaves) that hold it, the most frequent pair first. */
  function itemKindsOf(allow: ColumnAllowList, column: string, kindColumn: string): Promise<Array<[string, string]>> {
    return cached(`${warehouse.name}:${allow.dataset}:leaf-kinds:${column}:${kindColumn}`, async () => {
      let built;
      try {
        built = buildLeafValuesQuery({ dialect: dialectOf(), allow, column, context: kindColumn });
      } catch (err) {
        throw asFailure(err);
      }
      const result = await backendCall((signal) =>
        warehouse.query({ signal, sql: built.sql, params: built.params, label: 'bom-item-kinds' }),
      );
      return result.rows
        .map((r) => r as { value: unknown; context: unknown })
        .filter((r) => r.context !== null && r.context !== undefined)
        .map((r) => [String(r.value), String(r.context)] as [string, string]);
    });
  }

  /** The values of an item column among the parts (leaves), the BOMs' own items (parents) or the products (top). */
  function itemValuesOf(allow: ColumnAllowList, column: string, parents: boolean, top = false): Promise<string[]> {
    const which = top ? 'top' : parents ? 'parent' : 'leaf';
    return cached(`${warehouse.name}:${allow.dataset}:${which}-values:${column}`, async () => {
      let built;
      try {
        built = buildLeafValuesQuery({ dialect: dialectOf(), allow, column, parents: parents || top, top });
      } catch (err) {
        throw asFailure(err);
      }
      const result = await backendCall((signal) =>
        warehouse.query({ signal, sql: built.sql, params: built.params, label: 'bom-item-values' }),
      );
      return result.rows.map((r) => String((r as { value: unknown }).value));
    });
  }

  /** Whether two grounded phrases match one component of an active line ("sensors" and "accelerometers"). */
  async function sharesParts(allow: ColumnAllowList, a: GroundedConcept, b: GroundedConcept): Promise<boolean> {
    const query = (c: GroundedConcept) => ({
      term: c.term,
      strategy: c.level as StrategyNumber,
      columns: c.columns[c.level as StrategyNumber],
      ...(c.substring ? { substring: c.substring } : {}),
      ...(c.any_order ? { anyOrder: true } : {}),
    });
    let built;
    try {
      built = buildOverlapQuery({ dialect: dialectOf(), allow, concepts: [query(a), query(b)] });
    } catch (err) {
      throw asFailure(err);
    }
    return (await count('bom-overlap', built)) > 0;
  }

  /**
   * The kind of item the question asks for, as a value of an item column: the subject or one of
   * its words exactly ("finished goods" = FINISHED_GOOD, "subassemblies" = SUBASSEMBLY), or, for
   * the kind the BOMs end in only, by meaning ("the things we sell" = PRODUCT). `top`: no BOM uses
   * items of this kind as a component.
   */
  async function kindAsked(
    parsed: ParsedBomQuestion,
    vocabulary: Vocabulary,
    itemColumns: string[],
    meaning: Meaning | undefined,
    allow: ColumnAllowList,
    lexicon?: Lexicon,
  ): Promise<{ column: string; term: string; top: boolean } | undefined> {
    const isTop = (column: string, term: string) =>
      cached(`${warehouse.name}:${allow.dataset}:kind-top:${column}:${term}`, async () => {
        const built = buildKindUsageQuery({ dialect: dialectOf(), allow, kind: { column, term } });
        return (await count('bom-kind-usage', built)) === 0;
      });
    // A kind is a value the BOMs' own items hold ("SUBASSEMBLY", "PRODUCT"), never one only parts
    // hold ("SENSOR" in "Which sensor boards …" is no kind of BOM).
    const heldByBoms = async (column: string, term: string) => {
      const forms = new Set(exactForms(term));
      return (await itemValuesOf(allow, column, true)).some((v) => forms.has(v.toLowerCase()));
    };
    // The subject first, then the words that asked for the top of the BOMs wherever they stood
    // ("What happens to our finished goods if …").
    for (const phrase of [parsed.subject, parsed.topLevelWords]) {
      if (!phrase) continue;
      const words = phrase.split(' ');
      const pairs = words.slice(1).map((w, i) => `${words[i]} ${w}`);
      for (const candidate of [phrase, ...pairs.reverse(), ...[...words].reverse()]) {
        for (const hit of vocabulary.ground(candidate).columns[1].filter((c) => itemColumns.includes(c))) {
          if (await heldByBoms(hit, candidate))
            return { column: hit, term: candidate, top: await isTop(hit, candidate) };
        }
      }
    }
    const kindsOfBoms = async () => {
      // The kinds a BOM itself can be: the few values of a column that only the BOMs' own items
      // hold (their type, category …), not their names, and not what any part may be too (a
      // status, a unit).
      const out: Array<{ column: string; value: string; top: boolean }> = [];
      for (const column of itemColumns) {
        const values = await itemValuesOf(allow, column, true);
        if (values.length > 50) continue;
        const leaves = new Set(await itemValuesOf(allow, column, false));
        for (const n of partNames(values.filter((v) => !leaves.has(v))))
          out.push({ column, value: n.name, top: await isTop(column, n.name) });
      }
      return out;
    };
    // Asked for the top of the BOMs ("at any level") with no kind named or meant: the kind the
    // BOMs end in, when one column has exactly one such value. An item no BOM uses today (a spare
    // board, a retired assembly) is not what the BOMs end in, though nothing is its parent.
    const endKind = async () => {
      if (parsed.scope !== 'top_level') return undefined;
      const all = await kindsOfBoms();
      for (const column of itemColumns) {
        const tops = all.filter((k) => k.column === column && k.top);
        if (tops.length === 1) return { column, term: tops[0].value, top: true };
      }
      return undefined;
    };
    if (!meaning || !parsed.subjectText) return endKind();
    // A subject with no noun the dictionary knows ("everything", "whatever", "anything") names no
    // kind of item: read by meaning, "everything" sits near "product" as near as "goods" does.
    if (lexicon && !parsed.subjectText.split(/\s+/).some((w) => lexicon.knows(w))) return endKind();
    const kinds = await kindsOfBoms();
    if (!kinds.some((k) => k.top)) return endKind();
    // Each kind by its own name and by what such items are in general: a data value's name
    // ("finished good") says little to a sentence embedding about "the things we ship" or "what
    // goes out to customers", a plain description of the kind does.
    const [byName, byRole] = await Promise.all([
      meaning.similarities(
        parsed.subjectText,
        kinds.map((k) => k.value),
      ),
      meaning.similarities(parsed.subjectText, [KIND_ROLES.top, KIND_ROLES.inside]),
    ]);
    const scores = kinds.map((k, i) => Math.max(byName[i], k.top ? byRole[0] : byRole[1]));
    // Only the kind the BOMs end in is taken by meaning, against the kinds that are not ("the
    // things we sell" are products; "assemblies" is a way of saying "BOMs", not subassemblies).
    // Two names of that kind (FINISHED_GOOD, PRODUCT) are one choice, not rivals.
    const best = (top: boolean) =>
      kinds.reduce<{ i: number; score: number }>(
        (b, k, i) => (k.top === top && scores[i] > b.score ? { i, score: scores[i] } : b),
        { i: -1, score: -1 },
      );
    const top = best(true);
    const other = best(false);
    if (
      top.score < MEANING_THRESHOLDS.kindFloor ||
      top.score - Math.max(0, other.score) < MEANING_THRESHOLDS.kindMargin
    )
      return endKind();
    const kind = kinds[top.i];
    return { column: kind.column, term: kind.value, top: true };
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
          dialect: dialectOf(),
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
          'and the kind of BOM asked about (boards, assemblies, finished goods). ' +
          'Omit the parts the question excludes ("but not", "without", "other than", "except"), ' +
          'and the situation around a part ("if our supplier of X went bust" gives only X).',
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
      const terms = normaliseTerms(
        parsed ? alignConcepts(parsed.concepts, input.focusTerms, parsed.excluded) : input.focusTerms,
      );
      const empty = (reason: string, extra: Partial<ResolvedColumns> = {}): ResolvedColumns => ({
        tables: [],
        candidate_columns: [],
        ignored_columns: [],
        search_terms: terms,
        samples: {},
        reason,
        ...extra,
      });
      if (terms.length === 0 && !parsed?.excluded.length)
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
        'concepts' | 'missing_terms' | 'closest' | 'match' | 'scope' | 'parent_kind' | 'excluded_missing'
      > = {};
      let searchTerms = terms;
      const groundedColumns: string[] = [];
      if (parsed) {
        const allowed = allow;
        const vocabulary = new Vocabulary(
          await Promise.all(
            inPlan.map(async (column) => ({ column, values: await vocabularyOf(input.dataset, column) })),
          ),
        );
        const meaning = heartbeating(await meaningOf());
        const itemColumns = inPlan.filter((c) => c.startsWith(`${BOM_PLAN.itemTable}.`));
        const names = await partNamesOf(input.dataset, allowed, itemColumns);
        const lexicon = options.lexicon === undefined ? sharedLexicon() : options.lexicon;
        const grounder = new Grounder(
          vocabulary,
          meaning,
          names,
          await productNamesOf(allowed, itemColumns),
          lexicon ?? undefined,
        );
        // "temperature and humidity sensors" is one part: a whole object that grounds as a phrase
        // (strategy 1 or 2) is not split at its "and"/"or".
        const whole = parsed.whole ? vocabulary.ground(parsed.whole) : undefined;
        const phrases = (
          whole && whole.level !== null && whole.level <= 2 && !whole.any_order
            ? normaliseTerms([parsed.whole!])
            : terms
        ).map((phrase) => vocabulary.completed(phrase, input.question!));
        const concepts: GroundedConcept[] = [];
        // Parts named side by side in one phrase ("a stepper motor as well as a fuse") are each
        // searched, and the BOM must use them all; a scene's phrase names its one part.
        let sideBySide = false;
        for (const phrase of phrases) {
          const parts = parsed.scene ? null : grounder.sideBySide(phrase);
          if (parts) sideBySide = true;
          for (const part of parts ?? [phrase])
            concepts.push(await grounder.ground(part, { scene: parsed.scene, contained: parsed.contained }));
        }
        // Nothing the question's own clause names is in the data ("… which boards need a
        // redesign?"), and another clause names a part ("we got an end-of-life notice for X"):
        // that part is what the question is about.
        let scene = parsed.scene;
        // (Only when its words name no kind of part at all: "unobtainium capacitors" is a part the
        // data lacks, and stays the question.)
        // One word, as such questions end ("need a redesign", "need rework"): a name of two or
        // more words the data lacks ("flux widgets") is an absent part, never the scene's.
        // Or a longer phrase whose last word the dictionary usually means as an act, an event or
        // the like ("need a final order", "need a redesign"): what must be done.
        const namedWords = (c: GroundedConcept) => c.asked.split(/\s+/).filter((w) => !isStopWord(w));
        const namesNoPart = (c: GroundedConcept) => {
          const words = namedWords(c);
          const last = words[words.length - 1];
          if (c.level !== null || !last || !c.unclear?.includes(last)) return false;
          return words.length === 1 || (!parsed.contained && namesNoThing(lexicon ?? undefined, last, { acts: true }));
        };
        if (!scene && concepts.length && concepts.every(namesNoPart) && parsed.sceneParts.length) {
          const fromScene = await Promise.all(
            normaliseTerms(parsed.sceneParts).map((phrase) => grounder.ground(phrase, { scene: true })),
          );
          if (fromScene.some((c) => c.level !== null)) {
            concepts.splice(0, concepts.length, ...fromScene);
            scene = true;
          }
        }
        // The scene's words after its verbs name nothing the data holds ("X has had a recall
        // letter"): the part is what the scene's clause starts with.
        // (Only when those words end in no thing at all, "letter", "rise": a part the data lacks
        // after the verb is the question's, and stays missing.)
        const namesEvent = (c: GroundedConcept) => {
          const last = namedWords(c).pop();
          return c.level === null && !!last && namesNoThing(lexicon ?? undefined, last, { acts: true });
        };
        if (scene && concepts.length && concepts.every(namesEvent) && parsed.sceneSubjects.length) {
          const subjects = await Promise.all(
            normaliseTerms(parsed.sceneSubjects).map((phrase) => grounder.ground(phrase, { scene: true })),
          );
          if (subjects.some((c) => c.level !== null)) concepts.splice(0, concepts.length, ...subjects);
        }
        // A scene told in several clauses ("X is on hold after a batch of dead pixels") names its
        // part in one of them: the clauses that name nothing the data holds are the situation.
        if (scene && concepts.some((c) => c.level !== null))
          concepts.splice(0, concepts.length, ...concepts.filter((c) => c.level !== null));
        const missing = concepts.filter((c) => c.level === null).map((c) => c.asked);
        const closest: Record<string, string[]> = {};
        const unclear: Record<string, string[]> = {};
        const namesProducts: Record<string, string[]> = {};
        for (const c of concepts.filter((x) => x.level === null)) {
          closest[c.asked] = c.nearest ?? vocabulary.closest(c.asked);
          if (c.unclear?.length) unclear[c.asked] = c.unclear;
          if (c.names_products?.length) namesProducts[c.asked] = c.names_products.slice(0, 3);
        }
        // "X but not Y", "X other than Y": Y is grounded the same way, then left out: its BOMs, or,
        // when Y's parts are among X's ("sensors other than accelerometers"), its lines.
        const excluded: GroundedConcept[] = [];
        const excludedMissing: string[] = [];
        const first = concepts.find((c) => c.level !== null);
        const narrowed = normaliseTerms(parsed.narrowed);
        for (const phrase of normaliseTerms(parsed.excluded)) {
          const c = await grounder.ground(phrase);
          if (c.level === null) {
            excludedMissing.push(c.asked);
            continue;
          }
          // With no part asked for ("parts that are not obsolete"), "other than" leaves out lines.
          // An aside's exclusion ("(the cells, not the holders)") narrows the part: lines, always.
          const lines =
            narrowed.includes(phrase) ||
            (parsed.exclusion === 'other_than' && (first ? await sharesParts(allowed, first, c) : true));
          excluded.push({ ...c, exclude: lines ? 'component' : 'bom' });
        }
        for (const c of [...concepts, ...excluded])
          for (const level of [1, 2, 3] as const) groundedColumns.push(...c.columns[level]);
        grounding = {
          concepts: [...concepts, ...excluded],
          missing_terms: missing,
          closest,
          match: phrases.length > 1 ? parsed.match : sideBySide ? 'all' : 'any',
          scope: parsed.scope,
          ...(excludedMissing.length ? { excluded_missing: excludedMissing } : {}),
        };
        if (Object.keys(unclear).length) (grounding as ResolvedColumns).unclear = unclear;
        if (Object.keys(namesProducts).length) (grounding as ResolvedColumns).names_products = namesProducts;
        // The kind of item asked about ("Which finished goods …", "Which subassemblies …", "the
        // things we sell"): a value of an item column. A kind no BOM uses as a component is what
        // the BOMs end in, so the question means those items at any level.
        const kind = await kindAsked(parsed, vocabulary, itemColumns, meaning, allowed, lexicon ?? undefined);
        if (kind) {
          grounding.parent_kind = { column: kind.column, term: kind.term };
          if (kind.top) grounding.scope = 'top_level';
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
          // An excluded part keeps the strategy it grounded at: loosening it would leave out more.
          const strategy = (
            c.exclude
              ? c.level
              : c.level !== null && c.level <= max
                ? Math.max(input.strategy, c.level)
                : input.strategy
          ) as StrategyNumber;
          const columns = c.columns[strategy].filter((col) => input.candidateColumns.includes(col));
          return {
            term: c.term,
            strategy,
            columns,
            ...(c.substring ? { substring: c.substring } : {}),
            ...(c.any_order ? { anyOrder: true } : {}),
            ...(c.exclude ? { exclude: c.exclude } : {}),
            ...(c.parts_only ? { partsOnly: true } : {}),
          };
        });
      let built;
      try {
        built = buildStrategyQuery({
          dialect: dialectOf(),
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
