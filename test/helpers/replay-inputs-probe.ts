/**
 * A workflow interceptor for test/replay-inputs.test.ts: reports every activity the workflow
 * schedules (type and arguments), and the workflow's result, to the `replayProbe` sink, during
 * replay too. Replay checks an activity's type and id against history, not its arguments, and
 * never the result: this lets the test check both.
 */
import { proxySinks, type Sinks, type WorkflowInterceptorsFactory } from '@temporalio/workflow';

export interface ReplayProbeSinks extends Sinks {
  replayProbe: { scheduled(activityType: string, args: unknown[]): void; completed(result: unknown): void };
}

const { replayProbe } = proxySinks<ReplayProbeSinks>();

export const interceptors: WorkflowInterceptorsFactory = () => ({
  inbound: [
    {
      async execute(input, next) {
        const result = await next(input);
        replayProbe.completed(result);
        return result;
      },
    },
  ],
  outbound: [
    {
      scheduleActivity(input, next) {
        replayProbe.scheduled(input.activityType, input.args);
        return next(input);
      },
    },
  ],
});
