/**
 * The offline model stand-in: a local HTTP server that speaks Gemini's `generateContent` wire
 * format, so the real `@google/genai` client path runs in the demo and the tests with no account.
 *
 * Answers come from per-task rules that read the prompt's tagged sections (see
 * `backends/model/prompt.ts`). Faults are switchable at start (`STANDIN_FAULTS` JSON) or at run
 * time (`PUT /__standin/faults`): 429/503 bursts and rates, latency, hangs, malformed JSON and
 * schema-violating JSON, optionally limited to some tasks.
 */
import { geminiSchemaProblems } from '../backends/model/gemini-schema';
import Fastify, { type FastifyInstance } from 'fastify';
import { z } from 'zod';
import { readSections, readTask } from '../backends/model/prompt';
import { loadStandinRules } from '../flows/registry';
import type { StandinRule } from '../flows/lib/standin';
import { mulberry32 } from '../contracts/common';
import { faultSettingsSchema } from '../plumbing/standin-faults';
import { logDestination, loggerOptions } from '../plumbing/logger';

// The schema lives with the configuration (STANDIN_FAULTS is validated at process start).
export { faultSettingsSchema };
export type FaultSettings = z.output<typeof faultSettingsSchema>;
export type FaultSettingsInput = z.input<typeof faultSettingsSchema>;

export interface StandinStats {
  requests: number;
  answered: number;
  byTask: Record<string, number>;
  faults: Record<string, number>;
  promptTokens: number;
  outputTokens: number;
}

const requestSchema = z
  .object({
    contents: z.array(
      z.object({ role: z.string().optional(), parts: z.array(z.object({ text: z.string().optional() }).loose()) }),
    ),
    systemInstruction: z
      .object({ parts: z.array(z.object({ text: z.string().optional() }).loose()) })
      .loose()
      .optional(),
    generationConfig: z.object({ responseJsonSchema: z.unknown().optional() }).loose().optional(),
  })
  .loose();

/** The longest task id the stand-in reads from a prompt, and how many distinct ones its stats count. */
const MAX_TASK_CHARS = 100;
const MAX_COUNTED_TASKS = 1_000;

/** About four characters per token, as Gemini's tokenizer gives for English text. */
export const estimateTokens = (text: string): number => Math.max(1, Math.ceil(text.length / 4));

function findRule(rules: StandinRule[], task: string): StandinRule | undefined {
  return (
    rules.find((r) => r.task === task) ??
    rules.find((r) =>
      r.task.endsWith('*') ? task.startsWith(r.task.slice(0, -1)) : r.task.endsWith('.') && task.startsWith(r.task),
    )
  );
}

/** Breaks one field's type so the reply is valid JSON that fails the caller's schema. */
function violateSchema(answer: unknown): unknown {
  if (Array.isArray(answer)) return { notAnArray: true };
  if (answer && typeof answer === 'object') {
    const entries = Object.entries(answer as Record<string, unknown>);
    if (entries.length === 0) return [];
    const [key, value] = entries[0];
    const wrong = typeof value === 'string' ? 12345 : typeof value === 'number' ? 'not-a-number' : 'wrong-type';
    return { ...(answer as object), [key]: wrong };
  }
  return { unexpected: answer };
}

/** The status name Google's JSON errors carry for each HTTP status (shared with the test fakes). */
export const STATUS_NAMES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
};

export interface StandinServer {
  url: string;
  port: number;
  app: FastifyInstance;
  setFaults(settings: FaultSettingsInput): void;
  stats(): StandinStats;
  resetStats(): void;
  close(): Promise<void>;
}

