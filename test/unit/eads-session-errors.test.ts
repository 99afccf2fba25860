/**
 * What the EADS clients say when a pursuit cannot answer: a pursuit whose history is gone is named
 * as such (not a raw "workflow not found"), and an update that failed while the server could not
 * say whether the pursuit is still running reports the update's own failure, not the describe
 * call's.
 */
import { WorkflowNotFoundError, WorkflowUpdateFailedError, type Client, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { EadsSession, EadsSessionError } from '../../access/eads-session';

const client = { workflow: { getHandle: () => ({}) } } as unknown as Client;

/** A pursuit handle whose calls fail as scripted. */
function pursuit(calls: {
  executeUpdate: () => Promise<unknown>;
  describe: () => Promise<unknown>;
  query?: () => Promise<unknown>;
}): WorkflowHandle {
  return {
    workflowId: 'pursuit-42',
    ...calls,
    query: calls.query ?? (() => Promise.reject(new Error('no query scripted'))),
  } as unknown as WorkflowHandle;
}

const gone = () => Promise.reject(new WorkflowNotFoundError('workflow not found', 'pursuit-42', undefined));

describe('EADS session errors name their cause', () => {
  it('a pursuit whose history is gone is named as such', async () => {
    const session = new EadsSession(client, 'p1');
    const handle = pursuit({ executeUpdate: gone, describe: gone, query: gone });
    const err = await session.nextQuestion(handle).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EadsSessionError);
    expect((err as Error).message).toMatch(/pursuit-42 no longer exists/);
  });

  it('an update that failed while the server could not describe the pursuit reports the update’s failure', async () => {
    const session = new EadsSession(client, 'p1');
    const handle = pursuit({
      executeUpdate: () =>
        Promise.reject(
          new WorkflowUpdateFailedError(
            'Workflow Update failed',
            ApplicationFailure.nonRetryable('the answer is empty', 'InvalidAnswer'),
          ),
        ),
      describe: () => Promise.reject(new Error('14 UNAVAILABLE: connection reset')),
    });
    const err = await session.nextQuestion(handle).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EadsSessionError);
    expect((err as Error).message).toMatch(/the answer is empty/);
    expect((err as Error).message).not.toMatch(/UNAVAILABLE/);
  });
});
