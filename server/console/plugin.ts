/**
 * The web console (`/console/`), a Fastify plugin served by the control plane's process: start
 * any flow from a form made from its input schema, follow it live, answer the proposal and EADS
 * interviews one question at a time, and read results; the artifacts of runs (the proposal PDF,
 * charts), read through the artifact store (ARTIFACT_DIR or ARTIFACT_BUCKET, as the workers write
 * them), are served from `/console/artifacts/<key>`. The console is a Temporal client only: all
 * state lives in the workflows, so a restarted console picks every interview up where it was.
 *
 * With a token (the control plane's), the browser signs in at `/console/login` and gets a session:
 * a random id in an HttpOnly, SameSite=Strict cookie (Secure, and `__Host-` prefixed, when served
 * over https), never the token itself, since cookies are not scoped by port and any other local
 * service would receive it. Sessions end when idle, when old, and at sign-out (server/console/
 * sessions.ts). Posts from other origins are refused.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { replyWithin } from '../../access/reply-within';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Client } from '@temporalio/client';
import { TASK_QUEUE } from '../../contracts/common';
import type { TemporalAccess } from '../temporal';
import { loadOnce } from '../load-once';
import { CONSOLE_CSS, CONSOLE_JS } from './assets';
import type { FormValues } from './forms';
import { html, page as renderPage, type Html, type PageOptions } from './html';
import { ConsoleSessions, MAX_SESSION_ID_LENGTH, type ConsoleSessionOptions } from './sessions';
import type { ViewContext } from './views';
import { isKnownContentType, LocalArtifactStore, type ArtifactStore } from '../../backends/artifacts';

type Runtime = typeof import('./runtime');
/** The Temporal client library and what uses it, loaded on first use (server/console/runtime.ts). */
const loadRuntime = loadOnce((): Promise<Runtime> => import('./runtime'));
/** How long an EADS answer waits for the next question before showing the page (which then polls). */
const NEXT_QUESTION_WAIT_MS = 10_000;

export interface ConsoleOptions {
  temporal: TemporalAccess;
  /** Where flows write files with the local store (ARTIFACT_DIR), when no store is given. */
  artifactDir: string;
  /** The artifact store flows write to (a bucket or ARTIFACT_DIR): the only place the console serves files from. */
  artifacts?: ArtifactStore;
  /** The control plane's token: when set, the console needs it too. */
  token?: string;
  /** Task queue for flows started here, and whose runs the start page lists (tests use their own). */
  taskQueue?: string;
  /** Sign-in session limits (defaults: 1,000 sessions, 2 hours idle, 12 hours in all). */
  sessions?: ConsoleSessionOptions;
}

/**
 * The session cookie's name: over https the `__Host-` form, which a browser only accepts from a
 * secure page, with Path=/ and no Domain (so no other host or plain-http port can set it).
 */
const COOKIE = 'agent_flows_console';
const SECURE_COOKIE = `__Host-${COOKIE}`;
/** Routes anyone may reach: signing in and out, and the stylesheet and script the sign-in page uses. */
const OPEN_ROUTES = new Set([
  '/console',
  '/console/login',
  '/console/logout',
  '/console/assets/console.css',
  '/console/assets/console.js',
]);
const CSP =
  "default-src 'self'; img-src 'self'; script-src 'self'; style-src 'self'; " +
  "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

const ARTIFACT_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; " +
  "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const digest = (s: string) => createHash('sha256').update(s).digest();

/**
 * Every value sent under the session cookie's names. All are tried: a page on another port of
 * the same host can set a cookie of the same name (a more specific path sends it first), which
 * must not shadow the real one. Values that cannot be a session id are skipped unread.
 */
function sessionCookies(header: string | undefined): string[] {
  const values: string[] = [];
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    const name = part.slice(0, eq).trim();
    if (eq < 0 || (name !== COOKIE && name !== SECURE_COOKIE)) continue;
    const value = part.slice(eq + 1).trim();
    if (value.length <= MAX_SESSION_ID_LENGTH && /^[A-Za-z0-9_-]+$/.test(value)) values.push(value);
    if (values.length >= 8) break;
  }
  return values;
}

