/**
 * Stand-in rules for `discoverFromPrp`: planning and validation computed from meaning, with no
 * list of any PRP's or catalog's words.
 *
 * - `discovery.plan` leaves derived/computed columns to the query layer, splits the rest by the
 *   variant they hold (a model's estimate, a measured outcome, or plain facts: general English
 *   qualifier words), then clusters each part by what the columns mean: sentence embeddings when a
 *   model is installed (backends/embedding), else shared name and description words. Each cluster
 *   is one conceptual group, named by its columns' commonest words and the PRP's subject, with one
 *   search query from the columns' names and descriptions.
 * - `discovery.validate` matches each target column to the candidate's best column (by meaning when
 *   the embedder serves, else by words; type compatibility; contradicting variants penalised) and
 *   checks that the table is about the requirement's subject: its names, description and columns
 *   compared by meaning with all the requirement's columns (far apart: off subject; loosely alike:
 *   uncertain unless it supplies two of the group's own columns), and the domain its description
 *   names compared with the group and with the names the document uses as its own (a table
 *   naming one of them is about the requirement) or only rules out (a table naming one is not). A candidate that covers at least half of the group's columns,
 *   not only with join keys, fits.
 */
import { decide, meaningSpace, type MeaningSpace } from '../lib/standin/meaning';
import { COLUMN_STOP_WORDS, identifierWords, stemIdentifierWord } from '../../domain/text';
import { ModelTask } from './model-tasks';
import {
  ABOUT_CHARS,
  ACRONYM_STOP,
  acronymsOf,
  domainMarkers,
  isMoneyAcronym,
  type DocumentDomains,
} from './domain-names';

export { acronymsOf, documentDomains, domainMarkers, isMoneyAcronym } from './domain-names';
import { taskRule, type StandinRule } from '../lib/standin';

interface ColumnLike {
  name: string;
  type?: string;
  description?: string;
}
// Words and stems of column names: the identifier flavour of the shared text module.
export const words = identifierWords;
export const stem = stemIdentifierWord;

const stems = (text: string): string[] => words(text).map(stem);

const dice = (a: string[], b: string[]): number => {
  if (!a.length || !b.length) return 0;
  const sb = new Set(b);
  const sa = new Set(a);
  const shared = [...sa].filter((w) => sb.has(w)).length;
  return (2 * shared) / (sa.size + sb.size);
};

// ---------------------------------------------------------------------------------------------
// Meaning: embeddings when the model serves, words otherwise
// ---------------------------------------------------------------------------------------------

/** A column as a sentence: its name spelt out, then its description. */
export const columnText = (c: ColumnLike): string =>
  `${words(c.name).join(' ') || c.name}: ${c.description ?? ''}`.trim();

export { meaningSpace, restoreEmbedder, useEmbedder } from '../lib/standin/meaning';

/** Which variant of a quantity a column holds: a model's estimate, a measured outcome, or neither. */
export type Variant = 'estimate' | 'outcome' | 'plain';
/** General qualifier words (stems) of English; they say which variant, not what is measured. */
const ESTIMATE_WORDS = [
  'predict',
  'forecast',
  'projected',
  'projection',
  'expected',
  'expectation',
  'estimat',
  'modelled',
  'modeled',
  'probability',
  'likelihood',
  'chance',
  'risk',
  'consensu',
  'anticipat',
].map(stem);
const OUTCOME_WORDS = [
  'actual',
  'actually',
  'final',
  'observed',
  'measured',
  'realized',
  'realised',
  'materialised',
  'materialized',
  'certified',
  'reported',
  'recorded',
  'real',
  'really',
  'fact',
].map(stem);

export function variantOf(column: ColumnLike): Variant {
  const ws = [...stems(column.name), ...stems(column.description ?? '')];
  const has = (list: string[]) =>
    ws.some((w) => list.includes(w) || list.some((l) => l.length >= 6 && w.startsWith(l)));
  const estimate = has(ESTIMATE_WORDS);
  const outcome = has(OUTCOME_WORDS);
  if (estimate && !outcome) return 'estimate';
  if (outcome && !estimate) return 'outcome';
  if (estimate && outcome) {
    // "whether the parcel was in fact returned" vs "predicted probability": the name decides.
    const name = stems(column.name);
    if (name.some((w) => OUTCOME_WORDS.includes(w))) return 'outcome';
    return 'estimate';
  }
  return 'plain';
}

/** Join keys: identifiers every table about the entity carries; they say little about a table's content. */
export const isKey = (c: ColumnLike): boolean =>
  /(^|_|\b)(id|key|uuid|pk)$/i.test(c.name.trim()) || /^(id|key)\b/i.test(c.name.trim());

/** Calendar and version words: columns made only of them say when or which, not what. */
const WHEN_WORDS = new Set(
  [
    'season',
    'week',
    'year',
    'month',
    'day',
    'date',
    'time',
    'timestamp',
    'quarter',
    'period',
    'hour',
    'version',
    'start',
    'end',
    'utc',
    'at',
    'on',
  ].map(stem),
);

/**
 * "model" beside a when/which word (model_version, model_date) says which model produced an
 * estimate, as a version says which release: every table of any model's output carries such a
 * column, so it tells nothing of what the estimate is about.
 */
const MODEL = stem('model');

/**
 * Generic columns: join keys and when/which columns (ids, dates, season, week, version). Nearly
 * every table about the entity carries them, so they neither make a group nor a fit on their own.
 */
export const isGeneric = (c: ColumnLike): boolean =>
  isKey(c) ||
  ['date', 'timestamp'].includes(typeFamily(c.type)) ||
  (stems(c.name).length > 0 &&
    stems(c.name).some((w) => WHEN_WORDS.has(w)) &&
    stems(c.name).every((w) => WHEN_WORDS.has(w) || w === MODEL));

/** Similarity of two columns' meanings in 0..1 (words: Dice of name and description stems). */
async function columnSimilarity(a: ColumnLike, b: ColumnLike, meaning: MeaningSpace | undefined): Promise<number> {
  const lexical = () => {
    const an = stems(a.name);
    const bn = stems(b.name);
    const shareLead = an[0] !== undefined && an[0] === bn[0] && !isKey(a) && !isKey(b) ? 0.3 : 0;
    return Math.min(
      1,
      shareLead + dice([...an, ...stems(a.description ?? '')], [...bn, ...stems(b.description ?? '')]),
    );
  };
  if (!meaning) return lexical();
  return Math.max(await meaning.similarity(columnText(a), columnText(b)), lexical());
}

// ---------------------------------------------------------------------------------------------
// Planning
// ---------------------------------------------------------------------------------------------

/** Columns computed from others (errors, flags, differences) come from the query layer, not a source table. */
export function isDerived(column: ColumnLike): boolean {
  return (
    /\b(derived|computed|calculated)\b/i.test(column.description ?? '') ||
    /^\s*(absolute |signed )?(difference|ratio) between\b/i.test(column.description ?? '')
  );
}

/** The PRP's domain: its most frequent acronym, if any. */
export function domainOf(prp: string): string | undefined {
  return acronymsOf(prp)[0];
}

