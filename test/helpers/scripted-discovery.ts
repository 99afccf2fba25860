/**
 * Scripts for `discoverFromPrp`'s two model tasks, written per test (see ./scripted-model.ts):
 * the plan is a list of steps the test spells out, and the validator answers from a ledger the
 * test writes (which target columns each table supplies). The flow tests then depend on the
 * workflow's orchestration and the search backend, never on what the stand-in's rules decide.
 */
import { tableName, type ValidationVerdict } from '../../flows/discovery/contract';
import { ModelTask } from '../../flows/discovery/model-tasks';
import type { Reply, ScriptEntry, Sections } from './scripted-model';

/** The discovery task ids, for `model.rules(DISCOVERY_TASKS)`. */
export const DISCOVERY_TASKS = [ModelTask.discoveryPlan, ModelTask.discoveryValidate] as const;

export interface ScriptedStep {
  group: string;
  query: string;
  columns: string[];
}

/** The plan the model returns for these steps (and derived columns). */
export function planReply(steps: ScriptedStep[], derived?: string[]): Reply {
  return {
    steps: steps.map((s) => ({
      conceptual_group: s.group,
      search_query: s.query,
      target_columns_for_validation: s.columns,
    })),
    ...(derived ? { derived_columns: derived } : {}),
  };
}

/** One plan reply (a second plan call is unscripted and fails loudly). */
export function scriptedPlan(steps: ScriptedStep[], derived?: string[]): ScriptEntry {
  return [planReply(steps, derived)];
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

const NFL_GAMES = 'sports-analytics-prod.nfl_core.games';
const NFL_BACKTEST = 'sports-analytics-prod.nfl_predictions.backtest_regression_inferences';
const NFL_FINAL_SCORES = 'sports-analytics-prod.nfl_results.final_scores';

/**
 * For tests of the search backends under discovery (data/prp/nfl-prediction-accuracy.md): three
 * steps whose searches the catalog answers, and the table that supplies each step's columns. The
 * same plan for every run of the PRP (these tests run it several times).
 */
export const NFL_ACCURACY = {
  tables: [NFL_GAMES, NFL_BACKTEST, NFL_FINAL_SCORES],
  script: (): Record<string, ScriptEntry> => ({
    [ModelTask.discoveryPlan]: {
      always: planReply(
        [
          {
            group: 'game schedule',
            query: 'NFL games schedule season week home team away team',
            columns: ['game_id', 'season', 'week', 'game_date', 'home_team', 'away_team'],
          },
          {
            group: 'model predictions',
            query: 'NFL model predictions predicted scores win probability',
            columns: ['model_version', 'predicted_home_score', 'predicted_away_score', 'home_win_probability'],
          },
          {
            group: 'actual results',
            query: 'NFL final scores actual home score away score winner',
            columns: ['actual_home_score', 'actual_away_score', 'actual_winner'],
          },
        ],
        ['absolute_margin_error'],
      ),
    },
    [ModelTask.discoveryValidate]: scriptedVerdicts({
      [NFL_GAMES]: { columns: ['game_id', 'season', 'week', 'game_date', 'home_team', 'away_team'] },
      [NFL_BACKTEST]: {
        columns: ['model_version', 'predicted_home_score', 'predicted_away_score', 'home_win_probability'],
      },
      [NFL_FINAL_SCORES]: { columns: ['actual_home_score', 'actual_away_score', 'actual_winner'] },
    }),
  }),
};
