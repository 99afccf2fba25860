/**
 * Surrogate-expert interviews of the three fixture firms, end to end on the dev server: the
 * right problem-type EADS per firm, an aggregated SCR whose fields match the firm's facts,
 * the orchestrator's fallback when its model fails, and continue-as-new with state intact.
 *
 * The fixture firms' interviews run on the offline model's rules (they test its reading); the
 * orchestration tests run on a scripted firm, so no stand-in rule can change them.
 */
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  conversationHistoryQuery,
  eadsInterviewQuery,
  eadsInterviewWorkflowId,
  finishInterviewUpdate,
  runEadsInterviewFlow,
  type RunEadsInterviewOutput,
} from '../flows/eads/contract';
import { isPlainObject, rowIdKey } from '../domain/eads-structure';
import { EadsSession } from '../access/eads-session';
import { waitFor } from './helpers/wait';
import { createHarness, recordHistory, type Harness } from './helpers/harness';
import { ScriptedModel } from './helpers/scripted-model';
import { EADS_TASKS, exampleFirm } from './helpers/eads-script';
import { cachedLibrary } from '../flows/eads/activities/library';

const FIXTURES = path.resolve(__dirname, '..', 'data', 'eads-fixtures');
type FixtureJson = {
  facts: Array<{ about: string; answer: string }>;
  tables: Array<{ name: string; rows: Array<Record<string, unknown>> }>;
  expected: Record<string, unknown>;
};
const fixture = (id: string): FixtureJson => JSON.parse(readFileSync(path.join(FIXTURES, `${id}.json`), 'utf8'));
const PROBLEM_EADS = ['process/flow-shop', 'process/job-shop', 'process/timetabling'];

/** Every fixture table must come back as an SCR table with the same rows (same ids, same cells). */
function expectTablesInScr(firm: FixtureJson, scr: RunEadsInterviewOutput['scr']) {
  const scrTables = Object.values(scr.scr_by_eads).flatMap((ds) =>
    Object.entries(ds).filter(([, v]) => Array.isArray(v) && v.every(isPlainObject)),
  );
  for (const table of firm.tables) {
    const id = rowIdKey(table.rows)!;
    const match = scrTables.find(
      ([, rows]) =>
        rowIdKey(rows as unknown[]) === id &&
        (rows as Array<Record<string, unknown>>).some((r) => r[id] === table.rows[0][id]),
    );
    expect(match, `table "${table.name}" (${id}) in the SCR`).toBeDefined();
    expect(match![1]).toEqual(table.rows);
  }
}

/**
 * Troubles are read by meaning, sentence by sentence: most of the firm's troubles are heard, and
 * at most one heard is not the firm's (a sentence such as "every summer we build the timetable"
 * may still sound seasonal to the stand-in's embedder).
 */
function expectTroublesHeard(has: string[], heard: string[]): void {
  expect(heard.filter((t) => has.includes(t)).length).toBeGreaterThanOrEqual(Math.min(2, has.length));
  expect(heard.filter((t) => !has.includes(t)).length).toBeLessThanOrEqual(1);
}

