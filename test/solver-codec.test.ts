/**
 * The Python solver worker reads and writes encrypted payloads in the same format as the
 * TypeScript codec (client/payload-codec.ts), so flows run with AGENT_FLOWS_PAYLOAD_KEY keep
 * their solver input and result encrypted in history. Checked both ways, through the worker's
 * own codec (solver/payload_codec.py).
 */
import { temporal } from '@temporalio/proto';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AesGcmPayloadCodec, ENCRYPTED_ENCODING } from '../codec/payload-codec';
import { resolveSolverPython, SOLVER_WORKER_SCRIPT } from '../workers/solver-tools';

const Payload = temporal.api.common.v1.Payload;

describe('solver worker payload codec', () => {
  it('decrypts what the TypeScript codec encrypts, and encrypts what it decrypts', async () => {
    const key = randomBytes(32).toString('base64');
    const ts = new AesGcmPayloadCodec([key]);
    const original = {
      metadata: { encoding: new TextEncoder().encode('json/plain') },
      data: new TextEncoder().encode(JSON.stringify({ jobs: [{ id: 'ö-1' }] })),
    };
    const [sealed] = await ts.encode([original]);
    expect(new TextDecoder().decode(sealed!.metadata!.encoding!)).toBe(ENCRYPTED_ENCODING);
    const run = spawnSync(resolveSolverPython({ quiet: true }), [SOLVER_WORKER_SCRIPT, '--codec-roundtrip'], {
      input: JSON.stringify([Buffer.from(Payload.encode(sealed!).finish()).toString('base64')]),
      encoding: 'utf8',
      env: { ...process.env, AGENT_FLOWS_PAYLOAD_KEY: key },
    });
    expect(run.stderr).toBe('');
    const [reply] = JSON.parse(run.stdout) as Array<{ plain: string; sealed: string }>;
    const plain = Payload.decode(Buffer.from(reply!.plain, 'base64'));
    expect(Buffer.from(plain.data!).toString()).toBe(JSON.stringify({ jobs: [{ id: 'ö-1' }] }));
    const fromPython = Payload.decode(Buffer.from(reply!.sealed, 'base64'));
    expect(new TextDecoder().decode(fromPython.metadata.encoding!)).toBe(ENCRYPTED_ENCODING);
    const [back] = await ts.decode([fromPython as never]);
    expect(Buffer.from(back!.data!).toString()).toBe(JSON.stringify({ jobs: [{ id: 'ö-1' }] }));

    // A different key cannot read it.
    const wrong = spawnSync(resolveSolverPython({ quiet: true }), [SOLVER_WORKER_SCRIPT, '--codec-roundtrip'], {
      input: JSON.stringify([reply!.sealed]),
      encoding: 'utf8',
      env: { ...process.env, AGENT_FLOWS_PAYLOAD_KEY: randomBytes(32).toString('base64') },
    });
    expect(wrong.status).not.toBe(0);
    expect(wrong.stderr).toMatch(/no key with id/);
  });
});
