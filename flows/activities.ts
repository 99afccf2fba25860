/**
 * All activities the worker registers, built from the backends they need. Each flow adds its
 * factory here; workflows import only the types.
 */
import type { Backends } from '../backends';
import { createPlatformActivities } from './platform/activities';
import { createEadsActivities } from './eads/activities';
import { createBomActivities } from './bom/activities';
import { createProposalActivities } from './proposal/activities';
import { createDiscoveryActivities } from './discovery/activities';
import { createScheduleActivities } from './schedule/activities';

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
