/**
 * What the console shows for one workflow: live progress, the proposal and EADS interviews as a
 * conversation (one open question at a time, read from the workflow's queries), and results
 * rendered for people. Everything is read from Temporal on each request: the page holds no state.
 */
import { createHash } from 'node:crypto';
import { LocalArtifactStore, type ArtifactStore } from '../../backends/artifacts';
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
  type ProposalDocument,
  type ProposalOutput,
  type ProposalStateView,
} from '../../flows/proposal/contract';
import { findFlow } from '../../flows/registry';
import { currentQuestionQuery, proposalStateQuery } from '../../flows/proposal/messages';
import { html, renderTable, renderValue, tableHead, type Html } from './html';
import { httpUrl, renderMarkdown } from './markdown';
import { eadsName, fieldChoices, humanise } from './words';
import { choiceLabel, isQuantity, UNDETERMINED } from '../../domain/eads-structure';
import { describeSchedule, type ScheduleFromScrOutput } from '../../flows/schedule/contract';
import type { PlatformCheckOutput } from '../../flows/platform/contract';
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
  /** The local artifact directory, when no store is given (pages rendered without one). */
  artifactDir: string;
  /** The artifact store the console reads through: it turns a result's references into links. */
  artifacts?: Pick<ArtifactStore, 'keyOf'>;
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

