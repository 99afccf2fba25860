/**
 * Stand-in rules for `discoverFromPrp`: planning and validation computed from content.
 *
 * - `discovery.plan` groups the target columns into conceptual groups by what their names and
 *   descriptions say (identifiers and timing, predictions, actual outcomes, market lines,
 *   weather, venue, players, injuries, ratings; anything else by its leading name word), leaves
 *   derived/computed columns to the query layer, and writes one search query per group from the
 *   columns' descriptions and the PRP's domain (its most frequent acronym, e.g. "NFL").
 * - `discovery.validate` matches each target column to the candidate's best column (name words,
 *   description words, type compatibility) and checks that the table belongs to the group's
 *   domain; a candidate that covers at least half of the group's columns in the right domain fits.
 */
import type { StandinRule } from '../types';

interface ColumnLike {
  name: string;
  type?: string;
  description?: string;
}

const STOP_WORDS = new Set(
  'a an and are as at be by for from has have in into is it its of on or per that the their this to was were which with within when where whether each every any all than then there these those both also only such via if not no e g eg ie'.split(' '),
);

const IRREGULAR: Record<string, string> = { won: 'win', wins: 'win', winning: 'win', lost: 'loss', losses: 'loss', pts: 'point', prob: 'probability', probabilities: 'probability', dt: 'date', ts: 'timestamp', abbr: 'abbreviation', num: 'number', qty: 'quantity', pct: 'percent', tds: 'touchdown', td: 'touchdown', temp: 'temperature', yr: 'year' };

/** Lower-case words of an identifier or a sentence: snake_case, camelCase and punctuation split. */
export function words(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 0 && !STOP_WORDS.has(w));
}

/** A light stemmer: enough to make "predicted", "prediction" and "predictions" meet. */
export function stem(word: string): string {
  let w = IRREGULAR[word] ?? word;
  if (w.length > 4 && w.endsWith('ies')) w = `${w.slice(0, -3)}y`;
  else if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss')) w = w.slice(0, -1);
  for (const suffix of ['ing', 'ion', 'ed']) {
    if (w.length > suffix.length + 3 && w.endsWith(suffix)) {
      w = w.slice(0, -suffix.length);
      break;
    }
  }
  if (w.length > 3 && w.endsWith('e')) w = w.slice(0, -1);
  return w;
}

const stems = (text: string): string[] => words(text).map(stem);

// ---------------------------------------------------------------------------------------------
// Planning
// ---------------------------------------------------------------------------------------------

interface Facet {
  key: string;
  label: string;
  /** Words that decide the facet on their own (weight x2). */
  strong: string[];
  cues: string[];
  /** Words that only hint (flat low weight), e.g. home/away appear in many kinds of column. */
  weak?: string[];
}

/** Listed in tie-break order: a column that says "predicted" is a prediction before it is a score. */
const FACETS: Facet[] = [
  { key: 'prediction', label: 'model predictions', strong: ['predict', 'forecast', 'projected', 'expected', 'estimat', 'probability', 'likelihood'], cues: ['model', 'inference', 'confidence', 'pick', 'projection'] },
  { key: 'market', label: 'betting market lines', strong: ['odds', 'moneyline', 'sportsbook', 'spread', 'bookmaker'], cues: ['line', 'bet', 'wager', 'vig', 'closing', 'opening', 'over', 'under'] },
  { key: 'outcome', label: 'actual game results', strong: ['actual', 'final', 'observed', 'realized'], cues: ['result', 'outcome', 'winner', 'win', 'loss', 'score', 'point', 'margin', 'overtime', 'goal', 'run'] },
  { key: 'weather', label: 'weather conditions', strong: ['weather', 'temperature', 'wind', 'precipitation', 'humidity'], cues: ['rain', 'snow', 'dome', 'condition', 'forecast'] },
  { key: 'venue', label: 'venue and stadium details', strong: ['stadium', 'venue', 'arena', 'ballpark'], cues: ['roof', 'surface', 'capacity', 'city', 'altitude', 'latitude', 'longitude', 'turf'] },
  { key: 'player', label: 'player statistics', strong: ['player', 'passing', 'rushing', 'receiving', 'athlete'], cues: ['yard', 'touchdown', 'interception', 'reception', 'position', 'roster', 'tackle', 'sack'] },
  { key: 'injury', label: 'injury reports', strong: ['injury', 'injured'], cues: ['questionable', 'doubtful', 'practice', 'availability', 'inactive'] },
  { key: 'rating', label: 'team strength ratings', strong: ['elo', 'rating', 'ranking', 'epa'], cues: ['rank', 'strength', 'power'] },
  { key: 'identity', label: 'identification and timing', strong: [], cues: ['id', 'identifier', 'key', 'date', 'time', 'timestamp', 'datetime', 'week', 'season', 'year', 'month', 'day', 'kickoff', 'schedule', 'start', 'matchup'], weak: ['home', 'away', 'team', 'opponent', 'name', 'abbreviation'] },
];
const facetWords = FACETS.map((f) => ({
  facet: f,
  strong: f.strong.map(stem),
  cues: f.cues.map(stem),
  weak: (f.weak ?? []).map(stem),
}));

