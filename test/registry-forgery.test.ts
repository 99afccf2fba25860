/**
 * The shared registry against someone who reaches the Temporal frontend but holds no control-plane
 * secret: Updates sent straight to the `agentRegistry` shard (forged, replayed from history,
 * signed with their own key, oddly shaped), and shards restarted under their own key or with
 * forged state. None may re-route or remove an agent, and the execute API keeps starting flows on
 * the agent's real task queue.
 */
import { WithStartWorkflowOperation, type WorkflowHandle } from '@temporalio/client';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  AGENT_REGISTRY_WORKFLOW,
  registryAgentQuery,
  registryAgentsQuery,
  registryPutUpdate,
  registryVersionQuery,
  type RegistryPut,
} from '../contracts/agent-registry';
import { agentRegistrationSchema } from '../contracts/capabilities';
import { buildControlPlane, type ControlPlane } from '../server/app';
import { buildLocalManifest } from '../server/manifest';
import { registrySigner } from '../server/registry-signer';
import { toStoredManifest } from '../server/registry-store';
import { shardOf, shardWorkflowId } from '../server/shared-registry-store';
import { lazyTemporal } from '../server/temporal';
import { tempStorePath } from './control-plane-fixtures';
import { createHarness, type Harness } from './helpers/harness';
import { waitFor } from './helpers/wait';

const SHARDS = 8;
const REGISTRY_KEY = `registry-key-${randomUUID()}`;
const registryId = `agent-registry-forgery-${randomUUID().slice(0, 8)}`;
const OWNER_SECRET = 'owner-secret-of-the-real-worker-0123456789';
const AGENT = 'agent-flows';

let h: Harness;
let cp: ControlPlane;
let url: string;
const started: WorkflowHandle[] = [];

const shardHandle = (agentId: string) =>
  h.client.workflow.getHandle(shardWorkflowId(registryId, shardOf(agentId, SHARDS)));
const otherShardHandle = (agentId: string) =>
  h.client.workflow.getHandle(shardWorkflowId(registryId, (shardOf(agentId, SHARDS) + 1) % SHARDS));

const manifestOf = (agentId: string, taskQueue: string) => ({
  ...buildLocalManifest({ agentId, taskQueue, namespace: 'default', address: '127.0.0.1:7233', activityNames: [] }),
  instance_id: 'worker-1',
});

const register = async (manifest: object, secret = OWNER_SECRET) => {
  const res = await fetch(`${url}/api/v1/agents`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-agent-secret': secret },
    body: JSON.stringify(manifest),
  });
  return res.status;
};

/** What the execute API answers for platformCheck on the agent: the task queue it started the flow on, or the status. */
async function executeOn(agentId: string): Promise<string | number> {
  const res = await fetch(`${url}/api/v1/execute/${agentId}:platformCheck`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ input: { topic: `battery ${randomUUID().slice(0, 8)}` } }),
  });
  if (res.status !== 202) return res.status;
  const body = (await res.json()) as { task_queue: string; workflow_id: string; run_id: string };
  const handle = h.client.workflow.getHandle(body.workflow_id, body.run_id);
  started.push(handle);
  // What Temporal holds, not only what the API said.
  expect((await handle.describe()).taskQueue).toBe(body.task_queue);
  return body.task_queue;
}

const eventCount = async (handle: WorkflowHandle) => (await handle.fetchHistory()).events?.length ?? 0;

/** The arguments of every Update a shard accepted, as sent (JSON), by Update name. */
async function acceptedUpdates(handle: WorkflowHandle): Promise<Array<{ name: string; arg: unknown }>> {
  const history = await handle.fetchHistory();
  return (history.events ?? []).flatMap((e) => {
    const request = e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest;
    const payload = request?.input?.args?.payloads?.[0];
    if (!request?.input?.name || !payload?.data) return [];
    return [{ name: request.input.name, arg: JSON.parse(Buffer.from(payload.data).toString('utf8')) }];
  });
}

const refused = async (promise: Promise<unknown>) => {
  await expect(promise).rejects.toThrow();
};

