/**
 * The research proposal's steps. Each stage is one activity with one model call that
 * returns the original design's contract, validated by zod; the literature comes from the search backend
 * and is cited by result id, so every URL in a proposal is one the search returned.
 */
import { ApplicationFailure } from '@temporalio/common';
import { z } from 'zod';
import { artifactStoreOf, type Backends } from '../../backends';
import { formatZodError, type TokenUsage } from '../../contracts/common';
import {
  dataCollectionPlanSchema,
  formatTimeline,
  httpUrlSchema,
  methodologyRecommendationSchema,
  problemDefinitionSchema,
  qualityIssueSchema,
  qualityValidationSchema,
  researchObjectivesSchema,
  timelineWeeks,
  type DataCollectionPlan,
  type LiteratureEntry,
  type MethodologyRecommendation,
  type ProblemDefinition,
  type QualityValidation,
  type ResearchObjectives,
  type UserProfile,
} from './contract';
import { checkFeasibility, checkWriting, combineQuality, proposalTexts } from './quality';
import { currentRun } from '../lib/activities/artifact-names';
import { writeProposalPdf, type ProposalPdfInput, type ProposalPdfInfo } from './activities/pdf';
import { ModelTask, WebSearchTask } from './model-tasks';
import { acceptingLegacyPositionalArgs, askModel, askWeb, backendCall } from '../lib/activities/support';

/** One search result the problem formulation may cite. */
export interface LiteratureHit {
  id: string;
  title: string;
  url: string;
  source: string;
  year: number | null;
  authors: string | null;
  snippet: string;
  keywords: string[];
  score: number;
}

/** The literature search: the researcher's profile, and more terms to search for (a previous version's key variables). */
export interface LiteratureSearchInput {
  profile: UserProfile;
  focusTerms?: string[];
}

/** What the objectives are drawn from: the profile and the problem definition. */
export interface ObjectivesInput {
  profile: UserProfile;
  problem: ProblemDefinition;
}

/** What the methodology is recommended for: the profile, the problem and its objectives. */
export interface MethodologyInput {
  profile: UserProfile;
  problem: ProblemDefinition;
  objectives: ResearchObjectives;
}

/** What the data collection is planned for: the profile, the objectives and the methodology. */
export interface DataCollectionInput {
  profile: UserProfile;
  objectives: ResearchObjectives;
  methodology: MethodologyRecommendation;
}

/** What the interview-question call answers: the question in the model's words. */
export const interviewQuestionReply = z.object({ question: z.string().min(5).max(400) });

/** What the problem-formulation call answers: literature by result id, never by URL. */
export const problemFormulationReply = z.object({
  working_title: z.string().min(5).max(200),
  problem_statement: z.string().min(20),
  main_research_question: z.string().min(10),
  secondary_questions: z.array(z.string().min(5)).min(1).max(6),
  key_variables: z.array(z.string().min(1)).min(1).max(10),
  literature: z
    .array(
      z.object({
        result_id: z.string().min(1).describe('the id of a search result'),
        relevance_note: z.string().min(1),
      }),
    )
    .max(8),
});
export type ProblemFormulationReply = z.infer<typeof problemFormulationReply>;

export const qualityReply = z.object({
  coherence_score: z.number().min(0).max(1),
  feasibility_score: z.number().min(0).max(1),
  issues_identified: z.array(qualityIssueSchema).max(10),
  recommendations: z.array(z.string().min(1)).max(8),
  refinement_targets: z.array(z.string()).max(4),
});

/** Keeps only citations of real search results (by id, or by a URL the search returned). */
export function citeFromHits(
  picks: ProblemFormulationReply['literature'],
  hits: LiteratureHit[],
): { entries: LiteratureEntry[]; dropped: string[] } {
  const byId = new Map(hits.map((h) => [h.id, h]));
  const byUrl = new Map(hits.map((h) => [h.url, h]));
  const seen = new Set<string>();
  const entries: LiteratureEntry[] = [];
  const dropped: string[] = [];
  for (const pick of picks) {
    const hit = byId.get(pick.result_id.trim()) ?? byUrl.get(pick.result_id.trim());
    if (!hit) {
      dropped.push(pick.result_id);
      continue;
    }
    if (seen.has(hit.id)) continue;
    seen.add(hit.id);
    entries.push({ title: hit.title, url: hit.url, relevance_note: pick.relevance_note, source: hit.source });
  }
  return { entries, dropped };
}

