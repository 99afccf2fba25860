/**
 * answerBomQuestion on the real Temporal dev server with the embedded backends (DuckDB bom_demo,
 * the embedded search index, the model stand-in): every path of the original design, made durable.
 */
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BackendError } from '../backends/errors';
import type { SearchBackend } from '../backends/search/types';
import { bomQuestionFlow, type PipelineState, pipelineStateQuery } from '../flows/bom/contract';
import { isStopWord } from '../domain/bom-text';
import { loadStandinRules } from '../flows/registry';
import type { StandinRule } from '../flows/lib/standin';
import { createHarness, recordHistory, type Harness } from './helpers/harness';
import { progressQuery } from '../contracts/progress-messages';

const allRules = await loadStandinRules();

describe('answerBomQuestion on the embedded backends', () => {
  let h: Harness;
  /** Switches the search backend to "returns nothing" or "is down" for the RAG tests. */
  const searchSwitch = { mode: 'normal' as 'normal' | 'empty' | 'down' };

  beforeAll(async () => {
    h = await createHarness({
      backends: (b) => {
        const search: SearchBackend = {
          name: b.search.name,
          search: (request) => {
            if (searchSwitch.mode === 'down')
              return Promise.reject(
                new BackendError('search unavailable (injected)', {
                  backend: 'search',
                  retryable: true,
                  type: 'SearchUnavailable',
                  status: 503,
                }),
              );
            return searchSwitch.mode === 'empty'
              ? Promise.resolve({ hits: [], totalSize: 0 })
              : b.search.search(request);
          },
        };
        return { ...b, search };
      },
    });
  });
  afterAll(async () => h?.close());
  afterEach(() => {
    searchSwitch.mode = 'normal';
    h.standin.setFaults({});
  });

  const executedSince = (mark: number) => h.backends.warehouse.executed.slice(mark);

  it('answers the first example question: "battery" exactly (BATTERIES), "memory" by regex, in one query', async () => {
    const mark = h.backends.warehouse.executed.length;
    const handle = await h.start(bomQuestionFlow, { question: 'List BOMs using battery or memory components' });
    const out = await handle.result();
    const s = out.pipeline_state;

    expect(out.outcome).toBe('answered');
    expect(s.focus_terms).toEqual(['battery', 'memory']);
    expect(s.search_terms).toEqual(['battery', 'memory']);
    expect(s.schema_hints).toContain('item_master.category');
    expect(s.domain_terms.battery).toBe('item_master.category (BATTERIES)');
    expect(s.tables).toEqual(['bom_details', 'item_master']);
    expect(s.candidate_columns).toEqual(['item_master.category', 'item_master.item_description']);
    // The distractor tables are in INFORMATION_SCHEMA but never searched.
    expect(s.ignored_columns).toContain('supplier_catalog.supplier_name');
    // Grounding shows "battery" is a category value and "memory" only a word of values: each is
    // searched with the strictest strategy that can match it, both in the first query.
    expect(s.concepts).toEqual([
      { term: 'battery', asked: 'battery', strategy: 1, columns: ['item_master.category'], example: 'BATTERIES' },
      {
        term: 'memory',
        asked: 'memory',
        strategy: 2,
        columns: ['item_master.item_description', 'item_master.category'],
        example: expect.any(String),
      },
    ]);
    expect(s.missing_terms).toEqual([]);
    expect(s.match).toBe('any');
    expect(s.attempts_log).toEqual(['Strategy 1: exact match - 150 rows (SUCCESS; "memory" by plural/singular regex)']);
    expect(s.strategy).toBe(1);
    expect(s.found_results).toBe(true);
    expect(s.rows).toHaveLength(100);
    expect(s.total_rows).toBe(150);
    expect(s.chosen_params).toEqual({ terms_0: ['battery', 'batteries'], pattern_1: '(?i)\\b(memory|memories)\\b' });
    expect(s.chosen_sql).toBe(s.sql);
    expect(s.chosen_sql).toMatch(/LIMIT 100$/);
    expect(s.reuse).toMatchObject({ checked: true, matched: false });
    expect(s.fallbacks).toEqual([]);

    // The original design's answer shape: the explainer's summary, BOM lines, then the exact SQL
    // and its parameters (the summary's wording is the model's; the flow adds the rest).
    const [summary, blank, firstRow] = out.final_answer.split('\n');
    expect(summary.length).toBeGreaterThan(0);
    expect(blank).toBe('');
    expect(firstRow).toMatch(/^- SA-\d+: .+ \(\d+ matching components?, e\.g\. .+\)$/);
    expect(out.final_answer).toContain('- SA-2003: Battery module for Smart Thermostat');
    expect(out.final_answer).toContain('```sql\nSELECT');
    expect(out.final_answer).toContain(s.chosen_sql!);
    expect(out.final_answer).toContain('Parameters: {"terms_0":');
    expect(out.usage.calls).toBe(2);
    expect(out.usage.totalTokens).toBeGreaterThan(0);
    expect(out.usage.totalTokens).toBeLessThanOrEqual(1500);

    // What reached the warehouse: parameterized statements, user terms only in parameters.
    const strategies = executedSince(mark).filter((q) => q.label?.startsWith('bom-strategy-'));
    expect(strategies.map((q) => q.label)).toEqual(['bom-strategy-1']);
    expect(strategies[0].params).toEqual(s.chosen_params);
    expect(strategies[0].sql).toContain('list_contains($terms_0, LOWER(c."category"))');
    expect(strategies[0].sql).toContain('regexp_matches(c."item_description", $pattern_1)');
    for (const q of strategies) expect(q.sql).not.toMatch(/battery|memory/i);

    expect(handle.workflowId).toMatch(/^bom-question-list-boms-using-battery-or-[0-9a-f]{6}$/);
    expect(await handle.query(pipelineStateQuery)).toEqual(s);
    expect(await handle.query(progressQuery)).toMatchObject({
      flow: 'answerBomQuestion',
      status: 'completed',
      stage: 'done',
    });
    await recordHistory(handle, 'bom-question-grounded-mixed');
  });

  it('answers with strategy 1 (exact match) and RAG off: no schema search, columns by sampling', async () => {
    const before = h.standin.stats();
    const handle = await h.start(bomQuestionFlow, {
      question: 'Which BOMs use capacitor components?',
      ragEnabled: false,
    });
    const out = await handle.result();
    const s = out.pipeline_state;
    expect(out.outcome).toBe('answered');
    expect(s.rag_enabled).toBe(false);
    expect(s.schema_hints).toEqual([]);
    expect(s.domain_terms).toEqual({});
    expect(s.reuse.checked).toBe(false);
    expect(s.candidate_columns).toEqual(['item_master.item_description', 'item_master.category']);
    expect(s.attempts_log).toEqual(['Strategy 1: exact match - 350 rows (SUCCESS)']);
    expect(s.strategy).toBe(1);
    expect(s.chosen_params).toEqual({ terms: ['capacitor', 'capacitors'] });
    expect(s.total_rows).toBe(350);
    const after = h.standin.stats();
    expect((after.byTask['bom.focus_terms'] ?? 0) - (before.byTask['bom.focus_terms'] ?? 0)).toBe(1);
    await recordHistory(handle, 'bom-question-grounded-exact-rag-off');
  });

  it('answers with strategy 3 (substring) when the term only appears inside words (eFuse, polyfuse)', async () => {
    const handle = await h.start(bomQuestionFlow, { question: 'Which BOMs use fuse components?' });
    const out = await handle.result();
    const s = out.pipeline_state;
    // The vocabulary holds "fuse" only inside words: the stricter strategies are skipped, and said so.
    expect(s.attempts_log).toEqual([
      'Strategy 1: exact match - skipped (no value matches "fuse" this way)',
      'Strategy 2: plural/singular regex - skipped (no value matches "fuse" this way)',
      'Strategy 3: substring contains - 115 rows (SUCCESS)',
    ]);
    expect(
      h.backends.warehouse.executed.filter((q) => q.label?.startsWith('bom-strategy-') && q.params?.term_0 === 'fuse')
        .length,
    ).toBeGreaterThan(0);
    expect(s.strategy).toBe(3);
    expect(s.chosen_params).toEqual({ term_0: 'fuse' });
    expect(s.rows.every((r) => /fuse/i.test(String(r.example_component)))).toBe(true);
    expect(out.final_answer).toContain('SQL used (strategy 3: substring contains)');
    await recordHistory(handle, 'bom-question-grounded-substring');
  });

  it('answers "no such part" without running SQL when a phrase matches nothing, offering the nearest parts by meaning', async () => {
    const mark = h.backends.warehouse.executed.length;
    const handle = await h.start(bomQuestionFlow, { question: 'Which BOMs use hydraulic valves?' });
    const out = await handle.result();
    const s = out.pipeline_state;
    expect(out.outcome).toBe('no_results');
    expect(s.missing_terms).toEqual(['hydraulic valves']);
    expect(s.attempts_log).toEqual([]);
    expect(s.found_results).toBe(false);
    expect(s.rows).toEqual([]);
    // Nearest by meaning, first among the options: not the columns' most frequent values.
    const nearest = s.suggestions['closest parts to "hydraulic valves"'];
    expect(nearest.length).toBeGreaterThan(0);
    expect(Object.keys(s.suggestions)[0]).toBe('closest parts to "hydraulic valves"');
    expect(nearest).not.toEqual(s.suggestions['item_master.category']);
    expect(s.not_understood?.['hydraulic valves']).toEqual(['hydraulic', 'valves']);
    expect(out.final_answer).toMatch(/^No results found: no part in the BOM tables matches "hydraulic valves"\./);
    expect(out.final_answer).toContain(`- instead of "hydraulic valves": ${nearest.join(', ')}`);
    expect(executedSince(mark).filter((q) => q.label?.startsWith('bom-strategy-'))).toEqual([]);
    // No rows, nothing to explain: only the focus-term call was made.
    expect(out.usage.calls).toBe(1);
    await recordHistory(handle, 'bom-question-no-such-part');
  });

  it(
    'does not drop a qualifier that matches nothing: "unobtainium flux capacitors" is ' +
      'no part, with the closest real ones',
    async () => {
      const out = await h.run(bomQuestionFlow, {
        question: 'Which BOMs use unobtainium flux capacitors?',
      });
      const s = out.pipeline_state;
      expect(out.outcome).toBe('no_results');
      expect(s.total_rows).toBe(0);
      expect(s.missing_terms).toEqual(['unobtainium flux capacitors']);
      expect(s.suggestions['closest parts to "unobtainium flux capacitors"']).toEqual(
        expect.arrayContaining(['Tantalum capacitor', 'Ceramic capacitor', 'Electrolytic capacitor']),
      );
      // "capacitors" is a kind the data has: the offer is its parts, and the answer says so.
      expect(out.final_answer).toContain('- the capacitors in the data (for "unobtainium flux capacitors"): ');
      expect(out.final_answer).toContain('Not understood: "unobtainium", "flux" in "unobtainium flux capacitors".');
    },
  );

  it('matches a multi-word part as one phrase: OLED displays are not every display module', async () => {
    const handle = await h.start(bomQuestionFlow, { question: 'Where are OLED displays used?' });
    const out = await handle.result();
    const s = out.pipeline_state;
    expect(s.search_terms).toEqual(['oled displays']);
    expect(s.attempts_log).toEqual([
      'Strategy 1: exact match - skipped (no value matches "oled displays" this way)',
      'Strategy 2: plural/singular regex - 32 rows (SUCCESS)',
    ]);
    expect(s.chosen_params).toEqual({ pattern: '(?i)\\b((?:oled|oleds)[\\s_-]+(?:displays|display))\\b' });
    expect(s.total_rows).toBe(32);
    expect(s.rows.every((r) => /^OLED display/.test(String(r.example_component)))).toBe(true);
    await recordHistory(handle, 'bom-question-grounded-phrase');

    const current = await h.run(bomQuestionFlow, {
      question: 'Which boards use current sense resistors?',
    });
    expect(current.pipeline_state.search_terms).toEqual(['current sense resistors']);
    expect(current.pipeline_state.total_rows).toBe(232);
    const typo = await h.run(bomQuestionFlow, { question: 'Where are tantallum capacitors used?' });
    expect(typo.pipeline_state.concepts[0]).toMatchObject({
      asked: 'tantallum capacitors',
      term: 'tantalum capacitors',
      strategy: 2,
    });
    expect(typo.pipeline_state.total_rows).toBe(240);
  });

  it('"A and B" needs both on one BOM; a missing phrase in "and" means no answer', async () => {
    const handle = await h.start(bomQuestionFlow, { question: 'Which BOMs contain both an EEPROM and a crystal?' });
    const out = await handle.result();
    expect(out.pipeline_state.match).toBe('all');
    expect(out.pipeline_state.total_rows).toBe(27);
    expect(out.pipeline_state.chosen_sql).toContain('HAVING MAX(CASE WHEN');
    await recordHistory(handle, 'bom-question-grounded-and');
    const missing = await h.run(bomQuestionFlow, {
      question: 'Which BOMs contain an EEPROM and a flux capacitor?',
    });
    expect(missing.outcome).toBe('no_results');
    expect(missing.pipeline_state.missing_terms).toEqual(['flux capacitor']);
    expect(missing.final_answer).toContain('"eeprom" alone would match');
  });

  it('answers an indented where-used: the finished goods that contain a part through their subassemblies', async () => {
    const handle = await h.start(bomQuestionFlow, {
      question: 'Which finished goods ultimately contain an OLED display?',
    });
    const out = await handle.result();
    const s = out.pipeline_state;
    expect(s.scope).toBe('top_level');
    expect(s.parent_kind).toBe('finished goods (item_master.item_type)');
    expect(s.chosen_sql).toMatch(/^WITH RECURSIVE matched AS/);
    expect(s.total_rows).toBe(64);
    expect(s.rows.every((r) => String(r.parent_item_number).startsWith('FG-') && r.levels === 2)).toBe(true);
    expect(out.final_answer).toContain(
      'SQL used (strategy 2: plural/singular regex, top-level items through every BOM level)',
    );
    await recordHistory(handle, 'bom-question-indented-where-used');
  });

  /** Every id the answer's SQL selects (its LIMIT lifted), as the evaluation counts them. */
  async function answeredIds(out: { pipeline_state: PipelineState }): Promise<string[]> {
    const s = out.pipeline_state;
    if (!s.chosen_sql) return [];
    const arrayTypes: Record<string, 'STRING'> = {};
    for (const [name, value] of Object.entries(s.chosen_params)) if (Array.isArray(value)) arrayTypes[name] = 'STRING';
    const { rows } = await h.backends.warehouse.query({
      sql: s.chosen_sql.replace(/LIMIT 100$/, 'LIMIT 100000'),
      params: s.chosen_params as never,
      arrayTypes,
    });
    return rows.map((r) => String(r.parent_item_number)).sort();
  }
  const truth = async (sql: string) => (await h.backends.warehouse.query({ sql })).rows.map((r) => String(r.id)).sort();
  const LINES = `FROM bom_demo.bom_details bd JOIN bom_demo.item_master c ON c.item_number = bd.component_item_number WHERE bd.is_active`;
  /** The finished goods with a matching part at any level (the demo BOMs have two levels). */
  const finishedWith = (cond: string) =>
    truth(`SELECT DISTINCT f.item_number AS id FROM bom_demo.item_master f
      JOIN bom_demo.bom_details l1 ON l1.parent_item_number = f.item_number AND l1.is_active
      LEFT JOIN bom_demo.bom_details l2 ON l2.parent_item_number = l1.component_item_number AND l2.is_active
      JOIN bom_demo.item_master c ON c.item_number = l1.component_item_number OR c.item_number = l2.component_item_number
      WHERE f.item_type = 'FINISHED_GOOD' AND (${cond})`);

  it('answers "X but no Y" as a set difference and says what it left out', async () => {
    const handle = await h.start(bomQuestionFlow, {
      question: 'Which assemblies have an ambient light sensor but no NTC thermistor?',
    });
    const out = await handle.result();
    const s = out.pipeline_state;
    expect(out.outcome).toBe('answered');
    expect(s.search_terms).toEqual(['ambient light sensor']);
    expect(s.concepts.find((c) => c.exclude)).toMatchObject({ asked: 'ntc thermistor', exclude: 'bom' });
    expect(s.chosen_sql).toMatch(/= 0/);
    const expected = await truth(`SELECT bd.parent_item_number AS id ${LINES} GROUP BY 1
      HAVING bool_or(c.item_description ILIKE 'ambient light sensor%') AND NOT bool_or(c.item_description ILIKE 'ntc thermistor%')`);
    expect(expected.length).toBeGreaterThan(0);
    expect(await answeredIds(out)).toEqual(expected);
    expect(out.final_answer).toContain('Left out: the BOMs that also use "ntc thermistor".');
    await recordHistory(handle, 'bom-question-exclusion');
  });

  it('reduces a scene to its part and answers "products" through every level, frame words never missing', async () => {
    const handle = await h.start(bomQuestionFlow, {
      question: 'If the LTE flex antenna went end of life, which products would be affected?',
    });
    const out = await handle.result();
    const s = out.pipeline_state;
    expect(out.outcome).toBe('answered');
    expect(s.missing_terms).toEqual([]);
    expect(s.search_terms).toEqual(['lte flex antenna']);
    expect(s.scope).toBe('top_level');
    expect(s.parent_kind).toMatch(/^products? \(item_master\.(category|item_type)\)$/);
    expect(await answeredIds(out)).toEqual(await finishedWith("c.item_description ILIKE 'lte flex antenna%'"));
    await recordHistory(handle, 'bom-question-scene-products');

    // The same scene with a part the data does not hold: that part is missing, not the frame.
    const absent = await h.run(bomQuestionFlow, {
      question: 'If our supplier of stepper drivers went bust, which products would be affected?',
    });
    expect(absent.outcome).toBe('no_results');
    expect(absent.pipeline_state.missing_terms).toEqual(['stepper drivers']);
    expect(absent.final_answer).not.toMatch(/would be|affected|went bust/);
    expect(absent.pipeline_state.suggestions['closest parts to "stepper drivers"']).toContain('Stepper motor');
  });

  it('grounds a generic head by its qualifier and a synonym by meaning, against the warehouse values', async () => {
    const chips = await h.run(bomQuestionFlow, { question: 'Which assemblies carry oscillator chips?' });
    expect(chips.pipeline_state.concepts[0]).toMatchObject({ asked: 'oscillator chips', via: 'qualifier' });
    expect(await answeredIds(chips)).toEqual(
      await truth(`SELECT DISTINCT bd.parent_item_number AS id ${LINES} AND c.category = 'OSCILLATOR'`),
    );
    const screen = await h.run(bomQuestionFlow, { question: 'Which finished goods have a screen?' });
    expect(screen.pipeline_state.concepts[0]).toMatchObject({ asked: 'screen', via: 'meaning' });
    expect(await answeredIds(screen)).toEqual(await finishedWith("c.category = 'DISPLAY'"));
  });

  it('stops after maxStrategies and points to the documented value of the term', async () => {
    const out = await h.run(bomQuestionFlow, {
      question: 'Which BOMs use fuse components?',
      maxStrategies: 2,
    });
    expect(out.outcome).toBe('no_results');
    expect(out.pipeline_state.attempts_log).toHaveLength(2);
    expect(out.final_answer).toContain('"fuse" is documented as item_master.category (CIRCUIT_PROTECTION)');
  });

  it('ends with "No matching columns" and the reason when the dataset has no BOM tables', async () => {
    const handle = await h.start(bomQuestionFlow, {
      question: 'Which BOMs use battery components?',
      dataset: 'platform_demo',
    });
    const out = await handle.result();
    expect(out.outcome).toBe('no_matching_columns');
    expect(out.final_answer).toMatch(
      /^No matching columns: dataset platform_demo has no BOM tables: missing bom_details\.parent_item_number/,
    );
    expect(out.pipeline_state.reason).toContain('tables found: components');
    expect(out.pipeline_state.attempts_log).toEqual([]);
    expect(out.pipeline_state.sql).toBeNull();
    await recordHistory(handle, 'bom-question-no-matching-columns');

    const unknown = await h.run(bomQuestionFlow, {
      question: 'Which BOMs use battery components?',
      dataset: 'no_such_dataset',
      ragEnabled: false,
    });
    expect(unknown.final_answer).toBe(
      'No matching columns: dataset no_such_dataset has no tables (INFORMATION_SCHEMA lists no columns).',
    );
    const nothing = await h.run(bomQuestionFlow, {
      question: 'List all the BOMs please',
      ragEnabled: false,
    });
    expect(nothing.outcome).toBe('no_matching_columns');
    expect(nothing.pipeline_state.reason).toContain('names nothing to search for');
  });

  it('finds the same answer with RAG on (schema hints) and off (value sampling)', async () => {
    const question = 'Which BOMs use obsolete components?';
    const on = await h.run(bomQuestionFlow, { question, ragEnabled: true });
    const off = await h.run(bomQuestionFlow, { question, ragEnabled: false });
    expect(on.pipeline_state.schema_hints).toEqual(['item_master.lifecycle_status']);
    expect(on.pipeline_state.domain_terms).toEqual({ obsolete: 'item_master.lifecycle_status (OBSOLETE)' });
    expect(off.pipeline_state.schema_hints).toEqual([]);
    for (const out of [on, off]) {
      expect(out.pipeline_state.candidate_columns).toContain('item_master.lifecycle_status');
      expect(out.pipeline_state.strategy).toBe(1);
      expect(out.pipeline_state.total_rows).toBe(257);
    }
  });

  it('continues with defaults when the schema search returns nothing', async () => {
    searchSwitch.mode = 'empty';
    const handle = await h.start(bomQuestionFlow, { question: 'List BOMs using battery or memory components' });
    const out = await handle.result();
    const s = out.pipeline_state;
    expect(s.reuse).toMatchObject({ checked: true, matched: false, pattern_id: null });
    expect(s.schema_hints).toEqual([]);
    expect(s.domain_terms).toEqual({});
    expect(s.fallbacks).toEqual([]);
    expect(s.candidate_columns).toEqual(
      expect.arrayContaining(['item_master.category', 'item_master.item_description']),
    );
    expect(s.strategy).toBe(1);
    expect(s.total_rows).toBe(150);
    await recordHistory(handle, 'bom-question-grounded-rag-empty');
  });

  it('continues with defaults when the search backend is down after its retries', async () => {
    searchSwitch.mode = 'down';
    const out = await h.run(bomQuestionFlow, { question: 'Which BOMs use LEDs?' });
    expect(out.pipeline_state.reuse.checked).toBe(false);
    expect(out.pipeline_state.fallbacks).toEqual(['schema_search']);
    expect(out.pipeline_state.schema_hints).toEqual([]);
    expect(out.outcome).toBe('answered');
    expect(out.pipeline_state.strategy).toBe(1);
    expect(out.pipeline_state.total_rows).toBe(98);
  });

  it('still answers when the model fails through its retries (deterministic fallbacks)', async () => {
    h.standin.setFaults({ rate503: 1, tasks: ['bom.'] });
    const before = h.standin.stats();
    const handle = await h.start(bomQuestionFlow, { question: 'List BOMs using battery or memory components' });
    const out = await handle.result();
    const after = h.standin.stats();
    expect(out.outcome).toBe('answered');
    expect(out.pipeline_state.fallbacks).toEqual(['focus_terms', 'explain']);
    expect(out.pipeline_state.focus_terms).toEqual(['battery', 'memory']);
    expect(out.pipeline_state.strategy).toBe(1);
    expect(out.final_answer).toMatch(/^Found 150 result\(s\) for battery or memory \(showing the first 100\)/);
    expect(out.usage.totalTokens).toBe(0);
    // Three attempts per model step (the workflow's retry policy), then the fallback.
    expect((after.byTask['bom.focus_terms'] ?? 0) - (before.byTask['bom.focus_terms'] ?? 0)).toBe(3);
    expect((after.byTask['bom.explain'] ?? 0) - (before.byTask['bom.explain'] ?? 0)).toBe(3);
    await recordHistory(handle, 'bom-question-grounded-model-fallback');
  });

  it('reuses a validated query pattern above the similarity threshold, skipping SQL building', async () => {
    const before = h.standin.stats();
    const mark = h.backends.warehouse.executed.length;
    const handle = await h.start(bomQuestionFlow, { question: 'Where is part CMP-000023 used?' });
    const out = await handle.result();
    const s = out.pipeline_state;
    expect(s.reuse).toEqual({
      checked: true,
      matched: true,
      pattern_id: 'where-used',
      similarity: 1,
      threshold: 0.85,
      params: { item: 'CMP-000023' },
    });
    expect(s.strategy).toBe(0);
    expect(s.attempts_log).toEqual(['Reuse: pattern where-used (similarity 1) - 3 rows']);
    expect(s.candidate_columns).toEqual([]);
    expect(s.chosen_params).toEqual({ item: 'CMP-000023' });
    expect(s.rows.map((r) => r.parent_item_number)).toEqual(['SA-2035', 'SA-2203', 'SA-2219']);
    expect(out.final_answer).toContain('- SA-2035: Battery module for Infusion Pump (qty 1, BT7)');
    // No focus-term call, no INFORMATION_SCHEMA sampling: one explainer call and one query (+ the allow-list).
    const after = h.standin.stats();
    expect((after.byTask['bom.focus_terms'] ?? 0) - (before.byTask['bom.focus_terms'] ?? 0)).toBe(0);
    expect(out.usage.calls).toBe(1);
    expect(executedSince(mark).filter((q) => q.label === 'sample-distinct')).toEqual([]);
    await recordHistory(handle, 'bom-question-query-reuse');

    // A reused query that finds nothing falls through to the ladder.
    const miss = await h.run(bomQuestionFlow, { question: 'Where is part CMP-999999 used?' });
    expect(miss.pipeline_state.attempts_log[0]).toBe('Reuse: pattern where-used (similarity 1) - 0 rows');
    expect(miss.pipeline_state.attempts_log).toHaveLength(5);
    expect(miss.outcome).toBe('no_results');
  });

  it('shows the pipeline state while the flow runs', async () => {
    h.standin.setFaults({ latencyMs: 1500 });
    const handle = await h.start(bomQuestionFlow, { question: 'Which BOMs use sensor components?' });
    let seen: PipelineState | undefined;
    for (let i = 0; i < 100 && !seen; i++) {
      const s = await handle.query(pipelineStateQuery).catch(() => undefined);
      if (s?.stage === 'explainer') seen = s;
      else await new Promise((r) => setTimeout(r, 100));
    }
    expect(seen).toMatchObject({ stage: 'explainer', found_results: true, strategy: 1 });
    expect((await handle.result()).pipeline_state.stage).toBe('done');
  });

  it('fails fast and non-retryably on bad input, naming each field', async () => {
    const handle = await h.client.workflow.start('answerBomQuestion', {
      taskQueue: h.taskQueue,
      workflowId: `bom-bad-${Date.now()}`,
      args: [{ question: '', maxStrategies: 4, dataset: 'x; DROP TABLE y' }],
    });
    const error = await handle.result().catch((e) => e);
    expect(error).toBeInstanceOf(WorkflowFailedError);
    const cause = (error as WorkflowFailedError).cause as ApplicationFailure;
    expect(cause.type).toBe('InvalidInput');
    expect(cause.nonRetryable).toBe(true);
    for (const field of ['question', 'maxStrategies', 'dataset']) expect(cause.message).toContain(field);
    await recordHistory(handle, 'bom-question-invalid-input');
    await expect(h.start(bomQuestionFlow, { question: 'Which BOMs use LEDs?', extra: true })).rejects.toThrow(
      /Unrecognized key/,
    );
  });
});

