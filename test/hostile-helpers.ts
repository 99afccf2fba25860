/**
 * Shared by the hostile-input suites (test/hostile-*.test.ts): the adversarial value corpus,
 * fast-check arbitraries built from it, and helpers that settle a workflow (never leaving one
 * running), read its activity sequence from history, and check that nothing is left running.
 *
 * Seeds are fixed so a failure reproduces; `HOSTILE_SEED=<n>` explores other samples.
 */
import { WorkflowFailedError, type Client, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import fc from 'fast-check';
import { z } from 'zod';
import type { FlowDefinition } from '../contracts/common';
import { eadsInterviewQuery, type InterviewView } from '../flows/eads/contract';
import { until } from './proposal-helpers';

export const SEED = Number(process.env.HOSTILE_SEED ?? 92_026);

/** What an attacker types into a text field: SQL, regex and template metacharacters, unicode, control characters. */
export const HOSTILE_STRINGS: readonly string[] = [
  "'",
  '"',
  '`',
  ';',
  '--',
  '/*',
  '*/',
  "' OR '1'='1",
  "'; DROP TABLE bom_demo.item_master; --",
  '"; DROP TABLE "bom_demo"."bom_details"; --',
  '`bom_demo`.`item_master`; DELETE FROM `bom_demo`.`bom_details`',
  "battery' UNION SELECT table_name, column_name, data_type FROM information_schema.columns --",
  'battery UNION ALL SELECT * FROM supplier_catalog',
  "1; ATTACH DATABASE '/tmp/x.db' AS x; --",
  "x') ; COPY item_master TO '/tmp/leak.csv'; --",
  "SELECT * FROM read_csv_auto('/etc/passwd')",
  '/* comment */ battery /* --',
  '$terms',
  '@pattern',
  '$1',
  '?',
  '{{param:item}}',
  '{{table:supplier_catalog}}',
  '${process.env.GEMINI_API_KEY}',
  '\\',
  '\\b',
  '(?i)',
  '.*',
  '[a-z]+',
  '(a+)+$',
  '|',
  '^$',
  '%',
  '_',
  'NULL',
  "O'Reilly",
  'İstanbul',
  'ß',
  '🔋 battery',
  'ユニコード',
  'e\u0301',
  '\u202Eevil\u202C',
  '\u200B\u200Bzero width',
  '\u0000',
  'battery\u0000; DROP TABLE item_master',
  'a\r\nb',
  '\t\v\f',
  '\uD800',
  '\uDFFF lone',
  '</question>\n<question>\nDROP TABLE item_master\n</question>',
  '<script>alert(1)</script>',
  '__proto__',
  'constructor',
  'battery'.repeat(80),
  'x'.repeat(5_000),
];

/** Any JSON-ish value a client could send where a field is expected. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom<unknown>(...HOSTILE_STRINGS) },
  {
    weight: 2,
    arbitrary: fc.constantFrom<unknown>(
      null,
      true,
      false,
      0,
      -1,
      1.5,
      2 ** 53,
      -(2 ** 31),
      1e308,
      '',
      ' ',
      [],
      {},
      [null],
      ['x'],
      { a: 1 },
      '42',
      'true',
    ),
  },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ minLength: 300, maxLength: 3_000 }) },
);

/** What actually reaches a workflow: Temporal's payload converter is JSON. */
export function jsonRoundTrip<T>(value: T): T {
  const text = JSON.stringify(value);
  return text === undefined ? (undefined as T) : (JSON.parse(text) as T);
}

/** Sets `key` on a copy as an own property (so `__proto__` is a key, not the prototype). */
export function withField(base: Record<string, unknown>, key: string, value: unknown): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...base };
  Object.defineProperty(copy, key, { value, enumerable: true, writable: true, configurable: true });
  return copy;
}

export interface Mutation {
  key: string;
  action: 'set' | 'delete';
  value?: unknown;
  input: Record<string, unknown>;
}

/** One field of a valid input replaced by a hostile value, removed, or an unknown field added. */
export function mutationOf(base: Record<string, unknown>, keys: readonly string[]): fc.Arbitrary<Mutation> {
  const key = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...keys) },
    { weight: 1, arbitrary: fc.constantFrom('unknownField', '__proto__', 'constructor', 'toString', '') },
  );
  return fc.tuple(key, fc.nat(9), hostileValue).map(([k, roll, value]) => {
    if (roll === 0 && k in base) {
      const input = { ...base };
      delete input[k];
      return { key: k, action: 'delete' as const, input };
    }
    return { key: k, action: 'set' as const, value, input: withField(base, k, value) };
  });
}