/** Reads a search document (embedded corpus or Vertex AI Search structData) as a literature hit. */
export function toLiteratureHit(id: string, score: number, data: Record<string, unknown>): LiteratureHit | undefined {
  const str = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim() : undefined);
  const url = str(data.url) ?? str(data.link) ?? str(data.uri);
  const title = str(data.title);
  if (!url || !title || !httpUrlSchema.safeParse(url).success) return undefined;
  return {
    id,
    title,
    url,
    source: str(data.venue) ?? str(data.source) ?? new URL(url).hostname,
    year: typeof data.year === 'number' ? data.year : null,
    authors: str(data.authors) ?? null,
    snippet: (str(data.abstract) ?? str(data.snippet) ?? '').slice(0, 400),
    keywords: Array.isArray(data.keywords) ? data.keywords.filter((k): k is string => typeof k === 'string') : [],
    score,
  };
}

/**
 * The stage's result must match the original design's contract. A mismatch here is a defect in the code
 * that assembles it (the model's own reply was validated already), so retrying cannot help.
 */
function conform<S extends z.ZodType>(schema: S, value: unknown, stage: string): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw ApplicationFailure.nonRetryable(
    `${stage}: result violates its contract: ${formatZodError(result.error)}`,
    'StageContractViolation',
  );
}

/** A compact view of the profile for prompts (every stage needs it; tokens matter). */
function profileSection(p: UserProfile) {
  return { ...p, timeline_weeks: timelineWeeks(p.total_timeline), timeline: formatTimeline(p.total_timeline) };
}

/** The research questions of a problem definition, as the later stages' prompts show them. */
function problemQuestionsSection(problem: ProblemDefinition) {
  return {
    main_research_question: problem.main_research_question,
    secondary_questions: problem.secondary_questions,
    key_variables: problem.key_variables,
  };
}

function objectivesSection(objectives: ResearchObjectives) {
  return { general_objective: objectives.general_objective, specific_objectives: objectives.specific_objectives };
}

/** Which methodology was chosen; a stage adds the details it needs. */
function methodologyChoiceSection(methodology: MethodologyRecommendation) {
  return {
    recommended_methodology: methodology.recommended_methodology,
    methodology_type: methodology.methodology_type,
  };
}

/**
 * The literature from Google Search grounding: only pages in the response's grounding metadata
 * become hits (a URL the model merely wrote is not one), so a citation the model makes later can
 * only point at a page Google Search returned.
 */
async function searchWebLiterature(
  model: Backends['model'],
  searchWeb: NonNullable<Backends['model']['searchWeb']>,
  profile: UserProfile,
  focusTerms: string[],
): Promise<LiteratureHit[]> {
  const query = [
    `Research area: ${profile.research_area}.`,
    `Field: ${profile.field_of_study}.`,
    profile.additional_context ? `Context: ${profile.additional_context}.` : '',
    focusTerms.length ? `Focus: ${focusTerms.join(', ')}.` : '',
  ]
    .filter(Boolean)
    .join(' ');
  const { sources } = await askWeb(model, searchWeb, {
    task: WebSearchTask.proposalLiteratureSearch,
    query,
    maxResults: 12,
  });
  return sources
    .map((source, i) =>
      toLiteratureHit(`web-${i + 1}`, Math.round((1 - i / (sources.length + 1)) * 1000) / 1000, {
        url: source.uri,
        title: source.title,
        snippet: source.snippet,
      }),
    )
    .filter((hit): hit is LiteratureHit => hit !== undefined);
}

