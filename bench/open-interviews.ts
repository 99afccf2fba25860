/**
 * Many people mid-interview: N open interviews (EADS and research proposal, half each) on ONE
 * worker process, side by side with the bare SDK on the same dev server.
 *
 *   npx tsx bench/open-interviews.ts [--runs 10000] [--window-s 0 (auto)] [--idle 0.05] [--restart 0.05]
 *                                    [--single 50] [--concurrency 40] [--cache <WORKER_MAX_CACHED_WORKFLOWS>]
 *
 * The stack is started as `npm start` starts it, on free ports: the Temporal dev server with a
 * database file and the project's tuning flags, the stand-in model, and the worker as
 * `npm run worker` starts it (its node flags and variables from package.json; the build in dist/
 * when current). The bare SDK's worker (bench/bare-interview-worker.ts: default options, a bundle
 * holding only `bareInterview`, which waits on an update and replies with the next question, no
 * activity) runs in its own process beside it.
 *
 *  1. One person on an otherwise idle stack (--single answers each, 0 skips): answer → next
 *     question as the terminal clients (client/proposal-interview.ts, client/eads-interview.ts,
 *     driven through their own loops) and the web console (POST the answer, follow the redirect,
 *     then poll the watch URL as the page's script does until the page shows the next question).
 *  2. N interviews of ours started (each asked for its first question, as the clients do), then N
 *     bare ones. Worker RSS (/proc/<pid>/status) at start and per thousand open; the database
 *     file's growth per run.
 *  3. Each interview not in a group below answered once, at a random time within the window:
 *     answer sent → next question returned, measured in this client as the terminal clients do it
 *     (EADS: `answer` then `nextQuestion`; proposal: `answerQuestion` then `nextProposalStep`;
 *     bare: one `bareAnswer` update, whose reply is the next question).
 *  4. --restart of them: both workers killed (SIGKILL) and started again, those answered at once;
 *     time from the kill until the first answer round trip succeeds.
 *  5. --idle of them (started with idleTimeoutMinutes 1, the contracts' least) never answered:
 *     they must end as abandoned.
 *  6. Lost answers (the answer's update unanswered within 2 minutes, or failed) and duplicated
 *     ones (each workflow's accepted answer updates, read from its history, against those sent).
 *
 * Figures only: nothing here gates a test. Other work on the machine moves every figure: the load
 * average at start and end is printed with them.
 */
import {
  Client,
  Connection,
  WithStartWorkflowOperation,
  type WorkflowHandle,
  type WorkflowStartOptions,
} from '@temporalio/client';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import { EadsSession, stepWithAnswer } from '../access/eads-session';
import { flowStartOptions, type FlowWorkflow } from '../access/flow-client';
import { conductInterview, type InterviewIO } from '../client/proposal-interview';
import { runTerminalInterview } from '../client/eads-interview';
import {
  answerUpdate,
  nextQuestionUpdate,
  nextStepUpdate,
  runEadsInterviewFlow,
  type PursuitStep,
} from '../flows/eads/contract';
import { INTERVIEW_QUESTIONS, researchProposalFlow } from '../flows/proposal/contract';
import { answerQuestionUpdate, nextProposalStepUpdate } from '../flows/proposal/messages';
import { buildControlPlane } from '../server/app';
import * as flowRunner from '../server/flow-runner';
import type { TemporalAccess } from '../server/temporal';
import { parseConfig } from '../plumbing/config';
import { checkBuild } from '../workers/build-stamp';
import { freePort, startDevServer } from '../workers/dev-server';
import { bareAnswerUpdate, bareNextQuestionUpdate } from './flows/trivial/messages';
import { npmScriptLaunch } from './npm-script';
import { emitSummary } from './summary';

const ROOT = path.resolve(__dirname, '..');
const { values: args } = parseArgs({
  options: {
    runs: { type: 'string', default: '10000' },
    /** Seconds over which the answers are spread; 0: 60 s + 20 ms per interview. */
    'window-s': { type: 'string', default: '0' },
    idle: { type: 'string', default: '0.05' },
    restart: { type: 'string', default: '0.05' },
    single: { type: 'string', default: '50' },
    concurrency: { type: 'string', default: '40' },
    /** WORKER_MAX_CACHED_WORKFLOWS for the worker (default: the project's). */
    cache: { type: 'string' },
  },
});
const N = Number(args.runs);
const WINDOW_MS = Number(args['window-s']) > 0 ? Number(args['window-s']) * 1000 : 60_000 + 20 * N;
const CONCURRENCY = Number(args.concurrency);
const LOST_AFTER_MS = 120_000;
const BARE_QUEUE = 'bench-bare-interview';

// --- small helpers ------------------------------------------------------------------------------

