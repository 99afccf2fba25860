/**
 * The modules preloaded into the workflow bundle (workers/workflow-bundle.ts): every module outside
 * workflow code that workflow code imports (each flow's contract and pure rules, the shared
 * contracts and domain rules) is among them, and their schemas still work once frozen the way the
 * SDK freezes preloaded modules.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../plumbing/project-root';
import { SHARED_MODULES, shareModules } from '../../flows/lib/workflow/preload';
import { FLOWS, flows } from '../../flows/registry';
import { generatedBundleModules, sharedModulesOf } from '../../workers/workflow-bundle';

/** What the generated preload module imports, from the root without extension. */
const preloadedPaths = [
  ...runtimeImports(path.join(PROJECT_ROOT, 'flows', 'lib', 'workflow', 'preload.ts')),
  ...FLOWS.flatMap(sharedModulesOf).map((m) => path.relative(PROJECT_ROOT, m)),
];
/** The same modules loaded here, readied for the freeze as the preload module readies them. */
const flowModules: Record<string, unknown> = {};
for (const module of FLOWS.flatMap(sharedModulesOf)) flowModules[module] = await import(module);
shareModules(flowModules);
const PRELOADED = { SHARED_MODULES, flowModules };

/** Workflow code: each flow's workflow.ts and workflow/ folder, and the shared workflow helpers. */
const isWorkflowCode = (module: string) => /(^|\/)workflow(\.ts$|\/|$)/.test(module);

/** Source files under a folder, recursively. */
function sourcesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourcesUnder(path.join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [path.join(dir, entry.name)]
        : [],
  );
}

/** Project modules (from the root, no extension) a file imports at run time (type-only imports are erased). */
function runtimeImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const match of text.matchAll(/^import\s+(type\s+)?[^;]*?from\s+'(\.[^']+)';/gms)) {
    if (match[1]) continue;
    out.push(path.relative(PROJECT_ROOT, path.resolve(path.dirname(file), match[2])));
  }
  return out;
}

/** The SDK's freeze of preloaded modules (@temporalio/worker, reusable-vm.js `deepFreeze`), as written there. */
function deepFreeze(object: unknown, visited = new WeakSet<object>()): unknown {
  if (object == null || (typeof object !== 'object' && typeof object !== 'function')) return object;
  if (visited.has(object) || Object.isFrozen(object)) return object;
  visited.add(object);
  if (typeof object === 'object') {
    for (const name of [...Object.getOwnPropertyNames(object), ...Object.getOwnPropertySymbols(object)]) {
      const value = (object as Record<PropertyKey, unknown>)[name];
      if (value && (typeof value === 'object' || typeof value === 'function')) {
        try {
          deepFreeze(value, visited);
        } catch {
          // Some objects cannot be frozen (typed arrays): the SDK skips them too.
        }
      }
    }
  }
  return Object.freeze(object);
}

describe('modules shared by every workflow', () => {
  it('preloads every module outside workflow code that workflow code imports', () => {
    const preloaded = new Set(preloadedPaths);
    const imported = new Set(
      sourcesUnder(path.join(PROJECT_ROOT, 'flows'))
        .filter((file) => isWorkflowCode(path.relative(PROJECT_ROOT, file)))
        .flatMap(runtimeImports)
        .filter((m) => /^(contracts|domain|flows)\//.test(m) && !isWorkflowCode(m)),
    );
    expect(imported.size).toBeGreaterThan(5);
    expect([...imported].filter((m) => !preloaded.has(m))).toEqual([]);
  });

  it('makes the bundle entry and the preload module from the flow list', () => {
    const { entry, preload } = generatedBundleModules(FLOWS);
    for (const flow of FLOWS) {
      expect(entry).toContain(JSON.stringify(path.join(flow.folder, 'workflow')));
      for (const module of sharedModulesOf(flow)) expect(preload).toContain(JSON.stringify(module));
    }
    // Never the workflow code itself (it stays per workflow), the activities or the stand-in rules.
    expect(preload).not.toMatch(/\/(workflow|activities|standin|index)"/);
  });

  it('shares no RegExp with the g or y flag (frozen, it cannot move its position: every use would throw)', () => {
    const found: string[] = [];
    const seen = new Set<object>();
    const walk = (value: unknown, where: string) => {
      if (value === null || typeof value !== 'object' || seen.has(value)) return;
      seen.add(value);
      if (value instanceof RegExp) {
        if (value.global || value.sticky) found.push(`${where}: ${value}`);
        return;
      }
      for (const key of Reflect.ownKeys(value)) {
        let child: unknown;
        try {
          child = (value as Record<PropertyKey, unknown>)[key];
        } catch {
          continue;
        }
        walk(child, `${where}.${String(key)}`);
      }
    };
    walk(PRELOADED, 'PRELOADED');
    expect(seen.size).toBeGreaterThan(1000);
    expect(found).toEqual([]);
  });

  it('validates every flow input once its schemas are frozen as the SDK freezes them, with no parse before', () => {
    // Nothing has parsed with these schemas in this file: the freeze meets them as the worker's does.
    deepFreeze(PRELOADED);
    for (const flow of flows) {
      expect(Object.isFrozen(flow.input)).toBe(true);
      for (const example of flow.examples) expect(flow.input.safeParse(example).success).toBe(true);
      for (const bad of ['text', 42, null, { unexpectedField: 'x'.repeat(300) }]) {
        const result = flow.input.safeParse(bad);
        expect(result.success).toBe(false);
        expect(result.error?.issues.length).toBeGreaterThan(0);
      }
    }
    // Every other schema the workflows can reach (update and signal arguments, nested parts) parses
    // and refuses without tripping over the freeze.
    const schemas = new Set<{ safeParse(value: unknown): { success: boolean } }>();
    for (const module of [...Object.values(SHARED_MODULES), ...Object.values(flowModules)])
      for (const value of Object.values(module as object))
        if (value && typeof value === 'object' && '_zod' in value && 'safeParse' in value)
          schemas.add(value as { safeParse(value: unknown): { success: boolean } });
    expect(schemas.size).toBeGreaterThan(30);
    for (const schema of schemas)
      for (const value of ['text', '', 42, null, {}, [], { questionId: 'q1', answer: 'yes', eadsId: 'x' }])
        expect(() => schema.safeParse(value)).not.toThrow();
  });
});
