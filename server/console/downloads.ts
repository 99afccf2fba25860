/**
 * A result's rows as files to download: CSV (RFC 4180) and JSON. The rows come from the
 * workflow's result, read from Temporal on each request like every console page.
 */

/** The rows a result offers as a download, or undefined when its flow has none. */
export function resultRows(type: string, result: unknown): Array<Record<string, unknown>> | undefined {
  if (type !== 'answerBomQuestion' || !result || typeof result !== 'object') return undefined;
  const rows = (result as { pipeline_state?: { rows?: unknown } }).pipeline_state?.rows;
  return Array.isArray(rows) ? (rows as Array<Record<string, unknown>>) : undefined;
}

function cell(value: unknown): string {
  let text =
    value === null || value === undefined ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value);
  // A cell starting with = + - @ (or a tab/CR) is run as a formula by spreadsheets: kept as text.
  if (/^[=+\-@\t\r]/.test(text) && !/^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** Rows as CSV: one header line with every column any row has, then one line per row. */
export function rowsToCsv(rows: Array<Record<string, unknown>>): string {
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  return (
    [columns.map(cell).join(','), ...rows.map((r) => columns.map((c) => cell(r[c])).join(','))].join('\r\n') + '\r\n'
  );
}
