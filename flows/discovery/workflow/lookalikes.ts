/**
 * Accepted tables compared with each other, as an analyst compares look-alikes. Each candidate is
 * validated on its own, so every table of the same shape that can supply a column is accepted:
 * several leagues' game schedules, several ledgers, several event logs, or a play log beside the
 * scoring log it only resembles. Compared column by column, one of them supplies a column more
 * clearly, or with the same clarity but about the requirement's own subject (the validator's
 * `subject_score`, by meaning); a table that is the better source of none of the columns it was
 * accepted for adds nothing but a wrong join, and is set aside as superseded.
 *
 * Pure and deterministic (workflow code): it reads only the verdicts. A table whose verdict
 * carries no per-column scores (a model that did not give them, a run's scripted validator) is
 * neither set aside nor sets another aside: without them there is nothing to compare by. A table
 * naming one of the document's own domain names that the better source does not name is what the
 * document asks for too (two leagues' results, both wanted), and stays.
 */
import { tableName, type DiscoveredTable, type RejectedCandidate, type StepResult } from '../contract';
import { domainMarkers, type DocumentDomains } from '../domain-names';

/** The `patched()` id of setting aside accepted tables that another accepted table supplies better. */
export const SET_ASIDE_LOOKALIKES = 'discovery-set-aside-lookalikes';

/**
 * Two column scores this close supply the column equally well: the subject decides. Further
 * apart, the clearer match wins whatever the subject (a play's yards are not a passer's yards).
 */
export const SAME_CLARITY = 0.1;

/**
 * Two subject scores (cosines) this close are the same subject as far as the embedding can tell:
 * two tables of one domain differ by a few thousandths, another league's or ledger's by more.
 */
export const SAME_SUBJECT = 0.02;

/**
 * A subject score this much nearer the requirement's (cosine) keeps a table that another table
 * echoes more clearly: two leagues' tables differ by a few hundredths when the document names
 * neither, by tenths when it speaks of one.
 */
export const CLEARLY_NEARER = 0.1;

/** The most scored tables compared in one run (a search step accepts a handful; thousands would be slow in workflow code). */
export const MAX_COMPARED = 200;

/** Join keys: every table about the entity carries them, so supplying one says nothing of a table's worth. */
const isKeyName = (name: string): boolean =>
  /(^|_)(id|key|uuid|pk)$/i.test(name) || /^(id|key)(_|$)/i.test(name) || /[a-z0-9](Id|Key)$/.test(name);

interface Claim {
  table: string;
  score: number;
  subject: number | undefined;
  markers: string[];
}

/** What one accepted table offers across every step that accepted it. */
interface Offer {
  table: string;
  columns: Map<string, number>;
  subject: number | undefined;
  markers: string[];
  scored: boolean;
}

function offersOf(results: StepResult[]): Map<string, Offer> {
  const offers = new Map<string, Offer>();
  for (const r of results) {
    for (const t of r.discovered_tables) {
      const name = tableName(t);
      const offer = offers.get(name) ?? {
        table: name,
        columns: new Map<string, number>(),
        subject: undefined,
        markers: domainMarkers(t.description),
        scored: true,
      };
      offers.set(name, offer);
      if (!t.column_scores) offer.scored = false;
      if (t.subject_score !== undefined) offer.subject = Math.max(offer.subject ?? -1, t.subject_score);
      for (const c of t.matched_columns) {
        const score = t.column_scores?.[c] ?? t.relevance_score;
        offer.columns.set(c, Math.max(offer.columns.get(c) ?? 0, score));
      }
    }
  }
  return offers;
}

/** The document's own domain names that a table's name holds as whole words ("p.d.wnba_games": WNBA). */
function domainsInName(table: string, own: ReadonlySet<string>): string[] {
  const words = (text: string) =>
    text
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter(Boolean);
  const name = ` ${words(table).join(' ')} `;
  return [...own].filter((d) => words(d).length > 0 && name.includes(` ${words(d).join(' ')} `));
}

