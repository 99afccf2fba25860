/**
 * The stand-in's rules run on prompt text a flow's input fills (a PRP passes the contract at up
 * to 200,000 characters): what they do with it must stay linear, or one run blocks the stand-in
 * for every other run.
 */
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../contracts/common';
import { subjectOf } from '../../flows/discovery/standin';
import { deniedTrouble, stepsFromProse, withoutDenials } from '../../flows/eads/standin';
import { withinBudget } from '../helpers/work-budget';

describe("the discovery stand-in's PRP subject", () => {
  it('is the first heading, also after blank lines, else the first line', () => {
    expect(subjectOf('\n\n   \n## PRP: Sales ledger\ntext')).toBe('Sales ledger');
    expect(subjectOf('intro\n  \t\n# Orders and returns\n')).toBe('Orders and returns');
    expect(subjectOf('no heading here\nsecond')).toBe('no heading here');
  });

  it('gives what the version it replaces gave', () => {
    /** subjectOf as it was, with `^\s*`, which ran over line breaks. */
    const before = (prp: string) => {
      const heading = prp.match(/^\s*#{1,3}\s+(.+)$/m)?.[1] ?? prp.split('\n').find((l) => l.trim()) ?? '';
      return heading
        .replace(/^\s*(PRP|Product requirements?( prompt| document)?)\s*[:\-–—]\s*/i, '')
        .replace(/[*_`#]/g, '')
        .trim()
        .slice(0, 90)
        .replace(/\s+\S*$/, (m) => (heading.length > 90 ? '' : m));
    };
    const random = mulberry32(3);
    const pieces = ['#', '##', ' ', '\t', '\n', '\r\n', 'x', 'PRP: y', '####', '\u00a0'];
    for (let round = 0; round < 5000; round++) {
      let prp = '';
      for (let k = Math.floor(random() * 14); k > 0; k--) prp += pieces[Math.floor(random() * pieces.length)];
      expect(subjectOf(prp), JSON.stringify(prp)).toBe(before(prp));
    }
  });

  it('stays linear on a PRP of blank lines', () => {
    for (const prp of ['a' + ' \n'.repeat(99_000) + 'b', 'a' + '\n'.repeat(199_000) + 'b', '#' + ' \n'.repeat(99_000)])
      withinBudget('subjectOf', () => subjectOf(prp), 2_000);
  });
});

describe("the EADS stand-in's steps told in prose", () => {
  const columns = [
    { name: 'routing-id', kind: 'text' as const },
    { name: 'steps', kind: 'list' as const },
  ];

  it('reads the steps whatever the white space between them', () => {
    expect(stepsFromProse('We cut the stock,  then \n  we weld the frame;\tfinally we paint it.', columns)).toEqual([
      { 'routing-id': 'cut-stock' },
      { 'routing-id': 'weld-frame' },
      { 'routing-id': 'paint' },
    ]);
  });

  it('stays linear on an answer of blanks (20,000 characters are allowed)', () => {
    // Each split alternative tries white space at every position: quadratic in a run of blanks.
    for (const answer of [
      'we cut' + ' '.repeat(19_980) + 'x',
      'a' + ' \t'.repeat(9_990) + 'b',
      'a' + ' '.repeat(19_990) + ', b',
    ])
      withinBudget('stepsFromProse', () => stepsFromProse(answer, columns), 150);
  });
});

describe("the EADS stand-in's denials", () => {
  it('stay linear on answers built to nearly deny (20,000 characters are allowed)', () => {
    for (const answer of [
      ' '.repeat(20_000),
      'never' + ' '.repeat(19_990) + 'a problem',
      'no problem ,' + ' '.repeat(19_980) + 'the vans are',
      "isn't ".repeat(3_300),
      'not the very '.repeat(1_530) + 'problem',
      'x; '.repeat(6_600),
      Array.from({ length: 700 }, (_, i) => `Van ${i} is never late, except on day ${i}.`).join(' '),
      Array.from({ length: 500 }, (_, i) => `Van ${i} used to be a worry; not now.`).join(' '),
    ]) {
      withinBudget('deniedTrouble', () => deniedTrouble(answer), 150);
      withinBudget('withoutDenials', () => withoutDenials(answer), 150);
    }
  });
});
