/**
 * No regular expression that workflow code or a request handler runs can be made to backtrack
 * for long. Workflow code (contracts/, domain/, and each flow's contract, pure rules and workflow
 * code under flows/) runs inside a workflow task that the worker stops after 5 seconds and
 * Temporal retries for ever; request handlers (server/, client/, access/, plumbing/) block their
 * process while a pattern runs. A PRP heading of 2,000 spaces once took 43 s.
 *
 * Every regular-expression literal in those folders is found in the sources (so a new one is
 * checked without anyone listing it) and run over 50 KB strings built from its own characters:
 * long runs of one character, of a character after each of the pattern's literals, and of
 * pairs of them, each ending in a character that makes the match fail (the attack on patterns
 * whose quantifiers can trade characters, like `\s*#*\s*$`, or that retry a run from every
 * position, like an unanchored `\s+$`). A linear pattern is through all of them in well under a
 * second; a quadratic one needs tens of seconds for a single string, so the execution limit
 * (test/helpers/work-budget.ts) stops it and names it. Patterns built at run time
 * (`new RegExp`) are listed below and checked through the functions that build them.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type * as TS from 'typescript';
import { describe, expect, it } from 'vitest';
import ts from '../helpers/typescript';
import { PROJECT_ROOT } from '../../plumbing/project-root';
import { caseInsensitive } from '../../server/query-params';
import { withinBudget } from '../helpers/work-budget';

const FOLDERS = ['contracts', 'domain', 'flows', 'server', 'client', 'access', 'plumbing'];
/** A flow's activities and stand-in rules run in the worker and the stand-in, outside both. */
const OUTSIDE = /^flows\/[^/]+\/(activities|standin)(\/|\.ts$)/;
const SIZE = 50_000;

/**
 * Patterns that neither workflow code nor a request handler runs on outside input, with why.
 * Key: `<file>:<pattern>`.
 */
const NOT_ON_INPUT: Record<string, string> = {
  'plumbing/config.ts:/^([^/?#@]*\\/\\/)?[^/?#]*@/': 'the configuration (environment) only, when a value is refused',
  'workers/agent-registration.ts:/\\/+$/': "the control plane's URL from the worker's configuration, once at start",
  'plumbing/tracing.ts:/\\/+$/': "the OTLP endpoint from the worker's configuration, once at start",
};

/** Patterns built at run time in these folders, and how each is checked (a new one fails here until added). */
const BUILT_AT_RUN_TIME: Record<string, string> = {
  'server/query-params.ts': 'caseInsensitive and integer: checked below',
  'server/routes/execute.ts': 'bounded quantifiers only ({0,127}), anchored: at most 128 steps per position',
  'domain/bom-text.ts': "the literal ITEM_NUMBER with the 'g' flag, checked as a literal",
  'domain/eads-structure.ts': 'ordinal words: anchored, each whitespace run before a required word',
};