beforeAll(async () => {
  h = await createHarness();
  cp = await buildControlPlane({
    storePath: tempStorePath(),
    temporal: lazyTemporal({ address: inject('temporalAddress') }),
    sharedRegistry: { workflowId: registryId, shards: SHARDS, taskQueue: h.taskQueue, pollMs: 200, key: REGISTRY_KEY },
    // Every read goes to the registry: whatever an attack changed shows on the next request.
    cacheTtlMs: 0,
    healthCheckMs: 0,
    logLevel: 'silent',
    processMetrics: false,
  });
  url = await cp.listen('127.0.0.1', 0);
  expect(await register(manifestOf(AGENT, h.taskQueue))).toBe(201);
}, 180_000);

afterAll(async () => {
  await cp?.close();
  await Promise.allSettled(started.map((s) => s.terminate('test over')));
  await Promise.allSettled(
    Array.from({ length: SHARDS + 2 }, (_, i) =>
      h?.client.workflow.getHandle(shardWorkflowId(registryId, i)).terminate('test over'),
    ),
  );
  await h?.close();
});

describe('a Temporal client without the control planes key', () => {
  it('cannot re-route, remove or report on the agent: every Update is refused and leaves no history', async () => {
    const handle = shardHandle(AGENT);
    const stored = await handle.query(registryAgentQuery, AGENT);
    expect(stored?.task_queue).toBe(h.taskQueue);
    const before = await eventCount(handle);
    const evil = toStoredManifest(
      agentRegistrationSchema.parse({ ...manifestOf(AGENT, 'evil-queue'), instance_id: undefined }),
    );
    const forgedPut: RegistryPut = { manifest: evil, instance: 'evil', at: Date.now() };
    // The owner's digest and instance are readable through a query: presenting them proves nothing.
    const asOwner: RegistryPut = { ...forgedPut, instance: stored!.owner!.instance, owner: stored!.owner };
    const attacker = registrySigner('an attacker key');
    // Everything a signed change names is readable: the shard's id, namespace and run chain.
    const { chain } = await handle.query(registryVersionQuery);
    const signedByAttacker = attacker.sign({ op: 'put', arg: forgedPut }, 'default', handle.workflowId, chain);
    const attempts: Array<[string, unknown]> = [
      ['registryPut', forgedPut],
      ['registryPut', asOwner],
      ['registryPut', { signed: signedByAttacker.signed, sig: '0'.repeat(128) }],
      ['registryPut', signedByAttacker],
      ['registryRemove', { id: AGENT, instance: null, at: Date.now() }],
      ['registryRemove', { id: AGENT, instance: 'worker-1', at: Date.now() }],
      [
        'registryRemove',
        attacker.sign({ op: 'remove', arg: { id: AGENT, instance: null, at: 1 } }, 'default', handle.workflowId, chain),
      ],
      ['registryBeats', [{ id: AGENT, instance: 'worker-1', at: Date.now(), reported: 'unhealthy' }]],
      ['registryBeats', [{ id: AGENT, instance: 'evil', at: Date.now() }]],
    ];
    for (const [name, arg] of attempts) await refused(handle.executeUpdate(name, { args: [arg] }));
    expect(await eventCount(handle)).toBe(before);
    expect((await handle.query(registryAgentQuery, AGENT))?.task_queue).toBe(h.taskQueue);
    // The check: every execute call with a valid request still starts on the real queue.
    for (let i = 0; i < 8; i++) expect(await executeOn(AGENT)).toBe(h.taskQueue);
  }, 120_000);

  it('cannot send a signed change again after reading it from history, nor alter it, nor send it to another shard', async () => {
    const agentId = 'agent-replayed';
    const handle = shardHandle(agentId);
    expect(await register(manifestOf(agentId, 'queue-one'))).toBe(201);
    const first = (await acceptedUpdates(handle)).filter((u) => u.name === 'registryPut').at(-1)!;
    // The owner moves it on (same secret): the later change that a replay must not undo.
    expect(await register(manifestOf(agentId, h.taskQueue))).toBe(200);
    const before = await eventCount(handle);
    await refused(handle.executeUpdate('registryPut', { args: [first.arg] }));
    expect(await eventCount(handle)).toBe(before);
    expect(await executeOn(agentId)).toBe(h.taskQueue);

    // The same signed text with the routing changed: the signature no longer fits.
    const { signed, sig } = first.arg as { signed: string; sig: string };
    const altered = signed.replace('"task_queue":"queue-one"', '"task_queue":"evil-queue"');
    expect(altered).not.toBe(signed);
    await refused(handle.executeUpdate('registryPut', { args: [{ signed: altered, sig }] }));
    // A change signed for one shard is refused by another (the agent would show twice).
    const other = otherShardHandle(agentId);
    const otherBefore = await eventCount(other);
    await refused(other.executeUpdate('registryPut', { args: [first.arg] }));
    expect(await eventCount(other)).toBe(otherBefore);

    // A deregistration read back from history cannot remove the agent once it registered again.
    const del = await fetch(`${url}/api/v1/agents/${agentId}`, {
      method: 'DELETE',
      headers: { 'x-agent-secret': OWNER_SECRET },
    });
    expect(del.status).toBe(200);
    const removal = (await acceptedUpdates(handle)).filter((u) => u.name === 'registryRemove').at(-1)!;
    expect(await register(manifestOf(agentId, h.taskQueue))).toBe(201);
    await refused(handle.executeUpdate('registryRemove', { args: [removal.arg] }));
    expect((await handle.query(registryAgentQuery, agentId))?.task_queue).toBe(h.taskQueue);
    expect(await executeOn(agentId)).toBe(h.taskQueue);
  }, 120_000);

  it('refuses Updates, signals and queries of unexpected shapes without failing a workflow task', async () => {
    const handle = shardHandle(AGENT);
    const { version } = await handle.query(registryVersionQuery);
    const big = { signed: JSON.stringify({ v: 1, pad: 'x'.repeat(1_500_000) }), sig: 'ab'.repeat(64) };
    const shapes: unknown[][] = [
      [],
      [null],
      [42],
      ['text'],
      [[]],
      [{ signed: 5, sig: 'x' }],
      [{ signed: '{}' }],
      [big],
    ];
    for (const name of ['registryPut', 'registryRemove', 'registryBeats'])
      for (const args of shapes) await refused(handle.executeUpdate(name, { args: args as [unknown] }));
    await refused(handle.executeUpdate('registryNoSuchUpdate', { args: [{}] }));
    await handle.signal('registryPut', { manifest: { agent_id: AGENT, task_queue: 'evil-queue' } });
    expect(await handle.query(registryAgentQuery, '__proto__')).toBeNull();
    expect(await handle.query('registryAgent', { not: 'a string' })).toBeNull();
    expect((await handle.query(registryVersionQuery)).version).toBe(version);
    const history = await handle.fetchHistory();
    expect(history.events?.some((e) => e.workflowTaskFailedEventAttributes)).toBe(false);
    expect((await handle.describe()).status.name).toBe('RUNNING');
    expect(await executeOn(AGENT)).toBe(h.taskQueue);
  }, 120_000);

  it('cannot start-with-update a shard into accepting a change', async () => {
    const ours = registrySigner(REGISTRY_KEY).publicKey;
    const forged: RegistryPut = {
      manifest: toStoredManifest(
        agentRegistrationSchema.parse({ ...manifestOf(AGENT, 'evil-queue'), instance_id: undefined }),
      ),
      instance: 'evil',
      at: Date.now(),
    };
    for (const shard of [shardOf(AGENT, SHARDS), SHARDS + 1]) {
      const startWorkflowOperation = new WithStartWorkflowOperation(AGENT_REGISTRY_WORKFLOW, {
        workflowId: shardWorkflowId(registryId, shard),
        taskQueue: h.taskQueue,
        args: [{ key: ours }],
        workflowIdConflictPolicy: 'USE_EXISTING',
      });
      await refused(
        h.client.workflow.executeUpdateWithStart(registryPutUpdate, {
          args: [forged as never],
          startWorkflowOperation,
        }),
      );
    }
    expect(await executeOn(AGENT)).toBe(h.taskQueue);
  }, 120_000);
});

