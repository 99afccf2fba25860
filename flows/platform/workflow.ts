import { proxyActivities } from '@temporalio/workflow';
import { platformCheckFlow, type PlatformCheckInput, type PlatformCheckOutput } from './contract';
import type { createPlatformActivities } from './activities';
import { MODEL, SEARCH, withOptions } from '../lib/workflow/activity-options';
import { endingAsEveryFlow } from '../lib/workflow/ending';
import { beginFlow } from '../lib/workflow/flow';
import type { ProgressTracker } from '../lib/workflow/progress';
import { FailureType } from '../../contracts/failures';

type PlatformActivities = ReturnType<typeof createPlatformActivities>;

// Search and warehouse calls are quick: fail over fast. Model calls get longer and more patient retries.
const { describeBackends, searchPlatformDocs, queryComponents } = proxyActivities<PlatformActivities>(SEARCH);
const { summarizeFindings } = proxyActivities<PlatformActivities>(
  withOptions(MODEL, {
    heartbeatTimeout: '10 seconds',
    retry: {
      initialInterval: '500 milliseconds',
      maximumInterval: '10 seconds',
      maximumAttempts: 8,
      nonRetryableErrorTypes: [FailureType.ModelRequestRejected],
    },
  }),
);

/** Search → warehouse → model: proves every backend works through Temporal activities. */
export async function platformCheck(rawInput: unknown): Promise<PlatformCheckOutput> {
  const { input, progress } = beginFlow(platformCheckFlow.type, platformCheckFlow.input, rawInput);
  return endingAsEveryFlow(progress, () => check(input, progress));
}

async function check(input: PlatformCheckInput, progress: ProgressTracker): Promise<PlatformCheckOutput> {
  progress.setTotal(3);

  const backends = await describeBackends();
  progress.stage('search documents', input.topic);
  const documents = await searchPlatformDocs({ topic: input.topic, limit: input.limit });
  progress.advance(1, `${documents.length} document(s)`);

  progress.stage('query warehouse');
  const { sql, rows } = await queryComponents({ topic: input.topic, limit: input.limit });
  progress.advance(1, `${rows.length} row(s)`);

  progress.stage('summarise');
  const { data, usage } = await summarizeFindings({ topic: input.topic, documents, rows });
  progress.tokens(usage);
  progress.advance(1);
  progress.finish('completed', data.summary);
  return {
    topic: input.topic,
    backends,
    documents,
    rows,
    sql,
    summary: data.summary,
    highlights: data.highlights,
    usage,
  };
}
