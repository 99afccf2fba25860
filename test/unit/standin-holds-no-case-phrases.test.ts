/**
 * The stand-in's rules must work from meaning and general words, never from the wording of the
 * cases they are measured on: a rule that holds a fixture's phrase passes that fixture and
 * nothing like it. This test reads every stand-in rule file's string and regular-expression
 * literals (with the TypeScript compiler, so comments and code do not count) and fails on
 *
 * - a phrase of three or more consecutive words that one case file holds, general prose (the
 *   installed packages' documents, TypeScript's library comments) does not, and not all of whose
 *   words are common to the cases (found in three or more case files), and
 * - an uncommon word of eight or more letters: one that exactly one case file holds and that is
 *   not common language (general prose, or the shipped sentence model's vocabulary, under its
 *   base forms).
 *
 * Case files: the EADS fixtures and firms, the profiles, the bundled PRPs, and the evaluation
 * sets (development and sealed); a flow's rules against its own flow's cases, the shared rules
 * against all. A long word the rules use on three or more lines of their own is their vocabulary,
 * and the EADS library's definitions count as the product's own words, not as cases. The sealed
 * sets are read to look for the rule's words in them, and nothing of theirs is ever printed: a
 * hit in a sealed case names the rule file and its line only (the rule's phrase is the case's
 * phrase, so printing it would show a piece of the case); a hit in a development case names the
 * phrase too. (Whoever fixes a rule must not learn the sealed cases from this test either.)
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type * as TS from 'typescript';
import { describe, expect, it } from 'vitest';
import ts from '../helpers/typescript';
import { embeddingModelDir } from '../../backends/embedding';
import { embeddingModelSetting } from '../../plumbing/config';
import { methodVocabulary } from '../../flows/proposal/standin';

const ROOT = path.resolve(__dirname, '..', '..');

function walk(dir: string, keep: (file: string) => boolean = () => true): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...walk(full, keep));
    else if (entry.isFile() && keep(full)) out.push(full);
  }
  return out.sort();
}

/** Every stand-in rule file: flows/<flow>/standin.ts, flows/<flow>/standin/**, flows/lib/standin*. */
export function ruleFiles(root = ROOT): string[] {
  const flows = path.join(root, 'flows');
  const files: string[] = [];
  for (const entry of readdirSync(flows, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const dir = path.join(flows, entry.name);
    for (const name of readdirSync(dir)) {
      const full = path.join(dir, name);
      if (name === 'standin.ts' || (entry.name === 'lib' && name.startsWith('standin') && name.endsWith('.ts')))
        files.push(full);
      else if (name === 'standin' && statSync(full).isDirectory()) files.push(...walk(full, (f) => f.endsWith('.ts')));
    }
  }
  return files.sort();
}

const TEXT = /\.(json|md|ts|txt|ya?ml|csv)$/i;

/** The case files: fixtures, profiles, PRPs and the evaluation sets (their suite code aside). */
export function caseFiles(root = ROOT, flow?: string): string[] {
  const evalDir = path.join(root, 'eval');
  const evalFlows = [evalDir, path.join(evalDir, 'sealed')].flatMap((dir) =>
    readdirSync(dir, { withFileTypes: true })
      .filter((d) => d.isDirectory() && d.name !== 'sealed' && (!flow || d.name === flow))
      .map((d) => path.join(dir, d.name)),
  );
  // The EADS library (data/eads) is not a case: it is the definitions the product runs on, whose
  // questions and choices the stand-in is asked about in every interview.
  const data = Object.entries(CASE_DATA)
    .filter(([owner]) => !flow || owner === flow)
    .map(([, dir]) => dir);
  return [
    ...data.flatMap((d) => walk(path.join(root, d), (f) => TEXT.test(f))),
    // eval/<flow>/ (development) and eval/sealed/<flow>/; a suite's index.ts is scoring code.
    ...evalFlows.flatMap((d) => walk(d, (f) => TEXT.test(f) && path.basename(f) !== 'index.ts')),
  ];
}

/** The bundled cases of each flow: a rule is checked against its own flow's cases (a shared rule against all). */
const CASE_DATA: Record<string, string> = {
  eads: 'data/eads-fixtures',
  proposal: 'data/profiles',
  discovery: 'data/prp',
};

/** The flow a rule file belongs to (flows/<flow>/...), or undefined for the shared rules. */
function flowOf(relative: string): string | undefined {
  const [top, flow] = relative.split(path.sep);
  return top === 'flows' && flow !== 'lib' ? flow : undefined;
}

/** One literal of a rule file, as the phrases it holds (runs of words between punctuation). */
export interface RuleLiteral {
  line: number;
  phrases: string[][];
}

const wordsOf = (text: string): string[] => text.toLowerCase().match(/[a-z0-9]+/g) ?? [];

/** Phrases of plain text: punctuation ends a phrase, spaces and hyphens do not. */
const phrasesOfText = (text: string): string[][] =>
  text
    .split(/[.,;:!?()[\]{}|"`/\\<>=+*&^%$#@~\n\r\t]+/)
    .map(wordsOf)
    .filter((w) => w.length > 0);

/**
 * Phrases of a regular expression's source: whitespace classes join words, every other piece of
 * syntax (alternation, groups, classes, quantifiers, anchors) ends a phrase.
 */
const phrasesOfRegex = (source: string): string[][] =>
  phrasesOfText(
    source
      .replace(/\\[sW][+*?]?|\\-/g, ' ')
      .replace(/\\[bBdDwS]/g, '|')
      .replace(/\{\d+(,\d*)?\}/g, '|'),
  );

/** The string, template and regular-expression literals of a TypeScript file (imports aside). */
export function literalsOf(file: string, text = readFileSync(file, 'utf8')): RuleLiteral[] {
  // Without parent links (nothing here walks up the tree): parsing is faster.
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false);
  const out: RuleLiteral[] = [];
  const add = (node: TS.Node, phrases: string[][]) => {
    if (phrases.length)
      out.push({ line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1, phrases });
  };
  const visit = (node: TS.Node) => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) return;
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) add(node, phrasesOfText(node.text));
    else if (ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node))
      add(node, phrasesOfText(node.text));
    else if (ts.isRegularExpressionLiteral(node)) {
      const literal = node.text;
      add(node, phrasesOfRegex(literal.slice(1, literal.lastIndexOf('/'))));
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

/** What the case files hold: per file, its words and its three-word runs. */
export interface CaseIndex {
  /** For each word, how many case files hold it. */
  files: Map<string, number>;
  /** Three-word runs (joined by a space), and how many case files hold each. */
  trigrams: Map<string, number>;
}

/** Words and three-word runs an index is asked about; an index of `only` these counts them alone. */
export interface Wanted {
  words: ReadonlySet<string>;
  trigrams: ReadonlySet<string>;
}

/**
 * The index of `texts`; with `only`, of those words and runs alone (their counts are the same as
 * in the whole index). The general prose is 9 MB: its whole index held 600,000 runs, built for
 * the few thousand the rules hold, and took most of this file's time.
 */
export function indexCases(texts: Iterable<string>, only?: Wanted): CaseIndex {
  const files = new Map<string, number>();
  const trigrams = new Map<string, number>();
  // A run is only built when its first word starts a wanted run.
  const firsts = only && new Set([...only.trigrams].map((t) => t.slice(0, t.indexOf(' '))));
  for (const text of texts) {
    const words = wordsOf(text);
    for (const w of new Set(words)) if (!only || only.words.has(w)) files.set(w, (files.get(w) ?? 0) + 1);
    const runs = new Set<string>();
    for (let i = 0; i + 2 < words.length; i++) {
      if (firsts && !firsts.has(words[i])) continue;
      const run = `${words[i]} ${words[i + 1]} ${words[i + 2]}`;
      if (!only || only.trigrams.has(run)) runs.add(run);
    }
    for (const r of runs) trigrams.set(r, (trigrams.get(r) ?? 0) + 1);
  }
  return { files, trigrams };
}

/** What the rules' literals can ask of an index: their words (under every base form) and runs. */
export function wantedBy(literals: Iterable<RuleLiteral>): Wanted {
  const words = new Set<string>();
  const trigrams = new Set<string>();
  for (const { phrases } of literals)
    for (const phrase of phrases) {
      for (const w of phrase) for (const f of baseForms(w)) words.add(f);
      for (let i = 0; i + 2 < phrase.length; i++) trigrams.add(phrase.slice(i, i + 3).join(' '));
    }
  return { words, trigrams };
}

/**
 * General English and technical prose that no case wrote: the READMEs and documents of the
 * installed packages, and TypeScript's library declarations (their comments). A word or a
 * three-word run found there is common language, whatever the cases say.
 */
export function generalTexts(root = ROOT): string[] {
  const modules = path.join(root, 'node_modules');
  const packages = readdirSync(modules, { withFileTypes: true }).flatMap((d) =>
    d.name.startsWith('@') ? readdirSync(path.join(modules, d.name)).map((n) => path.join(d.name, n)) : [d.name],
  );
  const files = packages.flatMap((p) => {
    const dir = path.join(modules, p);
    try {
      return readdirSync(dir)
        .filter((n) => /\.md$/i.test(n))
        .map((n) => path.join(dir, n));
    } catch {
      return [];
    }
  });
  const tsLib = path.join(modules, 'typescript', 'lib');
  files.push(
    ...readdirSync(tsLib)
      .filter((n) => /^lib\..*\.d\.ts$/.test(n))
      .map((n) => path.join(tsLib, n)),
  );
  // The EADS library's definitions are the product's own words (the choices' names and what they
  // mean), which the rules are meant to speak: "changeover" is the name of a challenge there.
  files.push(...walk(path.join(root, 'data', 'eads'), (f) => f.endsWith('.json')));
  // So are the names of the research methods the proposal model proposes: the field's standard
  // terms ("semi-structured interviews"), which a researcher writes in a profile as readily.
  return [...files.map((f) => readFileSync(f, 'utf8')), methodVocabulary().join('\n')];
}

/**
 * The whole words of the shipped sentence model's WordPiece vocabulary (all-MiniLM-L6-v2, the
 * BERT vocabulary: words frequent in encyclopaedia and book text), or none when the model is not
 * installed. A word there is common English.
 */
export function modelVocabulary(): Set<string> {
  const dir = embeddingModelDir(embeddingModelSetting.parse(process.env.AGENT_FLOWS_EMBEDDING_MODEL));
  const file = dir && path.join(dir, 'tokenizer.json');
  if (!file || !existsSync(file)) return new Set();
  const vocab = (JSON.parse(readFileSync(file, 'utf8')) as { model: { vocab: Record<string, number> } }).model.vocab;
  return new Set(Object.keys(vocab).filter((w) => /^[a-z]+$/.test(w)));
}

/** The forms a dictionary would list a word under: itself, without its inflection, in US spelling. */
function baseForms(word: string): string[] {
  const forms = new Set([word]);
  for (const [end, repl] of [
    ['ies', 'y'],
    ['es', ''],
    ['s', ''],
    ['ed', ''],
    ['ed', 'e'],
    ['ing', ''],
    ['ing', 'e'],
    ['ity', ''],
  ] as const)
    if (word.endsWith(end) && word.length - end.length >= 4) forms.add(word.slice(0, -end.length) + repl);
  for (const f of [...forms])
    if (/is(e|ed|es|ing|ation)$/.test(f)) forms.add(f.replace(/is(e|ed|es|ing|ation)$/, 'iz$1'));
  return [...forms];
}

/** Common language: the model's vocabulary and the general prose, under any of the word's base forms. */
export function isCommonWord(word: string, general: CaseIndex, vocabulary: ReadonlySet<string>): boolean {
  return baseForms(word).some((f) => vocabulary.has(f) || general.files.has(f));
}

/** A word several cases use is common vocabulary, not one case's wording. */
export const COMMON_IN_FILES = 3;
const LONG_WORD = 8;
const OWN_VOCABULARY_LINES = 3;

/** The words rule literals use on three or more lines (of one file or across the files given). */
export function vocabularyOf(files: RuleLiteral[][]): Set<string> {
  const lines = new Map<string, number>();
  for (const literals of files) {
    // Each word once per line of this file.
    const seen = new Set<string>();
    for (const { line, phrases } of literals)
      for (const words of phrases)
        for (const w of words) {
          if (seen.has(`${line} ${w}`)) continue;
          seen.add(`${line} ${w}`);
          lines.set(w, (lines.get(w) ?? 0) + 1);
        }
  }
  return new Set([...lines].filter(([, n]) => n >= OWN_VOCABULARY_LINES).map(([w]) => w));
}

/**
 * The hits of one rule file against the cases: `file:line: phrase` (the rule's side only).
 * A phrase counts when a case holds it, common prose does not, and one of its words is not
 * common to the cases; a long word when exactly one case file holds it and common prose never.
 */
export function caseWordingIn(
  file: string,
  literals: RuleLiteral[],
  cases: CaseIndex,
  general: CaseIndex,
  vocabulary: ReadonlySet<string> = new Set(),
  /** Words the flow's rules use on several lines of their own (their vocabulary); default: this file's. */
  ownWords?: ReadonlySet<string>,
  /** How many case files of every flow hold a word (whether a phrase's words are common); default: `cases`. */
  allFiles: ReadonlyMap<string, number> = cases.files,
  /**
   * What the sealed cases hold: a hit found there names the rule's line only. The rule's phrase is
   * the case's phrase, and printing it would show whoever fixes the rule a piece of a sealed case.
   */
  sealed?: CaseIndex,
): string[] {
  const hits = new Set<string>();
  const hidden = (line: number) =>
    `${file}:${line}: a phrase or uncommon word of a sealed case (not shown: reword the line)`;
  const inFiles = (w: string) => cases.files.get(w) ?? 0;
  const inAnyFiles = (w: string) => allFiles.get(w) ?? 0;
  // A long word the rules write on several lines of their own is their vocabulary (a method's
  // name, say), not one case's wording picked up to pass it.
  const own = ownWords ?? vocabularyOf([literals]);
  const ownVocabulary = (w: string) => own.has(w);
  for (const { line, phrases } of literals) {
    for (const words of phrases) {
      for (let i = 0; i + 2 < words.length; i++) {
        const run = words.slice(i, i + 3);
        const text = run.join(' ');
        // One case's wording: a run only one case file holds, that common prose never uses.
        if (
          cases.trigrams.get(text) === 1 &&
          !general.trigrams.has(text) &&
          run.some((w) => inAnyFiles(w) < COMMON_IN_FILES)
        )
          hits.add(sealed?.trigrams.has(text) ? hidden(line) : `${file}:${line}: phrase "${text}"`);
      }
      for (const w of words) {
        if (
          w.length >= LONG_WORD &&
          /^[a-z]+$/.test(w) &&
          inFiles(w) === 1 &&
          !ownVocabulary(w) &&
          !isCommonWord(w, general, vocabulary)
        )
          hits.add(sealed?.files.has(w) ? hidden(line) : `${file}:${line}: uncommon word "${w}"`);
      }
    }
  }
  return [...hits];
}

describe('stand-in rules hold no case wording', () => {
  it('finds the rule literals, and the phrases of regular expressions', () => {
    const lits = literalsOf(
      'x.ts',
      "import a from 'some module path';\nconst r = /\\b(closing|opening)\\s+line moves\\b/i;\nconst s = `one ${x} two three four`;\n// a comment with many words here\n",
    );
    expect(lits).toEqual([
      { line: 2, phrases: [['closing'], ['opening'], ['line', 'moves']] },
      { line: 3, phrases: [['one']] },
      { line: 3, phrases: [['two', 'three', 'four']] },
    ]);
  });

  it('flags a case phrase and a word only one case uses, not common vocabulary', () => {
    const cases = indexCases([
      'the home team scored against the visitors in overtime',
      'the home team lost',
      'the home team won',
      'the away team',
    ]);
    const lits: RuleLiteral[] = [
      { line: 1, phrases: [['the', 'home', 'team']] },
      { line: 2, phrases: [['scored', 'against', 'the']] },
      { line: 3, phrases: [['overtime']] },
      { line: 4, phrases: [['probability']] },
    ];
    const general = indexCases(['they scored against the odds', 'a probability of one']);
    expect(caseWordingIn('r.ts', lits, cases, general)).toEqual(['r.ts:3: uncommon word "overtime"']);
    expect(caseWordingIn('r.ts', lits, cases, general, new Set(['overtime']))).toEqual([]);
    expect(caseWordingIn('r.ts', lits, cases, indexCases([]))).toEqual([
      'r.ts:2: phrase "scored against the"',
      'r.ts:3: uncommon word "overtime"',
    ]);
    expect(caseWordingIn('r.ts', lits, cases, indexCases(['the match went to overtime']))).toEqual([
      'r.ts:2: phrase "scored against the"',
    ]);
  });

  it('names only the line of a rule that holds the wording of a sealed case, never the wording', () => {
    const sealedText = 'the home team scored against the visitors in overtime';
    const cases = indexCases([sealedText, 'the home team lost', 'the home team won']);
    const lits: RuleLiteral[] = [
      { line: 2, phrases: [['scored', 'against', 'the']] },
      { line: 3, phrases: [['overtime']] },
    ];
    const hits = caseWordingIn(
      'r.ts',
      lits,
      cases,
      indexCases([]),
      new Set(),
      undefined,
      cases.files,
      indexCases([sealedText]),
    );
    expect(hits).toEqual([
      'r.ts:2: a phrase or uncommon word of a sealed case (not shown: reword the line)',
      'r.ts:3: a phrase or uncommon word of a sealed case (not shown: reword the line)',
    ]);
    expect(hits.join(' ')).not.toMatch(/scored|overtime/);
  });

  it('finds the rule files of every flow', () => {
    expect(ruleFiles().map((f) => path.relative(ROOT, f))).toEqual(
      expect.arrayContaining(['flows/discovery/standin.ts', 'flows/lib/standin.ts', 'flows/lib/standin/meaning.ts']),
    );
  });

  // The texts are read once and only searched; no part of a case reaches a message.
  let common: { general: CaseIndex; vocabulary: Set<string> } | undefined;
  const casesOf = new Map<string, CaseIndex>();
  const sealedOf = new Map<string, CaseIndex>();
  const loadCorpus = (flow: string | undefined) => {
    // The general prose is only asked about the rules' own words and runs.
    common ??= {
      general: indexCases(generalTexts(), wantedBy(rules.flatMap(literalsOfRule))),
      vocabulary: modelVocabulary(),
    };
    const index = (key: string | undefined) => {
      if (!casesOf.has(key ?? '*'))
        casesOf.set(key ?? '*', indexCases(caseFiles(ROOT, key).map((f) => readFileSync(f, 'utf8'))));
      return casesOf.get(key ?? '*')!;
    };
    if (!sealedOf.has(flow ?? '*'))
      sealedOf.set(
        flow ?? '*',
        indexCases(
          caseFiles(ROOT, flow)
            .filter((f) => f.startsWith(path.join(ROOT, 'eval', 'sealed') + path.sep))
            .map((f) => readFileSync(f, 'utf8')),
        ),
      );
    // A rule's flow's own cases hold its phrases and words; whether a word is common, all cases say.
    return { cases: index(flow), allFiles: index(undefined).files, sealed: sealedOf.get(flow ?? '*')!, ...common };
  };
  const rules = ruleFiles().map((f) => path.relative(ROOT, f));
  // Each rule file parsed once, each flow's vocabulary gathered once (not again for every file).
  const literalsByRule = new Map<string, RuleLiteral[]>();
  const literalsOfRule = (rule: string) => {
    if (!literalsByRule.has(rule)) literalsByRule.set(rule, literalsOf(path.join(ROOT, rule)));
    return literalsByRule.get(rule)!;
  };
  const vocabularyByFlow = new Map<string, Set<string>>();
  const ownWordsOf = (flow: string | undefined) => {
    if (!vocabularyByFlow.has(flow ?? '*'))
      vocabularyByFlow.set(flow ?? '*', vocabularyOf(rules.filter((r) => flowOf(r) === flow).map(literalsOfRule)));
    return vocabularyByFlow.get(flow ?? '*')!;
  };

  it.each(rules)('%s holds no phrase or uncommon word of a case', (file) => {
    const flow = flowOf(file);
    const { cases, allFiles, general, vocabulary, sealed } = loadCorpus(flow);
    const literals = literalsOfRule(file);
    expect(caseWordingIn(file, literals, cases, general, vocabulary, ownWordsOf(flow), allFiles, sealed)).toEqual([]);
  });
});
