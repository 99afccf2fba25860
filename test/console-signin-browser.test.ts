/**
 * The console's sign-in in a real browser (Debian's Chromium through playwright-core), against
 * the attack that made the token cookie a hole: cookies are not scoped by port, so a page the
 * browser opens on another local port receives the console's cookie. It now receives a session
 * id, never the token, and signing out ends that session on the server, so the copy is worth
 * nothing afterwards. No Temporal is needed (sign-in, a file and the start form only). Skipped,
 * saying so, where no Chromium is found.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildControlPlane, type ControlPlane } from '../server/app';
import type { TemporalAccess } from '../server/temporal';
import { findChromium, launchChromium, type ConsoleBrowser } from '../workers/console-browser';
import * as flowRunner from '../server/flow-runner';

const chromium = findChromium();
if (!chromium.path) console.warn(`[console-signin-browser.test] skipping: ${chromium.reason}`);

const TOKEN = 'browser-console-token-0123456789';

const noTemporal: TemporalAccess = {
  client: async () => {
    throw new Error('Temporal is not used by these pages');
  },
  defaultNamespace: () => 'default',
  runner: async () => flowRunner,
  pollers: async () => ({ workflow: 0, activity: 0 }) as never,
  close: async () => undefined,
};

describe.skipIf(!chromium.path)('console sign-in in Chromium', () => {
  let dir: string;
  let cp: ControlPlane;
  let base: string;
  let browser: ConsoleBrowser;
  /** Another local service on another port, recording the Cookie headers the browser sends it. */
  let other: http.Server;
  let otherBase: string;
  /** Cookie headers by request path: a browser also fetches things of its own (a favicon). */
  const received: { path: string; cookie: string }[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'console-signin-'));
    mkdirSync(path.join(dir, 'out'));
    writeFileSync(path.join(dir, 'out', 'p.txt'), 'the artifact');
    cp = await buildControlPlane({
      storePath: path.join(dir, 'store.jsonl'),
      temporal: noTemporal,
      token: TOKEN,
      logLevel: 'silent',
      console: { artifactDir: path.join(dir, 'out') },
    });
    base = await cp.listen('127.0.0.1', 0);
    other = http.createServer((req, res) => {
      received.push({ path: req.url ?? '', cookie: req.headers.cookie ?? '' });
      res.writeHead(200, { 'content-type': 'text/plain' }).end('another service');
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    otherBase = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
    browser = await launchChromium(chromium.path!);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await cp?.close();
    other?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('another port gets a session id, not the token, and it dies at sign-out', async () => {
    const page = await browser.context.newPage();
    page.setDefaultTimeout(60_000);
    await page.goto(`${base}/console/artifacts/p.txt`);
    expect(page.url()).toContain('/console/login');
    await page.fill('#token', TOKEN);
    await Promise.all([page.waitForURL(`${base}/console/artifacts/p.txt`), page.click('button[type=submit]')]);
    expect(await page.textContent('body')).toContain('the artifact');

    const [cookie] = (await browser.context.cookies(`${base}/console/`)).filter(
      (c) => c.name === 'agent_flows_console',
    );
    expect(cookie.value).not.toContain(TOKEN.slice(0, 12));
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/console' });
    // The browser keeps it for the session's lifetime, not forever.
    expect(cookie.expires).toBeGreaterThan(Date.now() / 1000);
    expect(cookie.expires).toBeLessThan(Date.now() / 1000 + 13 * 60 * 60);

    // The browser visits another local service (a link, a redirect, a page it was sent to).
    await page.goto(`${otherBase}/console/anything`);
    const visit = received.find((r) => r.path === '/console/anything');
    expect(visit, 'the other service saw the visit').toBeDefined();
    // Chromium today sends host cookies to every port; a build that binds cookies to their port
    // sends nothing, which leaks nothing. Either way the token itself never travels.
    expect(visit!.cookie).not.toContain(TOKEN);
    expect(visit!.cookie).not.toContain(encodeURIComponent(TOKEN));
    if (visit!.cookie) expect(visit!.cookie).toContain(`agent_flows_console=${cookie.value}`);
    else console.warn('[console-signin-browser.test] this Chromium did not send the cookie to another port');
    const leaked = `agent_flows_console=${cookie.value}`;
    // What it got still works as a session, until the person signs out...
    const replay = () =>
      fetch(`${base}/console/artifacts/p.txt`, { headers: { cookie: leaked }, redirect: 'manual' }).then(
        (r) => r.status,
      );
    expect(await replay()).toBe(200);
    await page.goto(`${base}/console/flows/platformCheck`);
    await Promise.all([page.waitForURL(/\/console\/login/), page.click('form.signout button')]);
    // ...which ends it on the server: the copy opens nothing, and the browser dropped its own.
    expect(await replay()).toBe(302);
    expect(
      (await browser.context.cookies(`${base}/console/`)).filter((c) => c.name === 'agent_flows_console'),
    ).toHaveLength(0);
    await page.goto(`${base}/console/artifacts/p.txt`);
    expect(page.url()).toContain('/console/login');
    await page.close();
  });
});
