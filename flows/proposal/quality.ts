/**
 * Quality control by code (stage 6 of the proposal): the plan's duration must match the
 * profile's timeline (not longer, and not much shorter: a plan that leaves most of the time
 * unplanned is not a plan for this profile), the text must read cleanly (no "(s)", no
 * "study/studies", no count of zero, no phrase pasted into many sections, no echo, no
 * placeholder, no cut word, no capital in mid-sentence on a word the text also writes in lower
 * case), and the pass rule is applied here, not left to the model:
 * overall = ((coherence + feasibility) / 2) × 100; passed only if coherence ≥ 0.7,
 * feasibility ≥ 0.7 and no critical issue. A draft with writing faults keeps coherence below
 * the pass mark, so it is refined with the faults named.
 *
 * Pure functions: used by the quality-control activity and by unit tests.
 */
import {
  timelineWeeks,
  formatTimeline,
  type DataCollectionPlan,
  type MethodologyRecommendation,
  type ProblemDefinition,
  type QualityIssue,
  type QualityValidation,
  type ResearchObjectives,
  type UserProfile,
} from './contract';

export const PASS_THRESHOLD = 0.7;
/** A plan shorter than this share of the timeline leaves the rest of the time unplanned. */
export const PLAN_COVERAGE = 0.8;

const UNIT_WEEKS: Record<string, number> = { day: 1 / 7, week: 1, month: 52 / 12, year: 52 };
// A number is read from its first digit only: an attempt inside a long run of digits would rescan it.
const DURATION =
  /(?<!\d)(\d+(?:\.\d+)?)(?:\s*(?:-|–|to)\s*(\d+(?:\.\d+)?))?\s*(days?|weeks?|wks?|months?|mos?|years?|yrs?)\b/gi;

/**
 * Reads a duration written by a person or a model ("14 weeks", "3-4 months", "1 year and 2
 * months") as weeks. Ranges count at their upper end (planning for the worst case); several
 * parts add up. Returns null when no duration is stated.
 */
export function parseDurationWeeks(text: string): number | null {
  let total = 0;
  let found = false;
  for (const m of text.matchAll(DURATION)) {
    const value = Number(m[2] ?? m[1]);
    const unit = m[3].toLowerCase();
    const key = unit.startsWith('d') ? 'day' : unit.startsWith('w') ? 'week' : unit.startsWith('m') ? 'month' : 'year';
    total += value * UNIT_WEEKS[key];
    found = true;
  }
  return found ? Math.round(total * 10) / 10 : null;
}

/** The plan's length: its stated total, or else the sum of its phases. */
export function planDurationWeeks(plan: DataCollectionPlan): number | null {
  const total = parseDurationWeeks(plan.timeline_breakdown.total_duration);
  if (total !== null) return total;
  const phases = [
    plan.timeline_breakdown.preparation,
    plan.timeline_breakdown.collection,
    plan.timeline_breakdown.quality_check,
  ].map((p) => parseDurationWeeks(p.duration));
  return phases.every((w) => w !== null) ? Math.round(phases.reduce((a, b) => a! + b!, 0)! * 10) / 10 : null;
}

export interface CodeFeasibility {
  planWeeks: number | null;
  timelineWeeks: number;
  score: number;
  issues: QualityIssue[];
  recommendations: string[];
}

