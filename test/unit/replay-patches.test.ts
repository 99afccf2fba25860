/**
 * Every `patched()` and `deprecatePatch()` id in the flows has both of its paths in the replay
 * corpus (test/replay/): a history that took the new branch (it carries the patch's marker) and
 * one recorded before the patch existed (a run of the same workflow type without the marker).
 * Without the first, nothing checks that the new branch replays; without the second, nothing
 * checks that the old one still does, and removing the old branch too early would go unnoticed.
 *
 * The ids are found in the sources (a new patch is checked without anyone listing it): each call
 * of `patched`/`deprecatePatch` under flows/, its argument a string literal or a constant the
 * type checker resolves to one (the exported `*_PATCH` ids).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type * as TS from 'typescript';
import { describe, expect, it } from 'vitest';
import ts from '../helpers/typescript';
import { PROJECT_ROOT } from '../../plumbing/project-root';

const REPLAY_DIR = path.join(PROJECT_ROOT, 'test', 'replay');

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourcesUnder(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : [],
  );
}

/** An import declaration that brings in types only. */
function typeOnlyImport(node: TS.Node | undefined): boolean {
  if (!node || !ts.isImportDeclaration(node) || !node.importClause) return false;
  const { isTypeOnly, name, namedBindings } = node.importClause;
  if (isTypeOnly) return true;
  return (
    !name &&
    !!namedBindings &&
    ts.isNamedImports(namedBindings) &&
    namedBindings.elements.length > 0 &&
    namedBindings.elements.every((e) => e.isTypeOnly)
  );
}

/** Patch id -> the files (relative) that call patched/deprecatePatch with it. */
function patchIdsInFlows(): Map<string, string[]> {
  // The files that name patched or deprecatePatch at all (the others cannot call them); the
  // program still reads what they import, so a constant id from another file resolves.
  // Type-checking the whole of flows/ (a megabyte, mostly stand-in rule tables) took a second.
  const files = sourcesUnder(path.join(PROJECT_ROOT, 'flows')).filter((file) =>
    /\b(patched|deprecatePatch)\b/.test(readFileSync(file, 'utf8')),
  );
  const options: TS.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.CommonJS,
    moduleResolution: ts.ModuleResolutionKind.Node10,
    esModuleInterop: true,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    // Only the project's own files: a patch id is a constant of the flows, and reading the
    // declarations of every package they import (zod, the SDK, Node: some 1,400 files) took
    // the checker eight seconds and told it nothing about the ids. An id from a package stays
    // unresolved, and the check below names it.
    noLib: true,
    types: [],
  };
  const host = ts.createCompilerHost(options);
  host.resolveModuleNameLiterals = (literals, containing, _redirect, opts) =>
    literals.map((literal) => {
      // Type-only imports (`import type`, or names all marked `type`) are not followed either:
      // a patch id is a value, and code cannot use a type-only import as one. Following them
      // read the activities and stand-in tables the workflows take types from (96 files, not
      // 41). A constant this missed would stay unresolved, and the check below would name it.
      if (typeOnlyImport(literal.parent)) return { resolvedModule: undefined };
      const found = ts.resolveModuleName(literal.text, containing, opts, host).resolvedModule;
      return { resolvedModule: found && !found.isExternalLibraryImport ? found : undefined };
    });
  const program = ts.createProgram({ rootNames: files, options, host });
  const checker = program.getTypeChecker();
  const ids = new Map<string, string[]>();
  const unresolved: string[] = [];
  for (const file of files) {
    const source = program.getSourceFile(file);
    if (!source) continue;
    const visit = (node: TS.Node): void => {
      if (
        ts.isCallExpression(node) &&
        ts.isIdentifier(node.expression) &&
        (node.expression.text === 'patched' || node.expression.text === 'deprecatePatch')
      ) {
        const arg = node.arguments[0];
        const type = arg && checker.getTypeAtLocation(arg);
        const where = `${path.relative(PROJECT_ROOT, file)}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
        if (type?.isStringLiteral()) ids.set(type.value, [...(ids.get(type.value) ?? []), where]);
        else unresolved.push(where);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  // An id only known at run time cannot be checked: keep every id a constant.
  expect(unresolved, 'patch ids that are not constant strings').toEqual([]);
  return ids;
}

interface Corpus {
  file: string;
  workflowType: string;
  patches: Set<string>;
  /** Failed on its input before doing anything: reaches no patched code. */
  invalidInput: boolean;
}

function decode(b64: string | undefined): string {
  return Buffer.from(b64 ?? '', 'base64').toString('utf8');
}

/** The patch ids a history carries: core's `core_patch` markers and the TemporalChangeVersion upserts. */
function readCorpus(): Corpus[] {
  return readdirSync(REPLAY_DIR)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((file) => {
      const { events } = JSON.parse(readFileSync(path.join(REPLAY_DIR, file), 'utf8')) as {
        events: Record<string, any>[];
      };
      const patches = new Set<string>();
      let invalidInput = false;
      for (const e of events) {
        const marker = e.markerRecordedEventAttributes;
        if (marker?.markerName === 'core_patch') {
          for (const p of marker.details?.['patch-data']?.payloads ?? []) {
            const id = (JSON.parse(decode(p.data)) as { id?: string }).id;
            if (id) patches.add(id);
          }
        }
        const version =
          e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields?.TemporalChangeVersion;
        if (version) for (const id of JSON.parse(decode(version.data)) as string[]) patches.add(id);
        const failure = e.workflowExecutionFailedEventAttributes?.failure;
        if (failure?.applicationFailureInfo?.type === 'InvalidInput') invalidInput = true;
      }
      const workflowType = events[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name ?? '';
      return { file, workflowType, patches, invalidInput };
    });
}

describe('the replay corpus covers both paths of every patch', () => {
  const ids = patchIdsInFlows();
  const corpus = readCorpus();

  it('finds the patches in the flows', () => {
    // A scanner that finds nothing would pass every check below.
    expect(ids.size).toBeGreaterThanOrEqual(10);
  });

  it.each([...ids.keys()].sort())('%s', (id) => {
    const taken = corpus.filter((h) => h.patches.has(id));
    expect(
      taken.map((h) => h.file),
      `no history takes the new branch of '${id}' (${ids.get(id)!.join(', ')}): record one`,
    ).not.toEqual([]);
    // The workflow types whose runs reach the patched code are those that recorded its marker.
    const types = new Set(taken.map((h) => h.workflowType));
    const before = corpus.filter((h) => types.has(h.workflowType) && !h.patches.has(id) && !h.invalidInput);
    expect(
      before.map((h) => h.file),
      `no ${[...types].join('/')} history was recorded before '${id}' existed: keep one`,
    ).not.toEqual([]);
  });
});