/** Progress on stderr, so the report on stdout stays as it is. */
const progress = (line: string) => process.stderr.write(`[${new Date().toISOString().slice(11, 19)}] ${line}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const loadavg = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
const rssMb = (pid: number | undefined, field: 'VmRSS' | 'VmHWM' = 'VmRSS'): number => {
  try {
    const kb = new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return Number(kb ?? 0) / 1024;
  } catch {
    return 0;
  }
};
const pct = (xs: number[], p: number) => {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
const ms = (x: number) => (Number.isFinite(x) ? `${x.toFixed(0)} ms` : '–');
const triple = (xs: number[]) =>
  `p50 ${ms(pct(xs, 50))}, p95 ${ms(pct(xs, 95))}, p99 ${ms(pct(xs, 99))} (n=${xs.length})`;

/** Runs `fn` over `items`, at most `limit` at once. */
async function pool<T>(items: T[], limit: number, fn: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        await fn(items[i], i);
      }
    }),
  );
}

function withTimeout<T>(promise: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no reply within ${timeoutMs / 1000} s`)), timeoutMs);
    }),
  ]).finally(() => clearTimeout(timer));
}

/** A child process whose stdout is read line by line, so that a ready line can be waited for. */
function spawnProcess(
  args: string[],
  env: Record<string, string>,
  readyText: string,
): { child: ChildProcess; ready: Promise<number> } {
  const started = performance.now();
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const ready = new Promise<number>((resolve, reject) => {
    let seen = '';
    const read = (chunk: Buffer) => {
      seen = (seen + chunk.toString('utf8')).slice(-10_000);
      if (!seen.includes(readyText)) return;
      resolve(performance.now() - started);
      // Still drained (a full pipe would stop the process), no longer read.
      child.stdout!.off('data', read);
      child.stdout!.on('data', () => undefined);
    };
    child.stdout!.on('data', read);
    child.once('exit', (code) => reject(new Error(`${args.at(-1)} exited with ${code} before it was ready`)));
  });
  ready.catch(() => undefined);
  return { child, ready };
}

// --- the stack -------------------------------------------------------------------------------

/** How `npm run worker` starts the worker: its variables and node flags, from package.json. */
const { env: WORKER_ENV, nodeFlags: WORKER_NODE_FLAGS } = npmScriptLaunch('worker');

// --- 1. one person on an idle stack ----------------------------------------------------------

const PROPOSAL_ANSWERS: Record<string, string> = {
  academic_program: 'PhD',
  field_of_study: 'Computer Science',
  research_area: 'multi-agent systems for logistics',
  weekly_hours: '20',
  total_timeline: '12 months',
  existing_skills: 'Python, statistics',
  missing_skills: 'causal inference',
  constraints: 'no lab access',
  additional_context: 'none',
};
/** The proposal's form asks nine questions: eight answered, then input ends (the run is left waiting). */
const PROPOSAL_ANSWERED_PER_INTERVIEW = 8;

/** The terminal proposal client's loop (conductInterview): answer given → next question asked. */
async function terminalProposal(client: Client, answers: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; times.length < answers; i++) {
    const start = new WithStartWorkflowOperation<FlowWorkflow<typeof researchProposalFlow>>(researchProposalFlow.type, {
      ...flowStartOptions(researchProposalFlow, { mode: 'interactive' }),
      workflowIdConflictPolicy: 'FAIL',
    });
    const first = await client.workflow.executeUpdateWithStart(nextProposalStepUpdate, {
      args: [{}],
      startWorkflowOperation: start,
    });
    const handle = await start.workflowHandle();
    let answeredAt: number | undefined;
    let given = 0;
    const io: InterviewIO = {
      async ask(prompt) {
        if (answeredAt !== undefined && times.length < answers) times.push(performance.now() - answeredAt);
        if (given >= PROPOSAL_ANSWERED_PER_INTERVIEW || times.length >= answers) return null;
        const field = INTERVIEW_QUESTIONS.find((q) => prompt.includes(q.prompt))?.field ?? 'additional_context';
        given++;
        answeredAt = performance.now();
        return PROPOSAL_ANSWERS[field];
      },
      print() {},
    };
    await conductInterview(handle, io, { first });
    await handle.terminate('bench: one-person latency measured');
  }
  return times;
}
/** A plausible answer to an EADS question, from how the terminal client shows it. */
function eadsAnswer(shown: string): string {
  if (shown.includes('reply as a table')) return '| item | value |\n| --- | --- |\n| fermenter | 4 |\n';
  if (/\n {2}1\) /.test(shown)) return '1';
  return 'We brew craft beers; the fermenters are the bottleneck and demand is seasonal.';
}

