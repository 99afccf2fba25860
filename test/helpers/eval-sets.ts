/**
 * Whether an evaluation set has cases to check, for the tests that check the sets' data
 * (test/unit/eval-scoring.test.ts and test/eval-bom-truth.test.ts).
 */
import { existsSync, readdirSync } from 'node:fs';
import { EVAL_SETS, sealedDir, type EvalSet } from '../../eval/types';

/**
 * The development sets always do. Between a sealed set's spending and its successor's
 * installation the sealed folders hold no case: the checks of that set are not made (never
 * passed on nothing).
 */
export function evalSetInstalled(set: EvalSet): boolean {
  return (
    set === 'dev' ||
    ['bom', 'eads', 'proposal', 'discovery'].some(
      (flow) => existsSync(sealedDir(flow)) && readdirSync(sealedDir(flow)).some((f) => f.endsWith('.json')),
    )
  );
}

/** The sets whose data the checks read: the development set, and the sealed set when one is installed. */
export const installedEvalSets = (): EvalSet[] => EVAL_SETS.filter(evalSetInstalled);
