/**
 * Reading a PRP's target schema: the markdown table (or list) in its section 9, or under a
 * heading that names the target schema. Pure text parsing, used by the discovery workflow.
 *
 * It runs in workflow code on a document anyone may send (up to 200,000 characters), where a
 * task that runs past the worker's 5-second limit is retried forever: every step is linear in
 * the length of the PRP. Headings and table delimiter rows are read by hand, not with regular
 * expressions whose adjacent `\s*` / `.*?` could trade characters (a heading line of 2,000
 * spaces took 43 s with the pattern this replaces); the patterns left are anchored and cannot
 * backtrack over a run more than once (test/unit/regex-linearity.test.ts runs them all on
 * 50 KB pathological lines).
 */
import { z } from 'zod';

/** One target column (the discovery input's `targetSchema` items, and what section 9 yields). */
export const columnSchema = z
  .object({
    name: z.string().trim().min(1, 'column name must not be empty').max(128),
    type: z.string().trim().min(1).max(64),
    description: z.string().trim().max(2000).optional(),
  })
  .strict();
export type Column = z.output<typeof columnSchema>;

/** The `patched()` id of reading a PRP's first schema table when it has no section 9. */
export const SCHEMA_FROM_ANY_TABLE = 'discovery-schema-from-any-table';

/** At most this many target columns, given or read from section 9: each is planned and validated. */
export const MAX_TARGET_COLUMNS = 200;

// ---------------------------------------------------------------------------------------------
// Section 9 of a PRP: the target schema table.
// ---------------------------------------------------------------------------------------------

interface Heading {
  line: number;
  level: number;
  text: string;
}

const cleanCell = (cell: string): string =>
  cell
    .trim()
    .replace(/^\*\*(.*)\*\*$/, '$1')
    .replace(/^`(.*)`$/, '$1')
    .trim();

/** JavaScript's `\s`, one character at a time (a one-character test cannot backtrack). */
const isSpace = (ch: string | undefined): boolean => ch !== undefined && /^\s$/.test(ch);
/** Characters `.` does not match: a heading's text cannot contain one (as in the pattern this replaces). */
const isLineBreak = (ch: string): boolean => ch === '\r' || ch === '\n' || ch === '\u2028' || ch === '\u2029';

/**
 * An ATX heading (`## 9. Target Schema ##`): its level and text, or undefined. The same lines and
 * texts as `/^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/`, read in one pass from each end.
 */
export function atxHeading(line: string): { level: number; text: string } | undefined {
  let i = 0;
  while (i < 3 && isSpace(line[i])) i++;
  let level = 0;
  while (line[i + level] === '#') level++;
  if (level < 1 || level > 6) return undefined;
  i += level;
  if (!isSpace(line[i])) return undefined;
  while (isSpace(line[i])) i++;
  // The text ends before the trailing whitespace, closing #s and whitespace (each part optional).
  let end = line.length;
  while (end > i && isSpace(line[end - 1])) end--;
  while (end > i && line[end - 1] === '#') end--;
  while (end > i && isSpace(line[end - 1])) end--;
  const text = line.slice(i, end);
  for (const ch of text) if (isLineBreak(ch)) return undefined;
  return { level, text };
}

/** A table's delimiter row (`|---|:--:|`): cells of dashes with optional colons, pipes at the ends optional. */
export function isDelimiterRow(line: string): boolean {
  let row = line.trim();
  if (row.startsWith('|')) row = row.slice(1);
  if (row.endsWith('|')) row = row.slice(0, -1);
  // Anchored, one character class per position: linear.
  return row.split('|').every((cell) => /^:?-+:?$/.test(cell.trim()));
}

function splitRow(line: string): string[] {
  const trimmed = line.trim().replace(/^\|/, '').replace(/\|$/, '');
  return trimmed.split(/(?<!\\)\|/).map((c) => c.replace(/\\\|/g, '|'));
}

/** The lines of the section numbered 9 (e.g. `## 9. Target Schema`), or of a heading naming the target schema. */
function findSchemaSection(lines: string[]): string[] | undefined {
  const headings: Heading[] = [];
  let fenced = false;
  lines.forEach((line, i) => {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const heading = fenced ? undefined : atxHeading(line);
    if (heading) headings.push({ line: i, ...heading });
  });
  const numbered = headings.find((h) => /^(?:section\s+)?9(?:[.):\s]|$)/i.test(h.text.replace(/[*_]/g, '')));
  const named = headings.find((h) => /\b(target|output|final)\s+(data\s+)?schema\b/i.test(h.text));
  const heading = numbered ?? named;
  if (!heading) return undefined;
  const next = headings.find((h) => h.line > heading.line && h.level <= heading.level);
  return lines.slice(heading.line + 1, next ? next.line : lines.length);
}

/** Where each table of these lines starts (its header row, with a delimiter row under it). */
function tableStarts(lines: string[]): number[] {
  const starts: number[] = [];
  lines.forEach((line, i) => {
    if (line.trim().startsWith('|') && isDelimiterRow(lines[i + 1] ?? '')) starts.push(i);
  });
  return starts;
}

