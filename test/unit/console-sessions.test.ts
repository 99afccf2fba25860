/**
 * The web console's sign-in (server/console/sessions.ts, server/console/plugin.ts), without
 * Temporal: the cookie holds a random session id, never the token (cookies are not scoped by
 * port, so every other local service would receive it); sessions end when idle, when old and at
 * sign-out; the store is bounded; and the attacks a local page or process can try on the cookie
 * (tossing one in from another port, planting an id before sign-in, forged, expired and oversized
 * ids, other spellings of a closed route) all end at the sign-in page.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildControlPlane, type ControlPlane } from '../../server/app';
import type { ConsoleSessionOptions } from '../../server/console/sessions';
import type { TemporalAccess } from '../../server/temporal';
import * as flowRunner from '../../server/flow-runner';

const TOKEN = 'console-t0ken-for-tests';
const HOUR = 60 * 60 * 1000;

/** A console whose Temporal is never there: a closed route reached without a session would 500. */
const noTemporal: TemporalAccess = {
  client: async () => {
    throw new Error('Temporal is not used by these requests');
  },
  defaultNamespace: () => 'default',
  runner: async () => flowRunner,
  pollers: async () => ({ workflow: 0, activity: 0 }) as never,
  close: async () => undefined,
};

const FORM = {
  'content-type': 'application/x-www-form-urlencoded',
  host: 'localhost',
  origin: 'http://localhost',
};

let dir: string;
const planes: ControlPlane[] = [];
let clock = 1_000_000;

async function consoleWith(sessions: ConsoleSessionOptions = {}): Promise<ControlPlane> {
  const cp = await buildControlPlane({
    storePath: path.join(dir, `store-${planes.length}.jsonl`),
    temporal: noTemporal,
    token: TOKEN,
    logLevel: 'silent',
    now: () => clock,
    console: { artifactDir: path.join(dir, 'out'), sessions },
  });
  planes.push(cp);
  await cp.app.ready();
  return cp;
}

async function signIn(cp: ControlPlane, headers: Record<string, string> = {}) {
  const res = await cp.app.inject({
    method: 'POST',
    url: '/console/login',
    headers: { ...FORM, ...headers },
    payload: `token=${encodeURIComponent(TOKEN)}&next=%2Fconsole%2Fartifacts%2Fp.txt`,
  });
  expect(res.statusCode).toBe(303);
  const setCookie = String(res.headers['set-cookie']);
  return { setCookie, cookie: setCookie.split(';')[0] };
}

/** The status line's code for a request written by hand (the request target exactly as given). */
function rawStatus(port: number, target: string, host: string, cookie?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () =>
      socket.write(
        `GET ${target} HTTP/1.1\r\nHost: ${host}\r\n${cookie ? `Cookie: ${cookie}\r\n` : ''}Connection: close\r\n\r\n`,
      ),
    );
    let reply = '';
    socket.on('data', (chunk: Buffer) => (reply += chunk.toString('latin1')));
    socket.once('end', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(reply)?.[1] ?? 0)));
    socket.once('error', reject);
  });
}

/** The status of a signed-in-only page (an artifact: served without Temporal) with this Cookie header. */
const artifactWith = async (cp: ControlPlane, cookie: string) =>
  (await cp.app.inject({ url: '/console/artifacts/p.txt', headers: { cookie } })).statusCode;

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'console-sessions-'));
  mkdirSync(path.join(dir, 'out'));
  writeFileSync(path.join(dir, 'out', 'p.txt'), 'artifact');
});
afterEach(() => {
  clock = 1_000_000;
});
afterAll(async () => {
  await Promise.all(planes.map((cp) => cp.close()));
  rmSync(dir, { recursive: true, force: true });
});

