/**
 * The processes' one logger (plumbing/logger.ts): JSON lines with component, level, timestamp and
 * message; secret-bearing fields redacted; the Temporal SDK's lines through it, filtered as before.
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { loggerOptions, ownLevel, sdkLogger, type Component } from '../../plumbing/logger';

function capture(component?: Component) {
  const lines: Array<Record<string, unknown>> = [];
  const stream = { write: (line: string) => void lines.push(JSON.parse(line)) };
  return { log: pino(loggerOptions({ level: 'info' }), stream).child(component ? { component } : {}), lines };
}

describe('the process logger', () => {
  it('writes one JSON object a line: component, level name, ISO timestamp, message, fields', () => {
    const { log, lines } = capture('stack');
    log.info({ url: 'http://127.0.0.1:8080', count: 3 }, 'control plane started');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      component: 'stack',
      level: 'info',
      message: 'control plane started',
      url: 'http://127.0.0.1:8080',
      count: 3,
    });
    expect(new Date(lines[0].timestamp as string).toISOString()).toBe(lines[0].timestamp);
    // No duplicate keys: the component is bound once.
    expect(Object.keys(lines[0]).filter((k) => k === 'component')).toHaveLength(1);
  });

  it('redacts secret-bearing fields at the top level, one level down and in headers', () => {
    const { log, lines } = capture('worker');
    const secret = 'sk-live-0123456789abcdef';
    log.info(
      {
        token: secret,
        apiKey: secret,
        password: secret,
        key: secret,
        options: { secret, authorization: `Bearer ${secret}`, 'x-agent-secret': secret, kept: 'visible' },
        req: { headers: { authorization: `Bearer ${secret}`, cookie: secret, host: 'localhost' } },
        env: { TEMPORAL_API_KEY: secret, CODEC_AUTH_TOKEN: secret },
      },
      'configured',
    );
    const raw = JSON.stringify(lines);
    expect(raw).not.toContain(secret);
    expect(lines[0]).toMatchObject({
      token: '[redacted]',
      password: '[redacted]',
      options: { secret: '[redacted]', authorization: '[redacted]', kept: 'visible' },
      req: { headers: { authorization: '[redacted]', host: 'localhost' } },
      env: { TEMPORAL_API_KEY: '[redacted]' },
    });
  });

  it("shows the process's own lines whatever LOG_LEVEL quiets (debug adds debug lines)", () => {
    expect(ownLevel({ LOG_LEVEL: 'error' })).toBe('info');
    expect(ownLevel({ LOG_LEVEL: 'warn' })).toBe('info');
    expect(ownLevel({})).toBe('info');
    expect(ownLevel({ LOG_LEVEL: 'debug' })).toBe('debug');
  });
});

describe("the Temporal SDK's logger", () => {
  it('writes JSON lines through the process logger, with the SDK metadata as fields', () => {
    const { log, lines } = capture('worker');
    sdkLogger('INFO', log).info('Workflow bundle created', { sdkComponent: 'worker', taskQueue: 'agent-flows' });
    expect(lines[0]).toMatchObject({
      component: 'worker',
      level: 'info',
      message: 'Workflow bundle created',
      sdkComponent: 'worker',
      taskQueue: 'agent-flows',
    });
  });

  it("keeps DefaultLogger's level filtering, below the process logger's level too", () => {
    const { log, lines } = capture('worker');
    const warnOnly = sdkLogger('WARN', log);
    warnOnly.info('hidden');
    warnOnly.log('DEBUG', 'hidden too');
    warnOnly.warn('shown');
    warnOnly.log('ERROR', 'shown too', { error: new Error('boom') });
    expect(lines.map((l) => l.message)).toEqual(['shown', 'shown too']);
    expect(lines[1]).toMatchObject({ level: 'error', error: { message: 'boom', type: 'Error' } });
    const debug = sdkLogger('DEBUG', log);
    debug.debug('a debug line');
    expect(lines.at(-1)).toMatchObject({ level: 'debug', message: 'a debug line' });
  });
});

describe('secrets the field names do not reveal', () => {
  // Shapes redactCredentials knows (backends/errors.ts): a Google API key, an OAuth access token.
  const apiKey = 'AIzaSyA1234567890abcdefghijklmnopqrstuv';
  const accessToken = 'ya29.a0AfH6SMBx-secret-access-token';

  it('cuts credentials out of messages and error text (a Gemini URL with ?key=, a bearer token)', () => {
    const { log, lines } = capture('worker');
    const url = `https://generativelanguage.googleapis.com/v1beta/models/m:generateContent?key=${apiKey}`;
    // As the process entries log a failure: its text as the message, or the error itself.
    log.error(`request to ${url} failed`);
    log.error({ err: new Error(`request to ${url} failed`) }, 'worker failed');
    log.error(new Error(`Authorization: Bearer ${accessToken}`));
    log.warn({ error: `fetch ${url}: ECONNRESET` }, 'control plane not started; flows still run');
    const raw = JSON.stringify(lines);
    expect(raw).not.toContain(apiKey);
    expect(raw).not.toContain(accessToken);
    expect(lines[1]).toMatchObject({ err: { type: 'Error', message: expect.stringContaining('key=[redacted]') } });
    expect(lines[2]).toMatchObject({ message: expect.stringContaining('[redacted]'), err: { type: 'Error' } });
  });

  it('redacts secret-bearing fields at any depth, in arrays and on errors (a client error with its request config)', () => {
    const { log, lines } = capture('worker');
    const secret = 'sk-live-0123456789abcdef';
    const err = Object.assign(new Error('Request failed with status code 403'), {
      config: {
        url: 'https://example.test/v1',
        headers: { Authorization: `Bearer ${secret}`, 'x-goog-api-key': secret },
      },
    });
    log.error(
      { err, agents: [{ name: 'a', token: secret }], deep: { a: { b: { c: { password: secret } } } } },
      'failed',
    );
    expect(JSON.stringify(lines)).not.toContain(secret);
    expect(lines[0]).toMatchObject({
      err: { type: 'Error', config: { url: 'https://example.test/v1', headers: { Authorization: '[redacted]' } } },
      agents: [{ name: 'a', token: '[redacted]' }],
    });
  });

  it("cuts them out of the Temporal SDK's lines (an activity failure with its error)", () => {
    const { log, lines } = capture('worker');
    sdkLogger('INFO', log).warn('Activity failed', {
      activityType: 'askModel',
      error: new Error(`POST https://generativelanguage.googleapis.com/v1beta?key=${apiKey}: 500`),
    });
    expect(JSON.stringify(lines)).not.toContain(apiKey);
    expect(lines[0]).toMatchObject({ activityType: 'askModel', error: { type: 'Error' } });
  });

  it('logs an error whose message is a getter on its prototype (an AbortError DOMException)', () => {
    const { log, lines } = capture('worker');
    log.error({ err: new DOMException('The operation was aborted', 'AbortError') }, 'aborted');
    log.warn(new DOMException(`fetch ?key=${apiKey} aborted`, 'AbortError'));
    expect(lines[0]).toMatchObject({ err: { type: 'DOMException', message: 'The operation was aborted' } });
    expect(lines[1]).toMatchObject({ message: 'fetch ?key=[redacted] aborted', err: { type: 'DOMException' } });
  });

  it('cuts the user part out of a URL (CONTROL_PLANE_URL=http://user:password@host, logged as the url)', () => {
    const { log, lines } = capture('worker');
    log.warn(
      { url: 'http://agent:hunter2-password@control-plane:8080', error: 'fetch https://u:hunter2@x.test/ failed' },
      'control plane refused or not reachable; running unregistered, retrying',
    );
    expect(JSON.stringify(lines)).not.toContain('hunter2');
    expect(lines[0]).toMatchObject({ url: 'http://[redacted]@control-plane:8080' });
  });

  it('leaves ordinary values and non-plain objects alone', () => {
    const { log, lines } = capture('worker');
    log.info({ url: new URL('http://127.0.0.1:8080/x'), count: 3, when: new Date(0) }, 'plain');
    expect(lines[0]).toMatchObject({ url: 'http://127.0.0.1:8080/x', count: 3, when: '1970-01-01T00:00:00.000Z' });
  });
});

describe('which environment variables are secret', () => {
  it('counts a credential given as data or contents, and not its path or settings', async () => {
    const { isSecretVariable, secretValues } = await import('../../plumbing/config');
    for (const name of ['TEMPORAL_TLS_CLIENT_KEY_DATA', 'SOME_TOKEN_VALUE', 'SERVICE_ACCOUNT_KEY_JSON', 'API_KEY'])
      expect(isSecretVariable(name), name).toBe(true);
    for (const name of ['TEMPORAL_TLS_CLIENT_KEY_PATH', 'TEMPORAL_ADDRESS', 'KEY_ROTATION_DAYS'])
      expect(isSecretVariable(name), name).toBe(false);
    expect(secretValues({ TEMPORAL_TLS_CLIENT_KEY_DATA: '-----BEGIN PRIVATE KEY-----abc' })).toEqual([
      '-----BEGIN PRIVATE KEY-----abc',
    ]);
  });
});
