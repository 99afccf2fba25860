/**
 * `answerBomQuestion`: a BOM question answered by schema search → column resolver →
 * a refinement loop of at most three SQL strategies → explainer, with the original design's whole
 * `pipeline_state` readable at any moment (query `pipelineState`) and returned with the answer.
 */
import { defineQuery } from '@temporalio/workflow';
import { z } from 'zod';
import { oneLine, slugify, tokenUsageSchema, type FlowDefinition } from '../../contracts/common';

/** A BigQuery dataset / DuckDB schema name: the same rule the SQL dialect enforces. */
export const DATASET_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

export const bomQuestionInput = z
  .object({
    question: z
      .string()
      .trim()
      .min(3, 'question must have at least 3 characters')
      .max(500)
      .describe('A question about bills of materials, e.g. "List BOMs using battery or memory components"'),
    /** Search the schema documentation (and the query-pattern library) first. Default: BOM_RAG_ENABLED. */
    ragEnabled: z
      .boolean()
      .optional()
      .describe('Search the schema documentation and reusable query patterns first (default from BOM_RAG_ENABLED)'),
    /** Warehouse dataset holding item_master and bom_details. Default: BOM_DATASET. */
    dataset: z
      .string()
      .regex(DATASET_NAME, 'dataset must be a plain identifier (letters, digits, _)')
      .optional()
      .describe('Dataset with item_master and bom_details (default from BOM_DATASET)'),
    /** How many strategies of the ladder (exact → plural/singular regex → substring) to try. Default: BOM_MAX_STRATEGIES. */
    maxStrategies: z
      .number()
      .int()
      .min(1)
      .max(3)
      .optional()
      .describe('Strategies to try, 1..3 (default from BOM_MAX_STRATEGIES)'),
  })
  .strict();

export const STRATEGY_NAMES = { 1: 'exact match', 2: 'plural/singular regex', 3: 'substring contains' } as const;
export type StrategyNumber = keyof typeof STRATEGY_NAMES;

export const bomOutcome = z.enum(['answered', 'no_results', 'no_matching_columns']);

/** The original design's pipeline_state, plus what makes the durable version auditable (reuse, fallbacks, reason). */
export const pipelineStateSchema = z.object({
  stage: z.string(),
  dataset: z.string(),
  rag_enabled: z.boolean(),
  max_strategies: z.number().int(),
  focus_terms: z.array(z.string()),
  schema_hints: z.array(z.string()),
  /** term → where the documentation says it lives, e.g. "battery": "item_master.category (BATTERIES)". */
  domain_terms: z.record(z.string(), z.string()),
  reuse: z.object({
    checked: z.boolean(),
    matched: z.boolean(),
    pattern_id: z.string().nullable(),
    similarity: z.number().nullable(),
    threshold: z.number().nullable(),
    params: z.record(z.string(), z.string()),
  }),
  tables: z.array(z.string()),
  candidate_columns: z.array(z.string()),
  /** STRING columns seen in INFORMATION_SCHEMA but outside the BOM tables, so never searched. */
  ignored_columns: z.array(z.string()),
  search_terms: z.array(z.string()),
  /** The question's part phrases grounded in the BOM tables' values (strategy null: matches nothing). */
  concepts: z
    .array(
      z.object({
        term: z.string(),
        asked: z.string(),
        strategy: z.number().int().nullable(),
        columns: z.array(z.string()),
        example: z.string().nullable(),
        /**
         * Found without its generic head ("memory chips" → memory), by meaning ("screen" → DISPLAY),
         * or without a last word that names no part ("valve shortage" → the valves).
         */
        via: z.enum(['qualifier', 'meaning', 'situation']).optional(),
        /** By meaning: how close (cosine of sentence embeddings). */
        similarity: z.number().optional(),
        /** An excluded part: its BOMs (`bom`) or its lines (`component`) are left out of the answer. */
        exclude: z.enum(['bom', 'component']).optional(),
      }),
    )
    .default([]),
  /** Excluded phrases ("but not Y") that match no part: nothing was left out for them (absent: none). */
  excluded_missing: z.array(z.string()).optional(),
  /** Missing phrase → its words nothing in the data means ("whisper valves" → ["whisper"]; absent: none). */
  not_understood: z.record(z.string(), z.array(z.string())).optional(),
  /** Missing phrase → products whose names say it: it names them, not a part in their BOMs (absent: none). */
  names_products: z.record(z.string(), z.array(z.string())).optional(),
  /** Phrases that match no value of the BOM tables: the question has no answer for them. */
  missing_terms: z.array(z.string()).default([]),
  /** "any": a BOM using one of the concepts; "all": a BOM using every one ("A and B"). */
  match: z.enum(['any', 'all']).default('any'),
  /** "direct": the BOMs whose own lines use the part; "top_level": the top-level items containing it at any depth. */
  scope: z.enum(['direct', 'top_level']).default('direct'),
  /** The kind of item the question asks for, e.g. "finished goods (item_master.item_type)"; null: any BOM. */
  parent_kind: z.string().nullable().default(null),
  strategy: z.number().int().min(0).max(3),
  sql: z.string().nullable(),
  params: z.record(z.string(), z.unknown()),
  attempts_log: z.array(z.string()),
  found_results: z.boolean(),
  chosen_sql: z.string().nullable(),
  chosen_params: z.record(z.string(), z.unknown()),
  rows: z.array(z.record(z.string(), z.unknown())),
  /** Matching BOMs before LIMIT 100. */
  total_rows: z.number().int().nonnegative(),
  /** column → its most frequent values: the clarifying options when nothing matched. */
  suggestions: z.record(z.string(), z.array(z.string())),
  reason: z.string().nullable(),
  /** Steps answered by the deterministic fallback because the model failed after its retries. */
  fallbacks: z.array(z.string()),
});
export type PipelineState = z.infer<typeof pipelineStateSchema>;

