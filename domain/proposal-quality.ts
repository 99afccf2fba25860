/**
 * Quality control by code (stage 6 of the proposal): the plan's duration must fit the profile's
 * timeline, and the pass rule is applied here, not left to the model:
 * overall = ((coherence + feasibility) / 2) × 100; passed only if coherence ≥ 0.7,
 * feasibility ≥ 0.7 and no critical issue.
 *
 * Pure functions: used by the quality-control activity and by unit tests.
 */
import {
  timelineWeeks,
  formatTimeline,
  type DataCollectionPlan,
  type QualityIssue,
  type QualityValidation,
  type UserProfile,
} from '../contracts/proposal';

export const PASS_THRESHOLD = 0.7;

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

/** Combines the model's assessment with the code's feasibility check into the original design's contract. */
export function combineQuality(model: ModelQualityAssessment, code: CodeFeasibility): QualityValidation {
  const coherence = round2(Math.min(1, Math.max(0, model.coherence_score)));
  const modelFeasibility = round2(Math.min(1, Math.max(0, model.feasibility_score)));
  const feasibility = round2(Math.min(modelFeasibility, code.score));
  const issues = [...model.issues_identified, ...code.issues];
  const critical = issues.some((i) => i.severity === 'critical');
  const passed = coherence >= PASS_THRESHOLD && feasibility >= PASS_THRESHOLD && !critical;
  const targets = new Set(model.refinement_targets);
  if (code.issues.length) targets.add('data_collection').add('problem_definition');
  return {
    validation_passed: passed,
    coherence_score: coherence,
    feasibility_score: feasibility,
    overall_quality_score: Math.round(((coherence + feasibility) / 2) * 1000) / 10,
    issues_identified: issues,
    recommendations: [...new Set([...model.recommendations, ...code.recommendations])],
    requires_refinement: !passed,
    refinement_targets: passed ? [] : [...targets],
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
