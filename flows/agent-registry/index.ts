/**
 * The control plane's shared agent registry (docs/scale-out.md): a workflow the control plane
 * talks to, not a flow people start, so it offers no tool and has no activities.
 */
import { defineFlow } from '../lib';
import type * as workflow from './workflow';

export default defineFlow<typeof workflow>({ folder: __dirname, workflows: ['agentRegistry'], endsOnError: false });
