/**
 * The stand-in has no token: a web page (or a DNS-rebinding one posing as 127.0.0.1) must not
 * switch its faults on or send it work. Browsers name an Origin on every PUT and POST; the
 * worker's model client sends none.
 */
import { describe, expect, it } from 'vitest';
import { startStandin } from '../../standin/server';

describe('the stand-in and browsers', () => {
  it('refuses a request that names an Origin, and serves one that does not', async () => {
    const standin = await startStandin({ port: 0, rules: [] });
    try {
      const put = (headers: Record<string, string>) =>
        fetch(`${standin.url}/__standin/faults`, {
          method: 'PUT',
          headers: { 'content-type': 'application/json', ...headers },
          body: JSON.stringify({ permanentStatus: 400 }),
        });
      for (const origin of ['http://attacker.example', `http://127.0.0.1:${standin.port}`, 'null']) {
        expect((await put({ origin })).status).toBe(403);
      }
      const faults = async () =>
        ((await (await fetch(`${standin.url}/__standin/faults`)).json()) as { permanentStatus?: number })
          .permanentStatus;
      expect(await faults()).toBeUndefined();
      expect((await put({})).status).toBe(200);
      expect(await faults()).toBe(400);
    } finally {
      await standin.close();
    }
  });
});

describe("the stand-in's task names", () => {
  it('neither keeps nor echoes a task name longer than any task id', async () => {
    const standin = await startStandin({ port: 0, rules: [] });
    try {
      const long = `x${'y'.repeat(1_000_000)}`;
      const res = await fetch(`${standin.url}/v1beta/models/m:generateContent`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ systemInstruction: { parts: [{ text: `Task: ${long}` }] }, contents: [] }),
      });
      expect(res.status).toBe(400);
      expect((await res.text()).length).toBeLessThan(1_000);
      expect(JSON.stringify(standin.stats()).length).toBeLessThan(1_000);
    } finally {
      await standin.close();
    }
  });
});
