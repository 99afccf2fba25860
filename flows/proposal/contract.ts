/**
 * `writeResearchProposal`: a research proposal written by a chain of model stages
 * (problem formulation with a literature search → objectives → methodology → data collection
 * plan), checked by quality control, refined in a bounded loop, optionally reviewed by a
 * person, and rendered to a PDF.
 *
 * The stage contracts keep the seed's field names (snake_case) so a proposal written here reads
 * like one written by the seed's system. This module is imported by workflow code: it stays
 * deterministic and free of I/O (the bundled example profile is a JSON import, bundled in).
 */
import { z } from 'zod';
import { oneLine, tokenUsageSchema, type FlowDefinition } from '../../contracts/common';
import exampleProfile from '../../data/profiles/ml-multi-agent-masters.json';

// ---------------------------------------------------------------------------------------------
// The researcher's profile (seed: UserProfile)
// ---------------------------------------------------------------------------------------------

export const TIMELINE_UNITS = ['weeks', 'months', 'years'] as const;
export const timelineSchema = z
  .object({
    value: z.number().int().min(1).max(520),
    unit: z.enum(TIMELINE_UNITS),
  })
  .strict();
export type Timeline = z.infer<typeof timelineSchema>;

const shortText = (max: number) => z.string().trim().min(1).max(max);
const skillList = z.array(shortText(80)).max(20);

export const userProfileSchema = z
  .object({
    academic_program: shortText(80).describe("e.g. Master's, PhD"),
    field_of_study: shortText(120).describe('e.g. Computer Science'),
    research_area: z.string().trim().min(3).max(200).describe('e.g. Multi-Agent Systems'),
    weekly_hours: z.number().int().min(1).max(80).describe('Hours per week available for the research'),
    total_timeline: timelineSchema.describe('Time available in total, e.g. { value: 6, unit: "months" }'),
    existing_skills: skillList,
    missing_skills: skillList,
    constraints: z.array(shortText(200)).max(20),
    additional_context: z.string().trim().max(2000).optional(),
  })
  .strict();
export type UserProfile = z.infer<typeof userProfileSchema>;
export type ProfileField = keyof UserProfile;

/** A timeline in weeks (a month is 52/12 weeks): what feasibility checks compare. */
export function timelineWeeks(timeline: Timeline): number {
  const perUnit = timeline.unit === 'weeks' ? 1 : timeline.unit === 'months' ? 52 / 12 : 52;
  return Math.round(timeline.value * perUnit * 10) / 10;
}

export function formatTimeline(timeline: Timeline): string {
  return `${timeline.value} ${timeline.value === 1 ? timeline.unit.slice(0, -1) : timeline.unit}`;
}

// ---------------------------------------------------------------------------------------------
// Stage contracts (seed: ProblemDefinition, ResearchObjectives, MethodologyRecommendation,
// DataCollectionPlan, QualityValidation)
// ---------------------------------------------------------------------------------------------

/** http(s) URLs only: a literature link must be something a reader can click. */
export const httpUrlSchema = z.url({ protocol: /^https?$/, hostname: z.regexes.domain });

export const literatureEntrySchema = z.object({
  title: z.string().min(1),
  url: httpUrlSchema,
  relevance_note: z.string().min(1),
  source: z.string().min(1),
});
export type LiteratureEntry = z.infer<typeof literatureEntrySchema>;

export const problemDefinitionSchema = z.object({
  problem_statement: z.string().min(1),
  main_research_question: z.string().min(1),
  secondary_questions: z.array(z.string().min(1)).min(1).max(6),
  key_variables: z.array(z.string().min(1)).min(1).max(10),
  preliminary_literature: z.array(literatureEntrySchema).max(10),
  refinement_history: z.array(z.union([z.string(), z.record(z.string(), z.unknown())])),
});
export type ProblemDefinition = z.infer<typeof problemDefinitionSchema>;

export const researchObjectivesSchema = z.object({
  general_objective: z.string().min(1),
  specific_objectives: z.array(z.string().min(1)).min(1).max(6),
  feasibility_notes: z.object({
    timeline_assessment: z.string().min(1),
    skills_required: z.array(z.string()),
    risk_factors: z.array(z.string()),
  }),
  alignment_check: z.object({
    coverage_analysis: z.string().min(1),
    coherence_score: z.enum(['High', 'Medium', 'Low']),
  }),
});
export type ResearchObjectives = z.infer<typeof researchObjectivesSchema>;

export const methodologyPhaseSchema = z.object({
  name: z.string().min(1),
  duration: z.string().min(1),
  description: z.string(),
});

