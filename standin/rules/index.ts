/** Every task the stand-in can answer: one file of rules per flow. */
import type { StandinRule } from '../types';
import { platformRules } from './platform';
import { eadsRules } from './eads';
import { bomRules } from './bom';
import { proposalRules } from './proposal';
import { discoveryRules } from './discovery';

export const rules: StandinRule[] = [...platformRules, ...eadsRules, ...bomRules, ...proposalRules, ...discoveryRules];
