/**
 * The processes' one logger (workers/logger.ts): JSON lines with component, level, timestamp and
 * message; secret-bearing fields redacted; the Temporal SDK's lines through it, filtered as before.
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { loggerOptions, ownLevel, sdkLogger, type Component } from '../../workers/logger';

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
