/**
 * The discovery API's unit cases and the registration API,
 * against the real Fastify app (in-process requests), a real journal file and a fake clock.
 */
import fc from 'fast-check';
import { XMLParser } from 'fast-xml-parser';
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../plumbing/config';
import { startControlPlane } from '../server/main';
import { JournalRegistryStore, toStoredManifest } from '../server/registry-store';
import { rawHttp } from './hostile-helpers';
import {
  agentRegistrationSchema,
  compactDiscoveryResponseSchema,
  discoveryResponseSchema,
  parseInvocationTarget,
} from '../contracts/capabilities';
import { compileGlob, matchesAny } from '../server/glob';
import { DISCOVERY_PARAMETERS } from '../server/query-params';
import {
  fixtureAgents,
  opsAgent,
  researchAgent,
  testControlPlane,
  type TestControlPlane,
} from './control-plane-fixtures';

const API = '/api/v1/discovery/capabilities';
const ids = (body: any) => body.capabilities.map((a: any) => a.agent_id);
const reasonerIds = (body: any) => body.capabilities.flatMap((a: any) => a.reasoners.map((r: any) => r.id)).sort();
const skillIds = (body: any) => body.capabilities.flatMap((a: any) => a.skills.map((s: any) => s.id)).sort();

describe('discovery API (seed unit cases)', () => {
  let cp: TestControlPlane;
  beforeEach(async () => {
    cp = await testControlPlane();
    for (const agent of fixtureAgents) expect((await cp.register(agent)).status).toBe(201);
  });
  afterEach(async () => cp?.close());

  it('1. basic discovery (no filters): agents with capabilities, totals, defaults', async () => {
    const res = await cp.get(API);
    expect(res.status).toBe(200);
    const body = discoveryResponseSchema.parse(res.json);
    // agent-empty-004 offers nothing, so it is not listed; agents are sorted by id.
    expect(ids(body)).toEqual(['agent-ops-003', 'agent-research-001', 'agent-vision-002']);
    expect(body).toMatchObject({
      total_agents: 3,
      total_reasoners: 5,
      total_skills: 4,
      pagination: { limit: 100, offset: 0, has_more: false },
    });
    expect(body.discovered_at).toBe('2026-01-01T12:00:00Z');
    const deep = body.capabilities[1].reasoners[0];
    expect(deep).toEqual({
      id: 'deep_research',
      description: researchAgent.reasoners![0].description,
      tags: ['research', 'ml', 'synthesis'],
      invocation_target: 'agent-research-001:deep_research',
    });
    expect(body.capabilities[1].skills[0].invocation_target).toBe('agent-research-001:skill:web_search');
    expect(body.capabilities[1]).toMatchObject({
      base_url: 'http://agent-research:8080',
      version: '2.3.1',
      deployment_type: 'long_running',
      health_status: 'active',
      last_heartbeat: '2026-01-01T12:00:00Z',
    });
  });

  it('2. filters by a single agent id', async () => {
    expect(ids((await cp.get(`${API}?agent=agent-vision-002`)).json)).toEqual(['agent-vision-002']);
    const none = (await cp.get(`${API}?agent=agent-missing`)).json;
    expect(none).toMatchObject({ total_agents: 0, total_reasoners: 0, total_skills: 0, capabilities: [] });
  });

  it('3. filters by several agent ids (comma-separated, trimmed, de-duplicated)', async () => {
    const body = (await cp.get(`${API}?agent_ids=agent-ops-003,%20agent-research-001%20,agent-ops-003,agent-missing`))
      .json;
    expect(ids(body)).toEqual(['agent-ops-003', 'agent-research-001']);
    expect(body.total_agents).toBe(2);
  });

  it('4. supports the aliases node_id and node_ids; agent wins over node_id', async () => {
    expect(ids((await cp.get(`${API}?node_id=agent-ops-003`)).json)).toEqual(['agent-ops-003']);
    expect(ids((await cp.get(`${API}?agent=agent-vision-002&node_id=agent-ops-003`)).json)).toEqual([
      'agent-vision-002',
    ]);
    expect(ids((await cp.get(`${API}?node_ids=agent-ops-003,agent-vision-002`)).json)).toEqual([
      'agent-ops-003',
      'agent-vision-002',
    ]);
    // The lists add to the single id.
    expect(ids((await cp.get(`${API}?agent=agent-research-001&node_ids=agent-ops-003`)).json)).toEqual([
      'agent-ops-003',
      'agent-research-001',
    ]);
  });

  it('5. wildcard patterns: contains, prefix, suffix, exact; case-sensitive and anchored', async () => {
    expect(reasonerIds((await cp.get(`${API}?reasoner=*research*`)).json)).toEqual([
      'deep_research',
      'research_agent',
      'web_researcher',
    ]);
    expect(reasonerIds((await cp.get(`${API}?reasoner=deep_*`)).json)).toEqual(['deep_research']);
    expect(reasonerIds((await cp.get(`${API}?reasoner=*research`)).json)).toEqual(['deep_research']);
    expect(reasonerIds((await cp.get(`${API}?reasoner=summary`)).json)).toEqual(['summary']);
    expect(reasonerIds((await cp.get(`${API}?reasoner=research`)).json)).toEqual([]);
    const upper = (await cp.get(`${API}?reasoner=*RESEARCH*`)).json;
    expect(reasonerIds(upper)).toEqual([]);
    // An empty answer says why, and what the pattern would match with case ignored.
    expect(upper.hint).toMatch(/case-sensitive.*Ignoring case they would match: .*deep_research/);
    expect((await cp.get(`${API}?reasoner=*research*`)).json.hint).toBeUndefined();
    expect((await cp.get(`${API}?reasoner=nothing_like_it`)).json.hint).toMatch(/^No reasoner matches\. [^I]*$/);
    expect(reasonerIds((await cp.get(`${API}?reasoner=deep%3Fresearch`)).json)).toEqual([]);
    expect(reasonerIds((await cp.get(`${API}?reasoner=*`)).json)).toHaveLength(5);

    const m = compileGlob('a*b*c');
    expect(['abc', 'aXbYc', 'abbc', 'a*b*c'].every(m)).toBe(true);
    expect(['ab', 'bac', 'abcd', 'Abc'].some(m)).toBe(false);
    expect(compileGlob('a.c')('abc')).toBe(false);
    expect(compileGlob('a*a')('a')).toBe(false);
  });

  it('6. tag filters with wildcards: any tag matching any pattern, on reasoners and skills', async () => {
    const ml = (await cp.get(`${API}?tags=ml*`)).json;
    // ml, ml_vision and mlops all start with "ml".
    expect(reasonerIds(ml)).toEqual(['deep_research', 'image_classifier']);
    expect(skillIds(ml)).toEqual(['mlops_deploy']);
    const two = (await cp.get(`${API}?tags=nlp,*ing`)).json;
    expect(reasonerIds(two)).toEqual(['summary']);
    expect(skillIds(two)).toEqual(['web_parser']);
    expect(ids(two)).toEqual(['agent-ops-003', 'agent-vision-002']);
    expect(matchesAny(['x', 'ml'], [compileGlob('zz'), compileGlob('m*')])).toBe(true);
    expect(matchesAny([], [compileGlob('*')])).toBe(false);
  });

  it('7. reasoner filter narrows reasoners only; combined filters are ANDed', async () => {
    const body = (await cp.get(`${API}?reasoner=deep_research`)).json;
    expect(reasonerIds(body)).toEqual(['deep_research']);
    // A reasoner pattern does not filter skills (reference semantics), so all skills stay.
    expect(body.total_skills).toBe(4);
    const and = (await cp.get(`${API}?agent=agent-research-001&reasoner=*research*&tags=ml*`)).json;
    expect(reasonerIds(and)).toEqual(['deep_research']);
    expect(skillIds(and)).toEqual([]);
  });

  it('8. skill filter narrows skills only', async () => {
    const body = (await cp.get(`${API}?skill=web_*`)).json;
    expect(skillIds(body)).toEqual(['web_parser', 'web_scraper', 'web_search']);
    expect(body.total_reasoners).toBe(5);
    const both = (await cp.get(`${API}?reasoner=nothing_*&skill=mlops_*`)).json;
    expect(ids(both)).toEqual(['agent-ops-003']);
    expect(both).toMatchObject({ total_reasoners: 0, total_skills: 1 });
  });

  it('9. schema, description and example flags', async () => {
    const plain = (await cp.get(`${API}?agent=agent-research-001`)).json.capabilities[0].reasoners[0];
    expect(plain.input_schema).toBeUndefined();
    expect(plain.examples).toBeUndefined();
    const input = (await cp.get(`${API}?agent=agent-research-001&include_input_schema=true`)).json.capabilities[0];
    expect(input.reasoners[0].input_schema).toEqual(researchAgent.reasoners![0].input_schema);
    expect(input.reasoners[0].output_schema).toBeUndefined();
    expect(input.skills[0].input_schema).toEqual(researchAgent.skills![0].input_schema);
    const all = (
      await cp.get(
        `${API}?agent=agent-research-001&include_input_schema=1&include_output_schema=YES&include_examples=true&include_descriptions=no`,
      )
    ).json.capabilities[0];
    expect(all.reasoners[0].output_schema).toEqual(researchAgent.reasoners![0].output_schema);
    expect(all.reasoners[0].examples).toEqual(researchAgent.reasoners![0].examples);
    expect(all.reasoners[1].examples).toEqual([]);
    expect(all.reasoners[0].description).toBeUndefined();
    // A capability without a schema just has none, even when asked.
    expect(all.reasoners[1].input_schema).toBeUndefined();
  });

  it('10. JSON format (default and explicit) matches the response schema', async () => {
    const implicit = await cp.get(`${API}?tags=web`);
    const explicit = await cp.get(`${API}?tags=web&format=JSON`);
    expect(implicit.headers['content-type']).toMatch(/^application\/json/);
    expect(explicit.body).toBe(implicit.body);
    expect(discoveryResponseSchema.safeParse(explicit.json).success).toBe(true);
  });

  it('11. XML format: summary, agents, capabilities, schema fields; text is escaped', async () => {
    const res = await cp.get(
      `${API}?format=xml&agent=agent-research-001&include_input_schema=true&include_output_schema=true`,
    );
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/xml/);
    expect(res.body.startsWith('<?xml version="1.0" encoding="UTF-8"?>')).toBe(true);
    const doc = new XMLParser({
      ignoreAttributes: false,
      attributeNamePrefix: '',
      isArray: (name) => ['agent', 'reasoner', 'skill', 'tag', 'field'].includes(name),
    }).parse(res.body);
    expect(doc.discovery.discovered_at).toBe('2026-01-01T12:00:00Z');
    expect(doc.discovery.summary).toEqual({ total_agents: '1', total_reasoners: '2', total_skills: '2' });
    const agent = doc.discovery.capabilities.agent[0];
    expect(agent).toMatchObject({
      id: 'agent-research-001',
      base_url: 'http://agent-research:8080',
      version: '2.3.1',
      health_status: 'active',
      deployment_type: 'long_running',
    });
    const deep = agent.reasoners.reasoner[0];
    expect(deep).toMatchObject({ id: 'deep_research', target: 'agent-research-001:deep_research' });
    expect(deep.description).toBe(researchAgent.reasoners![0].description); // "&" and "<findings>" survive the round trip
    expect(deep.tags.tag).toEqual(['research', 'ml', 'synthesis']);
    const [query, depth, sources] = deep.input_schema.field;
    expect(query).toMatchObject({
      name: 'query',
      type: 'string',
      required: 'true',
      '#text': 'Research query or topic',
    });
    expect(depth).toMatchObject({ name: 'depth', type: 'integer', min: '1', max: '5', default: '3' });
    expect(sources).toMatchObject({ name: 'sources', type: 'array', items: 'string' });
    expect(deep.output_schema.field.map((f: any) => f.name)).toEqual(['findings', 'confidence']);
    expect(agent.skills.skill.map((s: any) => s.target)).toEqual([
      'agent-research-001:skill:web_search',
      'agent-research-001:skill:web_scraper',
    ]);
  });

  it('12. compact format: flat lists for the current page only', async () => {
    const res = await cp.get(`${API}?format=compact&limit=1&offset=1`);
    const body = compactDiscoveryResponseSchema.parse(res.json);
    expect(Object.keys(res.json).sort()).toEqual(['discovered_at', 'reasoners', 'skills']);
    expect(body.reasoners).toEqual([
      {
        id: 'deep_research',
        agent_id: 'agent-research-001',
        target: 'agent-research-001:deep_research',
        tags: ['research', 'ml', 'synthesis'],
      },
      {
        id: 'web_researcher',
        agent_id: 'agent-research-001',
        target: 'agent-research-001:web_researcher',
        tags: ['research', 'web'],
      },
    ]);
    expect(body.skills.map((s) => s.id)).toEqual(['web_search', 'web_scraper']);
  });

  it('12b. compact format with include_descriptions=true: a tool registry for a model gets the descriptions', async () => {
    const plain = compactDiscoveryResponseSchema.parse((await cp.get(`${API}?format=compact`)).json);
    expect([...plain.reasoners, ...plain.skills].some((c) => 'description' in c)).toBe(false);
    const asked = compactDiscoveryResponseSchema.parse(
      (await cp.get(`${API}?format=compact&include_descriptions=true`)).json,
    );
    const described = [...asked.reasoners, ...asked.skills].filter((c) => c.description);
    expect(described.length).toBeGreaterThan(0);
    const full = (await cp.get(`${API}?reasoner=deep_research`)).json;
    const deep = full.capabilities
      .flatMap((c: { reasoners: Array<{ id: string; description?: string }> }) => c.reasoners)
      .find((r: { id: string }) => r.id === 'deep_research');
    expect(deep.description).toBeTruthy();
    expect(asked.reasoners.find((r) => r.id === 'deep_research')?.description).toBe(deep.description);
    // Asked not to, the other formats leave them out as before.
    expect(JSON.stringify((await cp.get(`${API}?include_descriptions=false`)).json)).not.toContain('"description"');
  });

  it('13. pagination slices agents after filtering; totals count everything', async () => {
    const pages = [];
    for (let offset = 0; offset < 4; offset++) pages.push((await cp.get(`${API}?limit=1&offset=${offset}`)).json);
    expect(pages.map((p) => ids(p))).toEqual([['agent-ops-003'], ['agent-research-001'], ['agent-vision-002'], []]);
    expect(pages.map((p) => p.pagination.has_more)).toEqual([true, true, false, false]);
    expect(pages.every((p) => p.total_agents === 3 && p.total_reasoners === 5 && p.total_skills === 4)).toBe(true);
    const zero = (await cp.get(`${API}?limit=0`)).json;
    expect(zero).toMatchObject({
      capabilities: [],
      total_agents: 3,
      pagination: { limit: 0, offset: 0, has_more: true },
    });
    const far = (await cp.get(`${API}?offset=1000000`)).json;
    expect(far).toMatchObject({ capabilities: [], total_agents: 3, pagination: { has_more: false } });
    const filtered = (await cp.get(`${API}?tags=web&limit=1&offset=1`)).json;
    expect(ids(filtered)).toEqual(['agent-vision-002']);
    expect(filtered.total_agents).toBe(2);
  });

  it('14. health status filter; health follows heartbeats over time', async () => {
    expect(ids((await cp.get(`${API}?health_status=degraded`)).json)).toEqual(['agent-vision-002']);
    expect(ids((await cp.get(`${API}?health_status=inactive`)).json)).toEqual(['agent-ops-003']);
    expect(ids((await cp.get(`${API}?health_status=ACTIVE`)).json)).toEqual(['agent-research-001']);
    expect(ids((await cp.get(`${API}?health_status=unknown`)).json)).toEqual([]);

    // No heartbeat for longer than the timeout (30 s): inactive, found by the health check.
    cp.clock.advance(31_000);
    const beat = await cp.app.inject({
      method: 'POST',
      url: '/api/v1/agents/agent-vision-002/heartbeat',
      payload: { instance_id: 'default' },
    });
    expect(beat.statusCode).toBe(200);
    expect(await cp.registry.checkHealth()).toEqual(['agent-empty-004', 'agent-research-001']);
    expect(ids((await cp.get(`${API}?health_status=inactive`)).json)).toEqual(['agent-ops-003', 'agent-research-001']);
    // The vision agent's fresh heartbeat keeps its own report (degraded) in force.
    expect(ids((await cp.get(`${API}?health_status=degraded`)).json)).toEqual(['agent-vision-002']);
    // A heartbeat brings the research agent back at once, a self-report changes it at once.
    const reads = cp.store.reads;
    await cp.app.inject({ method: 'POST', url: '/api/v1/agents/agent-research-001/heartbeat', payload: {} });
    expect(ids((await cp.get(`${API}?health_status=active`)).json)).toEqual(['agent-research-001']);
    // Health is derived, not stored: showing the change needed no storage read.
    expect(cp.store.reads).toBe(reads);
    await cp.app.inject({
      method: 'POST',
      url: '/api/v1/agents/agent-vision-002/heartbeat',
      payload: { health_status: 'active' },
    });
    expect(ids((await cp.get(`${API}?health_status=active`)).json)).toEqual(['agent-research-001', 'agent-vision-002']);
  });

  it('15. cache: one storage read per miss; hits within the TTL; revalidation without a read when storage is unchanged; (de)registrations applied in place', async () => {
    const reads = () => cp.store.reads;
    const start = reads();
    await cp.get(API);
    expect(reads()).toBe(start + 1); // registrations invalidated the cache: miss
    await cp.get(`${API}?tags=web`);
    await cp.get(`${API}?format=xml`);
    expect(reads()).toBe(start + 1);
    // A heartbeat within the TTL is not shown yet: the cached snapshot answers.
    const research = (body: any) => body.capabilities.find((a: any) => a.agent_id === 'agent-research-001');
    cp.clock.advance(10_000);
    await cp.app.inject({ method: 'POST', url: '/api/v1/agents/agent-research-001/heartbeat', payload: {} });
    expect(research((await cp.get(API)).json).last_heartbeat).toBe('2026-01-01T12:00:00Z');
    // TTL (30 s) expiry with storage unchanged: revalidated without a read. Heartbeat times and
    // health are derived again and discovered_at moves on.
    cp.clock.advance(20_001);
    const revalidated = (await cp.get(API)).json;
    expect(reads()).toBe(start + 1);
    expect(revalidated.discovered_at).toBe('2026-01-01T12:00:30Z');
    expect(research(revalidated).last_heartbeat).toBe('2026-01-01T12:00:10Z');
    expect(research(revalidated).health_status).toBe('active');
    // Storage changed without the cache being told: the next expiry reads it.
    await cp.store.put(
      toStoredManifest(agentRegistrationSchema.parse({ ...opsAgent, agent_id: 'agent-direct-006' })),
      'default',
      cp.clock.now,
    );
    expect((await cp.get(`${API}?agent=agent-direct-006`)).json.total_agents).toBe(0);
    // A registration through this process meanwhile is applied, but does not hide that change.
    await cp.register({ ...opsAgent, agent_id: 'agent-other-007' });
    cp.clock.advance(30_001);
    expect((await cp.get(`${API}?agent=agent-direct-006`)).json.total_agents).toBe(1);
    expect(reads()).toBe(start + 2);
    // A registration through this process is applied to the cached snapshot: no read.
    await cp.register({ ...opsAgent, agent_id: 'agent-new-005' });
    expect((await cp.get(`${API}?agent=agent-new-005`)).json.total_agents).toBe(1);
    expect(reads()).toBe(start + 2);
    // A burst after an invalidation shares a single read.
    cp.registry.cache.invalidate();
    const burst = await Promise.all(Array.from({ length: 50 }, () => cp.get(`${API}?agent=agent-new-005`)));
    expect(burst.every((r) => r.status === 200 && r.json.total_agents === 1)).toBe(true);
    expect(reads()).toBe(start + 3);
    // Deregistration is applied in place too; storage is read again at the next miss.
    expect((await cp.app.inject({ method: 'DELETE', url: '/api/v1/agents/agent-new-005' })).statusCode).toBe(200);
    expect((await cp.get(`${API}?agent=agent-new-005`)).json.total_agents).toBe(0);
    expect(reads()).toBe(start + 3);
    cp.registry.cache.invalidate();
    expect((await cp.get(`${API}?agent=agent-new-005`)).json.total_agents).toBe(0);
    expect(reads()).toBe(start + 4);

    const metrics = (await cp.app.inject({ url: '/metrics' })).body;
    const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(metrics)?.[1]);
    expect(value('agentfield_discovery_cache_misses_total')).toBe(4);
    expect(value('agentfield_discovery_cache_hits_total')).toBe(56);
    expect(value('agentfield_discovery_response_memo_hits_total')).toBeGreaterThanOrEqual(49);
    expect(value('agentfield_discovery_cache_size_bytes')).toBeGreaterThan(0);
    expect(metrics).toMatch(/agentfield_discovery_requests_total\{format="xml",status="success"\} 1/);
    expect(metrics).toMatch(/agentfield_discovery_filter_usage\{filter_type="agent"\} 55/);
    expect(metrics).toMatch(/agentfield_discovery_filter_usage\{filter_type="tag"\} 1/);
    expect(metrics).toMatch(/agentfield_discovery_request_duration_seconds_count\{format="json"\} 59/);

    const line = cp.logs.find((l) => l.message === 'discovery request completed' && (l.filters as any)?.tags);
    expect(line).toMatchObject({
      level: 'info',
      filters: { tags: ['web'], format: 'json', limit: 100, offset: 0 },
      results: { agents: 2, reasoners: 1, skills: 3 },
      cache_hit: true,
    });
    expect(line!.request_id).toMatch(/^req_[0-9a-f]{12}$/);
    expect(typeof line!.duration_ms).toBe('number');
    expect(typeof line!.timestamp).toBe('string');
  });

  it('16. errors: every invalid parameter is a 400 naming it; a storage failure is a 500 with request_id', async () => {
    const cases: Array<[string, string, string[] | undefined]> = [
      ['format=yaml', 'format', ['json', 'xml', 'compact']],
      ['limit=501', 'limit', ['0-500']],
      ['limit=-1', 'limit', ['0-500']],
      ['limit=12abc', 'limit', ['0-500']],
      ['limit=1.5', 'limit', ['0-500']],
      ['offset=1000001', 'offset', ['0-1000000']],
      ['offset=abc', 'offset', ['0-1000000']],
      ['include_examples=maybe', 'include_examples', ['true', 'false', '1', '0', 'yes', 'no']],
      ['include_descriptions=huh', 'include_descriptions', undefined],
      ['include_input_schema=x', 'include_input_schema', undefined],
      ['include_output_schema=2', 'include_output_schema', undefined],
      ['health_status=broken', 'health_status', ['active', 'inactive', 'degraded', 'unknown']],
      ['reasoners=deep', 'reasoners', undefined],
      ['format=json&format=xml', 'format', ['a single value']],
      [`reasoner=${'a'.repeat(257)}`, 'reasoner', undefined],
      ['skill=a%00b', 'skill', undefined],
      ['agent=bad%20id', 'agent', undefined],
      ['node_ids=ok,no:pe', 'node_ids', undefined],
      [`tags=${Array.from({ length: 51 }, (_, i) => `t${i}`).join(',')}`, 'tags', undefined],
    ];
    for (const [query, parameter, allowed] of cases) {
      const res = await cp.get(`${API}?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.json.error).toBe('invalid_parameter');
      expect(res.json.details.parameter, query).toBe(parameter);
      expect(res.json.message).toContain(parameter);
      if (allowed) expect(res.json.details.allowed).toEqual(allowed);
    }
    expect((await cp.get(`${API}?format=yaml`)).json).toEqual({
      error: 'invalid_parameter',
      message: 'Invalid format parameter. Must be one of: json, xml, compact',
      details: { parameter: 'format', provided: 'yaml', allowed: ['json', 'xml', 'compact'] },
    });
    // Empty values mean "not given", as in the reference.
    expect((await cp.get(`${API}?limit=&format=&include_examples=&agent=`)).status).toBe(200);

    cp.store.listAgents = async () => {
      throw new Error('disk on fire');
    };
    cp.registry.cache.invalidate();
    const res = await cp.get(API);
    expect(res.status).toBe(500);
    expect(res.json).toEqual({
      error: 'internal_error',
      message: 'Failed to retrieve agent capabilities',
      request_id: res.headers['x-request-id'],
    });
    expect(JSON.stringify(cp.logs)).toContain('disk on fire');
  });
});

describe('registration API', () => {
  let cp: TestControlPlane;
  beforeEach(async () => {
    cp = await testControlPlane();
  });
  afterEach(async () => cp?.close());

  it('rejects invalid manifests naming the field', async () => {
    const bad = await cp.register({ ...researchAgent, agent_id: 'has space' });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toBe('invalid_manifest');
    expect(bad.json.details.issues[0].field).toBe('agent_id');
    const dup = await cp.register({ ...researchAgent, skills: [{ id: 'x' }, { id: 'x' }] });
    expect(dup.status).toBe(400);
    expect(dup.json.message).toContain('skills.1.id: duplicate id "x"');
    const extra = await cp.register({ ...researchAgent, extra: true } as never);
    expect(extra.json.details.issues[0].message).toMatch(/extra/);
    const notJson = await cp.app.inject({
      method: 'POST',
      url: '/api/v1/agents',
      payload: '{nope',
      headers: { 'content-type': 'application/json' },
    });
    expect(notJson.statusCode).toBe(400);
    expect(JSON.parse(notJson.body).error).toBe('invalid_request');
  });

  it('replaces a manifest on re-registration (200) and keeps the agent while an instance is left', async () => {
    expect((await cp.register({ ...researchAgent, instance_id: 'w1' })).status).toBe(201);
    const again = await cp.register({
      ...researchAgent,
      instance_id: 'w2',
      version: '2.4.0',
      reasoners: [researchAgent.reasoners![1]],
    });
    expect(again).toMatchObject({ status: 200, json: { created: false, instance_id: 'w2', reasoners: 1 } });
    let agent = (await cp.get(`${API}?agent=agent-research-001`)).json.capabilities[0];
    expect(agent.version).toBe('2.4.0');
    expect(agent.reasoners.map((r: any) => r.id)).toEqual(['web_researcher']);

    const first = await cp.app.inject({ method: 'DELETE', url: '/api/v1/agents/agent-research-001?instance_id=w1' });
    expect(JSON.parse(first.body)).toEqual({ agent_id: 'agent-research-001', removed: false, remaining_instances: 1 });
    agent = (await cp.get(`${API}?agent=agent-research-001`)).json.capabilities[0];
    expect(agent.agent_id).toBe('agent-research-001');
    const last = await cp.app.inject({ method: 'DELETE', url: '/api/v1/agents/agent-research-001?instance_id=w2' });
    expect(JSON.parse(last.body)).toMatchObject({ removed: true, remaining_instances: 0 });
    expect((await cp.get(`${API}?agent=agent-research-001`)).json.total_agents).toBe(0);
    expect((await cp.app.inject({ method: 'DELETE', url: '/api/v1/agents/agent-research-001' })).statusCode).toBe(404);
    expect((await cp.app.inject({ method: 'DELETE', url: '/api/v1/agents/x?force=1' })).statusCode).toBe(400);
  });

  it('answers a heartbeat for an unknown agent with 404 (register again)', async () => {
    const res = await cp.app.inject({ method: 'POST', url: '/api/v1/agents/agent-ghost/heartbeat', payload: {} });
    expect(res.statusCode).toBe(404);
    expect(
      (
        await cp.app.inject({
          method: 'POST',
          url: '/api/v1/agents/agent-ghost/heartbeat',
          payload: { health_status: 'sick' },
        })
      ).statusCode,
    ).toBe(400);
  });

  it('survives a restart (journal), ignoring a torn last line, and compacts the journal', async () => {
    for (const agent of fixtureAgents) await cp.register(agent);
    await cp.app.inject({
      method: 'POST',
      url: '/api/v1/agents/agent-ops-003/heartbeat',
      payload: { health_status: 'degraded' },
    });
    await cp.app.inject({ method: 'DELETE', url: '/api/v1/agents/agent-empty-004' });
    const before = (await cp.get(API)).json;
    await cp.close();
    appendFileSync(cp.storePath, '{"op":"put","at":1,"instance":"x","agent":{"agent_id":"torn"');

    const again = await testControlPlane({ storePath: cp.storePath });
    try {
      const after = (await again.get(API)).json;
      expect(after.capabilities).toEqual(before.capabilities);
      expect(after.capabilities.find((a: any) => a.agent_id === 'agent-ops-003').health_status).toBe('degraded');
      // Opening rewrote the journal: one line per live agent.
      expect(readFileSync(cp.storePath, 'utf8').trim().split('\n')).toHaveLength(3);
    } finally {
      await again.close();
    }
  });

  it('protects /api/* with a bearer token when one is configured', async () => {
    const secured = await testControlPlane({ token: 's3cret' });
    try {
      expect((await secured.get(API)).status).toBe(401);
      expect((await secured.get(API, { authorization: 'Bearer wrong' })).status).toBe(401);
      expect((await secured.get(API, { authorization: 'Bearer s3cret' })).status).toBe(200);
      const reg = await secured.app.inject({ method: 'POST', url: '/api/v1/agents', payload: researchAgent as object });
      expect(reg.statusCode).toBe(401);
      expect((await secured.get('/healthz')).status).toBe(200);
    } finally {
      await secured.close();
    }
  });

  it('serves an OpenAPI document describing every discovery parameter', async () => {
    const doc = (await cp.get('/openapi.json')).json;
    expect(doc.openapi).toBe('3.1.0');
    const params = doc.paths['/api/v1/discovery/capabilities'].get.parameters.map((p: any) => p.name);
    expect(params).toEqual([...DISCOVERY_PARAMETERS]);
    const ok = doc.paths['/api/v1/discovery/capabilities'].get.responses['200'].content['application/json'].schema;
    expect(ok.anyOf[0].properties.capabilities.type).toBe('array');
    expect(Object.keys(doc.paths)).toContain('/api/v1/execute/{invocation_target}');
    // The server URL is the caller's own, not the first caller's.
    for (const host of ['127.0.0.1:8080', 'localhost:8080'])
      expect((await cp.get('/openapi.json', { host })).json.servers).toEqual([{ url: `http://${host}` }]);
  });

  it('rejects execution requests it cannot honour before touching Temporal', async () => {
    await cp.register(researchAgent);
    const post = (target: string, payload: object = { input: {} }, query = '') =>
      cp.app.inject({ method: 'POST', url: `/api/v1/execute/${target}${query}`, payload });
    const parse = (r: { body: string }) => JSON.parse(r.body);
    expect(parse(await post('no-colon'))).toMatchObject({
      error: 'invalid_parameter',
      details: { parameter: 'invocation_target' },
    });
    const skill = await post('agent-research-001:skill:web_search');
    expect(skill.statusCode).toBe(409);
    expect(parse(skill)).toMatchObject({ error: 'not_executable' });
    expect((await post('agent-missing:deep_research')).statusCode).toBe(404);
    expect((await post('agent-research-001:nope')).statusCode).toBe(404);
    // Registered by a synthetic agent with no workflow behind it.
    const synthetic = await post('agent-research-001:deep_research');
    expect(synthetic.statusCode).toBe(409);
    expect(parse(synthetic)).toMatchObject({ error: 'not_executable' });
    expect(parse(await post('agent-research-001:deep_research', { input: {} }, '?wait=perhaps'))).toMatchObject({
      details: { parameter: 'wait' },
    });
    expect(parse(await post('agent-research-001:deep_research', { input: {} }, '?timeout=11m'))).toMatchObject({
      details: { parameter: 'timeout' },
    });
    expect(parse(await post('agent-research-001:deep_research', { input: {}, other: 1 }))).toMatchObject({
      error: 'invalid_body',
    });
    expect(parseInvocationTarget('a:skill:b')).toEqual({ agentId: 'a', kind: 'skill', id: 'b' });
    expect(parseInvocationTarget('a:b:c')).toBeUndefined();
  });
});