describe('answerBomQuestion: the model path is grounded like the fallback', () => {
  let h: Harness;
  // A model that does what the old prompt asked: every content word its own term, qualifiers
  // dropped at will ("unobtainium"), and a synonym not in the question ("capacitor" for "caps").
  const wordByWord: StandinRule = {
    task: 'bom.focus_terms',
    description: 'Splits the question into single words and drops the first of several.',
    answer: ({ sections }) => {
      const words =
        String(sections.question)
          .toLowerCase()
          .match(/[a-z]+/g) ?? [];
      const content = words.filter((w) => !isStopWord(w) && w !== 'boards' && w !== 'caps');
      const kept = content.length > 1 && content[0] === 'unobtainium' ? content.slice(1) : content;
      return { focus_terms: /\bcaps\b/.test(String(sections.question)) ? [...kept, 'tantalum capacitor'] : kept };
    },
  };

  beforeAll(async () => {
    h = await createHarness({ rules: [wordByWord, ...allRules.filter((r) => r.task !== 'bom.focus_terms')] });
  });
  afterAll(async () => h?.close());

  it('gives the answers the deterministic fallback gives, from split or partial focus terms', async () => {
    const split = await h.run(bomQuestionFlow, { question: 'Where are OLED displays used?' });
    expect(split.pipeline_state.focus_terms).toEqual(['oled', 'displays']);
    expect(split.pipeline_state.search_terms).toEqual(['oled displays']);
    expect(split.pipeline_state.total_rows).toBe(32);

    const partial = await h.run(bomQuestionFlow, {
      question: 'Which BOMs use unobtainium flux capacitors?',
    });
    expect(partial.pipeline_state.focus_terms).toEqual(['flux', 'capacitors']);
    expect(partial.outcome).toBe('no_results');
    expect(partial.pipeline_state.missing_terms).toEqual(['unobtainium flux capacitors']);

    const synonym = await h.run(bomQuestionFlow, { question: 'Which boards use caps?' });
    expect(synonym.pipeline_state.search_terms).toEqual(['tantalum capacitor']);
    expect(synonym.pipeline_state.total_rows).toBe(240);
  });
});
