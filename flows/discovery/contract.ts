/**
 * `discoverFromPrp`: finds the warehouse tables that can feed the target schema of a
 * requirements document (PRP). A model plans one targeted search per conceptual group of target
 * columns, each search returns candidate tables from the table catalog, and each candidate is
 * validated by a model call against only that group's columns.
 *
 * Imported by workflow code: pure and deterministic (the section-9 parser below included).
 */
import { defineQuery } from '@temporalio/workflow';
import { z } from 'zod';
import { oneLine, slugify, tokenUsageSchema, type FlowDefinition } from '../../contracts/common';
import { columnSchema, extractTargetSchema, MAX_TARGET_COLUMNS, type Column } from './prp-schema';

/** The search collection holding one document per table (embedded: data/search/table-catalog.json). */
export const DISCOVERY_COLLECTION = 'table-catalog';

export { columnSchema, MAX_TARGET_COLUMNS, type Column };

/** What a validation is told of the whole requirement: its columns, each briefly. */
export interface DeliverableColumn {
  name: string;
  description?: string;
}

/** At most this many of the requirement's columns, each description this long, go with a validation. */
export const DELIVERABLE_LIMITS = { columns: 60, description: 160 } as const;

/**
 * The requirement's columns as a validation reads them: what the requirement as a whole is
 * about (a group's few columns often share only generic words, such as a date or an amount, with
 * tables of other subjects). Capped, since each validation carries it; a requirement may have
 * more columns than the cap (`MAX_TARGET_COLUMNS`), and then the validated group's own columns
 * (`group`) are always among them, with the requirement's first others, in the requirement's
 * order: otherwise a group of its later columns would be judged against a subject without them.
 */
export function deliverableOf(targetSchema: readonly Column[], group: readonly Column[] = []): DeliverableColumn[] {
  const own = new Set(group.map((c) => c.name));
  let others = Math.max(0, DELIVERABLE_LIMITS.columns - targetSchema.filter((c) => own.has(c.name)).length);
  return targetSchema
    .filter((c) => own.has(c.name) || others-- > 0)
    .slice(0, DELIVERABLE_LIMITS.columns)
    .map((c) => ({ name: c.name, ...(c.description ? { description: cut(c.description) } : {}) }));
}

/** At most the description limit, never half of a character written as two UTF-16 units. */
function cut(text: string): string {
  const end = DELIVERABLE_LIMITS.description;
  if (text.length <= end) return text;
  const last = text.charCodeAt(end - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? end - 1 : end);
}

export const discoverFromPrpInput = z
  .object({
    prp: z
      .string()
      .trim()
      .min(1, 'prp must not be empty')
      .max(200_000)
      .describe('The requirements document (PRP) as markdown'),
    targetSchema: z
      .array(columnSchema)
      .min(1)
      .max(MAX_TARGET_COLUMNS)
      .optional()
      .describe('Target columns; when absent they are read from the table in the PRP’s section 9'),
    maxCandidatesPerStep: z
      .number()
      .int()
      .min(1)
      .max(25)
      .default(5)
      .describe('How many candidate tables each search returns for validation'),
    concurrency: z
      .number()
      .int()
      .min(1)
      .max(200)
      .default(8)
      .describe('How many searches and validations run at the same time'),
  })
  .strict()
  .superRefine((input, ctx) => {
    // Section 9 is read here too (linear in the PRP), so a table the workflow could not plan for
    // is refused with the input instead of after the run has started.
    if (!input.targetSchema) {
      const columns = extractTargetSchema(input.prp, { anyTable: true }).length;
      if (columns > MAX_TARGET_COLUMNS)
        ctx.addIssue({
          code: 'custom',
          path: ['prp'],
          // Read from section 9, or without one from the first table of columns and types.
          message: `the target schema ${extractTargetSchema(input.prp).length ? 'in section 9' : 'table in the PRP'} has ${columns} columns; at most ${MAX_TARGET_COLUMNS}`,
        });
    }
    const seen = new Set<string>();
    input.targetSchema?.forEach((column, i) => {
      const key = column.name.toLowerCase();
      if (seen.has(key))
        ctx.addIssue({ code: 'custom', path: ['targetSchema', i, 'name'], message: `duplicate column ${column.name}` });
      seen.add(key);
    });
  });
export type DiscoverFromPrpInput = z.output<typeof discoverFromPrpInput>;

/** One step of the search plan, as the seed names it. */
export const searchStepSchema = z.object({
  conceptual_group: z.string().trim().min(3).max(200),
  search_query: z.string().trim().min(3).max(400),
  target_columns_for_validation: z.array(z.string()).min(1),
});
export type SearchStep = z.output<typeof searchStepSchema>;

/**
 * The plan the model must return. Target columns are an enum of the target schema's names, so a
 * column the schema does not have fails validation and goes back to the model with the error.
 */
