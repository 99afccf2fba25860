/**
 * Reading a PRP's target schema: the markdown table (or list) in its section 9, or under a
 * heading that names the target schema. Pure text parsing, used by the discovery workflow.
 */
import { columnSchema, type Column } from './contract';

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
    const m = fenced ? null : /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (m) headings.push({ line: i, level: m[1].length, text: m[2] });
  });
  const numbered = headings.find((h) => /^(?:section\s+)?9(?:[.):\s]|$)/i.test(h.text.replace(/[*_]/g, '')));
  const named = headings.find((h) => /\b(target|output|final)\s+(data\s+)?schema\b/i.test(h.text));
  const heading = numbered ?? named;
  if (!heading) return undefined;
  const next = headings.find((h) => h.line > heading.line && h.level <= heading.level);
  return lines.slice(heading.line + 1, next ? next.line : lines.length);
}

function columnsFromTable(section: string[]): Column[] {
  const delimiter = /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;
  const start = section.findIndex((line, i) => line.trim().startsWith('|') && delimiter.test(section[i + 1] ?? ''));
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
    const m = /^\s*[-*+]\s+`?([A-Za-z_][\w.]*)`?\s*\(([^)]+)\)\s*(?:[:—–-]\s*(.*))?$/.exec(line);
    if (m) columns.push({ name: m[1], type: m[2].trim(), ...(m[3]?.trim() ? { description: m[3].trim() } : {}) });
  }
  return columns;
}

/**
 * Reads the target schema from the PRP's section 9: the first markdown table there (columns
 * named like Column/Name, Type, Description), or a `- name (TYPE): description` list. Returns
 * an empty list when the PRP has no such section or it holds no columns.
 */
export function extractTargetSchema(prp: string): Column[] {
  const section = findSchemaSection(prp.split(/\r?\n/));
  if (!section) return [];
  const fromTable = columnsFromTable(section);
  const columns = fromTable.length ? fromTable : columnsFromList(section);
  const seen = new Set<string>();
  return columns
    .map((c) => columnSchema.safeParse(c))
    .filter((r) => r.success)
    .map((r) => r.data)
    .filter((c) => !seen.has(c.name.toLowerCase()) && seen.add(c.name.toLowerCase()));
}