export const bomQuestionOutput = z.object({
  question: z.string(),
  final_answer: z.string(),
  outcome: bomOutcome,
  pipeline_state: pipelineStateSchema,
  usage: tokenUsageSchema,
});
export type BomQuestionInput = z.output<typeof bomQuestionInput>;
export type BomQuestionOutput = z.output<typeof bomQuestionOutput>;

/** The defaults the workflow asks for at start (workflows cannot read configuration). */
export const bomSettingsSchema = z.object({
  dataset: z.string(),
  ragEnabled: z.boolean(),
  maxStrategies: z.number().int().min(1).max(3),
  reuseEnabled: z.boolean(),
  reuseThreshold: z.number().min(0).max(1),
});
export type BomSettings = z.infer<typeof bomSettingsSchema>;

export const bomQuestionFlow: FlowDefinition<typeof bomQuestionInput, typeof bomQuestionOutput> = {
  type: 'answerBomQuestion',
  slug: 'bom-question',
  mcpTool: 'answer_bom_question',
  title: 'BOM question',
  description:
    'Answers a question about bills of materials with parameterized SQL: schema ' +
    'search, column resolver, then exact → plural/singular regex → substring ' +
    'strategies until rows are found; returns the answer, the SQL used and the whole ' +
    'pipeline state.',
  tags: ['bom', 'sql', 'warehouse', 'rag', 'seed-001'],
  input: bomQuestionInput,
  output: bomQuestionOutput,
  idKey: (input) => slugify(input.question, 30),
  summary: (input) => `BOM question: “${oneLine(input.question, 90)}”`,
  describeResult: (out) => {
    const s = out.pipeline_state;
    return [
      out.final_answer.split('\n')[0],
      `outcome: ${out.outcome}; ${s.reuse.matched ? `reused pattern ${s.reuse.pattern_id}` : `strategy ${s.strategy || '-'}`}; rows: ${s.rows.length}${s.total_rows > s.rows.length ? ` of ${s.total_rows}` : ''}`,
      ...s.attempts_log.map((line) => `  ${line}`),
      `tokens: ${out.usage.totalTokens} in ${out.usage.calls} model call(s)${s.fallbacks.length ? `; fallbacks: ${s.fallbacks.join(', ')}` : ''}`,
    ];
  },
  examples: [
    { question: 'List BOMs using battery or memory components' },
    { question: 'Which BOMs use capacitor components?' },
    { question: 'Which BOMs use fuse components?' },
    { question: 'Where is part CMP-000023 used?' },
  ],
};

/** The pipeline's state at any moment (the original design's `pipeline_state`). */
export const pipelineStateQuery = defineQuery<PipelineState>('pipelineState');

/** A plain SQL identifier (table or column): the rule the dialects quote. */
const SCHEMA_IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
/** The item columns the flow itself reads; an attribute may not take one of their names. */
const FIXED_ITEM_COLUMNS = ['item_number', 'item_description', 'category', 'item_type'];
const schemaIdentifier = z.string().regex(SCHEMA_IDENTIFIER, 'must be a plain identifier (letters, digits, _)');
/** `column` of the mapped table, or `table.column` of the table or one of its joins. */
const columnRef = z
  .string()
  .regex(
    /^(?:[A-Za-z_][A-Za-z0-9_]{0,127}\.)?[A-Za-z_][A-Za-z0-9_]{0,127}$/,
    'must be column or table.column (plain identifiers)',
  );
/**
 * A value the SQL compares a column with (an active flag's true value, the item type meaning a
 * finished good). It is written into the SQL as a literal, so a string is only plain words.
 */
