/**
 * The one configuration of the worker process, read from the environment (and `.env`).
 *
 * Every setting the backends, the worker and the local stack use is declared here, so an
 * invalid value stops the process at start with the variable's name and what was expected,
 * instead of failing later inside an activity. README.md documents each variable.
 */
import dotenv from 'dotenv';
import { z } from 'zod';

const port = z.coerce.number().int().min(0).max(65535);
const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');
const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()));

// --- network-facing security settings (control plane, codec endpoint, MCP HTTP; issue 12) ---
/** Comma-separated host names (no scheme or port), e.g. `control-plane,cp.example.com`. */
const hostList = z
  .string()
  .optional()
  .transform((v, ctx) => {
    const names = (v ?? '').split(',').map((h) => h.trim().toLowerCase()).filter(Boolean);
    const bad = names.find((h) => !/^(\[[0-9a-f:.]+\]|[a-z0-9._-]{1,253})$/.test(h));
    if (bad !== undefined) {
      const entry = JSON.stringify(bad.slice(0, 60));
      const message = `expected comma-separated host names without scheme or port (bad entry: ${entry})`;
      ctx.addIssue({ code: 'custom', message });
      return z.NEVER;
    }
    return names;
  });
const wholeNumber = (min: number, max: number) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v.trim() === '') return undefined;
      if (!/^\d+$/.test(v.trim()) || Number(v) < min || Number(v) > max) {
        ctx.addIssue({ code: 'custom', message: `expected a whole number from ${min} to ${max}` });
        return z.NEVER;
      }
      return Number(v);
    });
export const networkSecuritySettings = {
  /** Bearer token of the registration routes (register, heartbeat, deregister); default CONTROL_PLANE_TOKEN. */
  CONTROL_PLANE_REGISTRATION_TOKEN: optionalString,
  /** Host names the control plane answers to besides localhost and its listen address. */
  CONTROL_PLANE_ALLOWED_HOSTS: hostList,
  /** Largest registration body (bytes); 413 above it. */
  CONTROL_PLANE_MAX_MANIFEST_BYTES: wholeNumber(1024, 64 * 1024 * 1024).transform((v) => v ?? 1024 * 1024),
  /** Deepest nesting of objects/arrays in a registration (its JSON schemas); 400 above it. */
  CONTROL_PLANE_MAX_SCHEMA_DEPTH: wholeNumber(8, 1000).transform((v) => v ?? 64),
  /** Bearer token the codec endpoint requires (`temporal --codec-auth "Bearer <token>"`). */
  CODEC_AUTH_TOKEN: optionalString,
  /** Open MCP HTTP sessions at most; an `initialize` beyond it is answered 503. */
  MCP_MAX_SESSIONS: wholeNumber(1, 10_000).transform((v) => v ?? 100),
  /** An MCP HTTP session with no request and no running call for this long is closed. */
  MCP_SESSION_IDLE_MS: wholeNumber(1000, 24 * 60 * 60 * 1000).transform((v) => v ?? 10 * 60 * 1000),
};

/** Parses some settings alone (e.g. the MCP server's), reporting problems as parseConfig does. */
export function parseSettings<T extends z.ZodRawShape>(
  shape: T,
  env: Record<string, string | undefined>,
): z.output<z.ZodObject<T>> {
  const result = z.object(shape).safeParse(env);
  if (result.success) return result.data;
  // Never the value: some of these settings are secrets.
  throw new ConfigError(result.error.issues.map((i) => `${i.path.join('.') || '(configuration)'}: ${i.message}`));
}
// --- end of network-facing security settings ---

