/**
 * All activities the worker registers, built from the backends they need. Each flow adds its
 * factory here; workflows import only the types.
 */
import type { Backends } from '../backends';
import { createPlatformActivities } from './platform';
import { createEadsActivities } from './eads';
import { createBomActivities } from './bom';
import { createProposalActivities } from './proposal';
import { createDiscoveryActivities } from './discovery';
import { createScheduleActivities } from './schedule';

export function createActivities(backends: Backends) {
  return {
    ...createPlatformActivities(backends),
    ...createEadsActivities(backends),
    ...createBomActivities(backends),
    ...createProposalActivities(backends),
    ...createDiscoveryActivities(backends),
    ...createScheduleActivities(backends),
  };
}

export type Activities = ReturnType<typeof createActivities>;
