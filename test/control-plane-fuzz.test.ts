/**
 * Property and fuzz tests for discovery: random query strings never produce a 500 (only 200 or
 * a 400 naming a parameter); results agree with an independent oracle of the filter rules;
 * pages concatenate to the whole result; the glob matcher agrees with a regular expression.
 */
import fc from 'fast-check';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentRegistrationInput } from '../contracts/capabilities';
import { compileGlob } from '../server/glob';
import { DISCOVERY_PARAMETERS } from '../server/query-params';
import { syntheticAgent } from '../bench/synthetic-agents';
import { testControlPlane, type TestControlPlane } from './control-plane-fixtures';

const API = '/api/v1/discovery/capabilities';
const AGENTS = 40;

/** The filter rules written out plainly over the registered manifests. */
function oracle(
  agents: AgentRegistrationInput[],
  f: { reasoner?: string; skill?: string; tags: string[]; agentIds: string[] },
) {
  const glob = (pattern: string) =>
    new RegExp(
      `^${pattern
        .split('*')
        .map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
        .join('.*')}$`,
      's',
    );
  const tagOk = (tags: string[]) => f.tags.length === 0 || tags.some((t) => f.tags.some((p) => glob(p).test(t)));
  return agents
    .filter((a) => f.agentIds.length === 0 || f.agentIds.includes(a.agent_id))
    .map((a) => ({
      agent_id: a.agent_id,
      reasoners: (a.reasoners ?? [])
        .filter((r) => (!f.reasoner || glob(f.reasoner).test(r.id)) && tagOk(r.tags ?? []))
        .map((r) => r.id),
      skills: (a.skills ?? [])
        .filter((s) => (!f.skill || glob(f.skill).test(s.id)) && tagOk(s.tags ?? []))
        .map((s) => s.id),
    }))
    .filter((a) => a.reasoners.length + a.skills.length > 0)
    .sort((x, y) => (x.agent_id < y.agent_id ? -1 : 1));
}

