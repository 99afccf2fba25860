/**
 * What the console shows for one workflow: live progress, the proposal and EADS interviews as a
 * conversation (one open question at a time, read from the workflow's queries), and results
 * rendered for people. Everything is read from Temporal on each request: the page holds no state.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { WorkflowNotFoundError, type Client, type WorkflowHandle } from '@temporalio/client';
import { FLOW_SEARCH_ATTRIBUTE, type Progress } from '../../contracts/common';
import type { BomQuestionOutput } from '../../flows/bom/contract';
import type { DiscoverFromPrpOutput } from '../../flows/discovery/contract';
import { tableName } from '../../flows/discovery/contract';
import {
  eadsInterviewQuery,
  pursuitStatusQuery,
  type AskedQuestion,
  type InterviewView,
  type PursuitStatus,
  type RunEadsInterviewOutput,
} from '../../flows/eads/contract';
import {
  PROPOSAL_STATES,
  type InterviewQuestionView,
  type LiteratureEntry,
  type ProposalOutput,
  type ProposalStateView,
} from '../../flows/proposal/contract';
import { findFlow } from '../../flows/registry';
import { currentQuestionQuery, proposalStateQuery } from '../../flows/proposal/messages';
import { html, renderTable, renderValue, tableHead, type Html } from './html';
import { httpUrl, renderMarkdown } from './markdown';
import type { ScheduleFromScrOutput } from '../../flows/schedule/contract';
import { progressQuery } from '../../contracts/progress-messages';
import { logger } from '../../plumbing/logger';
import { failureReason } from '../../access/failure-reason';

export interface WorkflowSnapshot {
  workflowId: string;
  runId: string;
  type: string;
  status: string;
  /** A fingerprint of what the page shows: the page script reloads when it changes. */
  key: string;
  body: Html;
  /** True while the page offers a form: the page then does not reload by itself. */
  interactive: boolean;
}

export interface ViewContext {
  client: Client;
  artifactDir: string;
  /** Messages to show beside the form (a rejected answer), and what was typed. */
  error?: { field: string; message: string; value?: string; cells?: string[][] };
}

const hashKey = (parts: unknown): string =>
  createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 16);

async function queryOr<T>(read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) throw err;
    return undefined; // the first workflow task has not run yet, or the workflow just closed
  }
}

export async function snapshot(ctx: ViewContext, workflowId: string): Promise<WorkflowSnapshot> {
  const handle = ctx.client.workflow.getHandle(workflowId);
  const d = await handle.describe();
  const base = { workflowId, runId: d.runId, type: d.type, status: d.status.name };
  if (d.status.name === 'COMPLETED') {
    const result = await handle.result();
    return {
      ...base,
      key: hashKey([d.runId, 'done']),
      body: renderResult(ctx, d.type, result, workflowId),
      interactive: false,
    };
  }
  if (d.status.name !== 'RUNNING') {
    let message = d.status.name.toLowerCase();
    try {
      await handle.result();
    } catch (err) {
      // The innermost cause ("unknown fixture …"), not the wrapper ("Activity task failed").
      message = failureReason(err);
    }
    return {
      ...base,
      key: hashKey([d.runId, d.status.name]),
      body: html`<p class="error" role="alert">The workflow ended: ${message}</p>`,
      interactive: false,
    };
  }
  // Each query is a round trip through the worker, and a person who has just answered waits for
  // the page: the proposal's are read at once, and the EADS page (which shows no progress line)
  // does not read the progress.
  if (d.type === 'writeResearchProposal') return { ...base, ...(await proposalView(ctx, handle)) };
  if (d.type === 'runEadsInterview') return { ...base, ...(await eadsView(ctx, handle)) };
  const progress = await queryOr(() => handle.query(progressQuery));
  return { ...base, key: hashKey([progress]), body: renderProgress(progress), interactive: false };
}

export function renderProgress(p: Progress | undefined): Html {
  if (!p) return html`<p class="status" role="status">Starting…</p>`;
  const pct = p.total ? Math.round((100 * p.done) / Math.max(p.total, 1)) : undefined;
  return html`<section aria-labelledby="progress-h">
    <h2 id="progress-h">Progress</h2>
    <p class="status" role="status" aria-live="polite">
      <strong>${p.stage}</strong>${p.detail ? html` — ${p.detail}` : ''}
    </p>
    ${pct !== undefined ? html`<progress max="100" value="${pct}" aria-label="steps done">${pct}%</progress> <span>${p.done}/${p.total}</span>` : ''}
  </section>`;
}

// ---------------------------------------------------------------------------------------------
// The proposal interview and review gate.

