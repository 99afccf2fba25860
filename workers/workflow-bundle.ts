/**
 * How every workflow bundle of the project is made: the same options whether the worker bundles at
 * start, `npm run build` prebuilds it, or the tests and benches bundle once per run.
 *
 * Memory: the SDK runs every cached workflow in one shared V8 context but gives each workflow its
 * own copy of the modules it loads, so a module imported by workflow code is evaluated again for
 * every workflow in the cache. zod and the flow contracts cost ~2.5 MB per cached workflow that
 * way (bench/workflow-cache-memory.ts). The pure layers workflows import (the contracts with their
 * zod schemas, and the domain rules) are instead preloaded once, when the context is created, and
 * shared by every workflow: the SDK freezes them then (contracts/workflow-preload.ts readies the
 * schemas for it). They must hold no state that changes after
 * the module has loaded (ESLint's rules for contracts/ and domain/ forbid module-level `let` and
 * mutating module-level collections from functions); the workflows' own modules stay per workflow.
 */
import path from 'node:path';
import type { BundleOptions } from '@temporalio/worker';
import { WORKFLOW_INTERCEPTOR_MODULES } from '../plumbing/tracing';

/**
 * Preloaded modules, by path from the project root without extension (so the compiled `.js` copy
 * resolves as well as the `.ts` source): the one module that imports every contracts and domain
 * module workflow code uses and prepares their schemas for the freeze. test/workflow-bundle.test.ts
 * checks it against the workflows' imports.
 */
export const PRELOADED_MODULES = ['flows/lib/workflow/preload'] as const;

/**
 * Options for `bundleWorkflowCode` for a workflows entry file. The project root is by default the
 * folder above the entry's folder (`workflows/index.ts`, in the sources as in `dist/`).
 */
export function workflowBundleOptions(
  workflowsPath: string,
  root: string = path.resolve(path.dirname(workflowsPath), '..'),
): Pick<BundleOptions, 'workflowsPath' | 'workflowInterceptorModules' | 'preloadModules'> {
  return {
    workflowsPath,
    workflowInterceptorModules: WORKFLOW_INTERCEPTOR_MODULES,
    preloadModules: PRELOADED_MODULES.map((module) => path.join(root, module)),
  };
}