// These run on the offline model's own rules on purpose: they measure how it reads the fixture
// firms end to end (problem type, troubles, tables), i.e. the stand-in's behaviour itself.
describe('runEadsInterview with surrogate experts', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(async () => h?.close());

  /** Starts a surrogate interview as a user would, with `temporal workflow start`, and waits for it. */
  const interviewFromCli = async (project: string, fixtureId: string) => {
    const workflowId = eadsInterviewWorkflowId(`${project}-${Date.now().toString(36)}`);
    const input = { projectId: workflowId.replace('eads-interview-', ''), mode: 'surrogate', fixture: fixtureId };
    execFileSync(
      inject('temporalCliPath'),
      [
        'workflow',
        'start',
        '--address',
        inject('temporalAddress'),
        '--namespace',
        'default',
        '--task-queue',
        h.taskQueue,
        '--type',
        'runEadsInterview',
        '--workflow-id',
        workflowId,
        '--input',
        JSON.stringify(input),
      ],
      { stdio: 'pipe' },
    );
    const handle = h.client.workflow.getHandle(workflowId);
    return { workflowId, handle, result: (await handle.result()) as RunEadsInterviewOutput };
  };

  it('interviews the brewery to the end when started from the temporal CLI, as a flow shop', async () => {
    const { workflowId, handle, result } = await interviewFromCli('brewery', 'brewery-flow-shop');
    const firm = fixture('brewery-flow-shop');

    expect(result.status).toBe('exhausted');
    expect(result.problemType).toBe(firm.expected['principal-problem-type']);
    const pursued = result.pursuits.map((p) => p.eadsId);
    expect(pursued).toEqual([
      'process/warm-up-with-challenges',
      'process/scheduling-problem-type',
      'process/flow-shop',
      'data/scheduling-data',
      'resources/resource-pools',
      'optimality/objectives',
    ]);
    expect(pursued.filter((id) => PROBLEM_EADS.includes(id))).toEqual([firm.expected['process-eads']]);
    expect(result.pursuits.every((p) => p.status === 'complete' && p.completeness === 1)).toBe(true);
    expectTroublesHeard(firm.expected['scheduling-challenges'] as string[], result.schedulingChallenges);

    const merged = result.scr.merged_scr;
    expect(merged['principal-problem-type']).toBe(firm.expected['principal-problem-type']);
    expect(merged['continuous?']).toBe(firm.expected['continuous?']);
    expect(merged['cyclical?']).toBe(firm.expected['cyclical?']);
    expect(merged['primary-objective']).toBe(firm.expected['primary-objective']);
    expect(merged.inputs).toEqual(['malted barley', 'water', 'hops', 'yeast']);
    expect(merged.duration).toEqual({ units: 'days', 'value-string': '22' });
    // The derived resource list is the union of the steps' equipment, and the inventory knows all of it.
    const steps = firm.tables.find((t) => t.name.includes('brewing'))!.rows;
    expect(merged.resources).toEqual([...new Set(steps.flatMap((s) => s.resources as string[]))]);
    expect(result.scr.conflicts).toEqual([]);
    expectTablesInScr(firm, result.scr);

    // Budget charged per pursued EADS: questions × decrement (warm-up 0.2, flow shop 0.1).
    const warmUp = result.pursuits.find((p) => p.eadsId === 'process/warm-up-with-challenges')!;
    expect(warmUp.budgetUsed).toBeCloseTo(warmUp.questions * 0.2, 6);
    const flowShop = result.pursuits.find((p) => p.eadsId === 'process/flow-shop')!;
    expect(flowShop.budgetUsed).toBeCloseTo(flowShop.questions * 0.1, 6);
    expect(flowShop.childWorkflowId).toBe(`${workflowId}--3-process-flow-shop`);
    expect(result.usage.calls).toBeGreaterThan(result.questionsAsked * 3);

    const history = await handle.query(conversationHistoryQuery);
    expect(history.activities).toHaveLength(6);
    expect(history.activities[0].questions_answers[0].answer).toMatch(/craft beers/);
    expect(history.scheduling_challenges).toEqual(result.schedulingChallenges);
    await recordHistory(handle, 'eads-interview-surrogate-brewery');
    await recordHistory(h.client.workflow.getHandle(flowShop.childWorkflowId), 'eads-pursuit-surrogate-flow-shop');
  });

  it(
    'interviews the machine shop (from the CLI) as a job shop and reports the ' + 'resource the inventory lacks',
    async () => {
      const firm = fixture('machine-shop-job-shop');
      const { result } = await interviewFromCli('harrow', 'machine-shop-job-shop');
      expect(result.problemType).toBe('JOB-SHOP-SCHEDULING-PROBLEM');
      expect(result.pursuits.map((p) => p.eadsId).filter((id) => PROBLEM_EADS.includes(id))).toEqual([
        'process/job-shop',
      ]);
      expectTroublesHeard(firm.expected['scheduling-challenges'] as string[], result.schedulingChallenges);
      expect(result.scr.merged_scr['classifiable-jobs?']).toBe(true);
      expect(result.scr.merged_scr['primary-objective']).toBe('MEET-DUE-DATES');
      expectTablesInScr(firm, result.scr);
      // The deburring bench appears in the unit processes but not in the resource pools.
      const missing = result.scr.conflicts.filter((c) => c.kind === 'resource-not-in-inventory');
      expect(missing.map((c) => c.values?.[0])).toEqual([firm.expected['conflict-resource']]);
    },
  );

  it('interviews the school (from the CLI) as a timetabling problem', async () => {
    const firm = fixture('school-timetable');
    const { result } = await interviewFromCli('linden-grove', 'school-timetable');
    expect(result.problemType).toBe('TIMETABLING-PROBLEM');
    expect(result.pursuits.map((p) => p.eadsId).filter((id) => PROBLEM_EADS.includes(id))).toEqual([
      'process/timetabling',
    ]);
    expectTroublesHeard(firm.expected['scheduling-challenges'] as string[], result.schedulingChallenges);
    expect(result.scr.merged_scr['cyclical?']).toBe(true);
    expect(result.scr.merged_scr['primary-objective']).toBe('SATISFY-PREFERENCES');
    expectTablesInScr(firm, result.scr);
  });
});

