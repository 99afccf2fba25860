/**
 * Signs the shared registry's changes (contracts/agent-registry.ts says why). Every control-plane
 * instance derives the same Ed25519 key pair from CONTROL_PLANE_REGISTRY_KEY; the registry
 * workflows hold only the public key, and no secret ever enters a workflow's history.
 */
import { createPrivateKey, createPublicKey, hkdfSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import type { RegistryOperation, SignedRegistryOperation, SignedUpdate } from '../contracts/agent-registry';

/** DER prefix of a PKCS#8 Ed25519 private key; the 32-byte seed follows it (RFC 8410). */
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

export interface RegistrySigner {
  /** The public key (64 hex characters) the registry workflows check changes with. */
  readonly publicKey: string;
  /**
   * The change as an Update argument for shard `shard` of `namespace`, run chain `chain` (its
   * first run's id), signed now with a fresh nonce.
   */
  sign(operation: RegistryOperation, namespace: string, shard: string, chain: string): SignedUpdate;
}

export function registrySigner(secret: string): RegistrySigner {
  if (!secret) throw new Error('the registry signing secret is empty');
  // A key derived for this one use: the secret may also be a bearer token elsewhere.
  const seed = Buffer.from(hkdfSync('sha256', secret, 'agent-flows', 'agent-registry signing key v1', 32));
  const privateKey: KeyObject = createPrivateKey({
    key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]),
    format: 'der',
    type: 'pkcs8',
  });
  const spki = createPublicKey(privateKey).export({ format: 'der', type: 'spki' });
  const publicKey = Buffer.from(spki.subarray(spki.length - 32)).toString('hex');
  return {
    publicKey,
    sign(operation, namespace, shard, chain) {
      const body: SignedRegistryOperation = {
        v: 1,
        namespace,
        shard,
        chain,
        issued: Date.now(),
        nonce: randomBytes(16).toString('hex'),
        ...operation,
      };
      const signed = JSON.stringify(body);
      return { signed, sig: sign(null, Buffer.from(signed, 'utf8'), privateKey).toString('hex') };
    },
  };
}
