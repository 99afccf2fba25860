/**
 * The registry workflow's check of a signed change (flows/agent-registry/contract.ts says why): the
 * signature, then what the signed text says about where and when it applies, then its shape.
 * Everything here is synchronous and cheap before the signature is known good: it runs in an
 * Update validator, on arguments anyone who reaches the Temporal frontend can send.
 *
 * Here rather than beside the workflow so that it is preloaded (flows/lib/workflow/preload.ts):
 * the signature library and its SHA-512 then load once per worker instead of once per cached
 * workflow of every type (~45 KB each, measured in a bare V8 context).
 */
import { hashes, verify } from '@noble/ed25519';
import { sha512 } from '@noble/hashes/sha2';
import {
  MAX_SIGNED_CHARS,
  PROOF_WINDOW_MS,
  type RegistryBeat,
  type RegistryOperation,
  type RegistryPut,
  type RegistryRemove,
  type SignedRegistryOperation,
} from './contract';
import { HEALTH_STATUSES } from '../../contracts/capabilities';

// The library's synchronous API needs a SHA-512: an Update validator cannot wait for a promise.
hashes.sha512 = (message) => sha512(message as Uint8Array) as Uint8Array<ArrayBuffer>;

const HEX_KEY = /^[0-9a-f]{64}$/;
const HEX_SIG = /^[0-9a-f]{128}$/;
const HEX_NONCE = /^[0-9a-f]{32}$/;

function hexBytes(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

export const isRegistryKey = (key: unknown): key is string => typeof key === 'string' && HEX_KEY.test(key);

/** Where and when a change is being applied: the running shard and the workflow's clock. */
export interface ProofContext {
  key: string | undefined;
  namespace: string;
  shard: string;
  chain: string;
  now: number;
  nonces: Record<string, number>;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isString = (v: unknown): v is string => typeof v === 'string';
const isTime = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
const isHealth = (v: unknown) => (HEALTH_STATUSES as readonly unknown[]).includes(v);

function isPut(v: unknown): v is RegistryPut {
  if (!isObject(v) || !isObject(v.manifest) || !isString(v.instance) || !isTime(v.at)) return false;
  const m = v.manifest;
  const owner = v.owner;
  return (
    isString(m.agent_id) &&
    Array.isArray(m.reasoners) &&
    Array.isArray(m.skills) &&
    (m.task_queue === undefined || isString(m.task_queue)) &&
    (m.namespace === undefined || isString(m.namespace)) &&
    (m.reported_health === undefined || isHealth(m.reported_health)) &&
    (owner === undefined || (isObject(owner) && isString(owner.secret) && isString(owner.instance))) &&
    (v.secret === undefined || isString(v.secret))
  );
}

const isBeat = (v: unknown): v is RegistryBeat =>
  isObject(v) &&
  isString(v.id) &&
  isString(v.instance) &&
  isTime(v.at) &&
  (v.reported === undefined || v.reported === null || isHealth(v.reported));

const isRemove = (v: unknown): v is RegistryRemove =>
  isObject(v) && isString(v.id) && (v.instance === null || isString(v.instance)) && isTime(v.at);

function shapeOk(op: RegistryOperation): boolean {
  switch (op.op) {
    case 'put':
      return isPut(op.arg);
    case 'beats':
      return Array.isArray(op.arg) && op.arg.every(isBeat);
    case 'remove':
      return isRemove(op.arg);
    default:
      return false;
  }
}

/**
 * The change an Update argument proves, for the operation `expected`; throws (rejecting the
 * Update) naming what is wrong, and never echoes the argument.
 */
export function checkProof(
  update: unknown,
  expected: RegistryOperation['op'],
  context: ProofContext,
): SignedRegistryOperation {
  if (!isRegistryKey(context.key))
    throw new Error('this registry run has no signing key: it accepts no change (a control plane replaces it)');
  if (!isObject(update) || !isString(update.signed) || !isString(update.sig))
    throw new Error('expected a signed change { signed, sig }');
  if (update.signed.length > MAX_SIGNED_CHARS) throw new Error('signed change too large');
  if (!HEX_SIG.test(update.sig)) throw new Error('signature must be 128 hex characters');
  let good = false;
  try {
    good = verify(hexBytes(update.sig), new TextEncoder().encode(update.signed), hexBytes(context.key), {
      zip215: false,
    });
  } catch {
    good = false;
  }
  if (!good) throw new Error('signature does not verify with this registry key');
  // Signed by a control plane: what follows guards against replays and our own mistakes.
  let op: unknown;
  try {
    op = JSON.parse(update.signed);
  } catch {
    throw new Error('signed change is not JSON');
  }
  if (!isObject(op) || op.v !== 1) throw new Error('signed change of an unknown version');
  const signed = op as unknown as SignedRegistryOperation;
  if (signed.op !== expected)
    throw new Error(`signed change is a ${String(signed.op).slice(0, 20)}, not a ${expected}`);
  if (signed.namespace !== context.namespace || signed.shard !== context.shard)
    throw new Error('signed change is for another registry shard');
  if (signed.chain !== context.chain) throw new Error('signed change is for an earlier run of this registry shard');
  if (!isTime(signed.issued) || Math.abs(signed.issued - context.now) > PROOF_WINDOW_MS)
    throw new Error('signed change is too old or too far ahead of this registry clock');
  if (!isString(signed.nonce) || !HEX_NONCE.test(signed.nonce)) throw new Error('signed change has no valid nonce');
  if (Object.hasOwn(context.nonces, signed.nonce)) throw new Error('signed change was already applied');
  if (!shapeOk(signed)) throw new Error(`signed ${expected} has an unexpected shape`);
  return signed;
}

/** Forgets nonces old enough that their changes are refused as too old anyway. */
export function pruneNonces(nonces: Record<string, number>, now: number): void {
  for (const [nonce, issued] of Object.entries(nonces)) if (issued < now - PROOF_WINDOW_MS) delete nonces[nonce];
}
