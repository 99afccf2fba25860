/**
 * The stand-in's request log (VERBOSE_STANDIN) is the processes' JSON logger (plumbing/logger.ts):
 * same fields, and a key sent in the query string (`?key=`, as Gemini's REST API accepts it) is
 * cut out of the logged url.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startStandin } from '../../standin/server';

describe('the stand-in request log', () => {
  afterEach(() => vi.restoreAllMocks());

  it('writes JSON lines of the shared shape, without the key of a ?key= url', async () => {
    const apiKey = 'AIzaSyA1234567890abcdefghijklmnopqrstuv';
    const lines: string[] = [];
    // In the test runner the process logger writes through console.log (plumbing/logger.ts).
    vi.spyOn(console, 'log').mockImplementation((line: unknown) => void lines.push(String(line)));
    const standin = await startStandin({ port: 0, log: true });
    try {
      const res = await fetch(`${standin.url}/healthz?key=${apiKey}`);
      expect(res.status).toBe(200);
    } finally {
      await standin.close();
    }
    const records = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(records.length).toBeGreaterThan(0);
    expect(lines.join('\n')).not.toContain(apiKey);
    expect(records.find((r) => r.message === 'incoming request')).toMatchObject({
      component: 'standin',
      level: 'info',
      req: { method: 'GET', url: '/healthz?key=[redacted]' },
    });
  });
});