const flagValue = z.union([
  z.boolean(),
  z.number().finite(),
  z.string().regex(/^[A-Za-z0-9 _./-]{1,64}$/, 'must be 1-64 letters, digits, spaces or _ . / -'),
]);
/** `JOIN table ON table.column = <on>`: `on` names the mapped table's or an earlier join's column. */
const tableJoin = z.strictObject({ table: schemaIdentifier, column: schemaIdentifier, on: columnRef });

function checkRefs(
  part: { table: string; joins: Array<{ table: string; on: string }> },
  refs: Array<[string, string | undefined]>,
  ctx: z.core.$RefinementCtx,
) {
  const known = [part.table];
  part.joins.forEach((j, i) => {
    const [table] = j.on.includes('.') ? j.on.split('.') : [part.table];
    if (!known.includes(table))
      ctx.addIssue({ code: 'custom', path: ['joins', i, 'on'], message: `${table} is not joined before` });
    if (known.includes(j.table))
      ctx.addIssue({ code: 'custom', path: ['joins', i, 'table'], message: `${j.table} is already in the mapping` });
    known.push(j.table);
  });
  for (const [field, ref] of refs) {
    if (ref?.includes('.') && !known.includes(ref.split('.')[0]))
      ctx.addIssue({
        code: 'custom',
        path: field.split('.'),
        message: `${ref.split('.')[0]} is not the table or a join`,
      });
  }
}

/**
 * Where the user's warehouse keeps the BOM (BOM_SCHEMA_MAPPING names a JSON file of this shape).
 * The flow's SQL reads two logical tables, the usage lines and the items; the mapping says which
 * tables and columns hold them, so the same flow runs on item_master/bom_details (the demo, the
 * default when no mapping is set), Odoo's mrp_bom_line/product_product, or another ERP's names.
 */
export const bomSchemaMappingSchema = z.strictObject({
  /** The usage lines: one row per component of a BOM. */
  lines: z
    .strictObject({
      table: schemaIdentifier,
      joins: z.array(tableJoin).max(4).default([]),
      /** The item the BOM makes (the parent). */
      parent: columnRef,
      /** The item used on the line. */
      component: columnRef,
      quantity: columnRef.optional(),
      /** Only lines whose column equals this value count (an archived BOM's lines do not). */
      active: z.strictObject({ column: columnRef, value: flagValue }).optional(),
    })
    .superRefine((l, ctx) =>
      checkRefs(
        l,
        [
          ['parent', l.parent],
          ['component', l.component],
          ['quantity', l.quantity],
          ['active.column', l.active?.column],
        ],
        ctx,
      ),
    ),
  /** The items (parts, subassemblies, products), keyed by the column the lines refer to. */
  items: z
    .strictObject({
      table: schemaIdentifier,
      joins: z.array(tableJoin).max(4).default([]),
      id: columnRef,
      description: columnRef,
      category: columnRef.optional(),
      /** Only items whose column equals this value exist for the flow (archived products do not). */
      active: z.strictObject({ column: columnRef, value: flagValue }).optional(),
      /** The item type; `finishedGood` is the value meaning a finished good ("Which finished goods …"). */
      itemType: z.strictObject({ column: columnRef, finishedGood: flagValue }).optional(),
      /**
       * Other text columns a question may name a part by (a manufacturer, the internal reference),
       * each under a name of its own: they are sampled and searched like the description.
       */
      attributes: z
        .record(
          z
            .string()
            .regex(/^[a-z][a-z0-9_]{0,39}$/, 'must be a lower-case name (letters, digits, _)')
            .refine((n) => !FIXED_ITEM_COLUMNS.includes(n), 'is one of the fixed item columns'),
          columnRef,
        )
        .refine((r) => Object.keys(r).length <= 8, 'at most 8 attributes')
        .optional(),
    })
    .superRefine((it, ctx) =>
      checkRefs(
        it,
        [
          ['id', it.id],
          ['description', it.description],
          ['category', it.category],
          ['active.column', it.active?.column],
          ['itemType.column', it.itemType?.column],
          ...Object.entries(it.attributes ?? {}).map(([name, ref]): [string, string] => [`attributes.${name}`, ref]),
        ],
        ctx,
      ),
    ),
});
export type BomSchemaMapping = z.infer<typeof bomSchemaMappingSchema>;

/** The demo's schema (data/warehouse/010_bom.sql), written as a mapping: what the flow reads without one. */
export const DEMO_BOM_SCHEMA: BomSchemaMapping = {
  lines: {
    table: 'bom_details',
    joins: [],
    parent: 'parent_item_number',
    component: 'component_item_number',
    quantity: 'quantity',
    active: { column: 'is_active', value: true },
  },
  items: {
    table: 'item_master',
    joins: [],
    id: 'item_number',
    description: 'item_description',
    category: 'category',
    itemType: { column: 'item_type', finishedGood: 'FINISHED_GOOD' },
  },
};
