/**
 * The import graph of the whole project against the layers (eslint.layers.mjs): no arrow from a
 * lower layer to a higher one, none between server/ and client/, none from workflow code to what
 * the sandbox cannot run. Every import counts, type-only and on-demand ones included. ESLint
 * applies the same table file by file; this walks every source file, so a folder ESLint is not
 * told about, or a rule switched off in one file, cannot hide an arrow.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type * as TS from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';
import ts from '../helpers/typescript';

const ROOT = path.resolve(__dirname, '..', '..');

interface LayersModule {
  LAYERS: Record<string, string[]>;
  TOOLS: string[];
  importProblem(from: string, to: string, kind?: 'static' | 'type' | 'dynamic'): string | undefined;
  resolveModule(root: string, fromFile: string, specifier: string): string | undefined;
}
// Plain JavaScript shared with eslint.config.mjs (a path the type checker does not follow).
const layersFile = path.join(ROOT, 'eslint.layers.mjs');
const { LAYERS, TOOLS, importProblem, resolveModule } = (await import(layersFile)) as LayersModule;

const SKIP = new Set(['node_modules', 'dist', 'out', 'coverage', '.tools', '.git', '.temporal', 'solver', 'replay']);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name.startsWith('.') || SKIP.has(entry.name)) return [];
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.(ts|mts)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

interface Arrow {
  from: string;
  to: string;
  specifier: string;
  kind: 'static' | 'type' | 'dynamic';
}

/** Every relative import of a file, with its kind, parsed by the TypeScript compiler. */
function arrowsOf(file: string): Arrow[] {
  // Without parent links: nothing here walks up the tree, and setting them made parsing the
  // whole project's 4 MB of source half as slow again.
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, false);
  const from = path
    .relative(ROOT, file)
    .split(path.sep)
    .join('/')
    .replace(/\.m?ts$/, '');
  const arrows: Arrow[] = [];
  const add = (specifier: string, kind: Arrow['kind']) => {
    const to = resolveModule(ROOT, file, specifier);
    if (to) arrows.push({ from, to, specifier, kind });
  };
  const visit = (node: TS.Node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const namedAllTypes =
        !!clause?.namedBindings &&
        ts.isNamedImports(clause.namedBindings) &&
        clause.namedBindings.elements.length > 0 &&
        clause.namedBindings.elements.every((e) => e.isTypeOnly) &&
        !clause.name;
      add(node.moduleSpecifier.text, clause?.isTypeOnly || namedAllTypes ? 'type' : 'static');
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      add(node.moduleSpecifier.text, node.isTypeOnly ? 'type' : 'static');
    } else if (ts.isCallExpression(node) && node.arguments.length > 0 && ts.isStringLiteral(node.arguments[0])) {
      if (node.expression.kind === ts.SyntaxKind.ImportKeyword) add(node.arguments[0].text, 'dynamic');
      else if (ts.isIdentifier(node.expression) && node.expression.text === 'require')
        add(node.arguments[0].text, 'static');
    } else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    ) {
      add(node.argument.literal.text, 'type');
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return arrows;
}

// Read in a hook rather than as the file loads: vitest records a file's hooks and tests as its
// duration, not its loading, and starts the files it knows to be longest first. Parsed on load, the
// walk (a second or more) looked like nothing, this file started among the last, and the run
// ended with it alone on one core.
let files: string[] = [];
let arrows: Arrow[] = [];
beforeAll(() => {
  files = sourceFiles(ROOT);
  arrows = files.flatMap(arrowsOf);
});
const topFolder = (module: string) => (module.includes('/') ? module.split('/')[0] : '.');