export const methodologyRecommendationSchema = z.object({
  recommended_methodology: z.string().min(1),
  methodology_type: z.enum(['quantitative', 'qualitative', 'mixed-methods']),
  justification: z.string().min(1),
  required_skills: z.array(z.string()),
  timeline_fit: z.object({
    is_feasible: z.boolean(),
    estimated_duration: z.string().min(1),
    key_phases: z.array(methodologyPhaseSchema).min(1).max(8),
  }),
  alternative_methodologies: z
    .array(z.object({ name: z.string().min(1), pros: z.array(z.string()), cons: z.array(z.string()) }))
    .max(4),
});
export type MethodologyRecommendation = z.infer<typeof methodologyRecommendationSchema>;

export const planPhaseSchema = z.object({
  duration: z.string().min(1),
  activities: z.array(z.string()),
});

export const dataCollectionPlanSchema = z.object({
  collection_techniques: z.array(z.string().min(1)).min(1),
  recommended_tools: z
    .array(
      z.object({
        name: z.string().min(1),
        type: z.string().min(1),
        accessibility: z.string().min(1),
        learning_curve: z.string().min(1),
      }),
    )
    .max(8),
  data_sources: z.array(z.string().min(1)).min(1),
  estimated_sample_size: z.string().min(1),
  timeline_breakdown: z.object({
    preparation: planPhaseSchema,
    collection: planPhaseSchema,
    quality_check: planPhaseSchema,
    total_duration: z.string().min(1),
  }),
  resource_requirements: z.array(z.string()),
});
export type DataCollectionPlan = z.infer<typeof dataCollectionPlanSchema>;

export const ISSUE_SEVERITIES = ['critical', 'major', 'minor'] as const;
export const qualityIssueSchema = z.object({
  severity: z.enum(ISSUE_SEVERITIES),
  component: z.string().min(1),
  description: z.string().min(1),
  impact: z.string(),
});
export type QualityIssue = z.infer<typeof qualityIssueSchema>;

export const qualityValidationSchema = z.object({
  validation_passed: z.boolean(),
  coherence_score: z.number().min(0).max(1),
  feasibility_score: z.number().min(0).max(1),
  overall_quality_score: z.number().min(0).max(100),
  issues_identified: z.array(qualityIssueSchema),
  recommendations: z.array(z.string()),
  requires_refinement: z.boolean(),
  refinement_targets: z.array(z.string()),
  /** Beyond the seed: what the code-side feasibility check measured. */
  feasibility_check: z.object({
    plan_weeks: z.number().nullable(),
    timeline_weeks: z.number(),
    model_feasibility: z.number().min(0).max(1),
    code_feasibility: z.number().min(0).max(1),
  }),
});
export type QualityValidation = z.infer<typeof qualityValidationSchema>;

/** The assembled proposal: one version of every stage's output plus its quality check. */
export const proposalDocumentSchema = z.object({
  title: z.string().min(1),
  problem_definition: problemDefinitionSchema,
  research_objectives: researchObjectivesSchema,
  methodology: methodologyRecommendationSchema,
  data_collection_plan: dataCollectionPlanSchema,
  quality_validation: qualityValidationSchema,
});
export type ProposalDocument = z.infer<typeof proposalDocumentSchema>;

// ---------------------------------------------------------------------------------------------
// The state machine's vocabulary (seed: WorkflowState), with the states this flow adds
// ---------------------------------------------------------------------------------------------

export const PROPOSAL_STATES = [
  'INIT',
  'INTERVIEWING',
  'PROBLEM_FORMULATION',
  'OBJECTIVES',
  'METHODOLOGY',
  'DATA_COLLECTION',
  'QUALITY_CONTROL',
  'REFINEMENT',
  /** Beyond the seed: the review gate. */
  'AWAITING_REVIEW',
  /** Beyond the seed: the PDF is written by an activity. */
  'RENDERING_PDF',
  'COMPLETE',
  /** Beyond the seed: the interview or the review was left idle past the timeout. */
  'ABANDONED',
  'ERROR',
] as const;
export const proposalStateSchema = z.enum(PROPOSAL_STATES);
export type ProposalState = z.infer<typeof proposalStateSchema>;

export const stateTransitionSchema = z.object({
  from: proposalStateSchema,
  to: proposalStateSchema,
  /** Workflow time (ISO 8601): deterministic, the same on replay. */
  at: z.string(),
  note: z.string().optional(),
});
export type StateTransition = z.infer<typeof stateTransitionSchema>;

// ---------------------------------------------------------------------------------------------
// The interview: one question per profile field, each with a deterministic answer parser
// ---------------------------------------------------------------------------------------------

