/**
 * Every Web UI link the project prints opens a page, checked against a real dev server's UI.
 *
 * The UI is a single-page app: any path returns its HTML shell with 200, and the page then reads
 * its route's parameters and asks the UI server's API for the workflow. So each link is matched
 * against the route table the served app itself carries, and the API call that route makes is
 * made too: a link the UI misreads (e.g. `<id>/history` read as run id "history") gets the same
 * 400 the browser shows.
 */
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webUiLink } from '../access/flow-client';
import { freePort, startDevServer, type DevServer } from '../workers/dev-server';

let server: DevServer;
let client: Client;
let routes: string[];
const saved = process.env.TEMPORAL_UI_URL;

/** The UI's own route table, e.g. `/namespaces/[namespace]/workflows/[workflow]/[run]/history`. */
async function uiRoutes(base: string): Promise<string[]> {
  const shell = await (await fetch(`${base}/`)).text();
  const app = /\/_app\/immutable\/entry\/app\.[\w-]+\.js/.exec(shell)?.[0];
  if (!app) throw new Error('the Web UI shell names no app entry');
  const code = await (await fetch(`${base}${app}`)).text();
  return [...code.matchAll(/"(\/[^"]*)":\[\d+/g)].map((m) => m[1].replace(/\/\([^)/]+\)/g, '') || '/');
}

/** The route the UI picks for a path (static segments win over parameters), with its parameters. */
function matchRoute(pathname: string): { route: string; params: Record<string, string> } | undefined {
  const segments = pathname.split('/').filter(Boolean).map(decodeURIComponent);
  const matches = routes.flatMap((route) => {
    const parts = route.split('/').filter(Boolean);
    if (parts.length !== segments.length || parts.some((p) => p.startsWith('[...') || p.startsWith('[['))) return [];
    const params: Record<string, string> = {};
    for (const [i, part] of parts.entries()) {
      const param = /^\[(\w+)(?:=\w+)?\]$/.exec(part)?.[1];
      if (param) params[param] = segments[i];
      else if (part !== segments[i]) return [];
    }
    return [{ route, params, statics: parts.filter((p) => !p.startsWith('[')).length }];
  });
  return matches.sort((a, b) => b.statics - a.statics)[0];
}

/** What the browser would show: the page, and the workflow the page's route asks the API for. */
async function open(link: string): Promise<{ page: number; route?: string; api?: number; apiBody?: string }> {
  const page = await fetch(link);
  const html = await page.text();
  expect(html).toContain('<!doctype html>');
  const matched = matchRoute(new URL(link).pathname);
  if (!matched) return { page: page.status };
  const { namespace, workflow, run } = matched.params;
  const api = await fetch(
    `${new URL(link).origin}/api/v1/namespaces/${encodeURIComponent(namespace)}/workflows/${encodeURIComponent(workflow)}` +
      (run ? `?execution.runId=${encodeURIComponent(run)}` : ''),
  );
  return { page: page.status, route: matched.route, api: api.status, apiBody: await api.text() };
}

beforeAll(async () => {
  server = await startDevServer({ port: await freePort(), uiPort: await freePort(), quiet: true });
  process.env.TEMPORAL_UI_URL = server.uiUrl;
  const connection = await Connection.connect({ address: server.address });
  client = new Client({ connection });
  routes = await uiRoutes(server.uiUrl);
});

afterAll(async () => {
  // Assigning undefined would set the text "undefined", which the files after it would read.
  if (saved === undefined) delete process.env.TEMPORAL_UI_URL;
  else process.env.TEMPORAL_UI_URL = saved;
  await client?.connection.close();
  await server?.stop();
});

describe('Web UI links', () => {
  it('the route table was read from the served UI', () => {
    expect(routes).toContain('/namespaces/[namespace]/workflows/[workflow]');
    expect(routes).toContain('/namespaces/[namespace]/workflows/[workflow]/[run]/history');
  });

  it("a link with the run id (flow start, flow status, control plane) opens that run's history", async () => {
    // No worker polls this queue: the workflow just stays open, which is all a link needs.
    const handle = await client.workflow.start('platformCheck', {
      taskQueue: 'web-ui-links',
      workflowId: 'platform-check-link-a1b2c3',
      args: [{ topic: 'x' }],
    });
    const opened = await open(webUiLink('default', handle.workflowId, handle.firstExecutionRunId));
    expect(opened).toMatchObject({
      page: 200,
      route: '/namespaces/[namespace]/workflows/[workflow]/[run]/history',
      api: 200,
    });
  });

  it('a link without a run id (interview clients, MCP results) opens the workflow, not a 400 page', async () => {
    const handle = await client.workflow.start('runEadsInterview', {
      taskQueue: 'web-ui-links',
      workflowId: 'eads-interview-link/with spaces',
      args: [{}],
    });
    const opened = await open(webUiLink('default', handle.workflowId));
    expect(opened.apiBody).not.toMatch(/Invalid RunId/);
    expect(opened).toMatchObject({ page: 200, route: '/namespaces/[namespace]/workflows/[workflow]', api: 200 });
  });

  it('the check itself tells a misread link: `<id>/history` is read as run id "history"', async () => {
    const opened = await open(`${server.uiUrl}/namespaces/default/workflows/platform-check-link-a1b2c3/history`);
    expect(opened).toMatchObject({ page: 200, route: '/namespaces/[namespace]/workflows/[workflow]/[run]', api: 400 });
    expect(opened.apiBody).toMatch(/Invalid RunId/);
  });
});
