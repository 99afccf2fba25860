/**
 * From interview to schedule: for each bundled flow-shop and job-shop firm, the interview (with
 * `schedule`) returns a MiniZinc model, a CP-SAT schedule and a Gantt chart; the schedule is
 * checked here INDEPENDENTLY of the code that built it (durations and quantities read straight
 * from the SCR, a sweep over time per resource). Infeasible instances come back as infeasible
 * with the reason. Where a `minizinc` binary is on PATH, the generated model is solved by it too
 * and the objectives compared.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerEadsTools } from '../client/mcp/eads-tools';
import { conversationHistoryQuery, eadsInterviewWorkflowId, runEadsInterviewFlow } from '../flows/eads/contract';
import { scheduleFromScrFlow, type ScheduleFromScrOutput } from '../flows/schedule/contract';
import { buildScheduleProblem, ScheduleModelError, toMiniZinc } from '../domain/schedule-model';
import { createHarness, recordHistory, type Harness } from './helpers/harness';

const FIXTURES = path.resolve(__dirname, '..', 'data', 'eads-fixtures');
const fixture = (id: string) =>
  JSON.parse(readFileSync(path.join(FIXTURES, `${id}.json`), 'utf8')) as {
    tables: Array<{ name: string; rows: Array<Record<string, any>> }>;
  };

const MINUTES: Record<string, number> = {
  minutes: 1,
  minute: 1,
  hours: 60,
  hour: 60,
  days: 1440,
  day: 1440,
  weeks: 10080,
  week: 10080,
};
const UNIT_MINUTES: Record<string, number> = { minutes: 1, hours: 60, days: 1440, weeks: 10080 };
const norm = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();

/**
 * The independent feasibility check. Reads the SCR itself (not the solver's problem): each
 * step's duration from its `duration` cell, each route from `subprocesses` or `routings`, each
 * resource's quantity from `resource-pools` (a resource the pools lack counts as one unit).
 */
function checkFeasible(scr: Record<string, any>, schedule: ScheduleFromScrOutput): string[] {
  const problems: string[] = [];
  const r = schedule.minizinc_results;
  const toMinutes = (t: number) => t * UNIT_MINUTES[r.timeUnit]!;
  const steps = new Map<string, { minutes: number; resources: string[] }>();
  for (const row of [...(scr.subprocesses ?? []), ...(scr['unit-processes'] ?? [])]) {
    steps.set(row['process-id'], {
      minutes: Number(row.duration['value-string']) * MINUTES[row.duration.units]!,
      resources: row.resources,
    });
  }
  const routes = new Map<string, string[]>();
  if (scr.subprocesses)
    routes.set(
      '*',
      scr.subprocesses.map((s: any) => s['process-id']),
    );
  for (const row of scr.routings ?? []) routes.set(row['routing-id'], row.steps);
  const quantity = (name: string) => {
    const pool = (scr['resource-pools'] ?? []).find((p: any) => norm(p['resource-id']) === norm(name));
    return pool ? Number(pool.quantity) : 1;
  };
  const uses = new Map<string, Array<{ start: number; end: number; job: string }>>();
  for (const job of r.jobs) {
    const route = routes.get(scr.subprocesses ? '*' : job.route);
    if (!route) problems.push(`${job.id}: route ${job.route} is not in the SCR`);
    else if (JSON.stringify(job.steps.map((s) => s.step)) !== JSON.stringify(route))
      problems.push(`${job.id}: steps ${job.steps.map((s) => s.step)} differ from the route ${route}`);
    job.steps.forEach((s, i) => {
      const expected = steps.get(s.step)!;
      if (toMinutes(s.end - s.start) !== expected.minutes)
        problems.push(`${job.id}/${s.step}: lasts ${toMinutes(s.end - s.start)} min, the SCR says ${expected.minutes}`);
      if (s.start < 0) problems.push(`${job.id}/${s.step}: starts before 0`);
      if (i > 0 && s.start < job.steps[i - 1]!.end)
        problems.push(`${job.id}/${s.step}: starts before ${job.steps[i - 1]!.step} ends`);
      for (const res of expected.resources)
        uses.set(norm(res), [...(uses.get(norm(res)) ?? []), { start: s.start, end: s.end, job: job.id }]);
    });
  }
  for (const [res, list] of uses) {
    // Sweep: +1 at each start, -1 at each end (ends first at the same instant).
    const events = list
      .flatMap(
        (u) =>
          [
            [u.start, 1],
            [u.end, -1],
          ] as const,
      )
      .sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    let inUse = 0;
    for (const [t, d] of events) {
      inUse += d;
      if (inUse > quantity(res)) {
        problems.push(`${res}: ${inUse} in use at ${t}, the firm has ${quantity(res)}`);
        break;
      }
    }
  }
  if (r.makespan !== Math.max(...r.jobs.map((j) => j.end ?? 0)))
    problems.push(`makespan ${r.makespan} is not the latest end`);
  return problems;
}

