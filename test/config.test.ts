import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../contracts/config';

const ROOT = path.resolve(__dirname, '..');

describe('configuration', () => {
  it('defaults to the embedded backends with no settings at all', () => {
    const config = parseConfig({});
    expect(config).toMatchObject({ model: 'standin', AGENT_FLOWS_WAREHOUSE: 'duckdb', AGENT_FLOWS_SEARCH: 'embedded', STANDIN_PORT: 8765, TEMPORAL_UI_PORT: 8233 });
  });

  it('switches to Gemini when a key is present', () => {
    expect(parseConfig({ GEMINI_API_KEY: 'k' })).toMatchObject({ model: 'gemini', geminiApiKey: 'k' });
  });

  it('names every invalid variable and what was expected', () => {
    let error: unknown;
    try {
      parseConfig({ WORKER_METRICS_PORT: 'abc', AGENT_FLOWS_WAREHOUSE: 'oracle', AGENT_FLOWS_MODEL: 'gemini', VERTEX_SEARCH_SERVING_CONFIGS: '{not json' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as ConfigError).message;
    expect(message).toMatch(/WORKER_METRICS_PORT: .*number.*\(got "abc"\)/);
    expect(message).toMatch(/AGENT_FLOWS_WAREHOUSE: .*"duckdb".*"bigquery".*\(got "oracle"\)/);
    expect(message).toMatch(/VERTEX_SEARCH_SERVING_CONFIGS: expected a JSON object/);
    expect((error as ConfigError).problems).toHaveLength(3);
  });

  it('requires the credentials a Google backend needs', () => {
    expect(() => parseConfig({ AGENT_FLOWS_MODEL: 'gemini' })).toThrow(/GEMINI_API_KEY: required when AGENT_FLOWS_MODEL=gemini/);
    expect(() => parseConfig({ AGENT_FLOWS_WAREHOUSE: 'bigquery' })).toThrow(/BIGQUERY_PROJECT/);
    expect(() => parseConfig({ AGENT_FLOWS_SEARCH: 'vertex' })).toThrow(/VERTEX_SEARCH_PROJECT/);
  });

  it('stops the worker process at start with the variable name (exit 2)', () => {
    const result = spawnSync(path.join(ROOT, 'node_modules', '.bin', 'tsx'), ['workers/worker.ts'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, MODEL_TIMEOUT_MS: 'soon' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('Invalid configuration');
    expect(result.stderr).toMatch(/MODEL_TIMEOUT_MS: .*\(got "soon"\)/);
  });
});
