/**
 * Pure functions over EADS (annotated example data structures), shared by the library loader
 * (activity), the workflows (completeness, merging, aggregation) and the stand-in rules.
 *
 * The upstream format: each value is either plain or an annotation `{ "val": ..., "comment": ... }`.
 * Stripping the annotations gives (a) the example structure and (b) the instructions (one
 * comment per annotated path). Everything here is deterministic and free of I/O, because the
 * workflows import it.
 */
import { z } from 'zod';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** Bookkeeping properties of an EADS that are not fields to fill. */
export const EADS_ID_KEY = 'EADS-id';
export const EXHAUSTED_KEY = 'exhausted?';
const BOOKKEEPING = new Set([EADS_ID_KEY, EXHAUSTED_KEY]);

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `{val}` or `{val, comment}` (in either key order): an annotated value. */
export function isAnnotation(value: unknown): value is { val: Json; comment?: string } {
  if (!isPlainObject(value) || !('val' in value)) return false;
  return Object.keys(value).every((k) => k === 'val' || k === 'comment');
}

export interface FieldInstruction {
  /** Where the comment applies, e.g. `subprocesses[0].duration`. */
  path: string;
  comment: string;
}

/**
 * Problems with an EADS body, each with the path of the failing field. The file schema calls
 * this so a broken file is rejected naming the field; an empty list means the body is sound.
 */
export function annotationProblems(value: unknown, path: string): Array<{ path: string; message: string }> {
  const problems: Array<{ path: string; message: string }> = [];
  const walk = (v: unknown, p: string) => {
    if (Array.isArray(v)) {
      v.forEach((item, i) => walk(item, `${p}[${i}]`));
      return;
    }
    if (!isPlainObject(v)) {
      if (typeof v === 'number' && !Number.isFinite(v)) problems.push({ path: p, message: 'not a finite number' });
      return;
    }
    const keys = Object.keys(v);
    const looksAnnotated = keys.includes('val') || keys.includes('comment');
    if (looksAnnotated) {
      if (!keys.includes('val')) {
        problems.push({ path: p, message: 'an annotation has a "comment" but no "val"' });
        return;
      }
      const extra = keys.filter((k) => k !== 'val' && k !== 'comment');
      if (extra.length) {
        problems.push({
          path: p,
          message: `an annotation may only hold "val" and "comment" (found ${extra.map((k) => `"${k}"`).join(', ')})`,
        });
        return;
      }
      if ('comment' in v && typeof v.comment !== 'string') {
        problems.push({ path: `${p}.comment`, message: 'expected a string' });
      }
      if (isAnnotation(v.val))
        problems.push({ path: `${p}.val`, message: 'an annotation cannot wrap another annotation' });
      walk(v.val, p);
      return;
    }
    for (const [k, child] of Object.entries(v)) walk(child, p ? `${p}.${k}` : k);
  };
  walk(value, path);
  return problems;
}

/** Removes the annotations: the example structure, and the comments by path. */
export function stripAnnotations(value: Json, path = ''): { example: Json; instructions: FieldInstruction[] } {
  const instructions: FieldInstruction[] = [];
  const walk = (v: Json, p: string): Json => {
    if (isAnnotation(v)) {
      if (typeof v.comment === 'string' && v.comment.trim()) instructions.push({ path: p, comment: v.comment.trim() });
      return walk(v.val, p);
    }
    if (Array.isArray(v)) return v.map((item, i) => walk(item, `${p}[${i}]`));
    if (isPlainObject(v)) {
      const out: JsonObject = {};
      for (const [k, child] of Object.entries(v)) out[k] = walk(child as Json, p ? `${p}.${k}` : k);
      return out;
    }
    return v;
  };
  const example = walk(value, path);
  return { example, instructions };
}

// ---------------------------------------------------------------------------------------------
// Fields: what an interviewer fills, derived from the example structure and its comments.