const hasMinizinc = spawnSync('minizinc', ['--version'], { stdio: 'ignore' }).status === 0;

/** Solves the generated model with the minizinc binary (Gecode); the objective when proven optimal. */
function solveWithMinizinc(model: string, data: string): { objective: number; optimal: boolean } | null {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mzn-'));
  writeFileSync(path.join(dir, 'm.mzn'), model);
  writeFileSync(path.join(dir, 'm.dzn'), data);
  const out = execFileSync(
    'minizinc',
    ['--solver', 'gecode', '--time-limit', '30000', path.join(dir, 'm.mzn'), path.join(dir, 'm.dzn')],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] },
  );
  const values = [...out.matchAll(/objective = (\d+)/g)].map((m) => Number(m[1]));
  if (!values.length) return null;
  return { objective: values[values.length - 1]!, optimal: out.includes('==========') };
}

const FIRMS = [
  {
    fixture: 'brewery-flow-shop',
    kind: 'flow-shop',
    orders: [
      { id: 'pale-ale-1', product: 'pale ale' },
      { id: 'ipa-1', product: 'IPA' },
      { id: 'stout-1', product: 'stout' },
      { id: 'lager-1', product: 'seasonal lager' },
      { id: 'ipa-2', product: 'IPA' },
    ],
  },
  {
    fixture: 'machine-shop-job-shop',
    kind: 'job-shop',
    orders: [
      { id: 'o-101', product: 'shaft', due: { value: 2, units: 'hours' as const } },
      { id: 'o-102', product: 'flange', due: { value: 3, units: 'hours' as const } },
      { id: 'o-103', product: 'housing', due: { value: 3, units: 'hours' as const } },
      { id: 'o-104', product: 'bracket', due: { value: 2, units: 'hours' as const } },
      { id: 'o-105', product: 'shaft', due: { value: 4, units: 'hours' as const } },
      { id: 'o-106', product: 'pump housings', due: { value: 5, units: 'hours' as const } },
    ],
  },
];