// The stages a proposal normally passes through, in order (from the contract's state list).
const PROPOSAL_STAGES: readonly string[] = PROPOSAL_STATES.filter(
  (s) => !['INIT', 'COMPLETE', 'ABANDONED', 'ERROR'].includes(s),
);

function stageList(state: string | undefined): Html {
  const known = PROPOSAL_STAGES.includes(state ?? '') ? PROPOSAL_STAGES : [...PROPOSAL_STAGES, state ?? ''];
  return html`<ol class="stages" aria-label="Stages">
    ${known.filter(Boolean).map((s) => html`<li${s === state ? html` aria-current="step" class="current"` : ''}>${s.toLowerCase().replace(/_/g, ' ')}</li>`)}
  </ol>`;
}

async function proposalView(ctx: ViewContext, handle: WorkflowHandle) {
  const [progress, state, openQuestion] = await Promise.all([
    queryOr(() => handle.query(progressQuery)),
    queryOr(() => handle.query(proposalStateQuery)),
    queryOr(() => handle.query(currentQuestionQuery)),
  ]);
  const question = state?.awaiting === 'answer' ? openQuestion : undefined;
  const key = hashKey([state?.state, state?.awaiting, state?.round, question?.id, progress?.stage, progress?.detail]);
  if (state?.awaiting === 'answer' && question)
    return { key, interactive: true, body: html`${stageList(state.state)}${proposalQuestion(ctx, handle, question)}` };
  if (state?.awaiting === 'review' && state.draft)
    return { key, interactive: true, body: html`${stageList(state.state)}${reviewForm(ctx, handle, state)}` };
  return { key, interactive: false, body: html`${stageList(state?.state)}${renderProgress(progress)}` };
}

/** The free-text answer both interviews ask for: the question, its hint, the box, and why an answer came back. */
function answerField(field: {
  question: string;
  hint: string;
  rows: number;
  required: boolean;
  error: ViewContext['error'];
}): Html {
  const { error } = field;
  return html`<div class="field${error ? ' invalid' : ''}">
    <label id="q-h" for="answer">${field.question}</label>
    <p class="hint" id="answer-hint">${field.hint}</p>
    <textarea
      id="answer"
      name="answer"
      rows="${field.rows}"
      autofocus
      aria-describedby="answer-hint${error ? ' answer-error' : ''}"
      ${error ? html` aria-invalid="true"` : ''}${field.required ? html` required` : ''}
    >
${error?.value ?? ''}</textarea>
    ${error ? html`<p class="error" id="answer-error" role="alert">${error.message}</p>` : ''}
  </div>`;
}

function proposalQuestion(ctx: ViewContext, handle: WorkflowHandle, q: InterviewQuestionView): Html {
  const error = ctx.error?.field === 'answer' ? ctx.error : undefined;
  return html`<section aria-labelledby="q-h" class="question">
    <p class="count">Question ${q.number} of ${q.of}</p>
    <form method="post" action="/console/runs/${handle.workflowId}/proposal/answer">
      <input type="hidden" name="questionId" value="${q.id}" />
      ${answerField({ question: q.prompt, hint: q.hint, rows: 3, required: !q.optional, error })}
      <button type="submit">Answer</button>
    </form>
    <p class="muted">
      You can leave this page: the interview waits in its workflow. Come back to this address to go on.
    </p>
  </section>`;
}

function reviewForm(ctx: ViewContext, handle: WorkflowHandle, state: ProposalStateView): Html {
  const d = state.draft!;
  const error = ctx.error?.field === 'comments' ? ctx.error : undefined;
  return html`<section aria-labelledby="review-h" class="review">
    <h2 id="review-h">Review the draft</h2>
    <p><strong>${d.title}</strong></p>
    <p>Quality ${d.overall.toFixed(1)}/100, ${d.passed ? 'passed' : 'not passed'}</p>
    ${
      d.issues.length
        ? html`<ul>
            ${d.issues.map((i) => html`<li>${i}</li>`)}
          </ul>`
        : ''
    }
    <form method="post" action="/console/runs/${handle.workflowId}/proposal/review">
      <div class="field${error ? ' invalid' : ''}">
        <label for="comments">What should change? (needed to request changes)</label>
        <textarea
          id="comments"
          name="comments"
          rows="3"
          ${error ? html` aria-invalid="true" aria-describedby="comments-error"` : ''}
        >
${error?.value ?? ''}</textarea>
        ${error ? html`<p class="error" id="comments-error" role="alert">${error.message}</p>` : ''}
      </div>
      <button type="submit" name="decision" value="approve">Approve</button>
      <button type="submit" name="decision" value="request-changes" class="secondary">Request changes</button>
    </form>
  </section>`;
}

// ---------------------------------------------------------------------------------------------
// The EADS interview.

