/** Every task the stand-in can answer: one file of rules per flow. */
import type { StandinRule } from '../types';
import { platformRules } from './platform';

export const rules: StandinRule[] = [...platformRules];
