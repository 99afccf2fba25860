/**
 * Server-side HTML for the web console: a tagged template that escapes every interpolated value
 * unless it is already `Html` (built by this same template), so flow results and answers that
 * contain markup always render as text.
 */
import { webUiBase } from '../../client/web-ui';

export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (value: string): string => value.replace(/[&<>"']/g, (c) => ESCAPES[c]);

type Part = Html | string | number | boolean | null | undefined | Part[];

function render(value: Part): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

/** `html\`<p>${text}</p>\``: text is escaped, nested `html` fragments are kept. */
export function html(strings: TemplateStringsArray, ...values: Part[]): Html {
  let out = strings[0];
  values.forEach((value, i) => (out += render(value) + strings[i + 1]));
  return new Html(out);
}

/**
 * A link to the workflow in the Temporal Web UI. Without a run id the Web UI answers 400 to
 * `.../workflows/<id>/history`, so that form is only used with a run id.
 */
export function temporalUiLink(namespace: string, workflowId: string, runId?: string): string {
  const base = `${webUiBase()}/namespaces/${encodeURIComponent(namespace)}/workflows/${encodeURIComponent(workflowId)}`;
  return runId ? `${base}/${encodeURIComponent(runId)}/history` : base;
}

export interface PageOptions {
  title: string;
  body: Html;
  /** The workflow the page is about: linked in the Temporal Web UI. */
  workflow?: { namespace: string; workflowId: string; runId?: string };
  /** When set, the page script polls this URL and reloads when its answer changes. */
  watch?: { url: string; key: string };
  /** Offer sign-out (a console that asks for a token). */
  signOut?: boolean;
}

/** Sign-out is a form post: a link (GET) could be triggered by any page embedding it. */
const SIGN_OUT = html`<form method="post" action="/console/logout" class="signout">
  <button type="submit" class="secondary">Sign out</button>
</form>`;

export function page(options: PageOptions): string {
  const ui = options.workflow
    ? temporalUiLink(options.workflow.namespace, options.workflow.workflowId, options.workflow.runId)
    : undefined;
  const doc = html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${options.title} · agent-flows console</title>
<link rel="stylesheet" href="/console/assets/console.css">
<script src="/console/assets/console.js" defer></script>
</head>
<body${options.watch ? html` data-watch-url="${options.watch.url}" data-watch-key="${options.watch.key}"` : ''}>
<a class="skip" href="#main">Skip to content</a>
<header class="top">
  <nav aria-label="Console"><a href="/console/">agent-flows console</a></nav>
  ${ui ? html`<a class="temporal" href="${ui}" target="_blank" rel="noopener">Open in Temporal Web UI</a>` : ''}
  ${options.signOut ? SIGN_OUT : ''}
</header>
<main id="main">
<h1>${options.title}</h1>
${options.body}
</main>
</body>
</html>
`;
  return doc.text;
}

/** A JSON value for people: objects as definition lists, arrays of objects as tables. */
export function renderValue(value: unknown, depth = 0): Html {
  if (value === null || value === undefined) return html`<span class="muted">—</span>`;
  if (typeof value !== 'object') return html`${String(value)}`;
  if (depth > 4) return html`<code>${JSON.stringify(value)}</code>`;
  if (Array.isArray(value)) {
    if (value.length === 0) return html`<span class="muted">(none)</span>`;
    if (value.every((v) => v && typeof v === 'object' && !Array.isArray(v)))
      return renderTable(value as Array<Record<string, unknown>>, depth);
    return html`<ul>
      ${value.map((v) => html`<li>${renderValue(v, depth + 1)}</li>`)}
    </ul>`;
  }
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 0) return html`<span class="muted">(empty)</span>`;
  return html`<dl class="kv">
    ${entries.map(
      ([k, v]) =>
        html`<dt>${k}</dt>
          <dd>${renderValue(v, depth + 1)}</dd>`,
    )}
  </dl>`;
}

/** A table's header row, one column header per name. */
export function tableHead(columns: string[]): Html {
  return html`<thead>
    <tr>
      ${columns.map((c) => html`<th scope="col">${c}</th>`)}
    </tr>
  </thead>`;
}

export function renderTable(rows: Array<Record<string, unknown>>, depth = 0, caption?: string): Html {
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  return html`<div class="scroll">
    <table>
      ${
        caption
          ? html`<caption>
              ${caption}
            </caption>`
          : ''
      }
      ${tableHead(columns)}
      <tbody>
        ${rows.map(
          (r) =>
            html`<tr>
              ${columns.map((c) => html`<td>${renderValue(r[c], depth + 1)}</td>`)}
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}