export type FieldKind = 'text' | 'number' | 'boolean' | 'list' | 'table' | 'quantity' | 'object';

export interface Choice {
  key: string;
  definition: string;
}

export interface EadsField {
  name: string;
  kind: FieldKind;
  /** The field's annotation comment (instructions for the interviewer). */
  comment: string;
  /** Table fields: the columns of a row and their kinds. */
  columns?: Array<{ name: string; kind: FieldKind }>;
  /** Values the comment enumerates (`1) KEY : definition`), or yes/no for booleans. */
  choices?: Choice[];
  /** True when the field holds several of the choices (a list of keywords). */
  multiple?: boolean;
  /** The comment says not to ask for it: it is filled from other answers. */
  derived: boolean;
  /** A question the comment suggests (its first sentence ending with "?"). */
  suggestedQuestion?: string;
}

export function isQuantity(value: unknown): value is { units: string; 'value-string': string } {
  return (
    isPlainObject(value) &&
    typeof value.units === 'string' &&
    typeof value['value-string'] === 'string' &&
    Object.keys(value).every((k) => ['units', 'value-string', 'modifier'].includes(k))
  );
}

export function kindOf(value: Json): FieldKind {
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'number') return 'number';
  if (typeof value === 'string' || value === null) return 'text';
  if (Array.isArray(value)) return value.length > 0 && value.every((v) => isPlainObject(v)) ? 'table' : 'list';
  return isQuantity(value) ? 'quantity' : 'object';
}

/** Enumerations in a comment: lines like ` 3) delivery-schedules : they miss promise dates`. */
export function parseChoices(comment: string): Choice[] {
  const choices: Choice[] = [];
  // Horizontal whitespace only: `\s` would let one line's match attempt run over every following empty line.
  const re = /^[ \t]*\d+\)[ \t]*([A-Za-z][\w?-]*)[ \t]*:(.+)$/gm;
  for (let m = re.exec(comment); m; m = re.exec(comment)) {
    if (!choices.some((c) => c.key === m![1])) choices.push({ key: m[1], definition: m[2].trim() });
  }
  return choices.length >= 2 ? choices : [];
}

/**
 * A choice field that stayed unsettled after it was asked again with its choices spelled out:
 * recorded explicitly, so the SCR says "we asked and could not tell" rather than leaving a gap
 * that looks unasked, or holding a guess. It matches no `applies-when`, so no EADS that assumes
 * a particular choice is pursued on it.
 */
export const UNDETERMINED = 'UNDETERMINED';

const words = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim()
    .split(' ')
    .filter(Boolean);

/**
 * A readable name for a choice key: its words, without those most of the field's keys share
 * ("FLOW-SHOP-SCHEDULING-PROBLEM" among other "...-PROBLEM" keys reads "Flow shop").
 */
export function choiceLabel(key: string, allKeys: readonly string[] = [key]): string {
  const own = words(key);
  const counts = new Map<string, number>();
  for (const k of allKeys) for (const w of new Set(words(k))) counts.set(w, (counts.get(w) ?? 0) + 1);
  const distinctive = allKeys.length > 2 ? own.filter((w) => (counts.get(w) ?? 0) <= allKeys.length / 2) : own;
  const chosen = distinctive.length ? distinctive : own;
  const text = chosen.join(' ');
  return text ? text.charAt(0).toUpperCase() + text.slice(1) : key;
}

const ORDINALS = ['first', 'second', 'third', 'fourth', 'fifth', 'sixth', 'seventh', 'eighth', 'ninth', 'tenth'];
const NEGATED = /\b(?:not|no|never|isn'?t|aren'?t|don'?t|doesn'?t|neither|nor)\b/;

/**
 * The choice a plain answer names, if it names one: its number ("2", "option 2", "the second"),
 * its key in any case or spacing, or a short answer that carries its label's words and no other
 * choice's ("flow shop", "it's a job shop"). Undefined for anything longer or less clear, which
 * is then read for its meaning. Deterministic, so a person's plain answer never depends on a model.
 */
