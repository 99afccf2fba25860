/**
 * Ids say what they are: every `temporal workflow start` example the project shows (README, docs,
 * the stack's start-up hint) names its workflow, so following it never yields a bare UUID.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(__dirname, '..', '..');

/** Each example command, with backslash-continued lines and string concatenations joined. */
function startExamples(file: string): string[] {
  const text = readFileSync(path.join(ROOT, file), 'utf8')
    .replace(/\\\n\s*/g, ' ')
    .replace(/' \+\s*'/g, '');
  return text.split('\n').filter((line) => /temporal(\s+--)?\s+workflow start\b/.test(line));
}

describe('temporal workflow start examples', () => {
  const files = [
    'README.md',
    ...readdirSync(path.join(ROOT, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
    'workers/stack.ts',
  ];

  it('exist in the README and the stack hint', () => {
    expect(startExamples('README.md').length).toBeGreaterThanOrEqual(2);
    expect(startExamples('workers/stack.ts')).toHaveLength(1);
  });

  it.each(files)('in %s each name the workflow with --workflow-id', (file) => {
    for (const line of startExamples(file))
      expect(line, `${file}: ${line.trim()}`).toMatch(/--workflow-id [a-z0-9][\w.-]*/);
  });
});
