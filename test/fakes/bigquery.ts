/**
 * A local fake of the BigQuery REST API (v2) for tests, reached through the real
 * `@google-cloud/bigquery` client. It speaks the wire format (jobs.insert, jobs.get, jobs.query,
 * jobs.getQueryResults with `schema` + `rows[].f[].v`), executes the received BigQuery SQL on
 * DuckDB (translated here, in the fake only), enforces `maximumBytesBilled` with an estimate,
 * records every request, and can inject faults.
 */
import Fastify from 'fastify';
import { Parser } from 'node-sql-parser';
import { discoveryProblems, loadDiscoveryDocument } from './api-definitions';

/** BigQuery's discovery document: jobs.insert takes a Job, jobs.query a QueryRequest. */
const BIGQUERY_API = loadDiscoveryDocument('bigquery.v2.json');
/**
 * @google-cloud/bigquery 8 leaves its own `types` option (the parameter types it has already
 * turned into queryParameters) in the request; BigQuery ignores it. Anything else unknown fails.
 */
const TOLERATED = ['Job.configuration.query.types', 'QueryRequest.types'];
import { OAuth2Client } from 'google-auth-library';
import path from 'node:path';
import { DATA_DIR } from '../../backends';
import { BigQueryWarehouse } from '../../backends/warehouse/bigquery';
import { DuckDbWarehouse } from '../../backends/warehouse/duckdb';
import type { SqlParam } from '../../backends/warehouse/types';

export interface RecordedRequest {
  method: string;
  path: string;
  body: unknown;
}

interface QueryParameter {
  name: string;
  parameterType: { type: string; arrayType?: { type: string } };
  parameterValue: { value?: string; arrayValues?: Array<{ value?: string }> };
}

interface StoredJob {
  jobId: string;
  location: string;
  query: string;
  rows: Array<Record<string, unknown>>;
  bytes: number;
  labels?: Record<string, string>;
  /** RUNNING until cancelled (`holdNext`) or until its polls run out (`slowNext`); DONE otherwise. */
  state: 'RUNNING' | 'DONE';
  /** getQueryResults polls still answered "not complete" before the job finishes. */
  pollsLeft: number;
  cancelled?: boolean;
}

export interface BigQueryFake {
  apiEndpoint: string;
  projectId: string;
  requests: RecordedRequest[];
  /** Every SQL text received, in order. */
  queries: string[];
  /** The next `count` query requests fail with this HTTP status and BigQuery error reason. */
  failNext(count: number, status: number, reason: string, message?: string): void;
  /** Answer the next `count` query requests with a body that is not valid JSON. */
  malformNext(count: number): void;
  /**
   * The same faults for query requests with a parameter value containing `text` only (a
   * question's own term), so flows running at the same time each meet their own. A request
   * takes the faults of the first such text it contains that has some left, else the others.
   */
  matching(text: string): Pick<BigQueryFake, 'failNext' | 'malformNext'>;
  /** The next `count` jobs keep running (getQueryResults answers jobComplete: false) until cancelled. */
  holdNext(count: number): void;
  /** The next `count` jobs run through `polls` getQueryResults polls (jobComplete: false) before they finish. */
  slowNext(count: number, polls: number): void;
  /** Job ids that received jobs.cancel, in order. */
  cancelled: string[];
  /** Resolves once a getQueryResults poll has reached a held (running) job. */
  runningPolled(): Promise<string>;
  /** A BigQueryWarehouse on the real client, pointed at this fake with a fake access token. */
  warehouse(options?: { maximumBytesBilled?: number }): BigQueryWarehouse;
  close(): Promise<void>;
}

const PROJECT = 'fake-project';

const bigQueryParser = new Parser();

/**
 * Checks a statement with a BigQuery-dialect SQL parser (node-sql-parser): the project's SQL only
 * ever runs on DuckDB here, translated, so without this a statement BigQuery cannot parse would
 * pass every test. Returns the parser's message, or null when the statement parses.
 */
export function bigQuerySyntaxError(sql: string): string | null {
  try {
    // BigQuery has WITH RECURSIVE; the parser's BigQuery grammar lacks the keyword (the rest of the
    // statement, the recursive CTE's body included, is still checked).
    bigQueryParser.astify(sql.replace(/^(\s*WITH)\s+RECURSIVE\b/i, '$1'), { database: 'bigquery' });
    return null;
  } catch (err) {
    return (err as Error).message.split('\n')[0].slice(0, 300);
  }
}

