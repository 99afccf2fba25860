/**
 * The contracts and domain rules that workflow code imports, loaded once per worker and shared by
 * every workflow (workers/workflow-bundle.ts preloads this module into the workflow bundle).
 *
 * The SDK freezes preloaded modules so that no workflow can change what another one sees. zod
 * builds some members of a schema on first use (its methods, derived internals) and stores them
 * on the schema, which a frozen schema refuses: so every schema reachable from these modules has
 * those members built here, once, before the freeze.
 */
import * as agentRegistry from './agent-registry';
import * as bom from './bom';
import * as common from './common';
import * as discovery from './discovery';
import * as eads from './eads';
import * as failures from './failures';
import * as platform from './platform';
import * as proposal from './proposal';
import * as progressMessages from './progress-messages';
import * as proposalMessages from './proposal-messages';
import * as schedule from './schedule';
import * as bomText from '../domain/bom-text';
import * as eadsStructure from '../domain/eads-structure';
import * as proposalQuality from '../domain/proposal-quality';
import * as prpSchema from '../domain/prp-schema';
import * as registryProof from '../domain/registry-proof';
import * as scheduleModel from '../domain/schedule-model';

export const PRELOADED = {
  agentRegistry,
  bom,
  common,
  discovery,
  eads,
  failures,
  platform,
  progressMessages,
  proposal,
  proposalMessages,
  schedule,
  bomText,
  eadsStructure,
  proposalQuality,
  prpSchema,
  registryProof,
  scheduleModel,
};

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

materializeLazyMembers(PRELOADED);