describe('registration journal: compaction on delete, an unusable store, exposure without a token', () => {
  it('deleting large registrations gives their space back (the journal is compacted)', async () => {
    const cp = await testControlPlane({ logLevel: 'silent' });
    try {
      const empty = statSync(cp.storePath).size;
      // Ten registrations near the 1 MB manifest limit, each registered twice (a replaced copy is garbage too).
      for (let i = 0; i < 10; i++) {
        for (const version of ['1', '2']) {
          const manifest = {
            ...researchAgent,
            agent_id: `agent-big-${i}`,
            version,
            reasoners: [{ id: 'r', input_schema: { description: `${version}${'x'.repeat(900_000)}` } }],
          };
          expect((await cp.register(manifest)).status).toBeLessThan(300);
        }
      }
      expect(statSync(cp.storePath).size).toBeGreaterThan(9_000_000);
      await cp.register(researchAgent);
      for (let i = 0; i < 10; i++)
        expect((await cp.app.inject({ method: 'DELETE', url: `/api/v1/agents/agent-big-${i}` })).statusCode).toBe(200);
      // Compaction runs in the journal's writer queue: wait for the file to shrink to the one agent left.
      await expect.poll(() => statSync(cp.storePath).size, { timeout: 5000 }).toBeLessThan(empty + 5000);
      expect(readFileSync(cp.storePath, 'utf8').trim().split('\n')).toHaveLength(1);
      expect((await cp.get(API)).json.capabilities.map((a: any) => a.agent_id)).toEqual(['agent-research-001']);
      // The index still knows the survivor: a heartbeat and a delete work after compaction.
      expect(
        (await cp.app.inject({ method: 'POST', url: '/api/v1/agents/agent-research-001/heartbeat', payload: {} }))
          .statusCode,
      ).toBe(200);
    } finally {
      await cp.close();
    }
  });

  it('an unusable CONTROL_PLANE_STORE fails within seconds, naming it, instead of hanging', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'cp-store-'));
    const fifo = path.join(dir, 'agents.fifo');
    execFileSync('mkfifo', [fifo]);
    mkdirSync(path.join(dir, 'a-directory'));
    writeFileSync(path.join(dir, 'a-file'), '');
    for (const store of [
      fifo,
      '/dev/full',
      '/dev/zero',
      path.join(dir, 'a-directory'),
      path.join(dir, 'a-file', 'agents.jsonl'),
      '/proc/agents.jsonl',
    ]) {
      const started = Date.now();
      await expect(JournalRegistryStore.open(store), store).rejects.toThrow(
        /registration store .* \(CONTROL_PLANE_STORE\) is not usable: /,
      );
      expect(Date.now() - started).toBeLessThan(3000);
    }
    expect(statSync('/dev/full').isCharacterDevice()).toBe(true); // never replaced by a rename
  });

  it('refuses a shared registry without a secret to sign its changes with, naming the variable', async () => {
    const config = parseConfig({
      CONTROL_PLANE_PORT: '0',
      CONTROL_PLANE_STORE: path.join(mkdtempSync(path.join(os.tmpdir(), 'cp-')), 'a.jsonl'),
      CONTROL_PLANE_REGISTRY: 'temporal',
    });
    // Before anything connects: the registry workflows would accept no change of this instance's.
    await expect(startControlPlane(config)).rejects.toThrow(
      /CONTROL_PLANE_REGISTRY_KEY: required with CONTROL_PLANE_REGISTRY=temporal/,
    );
    await expect(startControlPlane(config)).rejects.toBeInstanceOf(ConfigError);
  });

  it('refuses to listen beyond loopback without a registration token, naming the variable', async () => {
    const config = (env: Record<string, string>) =>
      parseConfig({
        CONTROL_PLANE_PORT: '0',
        CONTROL_PLANE_STORE: path.join(mkdtempSync(path.join(os.tmpdir(), 'cp-')), 'a.jsonl'),
        ...env,
      });
    await expect(startControlPlane(config({ CONTROL_PLANE_HOST: '0.0.0.0' }))).rejects.toThrow(
      /CONTROL_PLANE_REGISTRATION_TOKEN: required when CONTROL_PLANE_HOST \(0\.0\.0\.0\) is not a loopback address/,
    );
    await expect(startControlPlane(config({ CONTROL_PLANE_HOST: '0.0.0.0' }))).rejects.toBeInstanceOf(ConfigError);
    // Its warning (no CONTROL_PLANE_TOKEN beyond loopback) is a log line: shown only if this fails.
    const cp = await startControlPlane(
      config({
        CONTROL_PLANE_HOST: '0.0.0.0',
        CONTROL_PLANE_REGISTRATION_TOKEN: 'reg',
        CONTROL_PLANE_ALLOWED_HOSTS: 'cp.internal',
      }),
    );
    try {
      const url = `http://127.0.0.1:${new URL(cp.url).port}`;
      expect(
        (
          await fetch(`${url}/api/v1/agents`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(researchAgent),
          })
        ).status,
      ).toBe(401);
      // On a wildcard address: IP literals and the configured names are accepted, other names not.
      const port = Number(new URL(cp.url).port);
      expect((await rawHttp(port, { target: '/healthz', headers: { host: `192.0.2.7:${port}` } })).status).toBe(200);
      expect((await rawHttp(port, { target: '/healthz', headers: { host: 'cp.internal' } })).status).toBe(200);
      expect((await rawHttp(port, { target: '/healthz', headers: { host: 'rebound.example' } })).status).toBe(403);
    } finally {
      await cp.close();
    }
    const loopback = await startControlPlane(config({}));
    await loopback.close();
  });
});

