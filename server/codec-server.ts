/**
 * The codec endpoint for the Temporal Web UI (and `temporal --codec-endpoint`): decodes the
 * encrypted payloads it is shown, for people who can reach this endpoint. It listens on
 * 127.0.0.1 by default; with CODEC_AUTH_TOKEN set, requests must carry `Authorization: Bearer <token>`.
 * Protocol: POST /decode and /encode with `{ payloads: [{ metadata: {k: base64}, data: base64 }] }`.
 */
import type { Payload, PayloadCodec } from '@temporalio/common';
import Fastify, { type FastifyInstance } from 'fastify';

interface JsonPayload {
  metadata?: Record<string, string>;
  data?: string;
}

const fromJson = (p: JsonPayload): Payload => ({
  metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, new Uint8Array(Buffer.from(v, 'base64'))])),
  data: new Uint8Array(Buffer.from(p.data ?? '', 'base64')),
});

const toJson = (p: Payload): JsonPayload => ({
  metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v as Uint8Array).toString('base64')])),
  data: Buffer.from(p.data ?? new Uint8Array()).toString('base64'),
});

export async function startCodecServer(options: {
  codec: PayloadCodec;
  host?: string;
  port?: number;
  /** Origins allowed to call from a browser (the Web UI). */
  allowedOrigins?: string[];
  authToken?: string;
}): Promise<{ url: string; app: FastifyInstance; close(): Promise<void> }> {
  const app = Fastify({ logger: false, forceCloseConnections: true });
  const origins = new Set(options.allowedOrigins ?? ['http://localhost:8233', 'http://127.0.0.1:8233']);

  app.addHook('onRequest', async (req, reply) => {
    const origin = req.headers.origin;
    if (origin && origins.has(origin)) {
      reply.header('access-control-allow-origin', origin);
      reply.header('access-control-allow-credentials', 'true');
      reply.header('access-control-allow-headers', 'content-type,x-namespace,authorization');
      reply.header('access-control-allow-methods', 'POST,OPTIONS');
      reply.header('vary', 'origin');
    }
    if (req.method === 'OPTIONS') return reply.code(204).send();
    if (options.authToken && req.headers.authorization !== `Bearer ${options.authToken}`) {
      return reply.code(401).send({ error: 'unauthorized' });
    }
  });

  for (const op of ['decode', 'encode'] as const) {
    app.post(`/${op}`, async (req, reply) => {
      const body = req.body as { payloads?: JsonPayload[] } | undefined;
      if (!body || !Array.isArray(body.payloads)) return reply.code(400).send({ error: 'expected { payloads: [...] }' });
      try {
        const result = await options.codec[op](body.payloads.map(fromJson));
        return { payloads: result.map(toJson) };
      } catch (err) {
        return reply.code(400).send({ error: err instanceof Error ? err.message : String(err) });
      }
    });
  }

  await app.listen({ host: options.host ?? '127.0.0.1', port: options.port ?? 0 });
  const port = (app.server.address() as { port: number }).port;
  return { url: `http://${options.host ?? '127.0.0.1'}:${port}`, app, close: () => app.close() };
}