/** Feasibility as code sees it: 1 when the plan fits, the ratio timeline/plan when it does not. */
export function checkFeasibility(profile: UserProfile, plan: DataCollectionPlan): CodeFeasibility {
  const available = timelineWeeks(profile.total_timeline);
  const needed = planDurationWeeks(plan);
  if (needed === null) {
    return {
      planWeeks: null,
      timelineWeeks: available,
      score: 0.5,
      issues: [
        {
          severity: 'major',
          component: 'data_collection',
          description: 'The data collection plan states no total duration that can be checked against the timeline.',
          impact: 'Feasibility cannot be verified.',
        },
      ],
      recommendations: ['State the total duration of the data collection plan in weeks or months.'],
    };
  }
  if (needed < PLAN_COVERAGE * available) {
    const share = needed / available;
    return {
      planWeeks: needed,
      timelineWeeks: available,
      // 0.6 for a plan of almost nothing, up to 1 at the coverage mark: below the pass mark under half the time.
      score: Math.round((0.6 + (0.4 * share) / PLAN_COVERAGE) * 100) / 100,
      issues: [
        {
          severity: 'major',
          component: 'data_collection',
          description: `The plan covers about ${needed} weeks of the ${available} weeks available (${formatTimeline(profile.total_timeline)}).`,
          impact: 'Most of the time the researcher has is left unplanned.',
        },
      ],
      recommendations: [`Scale the phases to the whole timeline of ${available} weeks.`],
    };
  }
  if (needed <= available)
    return { planWeeks: needed, timelineWeeks: available, score: 1, issues: [], recommendations: [] };
  return {
    planWeeks: needed,
    timelineWeeks: available,
    score: Math.round((available / needed) * 100) / 100,
    issues: [
      {
        severity: 'critical',
        component: 'data_collection',
        description: `The plan needs about ${needed} weeks but the timeline allows ${available} weeks (${formatTimeline(profile.total_timeline)}).`,
        impact: 'The research cannot be completed in the available time.',
      },
    ],
    recommendations: [
      `Narrow the scope so the plan fits ${available} weeks: drop the least central secondary question and its objective.`,
    ],
  };
}

/** What the quality-control model call answers (the code adds the rest). */
export interface ModelQualityAssessment {
  coherence_score: number;
  feasibility_score: number;
  issues_identified: QualityIssue[];
  recommendations: string[];
  refinement_targets: string[];
}

const round2 = (n: number) => Math.round(n * 100) / 100;

/**
 * Combines the model's assessment with the code's checks into the original design's contract:
 * feasibility is the lower of the two views, and writing faults found by code keep coherence
 * below the pass mark.
 */
export function combineQuality(
  model: ModelQualityAssessment,
  code: CodeFeasibility,
  writing: WritingCheck = { issues: [], recommendations: [] },
): QualityValidation {
  const modelCoherence = round2(Math.min(1, Math.max(0, model.coherence_score)));
  const coherence = writing.issues.length ? Math.min(modelCoherence, WRITING_FAULT_COHERENCE) : modelCoherence;
  const modelFeasibility = round2(Math.min(1, Math.max(0, model.feasibility_score)));
  const feasibility = round2(Math.min(modelFeasibility, code.score));
  const issues = [...model.issues_identified, ...code.issues, ...writing.issues];
  const critical = issues.some((i) => i.severity === 'critical');
  const passed = coherence >= PASS_THRESHOLD && feasibility >= PASS_THRESHOLD && !critical;
  const targets = new Set(model.refinement_targets);
  if (code.issues.length) targets.add('data_collection').add('problem_definition');
  for (const i of writing.issues) targets.add(i.component);
  return {
    validation_passed: passed,
    coherence_score: coherence,
    feasibility_score: feasibility,
    overall_quality_score: Math.round(((coherence + feasibility) / 2) * 1000) / 10,
    issues_identified: issues,
    recommendations: [...new Set([...model.recommendations, ...code.recommendations, ...writing.recommendations])],
    requires_refinement: !passed,
    refinement_targets: passed ? [] : [...targets].slice(0, 4),
    feasibility_check: {
      plan_weeks: code.planWeeks,
      timeline_weeks: code.timelineWeeks,
      model_feasibility: modelFeasibility,
      code_feasibility: code.score,
    },
  };
}

/** The version to keep when the loop stops: a passing one first, then the best score, then the latest. */
export function chooseBest<T extends { quality: QualityValidation }>(versions: readonly T[]): T | undefined {
  let best: T | undefined;
  for (const v of versions) {
    if (!best) best = v;
    else {
      const a = best.quality;
      const b = v.quality;
      const better =
        Number(b.validation_passed) - Number(a.validation_passed) || b.overall_quality_score - a.overall_quality_score;
      if (better >= 0) best = v;
    }
  }
  return best;
}

// ---------------------------------------------------------------------------------------------
// Writing: what a reader trips over, found in the text itself

