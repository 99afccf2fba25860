/**
 * The codec endpoint for the Temporal Web UI (and `temporal --codec-endpoint`): decodes the
 * encrypted payloads it is shown, for people who can reach this endpoint. It listens on
 * 127.0.0.1 by default; with CODEC_AUTH_TOKEN set, requests must carry `Authorization: Bearer <token>`.
 * Browsers are served only from the Web UI's origin, and only under the names this endpoint
 * is reached by (Host check: a DNS-rebinding page cannot use it).
 * Protocol: POST /decode and /encode with `{ payloads: [{ metadata: {k: base64}, data: base64 }] }`;
 * a body without `payloads` (the `temporal` CLI sends `{}` for a query without arguments) is an
 * empty list.
 */
import type { Payload, PayloadCodec } from '@temporalio/common';
import Fastify, { type FastifyInstance } from 'fastify';
import { bearerCheck, hostGuard } from './http-guard';

interface JsonPayload {
  metadata?: Record<string, string>;
  data?: string;
}

const fromJson = (p: JsonPayload): Payload => ({
  metadata: Object.fromEntries(
    Object.entries(p.metadata ?? {}).map(([k, v]) => [k, new Uint8Array(Buffer.from(v, 'base64'))]),
  ),
  data: new Uint8Array(Buffer.from(p.data ?? '', 'base64')),
});

const toJson = (p: Payload): JsonPayload => ({
  metadata: Object.fromEntries(
    Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v as Uint8Array).toString('base64')]),
  ),
  data: Buffer.from(p.data ?? new Uint8Array()).toString('base64'),
});

export async function startCodecServer(options: {
  codec: PayloadCodec;
  host?: string;
  port?: number;
  /** Origins allowed to call from a browser (the Web UI); any other Origin is refused. */
  allowedOrigins?: string[];
  /** Host names accepted besides the local ones and the listen address. */
  allowedHosts?: string[];
  authToken?: string;
}): Promise<{ url: string; app: FastifyInstance; close(): Promise<void> }> {
  const host = options.host ?? '127.0.0.1';
  const app = Fastify({ logger: false, forceCloseConnections: true });
  const allowedOrigins = options.allowedOrigins ?? ['http://localhost:8233', 'http://127.0.0.1:8233'];
  const origins = new Set(allowedOrigins.map((o) => new URL(o).origin));
  const hosts = hostGuard(options.allowedHosts);
  hosts.addListenHost(host);
  const tokenValid = bearerCheck([options.authToken]);

  app.addHook('onRequest', async (req, reply) => {
    if (!hosts.requestAllowed(req.headers.host, req.raw.url)) return reply.code(403).send({ error: 'forbidden host' });
    const origin = req.headers.origin;
    if (origin !== undefined) {
      // Only the Web UI may call from a browser: any other page is refused, not merely denied CORS.
      if (!origins.has(origin)) return reply.code(403).send({ error: 'forbidden origin' });
      reply.header('access-control-allow-origin', origin);
      reply.header('access-control-allow-credentials', 'true');
      reply.header('access-control-allow-headers', 'content-type,x-namespace,authorization');
      reply.header('access-control-allow-methods', 'POST,OPTIONS');
      reply.header('vary', 'origin');
    }
    if (req.method === 'OPTIONS') return reply.code(204).send();
    if (options.authToken && !tokenValid(req.headers.authorization)) {
      return reply.code(401).header('www-authenticate', 'Bearer').send({ error: 'unauthorized' });
    }
  });

  for (const op of ['decode', 'encode'] as const) {
    app.post(`/${op}`, async (req, reply) => {
      const body = (req.body ?? {}) as { payloads?: JsonPayload[] | null };
      if (typeof body !== 'object' || Array.isArray(body) || (body.payloads != null && !Array.isArray(body.payloads))) {
        return reply.code(400).send({ error: 'expected { payloads: [...] }' });
      }
      try {
        const result = await options.codec[op]((body.payloads ?? []).map(fromJson));
        return { payloads: result.map(toJson) };
      } catch (err) {
        return reply.code(400).send({ error: err instanceof Error ? err.message : String(err) });
      }
    });
  }

  await app.listen({ host, port: options.port ?? 0 });
  const port = (app.server.address() as { port: number }).port;
  return { url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`, app, close: () => app.close() };
}

/**
 * The codec endpoint `npm start` serves: on 127.0.0.1:CODEC_PORT, for the Web UI's origin
 * (TEMPORAL_UI_PORT on localhost, or TEMPORAL_UI_URL), requiring CODEC_AUTH_TOKEN when set.
 */
export function startCodecServerFromConfig(
  codec: PayloadCodec,
  config: { CODEC_PORT: number; CODEC_AUTH_TOKEN?: string; TEMPORAL_UI_PORT: number; TEMPORAL_UI_URL?: string },
): ReturnType<typeof startCodecServer> {
  const ui = config.TEMPORAL_UI_PORT;
  return startCodecServer({
    codec,
    port: config.CODEC_PORT,
    authToken: config.CODEC_AUTH_TOKEN,
    allowedOrigins: [
      `http://localhost:${ui}`,
      `http://127.0.0.1:${ui}`,
      ...(config.TEMPORAL_UI_URL ? [config.TEMPORAL_UI_URL] : []),
    ],
  });
}
