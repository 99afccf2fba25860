/**
 * The one configuration of the worker process, read from the environment (and `.env`).
 *
 * Every setting the backends, the worker and the local stack use is declared here, so an
 * invalid value stops the process at start with the variable's name and what was expected,
 * instead of failing later inside an activity. README.md documents each variable.
 */
import dotenv from 'dotenv';
import { z } from 'zod';
import { faultSettingsSchema } from './standin-faults';

/**
 * Whole numbers written as digits only: coercion took "" as 0 and "1e3" as 1000, so an empty
 * CONTROL_PLANE_PORT silently became "any port".
 */
const int = (min: number, max: number) =>
  z
    .string()
    .regex(/^-?\d+$/, 'expected a whole number (digits only)')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));
const decimal = (min: number, max: number) =>
  z
    .string()
    .regex(/^-?\d+(\.\d+)?$/, 'expected a number such as 0.85')
    .transform(Number)
    .pipe(z.number().min(min).max(max));
const port = int(0, 65535);
/** A JSON setting: parsed, then checked against `schema` (problems name the variable and the key). */
const jsonSetting = <S extends z.ZodType>(schema: S, expected: string) =>
  z.string().transform((v, ctx): z.output<S> => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(v);
    } catch {
      ctx.addIssue({ code: 'custom', message: `expected ${expected} (not valid JSON)` });
      return z.NEVER;
    }
    const result = schema.safeParse(parsed);
    if (result.success) return result.data;
    const first = result.error.issues[0];
    ctx.addIssue({
      code: 'custom',
      message: `expected ${expected}: ${first?.path.join('.') || '(value)'}: ${first?.message ?? 'invalid'}`.slice(
        0,
        300,
      ),
    });
    return z.NEVER;
  });
/** A 32-byte AES key, base64-encoded. */
const isPayloadKey = (v: string) => /^[A-Za-z0-9+/=_-]+$/.test(v) && Buffer.from(v, 'base64').length === 32;
const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');
/**
 * Sentence-embedding model for offline search and the stand-in's matching: `auto` uses (and on
 * first start installs) the project-local all-MiniLM-L6-v2 in .tools/, `off` keeps the keyword
 * index, anything else is a directory holding model.onnx and tokenizer.json.
 */
export const embeddingModelSetting = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? 'auto' : v.trim()));
/** An empty value (`ARTIFACT_BUCKET=` in .env, `${VAR:-}` in compose) is an unset one. */
const unsetWhenEmpty = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (typeof v === 'string' && v.trim() === '' ? undefined : v), schema);

const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()));

// --- network-facing security settings (control plane, codec endpoint, MCP HTTP) ---
/** Comma-separated host names (no scheme or port), e.g. `control-plane,cp.example.com`. */
const hostList = z
  .string()
  .optional()
  .transform((v, ctx) => {
    const names = (v ?? '')
      .split(',')
      .map((h) => h.trim().toLowerCase())
      .filter(Boolean);
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
/** Tracing (plumbing/tracing.ts): also read alone by the thin clients, which load no other setting. */
export const tracingSettings = {
  /** OTLP/HTTP collector base URL (e.g. http://localhost:4318): traces are exported there; unset = off. */
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url().optional(),
  /** Service name on exported spans; default per process (agent-flows-worker, -control-plane, ...). */
  OTEL_SERVICE_NAME: optionalString,
};

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
  /**
   * Open MCP HTTP sessions at most; a new one closes an idle one first (503 only when every
   * session has a call running).
   */
  MCP_MAX_SESSIONS: wholeNumber(1, 10_000).transform((v) => v ?? 100),
  /** Open MCP HTTP sessions one client (remote address) holds at most; default a quarter of MCP_MAX_SESSIONS. */
  MCP_MAX_SESSIONS_PER_CLIENT: wholeNumber(1, 10_000),
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

/**
 * Variables the entry points read besides the worker settings above (Temporal connection, the
 * stand-in's faults, the MCP server): validated here too, so a bad value stops the process at
 * start naming the variable instead of being taken as a default or failing later.
 */
const processSettings = {
  /** host:port of the Temporal frontend (the SDK and `temporal` CLI variable); default 127.0.0.1:7233. */
  TEMPORAL_ADDRESS: z
    .string()
    .optional()
    .refine(
      (v) =>
        v === undefined ||
        (/^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9]([A-Za-z0-9.-]{0,252}[A-Za-z0-9])?):\d{1,5}$/.test(v.trim()) &&
          Number(v.trim().split(':').pop()) <= 65535),
      'expected host:port, e.g. 127.0.0.1:7233',
    )
    .transform((v) => v?.trim()),
  TEMPORAL_NAMESPACE: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,254}$/, 'expected a namespace name')
    .optional(),
  /** JSON fault settings for the stand-in (npm start, npm run standin), e.g. {"rate503":0.2}. */
  STANDIN_FAULTS: jsonSetting(faultSettingsSchema, 'a JSON object of fault settings, e.g. {"rate503":0.2}').optional(),
  MCP_HOST: z.string().min(1).default('127.0.0.1'),
  MCP_PORT: port.default(8787),
  /** Bearer token every MCP HTTP request must carry, when set. */
  MCP_TOKEN: optionalString,
  /**
   * Keys the workflow ids of MCP tool calls, so a retried call attaches across MCP server
   * restarts and replicas; default a random key per process. At least 16 characters.
   */
  MCP_WORKFLOW_ID_SECRET: optionalString.refine(
    (v) => v === undefined || v.length >= 16,
    'expected at least 16 characters (openssl rand -base64 32)',
  ),
  /** Tests only: the queue the MCP server starts flows on. */
  MCP_TASK_QUEUE: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/, 'expected a task queue name')
    .optional(),
};