export type ParsedAnswer = { ok: true; value: unknown } | { ok: false; message: string };

export interface InterviewQuestion {
  field: ProfileField;
  prompt: string;
  hint: string;
  optional: boolean;
  parse(answer: string): ParsedAnswer;
}

const NONE_ANSWERS = /^(none|no|nothing|n\/a|na|-|skip)$/i;

function parseText(field: ProfileField, min: number, max: number) {
  return (answer: string): ParsedAnswer => {
    const text = answer.replace(/\s+/g, ' ').trim();
    if (text.length < min) return { ok: false, message: `${field} needs at least ${min} character(s)` };
    if (text.length > max)
      return { ok: false, message: `${field} must be at most ${max} characters (got ${text.length})` };
    return { ok: true, value: text };
  };
}

function parseList(field: ProfileField, maxItem: number) {
  return (answer: string): ParsedAnswer => {
    const text = answer.trim();
    if (text === '' || NONE_ANSWERS.test(text)) return { ok: true, value: [] };
    const items = text
      .split(/[,;\n]/)
      .map((s) => s.replace(/\s+/g, ' ').trim())
      .filter(Boolean);
    const tooLong = items.find((s) => s.length > maxItem);
    if (tooLong)
      return {
        ok: false,
        message: `${field}: each item must be at most ${maxItem} characters ("${oneLine(tooLong, 40)}")`,
      };
    if (items.length > 20) return { ok: false, message: `${field}: at most 20 items (got ${items.length})` };
    return { ok: true, value: [...new Set(items)] };
  };
}

export function parseWeeklyHours(answer: string): ParsedAnswer {
  // Trimmed first, and each whitespace run stands before a required word: no two runs can trade
  // characters (the answer is read by the update's validator, inside a workflow task).
  const m = /^(\d{1,3})(?:\s*(?:h|hrs?|hours?))?(?:\s*(?:per|a|\/)\s*(?:week|wk))?$/i.exec(answer.trim());
  const hours = m ? Number(m[1]) : NaN;
  if (!Number.isInteger(hours) || hours < 1 || hours > 80) {
    return {
      ok: false,
      message: `weekly_hours must be a whole number of hours between 1 and 80 (got "${oneLine(answer, 40)}")`,
    };
  }
  return { ok: true, value: hours };
}

export function parseTimeline(answer: string): ParsedAnswer {
  const m = /^\s*(\d{1,3})\s*(weeks?|wks?|months?|mos?|years?|yrs?)\s*$/i.exec(answer);
  if (!m)
    return {
      ok: false,
      message: `total_timeline must be a number and a unit, e.g. "6 months", "12 weeks" or "1 year" (got "${oneLine(answer, 40)}")`,
    };
  const unitWord = m[2].toLowerCase();
  const unit = unitWord.startsWith('w') ? 'weeks' : unitWord.startsWith('m') ? 'months' : 'years';
  const parsed = timelineSchema.safeParse({ value: Number(m[1]), unit });
  if (!parsed.success || timelineWeeks(parsed.data) > 520)
    return { ok: false, message: 'total_timeline must be between 1 week and 10 years' };
  return { ok: true, value: parsed.data };
}

export const INTERVIEW_QUESTIONS: readonly InterviewQuestion[] = [
  {
    field: 'academic_program',
    prompt: 'Which academic program are you in?',
    hint: "e.g. Bachelor's, Master's, PhD",
    optional: false,
    parse: parseText('academic_program', 2, 80),
  },
  {
    field: 'field_of_study',
    prompt: 'What is your field of study?',
    hint: 'e.g. Computer Science, Psychology',
    optional: false,
    parse: parseText('field_of_study', 2, 120),
  },
  {
    field: 'research_area',
    prompt: 'Which research area or topic do you want to work on?',
    hint: 'a few words, e.g. multi-agent systems for logistics',
    optional: false,
    parse: parseText('research_area', 3, 200),
  },
  {
    field: 'weekly_hours',
    prompt: 'How many hours per week can you spend on the research?',
    hint: 'a whole number between 1 and 80',
    optional: false,
    parse: parseWeeklyHours,
  },
  {
    field: 'total_timeline',
    prompt: 'How much time do you have in total?',
    hint: 'e.g. 6 months, 12 weeks, 1 year',
    optional: false,
    parse: parseTimeline,
  },
  {
    field: 'existing_skills',
    prompt: 'Which relevant skills do you already have?',
    hint: "comma-separated, or 'none'",
    optional: false,
    parse: parseList('existing_skills', 80),
  },
  {
    field: 'missing_skills',
    prompt: 'Which skills do you expect to need but still have to learn?',
    hint: "comma-separated, or 'none'",
    optional: false,
    parse: parseList('missing_skills', 80),
  },
  {
    field: 'constraints',
    prompt: 'Any constraints: budget, data access, ethics, location?',
    hint: "comma-separated, or 'none'",
    optional: false,
    parse: parseList('constraints', 200),
  },
  {
    field: 'additional_context',
    prompt: 'Anything else the proposal should take into account?',
    hint: "optional: an empty answer or 'skip' leaves it out",
    optional: true,
    parse: (answer) => {
      const text = answer.trim();
      if (text === '' || NONE_ANSWERS.test(text)) return { ok: true, value: undefined };
      return parseText('additional_context', 1, 2000)(text);
    },
  },
];