describe('scheduling problem and MiniZinc model (pure)', () => {
  const machineShop = fixture('machine-shop-job-shop');
  const scr = {
    'principal-problem-type': 'JOB-SHOP-SCHEDULING-PROBLEM',
    'unit-processes': machineShop.tables[0]!.rows,
    routings: machineShop.tables[1]!.rows,
    'resource-pools': machineShop.tables[3]!.rows,
    'primary-objective': 'MEET-DUE-DATES',
  };

  it("names the firm's steps and resources in the model and assumes one unit of a resource the pools lack", () => {
    const problem = buildScheduleProblem(scr, {
      orders: [{ product: 'shaft', due: { value: 2, units: 'hours' } }, { product: 'flange' }],
    });
    expect(problem.kind).toBe('job-shop');
    expect(problem.timeUnit).toBe('minutes');
    expect(problem.resources.find((r) => r.name === 'deburring bench')).toMatchObject({
      quantity: 1,
      assumed: expect.stringContaining('not in the resource pools'),
    });
    expect(problem.objective.solved).toBe('total-tardiness');
    const { model, data } = toMiniZinc(problem);
    expect(model).toContain('cumulative(');
    expect(model).toMatch(/% Steps: saw-cut, cnc-turning, grinding, inspection/);
    expect(data).toContain('five_axis_machining_centre');
    expect(data).toMatch(/cnc_lathe = cnc lathe \(3, machine\)/);
    expect(data).toMatch(/% \d+: order-1 \/ grinding, 25 min/);
  });

  it(
    'reads quantities in words, matches resource names exactly before by containment, ' + 'and says what it assumed',
    () => {
      const problem = buildScheduleProblem({
        'principal-problem-type': 'FLOW-SHOP-SCHEDULING-PROBLEM',
        subprocesses: [
          { 'process-id': 'bake', resources: ['oven'], duration: { units: 'hrs', 'value-string': 'about 1.5' } },
          { 'process-id': 'cool', resources: ['racks'], duration: { units: 'minutes', 'value-string': '20-30' } },
          { 'process-id': 'pack', resources: ['packer'], duration: { units: 'minutes', 'value-string': '15' } },
        ],
        'resource-pools': [
          { 'resource-id': 'deck oven', quantity: '1' },
          { 'resource-id': 'oven', quantity: 'two' },
          { 'resource-id': 'rack', quantity: 'a few' },
        ],
      });
      expect(problem.resources).toEqual([
        { name: 'oven', quantity: 2 },
        { name: 'rack', quantity: 1, assumed: 'quantity "a few" is not a number: assumed 1' },
        { name: 'packer', quantity: 1, assumed: 'not in the resource pools: assumed 1' },
      ]);
      expect(problem.jobs[0]!.tasks.map((t) => t.duration)).toEqual([90, 30, 15]);
      expect(problem.jobsSource).toBe('one-per-product');
      expect(problem.notes).toEqual(expect.arrayContaining([expect.stringMatching(/one job per product/)]));
    },
  );

  it('rejects an SCR it cannot schedule, naming the field', () => {
    expect(() => buildScheduleProblem({ 'principal-problem-type': 'TIMETABLING-PROBLEM' })).toThrow(
      /only flow-shop and job-shop/,
    );
    expect(() => buildScheduleProblem({ ...scr, routings: [{ 'routing-id': 'x', steps: ['laser-cut'] }] })).toThrow(
      ScheduleModelError,
    );
    expect(() => buildScheduleProblem(scr, { orders: [{ product: 'spaceship' }] })).toThrow(
      /matches none of the routings/,
    );
    // Errors quote what they were given in short excerpts only.
    const long = 'x'.repeat(5000);
    for (const bad of [
      { orders: [{ product: long }] },
      { scr: { ...scr, routings: [{ 'routing-id': long, steps: [long] }] } },
      { scr: { 'principal-problem-type': long } },
    ]) {
      const err = (() => {
        try {
          buildScheduleProblem(
            (bad as { scr?: typeof scr }).scr ?? scr,
            bad as { orders?: Array<{ product: string }> },
          );
        } catch (e) {
          return e as Error;
        }
      })();
      expect(err).toBeInstanceOf(ScheduleModelError);
      expect(err!.message.length).toBeLessThan(400);
    }
    const noDuration = {
      ...scr,
      'unit-processes': [
        {
          'process-id': 'saw-cut',
          resources: ['bandsaw'],
          duration: { units: 'minutes', 'value-string': 'it varies' },
        },
      ],
    };
    expect(() => buildScheduleProblem(noDuration)).toThrow(/no usable duration/);
  });

  it('keeps MiniZinc identifiers valid whatever the firm calls things', () => {
    const odd = {
      'principal-problem-type': 'FLOW-SHOP-SCHEDULING-PROBLEM',
      subprocesses: [
        {
          'process-id': 'step "one"\n% injected',
          resources: ['int', '9 oven', 'Öfen/2'],
          duration: { units: 'hours', 'value-string': '1' },
        },
      ],
      'resource-pools': [{ 'resource-id': 'int', quantity: '2' }],
    };
    const { data, model } = toMiniZinc(buildScheduleProblem(odd));
    expect(data).toMatch(/RESOURCE = \{r_int, r_9_oven, fen_2\};/);
    // The step name is a string literal and its newline does not open a line of MiniZinc.
    expect(data.split('\n').some((l) => l.startsWith('% injected'))).toBe(false);
    expect(model.split('\n').some((l) => l.startsWith('% injected'))).toBe(false);
  });
});