/** BigQuery Standard SQL → DuckDB SQL, enough for the statements this project builds. */
export function translateBigQuerySql(sql: string): string {
  // BigQuery's type names as DuckDB's information schema spells them (the columns' data_type).
  const bigQueryType = (column: string) =>
    `CASE WHEN ${column} = 'VARCHAR' THEN 'STRING' WHEN ${column} IN ('BIGINT','INTEGER','SMALLINT','HUGEINT') THEN 'INT64' WHEN ${column} IN ('DOUBLE','FLOAT','REAL') THEN 'FLOAT64' WHEN ${column} = 'BOOLEAN' THEN 'BOOL' ELSE ${column} END`;
  return sql
    .replace(
      /`[\w.-]+\.(\w+)`\.INFORMATION_SCHEMA\.TABLES/gi,
      (_m, dataset: string) => `(SELECT table_name FROM information_schema.tables WHERE table_schema = '${dataset}')`,
    )
    .replace(
      // BigQuery keeps a table's description as a quoted string literal in TABLE_OPTIONS.
      /`[\w.-]+\.(\w+)`\.INFORMATION_SCHEMA\.TABLE_OPTIONS/gi,
      (_m, dataset: string) =>
        `(SELECT table_name, 'description' AS option_name, '"' || replace(replace(comment, '\\', '\\\\'), '"', '\\"') || '"' AS option_value FROM duckdb_tables() WHERE schema_name = '${dataset}' AND comment IS NOT NULL UNION ALL SELECT view_name, 'description', '"' || replace(replace(comment, '\\', '\\\\'), '"', '\\"') || '"' FROM duckdb_views() WHERE schema_name = '${dataset}' AND comment IS NOT NULL)`,
    )
    .replace(
      /`[\w.-]+\.(\w+)`\.INFORMATION_SCHEMA\.COLUMN_FIELD_PATHS/gi,
      (_m, dataset: string) =>
        `(SELECT table_name, column_name, column_name AS field_path, ${bigQueryType('data_type')} AS data_type, comment AS description FROM duckdb_columns() WHERE schema_name = '${dataset}')`,
    )
    .replace(
      /`[\w.-]+\.(\w+)`\.INFORMATION_SCHEMA\.COLUMNS/gi,
      (_m, dataset: string) =>
        `(SELECT table_name, column_name, ordinal_position, CASE WHEN data_type = 'VARCHAR' THEN 'STRING' WHEN data_type IN ('BIGINT','INTEGER','SMALLINT','HUGEINT') THEN 'INT64' WHEN data_type IN ('DOUBLE','FLOAT','REAL') THEN 'FLOAT64' WHEN data_type = 'BOOLEAN' THEN 'BOOL' ELSE data_type END AS data_type FROM information_schema.columns WHERE table_schema = '${dataset}')`,
    )
    .replace(/`[\w-]+\.(\w+)\.(\w+)`/g, '"$1"."$2"')
    .replace(/`(\w+)`/g, '"$1"')
    .replace(/IN\s+UNNEST\(\s*@(\w+)\s*\)/gi, 'IN (SELECT unnest($$$1))')
    .replace(/REGEXP_CONTAINS\(/gi, 'regexp_matches(')
    .replace(/AS STRING\)/gi, 'AS VARCHAR)')
    .replace(/@(\w+)/g, '$$$1');
}

function paramValue(p: QueryParameter): SqlParam {
  const convert = (type: string, v: string | undefined) =>
    type === 'INT64' || type === 'FLOAT64' || type === 'NUMERIC'
      ? Number(v)
      : type === 'BOOL'
        ? v === 'true'
        : (v ?? '');
  if (p.parameterType.type === 'ARRAY') {
    const elementType = p.parameterType.arrayType?.type ?? 'STRING';
    return (p.parameterValue.arrayValues ?? []).map((a) => convert(elementType, a.value)) as SqlParam;
  }
  return convert(p.parameterType.type, p.parameterValue.value) as SqlParam;
}

