/**
 * `discoverFromPrp`'s bookkeeping as plain code: the counters behind the progress line and the
 * `discoveryCounts` query, and a step's verdicts sorted into fits and rejections. No Temporal
 * calls here, so unit tests construct and call it.
 */
import type { ValidationAnswer } from '../activities';
import { addUsage, zeroUsage, type TokenUsage } from '../../../contracts/common';
import {
  tableName,
  type CandidateTable,
  type DiscoveredTable,
  type DiscoveryCounts,
  type RejectedCandidate,
  type SearchStep,
} from '../contract';

export class DiscoveryTally {
  readonly counts: DiscoveryCounts = {
    planned: 0,
    searched: 0,
    searchesFailed: 0,
    candidates: 0,
    validated: 0,
    validationsFailed: 0,
    fits: 0,
  };

  /** The progress line: steps planned, searched, candidates validated, fits. */
  line(): string {
    const c = this.counts;
    return (
      `${c.planned} step(s) planned · ${c.searched + c.searchesFailed}/${c.planned} searched` +
      `${c.searchesFailed ? ` (${c.searchesFailed} failed)` : ''} · ${c.validated + c.validationsFailed}/${c.candidates} validated` +
      `${c.validationsFailed ? ` (${c.validationsFailed} failed)` : ''} · ${c.fits} fit`
    );
  }
}

/** One candidate's validation: the model's answer, or the error that kept it from answering. */
export interface Verdict {
  candidate: CandidateTable;
  answer: ValidationAnswer | undefined;
  error: string | undefined;
}

/** A step's verdicts as fits (best first) and rejections; a candidate with no verdict is rejected (fails closed). */
export function sortVerdicts(
  step: SearchStep,
  verdicts: Verdict[],
): { discovered: DiscoveredTable[]; rejected: RejectedCandidate[]; usage: TokenUsage } {
  const discovered: DiscoveredTable[] = [];
  const rejected: RejectedCandidate[] = [];
  let usage = zeroUsage();
  const stepColumns = new Set(step.target_columns_for_validation);
  for (const v of verdicts) {
    const table = tableName(v.candidate);
    if (!v.answer) {
      // Fails closed: no verdict means not a fit, whatever the search ranking said.
      rejected.push({
        conceptual_group: step.conceptual_group,
        table,
        outcome: 'validation_error',
        reason: `validation failed: ${v.error}`,
        relevance_score: null,
      });
      continue;
    }
    usage = addUsage(usage, v.answer.usage);
    const { is_good_fit, relevance_score, reasoning } = v.answer.data;
    // The activity keeps only the step's columns; a verdict read back from heartbeat details
    // is held to the same rule here.
    const matched_columns = v.answer.data.matched_columns.filter((c) => stepColumns.has(c));
    const { column_scores, subject_score } = v.answer.data;
    const scores = column_scores
      ? { column_scores: Object.fromEntries(matched_columns.map((c) => [c, column_scores[c] ?? relevance_score])) }
      : {};
    if (is_good_fit)
      discovered.push({
        ...v.candidate,
        relevance_score,
        reasoning,
        matched_columns,
        ...scores,
        ...(subject_score !== undefined ? { subject_score } : {}),
      });
    else
      rejected.push({
        conceptual_group: step.conceptual_group,
        table,
        outcome: 'not_a_fit',
        reason: reasoning,
        relevance_score,
      });
  }
  discovered.sort((a, b) => b.relevance_score - a.relevance_score);
  return { discovered, rejected, usage };
}
