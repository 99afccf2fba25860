import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { NativeConnection } from '@temporalio/worker';
import { ConfigError, parseConfig } from '../contracts/config';
import { flowWorkerOptions } from '../workers/worker';

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

  it('sizes the workflow cache and workflow-task concurrency explicitly, within each other', () => {
    expect(parseConfig({})).toMatchObject({ WORKER_MAX_CACHED_WORKFLOWS: 400, WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: 40 });
    const sized = parseConfig({ WORKER_MAX_CACHED_WORKFLOWS: '250', WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: '20' });
    expect(sized).toMatchObject({ WORKER_MAX_CACHED_WORKFLOWS: 250, WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: 20 });
    expect(() => parseConfig({ WORKER_MAX_CACHED_WORKFLOWS: '10', WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: '40' })).toThrow(
      /WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: at most WORKER_MAX_CACHED_WORKFLOWS \(10\)/,
    );
    expect(() => parseConfig({ WORKER_MAX_CACHED_WORKFLOWS: '1' })).toThrow(/WORKER_MAX_CACHED_WORKFLOWS/);
  });

  it('passes the cache and concurrency to the SDK worker rather than its heap-sized default', () => {
    const connection = {} as NativeConnection;
    expect(flowWorkerOptions({ connection })).toMatchObject({ maxCachedWorkflows: 400, maxConcurrentWorkflowTaskExecutions: 40 });
    const options = flowWorkerOptions({ connection, maxCachedWorkflows: 30, maxConcurrentWorkflowTaskExecutions: 80 });
    expect(options).toMatchObject({ maxCachedWorkflows: 30, maxConcurrentWorkflowTaskExecutions: 30 });
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
