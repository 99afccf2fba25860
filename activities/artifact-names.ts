/**
 * File names for the artifacts a workflow run writes (PDFs, charts, models) under ARTIFACT_DIR.
 * One name per run: a readable part from the workflow id, which many ids share once unsafe
 * characters are replaced and long ids cut (`adv:pdf` and `adv_pdf`, two 200-character ids with
 * one prefix), then a digest of the namespace, the whole workflow id and the run id, so no other
 * run, and no later run under the same id, writes over a file an earlier result points to. A
 * retried activity of the same run writes the same name.
 */
import { Context } from '@temporalio/activity';
import { createHash } from 'node:crypto';
import { slugify } from '../contracts/common';

export interface RunIdentity {
  namespace?: string;
  workflowId: string;
  runId: string;
}

/** `<slug of the workflow id, ≤ max>-<24 hex>`: lower-case letters, digits and hyphens only. */
export function runArtifactName(run: RunIdentity, max = 60): string {
  const digest = createHash('sha256')
    .update(`${run.namespace ?? ''}\n${run.workflowId}\n${run.runId}`)
    .digest('hex')
    .slice(0, 24);
  return `${slugify(run.workflowId, max)}-${digest}`;
}

/** The run the current activity belongs to, or undefined outside a workflow (a standalone activity). */
export function currentRun(): RunIdentity | undefined {
  const info = Context.current().info;
  const execution = info.workflowExecution;
  return execution ? { namespace: info.workflowNamespace, ...execution } : undefined;
}
