/**
 * The stand-in reads a prompt's tagged sections from every request body (up to 32 MB, no
 * token): reading them must stay linear in the text, and find what the pattern it replaces found.
 */
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../contracts/common';
import { readSections, renderSections } from '../../backends/model/prompt';
import { withinBudget } from '../helpers/work-budget';

/** The pattern readSections used to run (quadratic on opening tags without a closing one). */
function byPattern(text: string): Record<string, unknown> {
  const sections: Record<string, unknown> = {};
  const re = /<([a-zA-Z_][\w-]*)>\n([\s\S]*?)\n<\/\1>/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    try {
      sections[m[1]] = JSON.parse(m[2]);
    } catch {
      sections[m[1]] = m[2];
    }
  }
  return sections;
}

describe('readSections', () => {
  it('reads back what renderSections wrote', () => {
    const sections = { question: 'which BOMs use a battery?', columns: [{ name: 'a' }], note: 'x\n<b>\ny' };
    expect(readSections(renderSections(sections))).toEqual(sections);
  });

  it('finds the same sections as the pattern it replaces', () => {
    const random = mulberry32(7);
    const pieces = [
      '<a>\n',
      '\n</a>',
      '<b>\n',
      '\n</b>',
      '<a-1>\n',
      '\n</a-1>',
      'x',
      '\n',
      '<',
      '>',
      '{"k":1}',
      '<a>',
      '</a>',
    ];
    for (let round = 0; round < 3000; round++) {
      let text = '';
      for (let k = Math.floor(random() * 12); k > 0; k--) text += pieces[Math.floor(random() * pieces.length)];
      expect(readSections(text), JSON.stringify(text)).toEqual(byPattern(text));
    }
  });

  it('stays linear on opening tags that never close', () => {
    for (const text of ['<a>\n'.repeat(250_000), '<a>\n\n</b>'.repeat(100_000), '<a>\nx\n</a'.repeat(100_000)])
      withinBudget('readSections', () => readSections(text), 2_000);
    let distinct = '';
    for (let i = 0; i < 100_000; i++) distinct += `<n${i}>\n`;
    withinBudget('readSections (distinct names)', () => readSections(distinct), 2_000);
  });
});