function fieldType(values: unknown[]): string {
  const sample = values.find((v) => v !== null && v !== undefined);
  if (typeof sample === 'number') return values.every((v) => v === null || Number.isInteger(v)) ? 'INTEGER' : 'FLOAT';
  if (typeof sample === 'boolean') return 'BOOLEAN';
  return 'STRING';
}

function toWireRows(rows: Array<Record<string, unknown>>) {
  const names = rows.length ? Object.keys(rows[0]) : [];
  const fields = names.map((name) => ({ name, type: fieldType(rows.map((r) => r[name])), mode: 'NULLABLE' }));
  const wire = rows.map((r) => ({
    f: names.map((n) => ({
      v: r[n] === null || r[n] === undefined ? null : typeof r[n] === 'object' ? JSON.stringify(r[n]) : String(r[n]),
    })),
  }));
  return { schema: { fields }, rows: wire, totalRows: String(rows.length) };
}

export async function startBigQueryFake(options: { seedDir?: string } = {}): Promise<BigQueryFake> {
  const engine = await DuckDbWarehouse.open({
    path: ':memory:',
    seedDir: options.seedDir ?? path.join(DATA_DIR, 'warehouse'),
  });
  const requests: RecordedRequest[] = [];
  const queries: string[] = [];
  const jobs = new Map<string, StoredJob>();
  interface Faults {
    errors: Array<{ status: number; reason: string; message: string }>;
    malformed: number;
  }
  // '' holds the faults for any request; other keys, those for requests whose parameters hold the key.
  let faults = new Map<string, Faults>();
  const faultsFor = (key: string): Faults => {
    if (!faults.has(key)) faults.set(key, { errors: [], malformed: 0 });
    return faults.get(key)!;
  };
  /** The faults a query request meets: by its parameters' values (jobs.insert nests them under configuration.query). */
  const faultsOf = (body: unknown): Faults => {
    const b = body as { queryParameters?: unknown; configuration?: { query?: { queryParameters?: unknown } } };
    const values: string[] = [];
    JSON.stringify(b?.configuration?.query?.queryParameters ?? b?.queryParameters ?? [], (key, value: unknown) => {
      if (key === 'value' && typeof value === 'string') values.push(value);
      return value;
    });
    for (const [key, f] of faults)
      if (key && values.some((v) => v.includes(key)) && (f.errors.length || f.malformed)) return f;
    return faultsFor('');
  };
  const injector = (key: string): Pick<BigQueryFake, 'failNext' | 'malformNext'> => ({
    failNext(count, status, reason, message = `injected ${reason}`) {
      for (let i = 0; i < count; i++) faultsFor(key).errors.push({ status, reason, message });
    },
    malformNext(count) {
      faultsFor(key).malformed += count;
    },
  });
  let held = 0;
  const slow: number[] = [];
  let counter = 0;
  const cancelled: string[] = [];
  let polledRunning: ((jobId: string) => void) | undefined;
  let pollWait: Promise<string> | undefined;

  const app = Fastify({ logger: false, forceCloseConnections: true });
  app.addHook('onRequest', async (req) => {
    requests.push({ method: req.method, path: req.url, body: undefined });
  });
  app.addHook('preHandler', async (req) => {
    requests[requests.length - 1].body = req.body;
  });

  const errorBody = (status: number, reason: string, message: string) => ({
    error: { code: status, message, errors: [{ reason, message, domain: 'global' }], status: reason.toUpperCase() },
  });

  /** Runs a query configuration; returns the stored job or an error reply. */
  async function runQuery(
    config: {
      query: string;
      queryParameters?: QueryParameter[];
      maximumBytesBilled?: string;
      labels?: Record<string, string>;
      location?: string;
      jobId?: string;
    },
    pending: Faults,
  ): Promise<{ job?: StoredJob; error?: { status: number; body: unknown } }> {
    queries.push(config.query);
    const fault = pending.errors.shift();
    if (fault) return { error: { status: fault.status, body: errorBody(fault.status, fault.reason, fault.message) } };
    const syntax = bigQuerySyntaxError(config.query);
    if (syntax) return { error: { status: 400, body: errorBody(400, 'invalidQuery', `Syntax error: ${syntax}`) } };
    const params: Record<string, SqlParam> = {};
    const arrayTypes: Record<string, 'STRING' | 'INT64' | 'FLOAT64'> = {};
    for (const p of config.queryParameters ?? []) {
      params[p.name] = paramValue(p);
      if (p.parameterType.type === 'ARRAY')
        arrayTypes[p.name] = (p.parameterType.arrayType?.type ?? 'STRING') as 'STRING';
    }
    let rows: Array<Record<string, unknown>>;
    try {
      rows = (await engine.query({ sql: translateBigQuerySql(config.query), params, arrayTypes })).rows;
    } catch (err) {
      return { error: { status: 400, body: errorBody(400, 'invalidQuery', (err as Error).message) } };
    }
    // A crude scan estimate: what a real engine would bill grows with the rows it reads.
    const bytes = 10 * 1024 * 1024 + rows.length * 256;
    if (config.maximumBytesBilled && bytes > Number(config.maximumBytesBilled)) {
      return {
        error: {
          status: 400,
          body: errorBody(
            400,
            'bytesBilledLimitExceeded',
            `Query exceeded limit for bytes billed: ${config.maximumBytesBilled}. ${bytes} or higher required.`,
          ),
        },
      };
    }
    const job: StoredJob = {
      jobId: config.jobId ?? `job_${++counter}`,
      location: config.location ?? 'US',
      query: config.query,
      rows,
      bytes,
      labels: config.labels,
      state: 'DONE',
      pollsLeft: 0,
    };
    if (held > 0) {
      held--;
      Object.assign(job, { state: 'RUNNING', pollsLeft: Infinity });
    } else if (slow.length) {
      Object.assign(job, { state: 'RUNNING', pollsLeft: slow.shift() });
    }
    jobs.set(job.jobId, job);
    return { job };
  }

  const jobResource = (job: StoredJob) => ({
    kind: 'bigquery#job',
    id: `${PROJECT}:${job.location}.${job.jobId}`,
    jobReference: { projectId: PROJECT, jobId: job.jobId, location: job.location },
    configuration: { query: { query: job.query }, labels: job.labels },
    status: {
      state: job.state,
      ...(job.cancelled
        ? { errorResult: { reason: 'stopped', message: 'Job execution was cancelled: User requested cancellation' } }
        : {}),
    },
    // As BigQuery does: the bytes are known once the job is done, not while it runs.
    statistics:
      job.state === 'DONE' && !job.cancelled
        ? {
            totalBytesProcessed: String(job.bytes),
            query: { totalBytesProcessed: String(job.bytes), totalBytesBilled: String(job.bytes) },
          }
        : { creationTime: String(Date.now()) },
  });

  const sendMalformed = (reply: import('fastify').FastifyReply) =>
    reply.code(200).header('content-type', 'application/json').send('{"kind": "bigquery#queryResponse", "rows": [');

  // jobs.insert
  app.post('/bigquery/v2/projects/:project/jobs', async (req, reply) => {
    const pending = faultsOf(req.body);
    if (pending.malformed > 0) {
      pending.malformed--;
      return sendMalformed(reply);
    }
    const invalid = discoveryProblems(BIGQUERY_API, 'Job', req.body, TOLERATED);
    if (invalid.length)
      return reply
        .code(400)
        .send(errorBody(400, 'invalid', `Invalid JSON payload received. ${invalid.slice(0, 5).join('; ')}`));
    const body = req.body as {
      jobReference?: { jobId?: string; location?: string };
      configuration?: { query?: Record<string, unknown>; labels?: Record<string, string> };
    };
    const q = body.configuration?.query as
      { query: string; queryParameters?: QueryParameter[]; maximumBytesBilled?: string } | undefined;
    if (!q?.query) return reply.code(400).send(errorBody(400, 'invalid', 'configuration.query.query is required'));
    const { job, error } = await runQuery(
      {
        ...q,
        labels: body.configuration?.labels,
        jobId: body.jobReference?.jobId,
        location: body.jobReference?.location,
      },
      pending,
    );
    if (error) return reply.code(error.status).send(error.body);
    return jobResource(job!);
  });

  // jobs.get
  app.get('/bigquery/v2/projects/:project/jobs/:jobId', async (req, reply) => {
    const job = jobs.get((req.params as { jobId: string }).jobId);
    if (!job) return reply.code(404).send(errorBody(404, 'notFound', 'Not found: Job'));
    return jobResource(job);
  });

  // jobs.query (the client's fast path)
  app.post('/bigquery/v2/projects/:project/queries', async (req, reply) => {
    const pending = faultsOf(req.body);
    if (pending.malformed > 0) {
      pending.malformed--;
      return sendMalformed(reply);
    }
    const invalid = discoveryProblems(BIGQUERY_API, 'QueryRequest', req.body, TOLERATED);
    if (invalid.length)
      return reply
        .code(400)
        .send(errorBody(400, 'invalid', `Invalid JSON payload received. ${invalid.slice(0, 5).join('; ')}`));
    const body = req.body as {
      query: string;
      queryParameters?: QueryParameter[];
      maximumBytesBilled?: string;
      labels?: Record<string, string>;
      location?: string;
    };
    const { job, error } = await runQuery(body, pending);
    if (error) return reply.code(error.status).send(error.body);
    return {
      kind: 'bigquery#queryResponse',
      jobReference: { projectId: PROJECT, jobId: job!.jobId, location: job!.location },
      jobComplete: true,
      totalBytesProcessed: String(job!.bytes),
      ...toWireRows(job!.rows),
    };
  });

  // jobs.cancel: asks BigQuery to stop a running job (it ends DONE with errorResult "stopped").
  app.post('/bigquery/v2/projects/:project/jobs/:jobId/cancel', async (req, reply) => {
    const job = jobs.get((req.params as { jobId: string }).jobId);
    if (!job) return reply.code(404).send(errorBody(404, 'notFound', 'Not found: Job'));
    cancelled.push(job.jobId);
    if (job.state === 'RUNNING') Object.assign(job, { state: 'DONE', cancelled: true });
    return { kind: 'bigquery#jobCancelResponse', job: jobResource(job) };
  });

  // jobs.getQueryResults
  app.get('/bigquery/v2/projects/:project/queries/:jobId', async (req, reply) => {
    const job = jobs.get((req.params as { jobId: string }).jobId);
    if (!job) return reply.code(404).send(errorBody(404, 'notFound', 'Not found: Job'));
    if (job.state === 'RUNNING' && job.pollsLeft-- <= 0) job.state = 'DONE';
    if (job.state === 'RUNNING') {
      polledRunning?.(job.jobId);
      // As BigQuery does: hold the poll up to its timeoutMs (here at most 200 ms), then not complete.
      await new Promise((resolve) => setTimeout(resolve, 200));
      return {
        kind: 'bigquery#getQueryResultsResponse',
        jobReference: { projectId: PROJECT, jobId: job.jobId, location: job.location },
        jobComplete: false,
      };
    }
    if (job.cancelled) return reply.code(400).send(errorBody(400, 'stopped', 'Job execution was cancelled'));
    return {
      kind: 'bigquery#getQueryResultsResponse',
      jobReference: { projectId: PROJECT, jobId: job.jobId, location: job.location },
      jobComplete: true,
      totalBytesProcessed: String(job.bytes),
      ...toWireRows(job.rows),
    };
  });

  app.setNotFoundHandler((req, reply) =>
    reply.code(404).send(errorBody(404, 'notFound', `fake has no route for ${req.method} ${req.url}`)),
  );

  await app.listen({ host: '127.0.0.1', port: 0 });
  const port = (app.server.address() as { port: number }).port;
  const apiEndpoint = `http://127.0.0.1:${port}`;

  return {
    apiEndpoint,
    projectId: PROJECT,
    requests,
    queries,
    ...injector(''),
    matching: injector,
    holdNext(count) {
      held += count;
    },
    slowNext(count, polls) {
      for (let i = 0; i < count; i++) slow.push(polls);
    },
    cancelled,
    runningPolled() {
      pollWait ??= new Promise<string>((resolve) => {
        polledRunning = (jobId) => {
          polledRunning = undefined;
          pollWait = undefined;
          resolve(jobId);
        };
      });
      return pollWait;
    },
    warehouse(opts = {}) {
      const authClient = new OAuth2Client();
      authClient.setCredentials({ access_token: 'fake-token', expiry_date: Date.now() + 3_600_000 });
      return new BigQueryWarehouse({
        projectId: PROJECT,
        location: 'US',
        maximumBytesBilled: opts.maximumBytesBilled ?? 100 * 1024 * 1024,
        apiEndpoint,
        authClient: authClient as never,
      });
    },
    async close() {
      faults = new Map();
      await app.close();
      await engine.close();
    },
  };
}
