import { Client, Connection } from '@temporalio/client';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { AesGcmPayloadCodec, ENCRYPTED_ENCODING } from '../codec/payload-codec';
import { parseConfig } from '../plumbing/config';
import { bomQuestionFlow, pipelineStateQuery } from '../flows/bom/contract';
import { platformCheckFlow, type PlatformCheckOutput } from '../flows/platform/contract';
import { startCodecServer, startCodecServerFromConfig } from '../server/codec-server';
import { rawHttp } from './hostile-helpers';
import { createHarness, type Harness } from './helpers/harness';

const KEY = randomBytes(32).toString('base64');
const execFileAsync = promisify(execFile);
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
    const result = await handle.result();
    expect(result.topic).toBe(SECRET_TOPIC);

    const raw = await plainClient.workflow.getHandle(handle.workflowId).fetchHistory();
    const { encodings, plainAt, text } = payloadTexts(raw);
    expect(encodings.length).toBeGreaterThan(5);
    // Search attributes must stay plaintext for the server to index them: they carry only the flow
    // name, and the ids of the code changes the run follows (`TemporalChangeVersion`). The tracing
    // interceptors' `_tracer-data` header (trace and span ids, no user data) is a header the SDK
    // does not pass through payload codecs, and a `patched()` marker holds only the change's id.
    const TRACE_HEADER = /\.header\.fields\._tracer-data$/;
    expect(plainAt.filter((at) => !TRACE_HEADER.test(at))).toEqual([
      '.events.workflowExecutionStartedEventAttributes.searchAttributes.indexedFields.AgentFlow',
      '.events.markerRecordedEventAttributes.details.patch-data.payloads',
      '.events.upsertWorkflowSearchAttributesEventAttributes.searchAttributes.indexedFields.TemporalChangeVersion',
    ]);
    const markerData = (raw.events ?? [])
      .flatMap((e) => e.markerRecordedEventAttributes?.details?.['patch-data']?.payloads ?? [])
      .map((p) => JSON.parse(Buffer.from(p.data ?? []).toString('utf8')));
    expect(markerData).toEqual([{ id: 'tracing-follows-start', deprecated: false }]);
    expect(encodings.filter((e) => e === ENCRYPTED_ENCODING)).toHaveLength(encodings.length - plainAt.length);
    expect(text).not.toContain('sentinel-7f3a9c');
    expect(text).not.toContain('PD-1003');
  });

  it('still runs workflows started with a plain client (e.g. the temporal CLI)', async () => {
    const handle = await plainClient.workflow.start('platformCheck', {
      taskQueue: h.taskQueue,
      workflowId: `plain-${Date.now()}`,
      args: [{ topic: 'battery' }],
    });
    const result = (await h.client.workflow.getHandle(handle.workflowId).result()) as PlatformCheckOutput;
    expect(result.rows.length).toBe(3);
  });

  it('serves a codec endpoint that decodes for the Web UI, with CORS and an optional token', async () => {
    const handle = await h.start(platformCheckFlow, { topic: SECRET_TOPIC });
    await handle.result();
    const raw = await plainClient.workflow.getHandle(handle.workflowId).fetchHistory();
    const input = raw.events![0].workflowExecutionStartedEventAttributes!.input!.payloads![0];
    const body = {
      payloads: [
        {
          metadata: Object.fromEntries(
            Object.entries(input.metadata!).map(([k, v]) => [k, Buffer.from(v).toString('base64')]),
          ),
          data: Buffer.from(input.data!).toString('base64'),
        },
      ],
    };
    const server = await startCodecServer({ codec: new AesGcmPayloadCodec([KEY]), authToken: 'tok' });
    try {
      const denied = await fetch(`${server.url}/decode`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(denied.status).toBe(401);
      const response = await fetch(`${server.url}/decode`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer tok', origin: 'http://localhost:8233' },
        body: JSON.stringify(body),
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('access-control-allow-origin')).toBe('http://localhost:8233');
      const decoded = (await response.json()) as {
        payloads: Array<{ metadata: Record<string, string>; data: string }>;
      };
      expect(Buffer.from(decoded.payloads[0].metadata.encoding, 'base64').toString()).toBe('json/plain');
      expect(JSON.parse(Buffer.from(decoded.payloads[0].data, 'base64').toString())).toEqual({ topic: SECRET_TOPIC });
    } finally {
      await server.close();
    }
  });

  it(
    'the codec endpoint npm start serves requires CODEC_AUTH_TOKEN, checks Host and ' + 'Origin, and takes {}',
    async () => {
      const config = parseConfig({ CODEC_PORT: '0', CODEC_AUTH_TOKEN: 'codec-token', TEMPORAL_UI_PORT: '8233' });
      const server = await startCodecServerFromConfig(new AesGcmPayloadCodec([KEY]), config);
      const port = Number(new URL(server.url).port);
      const post = (headers: Record<string, string>, body = '{"payloads":[]}') =>
        rawHttp(port, {
          method: 'POST',
          target: '/decode',
          headers: { 'content-type': 'application/json', ...headers },
          body,
        });
      try {
        const local = { host: `127.0.0.1:${port}` };
        expect((await post(local)).status).toBe(401); // the variable is read: no token, no decoding
        expect((await post({ ...local, authorization: 'Bearer wrong' })).status).toBe(401);
        expect((await post({ ...local, authorization: 'Bearer codec-token' })).status).toBe(200);
        expect((await post({ ...local, authorization: 'bearer codec-token' })).status).toBe(200);
        // DNS rebinding: the right token cannot help a page reached under another name.
        expect((await post({ host: `rebound.example:${port}`, authorization: 'Bearer codec-token' })).status).toBe(403);
        // Browsers: only the Web UI's origin, refused outright (not just left without CORS headers).
        expect(
          (await post({ ...local, origin: 'http://evil.example', authorization: 'Bearer codec-token' })).status,
        ).toBe(403);
        expect(
          (
            await rawHttp(port, {
              method: 'OPTIONS',
              target: '/decode',
              headers: { ...local, origin: 'http://evil.example' },
            })
          ).status,
        ).toBe(403);
        const ui = await post({ ...local, origin: 'http://localhost:8233', authorization: 'Bearer codec-token' });
        expect(ui.status).toBe(200);
        expect(ui.headers['access-control-allow-origin']).toBe('http://localhost:8233');
        // What the temporal CLI sends for a query without arguments.
        for (const body of ['{}', '{"payloads":null}']) {
          const empty = await post({ ...local, authorization: 'Bearer codec-token' }, body);
          expect(empty.status).toBe(200);
          expect(JSON.parse(empty.body)).toEqual({ payloads: [] });
        }
        for (const body of ['[]', '{"payloads":"x"}', '"x"'])
          expect((await post({ ...local, authorization: 'Bearer codec-token' }, body)).status).toBe(400);
      } finally {
        await server.close();
      }
    },
  );

  it(
    'the temporal CLI queries an encrypted workflow through the codec endpoint ' + '(--codec-endpoint, --codec-auth)',
    async () => {
      const handle = await h.start(bomQuestionFlow, { question: 'Which BOMs use capacitor components?' });
      await handle.result();
      const server = await startCodecServer({ codec: new AesGcmPayloadCodec([KEY]), authToken: 'cli-token' });
      try {
        const args = [
          'workflow',
          'query',
          '--address',
          inject('temporalAddress'),
          '--workflow-id',
          handle.workflowId,
          '--name',
          pipelineStateQuery.name,
          '--codec-endpoint',
          server.url,
          '--codec-auth',
          'Bearer cli-token',
          '--output',
          'json',
        ];
        const result = await execFileAsync(inject('temporalCliPath'), args, {
          env: { PATH: process.env.PATH, HOME: process.env.HOME },
          timeout: 30_000,
        });
        const answer = JSON.parse(result.stdout) as { queryResult: unknown[] };
        expect(JSON.stringify(answer.queryResult)).toMatch(/capacitor/i);
        const denied = await execFileAsync(inject('temporalCliPath'), args.slice(0, -4).concat('--output', 'json'), {
          env: { PATH: process.env.PATH, HOME: process.env.HOME },
          timeout: 30_000,
        }).catch((err: Error) => err);
        expect(denied).toBeInstanceOf(Error); // without --codec-auth
      } finally {
        await server.close();
      }
    },
  );

  it('refuses to decrypt with the wrong key and rejects a malformed key at start', async () => {
    const [encrypted] = await new AesGcmPayloadCodec([KEY]).encode([
      { metadata: { encoding: new TextEncoder().encode('json/plain') }, data: new TextEncoder().encode('"x"') },
    ]);
    await expect(new AesGcmPayloadCodec([randomBytes(32).toString('base64')]).decode([encrypted])).rejects.toThrow(
      /no key with id/,
    );
    const rotated = new AesGcmPayloadCodec([randomBytes(32).toString('base64'), KEY]);
    expect(Buffer.from((await rotated.decode([encrypted]))[0].data!).toString()).toBe('"x"');
    expect(() => parseConfig({ AGENT_FLOWS_PAYLOAD_KEY: 'c2hvcnQ=' })).toThrow(
      /AGENT_FLOWS_PAYLOAD_KEY: expected 32 bytes/,
    );
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
    const history = JSON.stringify(await handle.fetchHistory(), (_k, v) =>
      v instanceof Uint8Array ? Buffer.from(v).toString('latin1') : v,
    );
    expect(history).not.toContain(SENTINEL);
    expect(history).toContain('battery');
  });
});