async function eadsView(ctx: ViewContext, handle: WorkflowHandle) {
  const view = await queryOr(() => handle.query(eadsInterviewQuery));
  if (!view)
    return {
      key: hashKey(['starting']),
      interactive: false,
      body: html`<p class="status" role="status">Starting…</p>`,
    };
  let status: PursuitStatus | undefined;
  if (view.current) {
    const child = ctx.client.workflow.getHandle(view.current.childWorkflowId);
    status = await queryOr(() => child.query(pursuitStatusQuery));
  }
  const question = status?.status === 'working' && status.waiting_for_answer ? status.current_question : null;
  const key = hashKey([
    view.status,
    view.current?.childWorkflowId,
    question?.id,
    status?.waiting_for_answer,
    view.pursuits.length,
    view.nextEads?.eads_id,
  ]);
  const progress = eadsProgress(view, status);
  if (question && view.current)
    return { key, interactive: true, body: html`${progress}${eadsQuestion(ctx, handle, view, status!, question)}` };
  if (view.status === 'awaiting-start' && view.nextEads?.eads_id) {
    return {
      key,
      interactive: true,
      body: html`${progress}
        <section aria-labelledby="next-h">
          <h2 id="next-h">Next topic</h2>
          <p>The orchestrator recommends <strong>${view.nextEads.eads_id}</strong>: ${view.nextEads.rationale}</p>
          <form method="post" action="/console/runs/${handle.workflowId}/eads/start">
            <div class="field">
              <label for="eadsId">EADS to pursue</label>
              <input id="eadsId" name="eadsId" value="${view.nextEads.eads_id}" />
            </div>
            ${ctx.error?.field === 'eadsId' ? html`<p class="error" role="alert">${ctx.error.message}</p>` : ''}
            <button type="submit">Start</button>
          </form>
          ${finishForm(handle)}
        </section>`,
    };
  }
  return {
    key,
    interactive: false,
    body: html`${progress}
      <p class="status" role="status" aria-live="polite">Working on the next question…</p>`,
  };
}

function eadsProgress(view: InterviewView, status: PursuitStatus | undefined): Html {
  const rows = view.pursuits.map((p) => ({
    eads: p.eadsId,
    status: p.status,
    completeness: `${Math.round(p.completeness * 100)}%`,
    questions: p.questions,
  }));
  return html`<section aria-labelledby="eads-progress-h" class="eads-progress">
    <h2 id="eads-progress-h">Progress by EADS</h2>
    ${view.product ? html`<p>Product: <strong>${view.product}</strong>${view.problemType ? html`; problem type: <strong>${view.problemType}</strong>` : ''}</p>` : ''}
    ${rows.length ? renderTable(rows, 0, 'Topics covered') : ''}
    ${
      status
        ? html`<p>
            Now: <strong>${status.name}</strong> (${status.eads_id}) — ${Math.round(status.completeness * 100)}%
            complete
            <progress
              max="100"
              value="${Math.round(status.completeness * 100)}"
              aria-label="completeness of ${status.name}"
            ></progress>
          </p>`
        : ''
    }
  </section>`;
}

/** Column names from a markdown table template's header row. */
export function templateColumns(template: string): string[] {
  const header = template.split('\n').find((l) => l.includes('|')) ?? '';
  return header
    .split('|')
    .map((c) => c.trim())
    .filter(Boolean);
}

