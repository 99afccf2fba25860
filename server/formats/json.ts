/**
 * The default JSON response, written as text: schemas are kept as JSON text and
 * spliced in without parsing and re-serialising them.
 */
import type { DiscoveryResult } from '../filters';
import type { DiscoveryQuery } from '../query-params';
import type { SnapshotCapability } from '../snapshot';

function capabilityJson(c: SnapshotCapability, q: DiscoveryQuery): string {
  let out = `{"id":${JSON.stringify(c.id)}`;
  if (q.includeDescriptions && c.description) out += `,"description":${JSON.stringify(c.description)}`;
  out += `,"tags":${JSON.stringify(c.tags)}`;
  if (q.includeInputSchema && c.inputSchema) out += `,"input_schema":${c.inputSchema}`;
  if (q.includeOutputSchema && c.outputSchema) out += `,"output_schema":${c.outputSchema}`;
  if (q.includeExamples) out += `,"examples":${c.examples ?? '[]'}`;
  return `${out},"invocation_target":${JSON.stringify(c.target)}}`;
}

export function renderJson(result: DiscoveryResult, q: DiscoveryQuery): string {
  const parts: string[] = [
    `{"discovered_at":${JSON.stringify(result.discoveredAt)},"total_agents":${result.totalAgents},"total_reasoners":${result.totalReasoners},"total_skills":${result.totalSkills}`,
    `,"pagination":{"limit":${result.limit},"offset":${result.offset},"has_more":${result.hasMore}},"capabilities":[`,
  ];
  result.page.forEach((m, i) => {
    parts.push(
      `${i ? ',' : ''}${m.agent.jsonHead},"reasoners":[${m.reasoners.map((c) => capabilityJson(c, q)).join(',')}],"skills":[${m.skills.map((c) => capabilityJson(c, q)).join(',')}]}`,
    );
  });
  parts.push(result.hint ? `],"hint":${JSON.stringify(result.hint)}}` : ']}');
  return parts.join('');
}
