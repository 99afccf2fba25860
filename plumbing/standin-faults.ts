/**
 * The stand-in's fault injection settings: STANDIN_FAULTS (JSON, validated with the rest of the
 * configuration at process start) and the stand-in's `/faults` endpoint take this shape.
 */
import { z } from 'zod';

export const faultSettingsSchema = z.object({
  /** The next N requests fail with 429 / 503 (a burst), before rates apply. */
  burst429: z.number().int().min(0).default(0),
  burst503: z.number().int().min(0).default(0),
  /** Share of requests (0..1) that fail with 429 / 503 / a hang / malformed JSON / wrong-shaped JSON. */
  rate429: z.number().min(0).max(1).default(0),
  rate503: z.number().min(0).max(1).default(0),
  rateHang: z.number().min(0).max(1).default(0),
  rateMalformed: z.number().min(0).max(1).default(0),
  rateSchemaViolation: z.number().min(0).max(1).default(0),
  /** Every request fails with this status (e.g. 400 or 403): a permanent fault. */
  permanentStatus: z.number().int().min(400).max(599).optional(),
  /** Added to every answer, in ms. */
  latencyMs: z.number().int().min(0).max(600_000).default(0),
  /** How long a hang lasts before the server answers anyway (the client should time out first). */
  hangMs: z.number().int().min(0).max(600_000).default(120_000),
  /** Limit faults (not latency) to tasks starting with one of these prefixes. */
  tasks: z.array(z.string()).optional(),
  /** PRNG seed: the same seed and request order give the same faults. */
  seed: z.number().int().default(1),
  /**
   * Seeds of their own for tasks starting with a prefix (`{"eads.": 3}`): those tasks draw their
   * faults from a PRNG of their own, so flows run at the same time each meet the faults they
   * would meet alone, whatever the order their requests arrive in.
   */
  seeds: z.record(z.string(), z.number().int()).optional(),
});