describe('the import graph', () => {
  it('is read whole', () => {
    expect(files.length).toBeGreaterThan(300);
    expect(arrows.length).toBeGreaterThan(1000);
  });

  it('has no arrow the layers refuse (type-only and on-demand imports included)', () => {
    const problems = arrows
      .map((a) => ({ ...a, problem: importProblem(a.from, a.to, a.kind) }))
      .filter((a) => a.problem)
      .map((a) => `${a.from} → ${a.specifier}: ${a.problem}`);
    expect(problems).toEqual([]);
  });

  it('has no arrow between server/ and client/, and none from a lower layer up', () => {
    const crossing = arrows.filter(
      (a) => ['server', 'client'].includes(topFolder(a.from)) && ['server', 'client'].includes(topFolder(a.to)),
    );
    expect(crossing.filter((a) => topFolder(a.from) !== topFolder(a.to))).toEqual([]);
    // The table itself is layered: no folder may import one that may import it back.
    const below = (folder: string, seen = new Set<string>()): Set<string> => {
      for (const lower of LAYERS[folder] ?? []) if (!seen.has(lower)) below(lower, seen.add(lower));
      return seen;
    };
    for (const folder of Object.keys(LAYERS)) expect(below(folder).has(folder), folder).toBe(false);
    expect(below('server').has('client')).toBe(false);
    expect(below('client').has('server')).toBe(false);
    const used = new Set(arrows.map((a) => `${topFolder(a.from)} → ${topFolder(a.to)}`));
    for (const folder of Object.keys(LAYERS))
      for (const tool of TOOLS) expect(used.has(`${folder} → ${tool}`), `${folder} → ${tool}`).toBe(false);
  });

  it('places every folder with source files in the layers', () => {
    const folders = new Set(files.map((f) => topFolder(path.relative(ROOT, f).split(path.sep).join('/'))));
    folders.delete('.');
    expect([...folders].filter((f) => !(f in LAYERS) && !TOOLS.includes(f))).toEqual([]);
  });

  it('keeps the control plane out of the worker process and the worker out of the stand-in', () => {
    const staticImports = new Map<string, string[]>();
    for (const a of arrows)
      if (a.kind === 'static') staticImports.set(a.from, [...(staticImports.get(a.from) ?? []), a.to]);
    const loads = (entry: string) => {
      const seen = new Set([entry]);
      for (const module of seen) for (const next of staticImports.get(module) ?? []) seen.add(next);
      return [...seen];
    };
    const worker = loads('workers/worker');
    expect(worker.filter((m) => /^(server|client|standin)\//.test(m))).toEqual([]);
    const standin = loads('standin/main');
    expect(standin.filter((m) => /^(workers|server|client|access)\/|\/(activities|workflow)(\/|$)/.test(m))).toEqual(
      [],
    );
    const temporalWorker = standin.filter((m) =>
      /from '@temporalio\/(worker|activity)'/.test(readFileSync(path.join(ROOT, `${m}.ts`), 'utf8')),
    );
    expect(temporalWorker).toEqual([]);
  });

  it('refuses what it should (the checks can fail)', () => {
    expect(importProblem('server/app', 'client/cli')).toMatch(/server\/ may not import client\//);
    expect(importProblem('client/cli', 'server/app')).toMatch(/client\/ may not import server\//);
    expect(importProblem('plumbing/logger', 'backends/errors')).toMatch(/plumbing\/ may not import backends\//);
    // The control plane and the CLI read the artifact store, and no other backend.
    expect(importProblem('server/console/plugin', 'backends/artifacts/index')).toBeUndefined();
    expect(importProblem('client/cli', 'backends/artifacts/index')).toBeUndefined();
    expect(importProblem('server/console/plugin', 'backends/model/gemini')).toMatch(
      /server\/ may not import backends\//,
    );
    expect(importProblem('server/console/plugin', 'backends/artifactsX/index')).toMatch(/may not import backends/);
    expect(importProblem('standin/main', 'workers/worker')).toMatch(/standin\/ may not import workers\//);
    expect(importProblem('workers/worker', 'server/agent-registration')).toBeUndefined();
    expect(importProblem('flows/bom/workflow', 'backends/errors')).toMatch(/workflow sandbox/);
    expect(importProblem('flows/bom/workflow', 'flows/bom/activities')).toMatch(/types only/);
    expect(importProblem('flows/bom/workflow', 'flows/bom/activities', 'type')).toBeUndefined();
    expect(importProblem('flows/bom/activities', 'flows/bom/workflow')).toMatch(/may not import flow workflow/);
    expect(importProblem('flows/bom/index', 'flows/bom/activities')).toMatch(/on demand only/);
    expect(importProblem('flows/bom/index', 'flows/bom/activities', 'dynamic')).toBeUndefined();
    expect(importProblem('server/console/views', 'flows/bom/activities')).toMatch(/may not import flow activities/);
    expect(importProblem('newfolder/x', 'contracts/common')).toMatch(/no place in the layers/);
  });
});
