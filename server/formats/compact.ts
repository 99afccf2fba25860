/**
 * The compact response: one flat list of reasoners and one of skills for the
 * current page, with id, agent, target and tags only (for tool registries and small budgets).
 */
import type { CompactDiscoveryResponse } from '../../contracts/capabilities';
import type { DiscoveryResult } from '../filters';
import type { DiscoveryQuery } from '../query-params';

export function renderCompact(result: DiscoveryResult, q: Pick<DiscoveryQuery, 'includeDescriptions'>): string {
  const body: CompactDiscoveryResponse = { discovered_at: result.discoveredAt, reasoners: [], skills: [] };
  const described = (description: string | undefined) => (q.includeDescriptions && description ? { description } : {});
  for (const { agent, reasoners, skills } of result.page) {
    for (const r of reasoners)
      body.reasoners.push({
        id: r.id,
        agent_id: agent.agent_id,
        target: r.target,
        tags: r.tags,
        ...described(r.description),
      });
    for (const s of skills)
      body.skills.push({
        id: s.id,
        agent_id: agent.agent_id,
        target: s.target,
        tags: s.tags,
        ...described(s.description),
      });
  }
  return JSON.stringify(body);
}