/** Coherence of a draft whose text has writing faults: just below the pass mark. */
export const WRITING_FAULT_COHERENCE = 0.69;

export interface WritingCheck {
  issues: QualityIssue[];
  recommendations: string[];
}

/** Every text of the proposal a reader meets, with the section it belongs to. */
export function proposalTexts(
  problem: ProblemDefinition,
  objectives: ResearchObjectives,
  methodology: MethodologyRecommendation,
  plan: DataCollectionPlan,
): Array<{ component: string; text: string; prose: boolean }> {
  const out: Array<{ component: string; text: string; prose: boolean }> = [];
  const add = (component: string, texts: string[], prose = false) => {
    for (const text of texts) if (text.trim()) out.push({ component, text, prose });
  };
  add('problem_definition', [problem.problem_statement], true);
  add('problem_definition', [problem.main_research_question, ...problem.secondary_questions, ...problem.key_variables]);
  add(
    'problem_definition',
    problem.preliminary_literature.map((l) => l.relevance_note),
    true,
  );
  add('research_objectives', [
    objectives.general_objective,
    ...objectives.specific_objectives,
    objectives.feasibility_notes.timeline_assessment,
    ...objectives.feasibility_notes.risk_factors,
    objectives.alignment_check.coverage_analysis,
  ]);
  add('methodology', [methodology.justification], true);
  add('methodology', [
    methodology.recommended_methodology,
    ...methodology.timeline_fit.key_phases.flatMap((p) => [p.name, p.description]),
  ]);
  add('data_collection', [
    ...plan.collection_techniques,
    ...plan.data_sources,
    plan.estimated_sample_size,
    ...(['preparation', 'collection', 'quality_check'] as const).flatMap((k) => plan.timeline_breakdown[k].activities),
    ...plan.resource_requirements,
  ]);
  return out;
}

const FUNCTION_WORDS = new Set(
  'the a an this these those our we it its in on of for with to and or but how what which will can is are was were'.split(
    ' ',
  ),
);
const ECHO_STOP = new Set(
  (
    'the a an and or of in on for to with by from at as is are be how what which do does that this these those ' +
    'its their into over under between within across can show about'
  ).split(' '),
);

const CLOSERS: Readonly<Record<string, string>> = { '“': '”', '"': '"', '‘': '’' };

/**
 * Quoted words, parenthesised asides and cited titles are someone else's text, not this prose:
 * each span from an opening mark to its closing one becomes a space (a parenthesis only when no
 * other parenthesis sits inside). One pass: a mark whose closer no longer occurs is skipped from
 * then on, so text full of unclosed marks costs no more than any other (a pattern doing the
 * same searched to the end from every mark).
 */
function ownProse(text: string): string {
  const exhausted = new Set<string>();
  let out = '';
  let i = 0;
  while (i < text.length) {
    const ch = text[i];
    let end = -1;
    if (ch === '(') {
      let j = i + 1;
      while (j < text.length && text[j] !== '(' && text[j] !== ')') j++;
      if (text[j] === ')') end = j;
      else {
        // No aside opens before j: copy up to it and go on from there.
        out += text.slice(i, j);
        i = j;
        continue;
      }
    } else if (CLOSERS[ch] && !exhausted.has(ch)) {
      end = text.indexOf(CLOSERS[ch], i + 1);
      if (end < 0) exhausted.add(ch);
    }
    if (end < 0) {
      out += ch;
      i++;
    } else {
      out += ' ';
      i = end + 1;
    }
  }
  return out;
}

