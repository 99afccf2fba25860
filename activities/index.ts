/**
 * All activities the worker registers, built from the backends they need. Each flow adds its
 * factory here; workflows import only the types.
 */
import type { Backends } from '../backends';
import { createPlatformActivities } from './platform';

export function createActivities(backends: Backends) {
  return {
    ...createPlatformActivities(backends),
  };
}

export type Activities = ReturnType<typeof createActivities>;