/** The terminal EADS client's loop (runTerminalInterview) on its own streams: answer line → next `> ` prompt. */
async function terminalEads(client: Client, answers: number, runId: string): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; times.length < answers; i++) {
    const input = new PassThrough();
    let shown = '';
    let answeredAt: number | undefined;
    const output = new Writable({
      write(chunk: Buffer, _enc, done) {
        shown += chunk.toString('utf8');
        if (shown.endsWith('> ')) {
          if (answeredAt !== undefined) times.push(performance.now() - answeredAt);
          if (times.length >= answers) input.write(':quit\n');
          else {
            answeredAt = performance.now();
            input.write(`${eadsAnswer(shown)}\n`);
          }
          shown = '';
        }
        done();
      },
    });
    const projectId = `bench-one-${runId}-${i}`;
    await runTerminalInterview({ client, projectId, input, output, orchestration: 'auto' });
    await client.workflow
      .getHandle(`eads-interview-${projectId}`)
      .terminate('bench: one-person latency measured')
      .catch(() => undefined);
  }
  return times;
}

/** The web console: POST the answer, follow the redirect, poll the watch URL as the page does until the next question shows. */
async function consoleAnswers(
  client: Client,
  kind: 'proposal' | 'eads',
  answers: number,
  runId: string,
): Promise<{ times: number[]; polled: number }> {
  const storeDir = mkdtempSync(path.join(os.tmpdir(), 'bench-console-'));
  const temporal: TemporalAccess = {
    client: async () => client,
    defaultNamespace: () => 'default',
    runner: async () => flowRunner,
    pollers: async () => ({ workflow: 0, activity: 0 }) as never,
    close: async () => undefined,
  };
  const plane = await buildControlPlane({
    storePath: path.join(storeDir, 'registry.jsonl'),
    temporal,
    logLevel: 'silent',
    healthCheckMs: 0,
    console: { artifactDir: path.join(ROOT, 'out', 'bench') },
  });
  const base = await plane.listen('127.0.0.1', 0);
  const times: number[] = [];
  let polled = 0;
  const questionIdOf = (page: string) => /name="questionId" value="([^"]+)"/.exec(page)?.[1];
  // The question on the page: its whole answer form (ids restart at q1 in each EADS pursuit).
  const questionOf = (page: string) => /<form method="post" action="[^"]*\/answer">[\s\S]*?<\/form>/.exec(page)?.[0];
  const keyOf = async (id: string) =>
    ((await (await fetch(`${base}/console/runs/${id}/watch`)).json()) as { key: string }).key;
  try {
    for (let i = 0; times.length < answers; i++) {
      let workflowId: string;
      if (kind === 'proposal') {
        const handle = await client.workflow.start(
          researchProposalFlow.type,
          flowStartOptions(researchProposalFlow, { mode: 'interactive' }) as WorkflowStartOptions,
        );
        workflowId = handle.workflowId;
      } else {
        const projectId = `bench-console-${runId}-${i}`;
        workflowId = `eads-interview-${projectId}`;
        await client.workflow.start(
          runEadsInterviewFlow.type,
          flowStartOptions(
            runEadsInterviewFlow,
            { projectId, mode: 'human', orchestration: 'auto' },
            { workflowId },
          ) as WorkflowStartOptions,
        );
      }
      const url = `${base}/console/runs/${encodeURIComponent(workflowId)}`;
      // The first question, as a person opening the page would wait for it.
      let page = '';
      for (let tries = 0; tries < 200 && !questionOf(page); tries++) {
        page = await (await fetch(url)).text();
        if (!questionOf(page)) await sleep(100);
      }
      for (let n = 0; n < PROPOSAL_ANSWERED_PER_INTERVIEW && times.length < answers; n++) {
        const questionId = questionIdOf(page);
        const asked = questionOf(page);
        if (!questionId || !asked) break;
        const text =
          kind === 'proposal'
            ? (PROPOSAL_ANSWERS[questionId] ?? 'none')
            : eadsAnswer(page.includes('<table') ? 'reply as a table' : page.includes('type="radio"') ? '\n  1) ' : '');
        const form = new URLSearchParams(
          kind === 'proposal' ? { answer: text, questionId } : { answerText: text, questionId },
        );
        const t0 = performance.now();
        const posted = await fetch(`${url}/${kind}/answer`, { method: 'POST', body: form, redirect: 'manual' });
        if (posted.status !== 303) break; // rejected (the page explains it): not a round trip
        page = await (await fetch(url)).text();
        // Not there yet: the page's script polls the watch URL (500 ms, then every 700 ms) and reloads.
        let key = await keyOf(workflowId);
        let wait = 500;
        for (let tries = 0; tries < 100 && (questionOf(page) ?? asked) === asked; tries++) {
          polled++;
          await sleep(wait);
          wait = 700;
          const now = await keyOf(workflowId);
          if (now !== key) {
            key = now;
            page = await (await fetch(url)).text();
          }
        }
        if ((questionOf(page) ?? asked) === asked) break; // the run moved on to something else
        times.push(performance.now() - t0);
      }
      await client.workflow
        .getHandle(workflowId)
        .terminate('bench: one-person latency measured')
        .catch(() => undefined);
    }
  } finally {
    await plane.close();
    rmSync(storeDir, { recursive: true, force: true });
  }
  return { times, polled };
}

