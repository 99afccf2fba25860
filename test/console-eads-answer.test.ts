/**
 * The web console's EADS answer: the page the answer redirects to already shows the next question.
 * The next question is written by the model after the answer's refinement, so without waiting for
 * it in the workflow (as the terminal client does) the page would show "waiting" and its script
 * would poll for it. A model slowed to 1 s a call makes the gap wide enough to see every time.
 * The model is scripted: the page must show the question the script wrote next.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eadsInterviewQuery, runEadsInterviewFlow } from '../flows/eads/contract';
import { buildControlPlane, type ControlPlane } from '../server/app';
import * as flowRunner from '../server/flow-runner';
import type { TemporalAccess } from '../server/temporal';
import { createHarness, type Harness } from './helpers/harness';
import { ScriptedModel } from './helpers/scripted-model';
import { ask, EADS_TASKS, expectScriptUsedUp, pick, refined } from './helpers/eads-script';
import { waitFor } from './helpers/wait';

/** The question on a console page: its answer form (question ids restart at q1 in each pursuit). */
const questionForm = (page: string) =>
  /<form method="post" action="[^"]*\/eads\/answer">[\s\S]*?<\/form>/.exec(page)?.[0];
const questionIdOf = (form: string) => /name="questionId" value="([^"]+)"/.exec(form)?.[1];

describe('console EADS answer', () => {
  let h: Harness;
  let plane: ControlPlane;
  let base: string;
  let storeDir: string;
  const model = new ScriptedModel();

  beforeAll(async () => {
    h = await createHarness({ rules: model.rules(EADS_TASKS) });
    storeDir = mkdtempSync(path.join(tmpdir(), 'console-eads-answer-'));
    const temporal: TemporalAccess = {
      client: async () => h.client,
      defaultNamespace: () => 'default',
      runner: async () => flowRunner,
      pollers: async () => ({ workflow: 0, activity: 0 }) as never,
      close: async () => undefined,
    };
    plane = await buildControlPlane({
      storePath: path.join(storeDir, 'registry.jsonl'),
      temporal,
      logLevel: 'silent',
      healthCheckMs: 0,
      console: { artifactDir: h.config.ARTIFACT_DIR, taskQueue: h.taskQueue },
    });
    base = await plane.listen('127.0.0.1', 0);
  }, 60_000);

  afterAll(async () => {
    await plane?.close();
    await h?.close();
    rmSync(storeDir, { recursive: true, force: true });
  });

  it('redirects to a page that already shows the next question, with a slow model', async () => {
    const projectId = `console-answer-${randomUUID().slice(0, 8)}`;
    const secondQuestion = 'Which of those troubles costs you the most hours in a typical month?';
    model.script({
      'eads.orchestrate': [pick('process/warm-up-with-challenges')],
      'eads.question': [
        ask('What comes out of your workshop, and what makes its planning tricky?', ['product-or-service-name']),
        ask(secondQuestion, ['scheduling-challenges']),
      ],
      // Only the product is read: the pursuit goes on to a second question.
      'eads.refine': [refined({ 'product-or-service-name': 'hand-built violins' })],
    });
    const handle = await h.start(runEadsInterviewFlow, { projectId, mode: 'human', orchestration: 'auto' });
    const url = `${base}/console/runs/${handle.workflowId}`;
    const first = await waitFor(
      async () => questionForm(await (await fetch(url)).text()),
      'the first question on the page',
    );
    h.standin.setFaults({ latencyMs: 1000 });
    try {
      const posted = await fetch(`${url}/eads/answer`, {
        method: 'POST',
        body: new URLSearchParams({
          questionId: questionIdOf(first)!,
          answerText: 'We build violins by hand; varnish takes weeks to dry between coats.',
        }),
        redirect: 'manual',
      });
      expect(posted.status).toBe(303);
      const next = questionForm(await (await fetch(`${base}${posted.headers.get('location')}`)).text());
      expect(next).toBeDefined();
      expect(next).not.toBe(first);
      expect(next).toContain(secondQuestion);
      expect(questionIdOf(next!)).toBe('q2');
    } finally {
      h.standin.setFaults({});
      await handle.terminate('test done');
    }
    expectScriptUsedUp(model);
  }, 60_000);
  it('an answer posted to a run that is no EADS interview is refused, not an internal error', async () => {
    const projectId = `console-other-${randomUUID().slice(0, 8)}`;
    model.script({
      'eads.orchestrate': [pick('process/warm-up-with-challenges')],
      'eads.question': { always: ask('What do you make, and what is hard to plan?', ['product-or-service-name']) },
    });
    const handle = await h.start(runEadsInterviewFlow, { projectId, mode: 'human', orchestration: 'auto' });
    try {
      const pursuitId = await waitFor(
        async () => (await handle.query(eadsInterviewQuery)).current?.childWorkflowId,
        'the pursuit started',
      );
      const form = { questionId: 'q1', answerText: 'Copper kettles, hammered by hand.' };
      // The pursuit's own run (a child workflow of another type), and an id that names nothing.
      const missing = `no-such-run-${randomUUID().slice(0, 8)}`;
      for (const [id, status, says] of [
        [pursuitId, 422, 'not an EADS interview'],
        [missing, 404, 'There is no workflow'],
      ] as const) {
        for (const route of ['answer', 'start', 'finish']) {
          const posted = await fetch(`${base}/console/runs/${encodeURIComponent(id)}/eads/${route}`, {
            method: 'POST',
            body: new URLSearchParams(form),
            redirect: 'manual',
          });
          const page = await posted.text();
          expect({ id, route, status: posted.status, says: page.includes(says) }).toEqual({
            id,
            route,
            status,
            says: true,
          });
        }
      }
      // Nothing reached the pursuit: its question still waits.
      expect((await handle.query(eadsInterviewQuery)).current?.childWorkflowId).toBe(pursuitId);
    } finally {
      await handle.terminate('test done');
    }
  }, 60_000);
});