function echo(sentence: string): string | undefined {
  const words = sentence.toLowerCase().match(/[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu) ?? [];
  const seen = new Map<string, number>();
  for (let i = 0; i + 1 < words.length; i++) {
    if (ECHO_STOP.has(words[i]) || ECHO_STOP.has(words[i + 1])) continue;
    const key = `${words[i]} ${words[i + 1]}`;
    const at = seen.get(key);
    if (at !== undefined && i - at >= 2) return key;
    if (at === undefined) seen.set(key, i);
  }
  return undefined;
}

/** The most repeated run of six words, when it sits in `minTexts` texts or more. */
function pasted(texts: string[], minTexts: number): string | undefined {
  const inTexts = new Map<string, number>();
  for (const t of texts) {
    const words = t.toLowerCase().match(/[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu) ?? [];
    const seen = new Set<string>();
    for (let i = 0; i + 6 <= words.length; i++) {
      const run = words.slice(i, i + 6);
      if (run.filter((w) => !ECHO_STOP.has(w)).length >= 3) seen.add(run.join(' '));
    }
    for (const k of seen) inTexts.set(k, (inTexts.get(k) ?? 0) + 1);
  }
  let best: [string, number] | undefined;
  for (const [k, n] of inTexts) if (n >= minTexts && (!best || n > best[1])) best = [k, n];
  return best?.[0];
}

/**
 * The writing faults of a proposal's texts, each once, as major issues with what to fix. Pure
 * text checks: they hold whatever model wrote the text.
 */
export function checkWriting(texts: Array<{ component: string; text: string; prose: boolean }>): WritingCheck {
  const found = new Map<string, QualityIssue>();
  const fault = (component: string, what: string, example: string) => {
    const key = `${component}:${what}`;
    if (!found.has(key))
      found.set(key, {
        severity: 'major',
        component,
        description: `Writing: ${what} (“${example.trim().slice(0, 60)}”).`,
        impact: 'Reads as generated filler rather than a proposal.',
      });
  };
  const lower = new Set<string>();
  for (const { text } of texts) for (const w of ownProse(text).match(/\b[a-z][a-z'-]+\b/g) ?? []) lower.add(w);
  for (const { component, text, prose } of texts) {
    const own = ownProse(text);
    const plural = /\w\(s\)/.exec(text);
    if (plural)
      fault(component, 'a plural written as "(s)"', text.slice(Math.max(0, plural.index - 30), plural.index + 3));
    for (const m of text.matchAll(/\b([A-Za-z]{3,})\/([A-Za-z]{3,})\b/g))
      if (m[1].slice(0, 3).toLowerCase() === m[2].slice(0, 3).toLowerCase())
        fault(component, 'two word forms joined by a slash', m[0]);
    const zero =
      /\b0 (?:stud(?:y|ies)|items?|sources?|papers?|publications?|matches|results?|questions?|objectives?)\b/i.exec(
        text,
      );
    if (zero) fault(component, 'a count of zero', zero[0]);
    const placeholder = /\{\{|\}\}|\$\{|\bundefined\b|\bNaN\b|\[object Object\]/.exec(text);
    if (placeholder) fault(component, 'a placeholder', placeholder[0]);
    const dup = /\b([a-z]{2,})\s+\1\b/i.exec(own);
    if (dup) fault(component, 'a word written twice', dup[0]);
    if (/\w…/.test(text)) fault(component, 'text cut off', text.slice(Math.max(0, text.indexOf('…') - 30)));
    if (prose && !/[.!?)"”’]\s*$/.test(text)) fault(component, 'a sentence that stops midway', text.slice(-40));
    for (const s of own.split(/(?<=[.?!])\s+/)) {
      const e = echo(s);
      if (e) fault(component, `a phrase repeated within one sentence ("${e}")`, s);
    }
    for (const m of own.matchAll(/(?<=\b[a-z][a-z'-]*,? )([A-Z][a-z]+)\b(?= [a-z])/g))
      if (FUNCTION_WORDS.has(m[1].toLowerCase()) || lower.has(m[1].toLowerCase()))
        fault(component, 'a capital in mid-sentence', own.slice(Math.max(0, m.index - 25), m.index + m[1].length + 10));
  }
  const phrase = pasted(
    texts.map((t) => t.text),
    6,
  );
  if (phrase) fault('problem_definition', 'the same phrase pasted into many sections', phrase);
  const issues = [...found.values()];
  return {
    issues,
    recommendations: issues.length
      ? [
          'Rewrite the sentences named in the writing issues as plain prose: whole words, real counts, each phrase once.',
        ]
      : [],
  };
}
