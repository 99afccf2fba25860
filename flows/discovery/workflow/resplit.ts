/**
 * Re-splitting a step whose group no single table covers: plain code, so unit tests call it.
 *
 * A planner groups columns by topic, but a topic's columns can live in several tables (a risk
 * score, a visit log, a study enrolment list), none of which covers enough of the group to be
 * accepted. When a step finds no table, its columns are searched again in smaller steps that
 * follow where the columns can come from: the candidates' own verdicts say which of the columns
 * each table could supply, and the columns no candidate could supply are searched together.
 */
import type { Column, SearchStep } from '../contract';

/** The `patched()` id of re-splitting groups and reporting the columns no table supplies. */
export const RESPLIT_UNSOURCED = 'discovery-resplit-unsourced';

/**
 * The `patched()` id of searching a step's leftover columns: those its accepted tables do not
 * supply, searched once together (a venue's capacity beside a game's tickets).
 */
export const RESPLIT_LEFTOVERS = 'discovery-resplit-leftovers';

/** At most this many follow-up searches per step: each costs a search and its validations. */
export const MAX_SPLITS = 3;

/** What a step's verdicts said: the columns each candidate could supply, fit or not. */
export interface CandidateCover {
  matched: string[];
}

/**
 * The follow-up steps for a step that found no table: its columns in parts taken
 * greedily from the candidates' matches (the largest first), then the columns no candidate
 * matched as one part. When the step found a table, its leftover columns are searched once
 * together only with `leftovers` (runs started before that report them unsourced); the
 * validation keeps such a search from accepting any table that has one column like them (it
 * checks the table's keys and refuses keys and dates alone). None when the only part would be
 * the step's own columns again.
 */
export function splitUnsupplied(
  step: SearchStep,
  targetColumns: Column[],
  covers: CandidateCover[],
  supplied: ReadonlySet<string>,
  options: { leftovers?: boolean } = {},
): SearchStep[] {
  if (supplied.size > 0) {
    // The step found a table for part of its group: the rest may live in a table of its own
    // (the register of a thing the rows refer to). One search for all of them together; the
    // validation judges a column searched alone by its table's keys.
    const rest = targetColumns.filter((c) => !supplied.has(c.name));
    return options.leftovers && rest.length ? [followUp(step, rest)] : [];
  }
  let open = targetColumns.map((c) => c.name);
  if (!open.length) return [];
  const parts: string[][] = [];
  while (open.length && parts.length < MAX_SPLITS) {
    let best: string[] = [];
    for (const cover of covers) {
      const part = open.filter((name) => cover.matched.includes(name));
      if (part.length > best.length) best = part;
    }
    if (!best.length) break;
    parts.push(best);
    open = open.filter((name) => !best.includes(name));
  }
  // Columns no candidate could supply are searched together, not one by one: a search for a
  // lone column accepts any table that has one like it.
  if (open.length > 1 && parts.length < MAX_SPLITS) parts.push(open);
  const all = new Set(targetColumns.map((c) => c.name));
  if (parts.length === 1 && parts[0].length === all.size) return [];
  const byName = new Map(targetColumns.map((c) => [c.name, c]));
  return parts.map((names) =>
    followUp(
      step,
      names.map((n) => byName.get(n)!),
    ),
  );
}

/** A follow-up search for some of a step's columns: their names and descriptions as the query. */
function followUp(step: SearchStep, columns: Column[]): SearchStep {
  const names = columns.map((c) => c.name);
  const phrases = columns.map((c) => `${c.name.replace(/_/g, ' ')}${c.description ? ` (${c.description})` : ''}`);
  let query = phrases.join(', ');
  if (query.length > 380) query = `${query.slice(0, 377)}...`;
  return {
    conceptual_group: `${step.conceptual_group}: ${names.join(', ')}`.slice(0, 200),
    search_query: query,
    target_columns_for_validation: names,
  };
}
