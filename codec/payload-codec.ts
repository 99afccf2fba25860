/**
 * Optional payload encryption (AES-256-GCM) for everything the flows put into Temporal history:
 * PRP texts, questions, interview answers, proposals. The key comes from the environment of the
 * processes that hold it (worker, thin client, codec endpoint) as AGENT_FLOWS_PAYLOAD_KEY
 * (32 bytes, base64); the Temporal server only ever stores ciphertext.
 *
 * Payloads that are not encrypted (e.g. started with `temporal workflow start --input`) pass
 * through decode unchanged, so plain clients keep working against an encrypting worker.
 */
import type { Payload, PayloadCodec } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

export const ENCRYPTED_ENCODING = 'binary/encrypted';
const ALGORITHM = 'aes-256-gcm';
const IV_BYTES = 12;
const TAG_BYTES = 16;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export class PayloadKeyError extends Error {}

/** Parses a base64 key of exactly 32 bytes; the id is a short hash so rotated keys can be told apart. */
export function parsePayloadKey(base64: string, variable = 'AGENT_FLOWS_PAYLOAD_KEY'): { key: Buffer; keyId: string } {
  const key = Buffer.from(base64, 'base64');
  // The length only: the value is a secret and never appears in an error.
  if (key.length !== 32)
    throw new PayloadKeyError(`${variable} must be 32 bytes, base64-encoded (got ${key.length} bytes)`);
  return { key, keyId: createHash('sha256').update(key).digest('hex').slice(0, 12) };
}

export class AesGcmPayloadCodec implements PayloadCodec {
  private readonly keys = new Map<string, Buffer>();

  /** The first key encrypts; every key given can decrypt (key rotation). */
  constructor(
    base64Keys: string[],
    private readonly encryptKeyId = parsePayloadKey(base64Keys[0]).keyId,
  ) {
    for (const k of base64Keys) {
      const { key, keyId } = parsePayloadKey(k);
      this.keys.set(keyId, key);
    }
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    const key = this.keys.get(this.encryptKeyId)!;
    return payloads.map((payload) => {
      const plain = temporal.api.common.v1.Payload.encode(payload).finish();
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv(ALGORITHM, key, iv);
      const data = Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
      return {
        metadata: {
          encoding: encoder.encode(ENCRYPTED_ENCODING),
          'encryption-key-id': encoder.encode(this.encryptKeyId),
        },
        data: new Uint8Array(data),
      };
    });
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => {
      const encoding = payload.metadata?.encoding ? decoder.decode(payload.metadata.encoding) : undefined;
      if (encoding !== ENCRYPTED_ENCODING) return payload;
      const keyId = payload.metadata?.['encryption-key-id']
        ? decoder.decode(payload.metadata['encryption-key-id'])
        : '';
      const key = this.keys.get(keyId);
      if (!key)
        throw new PayloadKeyError(`no key with id ${keyId} to decrypt a payload: set AGENT_FLOWS_PAYLOAD_KEY(S)`);
      const data = Buffer.from(payload.data ?? new Uint8Array());
      const decipher = createDecipheriv(ALGORITHM, key, data.subarray(0, IV_BYTES));
      decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
      const plain = Buffer.concat([
        decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)),
        decipher.final(),
      ]);
      return temporal.api.common.v1.Payload.decode(plain) as Payload;
    });
  }
}

/**
 * The codec for this process, from AGENT_FLOWS_PAYLOAD_KEY (encrypts and decrypts) plus
 * AGENT_FLOWS_PAYLOAD_OLD_KEYS (comma-separated, decrypt only), or undefined when unset.
 */
export function payloadCodecFromEnv(
  env: Record<string, string | undefined> = process.env,
): AesGcmPayloadCodec | undefined {
  const current = env.AGENT_FLOWS_PAYLOAD_KEY?.trim();
  if (!current) return undefined;
  const old = (env.AGENT_FLOWS_PAYLOAD_OLD_KEYS ?? '')
    .split(',')
    .map((k) => k.trim())
    .filter(Boolean);
  // Checked here so a bad old key is reported under its own variable's name.
  old.forEach((k) => parsePayloadKey(k, 'AGENT_FLOWS_PAYLOAD_OLD_KEYS'));
  return new AesGcmPayloadCodec([current, ...old]);
}

/** `{ payloadCodecs }` for Worker/Client options, empty when no key is configured. */
export function dataConverterFromEnv(
  env: Record<string, string | undefined> = process.env,
): { payloadCodecs: PayloadCodec[] } | undefined {
  const codec = payloadCodecFromEnv(env);
  return codec ? { payloadCodecs: [codec] } : undefined;
}