/** The PRP's subject as a short phrase: its first heading without a "PRP:" prefix. */
export function subjectOf(prp: string): string {
  // Leading blanks of one line only: `^\s*` also ran over line breaks, so a PRP of blank lines
  // (200,000 characters pass the contract) was rescanned from every line, a minute of the
  // stand-in's event loop. A heading after blank lines is still found, from its own line.
  const heading =
    /^[^\S\r\n\u2028\u2029]*#{1,3}\s+(.+)$/m.exec(prp)?.[1] ?? prp.split('\n').find((l) => l.trim()) ?? '';
  return heading
    .replace(/^\s*(PRP|Product requirements?( prompt| document)?)\s*[:\-–—]\s*/i, '')
    .replace(/[*_`#]/g, '')
    .trim()
    .slice(0, 90)
    .replace(/\s+\S*$/, (m) => (heading.length > 90 ? '' : m));
}

/**
 * A column as words in a search query: its name spelt out plus a few telling words of its
 * description (actual_home_score, "Final points scored by the home team" → "actual home score
 * (final points scored)"), since catalogs name the same data differently.
 */
function columnPhrase(column: ColumnLike, skip: Set<string>): string {
  const name = words(column.name);
  const seen = new Set([...name, ...name.map(stem)]);
  const extra = words(column.description ?? '')
    .filter((w) => w.length > 2 && !skip.has(w) && !seen.has(w) && !seen.has(stem(w)) && seen.add(w))
    .slice(0, 3);
  return `${name.join(' ') || column.name}${extra.length ? ` (${extra.join(' ')})` : ''}`;
}

export interface PlannedStep {
  conceptual_group: string;
  search_query: string;
  target_columns_for_validation: string[];
}

/** Similarity two clusters need to merge: calibrated for the embedding's cosine and for word overlap. */
const MERGE_AT = { meaning: 0.3, words: 0.25 };
/** A column alone in its cluster joins the closest cluster if at least this similar (a lone column finds anything). */
const ADOPT_AT = { meaning: 0.12, words: 0.05 };
/** More groups than this and the plan costs more searches than it gains. */
const MAX_GROUPS = 8;

/** Average-linkage clustering of columns by meaning; keys join the cluster they are closest to. */
async function clusterColumns(columns: ColumnLike[], meaning: MeaningSpace | undefined): Promise<ColumnLike[][]> {
  const n = columns.length;
  await meaning?.prefetch(columns.map(columnText));
  const sim: number[][] = Array.from({ length: n }, () => new Array<number>(n).fill(0));
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) sim[i][j] = sim[j][i] = await columnSimilarity(columns[i], columns[j], meaning);
  }
  const threshold = meaning ? MERGE_AT.meaning : MERGE_AT.words;
  let clusters: number[][] = columns.map((_, i) => [i]);
  const linkage = (a: number[], b: number[]) =>
    a.reduce((t, i) => t + b.reduce((u, j) => u + sim[i][j], 0), 0) / (a.length * b.length);
  for (;;) {
    let best: [number, number, number] | undefined;
    for (let a = 0; a < clusters.length; a++) {
      for (let b = a + 1; b < clusters.length; b++) {
        const l = linkage(clusters[a], clusters[b]);
        if (!best || l > best[2]) best = [a, b, l];
      }
    }
    if (!best || (best[2] < threshold && clusters.length <= MAX_GROUPS)) break;
    const [a, b] = best;
    clusters = [
      ...clusters.filter((_, k) => k !== a && k !== b),
      [...clusters[a], ...clusters[b]].sort((x, y) => x - y),
    ];
  }
  // A lone column is a poor search and any table with one like it would fit: it joins the
  // cluster it is closest to, unless it resembles none.
  const adopt = meaning ? ADOPT_AT.meaning : ADOPT_AT.words;
  for (;;) {
    const lone = clusters.findIndex((c) => c.length === 1 && clusters.length > 1);
    if (lone < 0) break;
    const [i] = clusters[lone];
    let best = -1;
    for (let k = 0; k < clusters.length; k++)
      if (k !== lone && (best < 0 || linkage([i], clusters[k]) > linkage([i], clusters[best]))) best = k;
    if (linkage([i], clusters[best]) < adopt) break;
    clusters[best] = [...clusters[best], i].sort((x, y) => x - y);
    clusters.splice(lone, 1);
  }
  // A cluster of generic columns alone (keys, dates, season) would find every table that carries
  // them: they go with the cluster of the same variant they are most similar to.
  const keysOnly = clusters.filter((c) => c.every((i) => isGeneric(columns[i])));
  const others = clusters.filter((c) => !c.every((i) => isGeneric(columns[i])));
  if (others.length) {
    for (const group of keysOnly) {
      for (const i of group) {
        const target = others.reduce((best, c) => (linkage([i], c) > linkage([i], best) ? c : best), others[0]);
        target.push(i);
        target.sort((x, y) => x - y);
      }
    }
    clusters = others;
  }
  return clusters.sort((a, b) => a[0] - b[0]).map((c) => c.map((i) => columns[i]));
}

const VARIANT_LABEL: Record<Variant, string> = { estimate: 'estimated', outcome: 'actual', plain: '' };

/** A cluster's name: its variant and its columns' commonest content words. */
function clusterLabel(columns: ColumnLike[], variant: Variant, skip: Set<string>): string {
  const counts = new Map<string, number>();
  const firstSeen = new Map<string, number>();
  let order = 0;
  for (const c of columns) {
    for (const [k, w] of [...words(c.name), ...words(c.description ?? '')].entries()) {
      if (
        w.length < 3 ||
        skip.has(w) ||
        /^\d+$/.test(w) ||
        ESTIMATE_WORDS.includes(stem(w)) ||
        OUTCOME_WORDS.includes(stem(w))
      )
        continue;
      counts.set(w, (counts.get(w) ?? 0) + (k < words(c.name).length ? 2 : 1));
      if (!firstSeen.has(w)) firstSeen.set(w, order++);
    }
  }
  const top = [...counts.entries()]
    .sort((a, b) => b[1] - a[1] || firstSeen.get(a[0])! - firstSeen.get(b[0])!)
    .slice(0, 3)
    .map(([w]) => w);
  return [VARIANT_LABEL[variant], ...top].filter(Boolean).join(' ') || columns[0].name;
}

export async function planSteps(prp: string, schema: ColumnLike[]): Promise<PlannedStep[]> {
  const meaning = await meaningSpace();
  const domains = acronymsOf(prp).slice(0, 3);
  const subject = subjectOf(prp);
  const sourced = schema.filter((c) => !isDerived(c));
  const byVariant = new Map<Variant, ColumnLike[]>();
  // Estimates come from a model's output table, everything else (facts and outcomes) from the
  // record of what happened: the two are planned apart, outcomes cluster with the facts they describe.
  const part = (c: ColumnLike): Variant => (variantOf(c) === 'estimate' ? 'estimate' : 'plain');
  for (const c of sourced) byVariant.set(part(c), [...(byVariant.get(part(c)) ?? []), c]);
  const skip = new Set([
    'unique',
    'identifier',
    'column',
    'value',
    'whether',
    'each',
    ...domains.map((d) => d.toLowerCase()),
  ]);
  const planned: Array<{ variant: Variant; columns: ColumnLike[] }> = [];
  for (const variant of ['plain', 'estimate'] as Variant[]) {
    const columns = byVariant.get(variant);
    if (columns?.length)
      for (const cluster of await clusterColumns(columns, meaning)) planned.push({ variant, columns: cluster });
  }
  // A variant with one lone column (a single estimate among facts) is no group of its own: the
  // column is searched with the facts it is closest to, where a table must hold more than it.
  const adopt = meaning ? ADOPT_AT.meaning : ADOPT_AT.words;
  for (const lone of planned.filter(
    (p) => p.columns.length === 1 && planned.filter((q) => q.variant === p.variant).length === 1,
  )) {
    const others = planned.filter((p) => p !== lone);
    if (!others.length) break;
    const scored = await Promise.all(
      others.map(async (p) => ({
        p,
        sim:
          (await Promise.all(p.columns.map((c) => columnSimilarity(lone.columns[0], c, meaning)))).reduce(
            (a, b) => a + b,
            0,
          ) / p.columns.length,
      })),
    );
    const best = scored.sort((a, b) => b.sim - a.sim)[0];
    if (best.sim < adopt) continue;
    best.p.columns.push(lone.columns[0]);
    planned.splice(planned.indexOf(lone), 1);
  }
  const steps: PlannedStep[] = [];
  for (const { variant, columns: cluster } of planned) {
    const label = clusterLabel(cluster, cluster.every((c) => variantOf(c) === variant) ? variant : 'plain', skip);
    const context = subject && !label.toLowerCase().includes(subject.toLowerCase()) ? ` — ${subject}` : '';
    // No acronym prefix: a group is named by its columns and the PRP's subject. The document's
    // commonest acronym (a unit such as SKU as often as a domain) would otherwise decide which
    // tables are "about something else".
    const group = `${label}${context}`.slice(0, 200);
    const phrases = [...new Set(cluster.map((c) => columnPhrase(c, skip)))];
    let query = `${subject ? `${subject}: ` : ''}${phrases.join(', ')}`;
    if (query.length > 380) query = `${query.slice(0, 377).replace(/\s+\S*$/, '')}...`;
    const order = new Map(schema.map((c, i) => [c.name, i]));
    steps.push({
      conceptual_group: group,
      search_query: query,
      target_columns_for_validation: cluster.map((c) => c.name).sort((a, b) => order.get(a)! - order.get(b)!),
    });
  }
  return steps.slice(0, 16);
}

// ---------------------------------------------------------------------------------------------
// Validation
// ---------------------------------------------------------------------------------------------

type TypeFamily = 'string' | 'integer' | 'number' | 'date' | 'timestamp' | 'boolean' | 'other';

export function typeFamily(type: string | undefined): TypeFamily {
  const t = (type ?? '').toLowerCase();
  if (/^(string|varchar|char|text|nvarchar|character)/.test(t)) return 'string';
  if (/^(int|integer|int64|bigint|smallint|tinyint)/.test(t)) return 'integer';
  if (/^(float|float64|double|numeric|decimal|bignumeric|real|number)/.test(t)) return 'number';
  if (/^date$/.test(t)) return 'date';
  if (/^(timestamp|datetime|time)/.test(t)) return 'timestamp';
  if (/^(bool|boolean)/.test(t)) return 'boolean';
  return 'other';
}

/** 1 for the same kind of value, less for convertible ones (integer↔number, date↔timestamp). */
export function typeCompatibility(a: string | undefined, b: string | undefined): number {
  const fa = typeFamily(a);
  const fb = typeFamily(b);
  if (fa === fb || fa === 'other' || fb === 'other') return 1;
  const pair = [fa, fb].sort().join('+');
  if (pair === 'integer+number' || pair === 'date+timestamp') return 0.85;
  if (pair === 'boolean+integer' || pair === 'integer+string' || pair === 'string+timestamp' || pair === 'date+string')
    return 0.6;
  return 0.4;
}

const QUALIFIERS = new Set([...ESTIMATE_WORDS, ...OUTCOME_WORDS]);

/**
 * How well two columns' values agree: their types, and a quantity and a text are different data
 * however alike their names read (a side's name is not the side's score, an amount is not a
 * label). A count is the exception: it is taken from the rows' text by counting them (tickets of
 * the highest priority, from each ticket's priority). An identifier may be kept as either.
 */
export function valueCompatibility(target: ColumnLike, source: ColumnLike): number {
  const types = typeCompatibility(target.type, source.type);
  if (isIdentifier(target) || isIdentifier(source)) return types;
  const numeric = (c: ColumnLike) => ['integer', 'number'].includes(typeFamily(c.type));
  const text = (c: ColumnLike) => typeFamily(c.type) === 'string';
  const apart = (text(target) && numeric(source)) || (numeric(target) && text(source) && !isCount(target));
  return apart ? Math.min(types, 0.3) : types;
}

/**
 * General English words for the two ends of a span. A column of when something began is not one of
 * when it ended, however alike the two sentences read to the embedding (both are "a time of the
 * match"): a table that has only the start of what the group wants the end of does not supply it.
 */
const SPAN_START = new Set([
  'start',
  'starts',
  'started',
  'starting',
  'begin',
  'begins',
  'began',
  'beginning',
  'commenced',
  'open',
  'opens',
  'opened',
  'opening',
  'created',
]);
const SPAN_END = new Set([
  'end',
  'ends',
  'ended',
  'ending',
  'finish',
  'finishes',
  'finished',
  'concluded',
  'stopped',
  'close',
  'closes',
  'closed',
  'closing',
  'resolved',
  'completed',
]);

/**
 * Which end of a span a column of times marks by its words, if it says one and only one. Only a
 * date or a time marks an end: "open" and "closed" of a status or a count say something else.
 */
export function spanEnd(c: ColumnLike): 'start' | 'end' | undefined {
  const family = typeFamily(c.type);
  if (family !== 'date' && family !== 'timestamp') return undefined;
  const ws = [...words(c.name), ...words(c.description ?? '')].map((w) => w.toLowerCase());
  const start = ws.some((w) => SPAN_START.has(w));
  const end = ws.some((w) => SPAN_END.has(w));
  return start === end ? undefined : start ? 'start' : 'end';
}

/** 1 unless the two columns mark opposite ends of a span (a start for an end). */
export function spanAgreement(target: ColumnLike, source: ColumnLike): number {
  const a = spanEnd(target);
  const b = spanEnd(source);
  return a && b && a !== b ? 0.3 : 1;
}

/** A column that counts rows: "how many", "number of", a name ending in count or a plural noun counted. */
export const isCount = (c: ColumnLike): boolean =>
  typeFamily(c.type) === 'integer' &&
  (/\b(how many|number of|count of|counted)\b/i.test(c.description ?? '') ||
    /(^|_)(count|cnt|num|n)($|_)/i.test(c.name));

/** How well a source column provides a target column by their words (0..1). */
export function columnMatch(target: ColumnLike, source: ColumnLike): number {
  const tn = stems(target.name);
  const sn = stems(source.name);
  const td = [...tn, ...stems(target.description ?? '')];
  const sd = [...sn, ...stems(source.description ?? '')];
  let similarity: number;
  if (target.name.toLowerCase() === source.name.toLowerCase()) similarity = 1;
  else {
    // Qualifier words (predicted, actual, closing...) say which variant a column holds, not what
    // it measures: compare the rest, then penalise variants that contradict each other.
    const core = (ws: string[]) => {
      const rest = ws.filter((w) => !QUALIFIERS.has(w));
      return rest.length ? rest : ws;
    };
    const nameSim = dice(core(tn), core(sn));
    const descSim = dice(core(td), core(sd));
    similarity = Math.min(1, 0.6 * nameSim + 0.5 * descSim);
  }
  return (
    similarity * variantAgreement(target, source) * valueCompatibility(target, source) * spanAgreement(target, source)
  );
}

/**
 * An estimate offered for a fact or an outcome (or the reverse) is not the same data, however alike
 * the words: a model's predicted spread is not the market's closing spread.
 */
function variantAgreement(target: ColumnLike, source: ColumnLike): number {
  return (variantOf(target) === 'estimate') !== (variantOf(source) === 'estimate') ? 0.5 : 1;
}

/**
 * Cosine of two column sentences mapped to 0..1: unrelated columns of this model sit below 0.3,
 * the same data under other names around 0.55 to 0.8.
 */
const CONTEXT_LIFT = 0.15;
const meaningScore = (cos: number): number => Math.max(0, Math.min(1, (cos - 0.25) / 0.35));

/**
 * Columns are read in their context, as a person reading a schema does: "probability" in a table of
 * churn predictions means the chance a customer leaves, and the group says what the target is about.
 */
async function columnMatchByMeaning(
  target: ColumnLike,
  source: ColumnLike,
  meaning: MeaningSpace | undefined,
  context: { group: string; table: string },
): Promise<{ score: number; raw: number }> {
  const lexical = columnMatch(target, source);
  if (!meaning) return { score: lexical, raw: lexical };
  // Context may only sharpen a resemblance the columns already have: two columns of similar
  // tables are otherwise alike by their context alone (season ≈ home score "in NFL games").
  const plain = await meaning.similarity(columnText(target), columnText(source));
  const inContext = await meaning.similarity(
    `${columnText(target)} (${context.group})`,
    `${columnText(source)} (${context.table})`,
  );
  const cos = Math.max(plain, Math.min(inContext, plain + CONTEXT_LIFT));
  const weight = variantAgreement(target, source) * valueCompatibility(target, source) * spanAgreement(target, source);
  // The score saturates at 1 (two columns of the same data under other names), so `raw` keeps
  // the unclipped resemblance that tells two such candidates apart.
  return { score: Math.max(lexical, meaningScore(cos) * weight), raw: Math.max(lexical, cos * weight) };
}

export interface CandidateLike {
  table_id?: string;
  project_id?: string;
  dataset_id?: string;
  description?: string;
  schema?: ColumnLike[];
}

export interface Verdict {
  is_good_fit: boolean;
  relevance_score: number;
  reasoning: string;
  matched_columns: string[];
  /** How clearly the table supplies each matched column: what look-alike tables are compared by. */
  column_scores?: Record<string, number>;
  /** The table's subject against the requirement's, by meaning (absent without the model). */
  subject_score?: number;
}

const MATCH_THRESHOLD = 0.55;
/** A partial source: at least this many of the group's non-generic columns, matched this well on average. */
const PARTIAL_COLUMNS = 2;
const PARTIAL_MEAN = 0.6;

/** Acronyms in the conceptual group ("NFL model predictions" → NFL) that a fitting table must mention. */
function groupDomains(group: string): string[] {
  return [...group.matchAll(/\b[A-Z]{2,5}\b/g)]
    .filter((m) => {
      const at = m.index ?? 0;
      return !isMoneyAcronym(
        m[0],
        group.slice(Math.max(0, at - 20), at),
        group.slice(at + m[0].length, at + m[0].length + 20),
      );
    })
    .map((m) => m[0])
    .filter((a) => !ACRONYM_STOP.has(a));
}

/**
 * The margin and floor of the subject decision (cosine, MiniLM). Leaving any word out of a
 * description brings it a little closer to a text that does not use it, so a name that is merely
 * unknown to the group sits near the margin: measured on the development PRPs, 0.06 let other
 * leagues' tables through, 0.03 keeps them out.
 */
const SUBJECT_DECISION = { margin: 0.03, floor: 0.2 };

/**
 * Whether the table's description names a domain of its own (an acronym, a proper name) that is
 * not the group's: decided by meaning, as a reader would. The description is compared with the
 * group twice, with and without the names it gives; when the names clearly pull it away from the
 * group (their meaning is another subject's), the table is about something else. Names that agree
 * with the group, or say nothing either way (a unit such as SKU, an agency whose data the group
 * wants), leave the verdict to the columns.
 *
 * A group that names a domain itself and a table naming only others is off subject (two leagues'
 * tables are alike in meaning, not in data) when nothing better tells the group's domain: without
 * the model, or when the validation does not carry the requirement's columns (`bySubject` false).
 * When it does, the requirement's columns say what the group is about, and an acronym in the
 * group's name decides nothing: the PRP's heading, which the group's name carries, may hold any
 * acronym (a medium, a unit), and every table naming the real domain would be rejected for it.
 */
export async function namesAnotherDomain(
  group: string,
  description: string,
  bySubject = false,
  requirement = '',
  rowsNamed = '',
  document?: DocumentDomains,
  subjectAgrees = false,
): Promise<string | undefined> {
  const markers = domainMarkers(description);
  if (!markers.length) return undefined;
  // The requirements document's own names (its background calls its games by the league's
  // acronym) say what it is about, as its columns do: a table naming one of them is about the
  // requirement's domain, whatever else it names. A name the document only rules out ("not
  // wanted: the professional league's games") says the table is about what it does not want.
  const documentOwn = new Set(document?.own ?? []);
  if (markers.some((m) => documentOwn.has(m))) return undefined;
  const ruledOut = markers.filter((m) => (document?.excluded ?? []).includes(m));
  if (ruledOut.length) return `${ruledOut.join('/')} data, which the requirement rules out`;
  // A name the document rules out in words ("no basketball or baseball" for the NBA's and MLB's
  // tables): the table's name is, by meaning, one of the few words of an item the document does
  // not want (RULED_OUT_NAME).
  const namedInWords = await ruledOutInWords(markers, document?.ruledOutText ?? []);
  if (namedInWords) return `${namedInWords.marker} data, which the requirement rules out ("${namedInWords.item}")`;
  // A document that names no domain at all, neither its own nor one it rules out, is not
  // contradicted by a name in a table whose subject clearly agrees with the requirement's: the
  // name is then whose data it is (an agency, a provider), and the columns decide.
  if (subjectAgrees && document && !document.own.length && !document.excluded.length) return undefined;
  // The document's own account of its subject ("our club in the top netball league") may name the
  // domain in words where the table names it by acronym: a name that a word or two of the account
  // means, or that brings the table's description nearer the account at all, is the document's
  // own domain, and the columns decide.
  const about = document?.about;
  if (about) {
    if (await nameSaidInWords(markers, about)) return undefined;
    const names = markers.slice(0, MAX_NAMES_COMPARED);
    const bareOfNames = withoutNames(description, names);
    const meaningOfAbout = await meaningSpace();
    if (meaningOfAbout && bareOfNames) {
      const [named, unnamed] = await meaningOfAbout.similarities(about, [description, bareOfNames]);
      if (named > unnamed + NAME_PULL) return undefined;
    }
  }
  // A name the requirement itself uses (its columns say "the WNBL club") is its own domain,
  // whichever group asks: the table is about what the requirement is about, and its columns
  // decide. Only names the requirement never uses can pull a table away from it.
  const own = new Set(domainMarkers(requirement));
  if (bySubject && markers.some((m) => own.has(m))) return undefined;
  // The requirement's keys say whose rows it wants ("the ATP match"): a table whose description
  // names its own domain by acronyms, none of them the requirement's, describes rows of another
  // domain, however alike its columns ("ITF junior matches"). Acronyms only: a capitalised phrase
  // in a description is as often a product's or a report's name as a domain.
  const rowDomains = acronymsOf(rowsNamed);
  const tableDomains = acronymsOf(description);
  if (bySubject && rowDomains.length && tableDomains.length)
    return `${tableDomains.join('/')} data, not ${rowDomains.join('/')} data`;
  const domains = groupDomains(group);
  const contradicts = domains.length > 0 && !markers.some((d) => domains.includes(d));
  const named = `${markers.join('/')} data, not ${domains.join('/')} data`;
  const meaning = await meaningSpace();
  if (!meaning) return contradicts ? named : undefined;
  const bare = withoutNames(description, markers);
  if (!bare) return undefined;
  const decision = await decide(
    group,
    [
      { key: 'as-named', descriptions: [description] },
      { key: 'unnamed', descriptions: [bare] },
    ],
    SUBJECT_DECISION,
  );
  if (contradicts && !bySubject) return named;
  return decision.key === 'unnamed' ? `${markers.join('/')} data, another subject than the group's` : undefined;
}

/**
 * How much nearer (cosine, MiniLM) a table's description must come to the document's own account
 * of its subject with its domain names than without them for the names to be the document's.
 * Leaving out a name the account does not speak of brings the description nearer it, so any pull
 * toward it is the account speaking of the name's domain in other words.
 */
export const NAME_PULL = 0;

/**
 * How close (cosine, MiniLM) a table's domain name must be to a word or two of the document's own
 * account to be that name said in words: a league's acronym and its sport sit at 0.75-0.88 ("NFL"
 * and "football", "NBA" and "basketball", "NCAA" and "college sport"), and a
 * league and another sport, or a league and "sports", "teams" or "league", at 0.69 at most.
 */
export const NAME_IN_WORDS = 0.74;

/** The most words and pairs of words of the account compared with a table's names, and the most names. */
const MAX_ACCOUNT_PHRASES = 160;
const MAX_NAMES_COMPARED = 8;

/** The document's own phrase (a word or two of its account) that one of the table's domain names means. */
async function nameSaidInWords(markers: readonly string[], about: string): Promise<string | undefined> {
  const meaning = await meaningSpace();
  if (!meaning || !markers.length) return undefined;
  // The account arrives as a list of its words and pairs of words (`wordsOfAccount`).
  const items = about
    .split(/,\s*/)
    .map((p) => p.trim())
    .filter(Boolean)
    .slice(0, MAX_ACCOUNT_PHRASES);
  if (!items.length) return undefined;
  // A description names a domain or two; a long list of capitalised words is not worth more work.
  for (const marker of markers.slice(0, MAX_NAMES_COMPARED)) {
    const scores = await meaning.similarities(marker, items);
    const best = scores.indexOf(Math.max(...scores));
    if (scores[best] >= NAME_IN_WORDS) return items[best];
  }
  return undefined;
}

/** A description without the domain names it gives: what it says of its rows, whoever's they are. */
const withoutNames = (description: string, names: readonly string[]): string =>
  names
    .reduce((text, m) => text.split(m).join(' '), description)
    .replace(/\s+/g, ' ')
    .trim();

/**
 * How close (cosine, MiniLM) a table's domain name must be to a short item of what the document
 * rules out to be that item: a league's acronym and its own sport's name sit at 0.83-0.88 ("NBA"
 * and "basketball", "MLB" and "baseball"); a league and a neighbouring competition, which a
 * document may rule out beside its own, reach 0.76 ("NCAA" and "college sport", for a document
 * on one college game; "NFL" and "American football" 0.75, "NHL" and "field hockey" 0.74).
 */
export const RULED_OUT_NAME = { similarity: 0.8, maxWords: 3 } as const;

/** The table's domain name that is, by meaning, a short item the document rules out, with that item. */
async function ruledOutInWords(
  markers: readonly string[],
  sentences: readonly string[],
): Promise<{ marker: string; item: string } | undefined> {
  const meaning = await meaningSpace();
  if (!meaning || !markers.length) return undefined;
  const items = [
    ...new Set(
      sentences.flatMap((sentence) =>
        sentence
          // Every part of the sentence: a list may follow its lead-in ("two sports are out: …").
          .split(/[:;,]|\bor\b|\band\b|\bnor\b/i)
          .map((item) => item.replace(/[.()]/g, ' ').replace(/\s+/g, ' ').trim())
          .filter((item) => item && item.split(' ').length <= RULED_OUT_NAME.maxWords),
      ),
    ),
  ].slice(0, 40);
  if (!items.length) return undefined;
  for (const marker of markers) {
    const scores = await meaning.similarities(marker, items);
    const best = scores.indexOf(Math.max(...scores));
    if (scores[best] >= RULED_OUT_NAME.similarity) return { marker, item: items[best] };
  }
  return undefined;
}

/**
 * How far apart, by meaning, a table's subject and the requirement's may be (cosine, MiniLM). A
 * table is read as its dataset and table names, its description and its column names; the
 * requirement as all its columns with their descriptions. Below the floor the table is about
 * something else, however alike a column or two. Within the margin above it the subjects are
 * only loosely alike: a group's column shared with such a table (a date, an amount, a forecast)
 * says little, so the table must supply two or more of the group's own columns, else it is
 * reported as uncertain instead of accepted. Measured on the development PRPs: tables of the
 * requirement's own subject sit from about 0.23 up, tables that only share generic columns with
 * it mostly between 0.2 and 0.4.
 */
export const SUBJECT_AGREEMENT = { floor: 0.2, margin: 0.2 } as const;

/** What a table is about, as one sentence: its dataset and table names, description and column names. */
export function tableSubject(candidate: CandidateLike): string {
  const names = [...words(candidate.dataset_id ?? ''), ...words(candidate.table_id ?? '')].join(' ');
  const columns = (candidate.schema ?? [])
    .filter((c) => c && typeof c.name === 'string')
    .map((c) => words(c.name).join(' ') || c.name)
    .join(', ');
  return `${names}: ${candidate.description ?? ''}${columns ? ` (${columns})` : ''}`;
}

/** What the whole requirement is about, as one text: its columns with their descriptions. */
export const requirementSubject = (deliverable: ColumnLike[]): string => deliverable.map(columnText).join('; ');

/**
 * How the table's subject agrees with the requirement's: `off` below the floor, `uncertain`
 * within the margin above it, `agrees` beyond; undefined when there is nothing to compare (no
 * model, or no requirement columns: a run started before they were sent).
 */
export async function subjectAgreement(
  candidate: CandidateLike,
  deliverable: ColumnLike[] | undefined,
  group: ColumnLike[] = [],
  about?: string,
): Promise<{ verdict: 'off' | 'uncertain' | 'agrees'; similarity: number; score: number } | undefined> {
  const meaning = await meaningSpace();
  if (!meaning || !deliverable?.length) return undefined;
  // The embedder reads only a text's first 256 tokens, some eight columns with their
  // descriptions: the group's own columns go first, or a group of a requirement's later columns
  // (the weather of a bike-share requirement) is judged against a subject that never names them.
  const own = new Set(group.map((c) => c.name));
  const ordered = [...deliverable.filter((c) => own.has(c.name)), ...deliverable.filter((c) => !own.has(c.name))];
  const table = tableSubject(candidate);
  const similarity = await meaning.similarity(table, requirementSubject(ordered));
  const { floor, margin } = SUBJECT_AGREEMENT;
  const verdict = similarity < floor ? 'off' : similarity < floor + margin ? 'uncertain' : 'agrees';
  // The verdict is the columns' (its floor and margin were measured on them). The columns read
  // alike across domains (a date, two teams, a score) and the document's own words say whose they
  // are, so the score that tells look-alike tables apart weighs both equally.
  const score = about?.trim() ? (similarity + (await meaning.similarity(table, about))) / 2 : similarity;
  return { verdict, similarity, score };
}

/**
 * How much closer (cosine, MiniLM) a table must be to a sentence the document rules out than to
 * the requirement's columns to be taken as what is ruled out.
 */
export const RULED_OUT_MARGIN = 0.05;

/**
 * The sentence of the document's not-wanted part that a table is about, if it is clearly closer
 * to it than to the requirement: a document may rule out a neighbouring data set by describing it
 * ("the support desk's own call logs are a different data set"), without naming it.
 */
export async function ruledOutBy(
  candidate: CandidateLike,
  requirementSimilarity: number,
  sentences: string[],
): Promise<string | undefined> {
  const meaning = await meaningSpace();
  if (!meaning || !sentences.length) return undefined;
  const table = tableSubject(candidate);
  let best: { sentence: string; similarity: number } | undefined;
  for (const sentence of sentences) {
    // A sentence that lists what is not wanted ("ticket sales, venue details or weather") is read
    // item by item too: the whole list's meaning is no one table's.
    for (const text of [sentence, ...listItems(sentence)]) {
      const similarity = await meaning.similarity(table, text);
      if (!best || similarity > best.similarity) best = { sentence, similarity };
    }
  }
  return best && best.similarity > requirementSimilarity + RULED_OUT_MARGIN ? best.sentence : undefined;
}

/** The items of a list in a sentence's first clause, each of two words or more ("venue details"). */
export function listItems(sentence: string): string[] {
  const clause = sentence.split(/[:;]/)[0];
  const items = clause
    .split(/,|\bor\b|\band\b|\bnor\b/)
    .map((item) => item.replace(/[.()]/g, ' ').replace(/\s+/g, ' ').trim())
    .filter((item) => item.split(' ').length >= 2);
  return items.length > 1 ? items : [];
}

/** In the uncertain band, a table must supply at least this many of the group's own (non-generic) columns. */
const UNCERTAIN_COLUMNS = 2;
/** A column matched clearly: its own name, or one of the same meaning (see `columnSimilarity`). */
const CLEAR_COLUMN = 0.8;

/**
 * Identifiers: join keys, and references and codes ("_ref", "_code"). All name rows of some
 * kind; none says anything of a row's content.
 */
/**
 * A code that classifies what a row records (a diagnosis, a currency, a postcode) rather than
 * naming the row: its name ends in "code" and nothing in it or its description says it identifies.
 */
export const isCode = (c: ColumnLike, columns: readonly ColumnLike[] = []): boolean =>
  !isKey(c) &&
  CODE_NAME.test(c.name.trim()) &&
  !/\b(identif\w*|unique|primary)\b/i.test(c.description ?? '') &&
  !codeNamesAThing(c, columns);

const CODE_NAME = /(^|_)code$|[a-z0-9]Code$/;

/**
 * A code whose first word heads another key or name column of the requirement (a shop's code
 * beside the shop's id or name) names that thing, as its key does: an identifier, not what a
 * row records. A code of something the requirement names no other way (a diagnosis, a currency)
 * classifies the row.
 */
export function codeNamesAThing(c: ColumnLike, columns: readonly ColumnLike[]): boolean {
  if (!CODE_NAME.test(c.name.trim())) return false;
  const head = words(c.name)[0];
  if (!head || stem(head) === stem('code')) return false;
  return columns.some(
    (o) =>
      o.name !== c.name &&
      words(o.name)[0] === head &&
      (isKey(o) || (typeFamily(o.type) === 'string' && stems(o.name).some((w) => NAMING_WORDS.has(w)))),
  );
}

export const isIdentifier = (c: ColumnLike): boolean =>
  isKey(c) || /(^|_|\b)(ref|code)$/i.test(c.name.trim()) || /[a-z0-9](Id|Ref|Key|Code)$/.test(c.name.trim());

/** Words that open a description of what a key identifies without being the thing ("The unique identifier of"). */
const IDENTIFYING_LEAD = new Set(
  'the a an this that which what whose our their its his her each every one any unique internal primary surrogate system identifier identifiers id key code number reference ref uuid pk of for no record row entry'.split(
    ' ',
  ),
);
/** Words that end the phrase naming the thing: a clause or a prepositional phrase begins. */
const PHRASE_BREAK = new Set([
  ...COLUMN_STOP_WORDS,
  ...'who whom whose what how why was were is are be been being belongs belong had has have do does did'.split(' '),
]);

/**
 * What a description says the column identifies: the head of its opening noun phrase ("The
 * region the shop belongs to" → region; "Identifier of the rider's team" → team), not every word in it. A key's
 * description often speaks of the rows it belongs with; only its head says which rows it names.
 */
export function describedThing(description: string): string[] {
  const tokens = description.toLowerCase().match(/[a-z0-9]+(?:['\u2019][a-z]+)?/g) ?? [];
  let i = 0;
  while (i < tokens.length && IDENTIFYING_LEAD.has(tokens[i])) i++;
  let phrase: string[] = [];
  for (; i < tokens.length; i++) {
    const t = tokens[i];
    // A participle after the noun begins a clause too ("Parcel handed over at", "Vessel inspected").
    if (PHRASE_BREAK.has(t) || (phrase.length > 0 && t.length > 4 && /[^e]ed$/.test(t))) break;
    // "the rider's team": the possessor is whose it is, the thing is what follows.
    if (/['\u2019]s$/.test(t)) {
      phrase = [];
      continue;
    }
    phrase.push(t);
  }
  // Its head noun, the phrase's last word besides identifying ones: "NFL game identifier" names
  // games, not everything else the league's acronym is put on.
  const head = phrase.filter((w) => !IDENTIFYING_LEAD.has(w)).pop();
  return head ? [stem(head)] : [];
}

/**
 * What a description says the column's rows also are: "the same id as the account", "also
 * known as the member number", "i.e. the contract": the head of the phrase after it.
 */
function equatedThings(description: string): string[] {
  return [
    ...description.matchAll(/\b(?:same\b[^.;,()]*?\bas|also known as|aka|a\.k\.a\.|i\.e\.)\s+([^.;()]+)/gi),
  ].flatMap((m) => describedThing(m[1]));
}

/**
 * The kind of row a key names: the words of its name besides key words, its description's head,
 * and what the description says it is the same as.
 */
function identifiedThing(c: ColumnLike): Set<string> {
  const description = c.description ?? '';
  return new Set([
    ...stems(c.name).filter((w) => !KEY_WORDS.has(w)),
    ...describedThing(description),
    ...equatedThings(description),
  ]);
}

/**
 * Whether two key columns identify the same kind of thing: the same name, or the thing one
 * names (its name's words, or the head of its description: "Parcel number") also the thing the
 * other names. rider_id and race_id are both keys, of different rows; a region key described as
 * "the region the shop belongs to" identifies regions, not shops.
 */
export function sameEntityKey(a: ColumnLike, b: ColumnLike): boolean {
  if (a.name.toLowerCase() === b.name.toLowerCase()) return true;
  const ta = identifiedThing(a);
  return [...identifiedThing(b)].some((w) => ta.has(w));
}

/**
 * Whether a source column may provide a target at all, as far as identifiers go. A source key
 * that names a thing the requirement itself speaks of apart from the target (its games, when the
 * target names players; its ships, when the target is the inspector who boarded) is that thing's key,
 * not the target, however alike the two read. Identifiers of the same thing by their words
 * (player_name from player_id) agree; keys of things the requirement never names are left to
 * their meaning: a surveyor's key may well be the inspector who boarded. An identifier is never
 * taken from a plain column that does not name its thing: a voyage's reference is not the name
 * of the route it sailed, however alike the two read.
 */
export function identifiersAgree(
  target: ColumnLike,
  source: ColumnLike,
  requirementWords: ReadonlySet<string>,
): boolean {
  const ti = isIdentifier(target);
  const si = isIdentifier(source);
  if (target.name.toLowerCase() === source.name.toLowerCase() || (!ti && !si)) return true;
  if (ti && si ? sameEntityKey(target, source) : sharesThing(ti ? target : source, ti ? source : target)) return true;
  if (!si) return false;
  const own = identifiedThing(target);
  return ![...identifiedThing(source)].some((w) => !own.has(w) && requirementWords.has(w));
}

/** Whether a plain column's name speaks of the thing an identifier names (player_name, player_id). */
function sharesThing(id: ColumnLike, plain: ColumnLike): boolean {
  const named = new Set(stems(plain.name));
  return [...identifiedThing(id)].some((w) => named.has(w));
}

/**
 * The acronyms a key's description puts on the rows themselves ("the WTA match" of match_id):
 * one followed within three words by what the key identifies. An acronym elsewhere in it is a
 * unit or a standard the rows are measured or kept by ("a ticket, as logged under the SLA",
 * "amounts in EUR"), which says nothing of whose rows they are.
 */
function rowAcronyms(key: ColumnLike): string {
  const what = new Set(stems(key.name).filter((w) => !KEY_WORDS.has(w)));
  const text = key.description ?? '';
  if (!what.size) return text;
  const found: string[] = [];
  for (const m of text.matchAll(/\b[A-Z]{2,5}\b((?:[\s-]+[A-Za-z]+){1,3})/g))
    if (stems(m[1]).some((w) => what.has(w))) found.push(m[0].split(/[\s-]/)[0]);
  return found.join(' ');
}
const KEY_WORDS = new Set(['id', 'key', 'uuid', 'pk', 'ref', 'code', 'number', 'no'].map(stem));

/** Words of a column that names a thing rather than measuring it: its name, label or abbreviation. */
const NAMING_WORDS = new Set(['name', 'abbr', 'abbrev', 'abbreviation', 'label', 'title', 'handle', 'slug'].map(stem));

/**
 * Whether a column names a thing (an identifier, a code, a name or an abbreviation of it) rather
 * than holding a measure or a fact about it.
 */
export const namesAThing = (c: ColumnLike): boolean =>
  isIdentifier(c) || (typeFamily(c.type) === 'string' && stems(c.name).some((w) => NAMING_WORDS.has(w)));

export async function validateCandidate(
  group: string,
  targets: ColumnLike[],
  candidate: CandidateLike,
  deliverable?: ColumnLike[],
  domains?: DocumentDomains,
): Promise<Verdict> {
  const meaning = await meaningSpace();
  const schema = (candidate.schema ?? []).filter((c) => c && typeof c.name === 'string');
  const name = [candidate.project_id, candidate.dataset_id, candidate.table_id].filter(Boolean).join('.');
  if (!targets.length || !schema.length) {
    return {
      is_good_fit: false,
      relevance_score: 0,
      reasoning: `${name || 'the table'} has no schema to compare with the target columns.`,
      matched_columns: [],
    };
  }
  // One source column provides at most one target column (team_abbr is not both home_team and
  // away_team): assign the best-scoring pairs first.
  const context = { group, table: candidate.description || name };
  await meaning?.prefetch([
    ...targets.flatMap((t) => [columnText(t), `${columnText(t)} (${context.group})`]),
    ...schema.flatMap((c) => [columnText(c), `${columnText(c)} (${context.table})`]),
  ]);
  // The things the requirement speaks of, in its columns' names and descriptions (its games, stadiums, players).
  const requirementWords = new Set(
    (deliverable ?? targets).flatMap((c) => [...stems(c.name), ...stems(c.description ?? '')]),
  );
  const requirementNames = new Set((deliverable ?? targets).map((c) => c.name.toLowerCase()));
  const namedAsAnother = (target: ColumnLike, source: ColumnLike) =>
    source.name.toLowerCase() !== target.name.toLowerCase() && requirementNames.has(source.name.toLowerCase());
  const scored: Array<{ ti: number; target: string; source: string; score: number; raw: number; same: boolean }> = [];
  for (const [ti, target] of targets.entries()) {
    for (const source of schema) {
      scored.push({
        ti,
        target: target.name,
        source: source.name,
        // A source column of another requirement column's very name is that column, not this one.
        ...(identifiersAgree(target, source, requirementWords) && !namedAsAnother(target, source)
          ? await columnMatchByMeaning(target, source, meaning, context)
          : { score: 0, raw: 0 }),
        same: target.name.toLowerCase() === source.name.toLowerCase(),
      });
    }
  }
  // Among equally scored pairs (scores saturate at 1), a column of the target's own name comes
  // first, then the closer resemblance: rider_id is provided by rider_id, not by the race_id
  // that happened to be listed first.
  scored.sort((a, b) => b.score - a.score || Number(b.same) - Number(a.same) || b.raw - a.raw);
  const pairs = targets.map((t) => ({ target: t.name, source: '', score: 0, raw: 0 }));
  const usedSources = new Set<string>();
  for (const s of scored) {
    if (pairs[s.ti].source || usedSources.has(s.source) || s.score <= 0) continue;
    pairs[s.ti] = { target: s.target, source: s.source, score: s.score, raw: s.raw };
    usedSources.add(s.source);
  }
  const matched = pairs.filter((p) => p.score >= MATCH_THRESHOLD);
  const coverage = matched.length / targets.length;
  const columnScore = pairs.reduce((n, p) => n + p.score, 0) / pairs.length;
  // Generic columns alone do not make a source: every table about the entity carries keys,
  // dates and seasons. Where the group has other columns, half of those must be provided.
  // A code that names a thing the requirement also keys or names (see `codeNamesAThing`) is one
  // of its identifiers: carrying it says no more of a table's content than carrying the key.
  const requirementColumns = deliverable ?? targets;
  const content = new Set(
    targets.filter((t) => !isGeneric(t) && !codeNamesAThing(t, requirementColumns)).map((t) => t.name),
  );
  const contentMatched = matched.filter((p) => content.has(p.target)).length;
  const contentCoverage = content.size ? contentMatched / content.size : coverage;
  // A table fits when it provides half of the group, or half of what the group is about.
  // A group of keys and dates alone (a leftover searched by itself) finds every table that
  // carries them: no table is a source for it on its own.
  const onlyKeys =
    (content.size > 0 && contentMatched === 0) ||
    targets.every((t) => isGeneric(t) || (isIdentifier(t) && !isCode(t, requirementColumns)));
  const enough = coverage >= 0.5 || contentCoverage >= 0.5;

  // Subject: a table that names its own domain (an acronym in its description) and none of the
  // group's is about something else, however alike its columns (one league's scores are not
  // another's). Tables that name no domain are judged by their columns alone.
  const subject = await subjectAgreement(candidate, deliverable, targets, domains?.about);
  const ruledOut = subject ? await ruledOutBy(candidate, subject.similarity, domains?.ruledOutText ?? []) : undefined;
  const offSubject =
    subject?.verdict === 'off'
      ? `its subject is far from the requirement's (similarity ${subject.similarity.toFixed(2)})`
      : ruledOut
        ? `it is closer to what the document rules out ("${ruledOut}") than to what it asks for`
        : await namesAnotherDomain(
            subject ? `${group}: ${targets.map(columnText).join('; ')}` : group,
            candidate.description ?? '',
            subject !== undefined,
            `${group}. ${(deliverable ?? []).map((c) => c.description ?? '').join('. ')}`,
            (deliverable ?? []).filter(isKey).map(rowAcronyms).join(' '),
            domains,
            subject?.verdict === 'agrees',
          );
  // Loosely alike subjects and a single shared column: too little to say the table is a source.
  // A table that supplies every column of the group, each clearly (a patient register's own
  // "birth_date" and "sex" for a group of just those), is a source whatever its subject's wording.
  const wholeAndClear = coverage === 1 && pairs.every((p) => p.score >= CLEAR_COLUMN);
  // A group of dates alone (a leftover such as the day each row happened) is the exception: a
  // table clearly about the requirement's subject that holds every one of them clearly (its own
  // day of the very rows) supplies them. Other tables that merely carry a date are look-alikes
  // the workflow sets aside beside a clearer one; keys and seasons alone still make no source.
  const whenAlone =
    subject?.verdict === 'agrees' &&
    wholeAndClear &&
    targets.every((t) => !isKey(t) && ['date', 'timestamp'].includes(typeFamily(t.type)));
  const uncertain =
    !offSubject &&
    subject?.verdict === 'uncertain' &&
    !wholeAndClear &&
    matched.filter((p) => content.has(p.target)).length < UNCERTAIN_COLUMNS;
  const relevance =
    Math.round(Math.min(1, 0.35 * coverage + 0.65 * columnScore) * (offSubject ? 0.4 : uncertain ? 0.7 : 1) * 100) /
    100;
  // A table that holds part of a group well is a source for that part (a group may span several
  // tables): two or more of the group's own columns, each matched clearly. The verdict names the
  // columns it supplies, and the rest of the group is left to other tables.
  const matchedContent = matched.filter((p) => content.has(p.target));
  const matchedMean = matchedContent.reduce((n, p) => n + p.score, 0) / Math.max(1, matchedContent.length);
  const groupIdentifiers = targets.filter(isIdentifier).map((t) => t.name);
  const partial = !enough && matchedContent.length >= PARTIAL_COLUMNS && matchedMean >= PARTIAL_MEAN;
  // A table that supplies only a column or two of a group of several (no more than a partial
  // source needs) must at least be about the requirement's rows: when both name their rows by keys, one
  // of the table's keys must identify the same kind of thing as one of the requirement's. A
  // ferry crossing's delay is not a bus route's delay, a loan's risk score not a shipment's
  // damage score, the temperature in a cold store not a town's temperature that day, however
  // alike the columns read. Two columns are too little to outweigh keys that name
  // other rows; a table that supplies more is judged by its columns.
  const tableKeys = schema.filter(isKey);
  // A requirement that names its rows by no key (a postcode district's code is not spelt "_id") names
  // them by its columns: the table's key must then identify something one of them speaks of.
  const requirementKeys = (deliverable ?? []).some(isKey) ? (deliverable ?? []).filter(isKey) : (deliverable ?? []);
  // A table keyed by the thing a supplied column is about provides it, joined through the rows
  // that refer to that thing (a venue's capacity from a venue register, for rows of events held
  // there). The column's own words must name the thing: "metered" is not a meter.
  const targetsByName = new Map(targets.map((t) => [t.name, t]));
  const byTheirThing = (k: ColumnLike) =>
    matched.some((p) => {
      const t = targetsByName.get(p.target);
      if (!t || isIdentifier(t)) return false;
      const named = new Set(words(t.name).flatMap((w) => [w, stem(w)]));
      return stems(k.name).some((w) => !KEY_WORDS.has(w) && named.has(w) && words(t.name).includes(w));
    });
  // Keys of the requirement are compared as keys; a requirement of plain columns is spoken of in
  // their words, names and descriptions alike (a race's key for columns about each race).
  const requirementHasKeys = (deliverable ?? []).some(isKey);
  const speaksOf = (k: ColumnLike, c: ColumnLike) => {
    const said = new Set([...stems(c.name), ...stems(c.description ?? '')]);
    return [...identifiedThing(k)].some((w) => said.has(w));
  };
  // The requirement's first key names its rows; its other keys refer to things its rows are about
  // (a booking's guest, a reading's meter). A table keyed by such a referred thing and not by the
  // rows holds that thing's rows: it supplies what is said of the thing (a guest's home town), but
  // not a column the requirement says of its own rows (each booking's length), which the thing's
  // rows only resemble (a guest's nights in a year). Only a table whose own first key is such a
  // referred thing is known to hold that thing's rows: a first key the requirement does not name
  // may be its rows under another word (a "ticket" for a "case"), and then the table is judged
  // as before, by any key the two share.
  const rowKey = requirementHasKeys ? requirementKeys[0] : undefined;
  const contentSupplied = matched
    .map((p) => targetsByName.get(p.target))
    .filter((t): t is ColumnLike => !!t && !isIdentifier(t));
  const ownKey = tableKeys[0];
  const keyedByReferred =
    !!rowKey &&
    !!ownKey &&
    !sameEntityKey(ownKey, rowKey) &&
    requirementKeys.some((r) => r !== rowKey && sameEntityKey(ownKey, r));
  const saysOfOwnRows =
    keyedByReferred && contentSupplied.length > 0 && contentSupplied.every((t) => speaksOf(rowKey, t));
  const keyedByOwnRows = tableKeys.some(
    (k) =>
      byTheirThing(k) ||
      (rowKey
        ? sameEntityKey(k, rowKey) || (!saysOfOwnRows && requirementKeys.some((r) => sameEntityKey(k, r)))
        : requirementKeys.some((r) => speaksOf(k, r))),
  );
  // A column searched alone (a group's leftover) is judged by the same keys only where the
  // table's subject is not plainly the requirement's: one column alike says too little.
  const small = matched.length <= PARTIAL_COLUMNS && (targets.length > 1 || subject?.verdict !== 'agrees');
  // A group that names its rows by an identifier, and a table that supplies none of the group's
  // identifiers and is keyed by something the requirement names as another thing (its games,
  // when the group's rows are players): the table's rows are those other things, however many
  // columns read alike. Keys the requirement never names may be its own rows by another name.
  const groupIds = groupIdentifiers;
  const keyedByOthers =
    groupIds.length > 0 &&
    !matched.some((p) => groupIds.includes(p.target)) &&
    tableKeys.some((k) => [...identifiedThing(k)].some((w) => requirementWords.has(w)));
  // A column searched alone (a group's leftover, a group of one) that the table supplies only
  // by naming a thing (its code, key, name or abbreviation) is matched by any table that lists
  // such things: a register of depots for the "destination_depot" of each parcel, a table of
  // ratings per depot. Naming the depot says nothing of which parcel went there: such a table
  // supplies the column only when it carries the requirement's rows (one of its keys identifies
  // what the requirement's keys identify) or is keyed by the thing the column describes. A
  // measure or a fact (a count, a flag, a capacity) is judged by the subject as before: a table
  // of the requirement's subject that has it is a partial source, joined by its own rows.
  const sourceOf = (target: string) => schema.find((c) => c.name === matched.find((p) => p.target === target)?.source);
  const alone =
    targets.length === 1 &&
    !isGeneric(targets[0]) &&
    matched.length === 1 &&
    namesAThing(sourceOf(targets[0].name) ?? targets[0]);
  // A table only loosely about the requirement's subject is judged by its keys however many
  // columns read alike: a neighbouring domain records alike things under alike names (each side's
  // name and final tally), and only whose rows they are tells the two apart.
  const loose = subject?.verdict === 'uncertain';
  const otherRows =
    requirementKeys.length > 0 &&
    !keyedByOwnRows &&
    (alone || ((small || keyedByOthers || loose) && tableKeys.length > 0));
  // A table that supplies only part of a group and names its own domain, none of the names the
  // document uses for its own (when it uses any), is a neighbouring domain's table: its few
  // columns read alike because the two domains record alike things.
  const tableNames = domainMarkers(candidate.description ?? '');
  const foreignPart =
    partial &&
    (domains?.own.length ?? 0) > 0 &&
    tableNames.length > 0 &&
    !tableNames.some((n) => domains!.own.includes(n));
  const fit =
    !offSubject &&
    !uncertain &&
    (!onlyKeys || whenAlone) &&
    !otherRows &&
    ((enough && columnScore >= 0.35) || (partial && !foreignPart));

  const matchedText = matched.map((p) => (p.target === p.source ? p.target : `${p.target}←${p.source}`)).join(', ');
  const missing = pairs.filter((p) => p.score < MATCH_THRESHOLD).map((p) => p.target);
  const reasoning = offSubject
    ? `${name} describes ${(candidate.description ?? 'other data').replace(/\.$/, '')}: ${offSubject}${matched.length ? ` (its columns resemble ${matchedText})` : ''}.`
    : uncertain
      ? `Uncertain: ${name} is only loosely about the requirement's subject (similarity ${subject!.similarity.toFixed(2)}) and supplies too few of the group's own columns to tell${matched.length ? ` (${matchedText})` : ''}.`
      : otherRows
        ? `${name} keys its rows by ${tableKeys.map((k) => k.name).join(', ') || 'no key'}, which identify ${(deliverable ?? []).some(isKey) ? `none of the requirement's rows (${requirementKeys.map((k) => k.name).join(', ')})` : 'nothing the requirement’s columns speak of'}, and supplies only ${matchedText || 'nothing'} of the group.`
        : foreignPart && !enough
          ? `${name} supplies only part of the group (${matchedText}) and names its domain ${tableNames.join('/')}, none of the requirement's own (${domains!.own.join('/')}).`
          : `${name} covers ${matched.length} of the ${targets.length} target ${targets.length === 1 ? 'column' : 'columns'} for ${group}${matched.length ? `: ${matchedText}` : ''}${missing.length ? `; ${partial && fit ? 'supplies part of the group, other tables must supply' : 'missing'} ${missing.join(', ')}` : ''}${onlyKeys ? ' (too few of the group’s non-key columns)' : ''}.`;
  return {
    is_good_fit: fit,
    relevance_score: relevance,
    reasoning,
    // Also when it is no fit: the columns a same-subject table could supply show the workflow how
    // to split a group no single table covers enough of. A table keyed by other rows reports its
    // one column too: searched alone, that column is judged as a group of its own.
    matched_columns: fit || !offSubject ? matched.map((p) => p.target) : [],
    // The unclipped resemblance: scores saturate at 1, and two look-alike tables that both
    // "supply" a column are told apart by which of them holds it more nearly as asked.
    column_scores: Object.fromEntries(
      (fit || !offSubject ? matched : []).map((p) => [p.target, Math.round(Math.min(1, p.raw) * 1000) / 1000]),
    ),
    // Nearness to the requirement's subject (its columns and the document's own words).
    ...(subject ? { subject_score: Math.round(subject.score * 1000) / 1000 } : {}),
  };
}

// ---------------------------------------------------------------------------------------------

const asColumns = (value: unknown): ColumnLike[] =>
  (Array.isArray(value) ? value : []).filter(
    (c): c is ColumnLike => !!c && typeof c === 'object' && typeof (c as ColumnLike).name === 'string',
  );

/** The document's domain names as sent (absent in runs started before they were). */
function asDomains(value: unknown): DocumentDomains | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const names = (v: unknown): string[] => (Array.isArray(v) ? v.filter((n): n is string => typeof n === 'string') : []);
  const { own, excluded } = value as { own?: unknown; excluded?: unknown };
  const { ruled_out, about } = value as { ruled_out?: unknown; about?: unknown };
  return {
    own: names(own),
    excluded: names(excluded),
    ruledOutText: names(ruled_out),
    ...(typeof about === 'string' && about.trim() ? { about: about.slice(0, ABOUT_CHARS) } : {}),
  };
}

export const discoveryRules: StandinRule[] = [
  taskRule({
    task: ModelTask.discoveryPlan,
    description: 'Groups the target columns into conceptual groups by meaning and writes one search query per group.',
    answer: async ({ sections }) => {
      const prp = typeof sections.prp === 'string' ? sections.prp : '';
      const columns = asColumns(sections.target_schema);
      const steps = await planSteps(prp, columns);
      return { steps, derived_columns: columns.filter(isDerived).map((c) => c.name) };
    },
  }),
  taskRule({
    task: ModelTask.discoveryValidate,
    description: 'Judges whether a candidate table can provide the target columns of one conceptual group.',
    answer: ({ sections }) => {
      const group = typeof sections.conceptual_group === 'string' ? sections.conceptual_group : '';
      const candidate = (
        sections.candidate_table && typeof sections.candidate_table === 'object' ? sections.candidate_table : {}
      ) as CandidateLike;
      return validateCandidate(
        group,
        asColumns(sections.target_columns),
        candidate,
        sections.deliverable_columns === undefined ? undefined : asColumns(sections.deliverable_columns),
        asDomains(sections.document_domains),
      );
    },
  }),
];