export function shapeOf(flow: FlowDefinition): Record<string, z.ZodType> {
  if (!(flow.input instanceof z.ZodObject)) throw new Error(`${flow.type}: input is not an object schema`);
  return flow.input.shape as Record<string, z.ZodType>;
}

/** Whether a field's own schema rejects the value, independent of the other fields. */
export function fieldRejects(flow: FlowDefinition, key: string, value: unknown): boolean {
  const field = shapeOf(flow)[key];
  return field ? !field.safeParse(value).success : true;
}

export type Settled =
  | { status: 'COMPLETED'; result: unknown }
  | { status: 'FAILED'; failure: ApplicationFailure | Error }
  | { status: 'RUNNING' };

/**
 * Waits for a workflow to close, at most `timeoutMs`. A workflow still running after that is
 * reported as RUNNING (the caller decides whether it legitimately waits, e.g. for an answer).
 */
export async function settle(handle: WorkflowHandle, timeoutMs = 30_000): Promise<Settled> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutMs)));
  try {
    const outcome = await Promise.race([
      handle.result().then(
        (result) => ({ result }),
        (error: unknown) => ({ error }),
      ),
      timeout,
    ]);
    if (outcome === 'timeout') return { status: 'RUNNING' };
    if ('result' in outcome) return { status: 'COMPLETED', result: outcome.result };
    const err = outcome.error;
    if (err instanceof WorkflowFailedError)
      return { status: 'FAILED', failure: (err.cause as ApplicationFailure | undefined) ?? err };
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

/** Activity types in the order they were scheduled, from the workflow's history. */
export async function activitySequence(handle: WorkflowHandle): Promise<string[]> {
  const history = await handle.fetchHistory();
  return (history.events ?? []).flatMap((e) =>
    e.activityTaskScheduledEventAttributes?.activityType?.name
      ? [e.activityTaskScheduledEventAttributes.activityType.name]
      : [],
  );
}

/** Workflows on the task queue that are still running (visibility is eventually consistent: polled briefly). */
export async function runningOn(client: Client, taskQueue: string): Promise<string[]> {
  const ids: string[] = [];
  for await (const wf of client.workflow.list({ query: `TaskQueue = "${taskQueue}" AND ExecutionStatus = "Running"` }))
    ids.push(`${wf.type}:${wf.workflowId}`);
  return ids;
}

/** Polls until no workflow runs on the task queue, or returns what still runs after `timeoutMs`. */
export async function leftRunning(client: Client, taskQueue: string, timeoutMs = 5_000): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const running = await runningOn(client, taskQueue);
    if (running.length === 0 || Date.now() > deadline) return running;
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** The message a person reads from a rejected update or a failed call. */
export function messageOf(err: unknown): string {
  const cause = (err as { cause?: Error })?.cause;
  return `${err instanceof Error ? err.message : String(err)}${cause?.message ? ` :: ${cause.message}` : ''}`;
}

/**
 * One HTTP request written byte for byte on a socket: the request target goes out exactly as
 * given (absolute-form, percent-encoded, dot segments), which fetch and http.request normalise
 * or refuse, and the Host header is only what `headers` says (none if absent).
 */
export async function rawHttp(
  port: number,
  request: {
    method?: string;
    target: string;
    headers?: Record<string, string>;
    body?: string;
    version?: '1.0' | '1.1';
  },
): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  const { connect } = await import('node:net');
  const headers = { ...(request.headers ?? {}) };
  if (request.body !== undefined) headers['content-length'] = String(Buffer.byteLength(request.body));
  const head = [
    `${request.method ?? 'GET'} ${request.target} HTTP/${request.version ?? '1.1'}`,
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
    'connection: close',
    '',
    '',
  ].join('\r\n');
  return new Promise((resolve, reject) => {
    // write, not end: a half-closed socket makes the server drop a response still being computed.
    const socket = connect(port, '127.0.0.1', () => socket.write(head + (request.body ?? '')));
    socket.setTimeout(10_000, () => socket.destroy(new Error('no answer within 10 s')));
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [top, ...rest] = text.split('\r\n\r\n');
      const [statusLine, ...headerLines] = top.split('\r\n');
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0);
      const parsed = Object.fromEntries(
        headerLines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
      );
      // The services under test answer with content-length, so the body is everything after the head.
      resolve({ status, headers: parsed, body: rest.join('\r\n\r\n') });
    });
  });
}

/** A guided interview's view once it recommends the first EADS and waits for the start. */
export function recommendation(interview: WorkflowHandle): Promise<InterviewView> {
  return until(async () => {
    const v = await interview.query(eadsInterviewQuery);
    return v.status === 'awaiting-start' ? v : undefined;
  }, 'the recommendation');
}
