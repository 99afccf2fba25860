/**
 * Synthetic agent manifests for scale tests and the benchmark: deterministic (seeded), with
 * realistic ids, tags and JSON Schemas, so discovery can be exercised with hundreds of agents
 * through the ordinary registration API.
 */
import type { AgentRegistrationInput, HealthStatus } from '../contracts/capabilities';
import { mulberry32 } from '../contracts/common';

const VERBS = ['deep', 'web', 'quick', 'batch', 'smart', 'multi', 'auto', 'fast', 'data', 'doc'];
const NOUNS = [
  'research',
  'search',
  'summary',
  'scraper',
  'parser',
  'classifier',
  'translator',
  'planner',
  'extractor',
  'ranker',
  'vision',
  'forecast',
];
const TAGS = [
  'ml',
  'nlp',
  'research',
  'web',
  'search',
  'data',
  'vision',
  'finance',
  'synthesis',
  'mlops',
  'ml_vision',
  'legal',
  'health',
  'ops',
];
const HEALTH: HealthStatus[] = ['active', 'active', 'active', 'degraded', 'inactive'];

export const syntheticAgentId = (i: number) => `agent-${String(i).padStart(4, '0')}`;

export interface SyntheticOptions {
  /** Capabilities per agent (half reasoners, half skills). */
  capabilities?: number;
  seed?: number;
}

export function syntheticAgent(i: number, options: SyntheticOptions = {}): AgentRegistrationInput {
  const rnd = mulberry32((options.seed ?? 7) * 100_003 + i);
  const pick = <T>(list: T[]) => list[Math.floor(rnd() * list.length)];
  const total = options.capabilities ?? 20;
  const agentId = syntheticAgentId(i);
  const tagsFor = () => [...new Set([pick(TAGS), pick(TAGS), pick(TAGS)].slice(0, 1 + Math.floor(rnd() * 3)))];
  // Schemas differ per capability (ids in descriptions), so the snapshot's string interning
  // cannot fold them together: the benchmark measures the unshared worst case.
  const capability = (n: number, kind: 'reasoner' | 'skill') => {
    const id = `${pick(VERBS)}_${pick(NOUNS)}_${n}`;
    return {
      id,
      description: `${kind === 'reasoner' ? 'Reasons about' : 'Performs'} ${id.replace(/_/g, ' ')} for agent ${agentId}, returning structured findings with confidence scores.`,
      tags: tagsFor(),
      input_schema: {
        type: 'object',
        properties: {
          query: { type: 'string', description: `Query or topic for ${id}` },
          depth: { type: 'integer', minimum: 1, maximum: 5, default: 3, description: 'Depth level' },
          sources: { type: 'array', items: { type: 'string' }, description: 'Specific sources to use' },
        },
        required: ['query'],
        additionalProperties: false,
      },
      output_schema: {
        type: 'object',
        properties: {
          findings: {
            type: 'array',
            items: { type: 'object', properties: { claim: { type: 'string' }, source: { type: 'string' } } },
          },
          confidence: { type: 'number', minimum: 0, maximum: 1, description: `Confidence of ${agentId}/${id}` },
          citations: { type: 'array', items: { type: 'string' } },
        },
        required: ['findings', 'confidence'],
      },
      examples: [
        {
          name: 'Basic query',
          description: `Runs ${id} at depth 3`,
          input: { query: 'Latest advances in quantum computing', depth: 3 },
        },
      ],
    };
  };
  const reasoners = Array.from({ length: Math.ceil(total / 2) }, (_, n) => capability(n, 'reasoner'));
  const skills = Array.from({ length: Math.floor(total / 2) }, (_, n) => capability(n, 'skill'));
  return {
    agent_id: agentId,
    base_url: `http://${agentId}.agents.internal:8080`,
    version: `${1 + Math.floor(rnd() * 3)}.${Math.floor(rnd() * 10)}.${Math.floor(rnd() * 10)}`,
    deployment_type: rnd() < 0.8 ? 'long_running' : 'serverless',
    health_status: pick(HEALTH),
    reasoners,
    skills,
  };
}
