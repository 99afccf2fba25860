/**
 * The discovery API's wildcard patterns: `*` is the only wildcard (any run of characters,
 * also none), everything else is literal and case-sensitive, and the pattern is anchored at
 * both ends (`web_*` matches `web_search`, not `my_web_search`).
 *
 * Matching is done on literal segments with indexOf rather than a RegExp, so no pattern can
 * cause catastrophic backtracking and characters such as `.` `?` `[` stay literal.
 */
export type Matcher = (value: string) => boolean;

const matchAll: Matcher = () => true;

export function compileGlob(pattern: string): Matcher {
  if (pattern === '' || /^\*+$/.test(pattern)) return matchAll;
  if (!pattern.includes('*')) return (value) => value === pattern;
  const parts = pattern.split('*');
  const prefix = parts[0];
  const suffix = parts[parts.length - 1];
  const middle = parts.slice(1, -1).filter((p) => p.length > 0);
  const minLength = parts.reduce((n, p) => n + p.length, 0);
  return (value) => {
    if (value.length < minLength || !value.startsWith(prefix) || !value.endsWith(suffix)) return false;
    // Leftmost placement of each middle segment is optimal when `*` is the only wildcard.
    let position = prefix.length;
    const end = value.length - suffix.length;
    for (const segment of middle) {
      const at = value.indexOf(segment, position);
      if (at < 0 || at + segment.length > end) return false;
      position = at + segment.length;
    }
    return true;
  };
}

/** True when any value matches any matcher (the `tags` rule); an empty matcher list matches everything. */
export function matchesAny(values: readonly string[], matchers: readonly Matcher[]): boolean {
  if (matchers.length === 0) return true;
  for (const value of values) {
    for (const matcher of matchers) if (matcher(value)) return true;
  }
  return false;
}