/**
 * Whether the browser reached the console over https: TLS here, or a TLS proxy in front saying
 * so (X-Forwarded-Proto), or the page's own origin. Only ever adds Secure to the cookie; a client
 * that claims https over plain http just gets a cookie its browser will not keep.
 */
function overHttps(request: FastifyRequest): boolean {
  const forwarded = String(request.headers['x-forwarded-proto'] ?? '')
    .split(',')[0]
    .trim();
  return (
    request.protocol === 'https' ||
    forwarded.toLowerCase() === 'https' ||
    /^https:\/\//i.test(String(request.headers.origin ?? ''))
  );
}

export async function consolePlugin(app: FastifyInstance, options: ConsoleOptions): Promise<void> {
  const tokenDigest = options.token ? digest(options.token) : undefined;
  const store = options.artifacts ?? new LocalArtifactStore(options.artifactDir);
  const sessions = new ConsoleSessions(options.sessions);
  const signedIn = (request: FastifyRequest) => {
    if (!tokenDigest) return true;
    // Every candidate is looked at (no early exit), so each live one counts as used.
    return sessionCookies(request.headers.cookie).reduce((live, id) => sessions.use(id) || live, false);
  };
  const sessionCookie = (request: FastifyRequest, id: string) => {
    const secure = overHttps(request);
    const lifetime = Math.floor(sessions.lifetimeMs / 1000);
    return secure
      ? `${SECURE_COOKIE}=${id}; Path=/; Max-Age=${lifetime}; HttpOnly; SameSite=Strict; Secure`
      : `${COOKIE}=${id}; Path=/console; Max-Age=${lifetime}; HttpOnly; SameSite=Strict`;
  };
  // Every page of a signed-in console offers sign-out, which ends the session here too.
  const page = (o: PageOptions) => renderPage({ signOut: tokenDigest !== undefined, ...o });
  const clearedCookies = [
    `${COOKIE}=; Path=/console; Max-Age=0; HttpOnly; SameSite=Strict`,
    `${SECURE_COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict; Secure`,
  ];
  const client = (): Promise<Client> => options.temporal.client();
  const ctxFor = async (extra: Partial<ViewContext> = {}): Promise<ViewContext> => ({
    client: await client(),
    artifactDir: options.artifactDir,
    artifacts: store,
    ...extra,
  });

  // Forms post application/x-www-form-urlencoded; kept as URLSearchParams (repeated names matter).
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: 256 * 1024 },
    (_req, body, done) => {
      done(null, new URLSearchParams(body as string));
    },
  );

  app.addHook('onRequest', async (request, reply) => {
    reply.header('content-security-policy', CSP);
    reply.header('x-content-type-options', 'nosniff');
    reply.header('referrer-policy', 'same-origin');
    // frame-ancestors for browsers that predate it.
    reply.header('x-frame-options', 'DENY');
    if (request.method === 'POST') {
      // Cross-site form posts (CSRF): a browser always names the origin of a POST.
      const origin = request.headers.origin;
      if (origin && origin !== 'null') {
        let host: string | undefined;
        try {
          host = new URL(origin).host;
        } catch {
          host = undefined;
        }
        if (host !== request.headers.host)
          return reply.code(403).type('text/plain').send('cross-origin form posts are refused');
      } else if (origin === 'null') {
        return reply.code(403).type('text/plain').send('cross-origin form posts are refused');
      }
    }
    // Decided by the route that matched, not the request's text: no spelling of a path
    // (absolute-form, percent-encoded, dot segments) reaches a closed route as an open one.
    const open = OPEN_ROUTES.has(request.routeOptions.url ?? '');
    if (!open && !signedIn(request)) {
      if (request.method === 'GET') return reply.redirect(`/console/login?next=${encodeURIComponent(request.url)}`);
      return reply.code(401).type('text/plain').send('sign in at /console/login');
    }
  });

  const send = (reply: FastifyReply, body: string, code = 200) =>
    reply.code(code).type('text/html; charset=utf-8').header('cache-control', 'no-store').send(body);
  const notFound = (reply: FastifyReply, body: Html) => send(reply, page({ title: 'Not found', body }), 404);
  const params = (request: FastifyRequest) =>
    request.body instanceof URLSearchParams ? request.body : new URLSearchParams();
  const safeNext = (next: string | null | undefined) =>
    next && /^\/console\/[^/\\]/.test(next) && !next.includes('//') ? next : '/console/';

  app.get('/console/assets/console.css', async (_req, reply) =>
    reply.type('text/css; charset=utf-8').header('cache-control', 'max-age=300').send(CONSOLE_CSS),
  );
  app.get('/console/assets/console.js', async (_req, reply) =>
    reply.type('text/javascript; charset=utf-8').header('cache-control', 'max-age=300').send(CONSOLE_JS),
  );
  app.get('/console', async (_req, reply) => reply.redirect('/console/'));

  app.get<{ Querystring: { next?: string } }>('/console/login', async (request, reply) => {
    if (!tokenDigest) return reply.redirect('/console/');
    return send(reply, page({ title: 'Sign in', body: loginForm(safeNext(request.query.next)), signOut: false }));
  });
  app.post('/console/login', async (request, reply) => {
    const body = params(request);
    const token = body.get('token') ?? '';
    if (!tokenDigest || !timingSafeEqual(digest(token), tokenDigest)) {
      return send(
        reply,
        page({
          title: 'Sign in',
          body: loginForm(safeNext(body.get('next')), 'That token is not right.'),
          signOut: false,
        }),
        401,
      );
    }
    // A new id at every sign-in (an id planted beforehand, e.g. from another port, is never
    // promoted); the ones the browser sent are ended.
    for (const old of sessionCookies(request.headers.cookie)) sessions.revoke(old);
    reply.header('set-cookie', sessionCookie(request, sessions.create()));
    return reply.redirect(safeNext(body.get('next')), 303);
  });
  app.post('/console/logout', async (request, reply) => {
    for (const id of sessionCookies(request.headers.cookie)) sessions.revoke(id);
    reply.header('set-cookie', clearedCookies);
    return reply.redirect(tokenDigest ? '/console/login' : '/console/', 303);
  });

  app.get('/console/', async (_req, reply) => {
    const { flows, findFlow, recentRuns, renderRecentRuns } = await loadRuntime();
    let runs: Html;
    try {
      const list = await recentRuns(
        await client(),
        flows.map((f) => f.type),
        options.taskQueue ?? TASK_QUEUE,
      );
      runs = renderRecentRuns(list, (type) => findFlow(type)?.title ?? type);
    } catch (err) {
      // Temporal down, or the namespace without the AgentFlow attribute: the page still starts flows.
      runs = html`<p class="muted">
        The recent runs could not be listed: ${err instanceof Error ? err.message.slice(0, 200) : String(err)}
      </p>`;
    }
    const body = html`<p>
        Start a flow, follow it live, and answer interviews here. Every run lives in Temporal: you can close this page
        and come back to a run's address at any time.
      </p>
      <h2>Start a flow</h2>
      <ul class="flows">
        ${flows.map((f) => html`<li><a href="/console/flows/${f.type}">${f.title}</a> — ${f.description}</li>`)}
      </ul>
      <h2>Recent runs</h2>
      ${runs}
      <h2>Go back to a run</h2>
      <form method="get" action="/console/go">
        <div class="field">
          <label for="workflowId">Workflow id, or an EADS project id</label>
          <input id="workflowId" name="workflowId" required />
        </div>
        <button type="submit">Open</button>
      </form>`;
    return send(reply, page({ title: 'Web console', body }));
  });

  app.get<{ Querystring: { workflowId?: string } }>('/console/go', async (request, reply) => {
    const id = (request.query.workflowId ?? '').trim();
    if (!id) return reply.redirect('/console/');
    const c = await client();
    const exists = async (wid: string) =>
      c.workflow
        .getHandle(wid)
        .describe()
        .then(
          () => true,
          () => false,
        );
    const target = (await exists(id)) ? id : (await exists(`eads-interview-${id}`)) ? `eads-interview-${id}` : id;
    return reply.redirect(`/console/runs/${encodeURIComponent(target)}`);
  });

  app.get<{ Params: { type: string } }>('/console/flows/:type', async (request, reply) => {
    const { findFlow, renderStartForm } = await loadRuntime();
    const flow = findFlow(request.params.type);
    if (!flow) return notFound(reply, html`<p>No flow is called ${request.params.type}.</p>`);
    return send(reply, page({ title: `Start: ${flow.title}`, body: renderStartForm(flow) }));
  });

  app.post<{ Params: { type: string } }>('/console/flows/:type', async (request, reply) => {
    const { findFlow, formFields, inputFromForm, renderStartForm } = await loadRuntime();
    const flow = findFlow(request.params.type);
    if (!flow) return notFound(reply, html`<p>No flow is called ${request.params.type}.</p>`);
    const body = params(request);
    const values: FormValues = {};
    for (const [k, v] of body) values[k] = v;
    const fields = formFields(flow);
    const { input, errors } = inputFromForm(fields, values);
    const again = (formError?: string) =>
      send(reply, page({ title: `Start: ${flow.title}`, body: renderStartForm(flow, values, errors, formError) }), 422);
    if (Object.keys(errors).length) return again('Some fields need another look.');
    const { EadsSession, InvalidFlowInput, startFlow, validateFlowInput } = await loadRuntime();
    try {
      validateFlowInput(flow, input);
      const c = await client();
      if (
        flow.type === 'runEadsInterview' &&
        (input.mode ?? 'human') === 'human' &&
        typeof input.projectId === 'string'
      ) {
        // One interview per project: reopen it when it exists, as the terminal client does.
        const session = new EadsSession(c, input.projectId);
        if (await session.exists())
          return reply.redirect(`/console/runs/${encodeURIComponent(session.workflowId)}`, 303);
        const handle = await startFlow(c, flow, input, {
          taskQueue: options.taskQueue ?? TASK_QUEUE,
          useExisting: true,
        });
        return reply.redirect(`/console/runs/${encodeURIComponent(handle.workflowId)}`, 303);
      }
      const handle = await startFlow(c, flow, input, { taskQueue: options.taskQueue ?? TASK_QUEUE });
      return reply.redirect(`/console/runs/${encodeURIComponent(handle.workflowId)}`, 303);
    } catch (err) {
      if (err instanceof InvalidFlowInput) {
        for (const issue of err.issues) {
          const field = issue.field.split('.')[0];
          errors[fields.some((f) => f.name === field) ? field : '(input)'] ??=
            `${issue.field === field ? '' : `${issue.field}: `}${issue.message}`;
        }
        return again(errors['(input)'] ?? 'Some fields need another look.');
      }
      throw err;
    }
  });

  const runPage = async (reply: FastifyReply, workflowId: string, extra: Partial<ViewContext> = {}, code = 200) => {
    const { findFlow, snapshot, WorkflowNotFoundError } = await loadRuntime();
    const ctx = await ctxFor(extra);
    let snap;
    try {
      snap = await snapshot(ctx, workflowId);
    } catch (err) {
      if (err instanceof WorkflowNotFoundError)
        return notFound(reply, html`<p>There is no workflow ${workflowId}.</p>`);
      throw err;
    }
    const flow = findFlow(snap.type);
    const done = snap.status !== 'RUNNING';
    return send(
      reply,
      page({
        title: `${flow?.title ?? snap.type}: ${workflowId}`,
        body: html`<p class="muted">Workflow <code>${workflowId}</code> · ${snap.status.toLowerCase()}</p>
          ${snap.body}`,
        workflow: { namespace: ctx.client.options.namespace, workflowId, runId: snap.runId },
        watch: done ? undefined : { url: `/console/runs/${encodeURIComponent(workflowId)}/watch`, key: snap.key },
      }),
      code,
    );
  };

  app.get<{ Params: { id: string } }>('/console/runs/:id', async (request, reply) => runPage(reply, request.params.id));

  app.get<{ Params: { id: string } }>('/console/runs/:id/watch', async (request, reply) => {
    const { snapshot, WorkflowNotFoundError } = await loadRuntime();
    try {
      const snap = await snapshot(await ctxFor(), request.params.id);
      return reply.header('cache-control', 'no-store').send({ key: snap.key, status: snap.status });
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return reply.code(404).send({ error: 'not found' });
      throw err;
    }
  });

  // The whole set of a result's rows (the page shows the first few), as CSV or JSON.
  const rowsDownload =
    (format: 'csv' | 'json') => async (request: FastifyRequest<{ Params: { id: string } }>, reply: FastifyReply) => {
      const { id } = request.params;
      const { resultRows, rowsToCsv, WorkflowNotFoundError } = await loadRuntime();
      const handle = (await client()).workflow.getHandle(id);
      let rows;
      try {
        const d = await handle.describe();
        rows = d.status.name === 'COMPLETED' ? resultRows(d.type, await handle.result()) : undefined;
      } catch (err) {
        if (err instanceof WorkflowNotFoundError) return reply.code(404).type('text/plain').send('no such workflow');
        throw err;
      }
      if (!rows) return reply.code(404).type('text/plain').send('this run has no rows to download');
      const file = `${id.replace(/[^\w.-]+/g, '_')}-rows.${format}`;
      reply.header('cache-control', 'no-store').header('content-disposition', `attachment; filename="${file}"`);
      return format === 'csv'
        ? reply.type('text/csv; charset=utf-8').send(rowsToCsv(rows))
        : reply.type('application/json; charset=utf-8').send(JSON.stringify(rows, null, 2));
    };
  app.get<{ Params: { id: string } }>('/console/runs/:id/rows.csv', rowsDownload('csv'));
  app.get<{ Params: { id: string } }>('/console/runs/:id/rows.json', rowsDownload('json'));

  const rejection = async (err: unknown): Promise<string | undefined> => {
    const { EadsSessionError, rootCause, updateErrorMessage, WorkflowNotFoundError, WorkflowUpdateFailedError } =
      await loadRuntime();
    if (err instanceof WorkflowUpdateFailedError) return rootCause(err.cause) ?? err.message;
    if (err instanceof EadsSessionError) return err.message;
    // Anything else Temporal says about the update (the workflow moved on or closed meanwhile,
    // a timeout) is shown on the page, which then shows the workflow's current state.
    if (err instanceof WorkflowNotFoundError || !(err instanceof Error)) return undefined;
    return updateErrorMessage(err);
  };

  app.post<{ Params: { id: string } }>('/console/runs/:id/proposal/answer', async (request, reply) => {
    const body = params(request);
    const answer = body.get('answer') ?? '';
    const questionId = body.get('questionId') ?? undefined;
    const { answerQuestionUpdate } = await loadRuntime();
    const handle = (await client()).workflow.getHandle(request.params.id);
    try {
      await handle.executeUpdate(answerQuestionUpdate, { args: [{ answer, ...(questionId ? { questionId } : {}) }] });
    } catch (err) {
      const reason = await rejection(err);
      if (reason === undefined) throw err;
      return runPage(reply, request.params.id, { error: { field: 'answer', message: reason, value: answer } }, 422);
    }
    return reply.redirect(`/console/runs/${encodeURIComponent(request.params.id)}`, 303);
  });

  app.post<{ Params: { id: string } }>('/console/runs/:id/proposal/review', async (request, reply) => {
    const body = params(request);
    const decision = body.get('decision') === 'approve' ? 'approve' : 'request-changes';
    const comments = (body.get('comments') ?? '').trim();
    const { reviewProposalUpdate } = await loadRuntime();
    const handle = (await client()).workflow.getHandle(request.params.id);
    try {
      await handle.executeUpdate(reviewProposalUpdate, { args: [{ decision, ...(comments ? { comments } : {}) }] });
    } catch (err) {
      // A repeated post (a double click, a reload of the POST) after the approval closed the run:
      // show the run, which now holds the result, instead of failing.
      if (err instanceof (await loadRuntime()).WorkflowNotFoundError) {
        return reply.redirect(`/console/runs/${encodeURIComponent(request.params.id)}`, 303);
      }
      const reason = await rejection(err);
      if (reason === undefined) throw err;
      return runPage(reply, request.params.id, { error: { field: 'comments', message: reason, value: comments } }, 422);
    }
    return reply.redirect(`/console/runs/${encodeURIComponent(request.params.id)}`, 303);
  });

  /**
   * The EADS session behind an interview workflow id (its project id is in the interview's state).
   * An id that names no workflow, or a run of another kind (a pursuit, a proposal), gets its page
   * instead (`shown`): a form can be posted to any id, and that is the caller's mistake, not ours.
   */
  const eadsSession = async (reply: FastifyReply, workflowId: string) => {
    const { EadsSession, eadsInterviewQuery, QueryNotRegisteredError, WorkflowNotFoundError } = await loadRuntime();
    const c = await client();
    try {
      const view = await c.workflow.getHandle(workflowId).query(eadsInterviewQuery);
      return { session: new EadsSession(c, view.projectId), view };
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return { shown: await runPage(reply, workflowId) };
      if (err instanceof QueryNotRegisteredError) {
        const body = html`<p class="error" role="alert">
          Workflow <code>${workflowId}</code> is not an EADS interview (<a
            href="/console/runs/${encodeURIComponent(workflowId)}"
            >its page</a
          >).
        </p>`;
        return { shown: await send(reply, page({ title: 'Not an EADS interview', body }), 422) };
      }
      throw err;
    }
  };

  /**
   * After an answer, the next question is written by the model (an activity) once the answer's
   * refinement is recorded, so the page the redirect shows would not hold it yet and the page's
   * script would poll for it (0.5-1.2 s more). The route waits for it in the workflow instead, as
   * the terminal client does, at most NEXT_QUESTION_WAIT_MS (a slow model: the page polls as
   * before). Only a wait: what it finds, or fails to, changes nothing.
   */
  const nextQuestionShown = async (
    session: InstanceType<Runtime['EadsSession']>,
    handle: Parameters<InstanceType<Runtime['EadsSession']>['answer']>[0],
    questionId: string,
    answered?: Awaited<ReturnType<InstanceType<Runtime['EadsSession']>['answer']>>,
  ): Promise<void> => {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      session.nextAfterAnswer(handle, questionId, answered).catch(() => undefined),
      new Promise((resolve) => (timer = setTimeout(resolve, NEXT_QUESTION_WAIT_MS))),
    ]);
    clearTimeout(timer);
  };

  app.post<{ Params: { id: string } }>('/console/runs/:id/eads/answer', async (request, reply) => {
    const { EadsSessionError, gridToMarkdown } = await loadRuntime();
    const body = params(request);
    const action = body.get('action') ?? 'answer';
    const questionId = body.get('questionId') ?? '';
    const columns = body.getAll('column');
    const grid = columns.length ? gridToMarkdown(columns, body.getAll('cell')) : undefined;
    const answer = grid ? grid.markdown : (body.get('answerText') ?? '').trim() || (body.get('answer') ?? '');
    const found = await eadsSession(reply, request.params.id);
    if ('shown' in found) return found.shown;
    const { session, view } = found;
    try {
      const { handle } = await session.pursuit(undefined, view);
      if (action === 'finalize') await session.finalize(handle, 'ended by the interviewee');
      else {
        if (action !== 'done' && !answer.trim())
          throw new EadsSessionError(
            grid ? 'fill in at least one row of the table' : 'write an answer (or choose one)',
          );
        // The reply carries the next question; a slow model leaves the page to show it when ready.
        const answered = await replyWithin(
          action === 'done'
            ? session.answer(handle, questionId, "That's all I can say about this.", true)
            : session.answer(handle, questionId, answer),
          NEXT_QUESTION_WAIT_MS,
        );
        if (answered !== 'pending') await nextQuestionShown(session, handle, questionId, answered);
      }
    } catch (err) {
      const reason = await rejection(err);
      if (reason === undefined) throw err;
      return runPage(
        reply,
        request.params.id,
        { error: { field: 'answer', message: reason, value: answer, cells: grid?.rows } },
        422,
      );
    }
    return reply.redirect(`/console/runs/${encodeURIComponent(request.params.id)}`, 303);
  });

  app.post<{ Params: { id: string } }>('/console/runs/:id/eads/start', async (request, reply) => {
    const eadsId = (params(request).get('eadsId') ?? '').trim();
    const found = await eadsSession(reply, request.params.id);
    if ('shown' in found) return found.shown;
    const { session } = found;
    try {
      await session.startPursuit(eadsId);
    } catch (err) {
      const reason = await rejection(err);
      if (reason === undefined) throw err;
      return runPage(reply, request.params.id, { error: { field: 'eadsId', message: reason } }, 422);
    }
    return reply.redirect(`/console/runs/${encodeURIComponent(request.params.id)}`, 303);
  });

  app.post<{ Params: { id: string } }>('/console/runs/:id/eads/finish', async (request, reply) => {
    const found = await eadsSession(reply, request.params.id);
    if ('shown' in found) return found.shown;
    const { session } = found;
    try {
      await session.finish('the interviewee ended the interview');
    } catch (err) {
      const reason = await rejection(err);
      if (reason === undefined) throw err;
      return runPage(reply, request.params.id, { error: { field: 'answer', message: reason } }, 422);
    }
    return reply.redirect(`/console/runs/${encodeURIComponent(request.params.id)}`, 303);
  });

  app.get<{ Params: { '*': string } }>('/console/artifacts/*', async (request, reply) => {
    // The store refuses every key that is not a plain relative name ('..', an absolute or encoded
    // path, a NUL, an over-long key) and every link out of its directory; the bucket is its own.
    const object = await store.open(request.params['*'] ?? '').catch((err: unknown) => {
      request.log.warn({ err }, 'artifact store read failed');
      return undefined;
    });
    if (!object) return reply.code(404).type('text/plain').send('not found');
    if (isKnownContentType(object.contentType)) reply.type(object.contentType);
    else reply.type('application/octet-stream').header('content-disposition', 'attachment');
    if (object.bytes !== undefined) reply.header('content-length', object.bytes);
    // An SVG opened on its own must not run script; no page may frame a file (clickjacking), and
    // no page of another origin (another local port included) may embed or read one.
    reply.header('content-security-policy', ARTIFACT_CSP);
    reply.header('cross-origin-resource-policy', 'same-origin');
    reply.header('cache-control', 'private, no-store');
    return reply.send(object.stream);
  });
}

function loginForm(next: string, error?: string) {
  return html`<form method="post" action="/console/login">
    <input type="hidden" name="next" value="${next}" />
    <div class="field${error ? ' invalid' : ''}">
      <label for="token">Access token (CONTROL_PLANE_TOKEN)</label>
      <input
        id="token"
        name="token"
        type="password"
        autocomplete="current-password"
        required${error ? html` aria-invalid="true" aria-describedby="token-error"` : ''}
      />
      ${error ? html`<p class="error" id="token-error" role="alert">${error}</p>` : ''}
    </div>
    <button type="submit">Sign in</button>
  </form>`;
}