export function choiceFromPlainAnswer(answer: string, choices: readonly Choice[]): string | undefined {
  if (!choices.length) return undefined;
  const text = answer
    .toLowerCase()
    .trim()
    // From the run's first character only: an answer of 20,000 dots must not be rescanned from each.
    .replace(/(?<![.!])[.!]+$/, '')
    .trim();
  if (!text) return undefined;
  const numbered = /^(?:(?:option|choice|number|no\.?|#)\s*)?(\d{1,2})(\s*[).:-].*)?$/.exec(text);
  // "1) no, actually 2": a second number after the first is a change of mind, and no plain answer.
  if (numbered && !/\d/.test(numbered[2] ?? '')) {
    const n = Number(numbered[1]);
    return n >= 1 && n <= choices.length ? choices[n - 1].key : undefined;
  }
  const ordinal = new RegExp(`^(?:the\\s+)?(${ORDINALS.join('|')})(?:\\s+(?:one|option|choice))?$`).exec(text);
  if (ordinal) return choices[ORDINALS.indexOf(ordinal[1])]?.key;
  const flat = words(text).join(' ');
  const exact = choices.find((c) => words(c.key).join(' ') === flat);
  if (exact) return exact.key;
  const said = words(text);
  if (said.length > 8 || NEGATED.test(text)) return undefined;
  const keys = choices.map((c) => c.key);
  const named = choices.filter((c) => {
    const label = words(choiceLabel(c.key, keys));
    return label.length > 0 && label.every((w) => said.includes(w));
  });
  // Two choices named ("flow shop or job shop?") is no answer; a label inside another (rare) takes the longer.
  if (named.length === 1) return named[0].key;
  if (named.length > 1) {
    const longest = named.sort((a, b) => words(b.key).length - words(a.key).length);
    const inner = longest.slice(1).every((c) => words(c.key).every((w) => words(longest[0].key).includes(w)));
    return inner ? longest[0].key : undefined;
  }
  return undefined;
}

const DERIVED_RE = /\b(do not ask|don't ask|dont ask|without asking|based only on)\b/i;

/** The comment's first sentence that is a question, if any. */
export function suggestedQuestion(comment: string): string | undefined {
  // A sentence starts where the last one ended: no attempt from inside a sentence rescans it.
  const sentences = comment.replace(/\s+/g, ' ').match(/(?<![^.?!])[^.?!]+[.?!]/g) ?? [];
  const q = sentences.find((s) => s.trim().endsWith('?'));
  return q?.trim();
}

function columnsOf(rows: Json[]): Array<{ name: string; kind: FieldKind }> {
  const columns: Array<{ name: string; kind: FieldKind }> = [];
  for (const row of rows) {
    if (!isPlainObject(row)) continue;
    for (const [k, v] of Object.entries(row)) {
      if (!columns.some((c) => c.name === k)) columns.push({ name: k, kind: kindOf(v as Json) });
    }
  }
  return columns;
}

/** The top-level fields of an EADS, from its stripped example and its instructions. */
export function describeFields(example: JsonObject, instructions: FieldInstruction[]): EadsField[] {
  return Object.entries(example)
    .filter(([name]) => !BOOKKEEPING.has(name))
    .map(([name, value]) => {
      const comment = instructions.find((i) => i.path === name)?.comment ?? '';
      const kind = kindOf(value);
      const field: EadsField = { name, kind, comment, derived: DERIVED_RE.test(comment) };
      if (kind === 'table') field.columns = columnsOf(value as Json[]);
      const choices = parseChoices(comment);
      if (choices.length) {
        field.choices = choices;
        field.multiple = kind === 'list';
      } else if (kind === 'boolean') {
        field.choices = [
          { key: 'yes', definition: 'yes, true' },
          { key: 'no', definition: 'no, false' },
        ];
      }
      const q = suggestedQuestion(comment);
      if (q) field.suggestedQuestion = q;
      return field;
    });
}

// ---------------------------------------------------------------------------------------------
// Validation of refinements against the example structure.

function schemaForSamples(samples: Json[]): z.ZodType {
  const options: z.ZodType[] = [];
  const kinds = new Set(samples.map((s) => (s === null ? 'null' : Array.isArray(s) ? 'array' : typeof s)));
  if (kinds.has('string')) options.push(z.string());
  if (kinds.has('number')) options.push(z.number());
  if (kinds.has('boolean')) options.push(z.boolean());
  if (kinds.has('null')) options.push(z.null());
  if (kinds.has('array')) {
    const elements = samples.filter(Array.isArray).flat() as Json[];
    options.push(z.array(elements.length ? schemaForSamples(elements) : z.unknown()));
  }
  if (kinds.has('object')) {
    const objects = samples.filter(isPlainObject) as JsonObject[];
    const keys = [...new Set(objects.flatMap((o) => Object.keys(o)))];
    const shape: Record<string, z.ZodType> = {};
    for (const key of keys)
      shape[key] = schemaForSamples(objects.filter((o) => key in o).map((o) => o[key])).optional();
    options.push(z.object(shape).strict());
  }
  if (options.length === 0) return z.unknown();
  return options.length === 1 ? options[0] : z.union(options as [z.ZodType, z.ZodType, ...z.ZodType[]]);
}

/**
 * A zod schema for a refinement of this EADS: any subset of its fields, each shaped like the
 * example (same JSON kinds, object keys drawn from the example's keys, at any depth).
 */
export function refinementSchema(example: JsonObject): z.ZodObject {
  const shape: Record<string, z.ZodType> = {};
  for (const [name, value] of Object.entries(example)) {
    if (BOOKKEEPING.has(name)) continue;
    shape[name] = schemaForSamples([value]).optional();
  }
  return z.object(shape).strict();
}

// ---------------------------------------------------------------------------------------------
// Completeness, merging, budget.

export function isFilled(value: unknown): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value === 'string') return value.trim() !== '';
  return true;
}

export interface Completeness {
  completedFields: string[];
  remainingFields: string[];
  /** 0..1, share of fields filled. */
  completeness: number;
}

export function computeCompleteness(fields: string[], dataStructure: Record<string, unknown>): Completeness {
  const completedFields = fields.filter((f) => isFilled(dataStructure[f]));
  const remainingFields = fields.filter((f) => !completedFields.includes(f));
  const completeness = fields.length === 0 ? 1 : Math.round((completedFields.length / fields.length) * 1000) / 1000;
  return { completedFields, remainingFields, completeness };
}

/** The key that identifies rows of a table (`process-id`, `event-type-id`...), if the rows share one. */
export function rowIdKey(rows: unknown[]): string | undefined {
  const first = rows.find(isPlainObject);
  if (!first) return undefined;
  const key = Object.keys(first).find((k) => /(^|-)id$/.test(k));
  return key && rows.every((r) => isPlainObject(r) && typeof r[key] === 'string') ? key : undefined;
}

/**
 * Applies a refinement: tables whose rows carry an id are merged row by row (a row with a known
 * id replaces the old one, as upstream describes); every other field is replaced.
 */
export function mergeRefinement(dataStructure: JsonObject, update: Record<string, unknown>): JsonObject {
  const merged: JsonObject = { ...dataStructure };
  for (const [key, value] of Object.entries(update)) {
    if (value === undefined) continue;
    const before = merged[key];
    if (Array.isArray(before) && Array.isArray(value)) {
      const id = rowIdKey(before);
      if (id && rowIdKey(value) === id) {
        const rows = [...before] as JsonObject[];
        for (const row of value as JsonObject[]) {
          const at = rows.findIndex((r) => r[id] === row[id]);
          if (at >= 0) rows[at] = { ...rows[at], ...row };
          else rows.push(row);
        }
        merged[key] = rows;
        continue;
      }
    }
    merged[key] = value as Json;
  }
  return merged;
}

/** Budget arithmetic in whole questions, so 0.1 × 10 is exactly 1.0. */
export function budgetUsed(questions: number, decrement: number): number {
  return Math.round(questions * decrement * 1e6) / 1e6;
}
export function canAffordQuestion(questions: number, decrement: number): boolean {
  return budgetUsed(questions + 1, decrement) <= 1 + 1e-9;
}

// ---------------------------------------------------------------------------------------------
// Orchestration: which EADS may be pursued next.

export const EADS_TOPICS = ['process', 'data', 'resources', 'optimality'] as const;
export type EadsTopic = (typeof EADS_TOPICS)[number];
export const topicOf = (eadsId: string): EadsTopic => EADS_TOPICS.find((t) => eadsId.startsWith(`${t}/`)) ?? 'process';
export const topicRank = (eadsId: string): number => EADS_TOPICS.indexOf(topicOf(eadsId));

export interface AppliesWhen {
  eads: string;
  field: string;
  'one-of': Array<string | number | boolean>;
}

export interface GraphEntry {
  id: string;
  prerequisites: string[];
  appliesWhen?: AppliesWhen;
}

/** `<eads>.<field>` → value, for the fields that `applies-when` conditions read. */
export type Facts = Record<string, unknown>;

export function conditionHolds(when: AppliesWhen | undefined, facts: Facts): boolean {
  if (!when) return true;
  const value = facts[`${when.eads}.${when.field}`];
  return when['one-of'].some((v) => v === value);
}

/**
 * EADS that may be pursued now: not pursued yet, every prerequisite pursued (and not failed),
 * and the `applies-when` condition met. Ordered as the fallback takes them: process → data →
 * resources → optimality, then by id.
 */
export function eligibleEads(graph: GraphEntry[], done: string[], facts: Facts): string[] {
  return graph
    .filter(
      (e) =>
        !done.includes(e.id) && e.prerequisites.every((p) => done.includes(p)) && conditionHolds(e.appliesWhen, facts),
    )
    .map((e) => e.id)
    .sort((a, b) => topicRank(a) - topicRank(b) || a.localeCompare(b));
}

// ---------------------------------------------------------------------------------------------
// Aggregated SCR (schema-conforming responses) with conflicts between EADS.

export interface ScrRecord {
  eadsId: string;
  dataStructure: JsonObject;
  appliesWhen?: AppliesWhen;
}

export interface ScrConflict {
  kind: 'same-field-different-values' | 'assumption-not-met' | 'resource-not-in-inventory';
  field: string;
  eads: string[];
  detail: string;
  values?: unknown[];
}

export interface AggregatedScr {
  scr_by_eads: Record<string, JsonObject>;
  merged_scr: JsonObject;
  conflicts: ScrConflict[];
}

const canonical = (v: unknown): string =>
  JSON.stringify(v, (_k, val) =>
    isPlainObject(val) ? Object.fromEntries(Object.entries(val).sort(([a], [b]) => a.localeCompare(b))) : val,
  );

export function normalizeName(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim()
    .split(' ')
    .map((w) => (w.length > 3 && w.endsWith('s') && !w.endsWith('ss') ? w.slice(0, -1) : w))
    .join(' ');
}

/** Resource names mentioned by process EADS (lists named `resources`, table columns named `resources`). */
function resourcesUsed(ds: JsonObject): string[] {
  const names: string[] = [];
  for (const [key, value] of Object.entries(ds)) {
    if (key === 'resources' && Array.isArray(value))
      names.push(...value.filter((v): v is string => typeof v === 'string'));
    if (Array.isArray(value)) {
      for (const row of value)
        if (isPlainObject(row) && Array.isArray(row.resources))
          names.push(...row.resources.filter((v): v is string => typeof v === 'string'));
    }
  }
  return [...new Set(names)];
}

/** Resource ids an inventory EADS declares (rows with `resource-id`). */
function resourceInventory(ds: JsonObject): string[] {
  const ids: string[] = [];
  for (const value of Object.values(ds)) {
    if (Array.isArray(value))
      for (const row of value)
        if (isPlainObject(row) && typeof row['resource-id'] === 'string') ids.push(row['resource-id']);
  }
  return ids;
}

/**
 * Merges the data structures of all pursued EADS (later pursuits win) and lists the conflicts:
 * the same field with different values, an EADS pursued although its assumption does not hold
 * (e.g. the flow-shop EADS when the problem type says job shop), and process resources missing
 * from the resource inventory.
 */
export function aggregateScr(records: ScrRecord[], filter?: string[]): AggregatedScr {
  const chosen = filter && filter.length ? records.filter((r) => filter.includes(r.eadsId)) : records;
  const scr_by_eads: Record<string, JsonObject> = {};
  const merged_scr: JsonObject = {};
  const origin: Record<string, string> = {};
  const conflicts: ScrConflict[] = [];
  for (const record of chosen) {
    scr_by_eads[record.eadsId] = record.dataStructure;
    for (const [field, value] of Object.entries(record.dataStructure)) {
      if (BOOKKEEPING.has(field)) continue;
      // A choice one EADS left undetermined and a later one settles is no disagreement.
      const settled = merged_scr[field] === UNDETERMINED;
      if (
        field in merged_scr &&
        origin[field] !== record.eadsId &&
        !settled &&
        canonical(merged_scr[field]) !== canonical(value)
      ) {
        conflicts.push({
          kind: 'same-field-different-values',
          field,
          eads: [origin[field], record.eadsId],
          detail: `${origin[field]} and ${record.eadsId} give different values; the later one is kept`,
          values: [merged_scr[field], value],
        });
      }
      merged_scr[field] = value;
      origin[field] = record.eadsId;
    }
  }
  for (const record of chosen) {
    const when = record.appliesWhen;
    if (!when) continue;
    const source = records.find((r) => r.eadsId === when.eads);
    const actual = source?.dataStructure[when.field];
    if (source && actual !== undefined && !when['one-of'].some((v) => v === actual)) {
      conflicts.push({
        kind: 'assumption-not-met',
        field: when.field,
        eads: [when.eads, record.eadsId],
        detail: `${record.eadsId} assumes ${when.field} is ${when['one-of'].join(' or ')}, but ${when.eads} says ${JSON.stringify(actual)}`,
        values: [actual],
      });
    }
  }
  const inventory = chosen.flatMap((r) => resourceInventory(r.dataStructure));
  if (inventory.length) {
    const known = new Set(inventory.map(normalizeName));
    const inventoryEads = chosen.filter((r) => resourceInventory(r.dataStructure).length).map((r) => r.eadsId);
    for (const record of chosen) {
      for (const name of resourcesUsed(record.dataStructure)) {
        const n = normalizeName(name);
        if (![...known].some((k) => k === n || k.includes(n) || n.includes(k))) {
          conflicts.push({
            kind: 'resource-not-in-inventory',
            field: 'resources',
            eads: [record.eadsId, ...inventoryEads],
            detail: `${record.eadsId} uses "${name}", which the resource inventory does not list`,
            values: [name],
          });
        }
      }
    }
  }
  return { scr_by_eads, merged_scr, conflicts };
}

// ---------------------------------------------------------------------------------------------
// Text scoring shared by the surrogate's retrieval (activity) and the stand-in rules.

// The stop words, stemmer and tokens live in ./text (one text module for every flow).
export { contentTokens, overlapCount, stemCrude as stem } from './text';
