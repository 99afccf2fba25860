/**
 * The JSON log lines of a process's output (plumbing/logger.ts), for tests that wait for a line or
 * read a value from one. Lines that are not JSON objects (a child's plain output) are skipped.
 */
export function logLines(output: string): Array<Record<string, unknown>> {
  const lines: Array<Record<string, unknown>> = [];
  for (const line of output.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      const parsed: unknown = JSON.parse(line);
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) lines.push(parsed as Record<string, unknown>);
    } catch {
      // a partial line (output still arriving) or not JSON
    }
  }
  return lines;
}
