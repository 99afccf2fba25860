/**
 * The demo's screenshots of the web console (`out/console/`): the index, a start form, each
 * finished run, and the first question of a proposal and an EADS interview. Taken only where
 * Chromium is found; otherwise the demo says why and goes on.
 */
import type { Client } from '@temporalio/client';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { TASK_QUEUE } from '../contracts/common';
import { runEadsInterviewFlow } from '../flows/eads/contract';
import { researchProposalFlow } from '../flows/proposal/contract';
import { startFlow } from '../access/flow-client';
import { buildControlPlane } from '../server/app';
import type { TemporalAccess } from '../server/temporal';
import { findChromium, launchChromium } from './console-browser';
import * as flowRunner from '../server/flow-runner';

export async function screenshotConsole(
  client: Client,
  artifactDir: string,
  runs: Array<{ slug: string; workflowId: string }>,
): Promise<string> {
  const chromium = findChromium();
  if (!chromium.path) return `no console screenshots: ${chromium.reason}`;
  const shots = path.join(artifactDir, 'console');
  mkdirSync(shots, { recursive: true });
  const storeDir = mkdtempSync(path.join(tmpdir(), 'demo-console-'));
  const temporal: TemporalAccess = {
    client: async () => client,
    defaultNamespace: () => client.options.namespace,
    runner: async () => flowRunner,
    pollers: async () => ({ workflow: 0, activity: 0 }) as never,
    close: async () => undefined,
  };
  const cp = await buildControlPlane({
    storePath: path.join(storeDir, 'registry.jsonl'),
    temporal,
    logLevel: 'silent',
    console: { artifactDir, taskQueue: TASK_QUEUE },
  });
  const browser = await launchChromium(chromium.path);
  try {
    const base = await cp.listen('127.0.0.1', 0);
    const page = await browser.context.newPage();
    page.setDefaultTimeout(30_000);
    const shoot = async (url: string, name: string, ready = 'main h1') => {
      await page.goto(`${base}${url}`);
      await page.locator(ready).first().waitFor();
      await page.screenshot({ path: path.join(shots, `${name}.png`), fullPage: true });
    };
    await shoot('/console/', 'index');
    await shoot('/console/flows/answerBomQuestion', 'start-bom-question');
    const seen = new Map<string, number>();
    for (const run of runs) {
      const n = (seen.get(run.slug) ?? 0) + 1;
      seen.set(run.slug, n);
      await shoot(
        `/console/runs/${encodeURIComponent(run.workflowId)}`,
        `result-${run.slug}${n > 1 ? `-${n}` : ''}`,
        '#result-h, p.error',
      );
    }
    // Interviews waiting for a person: their first question.
    const proposal = await startFlow(client, researchProposalFlow, { mode: 'interactive', review: true });
    await shoot(`/console/runs/${proposal.workflowId}`, 'proposal-interview', 'section.question');
    const eads = await startFlow(client, runEadsInterviewFlow, {
      projectId: `demo-${Date.now().toString(36)}`,
      mode: 'human',
    });
    await shoot(`/console/runs/${eads.workflowId}`, 'eads-interview', 'section.question');
    await Promise.all([proposal.terminate('demo over'), eads.terminate('demo over')]);
    return `console screenshots in ${path.relative(process.cwd(), shots) || '.'}/`;
  } finally {
    await browser.close();
    await cp.close();
    rmSync(storeDir, { recursive: true, force: true });
  }
}