describe('console sign-in sessions', () => {
  it('puts a random session id in the cookie, never the token; the token as a cookie opens nothing', async () => {
    const cp = await consoleWith();
    const a = await signIn(cp);
    const b = await signIn(cp);
    expect(a.setCookie).not.toContain(TOKEN);
    expect(a.setCookie).not.toContain(encodeURIComponent(TOKEN));
    expect(a.cookie).toMatch(/^agent_flows_console=[A-Za-z0-9_-]{43}$/);
    expect(a.cookie).not.toBe(b.cookie);
    expect(a.setCookie).toMatch(/; Path=\/console; Max-Age=43200; HttpOnly; SameSite=Strict$/);
    // Plain http: no Secure (the browser would drop it) and so no __Host- prefix.
    expect(a.setCookie).not.toMatch(/Secure|__Host-/);
    expect(await artifactWith(cp, a.cookie)).toBe(200);
    // What the console used to keep in the cookie: now just a wrong value.
    expect(await artifactWith(cp, `agent_flows_console=${encodeURIComponent(TOKEN)}`)).toBe(302);
    expect(await artifactWith(cp, `__Host-agent_flows_console=${encodeURIComponent(TOKEN)}`)).toBe(302);
  });

  it('over https (TLS proxy or an https page) the cookie is Secure and __Host- prefixed', async () => {
    const cp = await consoleWith();
    const https: Array<Record<string, string>> = [{ 'x-forwarded-proto': 'https' }, { origin: 'https://localhost' }];
    for (const headers of https) {
      const { setCookie, cookie } = await signIn(cp, headers);
      expect(cookie).toMatch(/^__Host-agent_flows_console=[A-Za-z0-9_-]{43}$/);
      // __Host- requires Secure, Path=/ and no Domain, or browsers refuse the cookie.
      expect(setCookie).toMatch(/; Path=\/; Max-Age=43200; HttpOnly; SameSite=Strict; Secure$/);
      expect(setCookie).not.toMatch(/Domain=/i);
      expect(await artifactWith(cp, cookie)).toBe(200);
    }
  });

  it('ends a session after its idle time and after its lifetime, however busy', async () => {
    const cp = await consoleWith({ idleMs: 2 * HOUR, lifetimeMs: 12 * HOUR });
    const idle = await signIn(cp);
    clock += 2 * HOUR - 1;
    expect(await artifactWith(cp, idle.cookie)).toBe(200); // used: idle time starts again
    clock += 2 * HOUR - 1;
    expect(await artifactWith(cp, idle.cookie)).toBe(200);
    clock += 2 * HOUR;
    expect(await artifactWith(cp, idle.cookie)).toBe(302);

    const busy = await signIn(cp);
    for (let used = 0; used < 11; used++) {
      clock += HOUR;
      expect(await artifactWith(cp, busy.cookie)).toBe(200);
    }
    clock += HOUR;
    expect(await artifactWith(cp, busy.cookie)).toBe(302);
  });

  it('signing out ends the session on the server, not only in the browser', async () => {
    const cp = await consoleWith();
    const { cookie } = await signIn(cp);
    const other = await signIn(cp);
    const page = await cp.app.inject({ url: '/console/artifacts/missing', headers: { cookie } });
    expect(page.statusCode).toBe(404);
    const out = await cp.app.inject({ method: 'POST', url: '/console/logout', headers: { ...FORM, cookie } });
    expect(out.statusCode).toBe(303);
    expect(out.headers.location).toBe('/console/login');
    expect(String(out.headers['set-cookie'])).toMatch(/agent_flows_console=; Path=\/console; Max-Age=0/);
    // The same cookie replayed after sign-out (a copy kept by someone else) opens nothing.
    expect(await artifactWith(cp, cookie)).toBe(302);
    expect(await artifactWith(cp, other.cookie)).toBe(200);
    // A sign-out posted from another origin (another local port) is refused.
    const cross = await cp.app.inject({
      method: 'POST',
      url: '/console/logout',
      headers: { ...FORM, origin: 'http://localhost:9999', cookie: other.cookie },
    });
    expect(cross.statusCode).toBe(403);
    expect(await artifactWith(cp, other.cookie)).toBe(200);
  });

  it('offers sign-out on its pages', async () => {
    const cp = await consoleWith();
    const { cookie } = await signIn(cp);
    const res = await cp.app.inject({ url: '/console/artifacts/missing', headers: { cookie } });
    expect(res.statusCode).toBe(404);
    const home = await cp.app.inject({ url: '/console/flows/platformCheck', headers: { cookie } });
    expect(home.body).toContain('action="/console/logout"');
    const login = await cp.app.inject('/console/login');
    expect(login.body).not.toContain('action="/console/logout"');
  });

  it('keeps at most maxSessions: many sign-ins push out the least recently used, never a fresh one', async () => {
    const cp = await consoleWith({ maxSessions: 5 });
    const first = await signIn(cp);
    const cookies = [];
    for (let i = 0; i < 4; i++) cookies.push((await signIn(cp)).cookie);
    clock += 1;
    expect(await artifactWith(cp, first.cookie)).toBe(200); // used: now the most recent
    // A burst of sign-ins, concurrent as a script would send them.
    const burst = await Promise.all(Array.from({ length: 50 }, () => signIn(cp)));
    const alive = [];
    for (const c of [first.cookie, ...cookies, ...burst.map((b) => b.cookie)]) {
      if ((await artifactWith(cp, c)) === 200) alive.push(c);
    }
    expect(alive).toHaveLength(5);
    const burstCookies = new Set(burst.map((b) => b.cookie));
    expect(alive.every((c) => burstCookies.has(c))).toBe(true);
    // The newest sign-in always works, and the one after it.
    const last = await signIn(cp);
    expect(await artifactWith(cp, last.cookie)).toBe(200);
    expect(await artifactWith(cp, (await signIn(cp)).cookie)).toBe(200);
    expect(await artifactWith(cp, last.cookie)).toBe(200);
  });

  it('a cookie tossed in from another port neither shadows the real one nor becomes a session', async () => {
    const cp = await consoleWith();
    const { cookie } = await signIn(cp);
    const tossed = 'agent_flows_console=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
    // A cookie with a more specific path is sent first; the real one must still count.
    expect(await artifactWith(cp, `${tossed}; ${cookie}`)).toBe(200);
    expect(await artifactWith(cp, `${cookie}; ${tossed}`)).toBe(200);
    // Session fixation: an id planted before sign-in is replaced by a new one, and stays worthless.
    const planted = 'agent_flows_console=plantedplantedplantedplantedplantedplanted123';
    const after = await signIn(cp, { cookie: planted });
    expect(after.cookie).not.toBe(planted);
    expect(await artifactWith(cp, planted)).toBe(302);
    expect(await artifactWith(cp, after.cookie)).toBe(200);
    // Signing in again ends the session the browser presented.
    const again = await signIn(cp, { cookie: after.cookie });
    expect(await artifactWith(cp, after.cookie)).toBe(302);
    expect(await artifactWith(cp, again.cookie)).toBe(200);
  });

  it('forged, malformed and oversized ids open nothing and break nothing', async () => {
    const cp = await consoleWith();
    const { cookie } = await signIn(cp);
    const value = cookie.split('=')[1];
    const forged = [
      `agent_flows_console=${value.slice(0, -1)}${value.endsWith('A') ? 'B' : 'A'}`,
      `agent_flows_console=${value}${value}`,
      `agent_flows_console=${value.slice(0, 20)}`,
      `agent_flows_console=${'A'.repeat(8000)}`,
      `agent_flows_console=${encodeURIComponent(value)}%00`,
      `agent_flows_console="${value}"`,
      `agent_flows_console =${value}x`,
      `agent_flows_console=`,
      `agent_flows_console`,
      `other=${value}`,
      Array.from({ length: 300 }, (_, i) => `agent_flows_console=${'x'.repeat(43)}${i}`).join('; '),
    ];
    for (const c of forged) expect(await artifactWith(cp, c), c.slice(0, 80)).toBe(302);
    // A Cookie header past Node's header limit is refused before any route; the console stays up.
    const url = await cp.listen('127.0.0.1', 0);
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.get(`${url}/console/artifacts/p.txt`, {
        headers: { cookie: `${cookie}; x=${'y'.repeat(20_000)}` },
      });
      req.once('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.once('error', reject);
    });
    expect(status).toBe(431);
    expect((await fetch(`${url}/console/artifacts/p.txt`, { headers: { cookie } })).status).toBe(200);
  });

  it('on the wire: absolute-form targets and Host games end at the sign-in page or a 403', async () => {
    const cp = await consoleWith();
    const { cookie } = await signIn(cp);
    const port = Number(new URL(await cp.listen('127.0.0.1', 0)).port);
    const local = `127.0.0.1:${port}`;
    const cases: Array<[target: string, host: string, expected: number]> = [
      [`http://${local}/console/artifacts/p.txt`, local, 302],
      ['http://localhost/console/artifacts/p.txt', local, 302],
      [`http://evil.example/console/artifacts/p.txt`, local, 403],
      ['/console/artifacts/p.txt', 'evil.example', 403],
      ['/console/artifacts/p.txt', `evil.example:${port}`, 403],
      [`http://${local}/console/artifacts/p.txt`, 'evil.example', 403],
      ['//console/artifacts/p.txt', local, 404],
      [`http://${local}/console/login/../artifacts/p.txt`, local, 404],
    ];
    for (const [target, host, expected] of cases) {
      expect(await rawStatus(port, target, host), `${target} Host: ${host}`).toBe(expected);
    }
    // Signed in, the absolute form serves the file like the plain path.
    expect(await rawStatus(port, `http://${local}/console/artifacts/p.txt`, local, cookie)).toBe(200);
  });

  it('no spelling of a closed route reaches it without a session', async () => {
    const cp = await consoleWith();
    const targets = [
      '/console/runs/x',
      'http://localhost/console/runs/x',
      '//console/runs/x',
      '/console//runs/x',
      '/console/login/../runs/x',
      '/console/login/..%2fruns%2fx',
      '/console/assets/..%2f..%2fconsole%2fruns%2fx',
      '/console/assets/%2e%2e/runs/x',
      '/console/%72uns/x',
      '/console/RUNS/x',
      '/console/runs/x?next=/console/login',
      '/console/runs/x#/console/login',
      '/console/login;/../runs/x',
      '/console/artifacts/p.txt',
      '/console/artifacts/%70.txt',
      '/console/artifacts//p.txt',
      '/console/artifacts/./p.txt',
      '/console/assets/../artifacts/p.txt',
      '/console/go?workflowId=x',
    ];
    for (const url of targets) {
      const res = await cp.app.inject({ url });
      // Sign-in redirect, or no such route; never the page (a 500 would mean the route ran and
      // called the absent Temporal; a 200 would be the file).
      expect([302, 400, 403, 404], url).toContain(res.statusCode);
      expect(res.body, url).not.toContain('artifact');
    }
    for (const url of ['/console/flows/platformCheck', 'http://localhost/console/runs/x/proposal/answer']) {
      const res = await cp.app.inject({ method: 'POST', url, headers: FORM, payload: 'topic=x' });
      expect([401, 403, 404], url).toContain(res.statusCode);
    }
  });
});

describe('console responses carry their security headers', () => {
  it('every page and every artifact refuses framing; artifacts are same-origin only and not cached', async () => {
    const cp = await consoleWith();
    const { cookie } = await signIn(cp);
    const pageRes = await cp.app.inject({ url: '/console/login' });
    expect(pageRes.headers['content-security-policy']).toMatch(/frame-ancestors 'none'/);
    expect(pageRes.headers['x-frame-options']).toBe('DENY');
    const file = await cp.app.inject({ url: '/console/artifacts/p.txt', headers: { cookie } });
    expect(file.statusCode).toBe(200);
    const csp = String(file.headers['content-security-policy']);
    expect(csp).toMatch(/default-src 'none'/);
    expect(csp).toMatch(/frame-ancestors 'none'/);
    expect(csp).not.toMatch(/script-src/);
    expect(file.headers['x-frame-options']).toBe('DENY');
    expect(file.headers['x-content-type-options']).toBe('nosniff');
    // Another local port is same-site but not same-origin: it may not embed the file either.
    expect(file.headers['cross-origin-resource-policy']).toBe('same-origin');
    expect(file.headers['cache-control']).toBe('private, no-store');
  });
});
