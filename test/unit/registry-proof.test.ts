/**
 * The registry workflow's proof check on its own: what a signed change must say (key, shard,
 * namespace, time, nonce, shape) to be accepted, with the control plane's own signer. The
 * Temporal-level attacks (history replays, restarted shards) are in test/registry-forgery.test.ts.
 */
import * as ed from '@noble/ed25519';
import { sha512 } from '@noble/hashes/sha2';
import { describe, expect, it } from 'vitest';
import { PROOF_WINDOW_MS, type RegistryOperation } from '../../contracts/agent-registry';
import { registrySigner } from '../../server/registry-signer';
import { checkProof, pruneNonces, type ProofContext } from '../../domain/registry-proof';

const signer = registrySigner('the control planes shared secret');
const put: RegistryOperation = {
  op: 'put',
  arg: {
    manifest: {
      agent_id: 'agent-flows',
      base_url: 'http://127.0.0.1',
      version: '1',
      deployment_type: 'long_running',
      task_queue: 'agent-flows',
      reasoners: [],
      skills: [],
    },
    instance: 'worker-1',
    at: 1,
  },
};
const context = (over: Partial<ProofContext> = {}): ProofContext => ({
  key: signer.publicKey,
  namespace: 'default',
  shard: 'agent-registry-6',
  chain: 'run-1',
  now: Date.now(),
  nonces: {},
  ...over,
});

describe('checkProof', () => {
  it('accepts a change signed with the key, for this shard, now, once', () => {
    const update = signer.sign(put, 'default', 'agent-registry-6', 'run-1');
    const op = checkProof(update, 'put', context());
    expect(op.arg).toEqual(put.arg);
    // Applying it records the nonce: the same update again is refused.
    expect(() => checkProof(update, 'put', context({ nonces: { [op.nonce]: op.issued } }))).toThrow(/already applied/);
  });

  it('refuses what a client without the key can send', () => {
    const update = signer.sign(put, 'default', 'agent-registry-6', 'run-1');
    const other = registrySigner('another secret');
    const cases: Array<[unknown, RegExp]> = [
      [put.arg, /expected a signed change/],
      [{ ...update, sig: '00'.repeat(64) }, /does not verify/],
      [{ ...update, sig: update.sig.toUpperCase() }, /128 hex/],
      [{ ...update, signed: update.signed.replace('"agent-flows"', '"agent-evil"') }, /does not verify/],
      [other.sign(put, 'default', 'agent-registry-6', 'run-1'), /does not verify/],
      [{ signed: 'x'.repeat(5 * 1024 * 1024), sig: update.sig }, /too large/],
      [null, /expected a signed change/],
      [[update], /expected a signed change/],
    ];
    for (const [arg, why] of cases) expect(() => checkProof(arg, 'put', context())).toThrow(why);
  });

  it('refuses a signed change used as another operation, on another shard or namespace, or out of its time', () => {
    const update = signer.sign(put, 'default', 'agent-registry-6', 'run-1');
    expect(() => checkProof(update, 'remove', context())).toThrow(/not a remove/);
    expect(() => checkProof(update, 'put', context({ shard: 'agent-registry-7' }))).toThrow(/another registry shard/);
    expect(() => checkProof(update, 'put', context({ namespace: 'other' }))).toThrow(/another registry shard/);
    expect(() => checkProof(update, 'put', context({ chain: 'run-2' }))).toThrow(/earlier run/);
    const later = Date.now() + PROOF_WINDOW_MS + 60_000;
    expect(() => checkProof(update, 'put', context({ now: later }))).toThrow(/too old/);
    expect(() => checkProof(update, 'put', context({ now: Date.now() - PROOF_WINDOW_MS - 60_000 }))).toThrow(/too old/);
  });

  it('accepts nothing on a run without a key, and refuses a badly shaped change even when signed', () => {
    const update = signer.sign(put, 'default', 'agent-registry-6', 'run-1');
    expect(() => checkProof(update, 'put', context({ key: undefined }))).toThrow(/no signing key/);
    const bad = signer.sign({ op: 'beats', arg: [{ id: 1 }] } as never, 'default', 'agent-registry-6', 'run-1');
    expect(() => checkProof(bad, 'beats', context())).toThrow(/unexpected shape/);
  });

  it('forgets nonces only once their changes are too old anyway', () => {
    const now = Date.now();
    const nonces = { a: now - PROOF_WINDOW_MS - 1, b: now - PROOF_WINDOW_MS + 1, c: now };
    pruneNonces(nonces, now);
    expect(Object.keys(nonces)).toEqual(['b', 'c']);
  });

  it('still verifies once frozen, as the SDK freezes the modules workflows share', () => {
    const update = signer.sign(put, 'default', 'agent-registry-6', 'run-1');
    // What the SDK's deepFreeze reaches from each preloaded module's exports (reusable-vm.js).
    const seen = new WeakSet<object>();
    const freeze = (o: object): void => {
      if (seen.has(o) || Object.isFrozen(o)) return;
      seen.add(o);
      if (typeof o === 'object')
        for (const name of Object.getOwnPropertyNames(o)) {
          const v = (o as Record<string, unknown>)[name];
          if (v && (typeof v === 'object' || typeof v === 'function')) {
            try {
              freeze(v);
            } catch {
              // Typed arrays cannot be frozen: the SDK skips them too.
            }
          }
        }
      Object.freeze(o);
    };
    for (const value of [ed.hashes, ed.etc, ed.utils, ed.Point, ed.verify, sha512, checkProof]) freeze(value);
    expect(checkProof(update, 'put', context()).arg).toEqual(put.arg);
    expect(() => checkProof({ ...update, sig: '00'.repeat(64) }, 'put', context())).toThrow(/does not verify/);
  });
});