function eadsQuestion(
  ctx: ViewContext,
  handle: WorkflowHandle,
  view: InterviewView,
  status: PursuitStatus,
  q: AskedQuestion,
): Html {
  const error = ctx.error?.field === 'answer' ? ctx.error : undefined;
  const errorHtml = error ? html`<p class="error" id="answer-error" role="alert">${error.message}</p>` : '';
  const invalid = error ? html` aria-invalid="true"` : '';
  let control: Html;
  if (q.question_type === 'table' && q.table_template) {
    const columns = templateColumns(q.table_template);
    const cells = error?.cells?.length ? error.cells : Array.from({ length: 3 }, () => columns.map(() => ''));
    control = html`<fieldset class="grid-field">
      <legend id="q-h">${q.question}</legend>
      <p class="hint" id="answer-hint">${q.help_text}</p>
      <div class="scroll">
        <table class="grid" data-columns="${columns.length}">
          ${tableHead(columns)}
          <tbody>
            ${cells.map(
              (row, r) =>
                html`<tr>
                  ${columns.map((c, i) => html`<td><input name="cell" aria-label="${c}, row ${r + 1}" value="${row[i] ?? ''}" ${invalid} /></td>`)}
                </tr>`,
            )}
          </tbody>
        </table>
      </div>
      ${columns.map((c) => html`<input type="hidden" name="column" value="${c}" />`)}
      <button type="button" class="secondary add-row">Add row</button>
      ${errorHtml}
    </fieldset>`;
  } else if (q.question_type === 'choice' && q.choices?.length) {
    control = html`<fieldset>
      <legend id="q-h">${q.question}</legend>
      <p class="hint" id="answer-hint">${q.help_text}</p>
      ${q.choices.map(
        (c, i) =>
          html`<div class="choice">
            <input
              type="radio"
              id="choice-${i}"
              name="answer"
              value="${c}"
              ${error?.value === c ? html` checked` : ''}${invalid}
            />
            <label for="choice-${i}">${q.choice_labels?.[i] ?? c}</label>
          </div>`,
      )}
      <div class="field">
        <label for="answer-own">Or in your own words</label>
        <textarea id="answer-own" name="answerText" rows="2">
${error && !q.choices.includes(error.value ?? '') ? error.value : ''}</textarea>
      </div>
      ${errorHtml}
    </fieldset>`;
  } else {
    control = answerField({ question: q.question, hint: q.help_text, rows: 4, required: false, error });
  }
  return html`<section class="question" aria-labelledby="q-h">
    <p class="count">
      ${status.name}: question ${status.questions_asked}${view.current ? html` — ${view.current.rationale}` : ''}
    </p>
    <form method="post" action="/console/runs/${handle.workflowId}/eads/answer">
      <input type="hidden" name="questionId" value="${q.id}" />
      ${control}
      <div class="actions">
        <button type="submit" name="action" value="answer">Answer</button>
        <button type="submit" name="action" value="done" class="secondary">That is all I can say on this</button>
        <button type="submit" name="action" value="finalize" class="secondary">End this topic</button>
      </div>
    </form>
    ${finishForm(handle)}
    <p class="muted">
      You can leave this page: the interview waits in its workflow. Come back to this address to go on.
    </p>
  </section>`;
}

const finishForm = (handle: WorkflowHandle) =>
  html`<form method="post" action="/console/runs/${handle.workflowId}/eads/finish" class="finish">
    <button type="submit" class="secondary">Finish the whole interview</button>
  </form>`;

/** Grid cells (row-major, `columns` wide) as the markdown table the terminal client would paste. */
export function gridToMarkdown(columns: string[], cells: string[]): { markdown: string; rows: string[][] } {
  const cell = (s: string) => s.replace(/\s+/g, ' ').trim().replace(/\|/g, '\\|');
  const rows: string[][] = [];
  for (let i = 0; i + columns.length <= cells.length; i += columns.length)
    rows.push(cells.slice(i, i + columns.length));
  const filled = rows.filter((r) => r.some((c) => c.trim() !== ''));
  const lines = [
    `| ${columns.map(cell).join(' | ')} |`,
    `|${columns.map(() => ' --- |').join('')}`,
    ...filled.map((r) => `| ${r.map(cell).join(' | ')} |`),
  ];
  return { markdown: filled.length ? lines.join('\n') : '', rows };
}

// ---------------------------------------------------------------------------------------------
// Results.

/** The link to a file under the artifact directory, or undefined when it lies elsewhere. */
export function artifactHref(artifactDir: string | undefined, file: string): string | undefined {
  if (!artifactDir || typeof file !== 'string') return undefined;
  const relative = path.relative(path.resolve(artifactDir), path.resolve(artifactDir, file));
  if (!relative || relative.startsWith('..') || path.isAbsolute(relative)) return undefined;
  return `/console/artifacts/${relative.split(path.sep).map(encodeURIComponent).join('/')}`;
}

function describeLines(type: string, result: unknown): Html {
  const flow = findFlow(type);
  if (!flow) return html``;
  const parsed = flow.output.safeParse(result);
  if (!parsed.success) return html``;
  return html`<ul class="summary">
    ${flow.describeResult(parsed.data).map((l) => html`<li>${l}</li>`)}
  </ul>`;
}

export function renderResult(
  ctx: Pick<ViewContext, 'artifactDir'>,
  type: string,
  result: unknown,
  workflowId?: string,
): Html {
  const raw = html`<details>
    <summary>The whole result (JSON)</summary>
    <pre>${JSON.stringify(result, null, 2)}</pre>
  </details>`;
  let body: Html;
  try {
    body = resultBody(ctx, type, result, workflowId);
  } catch (err) {
    // A renderer that trips on an unexpected result shape must not hide the result: the plain view.
    logger('control-plane').error(
      { workflowType: type, error: err instanceof Error ? err.message : String(err) },
      'web console could not render the result',
    );
    body = html`${describeLines(type, result)}${renderValue(result)}`;
  }
  return html`<section aria-labelledby="result-h" class="result">
    <h2 id="result-h">Result</h2>
    ${body}${raw}
  </section>`;
}