describe('from interview to schedule (CP-SAT on the Python solver worker)', () => {
  let h: Harness;
  let mcp: McpClient;
  let server: McpServer;
  beforeAll(async () => {
    h = await createHarness();
    server = new McpServer({ name: 'schedule-test', version: '0.0.0' });
    registerEadsTools(server, { client: h.client, taskQueue: h.taskQueue });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    mcp = new McpClient({ name: 'schedule-test-client', version: '0.0.0' });
    await Promise.all([server.connect(serverSide), mcp.connect(clientSide)]);
  });
  afterAll(async () => {
    await mcp?.close();
    await server?.close();
    await h?.close();
  });
  const mcpHistory = async (project_id: string) =>
    (await mcp.callTool({ name: 'get_conversation_history', arguments: { project_id, include_minizinc: true } }))
      .structuredContent as Record<string, any>;

  for (const firm of FIRMS) {
    it(`${firm.fixture}: the interview ends with a MiniZinc model, a feasible schedule and a Gantt chart`, async () => {
      const projectId = `sched-${firm.fixture.slice(0, 10)}-${Date.now().toString(36)}`;
      const handle = await h.start(runEadsInterviewFlow, {
        projectId,
        mode: 'surrogate',
        fixture: firm.fixture,
        schedule: { orders: firm.orders, timeLimitSeconds: 10 },
      });
      const result = await handle.result();
      if (firm.kind === 'job-shop') await recordHistory(handle, 'eads-interview-with-schedule');
      const schedule = result.schedule as ScheduleFromScrOutput;
      expect(schedule, JSON.stringify(result.schedule)).toHaveProperty('minizinc_results');
      expect(schedule.problemType).toBe(firm.kind);
      expect(schedule.jobsSource).toBe('orders');
      expect(['optimal', 'feasible']).toContain(schedule.minizinc_results.status);
      expect(schedule.minizinc_results.jobs).toHaveLength(firm.orders.length);
      expect(checkFeasible(result.scr.merged_scr as Record<string, any>, schedule)).toEqual([]);
      // The model speaks the firm's language.
      const firstStep = (result.scr.merged_scr.subprocesses ?? result.scr.merged_scr['unit-processes']) as Array<
        Record<string, string>
      >;
      expect(schedule.minizinc.model).toContain(firstStep[0]!['process-id']);
      expect(schedule.minizinc.data).toContain(firm.orders[0]!.id);
      // The chart: SVG with a row per resource unit, and a real PNG.
      expect(schedule.chart).not.toBeNull();
      const svg = readFileSync(schedule.chart!.svg, 'utf8');
      expect(svg).toContain('<svg');
      for (const res of schedule.minizinc_results.resources.filter((x) => x.busy > 0)) expect(svg).toContain(res.name);
      expect(readFileSync(schedule.chart!.png).subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
      expect(existsSync(schedule.minizinc.files!.model)).toBe(true);
      // The interviewer type of each pursuit is in the result, and the model is in the conversation history.
      expect(result.pursuits.map((p) => p.interviewer)).toEqual(
        expect.arrayContaining(['process', 'data', 'resources', 'optimality']),
      );
      const history = await h.client.workflow
        .getHandle(eadsInterviewWorkflowId(projectId))
        .query(conversationHistoryQuery);
      expect(history.minizinc?.model).toBe(schedule.minizinc.model);
      const viaMcp = await mcpHistory(projectId);
      expect(viaMcp.minizinc.model).toBe(schedule.minizinc.model);
      expect(viaMcp.minizinc_results.status).toBe(schedule.minizinc_results.status);

      if (!hasMinizinc) {
        console.log('minizinc is not on PATH: the MiniZinc cross-check is skipped (apt-get install minizinc)');
        return;
      }
      const mzn = solveWithMinizinc(schedule.minizinc.model, schedule.minizinc.data);
      expect(mzn, 'minizinc found a solution').not.toBeNull();
      if (mzn!.optimal && schedule.minizinc_results.status === 'optimal')
        expect(mzn!.objective).toBe(schedule.minizinc_results.objective.value);
      else expect(mzn!.objective).toBeGreaterThanOrEqual(schedule.minizinc_results.objective.bound ?? 0);
    });
  }

  it(
    'MCP get_conversation_history generates the model from the SCR of an interview ' +
      'that did not schedule; timetabling is skipped with the reason',
    async () => {
      const projectId = `sched-mcp-${Date.now().toString(36)}`;
      await (
        await h.start(runEadsInterviewFlow, { projectId, mode: 'surrogate', fixture: 'machine-shop-job-shop' })
      ).result();
      const history = await mcpHistory(projectId);
      expect(history.minizinc.model).toMatch(/% Steps: saw-cut, cnc-turning/);
      expect(history.minizinc.data).toContain('deburring_bench');
      expect(history.minizinc_results).toBeNull();
      expect(history.minizinc_note).toMatch(/not solved yet: call schedule_from_scr/);
      // A timetabling interview has no shop model: null with the reason.
      const school = `sched-mcp-school-${Date.now().toString(36)}`;
      // Asked for a schedule, it says why there is none and the interview still completes.
      const schoolResult = await h.run(runEadsInterviewFlow, {
        projectId: school,
        mode: 'surrogate',
        fixture: 'school-timetable',
        schedule: true,
      });
      expect(schoolResult.schedule).toEqual({
        skipped: expect.stringMatching(
          /only flow-shop and job-shop interviews are scheduled yet \(this one: TIMETABLING/,
        ),
      });
      const none = await mcpHistory(school);
      expect(none.minizinc).toBeNull();
      expect(none.minizinc_note).toMatch(
        /only flow-shop and job-shop problems can be scheduled yet; this SCR is TIMETABLING/,
      );
    },
  );

  it(
    're-runs with new orders without the interview, and reports hard due dates that ' +
      'cannot be met, with the reason',
    async () => {
      const machineShop = fixture('machine-shop-job-shop');
      const scr = {
        merged_scr: {
          'principal-problem-type': 'JOB-SHOP-SCHEDULING-PROBLEM',
          'unit-processes': machineShop.tables[0]!.rows,
          routings: machineShop.tables[1]!.rows,
          'resource-pools': machineShop.tables[3]!.rows,
          'primary-objective': 'MEET-DUE-DATES',
        },
      };
      // A shaft needs 90 minutes at least: due in one hour is impossible on its own.
      const tooEarly = await h.run(scheduleFromScrFlow, {
        projectId: 'harrow-late',
        scr,
        dueDates: 'hard',
        orders: [{ id: 'rush', product: 'shaft', due: { value: 1, units: 'hours' } }],
      });
      expect(tooEarly.minizinc_results.status).toBe('infeasible');
      expect(tooEarly.minizinc_results.conflicts[0]).toMatchObject({
        kind: 'due-before-minimum-processing',
        job: 'rush',
      });
      expect(tooEarly.minizinc_results.conflicts[0]!.detail).toMatch(/due at 1 h but needs at least 1.5 h/);
      expect(tooEarly.chart).toBeNull();
      expect(tooEarly.minizinc.model).toContain('end[last[j]] <= due[j]');

      // Each housing alone fits in 2.25 h, but two of them share one five-axis centre: only the solver sees it.
      const togetherHandle = await h.start(scheduleFromScrFlow, {
        projectId: 'harrow-jam',
        scr,
        dueDates: 'hard',
        orders: [
          { id: 'h1', product: 'housing', due: { value: 135, units: 'minutes' } },
          { id: 'h2', product: 'housing', due: { value: 135, units: 'minutes' } },
          { id: 's1', product: 'shaft', due: { value: 8, units: 'hours' } },
        ],
      });
      const together = await togetherHandle.result();
      await recordHistory(togetherHandle, 'schedule-from-scr-infeasible-deadlines');
      expect(together.minizinc_results.status).toBe('infeasible');
      expect(together.minizinc_results.solver).toMatch(/CP-SAT/);
      const core = together.minizinc_results.conflicts[0] as { kind: string; jobs: string[]; detail: string };
      expect(core.kind).toBe('no-solution-within-deadlines');
      expect(core.jobs.sort()).toEqual(['h1', 'h2']);

      // Soft due dates: the same orders are scheduled, lateness minimised.
      const soft = await h.run(scheduleFromScrFlow, {
        projectId: 'harrow-soft',
        scr,
        orders: [
          { id: 'h1', product: 'housing', due: { value: 135, units: 'minutes' } },
          { id: 'h2', product: 'housing', due: { value: 135, units: 'minutes' } },
        ],
      });
      expect(soft.minizinc_results.status).toBe('optimal');
      expect(soft.minizinc_results.totalTardiness).toBe(90);
      expect(checkFeasible(scr.merged_scr, soft)).toEqual([]);
      // The checker is not a rubber stamp: each kind of violation is caught.
      const broken = (edit: (s: ScheduleFromScrOutput) => void) => {
        const copy = structuredClone(soft);
        edit(copy);
        return checkFeasible(scr.merged_scr, copy).join('; ');
      };
      const [h1] = soft.minizinc_results.jobs;
      expect(
        broken((s) => {
          const a = s.minizinc_results.jobs[1]!.steps[1]!;
          const b = h1!.steps[1]!;
          a.start = b.start;
          a.end = b.end;
        }),
      ).toMatch(/five axis machining centre: 2 in use/);
      expect(
        broken((s) => {
          s.minizinc_results.jobs[0]!.steps[0]!.end += 5;
        }),
      ).toMatch(/h1\/saw-cut: lasts 15 min, the SCR says 10/);
      expect(
        broken((s) => {
          s.minizinc_results.jobs[1]!.steps.reverse();
        }),
      ).toMatch(/h2: steps .* differ from the route/);
      expect(
        broken((s) => {
          const st = s.minizinc_results.jobs[1]!.steps;
          st[1]!.start = st[0]!.start;
          st[1]!.end = st[1]!.start + 90;
        }),
      ).toMatch(/starts before saw-cut ends/);

      // A step needing more units than the firm has.
      const none = await h.run(scheduleFromScrFlow, {
        projectId: 'harrow-none',
        scr: {
          ...scr.merged_scr,
          'resource-pools': [
            ...machineShop.tables[3]!.rows.filter((r) => r['resource-id'] !== 'cmm'),
            { 'resource-id': 'cmm', quantity: '0' },
          ],
        },
        orders: [{ product: 'shaft' }],
      });
      expect(none.minizinc_results.status).toBe('infeasible');
      expect(none.minizinc_results.conflicts[0]!.detail).toBe('step "inspection" needs 1 cmm, but the firm has 0');
    },
  );

  it('fails fast, naming the field, on an SCR or orders it cannot schedule', async () => {
    const handle = await h.start(scheduleFromScrFlow, {
      projectId: 'bad-orders',
      scr: { 'principal-problem-type': 'TIMETABLING-PROBLEM' },
    });
    await expect(handle.result()).rejects.toMatchObject({
      cause: { message: expect.stringMatching(/only flow-shop and job-shop problems/) },
    });
    const bad = await h
      .start(scheduleFromScrFlow, { projectId: 'bad-orders-2', scr: {}, orders: [{ product: 'x', quantity: -1 }] })
      .catch((e) => e);
    // The client validates first: a bad quantity never reaches the server.
    expect(String(bad.message ?? bad)).toMatch(/orders\.0\.quantity/);
  });
});