/** What the `currentQuestion` query returns while the interview waits for an answer. */
export const interviewQuestionViewSchema = z.object({
  id: z.string(),
  field: z.string(),
  /** 1-based position among the questions this interview asks. */
  number: z.number().int(),
  of: z.number().int(),
  prompt: z.string(),
  hint: z.string(),
  optional: z.boolean(),
});
export type InterviewQuestionView = z.infer<typeof interviewQuestionViewSchema>;

/**
 * The `answerQuestion` update's argument. `questionId` names the question answered (the open
 * question's `id`, read from the `currentQuestion` query): an answer is never applied to another
 * question, and the same answer sent twice (a retry) is taken once.
 */
export const interviewAnswerSchema = z
  .object({
    answer: z.string().max(4000),
    questionId: z.string().min(1).max(64),
  })
  .strict();
export type InterviewAnswer = z.infer<typeof interviewAnswerSchema>;

/** The `reviewProposal` update's argument. */
export const reviewDecisionSchema = z
  .object({
    decision: z.enum(['approve', 'request-changes']),
    comments: z.string().trim().max(4000).optional(),
  })
  .refine((d) => d.decision === 'approve' || (d.comments ?? '').length > 0, {
    message: 'request-changes needs comments saying what to change',
    path: ['comments'],
  });
export type ReviewDecision = z.infer<typeof reviewDecisionSchema>;

/** At most this many request-changes rounds: each one is a full extra refinement. */
export const MAX_REVIEW_ROUNDS = 3;

// ---------------------------------------------------------------------------------------------
// Workflow input and output
// ---------------------------------------------------------------------------------------------

export const proposalInput = z
  .object({
    mode: z
      .enum(['interactive', 'autonomous'])
      .describe('interactive: interview the researcher first; autonomous: use `profile`'),
    /** Autonomous: the whole profile. Interactive: optional answers to skip in the interview. */
    profile: userProfileSchema.partial().optional(),
    maxRefinements: z
      .number()
      .int()
      .min(0)
      .max(5)
      .default(3)
      .describe('Hard bound on automatic refinement rounds after a failed quality check'),
    review: z.boolean().default(false).describe('Wait for an approve / request-changes update before the PDF'),
    /** How long the interview (and the review gate) waits for the next answer before giving up. */
    idleTimeoutMinutes: z
      .number()
      .int()
      .min(1)
      .max(60 * 24 * 90)
      .default(60 * 24 * 7),
  })
  .strict()
  .superRefine((input, ctx) => {
    if (input.mode !== 'autonomous') return;
    const full = userProfileSchema.safeParse(input.profile ?? undefined);
    if (!full.success) {
      if (input.profile === undefined) {
        ctx.addIssue({ code: 'custom', path: ['profile'], message: 'autonomous mode requires a complete profile' });
        return;
      }
      for (const issue of full.error.issues)
        ctx.addIssue({ code: 'custom', path: ['profile', ...issue.path.map(String)], message: issue.message });
    }
  });
export type ProposalInput = z.output<typeof proposalInput>;

export const refinementRoundSchema = z.object({
  round: z.number().int(),
  /** What started this version: the first pass, a failed quality check, or the reviewer. */
  trigger: z.enum(['initial', 'quality-control', 'review']),
  overall: z.number(),
  coherence: z.number(),
  feasibility: z.number(),
  passed: z.boolean(),
  planWeeks: z.number().nullable(),
  secondaryQuestions: z.number().int(),
  criticalIssues: z.number().int(),
  /** The feedback that produced this version (empty for the first). */
  feedback: z.array(z.string()),
});
export type RefinementRound = z.infer<typeof refinementRoundSchema>;

export const reviewRecordSchema = z.object({
  decision: z.enum(['approve', 'request-changes']),
  comments: z.string().optional(),
  at: z.string(),
});

