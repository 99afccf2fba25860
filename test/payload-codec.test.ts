import { Client, Connection } from '@temporalio/client';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { AesGcmPayloadCodec, ENCRYPTED_ENCODING } from '../client/payload-codec';
import { parseConfig } from '../contracts/config';
import { platformCheckFlow, type PlatformCheckOutput } from '../contracts/platform';
import { startCodecServer } from '../server/codec-server';
import { createHarness, type Harness } from './helpers/harness';

const KEY = randomBytes(32).toString('base64');
const SECRET_TOPIC = 'memory sentinel-7f3a9c';

/** Every payload's bytes in a history, as text: what the server stores. */
function payloadTexts(history: unknown): { encodings: string[]; plainAt: string[]; text: string } {
  const encodings: string[] = [];
  const plainAt: string[] = [];
  let text = '';
  const visit = (node: unknown, at: string) => {
    if (!node || typeof node !== 'object') return;
    const p = node as { metadata?: Record<string, Uint8Array>; data?: Uint8Array };
    if (p.metadata?.encoding && p.data instanceof Uint8Array) {
      const encoding = Buffer.from(p.metadata.encoding).toString();
      encodings.push(encoding);
      if (encoding !== ENCRYPTED_ENCODING) plainAt.push(at);
      text += Buffer.from(p.data).toString('latin1');
      return;
    }
    for (const [k, v] of Object.entries(node)) visit(v, /^\d+$/.test(k) ? at : `${at}.${k}`);
  };
  visit(history, '');
  return { encodings, plainAt, text };
}

describe('payload encryption (AES-GCM codec)', () => {
  let h: Harness;
  let plainClient: Client;
  beforeAll(async () => {
    h = await createHarness({ payloadKey: KEY });
    plainClient = new Client({ connection: await Connection.connect({ address: inject('temporalAddress') }) });
  });
  afterAll(async () => {
    await h?.close();
    await plainClient?.connection.close();
  });

  it('stores only ciphertext in history, and the key holder reads it back', async () => {
    const handle = await h.start(platformCheckFlow, { topic: SECRET_TOPIC });
    const result = (await handle.result()) as PlatformCheckOutput;
    expect(result.topic).toBe(SECRET_TOPIC);

    const raw = await plainClient.workflow.getHandle(handle.workflowId).fetchHistory();
    const { encodings, plainAt, text } = payloadTexts(raw);
    expect(encodings.length).toBeGreaterThan(5);
    // Search attributes must stay plaintext for the server to index them: they carry only the flow name.
    expect(plainAt).toEqual(['.events.workflowExecutionStartedEventAttributes.searchAttributes.indexedFields.AgentFlow']);
    expect(encodings.filter((e) => e === ENCRYPTED_ENCODING)).toHaveLength(encodings.length - 1);
    expect(text).not.toContain('sentinel-7f3a9c');
    expect(text).not.toContain('PD-1003');
  });

  it('still runs workflows started with a plain client (e.g. the temporal CLI)', async () => {
    const handle = await plainClient.workflow.start('platformCheck', { taskQueue: h.taskQueue, workflowId: `plain-${Date.now()}`, args: [{ topic: 'battery' }] });
    const result = (await h.client.workflow.getHandle(handle.workflowId).result()) as PlatformCheckOutput;
    expect(result.rows.length).toBe(3);
  });

  it('serves a codec endpoint that decodes for the Web UI, with CORS and an optional token', async () => {
    const handle = await h.start(platformCheckFlow, { topic: SECRET_TOPIC });
    await handle.result();
    const raw = await plainClient.workflow.getHandle(handle.workflowId).fetchHistory();
    const input = raw.events![0].workflowExecutionStartedEventAttributes!.input!.payloads![0];
    const body = {
      payloads: [{ metadata: Object.fromEntries(Object.entries(input.metadata!).map(([k, v]) => [k, Buffer.from(v).toString('base64')])), data: Buffer.from(input.data!).toString('base64') }],
    };
    const server = await startCodecServer({ codec: new AesGcmPayloadCodec([KEY]), authToken: 'tok' });
    try {
      const denied = await fetch(`${server.url}/decode`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      expect(denied.status).toBe(401);
      const response = await fetch(`${server.url}/decode`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer tok', origin: 'http://localhost:8233' },
        body: JSON.stringify(body),
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('access-control-allow-origin')).toBe('http://localhost:8233');
      const decoded = (await response.json()) as { payloads: Array<{ metadata: Record<string, string>; data: string }> };
      expect(Buffer.from(decoded.payloads[0].metadata.encoding, 'base64').toString()).toBe('json/plain');
      expect(JSON.parse(Buffer.from(decoded.payloads[0].data, 'base64').toString())).toEqual({ topic: SECRET_TOPIC });
    } finally {
      await server.close();
    }
  });

  it('refuses to decrypt with the wrong key and rejects a malformed key at start', async () => {
    const [encrypted] = await new AesGcmPayloadCodec([KEY]).encode([{ metadata: { encoding: new TextEncoder().encode('json/plain') }, data: new TextEncoder().encode('"x"') }]);
    await expect(new AesGcmPayloadCodec([randomBytes(32).toString('base64')]).decode([encrypted])).rejects.toThrow(/no key with id/);
    const rotated = new AesGcmPayloadCodec([randomBytes(32).toString('base64'), KEY]);
    expect(Buffer.from((await rotated.decode([encrypted]))[0].data!).toString()).toBe('"x"');
    expect(() => parseConfig({ AGENT_FLOWS_PAYLOAD_KEY: 'c2hvcnQ=' })).toThrow(/AGENT_FLOWS_PAYLOAD_KEY: expected 32 bytes/);
  });
});

describe('secrets stay in the worker environment', () => {
  const SENTINEL = `sentinel-api-key-${randomBytes(6).toString('hex')}`;
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness({ config: { AGENT_FLOWS_MODEL: 'gemini', GEMINI_API_KEY: SENTINEL } });
  });
  afterAll(async () => h?.close());

  it('a flow on the Gemini path never writes the API key into history', async () => {
    // GOOGLE_GEMINI_BASE_URL still points at the harness stand-in, so the real client sends the key there.
    expect(h.config.model).toBe('gemini');
    const handle = await h.start(platformCheckFlow, { topic: 'battery' });
    await handle.result();
    expect(h.standin.stats().byTask['platform.summarize']).toBe(1);
    const history = JSON.stringify(await handle.fetchHistory(), (_k, v) => (v instanceof Uint8Array ? Buffer.from(v).toString('latin1') : v));
    expect(history).not.toContain(SENTINEL);
    expect(history).toContain('battery');
  });
});
