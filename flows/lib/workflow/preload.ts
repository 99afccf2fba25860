/**
 * The modules that workflow code imports beyond its own, loaded once per worker and shared by
 * every workflow: the shared contracts and domain rules listed here, and each registered flow's
 * contract and pure rules (workers/workflow-bundle.ts makes a preload module that imports them
 * and calls `shareModules`).
 *
 * The SDK freezes preloaded modules so that no workflow can change what another one sees. zod
 * builds some members of a schema on first use (its methods, derived internals) and stores them
 * on the schema, which a frozen schema refuses: so every schema reachable from these modules has
 * those members built here, once, before the freeze.
 */
import * as common from '../../../contracts/common';
import * as failures from '../../../contracts/failures';
import * as progressMessages from '../../../contracts/progress-messages';
import * as bomText from '../../../domain/bom-text';
import * as eadsStructure from '../../../domain/eads-structure';
import * as scheduleModel from '../../../domain/schedule-model';

/** The modules outside the flow folders that workflow code imports. */
export const SHARED_MODULES = {
  common,
  failures,
  progressMessages,
  bomText,
  eadsStructure,
  scheduleModel,
};

/** Readies the shared modules and the flows' modules for the freeze (see the module comment). */
export function shareModules(flowModules: Record<string, unknown>): void {
  materializeLazyMembers({ SHARED_MODULES, flowModules });
}

/**
 * Reads every accessor on the prototypes of every object reachable from `root`, so that values
 * built on first read are stored now. Errors are ignored: a getter that throws stores nothing.
 */
export function materializeLazyMembers(root: unknown, seen = new Set<object>()): void {
  if (root === null || (typeof root !== 'object' && typeof root !== 'function') || seen.has(root)) return;
  seen.add(root);
  // A zod schema also rewrites its parse function on its first parse: parse something once.
  const schema = root as { _zod?: unknown; safeParse?: (value: unknown) => unknown };
  if (typeof root === 'object' && schema._zod && typeof schema.safeParse === 'function') {
    try {
      schema.safeParse(undefined);
    } catch {
      // A refinement threw: its schema is prepared all the same.
    }
  }
  if (typeof root === 'object') {
    for (let proto = Object.getPrototypeOf(root); proto && proto !== Object.prototype;) {
      for (const key of Reflect.ownKeys(proto)) {
        const descriptor = Object.getOwnPropertyDescriptor(proto, key);
        if (key === 'constructor' || !descriptor?.get) continue;
        try {
          materializeLazyMembers((root as Record<PropertyKey, unknown>)[key], seen);
        } catch {
          // Nothing was stored.
        }
      }
      proto = Object.getPrototypeOf(proto);
    }
  }
  for (const key of Reflect.ownKeys(root)) {
    let value: unknown;
    try {
      value = (root as Record<PropertyKey, unknown>)[key];
    } catch {
      continue;
    }
    if (
      value instanceof RegExp &&
      !value.global &&
      !value.sticky &&
      Object.getOwnPropertyDescriptor(root, key)?.writable
    )
      (root as Record<PropertyKey, unknown>)[key] = resettableRegExp(value);
    else if (value !== null && typeof value === 'object') materializeLazyMembers(value, seen);
  }
}

/**
 * A pattern zod can still use once frozen: zod resets `lastIndex = 0` before every regex check,
 * which a frozen RegExp refuses. Without the global or sticky flag `test` neither reads nor moves
 * `lastIndex` past 0, so setting it to the 0 it already holds is accepted and anything else refused.
 */
function resettableRegExp(pattern: RegExp): RegExp {
  return new Proxy(pattern, {
    get: (target, key) => {
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
    set: (target, key, value) => (key === 'lastIndex' && value === target.lastIndex) || Reflect.set(target, key, value),
  });
}