function resultBody(ctx: Pick<ViewContext, 'artifactDir'>, type: string, result: unknown, workflowId?: string): Html {
  let body: Html;
  switch (type) {
    case 'answerBomQuestion':
      body = bomResult(result as BomQuestionOutput, workflowId);
      break;
    case 'scheduleFromScr':
      body = scheduleResult(ctx, result as ScheduleFromScrOutput);
      break;
    case 'discoverFromPrp':
      body = discoveryResult(result as DiscoverFromPrpOutput);
      break;
    case 'writeResearchProposal':
      body = proposalResult(ctx, result as ProposalOutput);
      break;
    case 'runEadsInterview':
      body = eadsResult(ctx, result as RunEadsInterviewOutput);
      break;
    default:
      body = html`${describeLines(type, result)}${renderValue(result)}`;
  }
  return body;
}

/** How many rows a result page shows; the rest are in the CSV and JSON downloads. */
export const SHOWN_ROWS = 20;

/**
 * A table of the first SHOWN_ROWS rows, saying how many there are, with the whole set as CSV and
 * JSON when the run's download links are known.
 */
export function pagedTable(rows: Array<Record<string, unknown>>, caption: string, download?: string): Html {
  const shown = rows.slice(0, SHOWN_ROWS);
  return html`<div class="paged-table">
    <p class="count">
      ${rows.length > shown.length ? `The first ${shown.length} of ${rows.length} rows.` : `${rows.length} row(s).`}
      ${
        download
          ? html`Download all ${rows.length}: <a class="download" href="${download}.csv" download>CSV</a>,
              <a class="download" href="${download}.json" download>JSON</a>.`
          : ''
      }
    </p>
    ${renderTable(shown, 0, caption)}
  </div>`;
}

/**
 * The answer's own words without what the page shows better beside it: the row bullets (the
 * table) and the "SQL used" block (the SQL section). A no-results answer keeps its bullets: there
 * they are the values the reader could ask about.
 */
export function bomAnswerText(out: BomQuestionOutput): string {
  let text = withoutSqlBlock(out.final_answer);
  if (out.pipeline_state.rows.length) text = text.replace(/^- .*$\n?/gm, '');
  return text.trim();
}

/**
 * The answer without its closing "SQL used (…):" block (a sql fence, then optionally a
 * "Parameters: …" line) when that block ends the text; otherwise the answer as it is. Found by
 * position, not by one pattern: a lazy pattern over the whole answer retried from every "SQL used".
 */
function withoutSqlBlock(answer: string): string {
  const at = answer.lastIndexOf('SQL used (');
  if (at < 0) return answer;
  const rest = answer.slice(at);
  const open = rest.indexOf('):\n```sql\n');
  if (open < 0 || rest.slice(0, open).includes('\n')) return answer;
  const close = rest.indexOf('\n```', open + '):\n```sql'.length);
  if (close < 0) return answer;
  const after = rest.slice(close + '\n```'.length).trim();
  if (after && !(after.startsWith('Parameters: ') && !after.includes('\n'))) return answer;
  return answer.slice(0, at);
}

function bomResult(out: BomQuestionOutput, workflowId?: string): Html {
  const s = out.pipeline_state;
  const download = workflowId ? `/console/runs/${encodeURIComponent(workflowId)}/rows` : undefined;
  return html`<p class="question-text">${out.question}</p>
    <div class="answer-md">${renderMarkdown(bomAnswerText(out))}</div>
    <p>
      Outcome: <strong>${out.outcome.replace(/_/g, ' ')}</strong>; ${s.total_rows} matching
      row(s)${s.rows.length < s.total_rows ? html`, ${s.rows.length} returned` : ''}.
    </p>
    ${s.rows.length ? pagedTable(s.rows, 'Rows', download) : ''}
    ${
      (s.chosen_sql ?? s.sql)
        ? html`<details class="sql">
            <summary>Show the SQL</summary>
            <pre><code>${s.chosen_sql ?? s.sql}</code></pre>
            <p>Parameters:</p>
            <pre><code>${JSON.stringify(s.chosen_sql ? s.chosen_params : s.params, null, 2)}</code></pre>
          </details>`
        : ''
    }
    ${
      Object.keys(s.suggestions).length
        ? html`<h3>Values you could ask about</h3>
            ${renderValue(s.suggestions)}`
        : ''
    }`;
}