export function searchPlanSchema(columnNames: string[]) {
  const column = z.enum(columnNames as [string, ...string[]]);
  return z.object({
    steps: z
      .array(searchStepSchema.extend({ target_columns_for_validation: z.array(column).min(1) }))
      .min(1)
      .max(16),
    /** Columns the PRP computes from others (errors, differences): no table is searched for them. */
    derived_columns: z.array(column).optional(),
  });
}
export type SearchPlan = { steps: SearchStep[]; derived_columns?: string[] };

export const tableColumnSchema = z.object({
  name: z.string(),
  type: z.string(),
  description: z.string().optional(),
  mode: z.string().optional(),
});
export type TableColumn = z.output<typeof tableColumnSchema>;

/** A table the search returned, parsed from its catalog document. */
export const candidateTableSchema = z.object({
  table_id: z.string(),
  project_id: z.string(),
  dataset_id: z.string(),
  description: z.string(),
  schema: z.array(tableColumnSchema),
});
export type CandidateTable = z.output<typeof candidateTableSchema>;

/**
 * What lets accepted tables be compared with each other (see workflow/lookalikes.ts): how clearly
 * the table supplies each matched column, and how near its subject is to the requirement's.
 * Optional: a verdict without them is kept as it is.
 */
const verdictComparison = {
  /** Per matched column, how clearly this table supplies it (0 to 1). */
  column_scores: z.record(z.string(), z.number().min(0).max(1)).optional(),
  /** How near the table's subject is to the requirement's as a whole (-1 to 1, by meaning). */
  subject_score: z.number().min(-1).max(1).optional(),
};

/** What the validator returns for one candidate. */
export const validationVerdictSchema = z.object({
  is_good_fit: z.boolean(),
  relevance_score: z.number().min(0).max(1),
  reasoning: z.string().min(1).max(2000),
  /** Target columns this table can provide. */
  matched_columns: z.array(z.string()).default([]),
  ...verdictComparison,
});
export type ValidationVerdict = z.output<typeof validationVerdictSchema>;

/**
 * The verdicts of a group of candidates validated in one activity, in the candidates' order:
 * the model's answer, the error that kept it from one, or null while open. The activity reports
 * them in its heartbeats; a retry resumes from them, and the workflow keeps them when the
 * activity's last attempt times out.
 */
export const groupVerdictsSchema = z.object({
  verdicts: z.array(
    z.union([
      z.null(),
      z.object({ answer: z.object({ data: validationVerdictSchema, usage: tokenUsageSchema }).strict() }).strict(),
      z.object({ error: z.string() }).strict(),
    ]),
  ),
});
export type GroupVerdicts = z.output<typeof groupVerdictsSchema>;
export type GroupVerdict = GroupVerdicts['verdicts'][number];

/**
 * The verdicts recorded for `count` candidates, or undefined when `details` are not such a
 * record (another shape, another number of candidates): re-validating costs tokens, trusting a
 * wrong record would cost a wrong answer.
 */
export function readGroupVerdicts(details: unknown, count: number): GroupVerdict[] | undefined {
  const parsed = groupVerdictsSchema.safeParse(details);
  return parsed.success && parsed.data.verdicts.length === count ? parsed.data.verdicts : undefined;
}

export const discoveredTableSchema = candidateTableSchema.extend({
  relevance_score: z.number(),
  reasoning: z.string(),
  matched_columns: z.array(z.string()),
  ...verdictComparison,
});
export type DiscoveredTable = z.output<typeof discoveredTableSchema>;

export const rejectedCandidateSchema = z.object({
  conceptual_group: z.string(),
  /** project.dataset.table */
  table: z.string(),
  /**
   * not_a_fit: the validator said no; validation_error: no verdict could be obtained (never
   * reported as a fit); superseded: a fit, set aside because other accepted tables supply each of
   * its columns more clearly or nearer the requirement's subject (a look-alike).
   */
  outcome: z.enum(['not_a_fit', 'validation_error', 'superseded']),
  reason: z.string(),
  relevance_score: z.number().nullable(),
});
export type RejectedCandidate = z.output<typeof rejectedCandidateSchema>;

export const stepResultSchema = z.object({
  conceptual_group: z.string(),
  search_query: z.string(),
  target_columns: z.array(columnSchema),
  discovered_tables: z.array(discoveredTableSchema),
  candidates_found: z.number().int().nonnegative(),
  /**
   * ok: searched, every candidate validated, and a table found; partial: some validations failed;
   * failed: the search failed; no_source: searched and validated, but no table supplies any of
   * the step's columns (never "ok" with no table).
   */
  status: z.enum(['ok', 'partial', 'failed', 'no_source']),
  error: z.string().optional(),
  /** The step's columns no accepted table of this step (or of the searches it was split into) supplies. */
  unsourced_columns: z.array(z.string()).optional(),
  /** For a search run for part of another step's columns: that step's group. */
  split_from: z.string().optional(),
});
export type StepResult = z.output<typeof stepResultSchema>;