/** Whether `other` supplies the column better than `own`: clearer, or as clear and nearer the requirement's subject. */
function better(other: Claim, own: Claim, ownDomains: ReadonlySet<string>): boolean {
  // Both wanted: the document names each one's domain as its own.
  if (own.markers.some((m) => ownDomains.has(m) && !other.markers.includes(m))) return false;
  if (other.score > own.score + SAME_CLARITY) return true;
  if (own.score > other.score + SAME_CLARITY) return false;
  if (other.subject !== undefined && own.subject !== undefined && Math.abs(other.subject - own.subject) > SAME_SUBJECT)
    return other.subject > own.subject;
  // As clear and as near: the clearer by any margin, else neither (both stay).
  return other.score > own.score;
}

/**
 * Whether `other` offers every column `offer` was accepted for (its keys aside), each at least as
 * clearly, and one of them clearly more: then `offer` adds nothing but a second source of rows
 * the requirement takes from one place (one league's games, not a column from each of two).
 * Whichever subject reads nearer, a table that only echoes another less clearly is the look-alike.
 * A table naming one of the document's own domains that `other` does not name is wanted too.
 */
function dominates(other: Offer, offer: Offer, own: readonly string[], ownDomains: ReadonlySet<string>): boolean {
  if (offer.markers.some((m) => ownDomains.has(m) && !other.markers.includes(m))) return false;
  // A table clearly nearer the requirement's subject is not an echo: its columns are the ones asked for.
  if (offer.subject !== undefined && other.subject !== undefined && offer.subject > other.subject + CLEARLY_NEARER)
    return false;
  let clearlyMore = false;
  for (const c of own) {
    const theirs = other.columns.get(c);
    const mine = offer.columns.get(c)!;
    if (theirs === undefined || theirs < mine) return false;
    if (theirs > mine + SAME_CLARITY) clearlyMore = true;
  }
  return clearlyMore;
}

/**
 * The accepted tables to set aside, each with the reason: every non-key column it was accepted
 * for has a better source among the other accepted tables. A column no table kept supplies (a key
 * only a set-aside table carries) brings back its best set-aside source, so nothing the accepted
 * tables supplied goes missing.
 */
export function lookalikesToSetAside(
  results: StepResult[],
  domains?: DocumentDomains,
): Map<string, { by: string[]; columns: string[] }> {
  const offers = offersOf(results);
  const ownDomains = new Set(domains?.own ?? []);
  // A catalog's descriptions are often generic ("game results"): the table's own name tells its
  // domain too ("wnba_games"), and two tables of the document's own domains are both wanted.
  for (const offer of offers.values())
    for (const d of domainsInName(offer.table, ownDomains)) if (!offer.markers.includes(d)) offer.markers.push(d);
  const scored = [...offers.values()].filter((o) => o.scored);
  // Workflow code, so its work must stay small whatever a search returns: past this many scored
  // tables nothing is compared (every accepted table stays, as before the comparison).
  if (scored.length > MAX_COMPARED) return new Map();
  // Each column's claims, gathered once.
  const claims = new Map<string, Claim[]>();
  for (const o of scored)
    for (const [column, score] of o.columns) {
      const list = claims.get(column) ?? [];
      list.push({ table: o.table, score, subject: o.subject, markers: o.markers });
      claims.set(column, list);
    }
  const claimsOf = (column: string): Claim[] => claims.get(column) ?? [];
  const setAside = new Map<string, { by: string[]; columns: string[] }>();
  // Which tables offer all that a table offers, each column as clearly and one clearly more.
  const dominators = new Map<string, string[]>();
  for (const offer of scored) {
    const own = [...offer.columns.keys()].filter((c) => !isKeyName(c));
    if (!own.length) continue;
    const dominatedBy = scored
      .filter((other) => other !== offer && dominates(other, offer, own, ownDomains))
      .map((other) => other.table);
    if (dominatedBy.length) dominators.set(offer.table, dominatedBy);
    const by = new Set<string>(dominatedBy);
    const beaten = own.every((c) => {
      const mine = claimsOf(c).find((k) => k.table === offer.table)!;
      const rivals = claimsOf(c).filter((k) => k.table !== offer.table && better(k, mine, ownDomains));
      for (const r of rivals) by.add(r.table);
      return rivals.length > 0;
    });
    if (beaten || dominatedBy.length) setAside.set(offer.table, { by: [...by].sort(), columns: own });
  }
  // A table stays set aside only while a better source of each of its columns is itself kept:
  // "better" mixes a bar of clarity with one of subject, so three tables can beat each other in a
  // circle, and then none of them is the better source (all stay, as when nothing tells them
  // apart). Tables come back in rounds until none does; each round only brings tables back.
  for (let changed = true; changed;) {
    changed = false;
    const unfounded = [...setAside].filter(
      ([table, aside]) =>
        !(dominators.get(table) ?? []).some((d) => !setAside.has(d)) &&
        aside.columns.some((c) => {
          const mine = claimsOf(c).find((k) => k.table === table)!;
          return !claimsOf(c).some((k) => k.table !== table && !setAside.has(k.table) && better(k, mine, ownDomains));
        }),
    );
    // A table whose echo comes back with it in the same round stays aside: the echo is kept.
    const returning = new Set(unfounded.map(([table]) => table));
    const back = unfounded.filter(([table]) => !(dominators.get(table) ?? []).some((d) => returning.has(d)));
    for (const [table] of back) setAside.delete(table);
    changed = back.length > 0;
  }
  // The reasons name only the kept tables.
  for (const aside of setAside.values()) aside.by = aside.by.filter((t) => !setAside.has(t));
  // Every column some accepted table supplied stays supplied.
  const kept = (c: string) => [...offers.values()].some((o) => !setAside.has(o.table) && o.columns.has(c));
  for (const column of new Set([...offers.values()].flatMap((o) => [...o.columns.keys()]))) {
    if (kept(column)) continue;
    const back = claimsOf(column)
      .filter((k) => setAside.has(k.table))
      .sort((a, b) => b.score - a.score || (b.subject ?? -1) - (a.subject ?? -1) || a.table.localeCompare(b.table))[0];
    if (back) setAside.delete(back.table);
  }
  return setAside;
}