function discoveryResult(out: DiscoverFromPrpOutput): Html {
  return html`<p>
      ${out.stats.steps} group(s), ${out.stats.candidates} candidate table(s), ${out.stats.fits} fit(s); schema from
      ${out.schema_source}.
    </p>
    ${out.results.map(
      (r, i) =>
        html`<section class="group" aria-labelledby="group-${i}">
          <h3 id="group-${i}">${r.conceptual_group} <span class="badge">${r.status}</span></h3>
          <p>Search: <code>${r.search_query}</code>; columns: ${r.target_columns.map((c) => c.name).join(', ')}</p>
          ${r.error ? html`<p class="error">${r.error}</p>` : ''}
          ${
            r.discovered_tables.length
              ? renderTable(
                  r.discovered_tables.map((t) => ({
                    table: tableName(t),
                    relevance: t.relevance_score,
                    matched: t.matched_columns.join(', '),
                    reasoning: t.reasoning,
                  })),
                )
              : html`<p class="muted">No fitting table.</p>`
          }
        </section>`,
    )}
    ${out.uncovered_columns.length ? html`<p>Not covered: ${out.uncovered_columns.join(', ')}</p>` : ''}
    ${out.unsourced_columns?.length ? html`<p>No table supplies: ${out.unsourced_columns.join(', ')}</p>` : ''}`;
}

const list = (items: string[], ordered = false): Html =>
  items.length
    ? ordered
      ? html`<ol>
          ${items.map((i) => html`<li>${i}</li>`)}
        </ol>`
      : html`<ul>
          ${items.map((i) => html`<li>${i}</li>`)}
        </ul>`
    : html`<p class="muted">(none)</p>`;

/** The literature as a table whose titles link to the work, when its URL is http(s). */
export function literatureTable(entries: LiteratureEntry[]): Html {
  if (!entries.length) return html`<p class="muted">No literature found.</p>`;
  return html`<div class="scroll">
    <table class="literature">
      <caption>
        Preliminary literature
      </caption>
      ${tableHead(['Title', 'Source', 'Why it matters'])}
      <tbody>
        ${entries.map((e) => {
          const url = httpUrl(e.url);
          return html`<tr>
            <td>${url ? html`<a href="${url}" rel="noopener noreferrer" target="_blank">${e.title}</a>` : e.title}</td>
            <td>${e.source}</td>
            <td>${e.relevance_note}</td>
          </tr>`;
        })}
      </tbody>
    </table>
  </div>`;
}

function proposalResult(ctx: Pick<ViewContext, 'artifactDir'>, out: ProposalOutput): Html {
  const href = out.pdf ? artifactHref(ctx.artifactDir, out.pdf.path) : undefined;
  const p = out.proposal;
  const head = html`<p><strong>${out.title ?? '(no title)'}</strong> — ${out.status.replace(/_/g, ' ')}</p>
    ${href ? html`<p><a class="pdf" href="${href}">Download the proposal (PDF, ${out.pdf!.pages} pages)</a></p>` : ''}`;
  if (!p) return html`${head}${describeLines('writeResearchProposal', out)}`;
  const pd = p.problem_definition;
  const ro = p.research_objectives;
  const m = p.methodology;
  const dc = p.data_collection_plan;
  const q = p.quality_validation;
  const phase = (name: string, ph: { duration: string; activities: string[] }) => ({
    phase: name,
    duration: ph.duration,
    activities: ph.activities.join('; '),
  });
  return html`${head}
    <article class="proposal" aria-labelledby="proposal-title">
      <h3 id="proposal-title" class="doc-title">${p.title}</h3>
      <section aria-labelledby="p-problem">
        <h4 id="p-problem">1. Problem</h4>
        ${renderMarkdown(pd.problem_statement)}
        <p><strong>Main research question:</strong> ${pd.main_research_question}</p>
        <p><strong>Secondary questions</strong></p>
        ${list(pd.secondary_questions, true)}
        <p><strong>Key variables:</strong> ${pd.key_variables.join(', ')}</p>
        ${literatureTable(pd.preliminary_literature)}
      </section>
      <section aria-labelledby="p-objectives">
        <h4 id="p-objectives">2. Objectives</h4>
        <p><strong>General objective:</strong> ${ro.general_objective}</p>
        ${list(ro.specific_objectives, true)}
        <p><strong>Timeline:</strong> ${ro.feasibility_notes.timeline_assessment}</p>
        <p><strong>Skills required:</strong> ${ro.feasibility_notes.skills_required.join(', ') || '(none named)'}</p>
        <p><strong>Risks</strong></p>
        ${list(ro.feasibility_notes.risk_factors)}
        <p>
          <strong>Alignment:</strong> ${ro.alignment_check.coverage_analysis} (coherence
          ${ro.alignment_check.coherence_score.toLowerCase()})
        </p>
      </section>
      <section aria-labelledby="p-method">
        <h4 id="p-method">3. Methodology</h4>
        <p><strong>${m.recommended_methodology}</strong> (${m.methodology_type})</p>
        ${renderMarkdown(m.justification)}
        <p>
          <strong>Duration:</strong> ${m.timeline_fit.estimated_duration}
          (${m.timeline_fit.is_feasible ? 'fits the time available' : 'does not fit the time available'})
        </p>
        ${renderTable(m.timeline_fit.key_phases, 0, 'Phases')}
        ${
          m.alternative_methodologies.length
            ? renderTable(
                m.alternative_methodologies.map((a) => ({
                  alternative: a.name,
                  pros: a.pros.join('; '),
                  cons: a.cons.join('; '),
                })),
                0,
                'Alternatives considered',
              )
            : ''
        }
      </section>
      <section aria-labelledby="p-data">
        <h4 id="p-data">4. Data collection</h4>
        <p><strong>Techniques:</strong> ${dc.collection_techniques.join(', ')}</p>
        <p><strong>Sources:</strong> ${dc.data_sources.join(', ')}</p>
        <p><strong>Sample size:</strong> ${dc.estimated_sample_size}</p>
        ${dc.recommended_tools.length ? renderTable(dc.recommended_tools, 0, 'Tools') : ''}
        ${renderTable(
          [
            phase('preparation', dc.timeline_breakdown.preparation),
            phase('collection', dc.timeline_breakdown.collection),
            phase('quality check', dc.timeline_breakdown.quality_check),
          ],
          0,
          `Timeline (${dc.timeline_breakdown.total_duration} in all)`,
        )}
        ${
          dc.resource_requirements.length
            ? html`<p><strong>Resources</strong></p>
                ${list(dc.resource_requirements)}`
            : ''
        }
      </section>
      <section aria-labelledby="p-quality">
        <h4 id="p-quality">5. Quality check</h4>
        <p>
          Quality ${q.overall_quality_score.toFixed(1)}/100, ${q.validation_passed ? 'passed' : 'not passed'}; coherence
          ${q.coherence_score.toFixed(2)}, feasibility ${q.feasibility_score.toFixed(2)}.
        </p>
        ${q.issues_identified.length ? renderTable(q.issues_identified, 0, 'Issues found') : ''}
        ${
          q.recommendations.length
            ? html`<p><strong>Recommendations</strong></p>
                ${list(q.recommendations)}`
            : ''
        }
        ${out.unresolvedIssues.length ? renderTable(out.unresolvedIssues, 0, 'Issues refinement did not resolve') : ''}
      </section>
    </article>`;
}

