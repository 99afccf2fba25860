/** WORKFLOW_BUNDLE: the worker runs a given bundle file, and stops naming the setting when there is none at the path. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../plumbing/config';
import { configuredWorkflowBundle } from '../../workers/build-stamp';

describe('WORKFLOW_BUNDLE', () => {
  it('unset (or empty): the worker looks for a build or bundles at start, as before', () => {
    expect(configuredWorkflowBundle(parseConfig({}))).toBeUndefined();
    expect(configuredWorkflowBundle(parseConfig({ WORKFLOW_BUNDLE: '' }))).toBeUndefined();
  });

  it('a bundle file: the worker runs it', () => {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'bundle-setting-')), 'workflow-bundle.js');
    writeFileSync(file, '');
    expect(configuredWorkflowBundle(parseConfig({ WORKFLOW_BUNDLE: file }))).toEqual({ codePath: file });
  });

  it('a path with no file stops the worker, naming the setting and the path', () => {
    const missing = path.join(os.tmpdir(), 'no-such-dir-for-bundle', 'workflow-bundle.js');
    expect(() => configuredWorkflowBundle(parseConfig({ WORKFLOW_BUNDLE: missing }))).toThrow(
      `WORKFLOW_BUNDLE: no file at ${missing}`,
    );
  });
});

describe('WORKFLOW_BUNDLE pointing at a directory', () => {
  it('stops the worker at once, naming the setting, instead of failing later inside the SDK', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'bundle-dir-'));
    expect(() => configuredWorkflowBundle(parseConfig({ WORKFLOW_BUNDLE: dir }))).toThrow(
      `WORKFLOW_BUNDLE: no file at ${dir}`,
    );
  });
});
