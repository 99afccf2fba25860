/**
 * FlowCalls (client/mcp/server.ts): a server that stops while a call is still starting its
 * workflow (the start and the check of the run under its id take a round trip or two) waits for
 * that call to join, so the cancel request the call then sends is sent before the process exits.
 */
import type { WorkflowHandle } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { FlowCalls } from '../../client/mcp/server';

describe('FlowCalls', () => {
  it('counts a starting call as active, and settles only after the cancel it sends on joining', async () => {
    const calls = new FlowCalls();
    const joined = calls.starts();
    expect(calls.active).toBe(1);
    let cancelled = false;
    const handle = {
      cancel: () => new Promise<void>((resolve) => setImmediate(() => ((cancelled = true), resolve()))),
    } as unknown as WorkflowHandle;
    // The server stops now: shutdown waits while the call is still starting.
    const settled = calls.settled(10_000).then(() => cancelled);
    await new Promise((r) => setImmediate(r));
    // The call gets its workflow, joins, finds its caller gone and cancels.
    calls.join('wf');
    calls.leave('wf', { handle, reason: 'the MCP client disconnected' });
    joined();
    expect(await settled).toBe(true);
    expect(calls.active).toBe(0);
  });

  it('settles at once with nothing in flight, and gives up after its time-out', async () => {
    const calls = new FlowCalls();
    await calls.settled(10_000);
    calls.starts(); // never joins: settled still returns (the test would time out otherwise)
    await calls.settled(50);
    expect(calls.active).toBe(1);
  });
});
