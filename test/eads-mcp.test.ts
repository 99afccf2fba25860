/**
 * The original design's MCP tools driving one guided pursuit through an in-process MCP server and client
 * (InMemoryTransport), and the terminal client interviewing a person who leaves and resumes.
 *
 * The model is scripted per test: the tools' and the client's part is to pass on what the
 * workflows made of the scripted replies, whatever the offline model's rules would say.
 */
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EadsSession } from '../access/eads-session';
import { runTerminalInterview } from '../client/eads-interview';
import { registerEadsTools } from '../client/mcp/eads-tools';
import { createHarness, type Harness } from './helpers/harness';
import { ScriptedModel } from './helpers/scripted-model';
import { ask, EADS_TASKS, expectScriptUsedUp, pick, refined } from './helpers/eads-script';

const WARM_UP = 'process/warm-up-with-challenges';
const PROBLEM_TYPE = 'process/scheduling-problem-type';

describe('EADS MCP tools', () => {
  let h: Harness;
  let mcp: McpClient;
  let server: McpServer;
  const model = new ScriptedModel();
  beforeAll(async () => {
    h = await createHarness({ rules: model.rules(EADS_TASKS) });
    server = new McpServer({ name: 'eads-test', version: '0.0.0' });
    registerEadsTools(server, { client: h.client, taskQueue: h.taskQueue });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    mcp = new McpClient({ name: 'eads-test-client', version: '0.0.0' });
    await Promise.all([server.connect(serverSide), mcp.connect(clientSide)]);
  });
  afterAll(async () => {
    await mcp?.close();
    await server?.close();
    await h?.close();
  });

  const call = async (name: string, args: Record<string, unknown>) => {
    const result = await mcp.callTool({ name, arguments: args });
    return {
      isError: result.isError === true,
      text: (result.content as Array<{ text: string }>)[0]?.text ?? '',
      data: result.structuredContent as Record<string, any>,
    };
  };

  it('lists the original EADS tools', async () => {
    const { tools } = await mcp.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(
      [
        'finalize_eads',
        'get_aggregated_scr',
        'get_conversation_history',
        'get_eads_status',
        'get_next_eads',
        'get_next_question',
        'list_available_eads',
        'process_eads_answer',
        'start_eads_pursuit',
      ].sort(),
    );
  });

  it('an answer whose next question is slow: the tool replies within its wait and points to get_next_question', async () => {
    const patient = new McpServer({ name: 'eads-test-short-wait', version: '0.0.0' });
    registerEadsTools(patient, { client: h.client, taskQueue: h.taskQueue, answerWaitMs: 300 });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const short = new McpClient({ name: 'eads-test-short-wait-client', version: '0.0.0' });
    await Promise.all([patient.connect(serverSide), short.connect(clientSide)]);
    const callShort = async (name: string, args: Record<string, unknown>) => {
      const result = await short.callTool({ name, arguments: args });
      return {
        isError: result.isError === true,
        text: (result.content as Array<{ text: string }>)[0]?.text ?? '',
        data: result.structuredContent as Record<string, any>,
      };
    };
    try {
      const project_id = `mcp-slow-${Date.now().toString(36)}`;
      const secondQuestion = 'Which of your binding steps holds the others up most weeks?';
      model.script({
        'eads.orchestrate': [pick(WARM_UP)],
        'eads.question': [
          ask('What do you bind, and for whom?', ['product-or-service-name']),
          // The model takes its time over the next question (well within the client's time-out).
          async () => {
            await new Promise((resolve) => setTimeout(resolve, 1500));
            return ask(secondQuestion, ['scheduling-challenges']);
          },
        ],
        'eads.refine': [refined({ 'product-or-service-name': 'hand-bound notebooks' })],
      });
      await callShort('get_next_eads', { project_id });
      await callShort('start_eads_pursuit', { project_id, eads_id: WARM_UP });
      const q1 = await callShort('get_next_question', { project_id, eads_id: WARM_UP });
      const answered = await callShort('process_eads_answer', {
        project_id,
        eads_id: WARM_UP,
        question_id: q1.data.question_id,
        answer: 'Notebooks for stationery shops.',
      });
      expect(answered.isError).toBe(false);
      expect(answered.data).toEqual({ question_id: q1.data.question_id, status: 'pending' });
      expect(answered.text).toMatch(/still being written. Call get_next_question/);
      const q2 = await callShort('get_next_question', { project_id, eads_id: WARM_UP });
      expect(q2.data).toMatchObject({ question_id: 'q2', question: secondQuestion });
      expectScriptUsedUp(model);
    } finally {
      await short.close();
      await patient.close();
    }
  });

  it('drives a pursuit: recommend, start, question, answer, status, history, finalize, SCR', async () => {
    const project_id = `mcp-kiln-${Date.now().toString(36)}`;
    const warmUpQuestion = 'Which pots come out of your kilns, and what makes the firing plan hard to keep?';
    const dataQuestion = 'Where do you look today when you plan a firing week: lists, files, notebooks?';
    const areasQuestion = 'For each of those sources, where does it live and which columns matter?';
    const rationale = 'Scripted: nothing is known yet, so the opening topic goes first.';
    model.script({
      'eads.orchestrate': [pick(WARM_UP, rationale), pick(PROBLEM_TYPE), pick(PROBLEM_TYPE)],
      'eads.question': [
        ask(warmUpQuestion, ['product-or-service-name']),
        ask(dataQuestion, ['areas-we-intend-to-discuss']),
        ask(areasQuestion, ['inquiry-areas'], { question_type: 'table' }),
      ],
      'eads.refine': [
        refined({
          'product-or-service-name': 'stoneware tableware',
          'scheduling-challenges': ['equipment-utilization', 'delivery-schedules'],
          'one-more-thing': 'One kiln load takes two days to cool.',
        }),
        refined({ 'areas-we-intend-to-discuss': ['glaze recipes', 'kiln log', 'shop orders'] }),
      ],
    });

    const library = await call('list_available_eads', { interviewer_type: 'process' });
    expect(library.data.eads_list.map((e: { id: string }) => e.id)).toEqual([
      'process/flow-shop',
      'process/job-shop',
      'process/scheduling-problem-type',
      'process/timetabling',
      'process/warm-up-with-challenges',
      'process/work-steps',
    ]);

    const next = await call('get_next_eads', { project_id, conversation_id: 'c-1' });
    expect(next.isError).toBe(false);
    expect(next.data).toMatchObject({
      eads_id: 'process/warm-up-with-challenges',
      interviewer_type: 'process',
      source: 'model',
      exhausted: false,
      interview_started: true,
      conversation_id: 'c-1',
      rationale,
    });

    const available = await call('list_available_eads', { project_id, interviewer_type: 'process' });
    const byId = Object.fromEntries(available.data.eads_list.map((e: { id: string }) => [e.id, e]));
    expect(byId['process/warm-up-with-challenges'].prerequisites_met).toBe(true);
    expect(byId['process/scheduling-problem-type']).toMatchObject({
      prerequisites: ['process/warm-up-with-challenges'],
      prerequisites_met: false,
    });

    const started = await call('start_eads_pursuit', { project_id, eads_id: 'process/warm-up-with-challenges' });
    expect(started.data).toMatchObject({
      eads_id: 'process/warm-up-with-challenges',
      budget: 1,
      budget_decrement: 0.2,
      current_state: { 'EADS-id': 'process/warm-up-with-challenges' },
    });
    expect(started.data.eads_instructions.fields.map((f: { name: string }) => f.name)).toEqual([
      'product-or-service-name',
      'scheduling-challenges',
      'one-more-thing',
    ]);
    expect(started.data.eads_instructions.interview_objective).toMatch(/Pursue this EADS first/);
    const again = await call('start_eads_pursuit', { project_id, eads_id: 'process/scheduling-problem-type' });
    expect(again.isError).toBe(true);
    expect(again.text).toMatch(/already pursuing process\/warm-up-with-challenges/);

    const question = await call('get_next_question', {
      project_id,
      eads_id: 'process/warm-up-with-challenges',
      responses_so_far: {},
    });
    expect(question.data).toMatchObject({
      question_id: 'q1',
      question_type: 'text',
      budget_cost: 0.2,
      budget_remaining: 0.8,
    });
    expect(question.data.question).toBe(warmUpQuestion);
    const wrong = await call('process_eads_answer', {
      project_id,
      eads_id: 'process/warm-up-with-challenges',
      question_id: 'q2',
      answer: 'mugs',
    });
    expect(wrong.isError).toBe(true);
    expect(wrong.text).toMatch(/not the current question/);
    const answered = await call('process_eads_answer', {
      project_id,
      eads_id: 'process/warm-up-with-challenges',
      question_id: 'q1',
      answer: 'We throw stoneware plates and mugs for restaurants; the kilns sit idle between loads.',
    });
    expect(answered.data).toMatchObject({ question_id: 'q1', completeness: 1, next_action: 'complete' });
    expect(answered.data.data_structure_update['product-or-service-name']).toBe('stoneware tableware');
    // The refinement saw the answer as the person gave it.
    expect(model.prompts('eads.refine')[0].answer).toMatch(/^We throw stoneware plates/);

    // The orchestrator now recommends the problem type; the interviewer picks the data EADS instead.
    const second = await call('get_next_eads', { project_id });
    expect(second.data).toMatchObject({
      eads_id: 'process/scheduling-problem-type',
      interview_started: false,
      already_pursuing: false,
    });
    const data = await call('start_eads_pursuit', { project_id, eads_id: 'data/scheduling-data' });
    expect(data.data).toMatchObject({ eads_id: 'data/scheduling-data', pursuit_no: 2, budget_decrement: 0.15 });
    const dq = await call('get_next_question', { project_id, eads_id: 'data/scheduling-data' });
    expect(dq.data.question).toBe(dataQuestion);
    const da = await call('process_eads_answer', {
      project_id,
      eads_id: 'data/scheduling-data',
      question_id: dq.data.question_id,
      answer: 'glaze recipes, kiln log, shop orders',
    });
    expect(da.data).toMatchObject({
      next_action: 'continue',
      data_structure_update: { 'areas-we-intend-to-discuss': ['glaze recipes', 'kiln log', 'shop orders'] },
      // The reply carries the next question: the client needs no second call for it.
      next: { kind: 'question', question: { id: 'q2', question: areasQuestion, question_type: 'table' } },
    });
    expect(da.text).toContain('Next question (q2): ');

    // The budget is charged to the EADS actually pursued (not the recommended one), per question
    // asked: q1 answered, q2 already asked and waiting.
    await call('get_next_question', { project_id, eads_id: 'data/scheduling-data' });
    const status = await call('get_eads_status', { project_id, eads_id: 'data/scheduling-data' });
    expect(status.data).toMatchObject({
      status: 'working',
      questions_asked: 2,
      budget_used: 0.3,
      budget_remaining: 0.7,
      completed_fields: ['areas-we-intend-to-discuss'],
      remaining_fields: ['inquiry-areas'],
    });
    expect(status.data.current_question).toMatchObject({
      id: 'q2',
      question_type: 'table',
      eads_id: 'data/scheduling-data',
    });
    const notPursued = await call('get_eads_status', { project_id, eads_id: 'process/scheduling-problem-type' });
    expect(notPursued.isError).toBe(true);
    expect(notPursued.text).toMatch(/has not been pursued/);
    const warmUpStatus = await call('get_eads_status', { project_id, eads_id: 'process/warm-up-with-challenges' });
    expect(warmUpStatus.data).toMatchObject({ status: 'complete', budget_used: 0.2, completeness: 1 });

    const history = await call('get_conversation_history', { project_id, include_minizinc: true });
    expect(
      history.data.activities.map((a: { pursuing_eads: string; status: string }) => [a.pursuing_eads, a.status]),
    ).toEqual([
      ['process/warm-up-with-challenges', 'complete'],
      ['data/scheduling-data', 'working'],
    ]);
    expect(history.data.activities[1].questions_answers).toEqual([
      { question: dq.data.question, answer: 'glaze recipes, kiln log, shop orders' },
    ]);
    // The tool reports the challenges the warm-up pursuit recorded.
    expect(history.data.scheduling_challenges).toEqual(['equipment-utilization', 'delivery-schedules']);
    expect(history.data.minizinc).toBeNull();

    const finalized = await call('finalize_eads', {
      project_id,
      eads_id: 'data/scheduling-data',
      final_notes: 'more next week',
    });
    expect(finalized.data).toMatchObject({
      success: true,
      validation_results: {
        complete: false,
        missing_fields: ['inquiry-areas'],
        status: 'finalized',
        notes: 'more next week',
      },
    });

    const session = new EadsSession(h.client, project_id);
    const view = await session.nextEads();
    expect(view.pursuits.map((p) => [p.eadsId, p.source, p.status])).toEqual([
      ['process/warm-up-with-challenges', 'model', 'complete'],
      ['data/scheduling-data', 'requested', 'finalized'],
    ]);
    const scr = await call('get_aggregated_scr', { project_id });
    expect(Object.keys(scr.data.scr_by_eads)).toEqual(['process/warm-up-with-challenges', 'data/scheduling-data']);
    expect(scr.data.merged_scr['areas-we-intend-to-discuss']).toEqual(['glaze recipes', 'kiln log', 'shop orders']);
    const filtered = await call('get_aggregated_scr', { project_id, eads_filter: ['data/scheduling-data'] });
    expect(Object.keys(filtered.data.scr_by_eads)).toEqual(['data/scheduling-data']);

    await session.finish('test over');
    const unknown = await call('get_conversation_history', { project_id: 'never-started' });
    expect(unknown.isError).toBe(true);
    expect(unknown.text).toMatch(/no EADS interview for project "never-started"/);
    expectScriptUsedUp(model);
  });
});