describe('discovery cache kept in step with storage', () => {
  // Registrations, heartbeats and deregistrations are applied to the cached snapshot without a
  // storage read; after any sequence of them the snapshot must be what a storage read gives.
  const agentIds = ['agent-a', 'agent-b', 'agent-c', 'agent-d'];
  const operation = fc.oneof(
    fc.record({
      kind: fc.constant('register' as const),
      agent: fc.nat(agentIds.length - 1),
      version: fc.nat(3),
      capabilities: fc.nat(3),
      queue: fc.boolean(),
      reported: fc.constantFrom(undefined, 'active', 'degraded'),
      instance: fc.constantFrom('default', 'second'),
    }),
    fc.record({
      kind: fc.constant('beat' as const),
      agent: fc.nat(agentIds.length - 1),
      instance: fc.constantFrom('default', 'second'),
      reported: fc.constantFrom(undefined, 'active', 'degraded', 'inactive'),
    }),
    fc.record({
      kind: fc.constant('deregister' as const),
      agent: fc.nat(agentIds.length - 1),
      instance: fc.constantFrom(undefined, 'default', 'second'),
    }),
    fc.record({ kind: fc.constant('wait' as const), ms: fc.integer({ min: 0, max: 40_000 }) }),
    fc.record({ kind: fc.constant('health check' as const) }),
  );

  it('after any sequence of changes, the cached answer equals a fresh storage read', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(operation, { minLength: 1, maxLength: 25 }), async (operations) => {
        const cp = await testControlPlane();
        try {
          await cp.get(API);
          for (const op of operations) {
            if (op.kind === 'register') {
              const capability = (n: number) => ({ id: `cap_${n}_v${op.version}`, tags: [`t${n % 2}`] });
              await cp.register({
                agent_id: agentIds[op.agent],
                base_url: `http://${agentIds[op.agent]}:8080`,
                version: `1.${op.version}.0`,
                instance_id: op.instance,
                ...(op.queue ? { task_queue: `queue-${op.agent}` } : {}),
                ...(op.reported ? { health_status: op.reported } : {}),
                reasoners: Array.from({ length: op.capabilities }, (_, n) => capability(n)),
                skills: op.capabilities > 1 ? [capability(9)] : [],
              });
            } else if (op.kind === 'beat') {
              await cp.app.inject({
                method: 'POST',
                url: `/api/v1/agents/${agentIds[op.agent]}/heartbeat`,
                payload: { instance_id: op.instance, ...(op.reported ? { health_status: op.reported } : {}) },
              });
            } else if (op.kind === 'deregister') {
              await cp.app.inject({
                method: 'DELETE',
                url: `/api/v1/agents/${agentIds[op.agent]}${op.instance ? `?instance_id=${op.instance}` : ''}`,
              });
            } else if (op.kind === 'wait') cp.clock.advance(op.ms);
            else await cp.registry.checkHealth();
            await cp.get(API);
          }
          // Past the TTL: the cache revalidates (health and heartbeat times derived again) without
          // a read, since every change went through this process.
          cp.clock.advance(30_001);
          const reads = cp.store.reads;
          const cached = await cp.get(`${API}?include_input_schema=true&include_examples=true&limit=500`);
          expect(cp.store.reads).toBe(reads);
          cp.registry.cache.invalidate();
          const fresh = await cp.get(`${API}?include_input_schema=true&include_examples=true&limit=500`);
          expect(cp.store.reads).toBe(reads + 1);
          expect(cached.json).toEqual(fresh.json);
        } finally {
          await cp.close();
        }
      }),
      { numRuns: 40, seed: 20261126 },
    );
  });
});
