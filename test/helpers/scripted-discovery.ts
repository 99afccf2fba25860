/**
 * Scripts for `discoverFromPrp`'s two model tasks, written per test (see ./scripted-model.ts):
 * the plan is a list of steps the test spells out, and the validator answers from a ledger the
 * test writes (which target columns each table supplies). The flow tests then depend on the
 * workflow's orchestration and the search backend, never on what the stand-in's rules decide.
 */
import { tableName, type ValidationVerdict } from '../../flows/discovery/contract';
import { ModelTask } from '../../flows/discovery/model-tasks';
import type { ScriptEntry, Sections } from './scripted-model';

/** The discovery task ids, for `model.rules(DISCOVERY_TASKS)`. */
export const DISCOVERY_TASKS = [ModelTask.discoveryPlan, ModelTask.discoveryValidate] as const;

export interface ScriptedStep {
  group: string;
  query: string;
  columns: string[];
}

/** One plan reply (a second plan call is unscripted and fails loudly). */
export function scriptedPlan(steps: ScriptedStep[], derived?: string[]): ScriptEntry {
  return [
    {
      steps: steps.map((s) => ({
        conceptual_group: s.group,
        search_query: s.query,
        target_columns_for_validation: s.columns,
      })),
      ...(derived ? { derived_columns: derived } : {}),
    },
  ];
}

/** What the test says a table supplies, and the relevance the validator gives it when it fits. */
export interface LedgerEntry {
  columns: string[];
  score?: number;
}

/**
 * A validator that answers from the ledger: a table supplies the step's target columns the
 * ledger lists for it, and fits when `fits(matched, targets)` says so (by default: when it
 * supplies any). A table the ledger does not name supplies nothing and never fits.
 */
export function scriptedVerdicts(
  ledger: Record<string, LedgerEntry>,
  fits: (matched: number, targets: number) => boolean = (matched) => matched > 0,
): ScriptEntry {
  return {
    always: (sections: Sections): ValidationVerdict => {
      const targets = (sections.target_columns as Array<{ name: string }>).map((c) => c.name);
      const name = tableName(sections.candidate_table as Parameters<typeof tableName>[0]);
      const entry = ledger[name];
      const matched = targets.filter((c) => entry?.columns.includes(c));
      const fit = fits(matched.length, targets.length);
      return {
        is_good_fit: fit,
        relevance_score: fit ? (entry?.score ?? 0.8) : 0.1,
        reasoning: `scripted: ${name} supplies ${matched.join(', ') || 'none of the columns'}`,
        matched_columns: matched,
      };
    },
  };
}