export const configSchema = z
  .object({
    /** Which model backend answers the flows' model calls. Default: gemini when a key is set. */
    AGENT_FLOWS_MODEL: z.enum(['standin', 'gemini', 'vertex']).optional(),
    GEMINI_API_KEY: optionalString,
    GOOGLE_API_KEY: optionalString,
    GEMINI_MODEL: z.string().min(1).default('gemini-2.5-flash'),
    /** Points the real @google/genai client at another endpoint (the stand-in, a fake, a proxy). */
    GOOGLE_GEMINI_BASE_URL: z.url().optional(),
    GOOGLE_CLOUD_PROJECT: optionalString,
    GOOGLE_CLOUD_LOCATION: z.string().min(1).default('us-central1'),
    MODEL_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(60_000),
    /** How many times a reply that fails schema validation is sent back to the model with the error. */
    MODEL_MAX_REPAIRS: z.coerce.number().int().min(0).max(5).default(2),

    STANDIN_HOST: z.string().min(1).default('127.0.0.1'),
    STANDIN_PORT: port.default(8765),

    AGENT_FLOWS_WAREHOUSE: z.enum(['duckdb', 'bigquery']).default('duckdb'),
    /** DuckDB database file; ':memory:' builds the demo datasets in memory at start. */
    DUCKDB_PATH: z.string().min(1).default(':memory:'),
    BIGQUERY_PROJECT: optionalString,
    BIGQUERY_LOCATION: z.string().min(1).default('US'),
    BIGQUERY_API_ENDPOINT: z.url().optional(),
    /** Cost cap per query, in bytes (100 MB as in the BOM seed). */
    BIGQUERY_MAX_BYTES_BILLED: z.coerce.number().int().positive().default(100 * 1024 * 1024),

    AGENT_FLOWS_SEARCH: z.enum(['embedded', 'vertex']).default('embedded'),
    VERTEX_SEARCH_PROJECT: optionalString,
    VERTEX_SEARCH_LOCATION: z.string().min(1).default('global'),
    /** Data store id per collection is `<prefix><collection>` unless VERTEX_SEARCH_SERVING_CONFIGS maps it. */
    VERTEX_SEARCH_DATASTORE_PREFIX: z.string().default('agent-flows-'),
    /** JSON object: collection name -> full servingConfig resource name. */
    VERTEX_SEARCH_SERVING_CONFIGS: z
      .string()
      .optional()
      .transform((v, ctx) => {
        if (!v) return {} as Record<string, string>;
        try {
          return z.record(z.string(), z.string().min(1)).parse(JSON.parse(v));
        } catch {
          ctx.addIssue({ code: 'custom', message: 'expected a JSON object of collection -> servingConfig' });
          return z.NEVER;
        }
      }),
    /** host[:port] of the Discovery Engine API (tests point it at a local fake). */
    DISCOVERY_ENGINE_API_ENDPOINT: optionalString,

    /** Where activities write large artifacts (PDFs, result files); only paths go into history. */
    ARTIFACT_DIR: z.string().min(1).default('out'),
    WORKER_METRICS_PORT: port.default(9464),
    /** Address of the worker's Prometheus endpoint: 0.0.0.0 where a scraper runs outside the container. */
    WORKER_METRICS_HOST: z.string().min(1).default('127.0.0.1'),
    WORKER_MAX_CONCURRENT_ACTIVITIES: z.coerce.number().int().min(1).max(1000).default(100),
    // The SDK sizes the workflow cache from the heap (~2,300 on a 4 GB heap), so it never evicts and
    // memory grows with open flows; a fixed cache bounds it. Keep it above the flows open at once
    // (EADS interviews count twice: the interview and its pursuit): a smaller cache replays evicted
    // workflows on every task (p95 3-4x worse, measured in bench/load.ts).
    WORKER_MAX_CACHED_WORKFLOWS: z.coerce.number().int().min(2).max(10000).default(400),
    /** Workflow tasks run at once (each holds a cached workflow): at most WORKER_MAX_CACHED_WORKFLOWS. */
    WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: z.coerce.number().int().min(2).max(1000).default(40),

    TEMPORAL_UI_PORT: port.default(8233),
    /** Dev-server database file: state survives a restart of `npm start`. */
    TEMPORAL_DB_FILE: z.string().min(1).default('.temporal/dev.db'),
    TEMPORAL_CLI_PATH: optionalString,
    TEMPORAL_UI_URL: z.url().optional(),
    CONTROL_PLANE_HOST: z.string().min(1).default('127.0.0.1'),
    CONTROL_PLANE_PORT: port.default(8080),
    // --- flow settings: one block per flow, each variable prefixed with the flow's name ---
    PROPOSAL_LITERATURE_COLLECTION: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/).default('literature'), // writeResearchProposal: search collection with the literature

    BOM_DATASET: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/).default('bom_demo'), // answerBomQuestion: dataset with item_master and bom_details
    BOM_RAG_ENABLED: bool.default(true), // answerBomQuestion: search schema docs and query patterns first (input ragEnabled overrides)
    BOM_MAX_STRATEGIES: z.coerce.number().int().min(1).max(3).default(3), // answerBomQuestion: strategies of the refinement loop (input maxStrategies overrides)
    BOM_QUERY_REUSE_ENABLED: bool.default(true), // answerBomQuestion: reuse validated query patterns from data/search/bom-query-patterns.json
    BOM_QUERY_REUSE_THRESHOLD: z.coerce.number().min(0).max(1).default(0.85), // answerBomQuestion: similarity needed to reuse a pattern
    EADS_LIBRARY_DIRS: z.string().min(1).default('data/eads'), // runEadsInterview: EADS library directories (path-delimiter separated, relative to the project root)
    EADS_FIXTURES_DIR: z.string().min(1).default('data/eads-fixtures'), // runEadsInterview: surrogate-expert firm fixtures
    CONTROL_PLANE_URL: z.url().optional(), // control plane: the worker registers its manifest there when set (npm start sets it)
    CONTROL_PLANE_TOKEN: optionalString, // control plane: bearer token required on /api/* and sent by the worker, when set
    CONTROL_PLANE_STORE: z.string().min(1).default('.temporal/control-plane-agents.jsonl'), // control plane: registration journal (survives restarts)
    CONTROL_PLANE_AGENT_ID: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/).default('agent-flows'), // control plane: agent id our worker registers as
    CONTROL_PLANE_HEARTBEAT_MS: z.coerce.number().int().min(1000).max(300_000).default(10_000), // control plane: worker heartbeat interval (stale after 3 intervals)
    CONTROL_PLANE_CACHE_TTL_MS: z.coerce.number().int().min(0).max(3_600_000).default(30_000), // control plane: discovery cache TTL
    // --- end of flow settings ---
    /** 32 bytes, base64: encrypts workflow payloads in Temporal history (AES-256-GCM). Unset: plaintext. */
    AGENT_FLOWS_PAYLOAD_KEY: z
      .string()
      .optional()
      .refine((v) => v === undefined || v.trim() === '' || Buffer.from(v.trim(), 'base64').length === 32, 'expected 32 bytes, base64-encoded (openssl rand -base64 32)'),
    /** Port of the codec endpoint the Web UI calls to show encrypted payloads (npm start, with a key). */
    CODEC_PORT: port.default(8234),
    /** Where the standalone codec endpoint (`npm run codec`) listens; 0.0.0.0 in a container. */
    CODEC_HOST: z.string().min(1).default('127.0.0.1'),
    ...networkSecuritySettings,
    LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
    VERBOSE_STANDIN: bool.default(false),
  })
  .superRefine((c, ctx) => {
    const model = c.AGENT_FLOWS_MODEL ?? (c.GEMINI_API_KEY || c.GOOGLE_API_KEY ? 'gemini' : 'standin');
    if (model === 'gemini' && !c.GEMINI_API_KEY && !c.GOOGLE_API_KEY) {
      ctx.addIssue({ code: 'custom', path: ['GEMINI_API_KEY'], message: 'required when AGENT_FLOWS_MODEL=gemini' });
    }
    if (model === 'vertex' && !c.GOOGLE_CLOUD_PROJECT) {
      ctx.addIssue({ code: 'custom', path: ['GOOGLE_CLOUD_PROJECT'], message: 'required when AGENT_FLOWS_MODEL=vertex' });
    }
    if (c.AGENT_FLOWS_WAREHOUSE === 'bigquery' && !c.BIGQUERY_PROJECT && !c.GOOGLE_CLOUD_PROJECT) {
      ctx.addIssue({ code: 'custom', path: ['BIGQUERY_PROJECT'], message: 'required when AGENT_FLOWS_WAREHOUSE=bigquery' });
    }
    if (c.AGENT_FLOWS_SEARCH === 'vertex' && !c.VERTEX_SEARCH_PROJECT && !c.GOOGLE_CLOUD_PROJECT) {
      ctx.addIssue({ code: 'custom', path: ['VERTEX_SEARCH_PROJECT'], message: 'required when AGENT_FLOWS_SEARCH=vertex' });
    }
    if (c.WORKER_MAX_CONCURRENT_WORKFLOW_TASKS > c.WORKER_MAX_CACHED_WORKFLOWS) {
      const message = `at most WORKER_MAX_CACHED_WORKFLOWS (${c.WORKER_MAX_CACHED_WORKFLOWS})`;
      ctx.addIssue({ code: 'custom', path: ['WORKER_MAX_CONCURRENT_WORKFLOW_TASKS'], message });
    }
  })
  .transform((c) => ({
    ...c,
    model: c.AGENT_FLOWS_MODEL ?? ((c.GEMINI_API_KEY || c.GOOGLE_API_KEY ? 'gemini' : 'standin') as 'standin' | 'gemini' | 'vertex'),
    geminiApiKey: c.GEMINI_API_KEY ?? c.GOOGLE_API_KEY,
  }));

export type Config = z.output<typeof configSchema>;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Parses a configuration from an environment map; throws ConfigError naming each bad variable. */
export function parseConfig(env: Record<string, string | undefined>): Config {
  const result = configSchema.safeParse(env);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const name = issue.path.join('.') || '(configuration)';
    const provided = issue.path.length === 1 ? env[String(issue.path[0])] : undefined;
    return `${name}: ${issue.message}${provided !== undefined ? ` (got ${JSON.stringify(provided)})` : ''}`;
  });
  throw new ConfigError(problems);
}

/** Reads `.env` (if present, never overriding the real environment) and parses process.env. */
export function loadConfig(): Config {
  dotenv.config({ quiet: true });
  return parseConfig(process.env);
}