/** A file of the result as a link when it lies under the artifact directory, else its name. */
function fileLink(ctx: Pick<ViewContext, 'artifactDir'>, file: string, label: string): Html {
  const href = artifactHref(ctx.artifactDir, file);
  return href ? html`<a href="${href}" download>${label}</a>` : html`<span>${label}</span>`;
}

function scheduleResult(ctx: Pick<ViewContext, 'artifactDir'>, out: ScheduleFromScrOutput): Html {
  const r = out.minizinc_results;
  const chart = out.chart ? artifactHref(ctx.artifactDir, out.chart.svg) : undefined;
  const jobs = r.jobs.map((j) => ({
    job: j.id,
    product: j.product,
    quantity: j.quantity,
    route: j.route,
    due: j.due,
    end: j.end,
    late: j.late,
  }));
  const resources = r.resources.map((x) => ({
    resource: x.name,
    quantity: x.quantity,
    busy: x.busy,
    utilisation: `${Math.round(x.utilisation * 100)}%`,
    peak: x.peak,
    changeovers: x.changeovers,
  }));
  return html`<p>
      <strong>${out.problemType}</strong> for ${out.projectId}: ${r.status} schedule by
      ${r.solver}${
        r.makespanText
          ? html`, makespan ${r.makespanText}`
          : r.makespan !== null
            ? html`, makespan ${r.makespan} ${r.timeUnit}`
            : ''
      }${r.totalTardiness !== null ? html`, total tardiness ${r.totalTardiness} ${r.timeUnit}` : ''};
      solved in ${r.solveSeconds} s. Orders from ${out.jobsSource}.
    </p>
    ${
      chart
        ? html`<figure class="chart">
            <img src="${chart}" alt="Gantt chart of the schedule: one bar per job step on its resource" />
            <figcaption>
              Gantt chart (${fileLink(ctx, out.chart!.svg, 'SVG')}, ${fileLink(ctx, out.chart!.png, 'PNG')})
            </figcaption>
          </figure>`
        : html`<p class="muted">No chart: the solver found no schedule.</p>`
    }
    ${
      r.conflicts.length
        ? html`<h3>Conflicts</h3>
            ${list(r.conflicts.map((c) => c.detail))}`
        : ''
    }
    ${jobs.length ? pagedTable(jobs, 'Jobs') : html`<p class="muted">(none)</p>`}
    ${resources.length ? renderTable(resources, 0, 'Resources') : html`<p class="muted">(none)</p>`}
    ${
      out.notes.length
        ? html`<h3>Notes</h3>
            ${list(out.notes)}`
        : ''
    }
    <h3>MiniZinc model</h3>
    <pre class="code"><code class="language-minizinc">${out.minizinc.model}</code></pre>
    <details class="mzn-data">
      <summary>MiniZinc data</summary>
      <pre class="code"><code>${out.minizinc.data}</code></pre>
    </details>
    ${
      out.minizinc.files
        ? html`<p>
            Files: ${fileLink(ctx, out.minizinc.files.model, 'model (.mzn)')},
            ${fileLink(ctx, out.minizinc.files.data, 'data (.dzn)')}
          </p>`
        : ''
    }`;
}