export function reviewForm(
  ctx: Pick<ViewContext, 'error'>,
  handle: Pick<WorkflowHandle, 'workflowId'>,
  state: ProposalStateView,
): Html {
  const d = state.draft!;
  const error = ctx.error?.field === 'comments' ? ctx.error : undefined;
  return html`<section aria-labelledby="review-h" class="review">
    <h2 id="review-h">Review the draft</h2>
    <p>
      <strong>${d.title}</strong> — quality ${d.overall.toFixed(1)}/100, ${d.passed ? 'passed' : 'not passed'}. Read the
      draft below, then approve it or say what should change.
    </p>
    ${
      d.issues.length
        ? html`<p><strong>Issues the quality check found</strong></p>
            <ul>
              ${d.issues.map((i) => html`<li>${i}</li>`)}
            </ul>`
        : ''
    }
    ${d.document ? html`<div class="draft">${proposalDocument(d.document)}</div>` : ''}
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
    ${view.product ? html`<p>Product: <strong>${view.product}</strong>${view.problemType ? html`; problem type: <strong>${problemTypeLabel(view.problemType)}</strong>` : ''}</p>` : ''}
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

type ArtifactContext = Pick<ViewContext, 'artifactDir' | 'artifacts'>;

/**
 * The console link to the first of a result's references (or, for runs from before references,
 * paths) that the store resolves, or undefined when none is one of its objects: another bucket,
 * a path outside the directory, an invalid key.
 */
export function artifactHref(ctx: ArtifactContext, ...candidates: unknown[]): string | undefined {
  const store = ctx.artifacts ?? (ctx.artifactDir ? new LocalArtifactStore(ctx.artifactDir) : undefined);
  if (!store) return undefined;
  for (const candidate of candidates) {
    const key = typeof candidate === 'string' ? store.keyOf(candidate) : undefined;
    if (key) return `/console/artifacts/${key.split('/').map(encodeURIComponent).join('/')}`;
  }
  return undefined;
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

export function renderResult(ctx: ArtifactContext, type: string, result: unknown, workflowId?: string): Html {
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

function resultBody(ctx: ArtifactContext, type: string, result: unknown, workflowId?: string): Html {
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
    case 'platformCheck':
      body = platformResult(result as PlatformCheckOutput);
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
      ${rows.length > shown.length ? `The first ${shown.length} of ${rows.length} rows.` : `${count(rows.length, 'row')}.`}
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
      Outcome: <strong>${out.outcome.replace(/_/g, ' ')}</strong>;
      ${count(s.total_rows, 'matching row')}${s.rows.length < s.total_rows ? html`, ${s.rows.length} returned` : ''}.
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

const DISCOVERY_STATUS: Record<DiscoverFromPrpOutput['results'][number]['status'], string> = {
  ok: 'tables found',
  partial: 'tables found; some checks failed',
  failed: 'the search failed',
  no_source: 'no table supplies these columns',
};

const percent = (x: number) => `${Math.round(x * 100)}%`;

function discoveryResult(out: DiscoverFromPrpOutput): Html {
  const unsourced = out.unsourced_columns ?? out.uncovered_columns;
  const derived = out.derived_columns ?? [];
  const rejectedBy = (group: string) => out.rejected.filter((r) => r.conceptual_group === group);
  // Look-alikes set aside after they fit are in the tally of fits: counted apart, as the reader sees them.
  const setAside = out.rejected.filter((r) => r.outcome === 'superseded').length;
  return html`<p>
      ${count(out.target_schema.length, 'target column')}
      (${out.schema_source === 'prp' ? "from the PRP's section 9" : 'given with the input'}), searched in
      ${count(out.stats.steps, 'step')}: ${count(out.stats.candidates, 'candidate table')} checked,
      ${out.stats.fits - setAside} fit${setAside ? html` (and ${setAside} set aside for a better source)` : ''}.
      ${out.stats.searches_failed ? html`${count(out.stats.searches_failed, 'search', 'searches')} failed. ` : ''}${out.stats.validations_failed ? html`${count(out.stats.validations_failed, 'check')} failed.` : ''}
    </p>
    ${
      unsourced.length
        ? html`<p class="warning"><strong>No table supplies:</strong> ${unsourced.join(', ')}.</p>`
        : html`<p><strong>Every searched column has a source.</strong></p>`
    }
    ${
      derived.length
        ? html`<p>
            <strong>Computed from other columns</strong> (the PRP derives them, so no table was searched):
            ${derived.join(', ')}.
          </p>`
        : ''
    }
    ${out.results.map((r, i) => {
      const rejected = rejectedBy(r.conceptual_group);
      return html`<section class="group" aria-labelledby="group-${i}">
        <h3 id="group-${i}">
          Step ${i + 1}: ${r.conceptual_group}
          <span class="badge status-${r.status}">${DISCOVERY_STATUS[r.status] ?? r.status}</span>
        </h3>
        ${r.split_from ? html`<p class="muted">Searched apart from the step “${r.split_from}”.</p>` : ''}
        <p><strong>Target columns</strong></p>
        <ul class="columns">
          ${r.target_columns.map(
            (c) =>
              html`<li>
                <code>${c.name}</code>
                <span class="muted">${c.type}</span>${c.description ? html` — ${c.description}` : ''}
              </li>`,
          )}
        </ul>
        ${r.error ? html`<p class="error">${r.error}</p>` : ''}
        ${
          r.discovered_tables.length
            ? html`<div class="scroll">
                <table class="tables-found">
                  <caption>
                    Tables found (${r.discovered_tables.length} of ${count(r.candidates_found, 'candidate')})
                  </caption>
                  ${tableHead(['Table', 'Relevance', 'Supplies', 'Why it fits'])}
                  <tbody>
                    ${r.discovered_tables.map(
                      (t) =>
                        html`<tr>
                          <td>
                            <code>${tableName(t)}</code
                            >${t.description ? html`<br /><span class="muted">${t.description}</span>` : ''}
                          </td>
                          <td>${percent(t.relevance_score)}</td>
                          <td>
                            ${t.matched_columns.length ? t.matched_columns.join(', ') : html`<span class="muted">(none named)</span>`}
                          </td>
                          <td>${t.reasoning}</td>
                        </tr>`,
                    )}
                  </tbody>
                </table>
              </div>`
            : html`<p class="muted">No fitting table (${count(r.candidates_found, 'candidate')} checked).</p>`
        }
        ${
          r.unsourced_columns?.length
            ? html`<p><strong>Not supplied by any table of this step:</strong> ${r.unsourced_columns.join(', ')}</p>`
            : ''
        }
        <p class="muted">Search: ${r.search_query}</p>
        ${
          rejected.length
            ? html`<details>
                <summary>${count(rejected.length, 'table')} considered and turned down</summary>
                <ul>
                  ${rejected.map(
                    (x) =>
                      html`<li>
                        <code>${x.table}</code> —
                        ${x.outcome === 'not_a_fit' ? 'not a fit' : x.outcome === 'superseded' ? 'set aside for a better source' : 'could not be checked'}${x.relevance_score !== null ? html` (relevance ${percent(x.relevance_score)})` : ''}:
                        ${x.reason}
                      </li>`,
                  )}
                </ul>
              </details>`
            : ''
        }
      </section>`;
    })}`;
}

/** What a platform check looked at, what it found, and which backends answered. */
function platformResult(out: PlatformCheckOutput): Html {
  return html`<p>
      Checked the three backends on the topic <strong>${out.topic}</strong>: the search found
      ${count(out.documents.length, 'document')}, the warehouse returned ${count(out.rows.length, 'row')}, and the model
      summarised them.
    </p>
    <dl class="facts">
      <dt>Outcome</dt>
      <dd>${out.summary}</dd>
      <dt>Model</dt>
      <dd>${out.backends.model} (${out.usage.totalTokens} tokens in ${count(out.usage.calls, 'call')})</dd>
      <dt>Warehouse</dt>
      <dd>${out.backends.warehouse}</dd>
      <dt>Search</dt>
      <dd>${out.backends.search}</dd>
    </dl>
    ${
      out.highlights.length
        ? html`<h3>Highlights</h3>
            ${list(out.highlights)}`
        : ''
    }
    <h3>Documents found</h3>
    ${
      out.documents.length
        ? html`<ul>
            ${out.documents.map((d) => html`<li>${d.title} <span class="muted">(score ${d.score.toFixed(2)})</span></li>`)}
          </ul>`
        : html`<p class="muted">(none)</p>`
    }
    <h3>Warehouse rows</h3>
    ${out.rows.length ? pagedTable(out.rows, 'Rows') : html`<p class="muted">(none)</p>`}
    <details class="sql">
      <summary>Show the SQL</summary>
      <pre><code>${out.sql}</code></pre>
    </details>`;
}

/** "1 row", "3 rows": a count with its noun in the right number, never "row(s)". */
const count = (n: number, singular: string, plural = `${singular}s`): string => `${n} ${n === 1 ? singular : plural}`;

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

function proposalResult(ctx: ArtifactContext, out: ProposalOutput): Html {
  const href = out.pdf ? artifactHref(ctx, out.pdf.ref, out.pdf.path) : undefined;
  const head = html`<p><strong>${out.title ?? '(no title)'}</strong> — ${out.status.replace(/_/g, ' ')}</p>
    ${href ? html`<p><a class="pdf" href="${href}">Download the proposal (PDF, ${out.pdf!.pages} pages)</a></p>` : ''}`;
  if (!out.proposal) return html`${head}${describeLines('writeResearchProposal', out)}`;
  return html`${head}${proposalDocument(out.proposal, out.unresolvedIssues)}`;
}

/** A proposal as a document: the final result, and the draft at the review gate. */
export function proposalDocument(p: ProposalDocument, unresolved: ProposalOutput['unresolvedIssues'] = []): Html {
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
  return html`<article class="proposal" aria-labelledby="proposal-title">
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
      ${unresolved.length ? renderTable(unresolved, 0, 'Issues refinement did not resolve') : ''}
    </section>
  </article>`;
}

/** A file of the result as a link when the store holds it (by reference, else by path), else its name. */
function fileLink(ctx: ArtifactContext, files: Array<string | undefined>, label: string): Html {
  const href = artifactHref(ctx, ...files);
  return href ? html`<a href="${href}" download>${label}</a>` : html`<span>${label}</span>`;
}

function scheduleResult(ctx: ArtifactContext, out: ScheduleFromScrOutput): Html {
  const r = out.minizinc_results;
  const chart = out.chart ? artifactHref(ctx, out.chart.refs?.svg, out.chart.svg) : undefined;
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
              Gantt chart (${fileLink(ctx, [out.chart!.refs?.svg, out.chart!.svg], 'SVG')},
              ${fileLink(ctx, [out.chart!.refs?.png, out.chart!.png], 'PNG')})
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
            Files: ${fileLink(ctx, [out.minizinc.files.refs?.model, out.minizinc.files.model], 'model (.mzn)')},
            ${fileLink(ctx, [out.minizinc.files.refs?.data, out.minizinc.files.data], 'data (.dzn)')}
          </p>`
        : ''
    }`;
}

/** A chart written into the EADS result (a `gantt` or `chart` field): its reference and path, when there is one. */
function chartPath(value: unknown, depth = 0): string[] | undefined {
  if (!value || typeof value !== 'object' || depth > 4) return undefined;
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (/gantt|chart/i.test(k)) {
      if (typeof v === 'string' && /\.(svg|png)$/i.test(v)) return [v];
      // The schedule step writes `chart: { svg, png }`: the SVG scales in the page.
      const file =
        v && typeof v === 'object'
          ? ((v as { svg?: unknown; path?: unknown }).svg ?? (v as { path?: unknown }).path)
          : undefined;
      const ref = v && typeof v === 'object' ? (v as { refs?: { svg?: unknown } }).refs?.svg : undefined;
      if (typeof file === 'string') return typeof ref === 'string' ? [ref, file] : [file];
    }
    const nested = chartPath(v, depth + 1);
    if (nested) return nested;
  }
  return undefined;
}

const INTERVIEW_END: Record<RunEadsInterviewOutput['status'], string> = {
  exhausted: 'ended: every topic that applies was covered',
  finished: 'finished when asked to',
  'max-pursuits': 'stopped at its limit of topics',
  abandoned: 'abandoned: a question went unanswered too long (it can be resumed)',
};

const PURSUIT_STATUS: Record<string, string> = {
  complete: 'complete',
  exhausted: 'nothing more to tell',
  'budget-spent': 'question budget spent',
  finalized: 'ended early',
  failed: 'failed',
  abandoned: 'abandoned',
  working: 'in progress',
};

/** A problem type key in words ("Flow shop"), and UNDETERMINED as what it means. */
function problemTypeLabel(key: string): string {
  if (key === UNDETERMINED) return 'not yet determined';
  const choices = fieldChoices('principal-problem-type');
  return choices.some((c) => c.key === key)
    ? choiceLabel(
        key,
        choices.map((c) => c.key),
      )
    : humanise(key);
}

/** A choice key as its label with the library's definition ("Bottleneck processes — …"). */
function choiceItem(field: string, key: string): Html {
  const choices = fieldChoices(field);
  const known = choices.find((c) => c.key.toLowerCase() === key.toLowerCase());
  const label = known
    ? choiceLabel(
        known.key,
        choices.map((c) => c.key),
      )
    : humanise(key);
  return known ? html`<strong>${label}</strong> — ${known.definition}` : html`<strong>${label}</strong>`;
}

const isRecord = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
const strings = (v: unknown): string[] =>
  Array.isArray(v)
    ? v.filter((x) => x !== null && x !== undefined).map((x) => (isRecord(x) ? readableText(x) : String(x)))
    : [];

/** A value as a short phrase: a quantity "2 hours", a list "a, b", an object "key: value; …". */
function readableText(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (isQuantity(v)) return `${v['value-string']} ${v.units}`;
  if (Array.isArray(v)) return strings(v).join(', ');
  if (isRecord(v))
    return Object.entries(v)
      .map(([k, x]) => `${humanise(k)}: ${readableText(x)}`)
      .join('; ');
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  return String(v);
}

/** Any SCR value for people: keys in words, lists as lists, rows of objects as a table. */
function readable(v: unknown, depth = 0): Html {
  if (v === null || v === undefined || v === '') return html`<span class="muted">—</span>`;
  if (isQuantity(v) || typeof v !== 'object') return html`${readableText(v)}`;
  if (Array.isArray(v)) {
    if (!v.length) return html`<span class="muted">(none)</span>`;
    if (v.every(isRecord) && depth < 3) return readableTable(v, undefined, depth);
    return list(strings(v));
  }
  if (depth >= 3) return html`${readableText(v)}`;
  return html`<dl class="kv">
    ${Object.entries(v).map(
      ([k, x]) =>
        html`<dt>${humanise(k)}</dt>
          <dd>${readable(x, depth + 1)}</dd>`,
    )}
  </dl>`;
}

function readableTable(rows: Array<Record<string, unknown>>, caption?: string, depth = 0): Html {
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
      ${tableHead(columns.map(humanise))}
      <tbody>
        ${rows.map(
          (r) =>
            html`<tr>
              ${columns.map((c) => html`<td>${Array.isArray(r[c]) ? strings(r[c]).join(', ') : readable(r[c], depth + 1)}</td>`)}
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}

