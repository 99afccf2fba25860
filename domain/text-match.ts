/**
 * Matching short texts by what they are about, not by their exact words: words are stemmed and
 * folded into broad concepts of everyday operations language ("stage", "step" and "operation"
 * are one concept; so are "staff", "people" and "workers"), then ranked BM25-style so that words
 * every candidate shares count little and a short, focused candidate beats a long one that only
 * happens to repeat common words. Used to pick a firm's facts and tables for a question (the
 * activity's retrieval and the offline model alike) and to map table headers onto template columns.
 *
 * Pure and dependency-free: activities and the stand-in both use it.
 */
import { contentTokens } from './text';

/** Groups of words that name the same thing in how people describe their operations. */
const CONCEPT_GROUPS: string[][] = [
  ['step', 'stage', 'operation', 'process', 'phase', 'task', 'activity'],
  ['sequence', 'route', 'routing', 'path', 'road', 'way', 'through', 'travel', 'move', 'visit'],
  ['machine', 'equipment', 'station', 'tool', 'device', 'resource', 'plant', 'line'],
  ['staff', 'people', 'worker', 'employee', 'personnel', 'crew', 'hands', 'person', 'human'],
  [
    'material',
    'ingredient',
    'input',
    'consume',
    'consumed',
    'raw',
    'supply',
    'component',
    'take',
    'takes',
    'goes',
    'go',
    'going',
  ],
  [
    'output',
    'produce',
    'yield',
    'yields',
    'give',
    'gives',
    'leave',
    'leaves',
    'finished',
    'come',
    'comes',
    'end',
    'result',
  ],
  ['long', 'time', 'duration', 'length', 'hours', 'minutes'],
  ['good', 'best', 'matter', 'judge', 'better', 'bad', 'tell', 'objective', 'goal'],
  ['rule', 'never', 'constraint', 'must', 'break', 'forbid', 'forbidden', 'allowed'],
  ['prefer', 'preference', 'nice', 'wish', 'ideally', 'rather', 'respect'],
  [
    'shift',
    'working',
    'open',
    'opening',
    'available',
    'availability',
    'calendar',
    'closure',
    'closed',
    'shutdown',
    'holiday',
  ],
  ['data', 'record', 'spreadsheet', 'system', 'information', 'kept', 'keep', 'consult', 'log', 'register'],
  ['repeat', 'cycle', 'cyclical', 'rhythm', 'pattern', 'recur', 'recurring', 'regular', 'again', 'round'],
  ['continuous', 'continuously', 'stream', 'interruption', 'uninterrupted', 'flow'],
  ['batch', 'lot', 'load', 'mix', 'discrete', 'separate'],
  ['hard', 'difficult', 'headache', 'challenge', 'problem', 'struggle'],
  ['schedule', 'plan', 'planning', 'timetable', 'programme', 'program', 'diary', 'rota', 'roster'],
  ['event', 'session', 'lesson', 'class', 'appointment', 'booking', 'meeting'],
  ['slot', 'period', 'timeslot', 'when'],
  ['often', 'frequency', 'week', 'weekly', 'times'],
  ['quantity', 'count', 'many', 'number', 'amount'],
  ['capacity', 'hold', 'holds', 'handle', 'handles', 'once'],
  ['kind', 'type', 'sort', 'category'],
  ['constituent', 'participant', 'involved', 'who', 'need', 'needs'],
  ['make', 'provide', 'offer', 'service', 'product', 'sell', 'deliver'],
];

const CONCEPT = new Map<string, string>();
for (const group of CONCEPT_GROUPS) {
  const canonical = `~${group[0]}`;
  for (const word of group) for (const t of contentTokens(word)) if (!CONCEPT.has(t)) CONCEPT.set(t, canonical);
}

/** Stemmed content words, each also standing for its concept (so both exact and related words match). */
export function conceptTokens(text: string): string[] {
  const out: string[] = [];
  for (const t of contentTokens(text.replace(/[-_]+/g, ' '))) {
    out.push(t);
    const c = CONCEPT.get(t);
    if (c) out.push(c);
  }
  return out;
}

/**
 * Ranks documents against a query, BM25 over concept tokens. Returns scores in document order;
 * a document sharing nothing scores 0.
 */