describe('discovery under random input', () => {
  let cp: TestControlPlane;
  const manifests: AgentRegistrationInput[] = [];
  beforeAll(async () => {
    cp = await testControlPlane({ logLevel: 'silent' });
    for (let i = 1; i <= AGENTS; i++) {
      const m = syntheticAgent(i, { capabilities: 6 });
      if (i === 3)
        m.reasoners![0].description = 'Text with <xml> & "quotes", a \u0001 control char and a \ud83e\udd16 robot';
      manifests.push(m);
      expect((await cp.register(m)).status).toBe(201);
    }
  });
  afterAll(async () => cp?.close());

  const interesting = [
    '',
    ' ',
    'true',
    'FALSE',
    'yes',
    'no',
    '0',
    '1',
    '2',
    '-1',
    '500',
    '501',
    '1e3',
    '007',
    ' 5 ',
    'json',
    'xml',
    'compact',
    'yaml',
    'active',
    'unknown',
    '*',
    '**',
    'ml*',
    '*research*',
    'a,b,,c',
    ',',
    'agent-0001',
    'agent-0001,agent-0002',
    '%',
    '%zz',
    '%E0%A4%A',
    '%00',
    '%FF',
    '\u00e9',
    '\ud800',
    '__proto__',
    'a'.repeat(300),
  ];
  const key = fc.oneof(
    fc.constantFrom(...DISCOVERY_PARAMETERS),
    fc.constantFrom('foo', '__proto__', 'constructor', 'toString', '', 'Format', 'limit[]', 'a.b'),
    fc.string({ maxLength: 12 }),
  );
  const value = fc.oneof(
    fc.constantFrom(...interesting),
    fc.string({ maxLength: 40 }),
    fc.string({ unit: 'binary', maxLength: 20 }),
  );
  const encode = (text: string, raw: boolean) => {
    if (raw) return text.replace(/[&#]/g, encodeURIComponent);
    try {
      return encodeURIComponent(text);
    } catch {
      return text.replace(/[&#]/g, encodeURIComponent); // lone surrogates cannot be percent-encoded: send them raw
    }
  };
  const pair = fc
    .tuple(key, value, fc.boolean(), fc.boolean())
    .map(([k, v, raw, bare]) => (bare ? encode(k, raw) : `${encode(k, raw)}=${encode(v, raw)}`));
  const structured = fc.array(pair, { maxLength: 6 }).map((pairs) => pairs.join('&'));
  const chaotic = fc.string({ unit: fc.constantFrom(...'abz019*,=&%+;?/ _-.:\u00e9\u0000'.split('')), maxLength: 60 });

  it('never answers 500 to any query string; 400 always names a parameter', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(structured, chaotic), async (qs) => {
        const res = await cp.app.inject({ method: 'GET', url: `${API}?${qs}` });
        expect([200, 400]).toContain(res.statusCode);
        if (res.statusCode === 400) {
          const body = JSON.parse(res.body);
          expect(body.error).toBe('invalid_parameter');
          expect(typeof body.details.parameter).toBe('string');
          expect(typeof body.message).toBe('string');
        } else if (String(res.headers['content-type']).startsWith('application/xml')) {
          expect(XMLValidator.validate(res.body)).toBe(true);
        } else {
          expect(() => JSON.parse(res.body)).not.toThrow();
        }
      }),
      { numRuns: 400 },
    );
  });

  it('agrees with an independent statement of the filter rules', async () => {
    const tag = fc.constantFrom('ml', 'ml*', '*ops', 'research', 'web', 'v*', '*a*', 'nothing');
    const idPattern = fc.constantFrom('deep_*', '*research*', '*_1', 'web_search_0', '*', 'x*');
    const agentId = fc.integer({ min: 1, max: AGENTS + 3 }).map((i) => `agent-${String(i).padStart(4, '0')}`);
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          reasoner: fc.option(idPattern, { nil: undefined }),
          skill: fc.option(idPattern, { nil: undefined }),
          tags: fc.uniqueArray(tag, { maxLength: 3 }),
          agentIds: fc.uniqueArray(agentId, { maxLength: 4 }),
        }),
        async (f) => {
          const params = new URLSearchParams({ limit: '500' });
          if (f.reasoner) params.set('reasoner', f.reasoner);
          if (f.skill) params.set('skill', f.skill);
          if (f.tags.length) params.set('tags', f.tags.join(','));
          if (f.agentIds.length) params.set('agent_ids', f.agentIds.join(','));
          const body = JSON.parse((await cp.app.inject({ url: `${API}?${params}` })).body);
          const expected = oracle(manifests, f);
          const actual = body.capabilities.map((a: any) => ({
            agent_id: a.agent_id,
            reasoners: a.reasoners.map((r: any) => r.id),
            skills: a.skills.map((s: any) => s.id),
          }));
          expect(actual).toEqual(expected);
          expect(body.total_agents).toBe(expected.length);
          expect(body.total_reasoners).toBe(expected.reduce((n, a) => n + a.reasoners.length, 0));
          expect(body.total_skills).toBe(expected.reduce((n, a) => n + a.skills.length, 0));
        },
      ),
      { numRuns: 150 },
    );
  });

  it('pages concatenate to the whole result with constant totals (json and compact)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 9 }),
        fc.constantFrom('', 'tags=ml*', 'reasoner=*research*', 'health_status=active'),
        async (limit, filter) => {
          const all = JSON.parse((await cp.app.inject({ url: `${API}?limit=500&${filter}` })).body);
          const seen: string[] = [];
          const compactTargets: string[] = [];
          for (let offset = 0; offset <= all.total_agents; offset += limit) {
            const page = JSON.parse(
              (await cp.app.inject({ url: `${API}?limit=${limit}&offset=${offset}&${filter}` })).body,
            );
            expect(page.total_agents).toBe(all.total_agents);
            expect(page.total_reasoners).toBe(all.total_reasoners);
            expect(page.pagination.has_more).toBe(offset + limit < all.total_agents);
            seen.push(...page.capabilities.map((a: any) => a.agent_id));
            const compact = JSON.parse(
              (await cp.app.inject({ url: `${API}?format=compact&limit=${limit}&offset=${offset}&${filter}` })).body,
            );
            compactTargets.push(...compact.reasoners.map((r: any) => r.target));
          }
          expect(seen).toEqual(all.capabilities.map((a: any) => a.agent_id));
          expect(compactTargets).toEqual(
            all.capabilities.flatMap((a: any) => a.reasoners.map((r: any) => r.invocation_target)),
          );
        },
      ),
      { numRuns: 25 },
    );
  });

  it('keeps XML well-formed and faithful for arbitrary descriptions', async () => {
    const res = await cp.app.inject({
      url: `${API}?format=xml&agent=agent-0003&include_input_schema=true&include_examples=true`,
    });
    expect(XMLValidator.validate(res.body)).toBe(true);
    const doc = new XMLParser({ ignoreAttributes: false, isArray: (n) => n === 'reasoner' }).parse(res.body);
    // The control character cannot be carried by XML 1.0 and is dropped; everything else survives.
    expect(doc.discovery.capabilities.agent.reasoners.reasoner[0].description).toBe(
      'Text with <xml> & "quotes", a  control char and a \ud83e\udd16 robot',
    );
  });
});

describe('glob matcher', () => {
  it('agrees with an anchored regular expression where * is the only wildcard', () => {
    const alphabet = fc.constantFrom('a', 'b', '*', '.', '?', '_');
    fc.assert(
      fc.property(
        fc.string({ unit: alphabet, maxLength: 8 }),
        fc.string({ unit: fc.constantFrom('a', 'b', '.', '?', '_', '*'), maxLength: 10 }),
        (pattern, value) => {
          const regex = new RegExp(
            `^${pattern
              .split('*')
              .map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
              .join('.*')}$`,
            's',
          );
          expect(compileGlob(pattern)(value)).toBe(pattern === '' ? true : regex.test(value));
        },
      ),
      { numRuns: 2000 },
    );
  });
});
