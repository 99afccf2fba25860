/**
 * The web console's result pages, rendered without a browser or Temporal: a BOM answer's markdown
 * as HTML (no fences, no doubled SQL, the first rows only), a proposal as a document whose
 * literature links only to http(s) URLs, a schedule with its chart and MiniZinc model, and the
 * rows' CSV download.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { rowsToCsv } from '../../server/console/downloads';
import { renderMarkdown } from '../../server/console/markdown';
import type { Client } from '@temporalio/client';
import { recentRuns, renderRecentRuns, renderResult, SHOWN_ROWS } from '../../server/console/views';
import type { ProposalDocument } from '../../flows/proposal/contract';

const dir = mkdtempSync(path.join(tmpdir(), 'console-results-'));
const artifacts = path.join(dir, 'out');
mkdirSync(artifacts, { recursive: true });
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The page's text as a reader sees it (tags dropped). */
const textOf = (markup: string) => markup.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');

describe('console result pages', () => {
  it('renders markdown safely: raw HTML as text, only http(s) links, no images', () => {
    const out = renderMarkdown(
      '**bold** <script>alert(1)</script> [ok](https://example.org/a) [bad](javascript:alert(2)) [rel](/console/x) ![i](https://example.org/i.png)',
    ).text;
    expect(out).toContain('<strong>bold</strong>');
    expect(out).toContain('&lt;script&gt;');
    expect(out).not.toMatch(/<script|<img|href="javascript|href="\/console/);
    expect(out).toContain('<a href="https://example.org/a" rel="noopener noreferrer" target="_blank">ok</a>');
  });

  const rows = Array.from({ length: 100 }, (_, i) => ({ item: `SA-${2000 + i}`, description: `Assembly ${i}` }));
  const sql = 'SELECT item, description FROM bom WHERE description ILIKE ?';
  const bom = {
    question: 'List BOMs using battery components',
    final_answer: [
      'Found **100** assemblies using battery components.',
      '',
      ...rows.slice(0, 10).map((r) => `- ${r.item}: ${r.description}`),
      '- … and 90 more',
      '',
      'SQL used (ladder):',
      '```sql',
      sql,
      '```',
      'Parameters: {"1":"%battery%"}',
    ].join('\n'),
    outcome: 'answered',
    pipeline_state: {
      rows,
      total_rows: 100,
      chosen_sql: sql,
      chosen_params: { 1: '%battery%' },
      sql: null,
      params: {},
      suggestions: {},
    },
  };

  it('shows a BOM answer as HTML: no fences or bullets as text, the SQL once, the first rows with downloads', () => {
    const page = renderResult({ artifactDir: artifacts }, 'answerBomQuestion', bom, 'bom-q1').text;
    // What the page shows, without the whole result's JSON at its end.
    const shown = page.replace(/<details>\s*<summary>The whole result[\s\S]*$/, '');
    const text = textOf(shown);
    expect(text).not.toContain('```');
    expect(text).not.toMatch(/(^|\s)- SA-2001/);
    expect(page).toContain('<strong>100</strong>');
    expect(shown.split('SELECT item').length - 1).toBe(1);
    expect(page.match(/<tbody>[\s\S]*?<\/tbody>/)![0].match(/<tr>/g)).toHaveLength(SHOWN_ROWS);
    expect(text).toContain(`The first ${SHOWN_ROWS} of 100 rows`);
    expect(page).toContain('href="/console/runs/bom-q1/rows.csv"');
    expect(page).toContain('href="/console/runs/bom-q1/rows.json"');
  });

  it('writes rows as CSV a spreadsheet reads as data, never as formulas', () => {
    expect(
      rowsToCsv([
        { a: 'x, "y"', b: '=HYPERLINK("http://evil")' },
        { a: -3, c: { d: 1 } },
      ]),
    ).toBe('a,b,c\r\n"x, ""y""","\'=HYPERLINK(""http://evil"")",\r\n-3,,"{""d"":1}"\r\n');
  });

  const document: ProposalDocument = {
    title: 'Detecting stiffness loss in a footbridge',
    problem_definition: {
      problem_statement: 'A statement with *emphasis*.',
      main_research_question: 'What can the data show?',
      secondary_questions: ['What first?'],
      key_variables: ['stiffness loss'],
      preliminary_literature: [
        {
          title: 'Vibration monitoring',
          url: 'https://doi.org/10.1000/vib',
          relevance_note: 'Method.',
          source: 'openalex',
        },
        { title: 'Not a web link', url: 'javascript:alert(1)', relevance_note: 'Forged.', source: 'x' },
      ],
      refinement_history: [],
    },
    research_objectives: {
      general_objective: 'To answer it.',
      specific_objectives: ['Answer it.'],
      feasibility_notes: { timeline_assessment: 'It fits.', skills_required: [], risk_factors: [] },
      alignment_check: { coverage_analysis: 'Covered.', coherence_score: 'High' },
    },
    methodology: {
      recommended_methodology: 'Secondary analysis',
      methodology_type: 'quantitative',
      justification: 'It fits.',
      required_skills: [],
      timeline_fit: {
        is_feasible: true,
        estimated_duration: '6 weeks',
        key_phases: [{ name: 'All', duration: '6 weeks', description: 'Everything.' }],
      },
      alternative_methodologies: [],
    },
    data_collection_plan: {
      collection_techniques: ['Analysis'],
      recommended_tools: [],
      data_sources: ['Existing data'],
      estimated_sample_size: 'all of it',
      timeline_breakdown: {
        preparation: { duration: '1 week', activities: ['a'] },
        collection: { duration: '3 weeks', activities: ['b'] },
        quality_check: { duration: '2 weeks', activities: ['c'] },
        total_duration: '6 weeks',
      },
      resource_requirements: [],
    },
    quality_validation: {
      validation_passed: true,
      coherence_score: 0.9,
      feasibility_score: 0.9,
      overall_quality_score: 90,
      issues_identified: [],
      recommendations: [],
      requires_refinement: false,
      refinement_targets: [],
      feasibility_check: { plan_weeks: 6, timeline_weeks: 6, model_feasibility: 0.9, code_feasibility: 1 },
    },
  };

  it('shows a proposal as a document whose literature links only to http(s) URLs', () => {
    const page = renderResult({ artifactDir: artifacts }, 'writeResearchProposal', {
      status: 'completed',
      title: document.title,
      proposal: document,
      unresolvedIssues: [],
      pdf: null,
    }).text;
    const text = textOf(page.replace(/<details>[\s\S]*<\/details>\s*<\/section>$/, ''));
    expect(text).not.toMatch(/problem_statement|main_research_question|preliminary_literature/);
    for (const heading of ['1. Problem', '2. Objectives', '3. Methodology', '4. Data collection', '5. Quality check'])
      expect(text).toContain(heading);
    expect(page).toContain('<em>emphasis</em>');
    expect(page).toMatch(/<a href="https:\/\/doi.org\/10.1000\/vib"[^>]*>Vibration monitoring<\/a>/);
    expect(page).not.toContain('href="javascript');
    expect(text).toContain('Not a web link');
  });

  it('shows a schedule with its Gantt chart, the MiniZinc model in a code block and its files as links', () => {
    const model = 'int: n;\narray[1..n] of var 0..100: start;\nsolve minimize max(start);';
    const page = renderResult({ artifactDir: artifacts }, 'scheduleFromScr', {
      projectId: 'demo-harrow',
      problemType: 'JOB-SHOP-SCHEDULING-PROBLEM',
      jobsSource: 'the orders given',
      notes: [],
      minizinc: {
        model,
        data: 'n = 2;',
        files: { model: path.join(artifacts, 'schedule', 'm.mzn'), data: path.join(artifacts, 'schedule', 'm.dzn') },
      },
      minizinc_results: {
        status: 'optimal',
        solver: 'cp-sat',
        objective: { name: 'makespan', firm: null, value: 10, bound: 10, gap: 0 },
        timeUnit: 'hours',
        makespan: 10,
        makespanText: '10 hours',
        totalTardiness: null,
        solveSeconds: 0.2,
        jobs: [{ id: 'J1', product: 'shaft', quantity: 2, route: 'R1', due: null, end: 10, late: null, steps: [] }],
        resources: [{ name: 'lathe', quantity: 1, busy: 8, utilisation: 0.8, peak: 1, changeovers: 0 }],
        conflicts: [],
      },
      chart: { svg: path.join(artifacts, 'schedule', 'gantt.svg'), png: path.join(artifacts, 'schedule', 'gantt.png') },
    }).text;
    expect(page).toMatch(/<img src="\/console\/artifacts\/schedule\/gantt.svg" alt="Gantt chart/);
    expect(page).toContain(
      `<pre class="code"><code class="language-minizinc">int: n;\narray[1..n] of var 0..100: start;`,
    );
    expect(page).toContain('href="/console/artifacts/schedule/m.mzn"');
    expect(textOf(page)).toContain('makespan 10 hours');
  });
});

describe('console start page', () => {
  it('lists the recent runs newest first by start time, though visibility lists the open runs first', async () => {
    const run = (workflowId: string, status: string, started: string) => ({
      workflowId,
      type: 'answerBomQuestion',
      status: { name: status },
      startTime: new Date(started),
    });
    // As the dev server's visibility answers: the runs still open first, then by close time.
    const listed = [
      run('open-old', 'RUNNING', '2026-11-27T17:32:00Z'),
      run('closed-new', 'COMPLETED', '2026-11-27T17:35:00Z'),
      run('closed-older', 'COMPLETED', '2026-11-27T17:34:00Z'),
    ];
    const queries: string[] = [];
    const client = {
      workflow: {
        async *list(options: { query: string }) {
          queries.push(options.query);
          yield* listed;
        },
      },
    } as unknown as Client;
    const runs = await recentRuns(client, ['answerBomQuestion'], 'agent-flows');
    expect(runs.map((r) => r.workflowId)).toEqual(['closed-new', 'closed-older', 'open-old']);
    // Only the flows' runs on the console's own task queue, quotes in a name dropped.
    expect(queries).toEqual([`AgentFlow IN ('answerBomQuestion') AND TaskQueue = 'agent-flows'`]);
    await recentRuns(client, ["bom'x"], "q'ueue");
    expect(queries[1]).toBe(`AgentFlow IN ('bomx') AND TaskQueue = 'queue'`);
  });

  it('says "the newest run" for one run and counts two or more', () => {
    const run = (workflowId: string) => ({
      workflowId,
      type: 'answerBomQuestion',
      status: 'COMPLETED',
      startTime: new Date('2026-11-27T17:35:00Z'),
    });
    const title = () => 'BOM question';
    expect(textOf(String(renderRecentRuns([run('a')], title)))).toContain('The newest run');
    expect(textOf(String(renderRecentRuns([run('a')], title)))).not.toContain('1 newest');
    expect(textOf(String(renderRecentRuns([run('a'), run('b')], title)))).toContain('The 2 newest runs');
  });
});
