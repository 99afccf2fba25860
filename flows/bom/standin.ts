/**
 * Stand-in rules for `answerBomQuestion`: focus terms by keyword extraction from the question, and
 * a one-sentence answer composed from the result counts and the sample rows in the prompt.
 */
import { extractFocusTerms, itemNumbersIn } from '../../domain/bom-text';
import { ModelTask, type BomExplainSections } from './model-tasks';
import { taskRule, type StandinRule } from '../lib/standin';

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

export const bomRules: StandinRule[] = [
  taskRule({
    task: ModelTask.bomFocusTerms,
    description:
      'Extracts the component kinds, values and part numbers a BOM question asks about (generic words removed).',
    answer: ({ sections }) => {
      const question = str(sections.question);
      // Part numbers first (they are the most specific), then the content words in question order.
      const parts = itemNumbersIn(question).map((p) => p.toLowerCase());
      const words = extractFocusTerms(question, 8).filter((w) => !parts.includes(w));
      return { focus_terms: [...parts, ...words].slice(0, 6) };
    },
  }),
  taskRule({
    task: ModelTask.bomExplain,
    description: 'Summarises a BOM query result in one sentence: how many rows matched and the first examples.',
    answer: ({ sections }) => {
      const result = (sections.result ?? {}) as Partial<BomExplainSections['result']>;
      const rows = Array.isArray(sections.rows) ? sections.rows.map(str).filter(Boolean) : [];
      const total = Number(result.total_rows ?? rows.length);
      const terms =
        (result.search_terms ?? []).join(result.terms_required === 'all' ? ' and ' : ' or ') || 'the question';
      const examples = rows.slice(0, 3).map((r) => r.split(' | ').slice(0, 2).join(' '));
      const shown =
        result.shown_rows !== undefined && result.shown_rows < total
          ? ` (the first ${result.shown_rows} are listed)`
          : '';
      const what = /pattern/i.test(result.method ?? '')
        ? `row${total === 1 ? '' : 's'} for ${terms}`
        : result.rows_are === 'top_level_items'
          ? `top-level item${total === 1 ? '' : 's'} containing ${terms} at some BOM level`
          : (result.search_terms ?? []).length
            ? `BOM${total === 1 ? '' : 's'} using ${terms} components`
            : `BOM${total === 1 ? '' : 's'}`;
      return { summary: `Found ${total} ${what}${shown}${examples.length ? `, e.g. ${examples.join('; ')}` : ''}.` };
    },
  }),
];