export const discoverFromPrpOutput = z.object({
  results: z.array(stepResultSchema),
  rejected: z.array(rejectedCandidateSchema),
  uncovered_columns: z.array(z.string()),
  /**
   * Target columns no accepted table supplies, derived ones excepted: what is still missing. A
   * run that found no table names every column here. (Absent from runs started before it existed.)
   */
  unsourced_columns: z.array(z.string()).optional(),
  /** Columns the plan says are computed from other columns, so no table is searched for them. */
  derived_columns: z.array(z.string()).optional(),
  target_schema: z.array(columnSchema),
  schema_source: z.enum(['input', 'prp']),
  stats: z.object({
    steps: z.number().int(),
    searches_failed: z.number().int(),
    candidates: z.number().int(),
    validations_failed: z.number().int(),
    fits: z.number().int(),
  }),
  usage: tokenUsageSchema,
});
export type DiscoverFromPrpOutput = z.output<typeof discoverFromPrpOutput>;

/** Counters behind the `progress` query's detail line, also available as the `discoveryCounts` query. */
export interface DiscoveryCounts {
  planned: number;
  searched: number;
  searchesFailed: number;
  candidates: number;
  validated: number;
  validationsFailed: number;
  fits: number;
}

/** `project.dataset.table` */
export const tableName = (t: Pick<CandidateTable, 'project_id' | 'dataset_id' | 'table_id'>): string =>
  [t.project_id, t.dataset_id, t.table_id].filter(Boolean).join('.');

/** The PRP's title: its first level-1 heading, or its first non-empty line. */
export function prpTitle(prp: string): string {
  const lines = prp.split(/\r?\n/);
  const h1 = lines.find((l) => /^\s{0,3}#\s+\S/.test(l));
  const title = (h1 ?? lines.find((l) => l.trim()) ?? 'PRP').replace(/^\s*#+\s*/, '');
  return title.replace(/^(PRP|Product Requirement Prompt)\s*[:—–-]\s*/i, '').trim() || 'PRP';
}

export const EXAMPLE_PRP = `# PRP: NFL weekly prediction scorecard

## 1. Goal
Each Monday, show how last week's NFL game predictions compared with the final scores.

## 9. Target Schema
| Column | Type | Description |
|---|---|---|
| game_id | STRING | Unique identifier of the NFL game |
| week | INT64 | Week of the NFL season |
| home_team | STRING | Home team abbreviation |
| away_team | STRING | Away team abbreviation |
| predicted_home_score | FLOAT64 | Points the model predicted for the home team |
| predicted_away_score | FLOAT64 | Points the model predicted for the away team |
| actual_home_score | INT64 | Final points scored by the home team |
| actual_away_score | INT64 | Final points scored by the away team |
`;

/** How many tables fit but were set aside because another supplies their columns better. */
const setAsideCount = (out: DiscoverFromPrpOutput): number =>
  out.rejected.filter((r) => r.outcome === 'superseded').length;

export const discoverFromPrpFlow: FlowDefinition<typeof discoverFromPrpInput, typeof discoverFromPrpOutput> = {
  type: 'discoverFromPrp',
  slug: 'discover-from-prp',
  mcpTool: 'discover_from_prp',
  title: 'Data discovery from a PRP',
  description:
    'Finds the warehouse tables that can feed the target schema of a requirements ' +
    'document (PRP): plans one search per conceptual group of columns, searches the ' +
    'table catalog, and validates each candidate against that group’s columns.',
  tags: ['discovery', 'search', 'model'],
  input: discoverFromPrpInput,
  output: discoverFromPrpOutput,
  idKey: (input) => slugify(prpTitle(input.prp), 40),
  summary: (input) =>
    `Data discovery for “${oneLine(prpTitle(input.prp), 80)}”${input.targetSchema ? ` (${input.targetSchema.length} target columns)` : ''}`,
  describeResult: (out) => [
    // Look-alikes set aside after they fit are in the tally of fits: counted apart.
    `${out.stats.fits - setAsideCount(out)} table(s) fit ${out.results.length} conceptual group(s)${setAsideCount(out) ? ` (and ${setAsideCount(out)} set aside for a better source)` : ''}; ${out.stats.candidates} candidate(s) validated, ${out.rejected.length} rejected`,
    ...out.results.map(
      (r) =>
        `${r.conceptual_group} [${r.status}]: ${r.discovered_tables.map((t) => `${tableName(t)} (${t.relevance_score.toFixed(2)})`).join(', ') || '(none)'}${r.error ? ` — ${r.error}` : ''}`,
    ),
    ...(out.uncovered_columns.length ? [`not covered by any search: ${out.uncovered_columns.join(', ')}`] : []),
    ...(out.derived_columns?.length ? [`derived from other columns: ${out.derived_columns.join(', ')}`] : []),
    ...(out.unsourced_columns?.length ? [`no table supplies: ${out.unsourced_columns.join(', ')}`] : []),
    `tokens: ${out.usage.totalTokens} in ${out.usage.calls} model call(s)`,
  ],
  examples: [{ prp: EXAMPLE_PRP, maxCandidatesPerStep: 6 }],
};

/** The counters behind the progress line, as numbers. */
export const discoveryCountsQuery = defineQuery<DiscoveryCounts>('discoveryCounts');