/** The SCR keys the sections below present; the rest are shown under "Also said". */
const SCR_SHOWN = new Set([
  'product-or-service-name',
  'scheduling-challenges',
  'principal-problem-type',
  'problem-components',
  'process-id',
  'inputs',
  'outputs',
  'subprocesses',
  'resources',
  'duration',
  'continuous?',
  'cyclical?',
  'resource-pools',
  'calendar',
  'inquiry-areas',
  'areas-we-intend-to-discuss',
  'primary-objective',
  'hard-constraints',
  'soft-preferences',
]);

function eadsResult(ctx: ArtifactContext, out: RunEadsInterviewOutput): Html {
  const scr = out.scr.merged_scr;
  const product =
    out.product ?? (typeof scr['product-or-service-name'] === 'string' ? scr['product-or-service-name'] : null);
  const problem =
    out.problemType ?? (typeof scr['principal-problem-type'] === 'string' ? scr['principal-problem-type'] : null);
  const challenges = out.schedulingChallenges.length ? out.schedulingChallenges : strings(scr['scheduling-challenges']);
  const components = strings(scr['problem-components']).filter((c) => c !== problem);
  const steps = Array.isArray(scr.subprocesses) ? scr.subprocesses.filter(isRecord) : [];
  const pools = Array.isArray(scr['resource-pools']) ? scr['resource-pools'].filter(isRecord) : [];
  const areas = Array.isArray(scr['inquiry-areas']) ? scr['inquiry-areas'].filter(isRecord) : [];
  const objective = typeof scr['primary-objective'] === 'string' ? scr['primary-objective'] : undefined;
  const rules = strings(scr['hard-constraints']);
  const preferences = strings(scr['soft-preferences']);
  const rest = Object.entries(scr).filter(([k]) => !SCR_SHOWN.has(k));
  const schedule = out.schedule;
  const solved = schedule && 'minizinc_results' in schedule ? schedule : undefined;
  const chartFile = chartPath(out);
  const otherChart = !solved && chartFile ? artifactHref(ctx, ...chartFile) : undefined;
  return html`<p>
      The interview ${INTERVIEW_END[out.status] ?? out.status}: ${count(out.pursuits.length, 'topic')},
      ${count(out.questionsAsked, 'question')}.
    </p>
    <dl class="facts">
      <dt>Product</dt>
      <dd>${product ?? html`<span class="muted">not yet named</span>`}</dd>
      <dt>Problem type</dt>
      <dd>
        ${
          !problem
            ? html`<span class="muted">not yet determined</span>`
            : problem === UNDETERMINED
              ? html`<strong>Not yet determined</strong> — the interview asked, but the answers did not settle it.`
              : choiceItem('principal-problem-type', problem)
        }
        ${components.length ? html`<br />Also involves: ${components.map((c) => humanise(c)).join(', ')}` : ''}
      </dd>
      ${
        solved
          ? html`<dt>Schedule</dt>
              <dd><a href="#schedule-h">${describeSchedule(solved.minizinc_results)}</a></dd>`
          : schedule
            ? html`<dt>Schedule</dt>
                <dd>
                  ${'skipped' in schedule ? html`not solved: ${schedule.skipped}` : 'error' in schedule ? html`failed: ${schedule.error}` : ''}
                </dd>`
            : ''
      }
    </dl>
    <h3>Scheduling challenges</h3>
    ${
      challenges.length
        ? html`<ul class="challenges">
            ${challenges.map((c) => html`<li>${choiceItem('scheduling-challenges', c)}</li>`)}
          </ul>`
        : html`<p class="muted">None named.</p>`
    }
    <h3>The process</h3>
    ${
      scr.inputs || scr.outputs || scr.duration
        ? html`<p>
            ${scr.inputs ? html`From <strong>${readableText(scr.inputs)}</strong>` : ''}${scr.outputs ? html` to <strong>${readableText(scr.outputs)}</strong>` : ''}${scr.duration ? html`, about ${readableText(scr.duration)} in all` : ''}${typeof scr['continuous?'] === 'boolean' ? html`; ${scr['continuous?'] ? 'continuous' : 'in batches'}` : ''}${typeof scr['cyclical?'] === 'boolean' && scr['cyclical?'] ? '; repeats in cycles' : ''}.
          </p>`
        : ''
    }
    ${
      steps.length
        ? html`<div class="scroll">
            <table class="steps">
              <caption>
                Process steps, in order
              </caption>
              ${tableHead(['#', 'Step', 'Takes', 'Makes', 'Uses', 'Duration'])}
              <tbody>
                ${steps.map(
                  (st, i) =>
                    html`<tr>
                      <td>${i + 1}</td>
                      <td>${humanise(String(st['process-id'] ?? st.name ?? `step ${i + 1}`))}</td>
                      <td>${readableText(st.inputs)}</td>
                      <td>${readableText(st.outputs)}</td>
                      <td>${readableText(st.resources)}</td>
                      <td>${readableText(st.duration)}</td>
                    </tr>`,
                )}
              </tbody>
            </table>
          </div>`
        : Array.isArray(scr.routings) || Array.isArray(scr['unit-processes']) || Array.isArray(scr['event-types'])
          ? html`<p class="muted">
              Told as ${Array.isArray(scr['event-types']) ? 'kinds of event' : 'work steps and routes'}: see “Also said”
              below.
            </p>`
          : html`<p class="muted">No process steps recorded yet.</p>`
    }
    <h3>Resources</h3>
    ${
      pools.length
        ? readableTable(pools, 'Resources and how many of each')
        : strings(scr.resources).length
          ? list(strings(scr.resources))
          : html`<p class="muted">None recorded yet.</p>`
    }
    ${typeof scr.calendar === 'string' ? html`<p><strong>Working time:</strong> ${scr.calendar}</p>` : ''}
    ${
      areas.length
        ? html`<h3>Data kept</h3>
            ${readableTable(areas, 'Where the firm keeps its scheduling data')}`
        : ''
    }
    <h3>What makes a good schedule</h3>
    <p>
      <strong>Objective:</strong>
      ${objective ? (objective === UNDETERMINED ? 'not yet determined' : choiceItem('primary-objective', objective)) : html`<span class="muted">not yet named</span>`}
    </p>
    <p><strong>Rules that must hold</strong></p>
    ${list(rules)}
    <p><strong>Preferences</strong></p>
    ${list(preferences)}
    ${
      rest.length
        ? html`<h3>Also said</h3>
            ${readable(Object.fromEntries(rest))}`
        : ''
    }
    <h3>Topics pursued</h3>
    <div class="scroll">
      <table class="pursuits">
        ${tableHead(['#', 'Topic', 'Status', 'Complete', 'Questions'])}
        <tbody>
          ${out.pursuits.map(
            (p) =>
              html`<tr>
                <td>${p.pursuitNo}</td>
                <td>${eadsName(p.eadsId)} <span class="muted">(${p.eadsId})</span></td>
                <td><span class="badge">${PURSUIT_STATUS[p.status] ?? p.status}</span></td>
                <td>${percent(p.completeness)}</td>
                <td>${p.questions}</td>
              </tr>`,
          )}
        </tbody>
      </table>
    </div>
    ${
      out.scr.conflicts.length
        ? html`<h3>Answers that disagree</h3>
            ${list(out.scr.conflicts.map((c) => c.detail))}`
        : ''
    }
    ${
      solved
        ? html`<section aria-labelledby="schedule-h" class="schedule">
            <h3 id="schedule-h">Schedule</h3>
            ${scheduleResult(ctx, solved)}
          </section>`
        : otherChart
          ? html`<figure>
              <img src="${otherChart}" alt="Schedule chart (Gantt)" />
              <figcaption>Schedule</figcaption>
            </figure>`
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
 * The newest runs of the registered flows on one task queue (the one the console starts flows
 * on), from Temporal's visibility store: every run started through a flow carries the AgentFlow
 * search attribute. The queue keeps out runs that other workers serve in the same namespace (a
 * test's console lists its own harness's runs, not those of every test on the dev server). Newest
 * first by start time: the dev server's visibility lists the runs still open first (an hour-old
 * interview above a run started a minute ago), so the page sorts what it got.
 */
export async function recentRuns(
  client: Client,
  types: string[],
  taskQueue: string,
  limit = RECENT_RUNS,
): Promise<RecentRun[]> {
  const quoted = (text: string) => `'${text.replace(/'/g, '')}'`;
  const query = `${FLOW_SEARCH_ATTRIBUTE} IN (${types.map(quoted).join(', ')}) AND TaskQueue = ${quoted(taskQueue)}`;
  const runs: RecentRun[] = [];
  for await (const w of client.workflow.list({ query, pageSize: limit })) {
    runs.push({ workflowId: w.workflowId, type: w.type, status: w.status.name, startTime: w.startTime });
    if (runs.length >= limit) break;
  }
  return runs.sort((a, b) => b.startTime.getTime() - a.startTime.getTime());
}

export function renderRecentRuns(runs: RecentRun[], titleOf: (type: string) => string): Html {
  if (!runs.length) return html`<p class="muted">No runs yet.</p>`;
  return html`<div class="scroll">
    <table class="runs">
      <caption>
        ${runs.length === 1 ? 'The newest run' : `The ${runs.length} newest runs`}
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