/** Variables whose values are secrets: never printed, and redacted from backend errors. */
export const SECRET_VARIABLES: readonly string[] = [
  'AGENT_FLOWS_PAYLOAD_KEY',
  'AGENT_FLOWS_PAYLOAD_OLD_KEYS',
  'GEMINI_API_KEY',
  'GOOGLE_API_KEY',
  'OPENAI_API_KEY',
  'CONTROL_PLANE_TOKEN',
  'CODEC_AUTH_TOKEN',
  'MCP_TOKEN',
  'TEMPORAL_API_KEY',
];
/** Any variable named like a credential counts as secret too (settings added later included). */
export function isSecretVariable(name: string): boolean {
  // A credential's name may end in a word of its own kind (…_KEY) or in how it is given (…_KEY_DATA,
  // …_TOKEN_FILE_CONTENT): any credential word at the end or followed only by such a suffix.
  return (
    SECRET_VARIABLES.includes(name) ||
    /(KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL)S?(_(DATA|VALUE|CONTENTS?|B64|BASE64|PEM|JSON))?$/i.test(name)
  );
}

/** The secret values set in an environment (for redaction). */
export function secretValues(env: Record<string, string | undefined>): string[] {
  return Object.entries(env)
    .filter(([name, value]) => isSecretVariable(name) && value)
    .flatMap(([, value]) => value!.split(',').map((v) => v.trim()))
    .filter((v) => v.length >= 8);
}

