/**
 * The web console in a real browser (Debian's Chromium through playwright-core): the proposal and
 * EADS interviews answered through the page give the same results as the terminal clients, a
 * console restart mid-interview loses nothing, and a BOM question and a discovery run are started
 * and read from the page. Skipped, saying so, where no Chromium is found.
 *
 * The EADS model tasks are scripted (the same replies for the page's interview and the terminal's);
 * the other flows' tasks answer from the offline model's rules.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flowStartOptions } from '../access/flow-client';
import { runTerminalInterview } from '../client/eads-interview';
import { conductInterview, type InterviewIO } from '../client/proposal-interview';
import { bomQuestionFlow } from '../flows/bom/contract';
import { EXAMPLE_PRP } from '../flows/discovery/contract';
import { eadsInterviewWorkflowId, type RunEadsInterviewOutput } from '../flows/eads/contract';
import { researchProposalFlow, type ProposalOutput } from '../flows/proposal/contract';
import { scheduleFromScrFlow } from '../flows/schedule/contract';
import { buildControlPlane, type ControlPlane } from '../server/app';
import { RECENT_RUNS } from '../server/console/views';
import type { TemporalAccess } from '../server/temporal';
import { findChromium, launchChromium, type ConsoleBrowser } from '../workers/console-browser';
import { createHarness, type Harness } from './helpers/harness';
import { ScriptedModel, type Sections } from './helpers/scripted-model';
import { ask, EADS_TASKS, pick, refined } from './helpers/eads-script';
import { loadStandinRules } from '../flows/registry';
import * as flowRunner from '../server/flow-runner';

const chromium = findChromium();
if (!chromium.path) console.warn(`[console-browser.test] skipping the browser tests: ${chromium.reason}`);

const SHOTS = path.join(process.cwd(), 'out', 'test', 'console');

const EADS_QUESTIONS = {
  warmUp: 'What do you roast, and which part of planning the roasts hurts?',
  problemType: 'Which of these is nearest to how a batch of beans moves through the roastery?',
};
/** Replies by prompt, so the page's interview and the terminal's get the same ones. */
const eadsScript = {
  'eads.orchestrate': {
    always: (s: Sections) => pick((s.candidates as Array<{ eads_id: string }>)[0].eads_id),
  },
  'eads.question': {
    always: (s: Sections) => {
      const asked = (s.asked as unknown[]).length;
      if ((s.eads as { id: string }).id === 'process/warm-up-with-challenges')
        return ask(EADS_QUESTIONS.warmUp, ['product-or-service-name']);
      return asked === 0
        ? ask(EADS_QUESTIONS.problemType, ['principal-problem-type'], { question_type: 'choice' })
        : ask('Do the beans ever flow on without a pause between steps?', ['continuous?']);
    },
  },
  'eads.refine': {
    always: (s: Sections) =>
      (s.eads as { id: string }).id === 'process/warm-up-with-challenges'
        ? refined({
            'product-or-service-name': 'roasted coffee beans',
            'scheduling-challenges': ['bottleneck-processes'],
            'one-more-thing': 'One roaster serves every order.',
          })
        : refined({ 'principal-problem-type': 'FLOW-SHOP-SCHEDULING-PROBLEM' }),
  },
};