/**
 * The steps' results without the set-aside tables, and those tables as rejections (one per step
 * that had accepted them), each naming the tables that supply its columns better. A step left
 * with no table lists the kept tables that supply what the set-aside ones matched for it: its
 * columns still have a source, and a step never reports that it found nothing when it did.
 */
export function setAsideLookalikes(
  results: StepResult[],
  domains?: DocumentDomains,
): { results: StepResult[]; rejected: RejectedCandidate[] } {
  const setAside = lookalikesToSetAside(results, domains);
  if (!setAside.size) return { results, rejected: [] };
  const keptTables = new Map<string, DiscoveredTable>();
  for (const r of results)
    for (const t of r.discovered_tables) {
      const name = tableName(t);
      if (setAside.has(name)) continue;
      const seen = keptTables.get(name);
      const matched = [...new Set([...(seen?.matched_columns ?? []), ...t.matched_columns])];
      keptTables.set(name, {
        ...(seen && seen.relevance_score >= t.relevance_score ? seen : t),
        matched_columns: matched,
      });
    }
  const rejected: RejectedCandidate[] = [];
  const kept = results.map((r) => {
    const keep: DiscoveredTable[] = [];
    const wanted = new Set<string>();
    for (const t of r.discovered_tables) {
      const aside = setAside.get(tableName(t));
      if (!aside) {
        keep.push(t);
        continue;
      }
      for (const c of t.matched_columns) wanted.add(c);
      rejected.push({
        conceptual_group: r.conceptual_group,
        table: tableName(t),
        outcome: 'superseded',
        reason: `a look-alike: ${aside.by.join(', ')} supplies ${aside.columns.join(', ')} more clearly or nearer the requirement's subject`,
        relevance_score: t.relevance_score,
      });
    }
    if (keep.length === r.discovered_tables.length) return r;
    if (!keep.length)
      for (const t of keptTables.values()) {
        const matched = t.matched_columns.filter((c) => wanted.has(c));
        if (matched.length) keep.push({ ...t, matched_columns: matched });
      }
    return { ...r, discovered_tables: keep };
  });
  return { results: kept, rejected };
}