export const proposalOutput = z.object({
  status: z.enum(['completed', 'completed_with_issues', 'abandoned', 'error']),
  state: proposalStateSchema,
  mode: z.enum(['interactive', 'autonomous']),
  title: z.string().nullable(),
  profile: userProfileSchema.nullable(),
  proposal: proposalDocumentSchema.nullable(),
  /** Issues of the chosen version that refinement did not resolve. */
  unresolvedIssues: z.array(qualityIssueSchema),
  refinement: z.object({
    maxRefinements: z.number().int(),
    refinements: z.number().int(),
    limitReached: z.boolean(),
    chosenRound: z.number().int().nullable(),
    history: z.array(refinementRoundSchema),
  }),
  interview: z
    .object({
      asked: z.number().int(),
      answered: z.number().int(),
      outcome: z.enum(['completed', 'abandoned']),
    })
    .nullable(),
  review: z.object({
    required: z.boolean(),
    outcome: z.enum(['not-requested', 'approved', 'timed-out', 'not-reached']),
    rounds: z.array(reviewRecordSchema),
  }),
  pdf: z
    .object({
      path: z.string(),
      /** The artifact reference (`gs://bucket/key` or a key); runs from before references carry only `path`. */
      ref: z.string().optional(),
      pages: z.number().int(),
      bytes: z.number().int(),
      links: z.number().int(),
    })
    .nullable(),
  transitions: z.array(stateTransitionSchema),
  error: z.object({ state: proposalStateSchema, message: z.string(), type: z.string().nullable() }).nullable(),
  usage: tokenUsageSchema,
});
export type ProposalOutput = z.output<typeof proposalOutput>;

/** What the `proposalState` query returns. */
export interface ProposalStateView {
  state: ProposalState;
  transitions: StateTransition[];
  awaiting: 'answer' | 'review' | null;
  round: number;
  /** While awaiting review: the version to review, summarised. */
  draft: { title: string; overall: number; passed: boolean; issues: string[] } | null;
}

export const EXAMPLE_PROFILE: UserProfile = userProfileSchema.parse(exampleProfile);

export const researchProposalFlow: FlowDefinition<typeof proposalInput, typeof proposalOutput> = {
  type: 'writeResearchProposal',
  slug: 'research-proposal',
  mcpTool: 'write_research_proposal',
  title: 'Research proposal',
  description:
    'Writes a research proposal from a researcher profile (given, or gathered in an ' +
    'interview): problem with a literature search, objectives, methodology, data ' +
    'collection plan; quality control with bounded refinement; optional review gate; ' +
    'PDF.',
  tags: ['research', 'proposal', 'interview', 'pdf', 'human-in-the-loop'],
  input: proposalInput,
  output: proposalOutput,
  idKey: (input) => (input.profile?.research_area ? input.profile.research_area : `${input.mode}-interview`),
  summary: (input) =>
    input.profile?.research_area
      ? `${input.mode === 'interactive' ? 'Interview + proposal' : 'Proposal'} on “${oneLine(input.profile.research_area, 80)}”`
      : 'Interactive research proposal interview',
  describeResult: (out) => {
    const lines = [`${out.status} (${out.state})${out.title ? `: ${out.title}` : ''}`];
    const qv = out.proposal?.quality_validation;
    if (qv)
      lines.push(
        `quality: overall ${qv.overall_quality_score.toFixed(0)}/100, coherence ${qv.coherence_score.toFixed(2)}, feasibility ${qv.feasibility_score.toFixed(2)}, ${qv.validation_passed ? 'passed' : 'not passed'}`,
      );
    lines.push(
      `refinements: ${out.refinement.refinements}/${out.refinement.maxRefinements}${out.refinement.limitReached ? ' (limit reached)' : ''}, literature: ${out.proposal?.problem_definition.preliminary_literature.length ?? 0} entries`,
    );
    if (out.unresolvedIssues.length)
      lines.push(
        `unresolved: ${out.unresolvedIssues.map((i) => `[${i.severity}] ${oneLine(i.description, 90)}`).join('; ')}`,
      );
    if (out.pdf) lines.push(`pdf: ${out.pdf.path} (${out.pdf.pages} pages, ${out.pdf.links} links)`);
    if (out.error) lines.push(`error in ${out.error.state}: ${out.error.message}`);
    lines.push(`tokens: ${out.usage.totalTokens} in ${out.usage.calls} model call(s)`);
    return lines;
  },
  examples: [{ mode: 'autonomous', profile: EXAMPLE_PROFILE }],
};
