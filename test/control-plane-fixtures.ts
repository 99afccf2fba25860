/**
 * Shared by the control-plane tests: hand-written agents whose filter results are known, and a
 * control plane on a temporary journal with a controllable clock and captured JSON logs.
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AgentRegistrationInput } from '../contracts/capabilities';
import { buildControlPlane, type ControlPlane, type ControlPlaneOptions } from '../server/app';

const researchInput = {
  type: 'object',
  properties: {
    query: { type: 'string', description: 'Research query or topic' },
    depth: { type: 'integer', minimum: 1, maximum: 5, default: 3, description: 'Research depth level' },
    sources: { type: 'array', items: { type: 'string' }, description: 'Specific sources to search' },
  },
  required: ['query'],
};
const researchOutput = {
  type: 'object',
  properties: {
    findings: { type: 'array', items: { type: 'object' }, description: 'Research findings' },
    confidence: { type: 'number', minimum: 0, maximum: 1, description: 'Confidence score' },
  },
};

export const researchAgent: AgentRegistrationInput = {
  agent_id: 'agent-research-001',
  base_url: 'http://agent-research:8080',
  version: '2.3.1',
  deployment_type: 'long_running',
  reasoners: [
    {
      id: 'deep_research',
      description: 'Performs comprehensive research using multiple sources & synthesizes <findings>',
      tags: ['research', 'ml', 'synthesis'],
      input_schema: researchInput,
      output_schema: researchOutput,
      examples: [
        {
          name: 'Basic research query',
          description: 'Mid-depth research',
          input: { query: 'Latest advances in quantum computing', depth: 3 },
        },
      ],
    },
    { id: 'web_researcher', description: 'Researches on the open web', tags: ['research', 'web'] },
  ],
  skills: [
    {
      id: 'web_search',
      description: 'Search the web using multiple search engines',
      tags: ['web', 'search', 'data'],
      input_schema: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
    },
    { id: 'web_scraper', description: 'Fetches and cleans pages', tags: ['web'] },
  ],
};

export const visionAgent: AgentRegistrationInput = {
  agent_id: 'agent-vision-002',
  base_url: 'http://agent-vision:8080',
  version: '1.0.0',
  deployment_type: 'serverless',
  health_status: 'degraded',
  reasoners: [
    { id: 'image_classifier', description: 'Classifies images', tags: ['ml_vision', 'vision'] },
    { id: 'research_agent', description: 'Looks up papers about images', tags: ['research'] },
  ],
  skills: [{ id: 'web_parser', description: 'Parses HTML', tags: ['web', 'parsing'] }],
};

export const opsAgent: AgentRegistrationInput = {
  agent_id: 'agent-ops-003',
  base_url: 'http://agent-ops:8080',
  version: '0.9.0',
  health_status: 'inactive',
  reasoners: [{ id: 'summary', description: 'Summarises incidents', tags: ['nlp'] }],
  skills: [{ id: 'mlops_deploy', description: 'Deploys models', tags: ['mlops'] }],
};

/** Has nothing to offer: never listed by discovery. */
export const emptyAgent: AgentRegistrationInput = {
  agent_id: 'agent-empty-004',
  base_url: 'http://agent-empty:8080',
  version: '0.1.0',
  reasoners: [],
  skills: [],
};

export const fixtureAgents = [researchAgent, visionAgent, opsAgent, emptyAgent];

export interface TestControlPlane extends ControlPlane {
  clock: { now: number; advance(ms: number): void };
  logs: Array<Record<string, unknown>>;
  storePath: string;
  get(
    url: string,
    headers?: Record<string, string>,
  ): Promise<{ status: number; body: string; json: any; headers: Record<string, unknown> }>;
  register(manifest: AgentRegistrationInput): Promise<{ status: number; json: any }>;
}

export function tempStorePath(): string {
  return path.join(mkdtempSync(path.join(os.tmpdir(), 'control-plane-')), 'agents.jsonl');
}

export async function testControlPlane(options: Partial<ControlPlaneOptions> = {}): Promise<TestControlPlane> {
  const clock = {
    now: Date.parse('2026-01-01T12:00:00Z'),
    advance(ms: number) {
      this.now += ms;
    },
  };
  const logs: Array<Record<string, unknown>> = [];
  const storePath = options.storePath ?? tempStorePath();
  const cp = await buildControlPlane({
    storePath,
    logLevel: 'info',
    logStream: { write: (line: string) => void logs.push(JSON.parse(line)) },
    processMetrics: false,
    now: () => clock.now,
    ...options,
  });
  return Object.assign(cp, {
    clock,
    logs,
    storePath,
    async get(url: string, headers: Record<string, string> = {}) {
      const res = await cp.app.inject({ method: 'GET', url, headers });
      let json: unknown;
      try {
        json = JSON.parse(res.body);
      } catch {
        json = undefined;
      }
      return { status: res.statusCode, body: res.body, json, headers: res.headers };
    },
    async register(manifest: AgentRegistrationInput) {
      const res = await cp.app.inject({ method: 'POST', url: '/api/v1/agents', payload: manifest as object });
      return { status: res.statusCode, json: JSON.parse(res.body) };
    },
  });
}