export function createProposalActivities(backends: Backends) {
  const { model, search, config } = backends;
  const collection = config?.PROPOSAL_LITERATURE_COLLECTION ?? 'literature';
  const artifacts = artifactStoreOf(backends);

  return {
    /** The literature review's search (seed: LiteratureReviewAgent → google_search): real results only. */
    /**
     * How the interview asks: `conversational` when a general model is configured (it phrases each
     * question from the conversation so far), `form` offline. The form's fields stay the contract.
     */
    async interviewStyle(): Promise<'conversational' | 'form'> {
      return model.canConverse ? 'conversational' : 'form';
    },

    /**
     * The next form question as the model would ask it in the conversation: it acknowledges the
     * last answer and asks for the same field. Any failure falls back to the form's wording (null),
     * so a model outage never stops an interview.
     */
    async phraseInterviewQuestion(input: {
      field: string;
      prompt: string;
      hint: string;
      number: number;
      of: number;
      conversation: Array<{ question: string; answer: string }>;
    }): Promise<{ prompt: string } | null> {
      try {
        const { data } = await askModel(model, {
          task: ModelTask.proposalInterviewQuestion,
          instructions:
            'You interview a researcher to fill in a proposal profile, one field at a time. Ask for the field in ' +
            '<next_field> in one or two friendly sentences: acknowledge the last answer of <conversation> in a few ' +
            'words when there is one, then ask the question of <next_field> so that its hint is clear. Ask for ' +
            'that field only; never ask for anything else or answer for the researcher.',
          sections: {
            conversation: input.conversation.slice(-4),
            next_field: {
              field: input.field,
              question: input.prompt,
              hint: input.hint,
              number: input.number,
              of: input.of,
            },
          },
          schema: interviewQuestionReply,
          maxOutputTokens: 200,
        });
        return { prompt: data.question.trim() };
      } catch {
        return null;
      }
    },

    searchLiterature: acceptingLegacyPositionalArgs(
      async ({ profile, focusTerms = [] }: LiteratureSearchInput): Promise<LiteratureHit[]> => {
        // With a model that searches the web (Gemini with Google Search grounding), the literature
        // is what Google Search found; offline, the bundled collection.
        if (model.searchWeb) return searchWebLiterature(model, model.searchWeb, profile, focusTerms);
        // The whole area, and each of its phrases on its own ("sea ice", "polar bears"): a long
        // query lets common words dominate a keyword index, a short one finds the specific studies.
        const phrases = profile.research_area
          .split(/(?<!\s)\s+(?:and|with|for|of|in|on|to|from|by|among)\s+|[,;:]\s*/i)
          .filter((p) => p.trim().length >= 3);
        const queries = [
          ...new Set([
            profile.research_area,
            `${profile.field_of_study} ${profile.research_area}`,
            profile.additional_context ?? '',
            focusTerms.join(' '),
            ...(phrases.length > 1 ? phrases : []),
          ]),
        ].filter((q) => q.trim().length > 0);
        const best = new Map<string, { hit: LiteratureHit; weight: number }>();
        for (const query of queries) {
          const { hits } = await backendCall((signal) => search.search({ signal, collection, query, pageSize: 20 }));
          const top = Math.max(0, ...hits.map((h) => h.score));
          for (const h of hits) {
            // Scores are comparable within one query only: each query's results count relative to its best,
            // and a study several queries find ranks above one a single query found.
            if (top <= 0 || h.score < top * 0.3) continue;
            const hit = toLiteratureHit(h.id, h.score, h.data);
            if (!hit) continue;
            const entry = best.get(hit.id) ?? { hit, weight: 0 };
            entry.weight += h.score / top;
            best.set(hit.id, entry);
          }
        }
        return [...best.values()]
          .sort((a, b) => b.weight - a.weight)
          .slice(0, 12)
          .map(({ hit, weight }) => ({ ...hit, score: Math.round(weight * 1000) / 1000 }));
      },
      // Workflows of the previous release always sent both arguments.
      (profile: UserProfile, focusTerms: string[]): LiteratureSearchInput => ({ profile, focusTerms }),
    ),

    async formulateProblem(args: {
      profile: UserProfile;
      hits: LiteratureHit[];
      round: number;
      previous?: ProblemDefinition;
      feedback?: string[];
    }): Promise<{ definition: ProblemDefinition; title: string; citationsDropped: string[]; usage: TokenUsage }> {
      const { profile, hits, previous, feedback = [] } = args;
      const refining = previous !== undefined;
      const { data, usage } = await askModel(model, {
        task: ModelTask.proposalProblemFormulation,
        instructions: [
          'You formulate a research problem for the researcher in <profile>.',
          'Use only the studies in <search_results>; cite them by their "id" in ' +
            'literature[].result_id with a one-sentence relevance note. Do not cite anything ' +
            'else.',
          'Cite only studies on the topic itself; when fewer than two are, say in the ' +
            'problem statement that the literature found is thin and cite nothing in their ' +
            'place.',
          'Write for a reader: no phrase repeated within a question, no placeholder ' +
            'variables, whole sentences; describe what changed in your own words rather than ' +
            'quoting the feedback.',
          'Give 2-4 secondary questions (fewer if the timeline is short) and the key variables.',
          refining
            ? 'Refine <previous_definition> so that it addresses every point of ' +
              '<refinement_feedback>; keep what already works.'
            : '',
        ]
          .filter(Boolean)
          .join('\n'),
        sections: {
          profile: profileSection(profile),
          search_results: hits.map((h) => ({
            id: h.id,
            title: h.title,
            source: h.source,
            year: h.year,
            snippet: h.snippet,
            keywords: h.keywords,
          })),
          ...(refining
            ? {
                previous_definition: {
                  main_research_question: previous.main_research_question,
                  secondary_questions: previous.secondary_questions,
                  key_variables: previous.key_variables,
                },
                refinement_feedback: feedback,
              }
            : {}),
        },
        schema: problemFormulationReply,
      });
      const { entries, dropped } = citeFromHits(data.literature, hits);
      const history = [...(previous?.refinement_history ?? [])];
      if (refining) {
        history.push({
          round: args.round,
          feedback,
          previous_main_question: previous.main_research_question,
          previous_secondary_questions: previous.secondary_questions.length,
        });
      }
      const definition: ProblemDefinition = conform(
        problemDefinitionSchema,
        {
          problem_statement: data.problem_statement,
          main_research_question: data.main_research_question,
          secondary_questions: data.secondary_questions,
          key_variables: data.key_variables,
          preliminary_literature: entries,
          refinement_history: history,
        },
        'problem formulation',
      );
      return { definition, title: data.working_title, citationsDropped: dropped, usage };
    },

    defineObjectives: acceptingLegacyPositionalArgs(
      async ({ profile, problem }: ObjectivesInput): Promise<{ data: ResearchObjectives; usage: TokenUsage }> => {
        return askModel(model, {
          task: ModelTask.proposalObjectives,
          instructions:
            'Turn the main research question into a general objective and each secondary ' +
            'question into one SMART specific objective (same order). Assess feasibility ' +
            'against the profile and check that every question is covered.',
          sections: {
            profile: profileSection(profile),
            problem: problemQuestionsSection(problem),
          },
          schema: researchObjectivesSchema,
        });
      },
      (profile: UserProfile, problem: ProblemDefinition): ObjectivesInput => ({ profile, problem }),
    ),

    recommendMethodology: acceptingLegacyPositionalArgs(
      async ({
        profile,
        problem,
        objectives,
      }: MethodologyInput): Promise<{ data: MethodologyRecommendation; usage: TokenUsage }> => {
        return askModel(model, {
          task: ModelTask.proposalMethodology,
          instructions:
            'Recommend one methodology that answers the objectives with the researcher’s ' +
            'skills, time and constraints, and that fits the kind of data the study works ' +
            'with (e.g. field recordings or images, specimens, public datasets, archives, ' +
            'people’s answers, model runs); justify it, list the skills it needs, estimate ' +
            'its duration with key phases, and give up to two alternatives with pros and ' +
            'cons.',
          sections: {
            profile: profileSection(profile),
            problem: { main_research_question: problem.main_research_question, key_variables: problem.key_variables },
            objectives: objectivesSection(objectives),
          },
          schema: methodologyRecommendationSchema,
        });
      },
      (profile: UserProfile, problem: ProblemDefinition, objectives: ResearchObjectives): MethodologyInput => ({
        profile,
        problem,
        objectives,
      }),
    ),

    planDataCollection: acceptingLegacyPositionalArgs(
      async ({
        profile,
        objectives,
        methodology,
      }: DataCollectionInput): Promise<{ data: DataCollectionPlan; usage: TokenUsage }> => {
        return askModel(model, {
          task: ModelTask.proposalDataCollection,
          instructions:
            'Plan the data collection for the methodology: techniques, tools (respect the ' +
            'constraints, e.g. free tools when there is no budget), data sources, sample ' +
            'size, and a phased timeline (preparation, collection, quality check) whose ' +
            'total_duration is stated in weeks.',
          sections: {
            profile: profileSection(profile),
            objectives: { specific_objectives: objectives.specific_objectives },
            methodology: {
              ...methodologyChoiceSection(methodology),
              key_phases: methodology.timeline_fit.key_phases.map((p) => p.name),
            },
          },
          schema: dataCollectionPlanSchema,
        });
      },
      (
        profile: UserProfile,
        objectives: ResearchObjectives,
        methodology: MethodologyRecommendation,
      ): DataCollectionInput => ({ profile, objectives, methodology }),
    ),

    /** Quality control: coherence from the model, feasibility from the model AND from code, writing faults from code. */
    async checkQuality(args: {
      profile: UserProfile;
      problem: ProblemDefinition;
      objectives: ResearchObjectives;
      methodology: MethodologyRecommendation;
      plan: DataCollectionPlan;
    }): Promise<{ data: QualityValidation; usage: TokenUsage }> {
      const { profile, problem, objectives, methodology, plan } = args;
      const { data, usage } = await askModel(model, {
        task: ModelTask.proposalQualityControl,
        instructions:
          'Check the proposal: coherence (0-1) of the chain problem → objectives → ' +
          'methodology → data collection, feasibility (0-1) of the plan for the profile’s ' +
          'time and skills, issues (critical|major|minor) with the component they concern ' +
          '(a literature review that is empty or off topic is always an issue), and ' +
          'concrete recommendations for a refinement.',
        sections: {
          profile: profileSection(profile),
          problem: {
            ...problemQuestionsSection(problem),
            literature_count: problem.preliminary_literature.length,
            literature: problem.preliminary_literature.map((l) => ({
              title: l.title,
              relevance_note: l.relevance_note,
            })),
          },
          objectives: {
            ...objectivesSection(objectives),
            timeline_assessment: objectives.feasibility_notes.timeline_assessment,
          },
          methodology: {
            ...methodologyChoiceSection(methodology),
            justification: methodology.justification,
            estimated_duration: methodology.timeline_fit.estimated_duration,
            is_feasible: methodology.timeline_fit.is_feasible,
          },
          data_collection: {
            collection_techniques: plan.collection_techniques,
            timeline_breakdown: plan.timeline_breakdown,
          },
        },
        schema: qualityReply,
      });
      return {
        data: conform(
          qualityValidationSchema,
          combineQuality(
            data,
            checkFeasibility(profile, plan),
            checkWriting(proposalTexts(problem, objectives, methodology, plan)),
          ),
          'quality control',
        ),
        usage,
      };
    },

    /** Writes the PDF to the artifact store; only its reference, its path and a few figures go into history. */
    async renderProposalPdf(
      input: Omit<ProposalPdfInput, 'workflowId' | 'runId' | 'namespace'>,
    ): Promise<ProposalPdfInfo> {
      const run = currentRun() ?? { workflowId: 'proposal', runId: '' };
      // backendCall for its heartbeats (the workflow declares a heartbeat time-out) and cancellation.
      return backendCall(() => writeProposalPdf({ ...input, ...run }, artifacts));
    },
  };
}
