/** Every task the stand-in can answer: one file of rules per flow. */
import type { StandinRule } from './lib/standin';
import { platformRules } from './platform/standin';
import { eadsRules } from './eads/standin';
import { bomRules } from './bom/standin';
import { proposalRules } from './proposal/standin';
import { discoveryRules } from './discovery/standin';

export const rules: StandinRule[] = [...platformRules, ...eadsRules, ...bomRules, ...proposalRules, ...discoveryRules];