describe.skipIf(!chromium.path)('web console in Chromium', () => {
  let h: Harness;
  let browser: ConsoleBrowser;
  let console_: ControlPlane;
  let base: string;
  let storeDir: string;
  const model = new ScriptedModel().script(eadsScript);

  const startConsole = async () => {
    const temporal: TemporalAccess = {
      client: async () => h.client,
      defaultNamespace: () => 'default',
      runner: async () => flowRunner,
      pollers: async () => ({ workflow: 0, activity: 0 }) as never,
      close: async () => undefined,
    };
    console_ = await buildControlPlane({
      storePath: path.join(storeDir, `registry-${Date.now()}.jsonl`),
      temporal,
      logLevel: process.env.CONSOLE_TEST_LOG ? 'error' : 'silent',
      console: { artifactDir: h.config.ARTIFACT_DIR, taskQueue: h.taskQueue },
    });
    base = await console_.listen('127.0.0.1', 0);
  };

  beforeAll(async () => {
    storeDir = mkdtempSync(path.join(tmpdir(), 'console-test-'));
    mkdirSync(SHOTS, { recursive: true });
    const others = (await loadStandinRules()).filter((r) => !(EADS_TASKS as readonly string[]).includes(r.task));
    h = await createHarness({ rules: [...model.rules(EADS_TASKS), ...others] });
    await startConsole();
    browser = await launchChromium(chromium.path!);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await console_?.close();
    await h?.close();
    rmSync(storeDir, { recursive: true, force: true });
  });

  const newPage = async () => {
    const page = await browser.context.newPage();
    page.setDefaultTimeout(60_000);
    return page;
  };

  /** Restarts the console server (a new process would do the same: nothing is kept in it). */
  const restartConsole = async () => {
    await console_.close();
    await startConsole();
  };

  const PROPOSAL_ANSWERS = [
    "Master's",
    'Computer Science',
    'Multi-agent systems <script>window.__xss = 1</script> for logistics',
    '20',
    '1 year',
    'Python, statistics',
    'none',
    'none',
    '',
  ];

  async function answerProposalQuestion(page: Page, number: number, answer: string) {
    await page.locator('.count', { hasText: `Question ${number} of` }).waitFor();
    await page.locator('#answer').fill(answer);
    await page.getByRole('button', { name: 'Answer' }).click();
    await page.waitForLoadState();
  }

  // retry: under heavy machine load the result page of the approved proposal has answered 500 (3 of
  // ~12 runs, cause not found yet; noted on the issue). A retry runs a whole new interview.
  it(
    'answers a whole proposal interview through the page, across a console restart, like the terminal client',
    { retry: 1, timeout: 480_000 },
    async () => {
      const page = await newPage();
      await page.goto(`${base}/console/flows/writeResearchProposal`);
      await page.screenshot({ path: path.join(SHOTS, 'start-form.png'), fullPage: true });
      await page.getByLabel('mode').selectOption('interactive');
      await page.getByLabel('review').selectOption('true');
      await page.getByRole('button', { name: /^Start/ }).click();
      await page.waitForURL(/\/console\/runs\/research-proposal-/);
      const workflowId = decodeURIComponent(new URL(page.url()).pathname.split('/').pop()!);
      expect(await page.locator('a.temporal').getAttribute('href')).toMatch(
        new RegExp(`/workflows/${workflowId}/[^/]+/history$`),
      );

      for (let i = 0; i < 3; i++) await answerProposalQuestion(page, i + 1, PROPOSAL_ANSWERS[i]);
      // A rejected answer: the reason is shown beside the field and the same question stays open.
      await answerProposalQuestion(page, 4, 'lots');
      await expect
        .poll(() => page.locator('#answer-error').textContent())
        .toMatch(/weekly_hours must be a whole number/);
      expect(await page.locator('#answer').getAttribute('aria-invalid')).toBe('true');
      await page.screenshot({ path: path.join(SHOTS, 'proposal-question-error.png'), fullPage: true });
      await answerProposalQuestion(page, 4, PROPOSAL_ANSWERS[3]);

      // Leave, restart the console, come back to the same address: the interview goes on.
      await restartConsole();
      await page.goto(`${base}/console/runs/${workflowId}`);
      for (let i = 4; i < PROPOSAL_ANSWERS.length; i++) await answerProposalQuestion(page, i + 1, PROPOSAL_ANSWERS[i]);

      await page.locator('#review-h').waitFor();
      await page.screenshot({ path: path.join(SHOTS, 'proposal-review.png'), fullPage: true });
      await page.getByRole('button', { name: 'Request changes' }).click();
      await expect.poll(() => page.locator('#comments-error').textContent()).toMatch(/needs comments/);
      await page.getByRole('button', { name: 'Approve' }).click();
      // The approval reaches the workflow (it then renders the PDF and completes); the page shows the
      // result once it has: reload it then, in case its live poll was between two checks.
      const approved = h.client.workflow.getHandle(workflowId);
      await expect
        .poll(async () => (await approved.describe()).status.name, { timeout: 120_000, interval: 500 })
        .toBe('COMPLETED');
      await page.goto(`${base}/console/runs/${workflowId}`);
      const shown = (await page.content()).replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');
      expect(await page.locator('#result-h').count(), shown.slice(0, 600)).toBe(1);
      await page.screenshot({ path: path.join(SHOTS, 'proposal-result.png'), fullPage: true });
      // A document, not a key/value dump: its sections, and the literature's titles link to the works.
      expect(await page.locator('article.proposal h4').count()).toBe(5);
      // (Outside the whole result's JSON, which keeps the contract's field names.)
      expect((await page.locator('.result > :not(details)').allTextContents()).join('\n')).not.toMatch(
        /problem_statement|preliminary_literature/,
      );
      // As many links as the proposal cites works (the stand-in may find none on topic, and then
      // the page says so), each to an http(s) address.
      const literature = await page
        .locator('table.literature a')
        .evaluateAll((links) => links.map((a) => (a as unknown as { href: string }).href));
      const cited = ((await approved.result()) as ProposalOutput).proposal!.problem_definition.preliminary_literature;
      expect(literature).toHaveLength(cited.filter((c) => /^https?:\/\//.test(c.url ?? '')).length);
      for (const href of literature) expect(href).toMatch(/^https?:\/\//);
      if (!cited.length) expect(shown).toContain('No literature found.');

      // The answer with markup is shown as text, never run.
      expect(await page.evaluate(() => (globalThis as { __xss?: number }).__xss)).toBeUndefined();
      expect(await page.locator('main').textContent()).toContain('<script>window.__xss = 1</script>');
      const pdf = await page.locator('a.pdf').getAttribute('href');
      const response = await page.request.get(`${base}${pdf}`);
      expect(response.status()).toBe(200);
      expect((await response.body()).subarray(0, 4).toString()).toBe('%PDF');

      // The terminal client, given the same answers.
      const viaPage = (await h.client.workflow.getHandle(workflowId).result()) as ProposalOutput;
      const handle = await h.start(researchProposalFlow, { mode: 'interactive', review: true });
      const answers = [...PROPOSAL_ANSWERS, 'a'];
      const io: InterviewIO = { ask: async () => answers.shift() ?? null, print: () => undefined };
      const viaTerminal = await conductInterview(handle, io);
      expect(viaPage.status).toBe(viaTerminal!.status);
      expect(viaPage.profile).toEqual(viaTerminal!.profile);
      expect(viaPage.title).toBe(viaTerminal!.title);
      expect(viaPage.review.outcome).toBe('approved');
      expect(viaPage.interview).toEqual(viaTerminal!.interview);
      await page.close();
    },
  );

  const EADS_ANSWERS = [
    'We roast specialty coffee beans for cafés; the roaster is the bottleneck and demand has seasonal peaks.',
    'Every batch goes through the same steps in the same order.',
  ];

  async function answerEads(page: Page, answer: string) {
    await page.locator('section.question').waitFor();
    const ownWords = page.locator('#answer-own');
    await ((await ownWords.count()) ? ownWords : page.locator('#answer')).fill(answer);
    await page.getByRole('button', { name: 'Answer', exact: true }).click();
    await page.waitForLoadState();
  }

  it(
    'answers a whole EADS interview through the page, across a console restart, like ' + 'the terminal client',
    async () => {
      const projectId = `console-${Date.now().toString(36)}`;
      const page = await newPage();
      await page.goto(`${base}/console/flows/runEadsInterview`);
      await page.getByLabel('Project id').fill(projectId);
      await page.getByRole('button', { name: /^Start/ }).click();
      await page.waitForURL(new RegExp(`/console/runs/${eadsInterviewWorkflowId(projectId)}$`));
      await page.locator('legend#q-h, label#q-h', { hasText: EADS_QUESTIONS.warmUp }).waitFor();
      await page.screenshot({ path: path.join(SHOTS, 'eads-question.png'), fullPage: true });
      await answerEads(page, EADS_ANSWERS[0]);

      await restartConsole();
      await page.goto(`${base}/console/go?workflowId=${projectId}`);
      await page.locator('#q-h', { hasText: EADS_QUESTIONS.problemType }).waitFor();
      await page.screenshot({ path: path.join(SHOTS, 'eads-choice.png'), fullPage: true });
      await answerEads(page, EADS_ANSWERS[1]);
      await page.locator('.eads-progress table').waitFor();
      await page.locator('section.question').waitFor();
      await page.getByRole('button', { name: 'Finish the whole interview' }).click();
      await page.locator('#result-h').waitFor({ timeout: 90_000 });
      await page.screenshot({ path: path.join(SHOTS, 'eads-result.png'), fullPage: true });
      // The result in words: the problem type by its name, no SCR keys outside the whole result's JSON.
      const eadsShown = (await page.locator('.result > :not(details)').allTextContents()).join('\n');
      expect(eadsShown).toContain('Flow shop');
      expect(eadsShown).not.toMatch(/FLOW-SHOP-SCHEDULING-PROBLEM|product-or-service-name|merged_scr/);

      const viaPage = (await h.client.workflow
        .getHandle(eadsInterviewWorkflowId(projectId))
        .result()) as RunEadsInterviewOutput;
      const terminalProject = `${projectId}-t`;
      const input = new PassThrough();
      input.end([...EADS_ANSWERS, ':finish'].map((l) => `${l}\n`).join(''));
      const output = new PassThrough();
      output.resume();
      expect(
        await runTerminalInterview({
          client: h.client,
          projectId: terminalProject,
          input,
          output,
          taskQueue: h.taskQueue,
        }),
      ).toBe(0);
      const viaTerminal = (await h.client.workflow
        .getHandle(eadsInterviewWorkflowId(terminalProject))
        .result()) as RunEadsInterviewOutput;
      const comparable = (r: RunEadsInterviewOutput) => ({
        status: r.status,
        product: r.product,
        problemType: r.problemType,
        challenges: r.schedulingChallenges,
        pursuits: r.pursuits.map((p) => [p.eadsId, p.status, p.completeness, p.questions]),
        questionsAsked: r.questionsAsked,
        merged: r.scr.merged_scr,
      });
      expect(comparable(viaPage)).toEqual(comparable(viaTerminal));
      expect(viaPage).toMatchObject({ product: 'roasted coffee beans', problemType: 'FLOW-SHOP-SCHEDULING-PROBLEM' });
      expect(model.unexpected).toEqual([]);
      await page.close();
    },
    240_000,
  );

  it('starts a BOM question and a discovery run from the page and reads their results', async () => {
    const page = await newPage();
    await page.goto(`${base}/console/`);
    await page.screenshot({ path: path.join(SHOTS, 'index.png'), fullPage: true });
    await page.getByRole('link', { name: 'BOM question' }).click();
    await page.getByLabel('question').fill('List BOMs using battery components');
    await page.getByRole('button', { name: /^Start/ }).click();
    await page.locator('#result-h').waitFor();
    expect(await page.locator('.result table tbody tr').count()).toBeGreaterThan(0);
    const sql = page.locator('details.sql pre').first();
    expect(await sql.isVisible()).toBe(false);
    await page.getByText('Show the SQL').click();
    expect(await sql.isVisible()).toBe(true);
    expect(await sql.textContent()).toMatch(/SELECT/i);
    await page.screenshot({ path: path.join(SHOTS, 'bom-result.png'), fullPage: true });
    // The answer's markdown is rendered: no fences or row bullets as text, the SQL only in its section.
    // (Text without the two <details>: the SQL section and the whole result's JSON.)
    const shownText = (await page.locator('.result > :not(details)').allTextContents()).join('\n');
    expect(shownText).not.toContain('```');
    expect(shownText).not.toMatch(/(^|\n)\s*- \S/);
    expect(shownText).not.toMatch(/SELECT/i);
    expect(await page.locator('.result table tbody tr').count()).toBeLessThanOrEqual(20);
    const bomId = decodeURIComponent(new URL(page.url()).pathname.split('/').pop()!);
    const csv = await page.request.get(
      `${base}${await page.locator('a.download', { hasText: 'CSV' }).getAttribute('href')}`,
    );
    expect(csv.status()).toBe(200);
    expect(csv.headers()['content-type']).toMatch(/^text\/csv/);
    const json = await page.request.get(`${base}/console/runs/${encodeURIComponent(bomId)}/rows.json`);
    const bomResult = (await h.client.workflow.getHandle(bomId).result()) as { pipeline_state: { rows: unknown[] } };
    expect(await json.json()).toEqual(bomResult.pipeline_state.rows);
    expect((await csv.text()).trim().split('\r\n')).toHaveLength(bomResult.pipeline_state.rows.length + 1);

    // The start page lists the run with its status (visibility catches up in a moment). It lists
    // the runs on the console's task queue, this file's harness's own: other test files' runs in the
    // same namespace (interviews left waiting, which visibility lists first) cannot push this one
    // off its 20 rows. As those would, more open runs than the page has rows, newer than this one,
    // on a queue no worker polls: ended below whatever happens, and by their time-out if the file is
    // killed. This file's own runs may come before it, so it is found by its id, not as the first
    // row; the rows are newest first.
    const elsewhere = `${h.taskQueue}-elsewhere`;
    const others = await Promise.all(
      Array.from({ length: RECENT_RUNS + 1 }, (_, i) =>
        h.client.workflow.start(bomQuestionFlow.type, {
          ...flowStartOptions(bomQuestionFlow, { question: `Open elsewhere ${i}` }, { taskQueue: elsewhere }),
          workflowExecutionTimeout: '5 minutes',
        }),
      ),
    );
    try {
      await expect
        .poll(
          async () => {
            await page.goto(`${base}/console/`);
            const row = page.locator('table.runs tbody tr', { hasText: bomId });
            return (await row.count()) ? row.first().textContent() : '';
          },
          { timeout: 30_000, interval: 500 },
        )
        .toMatch(new RegExp(`${bomId}[\\s\\S]*completed`));
      const started = (await page.locator('table.runs tbody tr td:last-child').allTextContents()).map((t) => t.trim());
      expect(started).toEqual([...started].sort().reverse());
      // Every run listed is one of this console's queue, none of another file's or of the open ones.
      const listed = (await page.locator('table.runs tbody tr td:first-child').allTextContents()).map((t) => t.trim());
      expect(listed).toContain(bomId);
      for (const id of listed)
        expect((await h.client.workflow.getHandle(id).describe()).taskQueue, id).toBe(h.taskQueue);
    } finally {
      await Promise.all(others.map((o) => o.terminate('console-browser test: done').catch(() => undefined)));
    }
    await page.screenshot({ path: path.join(SHOTS, 'index-recent-runs.png'), fullPage: true });

    // A bad input is shown beside its field, and nothing is started.
    await page.goto(`${base}/console/flows/answerBomQuestion`);
    await page.getByLabel('question').fill('ab');
    await page.getByRole('button', { name: /^Start/ }).click();
    expect(await page.locator('#f-question-error').textContent()).toMatch(/at least 3 characters/);
    expect(await page.getByLabel('question').inputValue()).toBe('ab');

    // A platform check reads as what was checked and what answered, with no JSON outside its fold.
    await page.goto(`${base}/console/flows/platformCheck`);
    await page.getByLabel(/topic/i).fill('battery');
    await page.getByRole('button', { name: /^Start/ }).click();
    await page.locator('#result-h').waitFor({ timeout: 90_000 });
    const platformText = (await page.locator('.result > :not(details)').allTextContents()).join('\n');
    expect(platformText).toMatch(/Checked the three backends on the topic battery/);
    expect(platformText).toMatch(/Documents found/);
    expect(platformText).not.toMatch(/"topic"\s*:/);
    await page.screenshot({ path: path.join(SHOTS, 'platform-result.png'), fullPage: true });

    await page.goto(`${base}/console/flows/discoverFromPrp`);
    await page.getByLabel('prp').fill(EXAMPLE_PRP);
    await page.getByRole('button', { name: /^Start/ }).click();
    await page.locator('#result-h').waitFor({ timeout: 90_000 });
    expect(await page.locator('section.group').count()).toBeGreaterThan(0);
    await page.screenshot({ path: path.join(SHOTS, 'discovery-result.png'), fullPage: true });
    await page.close();
  }, 180_000);

  it('shows a schedule run with its Gantt chart and its MiniZinc model', async () => {
    const handle = await h.start(scheduleFromScrFlow, {
      ...scheduleFromScrFlow.examples[0],
      projectId: `console-schedule-${Date.now().toString(36)}`,
    });
    await handle.result();
    const page = await newPage();
    await page.goto(`${base}/console/runs/${encodeURIComponent(handle.workflowId)}`);
    await page.locator('#result-h').waitFor();
    const chart = page.locator('figure.chart img');
    await chart.waitFor();
    await expect
      .poll(() => chart.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth))
      .toBeGreaterThan(0);
    expect(await page.locator('pre code.language-minizinc').textContent()).toMatch(/solve\s/);
    await page.screenshot({ path: path.join(SHOTS, 'schedule-result.png'), fullPage: true });
    await page.close();
  }, 180_000);
});