/** Whether a table's header names its columns and their types (`| Column | Type | … |`): a schema. */
function isSchemaHeader(line: string): boolean {
  const header = splitRow(line).map((c) => cleanCell(c).toLowerCase());
  return header.some((h) => /type/.test(h)) && header.some((h) => /column|field|name|attribute/.test(h));
}

function columnsFromTable(section: string[], start = tableStarts(section)[0] ?? -1): Column[] {
  if (start < 0) return [];
  const header = splitRow(section[start]).map((c) => cleanCell(c).toLowerCase());
  const find = (re: RegExp) => header.findIndex((h) => re.test(h));
  let nameAt = find(/^(column|column name|name|field|field name|attribute)$/);
  if (nameAt < 0) nameAt = find(/column|field|name/);
  if (nameAt < 0) nameAt = 0;
  const typeAt = find(/type/);
  const descriptionAt = find(/desc|meaning|definition|notes?|comment|purpose/);
  const columns: Column[] = [];
  for (const line of section.slice(start + 2)) {
    if (!line.trim().startsWith('|')) break;
    const cells = splitRow(line).map(cleanCell);
    const name = cells[nameAt] ?? '';
    if (!name) continue;
    const description = descriptionAt >= 0 ? cells[descriptionAt] : undefined;
    columns.push({
      name,
      type: (typeAt >= 0 && cells[typeAt]) || 'STRING',
      ...(description ? { description } : {}),
    });
  }
  return columns;
}

/** `- \`game_id\` (STRING): description` lists, the other common way to write a schema in markdown. */
function columnsFromList(section: string[]): Column[] {
  const columns: Column[] = [];
  for (const line of section) {
    // The name and type by an anchored pattern; the description is the rest of the line after a separator.
    const m = /^\s*[-*+]\s+`?([A-Za-z_][\w.]*)`?\s*\(([^)]+)\)/.exec(line);
    if (!m) continue;
    const rest = line.slice(m[0].length).trim();
    if (rest && !'-:—–'.includes(rest[0])) continue;
    const description = rest.slice(1).trim();
    if ([...description].some(isLineBreak)) continue;
    columns.push({ name: m[1], type: m[2].trim(), ...(description ? { description } : {}) });
  }
  return columns;
}

/**
 * Reads the target schema from the PRP's section 9: the first markdown table there (columns
 * named like Column/Name, Type, Description), or a `- name (TYPE): description` list; with
 * `anyTable`, a PRP without such a section gives the first table of the document whose header
 * names columns and types. Returns an empty list when there is none or it holds no columns.
 */
export function extractTargetSchema(prp: string, { anyTable = false }: { anyTable?: boolean } = {}): Column[] {
  const lines = prp.split(/\r?\n/);
  const section = findSchemaSection(lines);
  if (!section) return anyTable ? uniqueColumns(columnsFromSchemaTable(lines)) : [];
  const fromTable = columnsFromTable(section);
  return uniqueColumns(fromTable.length ? fromTable : columnsFromList(section));
}

/**
 * A document without a section 9 may still hold its layout as a table under a heading of its own
 * ("## Layout", "## The sheet we want"): the first table, outside code blocks, whose header names
 * columns and their types.
 */
function columnsFromSchemaTable(lines: string[]): Column[] {
  let fenced = false;
  const inFence = lines.map((line) => {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    return fenced;
  });
  const candidates = tableStarts(lines).filter((i) => !inFence[i] && isSchemaHeader(lines[i]));
  // A table of the document's sources or parts ("| Source name | Type |": a dataset, a file) names
  // a type too: the first whose first rows give data types is the layout, else the first.
  const start = candidates.find((i) => typesLookLikeData(lines, i)) ?? candidates[0];
  return start === undefined ? [] : columnsFromTable(lines, start);
}

/** Data types as schemas write them (BigQuery's, SQL's, and plain words for them). */
const DATA_TYPE =
  /^(?:string|str|text|varchar|char|int|int64|integer|bigint|smallint|float|float64|double|real|numeric|decimal|bignumeric|number|bool|boolean|date|datetime|time|timestamp|interval|json|bytes|geography|array|struct|record)\b/i;

/** Whether most of a table's first rows (at most five: linear however many tables follow) give a data type. */
function typesLookLikeData(lines: string[], start: number): boolean {
  const header = splitRow(lines[start]).map((c) => cleanCell(c).toLowerCase());
  const typeAt = header.findIndex((h) => /type/.test(h));
  const types: string[] = [];
  for (let i = start + 2; i < lines.length && types.length < 5 && lines[i].trim().startsWith('|'); i++)
    types.push(cleanCell(splitRow(lines[i])[typeAt] ?? ''));
  return types.length > 0 && types.filter((t) => DATA_TYPE.test(t)).length * 2 > types.length;
}

function uniqueColumns(columns: Column[]): Column[] {
  const seen = new Set<string>();
  return columns
    .map((c) => columnSchema.safeParse(c))
    .filter((r) => r.success)
    .map((r) => r.data)
    .filter((c) => !seen.has(c.name.toLowerCase()) && seen.add(c.name.toLowerCase()));
}