describe('a shard someone else restarted', () => {
  it('under their own key is not trusted, is replaced, and the agent comes back on its next heartbeat', async () => {
    const handle = shardHandle(AGENT);
    const attacker = registrySigner('an attacker key');
    const forged: RegistryPut = {
      manifest: toStoredManifest(
        agentRegistrationSchema.parse({ ...manifestOf(AGENT, 'evil-queue'), instance_id: undefined }),
      ),
      instance: 'evil',
      at: Date.now(),
    };
    // A registration the control plane signed minutes ago, kept to be sent to the next run.
    const captured = (await acceptedUpdates(handle)).filter((u) => u.name === 'registryPut').at(-1)!;
    await handle.terminate('attacker');
    const run = await h.client.workflow.start(AGENT_REGISTRY_WORKFLOW, {
      workflowId: handle.workflowId,
      taskQueue: h.taskQueue,
      args: [{ key: attacker.publicKey }],
    });
    // The attacker's own run takes the attacker's signature (unless the control plane replaced it first).
    await run
      .executeUpdate(registryPutUpdate, {
        args: [attacker.sign({ op: 'put', arg: forged }, 'default', run.workflowId, run.firstExecutionRunId)],
      })
      .catch(() => undefined);
    // Whatever the control plane answers meanwhile, it never starts a flow on the attacker's queue.
    const answer = await executeOn(AGENT);
    expect(answer).not.toBe('evil-queue');
    // It replaced the run: the one now running checks changes with the control planes' key.
    await waitFor(
      async () =>
        (await handle.query(registryVersionQuery)).key === registrySigner(REGISTRY_KEY).publicKey ? true : undefined,
      'the shard replaced under the control planes key',
      { retryErrors: true },
    );
    // The new run knows none of the old run's nonces: the captured change names the old run's chain.
    await refused(handle.executeUpdate('registryPut', { args: [captured.arg] }));
    expect(await executeOn(AGENT)).toBe(404);
    // The worker's next heartbeat registers it again.
    await waitFor(
      async () => ((await register(manifestOf(AGENT, h.taskQueue))) < 300 ? true : undefined),
      'registered again',
      {
        retryErrors: true,
      },
    );
    expect(await executeOn(AGENT)).toBe(h.taskQueue);
  }, 120_000);

  it('under the control planes key with agents in its input starts empty, also when Temporal retries it', async () => {
    const ours = registrySigner(REGISTRY_KEY).publicKey;
    const evil = toStoredManifest(
      agentRegistrationSchema.parse({ ...manifestOf('agent-planted', 'evil-queue'), instance_id: undefined }),
    );
    const agents = { 'agent-planted': { ...evil, registered_at: 1, updated_at: 1, instances: { evil: Date.now() } } };
    const workflowId = shardWorkflowId(registryId, SHARDS + 2);
    const run = await h.client.workflow.start(AGENT_REGISTRY_WORKFLOW, {
      workflowId,
      taskQueue: h.taskQueue,
      args: [{ key: ours, agents, version: 7, maxHistoryEvents: 1 }],
      // A run timeout with a retry policy: the retried run has the same input and a previous run.
      workflowRunTimeout: '2s',
      retry: { maximumAttempts: 3, initialInterval: '100ms' },
    });
    expect((await run.query(registryAgentsQuery)).agents).toEqual([]);
    const retried = await waitFor(
      async () => {
        const answer = await h.client.workflow.getHandle(workflowId).query(registryAgentsQuery);
        return answer.runId !== run.firstExecutionRunId ? answer : undefined;
      },
      'the retried run',
      { retryErrors: true },
    );
    expect(retried.agents).toEqual([]);
    expect(retried.version).toBe(0);
  }, 120_000);
});
