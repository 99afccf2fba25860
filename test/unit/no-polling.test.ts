/**
 * The interview clients (EADS, research proposal) wait on the workflow, with updates that reply
 * when it has the next step, rather than polling its queries: no polling helper, no sleep, and the
 * terminal clients read no query to guess what the interview does next.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(__dirname, '..', '..');
const source = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

describe('interview clients hold no polling loop', () => {
  it.each(['access/eads-session.ts', 'client/eads-interview.ts', 'client/proposal-interview.ts'])(
    '%s neither polls nor sleeps',
    (file) => {
      const text = source(file);
      expect(text).not.toMatch(/\bwaitFor\s*\(/);
      expect(text).not.toMatch(/\bsetTimeout\s*\(|\bsetInterval\s*\(/);
    },
  );

  it('the terminal client asks the workflow what comes next, never its state queries', () => {
    const text = source('client/eads-interview.ts');
    expect(text).not.toMatch(/\.query\s*\(|session\.view\s*\(|session\.pursuit\s*\(|session\.question\s*\(/);
    expect(text).toMatch(/session\.begin\s*\(/);
    expect(text).toMatch(/session\.nextStep\s*\(/);
    expect(text).toMatch(/session\.nextQuestion\s*\(/);
  });

  it('the proposal interview client waits on nextProposalStep, never on its state queries', () => {
    const text = source('client/proposal-interview.ts');
    expect(text).not.toMatch(/\.query\s*\(/);
    expect(text).toMatch(/nextProposalStepUpdate/);
    expect(text).toMatch(/executeUpdateWithStart\s*\(/);
  });
});