const matches = (word: string, list: string[]) => list.some((w) => word === w || (w.length >= 6 && word.startsWith(w)));

/** How strongly each facet claims a column: name words count most, the first name word most of all. */
export function facetScores(column: ColumnLike): Map<string, number> {
  const scores = new Map<string, number>();
  const add = (word: string, weight: number) => {
    for (const { facet, strong, cues, weak } of facetWords) {
      const w = matches(word, strong) ? weight * 2 : matches(word, cues) ? weight : matches(word, weak) ? 0.4 : 0;
      if (w > 0) scores.set(facet.key, (scores.get(facet.key) ?? 0) + w);
    }
  };
  stems(column.name).forEach((w, i) => add(w, i === 0 ? 2 : 1.5));
  stems(column.description ?? '').forEach((w) => add(w, 0.5));
  return scores;
}

/** Columns computed from others (errors, flags, differences) come from the query layer, not a source table. */
export function isDerived(column: ColumnLike): boolean {
  return /\b(derived|computed|calculated)\b/i.test(column.description ?? '') || /^\s*(absolute |signed )?(difference|ratio) between\b/i.test(column.description ?? '');
}

const ACRONYM_STOP = new Set(['PRP', 'KPI', 'KPIS', 'API', 'ID', 'UI', 'ML', 'AI', 'SQL', 'UTC', 'MVP', 'ETL', 'BI', 'CSV', 'JSON', 'US', 'USD', 'MAE', 'RMSE', 'TBD', 'FAQ', 'OK', 'II', 'III', 'IV', 'REG', 'POST', 'STRING', 'INT', 'DATE', 'BOOL', 'FLOAT', 'NUMERIC', 'TIMESTAMP']);