// --- 2-6. many open interviews -------------------------------------------------------------------

type Kind = 'eads' | 'proposal' | 'bare';
type Group = 'answer' | 'restart' | 'idle';

interface Interview {
  kind: Kind;
  group: Group;
  workflowId: string;
  /** The EADS pursuit that asks the questions. */
  pursuitId?: string;
  questionId?: string;
  started: boolean;
  sent: number;
  /** Answers whose update replied (the answer is taken) ... */
  acked: number;
  /** ... and whose next question came back too. */
  replied: number;
  error?: string;
}

/** Starts an interview and waits for its first question, as the clients do (update-with-start). */
async function open(client: Client, iv: Interview, idleTimeoutMinutes: number | undefined): Promise<void> {
  const idle = idleTimeoutMinutes ? { idleTimeoutMinutes } : {};
  if (iv.kind === 'bare') {
    const op = new WithStartWorkflowOperation('bareInterview', {
      taskQueue: BARE_QUEUE,
      workflowId: iv.workflowId,
      args: [{ idleTimeoutMinutes: idleTimeoutMinutes ?? 60 * 24 * 7 }],
      workflowIdConflictPolicy: 'FAIL',
    });
    const q = await client.workflow.executeUpdateWithStart(bareNextQuestionUpdate, {
      args: [],
      startWorkflowOperation: op,
    });
    iv.questionId = q!.id;
  } else if (iv.kind === 'proposal') {
    const op = new WithStartWorkflowOperation<FlowWorkflow<typeof researchProposalFlow>>(researchProposalFlow.type, {
      ...flowStartOptions(researchProposalFlow, { mode: 'interactive', ...idle }, { workflowId: iv.workflowId }),
      workflowIdConflictPolicy: 'FAIL',
    });
    const step = await client.workflow.executeUpdateWithStart(nextProposalStepUpdate, {
      args: [{}],
      startWorkflowOperation: op,
    });
    if (step.kind !== 'question') throw new Error(`first step ${step.kind}`);
    iv.questionId = step.id;
  } else {
    const projectId = iv.workflowId.replace(/^eads-interview-/, '');
    const op = new WithStartWorkflowOperation<FlowWorkflow<typeof runEadsInterviewFlow>>(runEadsInterviewFlow.type, {
      ...flowStartOptions(
        runEadsInterviewFlow,
        { projectId, mode: 'human', orchestration: 'auto', ...idle },
        { workflowId: iv.workflowId },
      ),
      workflowIdConflictPolicy: 'FAIL',
    });
    const step = await client.workflow.executeUpdateWithStart(nextStepUpdate, {
      args: [{}],
      startWorkflowOperation: op,
    });
    if (step.kind !== 'pursuing') throw new Error(`first step ${step.kind}`);
    iv.pursuitId = step.pursuit.childWorkflowId;
    const q = await nextQuestion(client.workflow.getHandle(iv.pursuitId));
    if (q.kind !== 'question') throw new Error(`first question: ${q.kind}`);
    iv.questionId = q.question.id;
  }
  iv.started = true;
}

async function nextQuestion(pursuit: WorkflowHandle, after?: string): Promise<PursuitStep> {
  for (;;) {
    const step = await pursuit.executeUpdate(nextQuestionUpdate, { args: [after ? { after } : {}] });
    if (step.kind !== 'continuing') return step;
  }
}

/** One answer, as the terminal clients send it; resolves once the next question is back. */
async function answer(client: Client, iv: Interview): Promise<void> {
  const questionId = iv.questionId!;
  if (iv.kind === 'bare') {
    await client.workflow
      .getHandle(iv.workflowId)
      .executeUpdate(bareAnswerUpdate, { args: [{ questionId, answer: 'an answer' }] });
    iv.acked++;
  } else if (iv.kind === 'proposal') {
    const handle = client.workflow.getHandle(iv.workflowId);
    await handle.executeUpdate(answerQuestionUpdate, { args: [{ questionId, answer: PROPOSAL_ANSWERS[questionId] }] });
    iv.acked++;
    await handle.executeUpdate(nextProposalStepUpdate, { args: [{ after: questionId }] });
  } else {
    // As the terminal client: the answer, then the pursuit's next question, or, when the answer
    // ended the pursuit (the first EADS asks one question), the interview's next pursuit's first.
    const session = new EadsSession(client, iv.workflowId.replace(/^eads-interview-/, ''));
    const pursuit = client.workflow.getHandle(iv.pursuitId!);
    const answered = await session.answer(pursuit, questionId, eadsAnswer(''));
    iv.acked++;
    const step = stepWithAnswer(answered) ?? (await session.nextQuestion(pursuit, questionId));
    if (step.kind === 'ended') {
      const next = await session.nextStep(iv.pursuitId);
      if (next.kind === 'pursuing') await session.nextQuestion(client.workflow.getHandle(next.pursuit.childWorkflowId));
    }
  }
}

