/**
 * A workflow interceptor for test/replay-inputs.test.ts: reports every activity the workflow
 * schedules (type and arguments) to the `replayProbe` sink, during replay too. Replay checks an
 * activity's type and id against history, not its arguments: this lets the test check those.
 */
import { proxySinks, type Sinks, type WorkflowInterceptorsFactory } from '@temporalio/workflow';

export interface ReplayProbeSinks extends Sinks {
  replayProbe: { scheduled(activityType: string, args: unknown[]): void };
}

const { replayProbe } = proxySinks<ReplayProbeSinks>();

export const interceptors: WorkflowInterceptorsFactory = () => ({
  outbound: [
    {
      scheduleActivity(input, next) {
        replayProbe.scheduled(input.activityType, input.args);
        return next(input);
      },
    },
  ],
});
