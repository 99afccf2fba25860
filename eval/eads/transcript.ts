/**
 * Prints one or more development firms' surrogate interviews, question by question, for whoever
 * works on the interview rules (never for the sealed firms):
 *   npx tsx eval/eads/transcript.ts night-bakery granola-bar-line
 */
import path from 'node:path';
import { startFlow } from '../../access/flow-client';
import { conversationHistoryQuery, runEadsInterviewFlow } from '../../flows/eads/contract';
import type { FlowDefinition } from '../../contracts/common';
import { startOfflineStack } from '../../workers/offline-stack';
import { loadTruth } from './index';

async function main(): Promise<void> {
  const firms = process.argv.slice(2);
  const truth = loadTruth('dev');
  for (const f of firms) if (!truth[f]) throw new Error(`${f} is not a development firm`);
  const stack = await startOfflineStack({ artifactDir: path.resolve('out', 'eval'), quiet: true });
  try {
    for (const firm of firms) {
      const handle = await startFlow(stack.client, runEadsInterviewFlow as unknown as FlowDefinition, {
        projectId: `${`transcript-${firm}`.slice(0, 39)}-${Date.now().toString(36)}`,
        mode: 'surrogate',
        fixture: firm,
      });
      const result = (await handle.result()) as { problemType: string | null; schedulingChallenges: string[] };
      const history = await stack.client.workflow.getHandle(handle.workflowId).query(conversationHistoryQuery);
      console.log(`\n=== ${firm}: type ${result.problemType}, challenges ${result.schedulingChallenges.join(', ')}`);
      console.log(`    truth: ${truth[firm]['problem-type']} ${Object.keys(truth[firm].challenges).join(', ')}`);
      for (const a of history.activities) {
        console.log(`--- ${a.pursuing_eads} #${a.pursuit_no} (${a.status})`);
        for (const qa of a.questions_answers) console.log(`Q: ${qa.question}\nA: ${qa.answer}\n`);
      }
    }
  } finally {
    await stack.close();
  }
}

void main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