/** The answer updates each kind's workflow takes. */
const ANSWER_UPDATE: Record<Kind, string> = {
  eads: answerUpdate.name,
  proposal: answerQuestionUpdate.name,
  bare: bareAnswerUpdate.name,
};

/**
 * The answers the workflow took, from its history: its accepted answer updates. Read from the
 * server alone (a query would replay each evicted workflow on the worker being measured).
 */
async function recorded(client: Client, iv: Interview): Promise<number> {
  const history = await client.workflow.getHandle(iv.kind === 'eads' ? iv.pursuitId! : iv.workflowId).fetchHistory();
  return (history.events ?? []).filter(
    (e) => e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name === ANSWER_UPDATE[iv.kind],
  ).length;
}

async function main() {
  const runId = Date.now().toString(36);
  const loadStart = loadavg();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-open-interviews-'));
  const dbFile = path.join(dir, 'dev.db');
  const dbBytes = () =>
    ['', '-wal', '-shm'].reduce((sum, ext) => sum + (existsSync(dbFile + ext) ? statSync(dbFile + ext).size : 0), 0);
  const server = await startDevServer({ port: await freePort(), dbFile, quiet: true });
  // In its own process, as `npm start` runs it: its model rules (embeddings among them) must not
  // share this process's event loop with the clients whose round trips are timed.
  const standinPort = await freePort();
  const standin = spawnProcess(
    [path.join(ROOT, 'workers', 'launch.cjs'), 'standin/main.ts'],
    { STANDIN_PORT: String(standinPort), LOG_LEVEL: 'warn' },
    'stand-in started',
  );
  await standin.ready;
  const standinUrl = `http://127.0.0.1:${standinPort}`;
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection });
  const workerEnv = {
    ...WORKER_ENV,
    TEMPORAL_ADDRESS: server.address,
    GOOGLE_GEMINI_BASE_URL: standinUrl,
    AGENT_FLOWS_MODEL: 'standin',
    WORKER_METRICS_PORT: '0',
    LOG_LEVEL: 'warn',
    ARTIFACT_DIR: path.join(ROOT, 'out', 'bench'),
    ...(args.cache ? { WORKER_MAX_CACHED_WORKFLOWS: args.cache } : {}),
  };
  const startWorker = () =>
    spawnProcess(
      [...WORKER_NODE_FLAGS, path.join(ROOT, 'workers', 'launch.cjs'), 'workers/worker.ts'],
      workerEnv,
      '"message":"polling task queue"',
    );
  const startBare = () =>
    spawnProcess(
      ['--import', 'tsx', path.join(__dirname, 'bare-interview-worker.ts'), BARE_QUEUE],
      { TEMPORAL_ADDRESS: server.address },
      'ready',
    );
  let worker = startWorker();
  let bare = startBare();
  // Interrupted (Ctrl-C, a timeout): stop what this bench started.
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.once(signal, () => {
      worker.child.kill('SIGKILL');
      bare.child.kill('SIGKILL');
      standin.child.kill('SIGKILL');
      void server.stop().finally(() => process.exit(130));
    });
  await Promise.all([worker.ready, bare.ready]);
  progress('workers ready');
  const build = checkBuild(path.join(ROOT, 'dist'));
  console.log(
    `Open interviews: ${N} of ours (EADS and proposal, half each) + ${N} bare SDK, one worker each, ${os.cpus().length} cores, load average at start ${loadStart}`,
  );
  console.log(
    `  worker as \`npm run worker\`: ${build.current ? 'the build in dist/' : `the sources through tsx (${build.reason})`}, ${Object.entries(
      WORKER_ENV,
    )
      .map(([k, v]) => `${k}=${v} `)
      .join(
        '',
      )}node ${WORKER_NODE_FLAGS.join(' ')}, WORKER_MAX_CACHED_WORKFLOWS ${args.cache ?? `${parseConfig({}).WORKER_MAX_CACHED_WORKFLOWS} (the default)`}; dev server with a database file (${path.basename(dbFile)}) and the project's tuning flags`,
  );

  // 1. One person, idle stack.
  const single = Number(args.single);
  const one: Record<string, number[]> = {};
  let consolePolls = 0;
  if (single > 0) {
    one['terminal, proposal'] = await terminalProposal(client, single);
    progress('one person: terminal proposal done');
    one['terminal, EADS'] = await terminalEads(client, single, runId);
    progress('one person: terminal EADS done');
    const cp = await consoleAnswers(client, 'proposal', single, runId);
    one['console, proposal'] = cp.times;
    progress('one person: console proposal done');
    const ce = await consoleAnswers(client, 'eads', single, runId);
    one['console, EADS'] = ce.times;
    consolePolls = cp.polled + ce.polled;
    console.log(`\n1. One person on an otherwise idle stack: answer → next question (target p95 ≤ 150 ms)`);
    for (const [label, times] of Object.entries(one))
      console.log(
        `  ${label.padEnd(20)} p50 ${ms(pct(times, 50))}, p95 ${ms(pct(times, 95))} (n=${times.length})  ${pct(times, 95) <= 150 ? 'met' : 'NOT met'}`,
      );
    console.log(`  console answers that waited for the page's watch poll: ${consolePolls} poll(s)`);
  }

  // 2. Open N of ours, then N bare.
  const idleShare = Number(args.idle);
  const restartShare = Number(args.restart);
  const groupOf = (i: number): Group => {
    const r = (i * 0.6180339887) % 1; // spread evenly over both kinds
    return r < idleShare ? 'idle' : r < idleShare + restartShare ? 'restart' : 'answer';
  };
  const ours: Interview[] = Array.from({ length: N }, (_, i) => {
    const kind: Kind = i % 2 ? 'eads' : 'proposal';
    return {
      kind,
      group: groupOf(i),
      workflowId: kind === 'eads' ? `eads-interview-open-${runId}-${i}` : `research-proposal-open-${runId}-${i}`,
      started: false,
      sent: 0,
      acked: 0,
      replied: 0,
    };
  });
  const bares: Interview[] = Array.from({ length: N }, (_, i) => ({
    kind: 'bare' as const,
    group: groupOf(i),
    workflowId: `bare-interview-${runId}-${i}`,
    started: false,
    sent: 0,
    acked: 0,
    replied: 0,
  }));
  const rss: Array<{ open: number; mb: number }> = [{ open: 0, mb: rssMb(worker.child.pid) }];
  const bareRssStart = rssMb(bare.child.pid);
  let peak = rss[0].mb;
  const peakTimer = setInterval(() => (peak = Math.max(peak, rssMb(worker.child.pid))), 1000);
  const db0 = dbBytes();
  const openAll = async (list: Interview[], onOpened?: (count: number) => void) => {
    let opened = 0;
    const t0 = performance.now();
    await pool(list, CONCURRENCY, async (iv) => {
      try {
        await withTimeout(open(client, iv, iv.group === 'idle' ? 1 : undefined), LOST_AFTER_MS);
        opened++;
        onOpened?.(opened);
        if (opened % 500 === 0)
          progress(`opened ${opened}/${list.length} ${list[0].kind === 'bare' ? 'bare' : 'of ours'}`);
      } catch (err) {
        iv.error = `start: ${(err as Error).message}`;
      }
    });
    return { opened, seconds: (performance.now() - t0) / 1000 };
  };
  const oursOpened = await openAll(ours, (count) => {
    if (count % 1000 === 0) rss.push({ open: count, mb: rssMb(worker.child.pid) });
  });
  const dbOurs = dbBytes();
  const bareOpened = await openAll(bares);
  const dbBare = dbBytes();
  const openRss = rssMb(worker.child.pid);
  console.log(
    `\n2. Opened ${oursOpened.opened}/${N} of ours in ${oursOpened.seconds.toFixed(0)} s (${(oursOpened.opened / oursOpened.seconds).toFixed(0)}/s), ${bareOpened.opened}/${N} bare in ${bareOpened.seconds.toFixed(0)} s (${(bareOpened.opened / bareOpened.seconds).toFixed(0)}/s)`,
  );
  console.log(
    `  worker RSS: start ${rss[0].mb.toFixed(0)} MB; ${rss
      .slice(1)
      .map((r) => `${r.open}: ${r.mb.toFixed(0)} MB`)
      .join(
        ', ',
      )}; with all open ${openRss.toFixed(0)} MB; bare worker ${bareRssStart.toFixed(0)} → ${rssMb(bare.child.pid).toFixed(0)} MB`,
  );
  const perRun = (bytes: number, n: number) => `${(bytes / Math.max(1, n) / 1024).toFixed(1)} KiB`;
  console.log(
    `  database file (+ WAL): ${(db0 / 2 ** 20).toFixed(0)} MB before, +${((dbOurs - db0) / 2 ** 20).toFixed(0)} MB for ours (${perRun(dbOurs - db0, oursOpened.opened)} per interview, EADS = interview + pursuit), +${((dbBare - dbOurs) / 2 ** 20).toFixed(0)} MB for the bare ones (${perRun(dbBare - dbOurs, bareOpened.opened)} each)`,
  );

  // 3. Answers at random times over the window, ours and bare alike.
  const times: Record<Kind, number[]> = { eads: [], proposal: [], bare: [] };
  const failed: Interview[] = [];
  const send = async (iv: Interview, into: number[]) => {
    iv.sent++;
    const t0 = performance.now();
    try {
      await withTimeout(answer(client, iv), LOST_AFTER_MS);
      iv.replied++;
      into.push(performance.now() - t0);
      return true;
    } catch (err) {
      iv.error = `answer: ${(err as Error).message}`;
      failed.push(iv);
      return false;
    }
  };
  const toAnswer = [...ours, ...bares].filter((iv) => iv.started && iv.group === 'answer');
  progress(`answering ${toAnswer.length} over ${(WINDOW_MS / 1000).toFixed(0)} s`);
  const tAnswers = performance.now();
  await Promise.all(
    toAnswer.map(async (iv) => {
      await sleep(Math.random() * WINDOW_MS);
      await send(iv, times[iv.kind]);
    }),
  );
  const answerSeconds = (performance.now() - tAnswers) / 1000;
  const afterAnswersRss = rssMb(worker.child.pid);
  const oursTimes = [...times.eads, ...times.proposal];
  console.log(
    `\n3. ${toAnswer.length} answers at random times over ${(WINDOW_MS / 1000).toFixed(0)} s (done in ${answerSeconds.toFixed(0)} s): answer → next question`,
  );
  console.log(`  ours       ${triple(oursTimes)}`);
  console.log(
    `    EADS     ${triple(times.eads)}  (answer, nextQuestion; the first EADS ends at its one answer, so also nextStep and the next pursuit's first question)`,
  );
  console.log(`    proposal ${triple(times.proposal)}  (answerQuestion, then nextProposalStep; no activity)`);
  console.log(`  bare SDK   ${triple(times.bare)}  (one update)`);
  const ratio = pct(oursTimes, 95) / pct(times.bare, 95);
  console.log(
    `  p95 ours / bare ${ratio.toFixed(2)} (p50 ${(pct(oursTimes, 50) / pct(times.bare, 50)).toFixed(2)}, p99 ${(pct(oursTimes, 99) / pct(times.bare, 99)).toFixed(2)}); proposal alone ${(pct(times.proposal, 95) / pct(times.bare, 95)).toFixed(2)}`,
  );

  // 4. Both workers killed and started again; the restart group answers at once.
  const restartTimes: Record<Kind, number[]> = { eads: [], proposal: [], bare: [] };
  const firstOk: Partial<Record<'ours' | 'bare', number>> = {};
  const restartGroup = [...ours, ...bares].filter((iv) => iv.started && iv.group === 'restart');
  const oldPids = [worker.child.pid, bare.child.pid];
  progress('killing both workers');
  const killedAt = performance.now();
  worker.child.kill('SIGKILL');
  bare.child.kill('SIGKILL');
  await Promise.all([new Promise((r) => worker.child.once('exit', r)), new Promise((r) => bare.child.once('exit', r))]);
  worker = startWorker();
  bare = startBare();
  const readyMs = await Promise.all([worker.ready, bare.ready]);
  await Promise.all(
    restartGroup.map(async (iv) => {
      if (await send(iv, restartTimes[iv.kind])) {
        const side = iv.kind === 'bare' ? 'bare' : 'ours';
        firstOk[side] ??= performance.now() - killedAt;
      }
    }),
  );
  const oursRestart = [...restartTimes.eads, ...restartTimes.proposal];
  console.log(
    `\n4. Workers killed (SIGKILL, pids ${oldPids.join(', ')}) and started again at once (ready after ${ms(readyMs[0])} ours, ${ms(readyMs[1])} bare); ${restartGroup.length} answers sent right after the kill`,
  );
  console.log(
    `  kill → first answer round trip done: ours ${ms(firstOk.ours ?? NaN)}, bare ${ms(firstOk.bare ?? NaN)}; those answers: ours ${triple(oursRestart)}; bare ${triple(restartTimes.bare)}`,
  );

  // 5. The idle ones end as abandoned (idleTimeoutMinutes 1).
  const idle = [...ours, ...bares].filter((iv) => iv.started && iv.group === 'idle');
  progress(`waiting for ${idle.length} idle interviews to time out`);
  const deadline = Date.now() + 180_000;
  let closed = 0;
  for (;;) {
    closed = 0;
    await pool(idle, CONCURRENCY, async (iv) => {
      const d = await client.workflow.getHandle(iv.workflowId).describe();
      if (d.status.name !== 'RUNNING') closed++;
    });
    if (closed === idle.length || Date.now() > deadline) break;
    await sleep(5000);
  }
  let abandoned = 0;
  await pool(idle, CONCURRENCY, async (iv) => {
    const result = (await client.workflow
      .getHandle(iv.workflowId)
      .result()
      .catch(() => undefined)) as { status?: string } | string | undefined;
    if ((typeof result === 'string' ? result : result?.status) === 'abandoned') abandoned++;
  });
  console.log(
    `\n5. Left idle past their 1-minute timeout: ${idle.length}; closed ${closed}, as abandoned ${abandoned}`,
  );

  // 6. Lost and duplicated answers, from each workflow's recorded answers.
  progress("reading each workflow's recorded answers");
  let duplicated = 0;
  let missing = 0;
  let unreadable = 0;
  const answered = [...ours, ...bares].filter((iv) => iv.started && iv.group !== 'idle');
  await pool(answered, CONCURRENCY, async (iv) => {
    try {
      const count = await recorded(client, iv);
      if (count > iv.sent) duplicated++;
      else if (count < iv.acked) missing++;
    } catch {
      unreadable++;
    }
  });
  const failedStarts = [...ours, ...bares].filter((iv) => !iv.started);
  // Lost: the answer's own update never replied. Otherwise the answer was taken and only the wait
  // for the next question failed (the client asks again; nothing the person said is lost).
  const lostAnswers = failed.filter((iv) => iv.acked < iv.sent);
  const nextFailed = failed.filter((iv) => iv.acked === iv.sent);
  console.log(
    `\n6. Answers sent ${answered.length}: lost ${lostAnswers.length} (the answer update unanswered within ${LOST_AFTER_MS / 1000} s, or failed), duplicated ${duplicated}, taken but not in history ${missing}, history unreadable ${unreadable}; answer taken but the next question not returned ${nextFailed.length}; interviews that failed to start ${failedStarts.length}`,
  );
  for (const iv of [...failed, ...failedStarts].slice(0, 5)) console.log(`    ${iv.workflowId}: ${iv.error}`);

  clearInterval(peakTimer);
  const endRss = rssMb(worker.child.pid);
  const loadEnd = loadavg();
  const dbEnd = dbBytes();
  console.log(
    `\nWorker RSS: start ${rss[0].mb.toFixed(0)} MB, ${N} open ${openRss.toFixed(0)} MB, after the answers ${afterAnswersRss.toFixed(0)} MB, peak ${peak.toFixed(0)} MB; the restarted worker at the end ${endRss.toFixed(0)} MB. Database ${(dbEnd / 2 ** 20).toFixed(0)} MB at the end. Load average at end ${loadEnd}`,
  );
  const rssAtN = Math.max(openRss, afterAnswersRss);
  const targets = [
    ['p95 answer round trip ≤ 2 × bare SDK update p95', ratio <= 2],
    [`worker RSS < 600 MB at ${N} open runs`, rssAtN < 600],
    ['zero lost or duplicated answers', lostAnswers.length === 0 && duplicated === 0 && missing === 0],
  ] as const;
  console.log('\nTargets');
  for (const [label, ok] of targets) console.log(`  ${label}: ${ok ? 'yes' : 'NO'}`);
  if (single > 0)
    for (const [label, t] of Object.entries(one))
      console.log(`  one person, ${label}, p95 ≤ 150 ms: ${pct(t, 95) <= 150 ? 'yes' : 'NO'}`);

  emitSummary('open-interviews', {
    runs: N,
    oursP50Ms: pct(oursTimes, 50),
    oursP95Ms: pct(oursTimes, 95),
    oursP99Ms: pct(oursTimes, 99),
    bareP95Ms: pct(times.bare, 95),
    ratio,
    workerRssStartMb: rss[0].mb,
    workerRssOpenMb: rssAtN,
    workerRssPeakMb: peak,
    resumeMs: firstOk.ours,
    lost: lostAnswers.length,
    duplicated: duplicated + missing,
    nextQuestionFailed: nextFailed.length,
    onePersonTerminalP95Ms: Math.max(pct(one['terminal, proposal'] ?? [], 95), pct(one['terminal, EADS'] ?? [], 95)),
    onePersonConsoleP95Ms: Math.max(pct(one['console, proposal'] ?? [], 95), pct(one['console, EADS'] ?? [], 95)),
    loadStart,
    loadEnd,
  });

  worker.child.kill('SIGTERM');
  bare.child.kill('SIGTERM');
  await Promise.all([
    new Promise((r) => (worker.child.exitCode !== null ? r(null) : worker.child.once('exit', r))),
    new Promise((r) => (bare.child.exitCode !== null ? r(null) : bare.child.once('exit', r))),
  ]);
  await connection.close();
  standin.child.kill('SIGTERM');
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