describe('terminal client', () => {
  let h: Harness;
  const model = new ScriptedModel();
  beforeAll(async () => {
    h = await createHarness({ rules: model.rules(EADS_TASKS) });
  });
  afterAll(async () => h?.close());

  const run = async (projectId: string, lines: string[]) => {
    const input = new PassThrough();
    const output = new PassThrough();
    let text = '';
    output.on('data', (chunk) => (text += String(chunk)));
    input.end(lines.map((l) => `${l}\n`).join(''));
    const code = await runTerminalInterview({ client: h.client, projectId, input, output, taskQueue: h.taskQueue });
    return { code, text };
  };

  it('interviews a person, who leaves and resumes by project id', async () => {
    const projectId = `terminal-${Date.now().toString(36)}`;
    const warmUpQuestion = 'What does your shop turn out, and where does planning it pinch?';
    const problemTypeQuestion = 'Of the patterns below, which matches how a job travels through your shop?';
    model.script({
      'eads.orchestrate': [pick(WARM_UP), pick(PROBLEM_TYPE)],
      'eads.question': [
        ask(warmUpQuestion, ['product-or-service-name']),
        ask(problemTypeQuestion, ['principal-problem-type'], { question_type: 'choice' }),
        ask('Is the work one unbroken stream, or separate lots?', ['continuous?']),
      ],
      'eads.refine': [
        refined(
          {
            'product-or-service-name': 'cast bronze bells',
            'scheduling-challenges': ['planned-maintenance'],
            'one-more-thing': 'The furnace is relined every spring.',
          },
          'Noted the bells and the spring relining.',
        ),
        refined({ 'principal-problem-type': 'FLOW-SHOP-SCHEDULING-PROBLEM' }, 'Noted how a bell travels.'),
      ],
    });
    const first = await run(projectId, [
      'We cast bronze bells for churches and schools; the furnace needs relining every spring.',
      ':quit',
    ]);
    expect(first.code, first.text).toBe(0);
    expect(first.text).toContain(`Started the EADS interview for "${projectId}"`);
    expect(first.text).toContain(`[q1] ${warmUpQuestion}`);
    // What the answer changed, as the refinement put it.
    expect(first.text).toContain('Noted the bells and the spring relining. (completeness 1, next: complete)');
    expect(first.text).toContain(`[q1] ${problemTypeQuestion}`);
    expect(first.text).toContain(`Resume with: npm run eads -- ${projectId}`);

    const second = await run(projectId, ['Each bell passes moulding, pouring, cooling and tuning in turn.', ':finish']);
    expect(second.code).toBe(0);
    expect(second.text).toContain(`Resuming the EADS interview for "${projectId}"`);
    // The choice confirmed in words (by code), then the refinement's own note.
    expect(second.text).toMatch(/Understood: Flow shop — [^\n]*Noted how a bell travels\./);
    expect(second.text).toMatch(/The interview has ended \(finished\)/);
    expect(second.text).toContain('problem type: FLOW-SHOP-SCHEDULING-PROBLEM');
    expectScriptUsedUp(model);
  });
});