/** The PRP's domain: its most frequent acronym outside code and type names (e.g. "NFL"), if any occurs twice. */
export function domainOf(prp: string): string | undefined {
  const counts = new Map<string, number>();
  for (const m of prp.replace(/`[^`]*`/g, ' ').matchAll(/\b[A-Z]{2,5}\b/g)) {
    if (!ACRONYM_STOP.has(m[0]) && !/\d/.test(m[0])) counts.set(m[0], (counts.get(m[0]) ?? 0) + 1);
  }
  const best = [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0];
  return best && best[1] >= 2 ? best[0] : undefined;
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

export function planSteps(prp: string, schema: ColumnLike[]): PlannedStep[] {
  const domain = domainOf(prp);
  const groups = new Map<string, { label: string; columns: ColumnLike[] }>();
  for (const column of schema) {
    if (isDerived(column)) continue;
    const scores = facetScores(column);
    let best: Facet | undefined;
    let bestScore = 0;
    for (const facet of FACETS) {
      const s = scores.get(facet.key) ?? 0;
      if (s > bestScore) [best, bestScore] = [facet, s];
    }
    const key = best?.key ?? `other:${words(column.name)[0] ?? column.name}`;
    const label = best?.label ?? `${words(column.name)[0] ?? column.name} attributes`;
    if (!groups.has(key)) groups.set(key, { label, columns: [] });
    groups.get(key)!.columns.push(column);
  }
  const prefix = domain ? `${domain} ` : '';
  return [...groups.entries()].map(([key, { label, columns }]) => {
    // Name the identification group after the entity its key columns share (game_id, game_date → "game").
    const entity = key === 'identity' ? mostCommon(columns.flatMap((c) => words(c.name).slice(0, 1)).filter((w) => !['id', 'date', 'season', 'week', 'year', 'home', 'away', 'kickoff'].includes(w))) : undefined;
    const group = `${prefix}${entity ? `${entity} ` : ''}${label}`;
    const skip = new Set(['home', 'away', 'team', 'unique', 'identifier', ...(domain ? [domain.toLowerCase()] : [])]);
    const phrases = [...new Set(columns.map((c) => columnPhrase(c, skip)))];
    let query = `${group}: ${phrases.join(', ')}`;
    if (query.length > 380) query = `${query.slice(0, 377).replace(/\s+\S*$/, '')}...`;
    return { conceptual_group: group, search_query: query, target_columns_for_validation: columns.map((c) => c.name) };
  });
}

function mostCommon(values: string[]): string | undefined {
  const counts = new Map<string, number>();
  values.forEach((v) => counts.set(v, (counts.get(v) ?? 0) + 1));
  const best = [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0];
  return best && best[1] >= 2 ? best[0] : undefined;
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
  if (pair === 'boolean+integer' || pair === 'integer+string' || pair === 'string+timestamp' || pair === 'date+string') return 0.6;
  return 0.4;
}

const dice = (a: string[], b: string[]): number => {
  if (!a.length || !b.length) return 0;
  const sb = new Set(b);
  const sa = new Set(a);
  const shared = [...sa].filter((w) => sb.has(w)).length;
  return (2 * shared) / (sa.size + sb.size);
};

/** Words that say which variant of a quantity a column holds: a predicted score is not an actual score. */
const QUALIFIERS = new Set(['predict', 'forecast', 'projected', 'expected', 'estimat', 'actual', 'final', 'observed', 'closing', 'opening'].map(stem));

/** How well a source column provides a target column (0..1). */
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
    const tq = td.filter((w) => QUALIFIERS.has(w));
    const sq = sd.filter((w) => QUALIFIERS.has(w));
    const conflicting = tq.length > 0 && sq.length > 0 && !tq.some((w) => sq.includes(w));
    if (conflicting) similarity *= 0.5;
  }
  return similarity * typeCompatibility(target.type, source.type);
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
}

const MATCH_THRESHOLD = 0.55;

/** Acronyms in the conceptual group ("NFL model predictions" → NFL) that a fitting table must mention. */
function groupDomains(group: string): string[] {
  return [...group.matchAll(/\b[A-Z]{2,5}\b/g)].map((m) => m[0]).filter((a) => !ACRONYM_STOP.has(a));
}

export function validateCandidate(group: string, targets: ColumnLike[], candidate: CandidateLike): Verdict {
  const schema = (candidate.schema ?? []).filter((c) => c && typeof c.name === 'string');
  const name = [candidate.project_id, candidate.dataset_id, candidate.table_id].filter(Boolean).join('.');
  if (!targets.length || !schema.length) {
    return { is_good_fit: false, relevance_score: 0, reasoning: `${name || 'the table'} has no schema to compare with the target columns.`, matched_columns: [] };
  }
  // One source column provides at most one target column (team_abbr is not both home_team and
  // away_team): assign the best-scoring pairs first.
  const scored = targets
    .flatMap((target, ti) => schema.map((source) => ({ ti, target: target.name, source: source.name, score: columnMatch(target, source) })))
    .sort((a, b) => b.score - a.score);
  const pairs = targets.map((t) => ({ target: t.name, source: '', score: 0 }));
  const usedSources = new Set<string>();
  for (const s of scored) {
    if (pairs[s.ti].source || usedSources.has(s.source) || s.score <= 0) continue;
    pairs[s.ti] = { target: s.target, source: s.source, score: s.score };
    usedSources.add(s.source);
  }
  const matched = pairs.filter((p) => p.score >= MATCH_THRESHOLD);
  const coverage = matched.length / targets.length;
  const columnScore = pairs.reduce((n, p) => n + p.score, 0) / pairs.length;

  const tableText = `${name} ${candidate.description ?? ''} ${schema.map((c) => c.description ?? '').join(' ')}`.toUpperCase();
  const domains = groupDomains(group);
  const missingDomain = domains.length > 0 && !domains.some((d) => new RegExp(`\\b${d}\\b`).test(tableText));
  const relevance = Math.round(Math.min(1, 0.35 * coverage + 0.65 * columnScore) * (missingDomain ? 0.4 : 1) * 100) / 100;
  const fit = !missingDomain && coverage >= 0.5 && columnScore >= 0.4;

  const matchedText = matched.map((p) => (p.target === p.source ? p.target : `${p.target}←${p.source}`)).join(', ');
  const missing = pairs.filter((p) => p.score < MATCH_THRESHOLD).map((p) => p.target);
  const reasoning = missingDomain
    ? `${name} describes ${(candidate.description ?? 'other data').replace(/\.$/, '')}, not ${domains.join('/')} data${matched.length ? ` (its columns resemble ${matchedText})` : ''}.`
    : `${name} covers ${matched.length}/${targets.length} target column(s) for ${group}${matched.length ? `: ${matchedText}` : ''}${missing.length ? `; missing ${missing.join(', ')}` : ''}.`;
  return { is_good_fit: fit, relevance_score: relevance, reasoning, matched_columns: fit ? matched.map((p) => p.target) : [] };
}

// ---------------------------------------------------------------------------------------------

const asColumns = (value: unknown): ColumnLike[] =>
  (Array.isArray(value) ? value : []).filter((c): c is ColumnLike => !!c && typeof c === 'object' && typeof (c as ColumnLike).name === 'string');

export const discoveryRules: StandinRule[] = [
  {
    task: 'discovery.plan',
    description: 'Groups the target columns into conceptual groups and writes one search query per group.',
    answer: ({ sections }) => {
      const prp = typeof sections.prp === 'string' ? sections.prp : '';
      const steps = planSteps(prp, asColumns(sections.target_schema));
      return { steps };
    },
  },
  {
    task: 'discovery.validate',
    description: 'Judges whether a candidate table can provide the target columns of one conceptual group.',
    answer: ({ sections }) => {
      const group = typeof sections.conceptual_group === 'string' ? sections.conceptual_group : '';
      const candidate = (sections.candidate_table && typeof sections.candidate_table === 'object' ? sections.candidate_table : {}) as CandidateLike;
      return validateCandidate(group, asColumns(sections.target_columns), candidate);
    },
  },
];