// The interview's orchestration (fallback, faults, continue-as-new, one interview per project)
// with a scripted firm: what is checked is what the workflows do, whatever the stand-in reads.
describe('runEadsInterview orchestration (scripted firm)', () => {
  let h: Harness;
  const model = new ScriptedModel().script(exampleFirm());
  // The example's problem type decides which process EADS follows the problem type; the firm
  // answers one of its questions per field it asks for.
  const library = cachedLibrary([path.resolve(__dirname, '..', 'data', 'eads')])();
  const problemType = library.get('process/scheduling-problem-type')!.example['principal-problem-type'] as string;
  const processLoaded = library.eads.find((e) => e.appliesWhen?.['one-of'].includes(problemType))!;
  const processEads = processLoaded.id;
  const processQuestions = processLoaded.fields.filter((f) => !f.derived).length;
  beforeAll(async () => {
    h = await createHarness({ rules: model.rules(EADS_TASKS) });
  });
  afterAll(async () => {
    expect(model.unexpected).toEqual([]);
    await h?.close();
  });

  it('falls back to the prerequisite order when the orchestrator model fails', async () => {
    h.standin.setFaults({ permanentStatus: 400, tasks: ['eads.orchestrate'] });
    try {
      const handle = await h.start(runEadsInterviewFlow, {
        projectId: 'fallback-scripted',
        mode: 'surrogate',
        fixture: 'brewery-flow-shop',
        maxPursuits: 4,
      });
      const result = await handle.result();
      expect(result.status).toBe('max-pursuits');
      expect(result.pursuits.map((p) => [p.eadsId, p.source])).toEqual([
        ['process/warm-up-with-challenges', 'fallback'],
        ['process/scheduling-problem-type', 'fallback'],
        [processEads, 'fallback'],
        ['data/scheduling-data', 'fallback'],
      ]);
      const view = await handle.query(eadsInterviewQuery);
      expect(view.nextEads?.rationale).toMatch(/orchestrator model failed.*fallback order/);
      expect(h.standin.stats().faults['400']).toBeGreaterThanOrEqual(4);
      await recordHistory(handle, 'eads-interview-orchestrator-fallback');
    } finally {
      h.standin.setFaults({});
    }
  });

  it('rides out 503 bursts and schema-violating replies on the interviewer calls', async () => {
    h.standin.setFaults({ burst503: 2, rateSchemaViolation: 0.3, tasks: ['eads.question', 'eads.refine'], seed: 7 });
    try {
      const result = await h.run(runEadsInterviewFlow, {
        projectId: 'scripted-faults',
        mode: 'surrogate',
        fixture: 'machine-shop-job-shop',
        maxPursuits: 3,
      });
      const faults = h.standin.stats().faults;
      expect(faults['503']).toBe(2);
      expect(faults.schema).toBeGreaterThan(0);
      expect(result.pursuits.map((p) => [p.eadsId, p.status])).toEqual([
        ['process/warm-up-with-challenges', 'complete'],
        ['process/scheduling-problem-type', 'complete'],
        [processEads, 'complete'],
      ]);
      expect(result.problemType).toBe(problemType);
    } finally {
      h.standin.setFaults({});
    }
  });

  it('continues as new in a long interview with its state intact', async () => {
    const plain = await h.run(runEadsInterviewFlow, {
      projectId: 'scripted-one-run',
      mode: 'surrogate',
      fixture: 'brewery-flow-shop',
    });
    const handle = await h.start(runEadsInterviewFlow, {
      projectId: 'scripted-many-runs',
      mode: 'surrogate',
      fixture: 'brewery-flow-shop',
      pursuitsPerRun: 2,
      questionsPerRun: 2,
    });
    const chained = await handle.result();
    // 6 pursuits, 2 per run: the orchestrator's pick is carried into the next run, so no run is wasted at the end.
    expect(chained.runs).toBe(3);
    expect(chained.scr).toEqual(plain.scr);
    expect(chained.pursuits.map((p) => [p.eadsId, p.status, p.questions, p.budgetUsed])).toEqual(
      plain.pursuits.map((p) => [p.eadsId, p.status, p.questions, p.budgetUsed]),
    );
    expect(chained.questionsAsked).toBe(plain.questionsAsked);
    // The pursuits themselves continued as new every 2 questions (the process EADS asks 3 or more).
    const flowShop = chained.pursuits.find((p) => p.eadsId === processEads)!;
    expect(processQuestions).toBeGreaterThanOrEqual(3);
    expect(flowShop.questions).toBe(processQuestions);
    expect(flowShop.runs).toBe(Math.ceil(processQuestions / 2));
    expect(chained.pursuits.map((p) => p.runs)).toEqual(
      chained.pursuits.map((p) => Math.max(1, Math.ceil(p.questions / 2))),
    );
    expect(plain.pursuits.every((p) => p.runs === 1)).toBe(true);
    const latestChildRun = await h.client.workflow.getHandle(flowShop.childWorkflowId).describe();
    expect(latestChildRun.runId).not.toBe(latestChildRun.raw.workflowExecutionInfo?.firstRunId);
    const history = await handle.query(conversationHistoryQuery);
    expect(history.activities.map((a) => a.pursuing_eads)).toEqual(plain.pursuits.map((p) => p.eadsId));
    await recordHistory(handle, 'eads-interview-continued-as-new');
  });

  it('rejects a surrogate interview without a fixture, and an unknown fixture, naming the field', async () => {
    await expect(h.start(runEadsInterviewFlow, { projectId: 'nofix', mode: 'surrogate' })).rejects.toThrow(
      /fixture: required/,
    );
    const handle = await h.start(runEadsInterviewFlow, {
      projectId: 'badfix',
      mode: 'surrogate',
      fixture: 'no-such-firm',
    });
    await expect(handle.result()).rejects.toMatchObject({
      cause: {
        cause: {
          type: 'EadsLibraryInvalid',
          message: expect.stringMatching(/unknown fixture "no-such-firm".*brewery-flow-shop/),
        },
      },
    });
  });

  it('keeps one running interview per project', async () => {
    const first = await h.start(runEadsInterviewFlow, { projectId: 'twice', mode: 'human' });
    const child = h.client.workflow.getHandle('eads-interview-twice--1-process-warm-up-with-challenges');
    await waitFor(
      () =>
        child.describe().then(
          () => true,
          () => undefined,
        ),
      'the first pursuit',
      { timeoutMs: 30_000, everyMs: 100 },
    );
    await new EadsSession(h.client, 'twice').question(child);
    // Through any client the interview id is the project's, so a second start is refused outright...
    expect(first.workflowId).toBe('eads-interview-twice');
    await expect(h.start(runEadsInterviewFlow, { projectId: 'twice', mode: 'human' })).rejects.toBeInstanceOf(
      WorkflowExecutionAlreadyStartedError,
    );
    // ...and one started under another id (a raw start) fails in the workflow, before asking anything.
    const second = await h.client.workflow.start('runEadsInterview', {
      taskQueue: h.taskQueue,
      workflowId: 'eads-interview-twice-raw',
      args: [{ projectId: 'twice', mode: 'human' }],
    });
    await expect(second.result()).rejects.toMatchObject({
      cause: {
        type: 'InterviewAlreadyRunning',
        message: expect.stringMatching(/project "twice" already has a running interview/),
      },
    });
    await first.executeUpdate(finishInterviewUpdate, { args: [{ reason: 'test over' }] });
    expect((await first.result()).status).toBe('finished');
  });
});
