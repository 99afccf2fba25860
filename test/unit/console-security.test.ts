/**
 * The web console's defences, without a browser or Temporal: files are served from ARTIFACT_DIR
 * only (no path traversal, no symbolic links out), everything rendered is escaped, the token is
 * required when configured, and cross-origin form posts are refused.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildControlPlane, type ControlPlane } from '../../server/app';
import { html } from '../../server/console/html';
import { gridToMarkdown, renderResult } from '../../server/console/views';
import { parseMarkdownTable } from '../../flows/eads/standin';
import type { TemporalAccess } from '../../server/temporal';
import * as flowRunner from '../../server/flow-runner';

const noTemporal: TemporalAccess = {
  client: async () => {
    throw new Error('Temporal is not used by these requests');
  },
  defaultNamespace: () => 'default',
  runner: async () => flowRunner,
  pollers: async () => ({ workflow: 0, activity: 0 }) as never,
  close: async () => undefined,
};

describe('web console defences', () => {
  let dir: string;
  let artifacts: string;
  let open: ControlPlane;
  let locked: ControlPlane;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'console-sec-'));
    artifacts = path.join(dir, 'out');
    mkdirSync(path.join(artifacts, 'proposal'), { recursive: true });
    writeFileSync(path.join(artifacts, 'proposal', 'p.pdf'), '%PDF-1.4 test');
    writeFileSync(path.join(artifacts, 'page.html'), '<script>alert(1)</script>');
    writeFileSync(path.join(dir, 'secret.txt'), 'TOPSECRET-CONTENT');
    mkdirSync(path.join(dir, 'out-evil'));
    writeFileSync(path.join(dir, 'out-evil', 'x.txt'), 'TOPSECRET-CONTENT');
    symlinkSync(path.join(dir, 'secret.txt'), path.join(artifacts, 'link.txt'));
    const build = (token?: string) =>
      buildControlPlane({
        storePath: path.join(dir, `store-${token ?? 'open'}.jsonl`),
        temporal: noTemporal,
        token,
        logLevel: 'silent',
        console: { artifactDir: artifacts },
      });
    open = await build();
    locked = await build('s3cret-token');
    await open.app.ready();
    await locked.app.ready();
  });
  afterAll(async () => {
    await open?.close();
    await locked?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves files under ARTIFACT_DIR and nothing outside it', async () => {
    const ok = await open.app.inject('/console/artifacts/proposal/p.pdf');
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['content-type']).toBe('application/pdf');
    expect(ok.body).toBe('%PDF-1.4 test');
    const attempts = [
      '/console/artifacts/../secret.txt',
      '/console/artifacts/%2e%2e/secret.txt',
      '/console/artifacts/..%2fsecret.txt',
      '/console/artifacts/proposal/..%2f..%2fsecret.txt',
      '/console/artifacts/%2e%2e%2fout-evil%2fx.txt',
      '/console/artifacts/%2Fetc%2Fpasswd',
      '/console/artifacts//etc/passwd',
      '/console/artifacts/..%5csecret.txt',
      '/console/artifacts/link.txt',
      '/console/artifacts/proposal',
      '/console/artifacts/',
      '/console/artifacts/p.pdf%00.txt',
      '/console/artifacts/%252e%252e%252fsecret.txt',
      '/console/artifacts/gs:%2F%2Fother-bucket%2Fsecret.txt',
      `/console/artifacts/${'a/'.repeat(400)}p.pdf`,
      `/console/artifacts/${'x'.repeat(5000)}.pdf`,
    ];
    for (const url of attempts) {
      const res = await open.app.inject(url);
      expect(res.statusCode, url).not.toBe(200);
      expect(res.body, url).not.toContain('TOPSECRET-CONTENT');
    }
    // Markup is never served as a page of this origin.
    const page = await open.app.inject('/console/artifacts/page.html');
    expect(page.headers['content-type']).toBe('application/octet-stream');
    expect(page.headers['content-disposition']).toBe('attachment');
  });

  it('escapes everything it renders', () => {
    const evil = '<script>alert(1)</script>"><img src=x onerror=alert(2)>';
    expect(html`<p title="${evil}">${evil}</p>`.text).not.toMatch(/<script>|<img/);
    const bom = renderResult({ artifactDir: artifacts }, 'answerBomQuestion', {
      question: evil,
      final_answer: evil,
      outcome: 'answered',
      pipeline_state: {
        rows: [{ [evil]: evil }],
        total_rows: 1,
        chosen_sql: evil,
        chosen_params: {},
        sql: null,
        params: {},
        suggestions: {},
      },
    }).text;
    expect(bom).not.toMatch(/<script>|<img/);
    expect(bom).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    const other = renderResult({ artifactDir: artifacts }, 'platformCheck', { note: evil, list: [evil] }).text;
    expect(other).not.toMatch(/<script>|<img/);
  });

  it('turns a table grid into the markdown table the interview reads', () => {
    const { markdown } = gridToMarkdown(['step', 'minutes'], ['mash', '60', 'boil\n hops', '90', '', '']);
    expect(parseMarkdownTable(markdown)).toEqual({
      headers: ['step', 'minutes'],
      rows: [
        ['mash', '60'],
        ['boil hops', '90'],
      ],
    });
    // A pipe inside a cell is escaped as GitHub-flavoured markdown does, so it cannot add a column.
    expect(gridToMarkdown(['a', 'b'], ['x | y', 'z']).markdown.split('\n')[2]).toBe('| x \\| y | z |');
    expect(gridToMarkdown(['a'], ['', '']).markdown).toBe('');
  });

  it('asks for the token when one is configured, and keeps a session in an HttpOnly cookie', async () => {
    const anonymous = await locked.app.inject('/console/');
    expect(anonymous.statusCode).toBe(302);
    expect(anonymous.headers.location).toBe('/console/login?next=%2Fconsole%2F');
    expect((await locked.app.inject('/console/artifacts/proposal/p.pdf')).statusCode).toBe(302);
    const form = {
      'content-type': 'application/x-www-form-urlencoded',
      // A name the control plane answers to (its Host check comes first); the console then checks
      // that the form was posted from its own origin.
      host: 'localhost',
      origin: 'http://localhost',
    };
    const wrong = await locked.app.inject({
      method: 'POST',
      url: '/console/login',
      headers: form,
      payload: 'token=nope&next=%2Fconsole%2F',
    });
    expect(wrong.statusCode).toBe(401);
    const right = await locked.app.inject({
      method: 'POST',
      url: '/console/login',
      headers: form,
      payload: 'token=s3cret-token&next=https%3A%2F%2Fevil.example%2F',
    });
    expect(right.statusCode).toBe(303);
    expect(right.headers.location).toBe('/console/');
    const cookie = String(right.headers['set-cookie']);
    expect(cookie).toMatch(/; Path=\/console; Max-Age=\d+; HttpOnly; SameSite=Strict/);
    // A session id, not the token (test/unit/console-sessions.test.ts has the rest).
    expect(cookie).not.toContain('s3cret-token');
    const signed = await locked.app.inject({
      url: '/console/artifacts/proposal/p.pdf',
      headers: { cookie: cookie.split(';')[0] },
    });
    expect(signed.statusCode).toBe(200);
    // The API keeps its bearer token: the console cookie does not open it.
    expect(
      (await locked.app.inject({ url: '/api/v1/discovery/capabilities', headers: { cookie: cookie.split(';')[0] } }))
        .statusCode,
    ).toBe(401);
  });

  it('refuses form posts from other origins', async () => {
    const res = await open.app.inject({
      method: 'POST',
      url: '/console/flows/answerBomQuestion',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        host: '127.0.0.1:4000',
        origin: 'http://evil.example',
      },
      payload: 'question=List+BOMs',
    });
    expect(res.statusCode).toBe(403);
    const page = await open.app.inject('/console/flows/answerBomQuestion');
    expect(page.headers['content-security-policy']).toMatch(/script-src 'self'/);
    expect(page.body).toContain('<label for="f-question">question');
  });
});