/** A chart path written into the EADS result (a `gantt` or `chart` field), when there is one. */
function chartPath(value: unknown, depth = 0): string | undefined {
  if (!value || typeof value !== 'object' || depth > 4) return undefined;
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (/gantt|chart/i.test(k)) {
      if (typeof v === 'string' && /\.(svg|png)$/i.test(v)) return v;
      // The schedule step writes `chart: { svg, png }`: the SVG scales in the page.
      const file =
        v && typeof v === 'object'
          ? ((v as { svg?: unknown; path?: unknown }).svg ?? (v as { path?: unknown }).path)
          : undefined;
      if (typeof file === 'string') return file;
    }
    const nested = chartPath(v, depth + 1);
    if (nested) return nested;
  }
  return undefined;
}

function eadsResult(ctx: Pick<ViewContext, 'artifactDir'>, out: RunEadsInterviewOutput): Html {
  const chart = chartPath(out);
  const href = chart ? artifactHref(ctx.artifactDir, chart) : undefined;
  return html`${describeLines('runEadsInterview', out)}
    <p>Interview ${out.status}: ${out.pursuits.length} topic(s), ${out.questionsAsked} question(s).</p>
    <p>
      Product: <strong>${out.product ?? '(unknown)'}</strong>; problem type:
      <strong>${out.problemType ?? '(undetermined)'}</strong>
    </p>
    ${
      href
        ? html`<figure>
            <img src="${href}" alt="Schedule chart (Gantt)" />
            <figcaption>Schedule</figcaption>
          </figure>`
        : ''
    }
    <h3>Scheduling challenges</h3>
    ${renderValue(out.schedulingChallenges)}
    <h3>Topics</h3>
    ${renderTable(out.pursuits.map((p) => ({ eads: p.eadsId, status: p.status, completeness: p.completeness, questions: p.questions })))}
    <h3>Situation (merged SCR)</h3>
    ${renderValue(out.scr.merged_scr)}
    ${
      out.scr.conflicts.length
        ? html`<h3>Conflicts</h3>
            <ul>
              ${out.scr.conflicts.map((c) => html`<li>${c.detail}</li>`)}
            </ul>`
        : ''
    }`;
}

// ---------------------------------------------------------------------------------------------
// Recent runs (the start page).

/** How many runs the start page lists. */
export const RECENT_RUNS = 20;

export interface RecentRun {
  workflowId: string;
  type: string;
  status: string;
  startTime: Date;
}

/**
 * The newest runs of the registered flows, from Temporal's visibility store: every run started
 * through a flow carries the AgentFlow search attribute. Visibility lists newest first.
 */
export async function recentRuns(client: Client, types: string[], limit = RECENT_RUNS): Promise<RecentRun[]> {
  const quoted = types.map((t) => `'${t.replace(/'/g, '')}'`).join(', ');
  const runs: RecentRun[] = [];
  for await (const w of client.workflow.list({ query: `${FLOW_SEARCH_ATTRIBUTE} IN (${quoted})`, pageSize: limit })) {
    runs.push({ workflowId: w.workflowId, type: w.type, status: w.status.name, startTime: w.startTime });
    if (runs.length >= limit) break;
  }
  return runs;
}

export function renderRecentRuns(runs: RecentRun[], titleOf: (type: string) => string): Html {
  if (!runs.length) return html`<p class="muted">No runs yet.</p>`;
  return html`<div class="scroll">
    <table class="runs">
      <caption>
        The ${runs.length} newest runs
      </caption>
      ${tableHead(['Run', 'Flow', 'Status', 'Started (UTC)'])}
      <tbody>
        ${runs.map(
          (r) =>
            html`<tr>
              <td><a href="/console/runs/${encodeURIComponent(r.workflowId)}">${r.workflowId}</a></td>
              <td>${titleOf(r.type)}</td>
              <td><span class="badge status-${r.status.toLowerCase()}">${r.status.toLowerCase()}</span></td>
              <td>${r.startTime.toISOString().slice(0, 16).replace('T', ' ')}</td>
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}