export const configSchema = z
  .object({
    /** Which model backend answers the flows' model calls. Default: gemini when a key is set. */
    AGENT_FLOWS_MODEL: z.enum(['standin', 'gemini', 'vertex', 'openai']).optional(),
    GEMINI_API_KEY: optionalString,
    GOOGLE_API_KEY: optionalString,
    GEMINI_MODEL: z.string().min(1).default('gemini-2.5-flash'),
    /** Points the real @google/genai client at another endpoint (the stand-in, a fake, a proxy). */
    GOOGLE_GEMINI_BASE_URL: z.url().optional(),
    GOOGLE_CLOUD_PROJECT: optionalString,
    /**
     * AGENT_FLOWS_MODEL=openai: the Chat Completions API's base URL (OpenAI, or a compatible server:
     * Ollama `http://127.0.0.1:11434/v1`, llama.cpp's server, `npm run local-model`).
     */
    OPENAI_BASE_URL: z
      .url({ protocol: /^https?$/, error: 'expected an http(s) URL such as http://127.0.0.1:8081/v1' })
      // fetch refuses a URL with user:password@ (every call would fail as "unreachable", retried
      // without end), and the password would sit in a setting that is not treated as a secret.
      .refine((url) => !/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(url), {
        error: 'must not contain credentials (user:password@); put the key in OPENAI_API_KEY',
      })
      .default('https://api.openai.com/v1'),
    /** AGENT_FLOWS_MODEL=openai: the model's name as the server knows it (required). */
    OPENAI_MODEL: optionalString,
    /** AGENT_FLOWS_MODEL=openai: the API key (a secret: only from the environment); local servers need none. */
    OPENAI_API_KEY: optionalString,
    GOOGLE_CLOUD_LOCATION: z.string().min(1).default('us-central1'),
    MODEL_TIMEOUT_MS: int(100, 600_000).default(60_000),
    /** How many times a reply that fails schema validation is sent back to the model with the error. */
    MODEL_MAX_REPAIRS: int(0, 5).default(2),
    /**
     * What the model charges, in US dollars per million tokens (prompt and output): set both and
     * the worker's metrics estimate the cost of each model call; unset, no cost is shown.
     */
    MODEL_PRICE_INPUT_USD_PER_MTOK: decimal(0, 1_000_000).optional(),
    MODEL_PRICE_OUTPUT_USD_PER_MTOK: decimal(0, 1_000_000).optional(),

    STANDIN_HOST: z.string().min(1).default('127.0.0.1'),
    STANDIN_PORT: port.default(8765),

    AGENT_FLOWS_WAREHOUSE: z.enum(['duckdb', 'bigquery']).default('duckdb'),
    /** DuckDB database file; ':memory:' builds the demo datasets in memory at start. */
    DUCKDB_PATH: z.string().min(1).default(':memory:'),
    BIGQUERY_PROJECT: optionalString,
    BIGQUERY_LOCATION: z.string().min(1).default('US'),
    BIGQUERY_API_ENDPOINT: z.url().optional(),
    /** Cost cap per query, in bytes (100 MB as in the BOM seed). */
    BIGQUERY_MAX_BYTES_BILLED: int(1, Number.MAX_SAFE_INTEGER).default(100 * 1024 * 1024),

    AGENT_FLOWS_SEARCH: z.enum(['embedded', 'vertex']).default('embedded'),
    AGENT_FLOWS_EMBEDDING_MODEL: embeddingModelSetting,
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
    /** Embedded index: a table catalog JSON file (npm run catalog:import) used instead of the bundled one. */
    SEARCH_CATALOG: optionalString,
    /** Embedded index: a BibTeX or CSL-JSON library indexed beside the bundled literature corpus. */
    LITERATURE_FILE: optionalString,

    /** Where activities write large artifacts (PDFs, result files) with the local store; only references go into history. */
    ARTIFACT_DIR: z.string().min(1).default('out'),
    /** The artifact store: `gcs` (a bucket shared by every worker and control plane) or `local` (ARTIFACT_DIR). Default: gcs when ARTIFACT_BUCKET is set. */
    ARTIFACT_STORE: unsetWhenEmpty(z.enum(['local', 'gcs']).optional()),
    /** The Cloud Storage bucket of the gcs store (a bucket name, not a gs:// URI). */
    ARTIFACT_BUCKET: unsetWhenEmpty(
      z
        .string()
        .regex(
          /^[a-z0-9][a-z0-9._-]{1,220}[a-z0-9]$/,
          'expected a bucket name (lower-case letters, digits, . _ -), not a URI',
        )
        .optional(),
    ),
    /** The Cloud Storage emulator the client library sends requests to instead of Google (tests). */
    STORAGE_EMULATOR_HOST: unsetWhenEmpty(
      z
        .string()
        .regex(/^https?:\/\/[^/?#@\s]+\/?$/, 'expected http(s)://host:port')
        .optional(),
    ),
    /**
     * A workflow bundle file made from these sources (the test run's, or a pipeline's): the worker
     * uses it instead of bundling the workflows at start or looking for `npm run build`'s.
     */
    WORKFLOW_BUNDLE: unsetWhenEmpty(z.string().optional()),
    WORKER_METRICS_PORT: port.default(9464),
    /** Address of the worker's Prometheus endpoint: 0.0.0.0 where a scraper runs outside the container. */
    WORKER_METRICS_HOST: z.string().min(1).default('127.0.0.1'),
    WORKER_MAX_CONCURRENT_ACTIVITIES: int(1, 1000).default(100),
    // The SDK sizes the workflow cache from the heap (~2,300 on a 4 GB heap), so it never evicts and
    // memory grows with open flows; a fixed cache bounds it. Keep it above the flows open at once
    // (EADS interviews count twice: the interview and its pursuit): a smaller cache replays evicted
    // workflows on every task (p95 3-4x worse, measured in bench/load.ts).
    WORKER_MAX_CACHED_WORKFLOWS: int(2, 10000).default(400),
    /** Workflow tasks run at once (each holds a cached workflow): at most WORKER_MAX_CACHED_WORKFLOWS. */
    WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: int(2, 1000).default(40),

    TEMPORAL_UI_PORT: port.default(8233),
    /** Dev-server database file: state survives a restart of `npm start`. */
    TEMPORAL_DB_FILE: z.string().min(1).default('.temporal/dev.db'),
    TEMPORAL_CLI_PATH: optionalString,
    TEMPORAL_UI_URL: z.url().optional(),
    CONTROL_PLANE_HOST: z.string().min(1).default('127.0.0.1'),
    CONTROL_PLANE_PORT: port.default(8080),
    // --- flow settings: one block per flow, each variable prefixed with the flow's name ---
    PROPOSAL_LITERATURE_COLLECTION: z
      .string()
      .regex(/^[a-z0-9][a-z0-9_-]{0,63}$/)
      .default('literature'), // writeResearchProposal: search collection with the literature
    PROPOSAL_LITERATURE_SOURCE: z.enum(['web', 'index']).default('web'), // writeResearchProposal: with Gemini, 'web' reviews literature found by Google Search grounding; 'index' keeps the search collection (offline always uses the collection)

    BOM_DATASET: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/)
      .default('bom_demo'), // answerBomQuestion: dataset with item_master and bom_details
    BOM_SCHEMA_MAPPING: z.string().trim().min(1).max(1000).optional(), // answerBomQuestion: JSON file saying where the BOM lines and items are in the warehouse (docs/bom.md, "Your own schema"); unset: the demo's item_master and bom_details
    BOM_RAG_ENABLED: bool.default(true), // answerBomQuestion: search schema docs and query patterns first (input ragEnabled overrides)
    BOM_MAX_STRATEGIES: int(1, 3).default(3), // answerBomQuestion: strategies of the refinement loop (input maxStrategies overrides)
    BOM_QUERY_REUSE_ENABLED: bool.default(true), // answerBomQuestion: reuse validated query patterns from data/search/bom-query-patterns.json
    BOM_QUERY_REUSE_THRESHOLD: decimal(0, 1).default(0.85), // answerBomQuestion: similarity needed to reuse a pattern
    EADS_LIBRARY_DIRS: z.string().min(1).default('data/eads'), // runEadsInterview: EADS library directories (path-delimiter separated, relative to the project root)
    EADS_FIXTURES_DIR: z.string().min(1).default('data/eads-fixtures'), // runEadsInterview: surrogate-expert firm fixtures
    SOLVER_TIME_LIMIT_SECONDS: decimal(0.1, 3600).default(30), // scheduleFromScr: the CP-SAT solver worker's cap on one solve
    SOLVER_WORKERS: int(1, 64).default(2), // scheduleFromScr: CP-SAT search threads per solve
    SOLVER_MAX_CONCURRENT: int(1, 64).default(2), // scheduleFromScr: searches the solver worker runs at once
    SOLVER_LONG_SLOTS: int(1, 64).optional(), // scheduleFromScr: of those, the most long jobs may hold (default: all but one, kept for short jobs)
    SOLVER_SHORT_JOB_SECONDS: decimal(0.1, 3600).default(10), // scheduleFromScr: a solve with a time limit up to this is a short job
    SOLVER_QUEUE: int(0, 10_000).default(64), // scheduleFromScr: requests the solver worker takes beyond the running ones, served in its fair order
    CONTROL_PLANE_URL: z.url().optional(), // control plane: the worker registers its manifest there when set (npm start sets it)
    CONTROL_PLANE_TOKEN: optionalString, // control plane: bearer token required on /api/* and sent by the worker, when set
    CONTROL_PLANE_STORE: z.string().min(1).default('.temporal/control-plane-agents.jsonl'), // control plane: registration journal (survives restarts)
    CONTROL_PLANE_AGENT_ID: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/)
      .default('agent-flows'), // control plane: agent id our worker registers as
    CONTROL_PLANE_HEARTBEAT_MS: int(1000, 300_000).default(10_000), // control plane: worker heartbeat interval (stale after 3 intervals)
    CONTROL_PLANE_CACHE_TTL_MS: int(0, 3_600_000).default(30_000), // control plane: discovery cache TTL
    // --- end of flow settings ---
    /** 32 bytes, base64: encrypts workflow payloads in Temporal history (AES-256-GCM). Unset: plaintext. */
    AGENT_FLOWS_PAYLOAD_KEY: z
      .string()
      .optional()
      .refine(
        (v) => v === undefined || v.trim() === '' || isPayloadKey(v.trim()),
        'expected 32 bytes, base64-encoded (openssl rand -base64 32)',
      ),
    /** Earlier keys, comma-separated: decrypt only, so history written before a key rotation stays readable. */
    AGENT_FLOWS_PAYLOAD_OLD_KEYS: z
      .string()
      .optional()
      .superRefine((v, ctx) => {
        const keys = (v ?? '')
          .split(',')
          .map((k) => k.trim())
          .filter(Boolean);
        const bad = keys.findIndex((k) => !isPayloadKey(k));
        if (bad >= 0)
          ctx.addIssue({
            code: 'custom',
            message: `key ${bad + 1} of ${keys.length}: expected 32 bytes, base64-encoded, comma-separated`,
          });
      }),
    /** Port of the codec endpoint the Web UI calls to show encrypted payloads (npm start, with a key). */
    CODEC_PORT: port.default(8234),
    /** Where the standalone codec endpoint (`npm run codec`) listens; 0.0.0.0 in a container. */
    CODEC_HOST: z.string().min(1).default('127.0.0.1'),
    ...networkSecuritySettings,
    // --- scale-out (docs/scale-out.md) ---
    ...tracingSettings,
    /** Where registrations live: a local journal (one instance) or a Temporal workflow (many instances). */
    CONTROL_PLANE_REGISTRY: z.enum(['journal', 'temporal']).default('journal'),
    /** Task queue of the `agentRegistry` workflow (the flow worker runs it). */
    CONTROL_PLANE_REGISTRY_TASK_QUEUE: z.string().min(1).default('agent-flows'),
    /** Workflow id of the shared registry (one per namespace). */
    CONTROL_PLANE_REGISTRY_ID: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/)
      .default('agent-registry'),
    /** How many registry workflows share the agents; fixed for a deployment (an agent's shard is a hash of its id). */
    CONTROL_PLANE_REGISTRY_SHARDS: z.coerce.number().int().min(1).max(256).default(32),
    /**
     * Shared registry: the secret every control-plane instance shares; the registry workflows accept
     * only changes signed with a key derived from it. Default: the registration token.
     */
    CONTROL_PLANE_REGISTRY_KEY: optionalString,
    /** How often each instance asks the shared registry whether another instance changed it. */
    CONTROL_PLANE_REGISTRY_POLL_MS: z.coerce.number().int().min(100).max(60_000).default(1000),
    LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
    VERBOSE_STANDIN: bool.default(false),
    ...processSettings,
  })
  .superRefine((c, ctx) => {
    const model = c.AGENT_FLOWS_MODEL ?? (c.GEMINI_API_KEY || c.GOOGLE_API_KEY ? 'gemini' : 'standin');
    if (model === 'gemini' && !c.GEMINI_API_KEY && !c.GOOGLE_API_KEY) {
      ctx.addIssue({ code: 'custom', path: ['GEMINI_API_KEY'], message: 'required when AGENT_FLOWS_MODEL=gemini' });
    }
    if (model === 'vertex' && !c.GOOGLE_CLOUD_PROJECT) {
      ctx.addIssue({
        code: 'custom',
        path: ['GOOGLE_CLOUD_PROJECT'],
        message: 'required when AGENT_FLOWS_MODEL=vertex',
      });
    }
    if (model === 'openai' && !c.OPENAI_MODEL) {
      const message = 'required when AGENT_FLOWS_MODEL=openai (the model name the server knows, e.g. gpt-4o-mini)';
      ctx.addIssue({ code: 'custom', path: ['OPENAI_MODEL'], message });
    }
    // OpenAI's own API refuses every call without a key: say so at start, not at the first call.
    // Compatible servers on other hosts (Ollama, llama.cpp) often need none.
    if (
      model === 'openai' &&
      !c.OPENAI_API_KEY &&
      /^https?:\/\/api\.openai\.com(:\d+)?(\/|$)/i.test(c.OPENAI_BASE_URL)
    ) {
      const message = 'required when AGENT_FLOWS_MODEL=openai and OPENAI_BASE_URL is api.openai.com';
      ctx.addIssue({ code: 'custom', path: ['OPENAI_API_KEY'], message });
    }
    if (c.AGENT_FLOWS_WAREHOUSE === 'bigquery' && !c.BIGQUERY_PROJECT && !c.GOOGLE_CLOUD_PROJECT) {
      ctx.addIssue({
        code: 'custom',
        path: ['BIGQUERY_PROJECT'],
        message: 'required when AGENT_FLOWS_WAREHOUSE=bigquery',
      });
    }
    if (c.AGENT_FLOWS_SEARCH === 'vertex' && !c.VERTEX_SEARCH_PROJECT && !c.GOOGLE_CLOUD_PROJECT) {
      ctx.addIssue({
        code: 'custom',
        path: ['VERTEX_SEARCH_PROJECT'],
        message: 'required when AGENT_FLOWS_SEARCH=vertex',
      });
    }
    // One price without the other would estimate a cost that looks right and is not.
    for (const [set, unset] of [
      ['MODEL_PRICE_INPUT_USD_PER_MTOK', 'MODEL_PRICE_OUTPUT_USD_PER_MTOK'],
      ['MODEL_PRICE_OUTPUT_USD_PER_MTOK', 'MODEL_PRICE_INPUT_USD_PER_MTOK'],
    ] as const) {
      if (c[set] !== undefined && c[unset] === undefined) {
        ctx.addIssue({ code: 'custom', path: [unset], message: `required when ${set} is set` });
      }
    }
    if (c.ARTIFACT_STORE === 'gcs' && !c.ARTIFACT_BUCKET) {
      ctx.addIssue({ code: 'custom', path: ['ARTIFACT_BUCKET'], message: 'required when ARTIFACT_STORE=gcs' });
    }
    if (c.ARTIFACT_STORE === 'local' && c.ARTIFACT_BUCKET) {
      // Two settings that disagree on where results live: say so at start rather than write locally.
      const message = 'set, but ARTIFACT_STORE=local does not use it (unset one of them)';
      ctx.addIssue({ code: 'custom', path: ['ARTIFACT_BUCKET'], message });
    }
    if (c.WORKER_MAX_CONCURRENT_WORKFLOW_TASKS > c.WORKER_MAX_CACHED_WORKFLOWS) {
      const message = `at most WORKER_MAX_CACHED_WORKFLOWS (${c.WORKER_MAX_CACHED_WORKFLOWS})`;
      ctx.addIssue({ code: 'custom', path: ['WORKER_MAX_CONCURRENT_WORKFLOW_TASKS'], message });
    }
  })
  .transform((c) => ({
    ...c,
    model:
      c.AGENT_FLOWS_MODEL ??
      ((c.GEMINI_API_KEY || c.GOOGLE_API_KEY ? 'gemini' : 'standin') as 'standin' | 'gemini' | 'vertex' | 'openai'),
    geminiApiKey: c.GEMINI_API_KEY ?? c.GOOGLE_API_KEY,
    artifactStore: c.ARTIFACT_STORE ?? ((c.ARTIFACT_BUCKET ? 'gcs' : 'local') as 'local' | 'gcs'),
    modelPrice:
      c.MODEL_PRICE_INPUT_USD_PER_MTOK !== undefined && c.MODEL_PRICE_OUTPUT_USD_PER_MTOK !== undefined
        ? {
            inputPerMillionTokens: c.MODEL_PRICE_INPUT_USD_PER_MTOK,
            outputPerMillionTokens: c.MODEL_PRICE_OUTPUT_USD_PER_MTOK,
          }
        : undefined,
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
    return `${name}: ${issue.message}${provided !== undefined ? ` (${describeValue(name, provided)})` : ''}`;
  });
  throw new ConfigError(problems);
}

/** What a bad value was, for the error: never a secret's value, and at most a short excerpt of any other. */
function describeValue(name: string, value: string): string {
  if (isSecretVariable(name)) return `a value of ${value.length} characters, not shown: it is a secret`;
  // A URL can carry credentials (user:password@, ?key=...): its user part, query and fragment are not shown.
  const safe = /(_URL|_ENDPOINT)$/.test(name)
    ? value.replace(/^([^/?#@]*\/\/)?[^/?#]*@/, '$1…@').replace(/[?#][^]*$/, '?…')
    : value;
  const shown = safe.length > 80 ? `${safe.slice(0, 80)}…` : safe;
  return `got ${JSON.stringify(shown)}${value.length > 80 ? ` (${value.length} characters)` : ''}`;
}

/** Reads `.env` (if present, never overriding the real environment) and parses process.env. */
export function loadConfig(): Config {
  dotenv.config({ quiet: true });
  return parseConfig(process.env);
}

/** For entry points: the configuration, or exit code 2 with the list of invalid variables. */
export function loadConfigOrExit(): Config {
  try {
    return loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(2);
    }
    throw err;
  }
}
