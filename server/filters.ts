/**
 * Applies the discovery filters to a snapshot, all in memory (reference semantics):
 *  - agent ids (exact) and health status select agents;
 *  - `reasoner` filters reasoners only, `skill` skills only, `tags` both (any tag matching any
 *    pattern); all given filters must hold (AND);
 *  - an agent is kept only if at least one of its reasoners or skills survives;
 *  - totals count everything that matched, then pagination slices the agents.
 */
import { compileGlob, matchesAny, type Matcher } from './glob';
import type { DiscoveryQuery } from './query-params';
import type { Snapshot, SnapshotAgent, SnapshotCapability } from './snapshot';

export interface MatchedAgent {
  agent: SnapshotAgent;
  reasoners: SnapshotCapability[];
  skills: SnapshotCapability[];
}

export interface DiscoveryResult {
  discoveredAt: string;
  totalAgents: number;
  totalReasoners: number;
  totalSkills: number;
  limit: number;
  offset: number;
  hasMore: boolean;
  page: MatchedAgent[];
  /** Said when patterns matched nothing: why, and the ids they would match with case ignored. */
  hint?: string;
}

function selectCapabilities(
  list: SnapshotCapability[],
  pattern: Matcher | undefined,
  tags: Matcher[],
): SnapshotCapability[] {
  if (!pattern && tags.length === 0) return list;
  return list.filter((c) => (!pattern || pattern(c.id)) && matchesAny(c.tags, tags));
}

export function discover(snapshot: Snapshot, q: DiscoveryQuery): DiscoveryResult {
  const reasonerPattern = q.reasoner !== undefined ? compileGlob(q.reasoner) : undefined;
  const skillPattern = q.skill !== undefined ? compileGlob(q.skill) : undefined;
  const tagMatchers = q.tags.map(compileGlob);
  // Agent ids are sorted, as the snapshot is, so both paths list agents in id order.
  const candidates = q.agentIds.length
    ? q.agentIds.map((id) => snapshot.byId.get(id)).filter((a): a is SnapshotAgent => a !== undefined)
    : snapshot.agents;

  const matched: MatchedAgent[] = [];
  let totalReasoners = 0;
  let totalSkills = 0;
  for (const agent of candidates) {
    if (q.healthStatus && agent.health_status !== q.healthStatus) continue;
    const reasoners = selectCapabilities(agent.reasoners, reasonerPattern, tagMatchers);
    const skills = selectCapabilities(agent.skills, skillPattern, tagMatchers);
    if (reasoners.length === 0 && skills.length === 0) continue;
    totalReasoners += reasoners.length;
    totalSkills += skills.length;
    matched.push({ agent, reasoners, skills });
  }

  const hint = emptyHint(candidates, q, totalReasoners, totalSkills);
  const start = Math.min(q.offset, matched.length);
  const end = Math.min(start + q.limit, matched.length);
  return {
    discoveredAt: snapshot.discoveredAt,
    totalAgents: matched.length,
    totalReasoners,
    totalSkills,
    limit: q.limit,
    offset: q.offset,
    hasMore: end < matched.length,
    page: matched.slice(start, end),
    ...(hint ? { hint } : {}),
  };
}

/**
 * Patterns are case-sensitive (as specified), so `*bom*` finds nothing where ids read `*BOM*`:
 * a pattern that matched none of its kind says so, and names up to three ids it matches when
 * case is ignored.
 */
function emptyHint(
  agents: readonly SnapshotAgent[],
  q: DiscoveryQuery,
  reasoners: number,
  skills: number,
): string | undefined {
  const empty = [
    ...(q.reasoner !== undefined && reasoners === 0
      ? [{ pattern: q.reasoner, of: (a: SnapshotAgent) => a.reasoners }]
      : []),
    ...(q.skill !== undefined && skills === 0 ? [{ pattern: q.skill, of: (a: SnapshotAgent) => a.skills }] : []),
  ];
  const tagsMatchedNothing = q.tags.length > 0 && reasoners + skills === 0;
  if (empty.length === 0 && !tagsMatchedNothing) return undefined;
  const near = new Set<string>();
  for (const { pattern, of } of empty) {
    const folded = compileGlob(pattern.toLowerCase());
    for (const agent of agents) for (const c of of(agent)) if (folded(c.id.toLowerCase())) near.add(c.id);
  }
  const base = `No ${empty.length === 1 && !tagsMatchedNothing ? (empty[0].pattern === q.reasoner ? 'reasoner' : 'skill') : 'capability'} matches. Patterns are case-sensitive and anchored; * is the only wildcard.`;
  const examples = [...near].slice(0, 3);
  return examples.length ? `${base} Ignoring case they would match: ${examples.join(', ')}.` : base;
}