export function rankTexts(query: string, documents: string[]): number[] {
  const docs = documents.map(conceptTokens);
  const n = docs.length;
  const avg = docs.reduce((s, d) => s + d.length, 0) / Math.max(1, n) || 1;
  const df = new Map<string, number>();
  for (const d of docs) for (const t of new Set(d)) df.set(t, (df.get(t) ?? 0) + 1);
  // A concept the question names twice ("flow continuously", "discrete batches") counts twice.
  const q = new Map<string, number>();
  for (const t of conceptTokens(query)) q.set(t, (q.get(t) ?? 0) + 1);
  const k1 = 1.2;
  const b = 0.75;
  return docs.map((d) => {
    const tf = new Map<string, number>();
    for (const t of d) tf.set(t, (tf.get(t) ?? 0) + 1);
    let score = 0;
    for (const [t, times] of q) {
      const f = tf.get(t);
      if (!f) continue;
      // Concepts count a little less than the exact word they stand for.
      const weight = (t.startsWith('~') ? 0.6 : 1) * times;
      const idf = Math.log(1 + (n - (df.get(t) ?? 0) + 0.5) / ((df.get(t) ?? 0) + 0.5));
      score += weight * idf * ((f * (k1 + 1)) / (f + k1 * (1 - b + (b * d.length) / avg)));
    }
    return Math.round(score * 1000) / 1000;
  });
}

/** A header and a column sharing a word score this much at least; a near word alone scores less. */
const SHARED_WORD = 2;

/** How well a table header names a template column (0 = not at all); exact names win. */
export function headerMatch(header: string, column: string): number {
  const norm = (s: string) =>
    s
      .toLowerCase()
      .replace(/[^a-z0-9?]+/g, '-')
      .replace(/^-+|(?<!-)-+$/g, '');
  if (norm(header) === norm(column)) return 10;
  const h = new Set(conceptTokens(header.replace(/\bid\b/gi, '')));
  const c = conceptTokens(column.replace(/\bid\b/gi, ''));
  let score = 0;
  for (const t of new Set(c)) if (h.has(t)) score += t.startsWith('~') ? 1 : 2;
  return score;
}

/**
 * Maps each template column to the best-matching header (one header per column, best pairs
 * first). Returns, per template column, the header's index or -1.
 */
export function mapHeaders(
  headers: string[],
  columns: string[],
  /** Whether a header's cells read as names (words, not figures): only such a column may name the rows. */
  namesRows?: (header: number) => boolean,
): number[] {
  const pairs: Array<{ h: number; c: number; s: number }> = [];
  headers.forEach((header, h) => columns.forEach((column, c) => pairs.push({ h, c, s: headerMatch(header, column) })));
  // A row's name usually comes first: where the template has an "-id" column, another column
  // that two headers fit equally well takes the later one ("station | machine" for "resources"
  // leaves the station to name the row).
  const isId = (c: number) => /(^|-)id$/.test(columns[c]);
  const named = columns.some((_, c) => isId(c));
  const firstLast = ({ h, c }: { h: number; c: number }) => (named && h === 0 && !isId(c) ? 1 : 0);
  pairs.sort((a, b) => b.s - a.s || a.c - b.c || firstLast(a) - firstLast(b) || a.h - b.h);
  const result = columns.map(() => -1);
  const used = new Set<number>();
  for (const { h, c, s } of pairs) {
    if (s <= 0 || result[c] >= 0 || used.has(h)) continue;
    result[c] = h;
    used.add(h);
  }
  // A row's name usually comes first: an unmatched "-id" column takes an unused first header.
  const idColumn = columns.findIndex((c, i) => /(^|-)id$/.test(c) && result[i] < 0);
  if (idColumn >= 0 && headers.length > 0 && !used.has(0)) result[idColumn] = 0;
  // Also when another column took it only as a near word ("post | bench | time", the post
  // read as equipment) and its cells are names: the rows must have names, and that column takes
  // its best header still unused, if any. A header sharing a word with the column, or of figures, stays.
  else if (idColumn >= 0 && headers.length > 1 && namesRows?.(0)) {
    const displaced = result.indexOf(0);
    if (displaced >= 0 && headerMatch(headers[0], columns[displaced]) < SHARED_WORD) {
      result[idColumn] = 0;
      const next = pairs.find(({ h, c, s }) => c === displaced && s > 0 && h !== 0 && !result.includes(h));
      result[displaced] = next ? next.h : -1;
    }
  }
  return result;
}