function sourcesUnder(dir: string): string[] {
  return readdirSync(path.join(PROJECT_ROOT, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourcesUnder(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : [],
  );
}

interface Found {
  file: string;
  line: number;
  text: string;
}

function scan(): { literals: Found[]; built: Found[] } {
  const literals: Found[] = [];
  const built: Found[] = [];
  for (const file of FOLDERS.flatMap(sourcesUnder).filter((f) => !OUTSIDE.test(f))) {
    // Without parent links (nothing here walks up the tree; the source file is passed where a
    // node's text is read): parsing is faster.
    const source = ts.createSourceFile(
      file,
      readFileSync(path.join(PROJECT_ROOT, file), 'utf8'),
      ts.ScriptTarget.Latest,
      false,
    );
    // Where a node is, only for the nodes kept: working out every node's line and text took most
    // of the scan.
    const at = (node: TS.Node): Found => ({
      file,
      line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1,
      text: node.getText(source),
    });
    const visit = (node: TS.Node): void => {
      if (node.kind === ts.SyntaxKind.RegularExpressionLiteral) literals.push(at(node));
      if (
        (ts.isNewExpression(node) || ts.isCallExpression(node)) &&
        ts.isIdentifier(node.expression) &&
        node.expression.text === 'RegExp'
      )
        built.push(at(node));
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return { literals, built };
}

const BASE = [
  ' ',
  '\t',
  '\n',
  '\r',
  '\u2028',
  'a',
  'A',
  '0',
  '.',
  ',',
  '-',
  '_',
  '#',
  '|',
  '*',
  '`',
  '/',
  ':',
  '(',
  ')',
  '"',
  "'",
  'é',
  '\u0000',
];
const FAIL = ['\u0000', 'x\r!'];

/** The characters a pattern names literally (escapes and syntax aside), plus a few of every class. */
function charactersOf(pattern: RegExp): string[] {
  const chars = new Set<string>([' ', 'a', '0']);
  for (const ch of pattern.source.replace(/\\[a-zA-Z]|\\u[0-9a-fA-F]{4}/g, ''))
    if (!'^$()[]{}?+*|\\'.includes(ch)) chars.add(ch);
  return [...chars].slice(0, 16);
}

/**
 * `unit` repeated `times` times. A run of one character is built once for the whole file (a
 * hundred or so of them, a few megabytes): every pattern is tried on runs of the same few dozen
 * characters, and building them again for each pattern took as long as running the patterns.
 * Runs of pairs, which differ from pattern to pattern, would hold 75 MB if all were kept.
 */
const runs = new Map<string, string>();
function run(unit: string, times: number): string {
  if (unit.length > 1) return unit.repeat(times);
  let out = runs.get(`${times}:${unit}`);
  if (out === undefined) runs.set(`${times}:${unit}`, (out = unit.repeat(times)));
  return out;
}

/**
 * Long runs that make a backtracking pattern work hard, built from the pattern's own characters:
 * each built when it is run, so that it is garbage straight after. Built all at once, a pattern's
 * five hundred inputs (25 MB) outlived the young generation and the collector copied them twice,
 * which took longer than the patterns did.
 */
function attacks(pattern: RegExp): Array<() => string> {
  const own = charactersOf(pattern);
  // Each input once: the lists below overlap (the pattern's own characters include ' ', 'a' and
  // '0', a pair's second string does not depend on its second character, and a pair of spaces is
  // a run of spaces), and running the same 50 KB string twice told nothing new. Known by how it
  // is built rather than by the string itself, which would hash 50 KB for every input.
  const out = new Map<string, () => string>();
  const add = (prefix: string, unit: string, times: number, end: string) => {
    // A unit of one character said twice is that character's run.
    if (unit.length === 2 && unit[0] === unit[1]) [unit, times] = [unit[0], times * 2];
    out.set(JSON.stringify([prefix, unit, times, end]), () => prefix + run(unit, times) + end);
  };
  for (const c of new Set([...BASE, ...own])) for (const end of ['', ...FAIL]) add('', c, SIZE, end);
  for (const p of own) for (const c of [' ', '\t', '\n', 'a', '0', '#', '-', ...own]) add(p, c, SIZE, FAIL[1]);
  for (const p of own)
    for (const q of own)
      if (p < q) {
        add('', p + q, SIZE / 2, FAIL[0]);
        add('', p + ' ', SIZE / 2, FAIL[1]);
      }
  return [...out.values()];
}

/** The pattern used the way code uses it: every match of a global one, the first of another. */
function exercise(pattern: RegExp, input: string): void {
  pattern.lastIndex = 0;
  if (pattern.global) input.replace(pattern, '');
  else pattern.exec(input);
}

const { literals, built } = scan();

describe('every regular expression on input is linear', () => {
  it('finds the patterns', () => {
    expect(literals.length).toBeGreaterThan(50);
    expect(literals.some((l) => l.file === 'flows/discovery/prp-schema.ts')).toBe(true);
  });

  it('knows every pattern built at run time', () => {
    expect([...new Set(built.map((b) => b.file))].sort()).toEqual(Object.keys(BUILT_AT_RUN_TIME).sort());
  });

  const onInput = literals.filter((l) => !NOT_ON_INPUT[`${l.file}:${l.text}`]);
  /**
   * The same literal written in several places (`/\s+/g` six times) is the same pattern on the
   * same inputs: run once, and each place gets its outcome (the first place's name in a failure).
   */
  const outcomes = new Map<string, Error | undefined>();
  it.each(onInput.map((l) => [`${l.file}:${l.line}`, l.text, l] as const))('%s %s', (where, _, found) => {
    if (!outcomes.has(found.text)) {
      // The literal exactly as written in the source.
      const pattern = (0, eval)(found.text) as RegExp;
      const inputs = attacks(pattern);
      try {
        withinBudget(
          `${where} ${found.text}`,
          () => {
            for (const input of inputs) exercise(pattern, input());
          },
          3_000,
        );
        outcomes.set(found.text, undefined);
      } catch (err) {
        outcomes.set(found.text, err as Error);
      }
    }
    const failed = outcomes.get(found.text);
    if (failed) throw failed;
  });

  it('the query-parameter patterns built at run time', () => {
    const word = caseInsensitive(['skill', 'reasoner', 'all']);
    expect(word.test('  Skill  ')).toBe(true);
    expect(word.test('   ')).toBe(true);
    expect(word.test(' skills ')).toBe(false);
    withinBudget(
      'caseInsensitive',
      () => {
        for (const input of attacks(word)) exercise(word, input());
      },
      3_000,
    );
  });
});