export async function startStandin(
  options: {
    host?: string;
    port?: number;
    faults?: FaultSettingsInput;
    rules?: StandinRule[];
    log?: boolean;
  } = {},
): Promise<StandinServer> {
  const rules = options.rules ?? (await loadStandinRules());
  let faults = faultSettingsSchema.parse(options.faults ?? {});
  // One PRNG for every task, and one per prefix that `seeds` names.
  const streams = (f: FaultSettings) => ({
    shared: mulberry32(f.seed),
    byPrefix: Object.entries(f.seeds ?? {}).map(([prefix, seed]) => ({ prefix, next: mulberry32(seed) })),
  });
  let random = streams(faults);
  const randomFor = (task: string) => random.byPrefix.find((s) => task.startsWith(s.prefix))?.next ?? random.shared;
  let burst429 = faults.burst429;
  let burst503 = faults.burst503;
  const emptyStats = (): StandinStats => ({
    requests: 0,
    answered: 0,
    byTask: {},
    faults: {},
    promptTokens: 0,
    outputTokens: 0,
  });
  let stats = emptyStats();
  const setFaults = (input: FaultSettingsInput) => {
    faults = faultSettingsSchema.parse(input);
    random = streams(faults);
    burst429 = faults.burst429;
    burst503 = faults.burst503;
  };
  const countFault = (kind: string) => {
    stats.faults[kind] = (stats.faults[kind] ?? 0) + 1;
  };

  const app = Fastify({
    // The processes' shared logger configuration (plumbing/logger.ts): same fields, redaction, stdout.
    logger: options.log ? { ...loggerOptions({ component: 'standin' }), stream: logDestination() } : false,
    bodyLimit: 32 * 1024 * 1024,
    forceCloseConnections: true,
  });

  // A latency or hang fault still waiting when the stand-in closes would keep its timer (and the
  // process) alive for up to its whole length after the server is gone: close drops them.
  const waits = new Set<NodeJS.Timeout>();
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        waits.delete(timer);
        resolve();
      }, ms);
      waits.add(timer);
    });

  const fail = (reply: import('fastify').FastifyReply, code: number, message: string) =>
    reply.code(code).send({ error: { code, message, status: STATUS_NAMES[code] ?? 'UNKNOWN' } });

  // Its callers are the model clients of the worker and the tests, never a browser. A browser names
  // the Origin of every request that can change something (PUT, POST), same-origin ones included,
  // so refusing those keeps a web page, or a DNS-rebinding one posing as this host, from switching
  // faults on (every model call failing) or sending it work.
  app.addHook('onRequest', async (req, reply) => {
    if (req.headers.origin !== undefined) return fail(reply, 403, 'the stand-in does not answer browsers');
  });

  app.get('/healthz', async () => ({ ok: true, rules: rules.length }));
  app.get('/__standin/stats', async () => stats);
  app.get('/__standin/rules', async () => rules.map((r) => ({ task: r.task, description: r.description })));
  app.post('/__standin/reset', async () => {
    stats = emptyStats();
    return { ok: true };
  });
  app.get('/__standin/faults', async () => faults);
  app.put('/__standin/faults', async (req, reply) => {
    const parsed = faultSettingsSchema.safeParse(req.body ?? {});
    if (!parsed.success) return reply.code(400).send({ error: parsed.error.issues });
    setFaults(req.body as FaultSettingsInput);
    return faults;
  });

  // Gemini API path: /v1beta/models/{model}:generateContent. The segment holds "model:method".
  app.post('/:version/models/:modelAction', async (req, reply) => {
    const { modelAction } = req.params as { modelAction: string };
    const [model, method] = modelAction.split(':');
    if (method !== 'generateContent')
      return fail(reply, 404, `method ${method ?? '(none)'} is not served by the stand-in`);
    stats.requests++;
    const body = requestSchema.safeParse(req.body);
    if (!body.success) return fail(reply, 400, `invalid generateContent request: ${body.error.issues[0]?.message}`);
    const system = (body.data.systemInstruction?.parts ?? []).map((p) => p.text ?? '').join('\n');
    const userTurns = body.data.contents.filter((c) => c.role !== 'model');
    const firstText = (userTurns[0]?.parts ?? []).map((p) => p.text ?? '').join('\n');
    const named = readTask(system);
    // Task ids are short (`discovery.plan`) and few. A longer name is nobody's task: kept in the
    // stats, or echoed in an error, a name of 32 MB per request would fill the memory for good.
    const task = named !== undefined && named.length <= MAX_TASK_CHARS ? named : 'unknown';
    const counted =
      Object.hasOwn(stats.byTask, task) || Object.keys(stats.byTask).length < MAX_COUNTED_TASKS ? task : '(others)';
    stats.byTask[counted] = (stats.byTask[counted] ?? 0) + 1;
    // As Gemini does: a response schema outside the supported subset is refused, so a schema the
    // real service would reject fails here, in every test and demo run, first.
    const schemaProblems = geminiSchemaProblems(body.data.generationConfig?.responseJsonSchema ?? {});
    if (schemaProblems.length)
      return fail(reply, 400, `${task}: unsupported responseJsonSchema: ${schemaProblems.slice(0, 3).join('; ')}`);

    if (faults.latencyMs > 0) await pause(faults.latencyMs);
    const faultsApply = !faults.tasks || faults.tasks.some((prefix) => task.startsWith(prefix));
    if (faultsApply) {
      if (faults.permanentStatus) {
        countFault(String(faults.permanentStatus));
        return fail(reply, faults.permanentStatus, `injected permanent fault ${faults.permanentStatus}`);
      }
      if (burst429 > 0) {
        burst429--;
        countFault('429');
        return fail(reply, 429, 'Resource has been exhausted (injected burst).');
      }
      if (burst503 > 0) {
        burst503--;
        countFault('503');
        return fail(reply, 503, 'The model is overloaded (injected burst).');
      }
      const roll = randomFor(task)();
      let edge = faults.rate429;
      if (roll < edge) {
        countFault('429');
        return fail(reply, 429, 'Resource has been exhausted (injected).');
      }
      if (roll < (edge += faults.rate503)) {
        countFault('503');
        return fail(reply, 503, 'The model is overloaded (injected).');
      }
      if (roll < (edge += faults.rateHang)) {
        countFault('hang');
        await pause(faults.hangMs);
      }
    }

    const rule = findRule(rules, task);
    if (!rule) return fail(reply, 400, `the stand-in has no rule for task "${task}"`);
    let answer: unknown;
    try {
      answer = await rule.answer({
        task,
        system,
        sections: readSections(firstText),
        responseSchema: body.data.generationConfig?.responseJsonSchema,
        turns: userTurns.length,
      });
    } catch (err) {
      // A rule may say the request is one it must refuse for good (a test's scripted model asked
      // for more than it scripted): a 4xx status ends the call at once instead of being retried.
      const status = (err as { status?: unknown }).status;
      const code = typeof status === 'number' && status >= 400 && status < 500 ? status : 500;
      return fail(reply, code, `stand-in rule for ${task} failed: ${err instanceof Error ? err.message : String(err)}`);
    }
    let text = JSON.stringify(answer);
    if (faultsApply) {
      const roll = randomFor(task)();
      if (roll < faults.rateMalformed) {
        countFault('malformed');
        text = text.slice(0, Math.max(1, Math.floor(text.length / 2)));
      } else if (roll < faults.rateMalformed + faults.rateSchemaViolation) {
        countFault('schema');
        text = JSON.stringify(violateSchema(answer));
      }
    }
    const promptTokenCount =
      estimateTokens(system) +
      body.data.contents.reduce((n, c) => n + estimateTokens(c.parts.map((p) => p.text ?? '').join('')), 0);
    const candidatesTokenCount = estimateTokens(text);
    stats.answered++;
    stats.promptTokens += promptTokenCount;
    stats.outputTokens += candidatesTokenCount;
    return {
      candidates: [{ content: { role: 'model', parts: [{ text }] }, finishReason: 'STOP', index: 0 }],
      usageMetadata: {
        promptTokenCount,
        candidatesTokenCount,
        totalTokenCount: promptTokenCount + candidatesTokenCount,
      },
      modelVersion: `standin-${model}`,
    };
  });

  await app.listen({ host: options.host ?? '127.0.0.1', port: options.port ?? 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : (options.port ?? 0);
  const url = `http://${options.host ?? '127.0.0.1'}:${port}`;
  return {
    url,
    port,
    app,
    setFaults,
    stats: () => structuredClone(stats),
    resetStats: () => {
      stats = emptyStats();
    },
    async close() {
      await app.close();
      for (const timer of waits) clearTimeout(timer);
      waits.clear();
    },
  };
}
