import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { NativeConnection } from '@temporalio/worker';
import { ConfigError, parseConfig } from '../plumbing/config';
import { flowWorkerOptions } from '../workers/worker';

const ROOT = path.resolve(__dirname, '..');

describe('configuration', () => {
  it('defaults to the embedded backends with no settings at all', () => {
    const config = parseConfig({});
    expect(config).toMatchObject({
      model: 'standin',
      AGENT_FLOWS_WAREHOUSE: 'duckdb',
      AGENT_FLOWS_SEARCH: 'embedded',
      STANDIN_PORT: 8765,
      TEMPORAL_UI_PORT: 8233,
    });
  });

  it('switches to Gemini when a key is present', () => {
    expect(parseConfig({ GEMINI_API_KEY: 'k' })).toMatchObject({ model: 'gemini', geminiApiKey: 'k' });
  });

  it('names every invalid variable and what was expected', () => {
    let error: unknown;
    try {
      parseConfig({
        WORKER_METRICS_PORT: 'abc',
        AGENT_FLOWS_WAREHOUSE: 'oracle',
        AGENT_FLOWS_MODEL: 'gemini',
        VERTEX_SEARCH_SERVING_CONFIGS: '{not json',
      });
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
    expect(parseConfig({})).toMatchObject({
      WORKER_MAX_CACHED_WORKFLOWS: 400,
      WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: 40,
    });
    const sized = parseConfig({ WORKER_MAX_CACHED_WORKFLOWS: '250', WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: '20' });
    expect(sized).toMatchObject({ WORKER_MAX_CACHED_WORKFLOWS: 250, WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: 20 });
    expect(() =>
      parseConfig({ WORKER_MAX_CACHED_WORKFLOWS: '10', WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: '40' }),
    ).toThrow(/WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: at most WORKER_MAX_CACHED_WORKFLOWS \(10\)/);
    expect(() => parseConfig({ WORKER_MAX_CACHED_WORKFLOWS: '1' })).toThrow(/WORKER_MAX_CACHED_WORKFLOWS/);
  });

  it('passes the cache and concurrency to the SDK worker rather than its heap-sized default', () => {
    const connection = {} as NativeConnection;
    expect(flowWorkerOptions({ connection })).toMatchObject({
      maxCachedWorkflows: 400,
      maxConcurrentWorkflowTaskExecutions: 40,
    });
    const options = flowWorkerOptions({ connection, maxCachedWorkflows: 30, maxConcurrentWorkflowTaskExecutions: 80 });
    expect(options).toMatchObject({ maxCachedWorkflows: 30, maxConcurrentWorkflowTaskExecutions: 30 });
  });

  it('requires the credentials a Google backend needs', () => {
    expect(() => parseConfig({ AGENT_FLOWS_MODEL: 'gemini' })).toThrow(
      /GEMINI_API_KEY: required when AGENT_FLOWS_MODEL=gemini/,
    );
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

  // Every variable the processes read goes through the validated config, so a bad value stops
  // the start instead of failing a later request.
  const problemsOf = (env: Record<string, string>): string => {
    try {
      parseConfig(env);
    } catch (err) {
      if (err instanceof ConfigError) return err.message;
      throw err;
    }
    return '';
  };

  it.each([
    ['TEMPORAL_ADDRESS', 'garbage', /TEMPORAL_ADDRESS: expected host:port/],
    ['TEMPORAL_ADDRESS', 'localhost:99999', /TEMPORAL_ADDRESS: expected host:port/],
    ['MCP_PORT', 'abc', /MCP_PORT: expected a whole number/],
    ['STANDIN_FAULTS', '{rate503: 0.2', /STANDIN_FAULTS: expected a JSON object of fault settings.*not valid JSON/],
    ['STANDIN_FAULTS', '{"rate503": 2}', /STANDIN_FAULTS: expected a JSON object of fault settings.*rate503/],
    ['STANDIN_FAULTS', '[1]', /STANDIN_FAULTS: expected a JSON object/],
    ['CONTROL_PLANE_PORT', '', /CONTROL_PLANE_PORT: expected a whole number/],
    ['STANDIN_PORT', '1e3', /STANDIN_PORT: expected a whole number/],
    ['WORKER_METRICS_PORT', ' 80', /WORKER_METRICS_PORT: expected a whole number/],
    ['MODEL_TIMEOUT_MS', '', /MODEL_TIMEOUT_MS: expected a whole number/],
    ['BOM_QUERY_REUSE_THRESHOLD', '', /BOM_QUERY_REUSE_THRESHOLD: expected a number/],
    ['AGENT_FLOWS_PAYLOAD_OLD_KEYS', 'not-a-key', /AGENT_FLOWS_PAYLOAD_OLD_KEYS: key 1 of 1: expected 32 bytes/],
  ])('%s=%j is refused, naming the variable', (name, value, pattern) => {
    expect(problemsOf({ [name]: value })).toMatch(pattern);
  });

  it('accepts well-formed values of the new variables', () => {
    const key = Buffer.alloc(32, 7).toString('base64');
    const config = parseConfig({
      TEMPORAL_ADDRESS: 'temporal.internal:7233',
      MCP_PORT: '9000',
      STANDIN_FAULTS: '{"rate503":0.2,"seed":3}',
      AGENT_FLOWS_PAYLOAD_KEY: key,
      AGENT_FLOWS_PAYLOAD_OLD_KEYS: `${Buffer.alloc(32, 1).toString('base64')}, ${Buffer.alloc(32, 2).toString('base64')}`,
    });
    expect(config).toMatchObject({
      TEMPORAL_ADDRESS: 'temporal.internal:7233',
      MCP_PORT: 9000,
      STANDIN_FAULTS: { rate503: 0.2, seed: 3 },
    });
    expect(parseConfig({ TEMPORAL_ADDRESS: '[::1]:7233' }).TEMPORAL_ADDRESS).toBe('[::1]:7233');
  });

  it('never prints the value of a secret, and only an excerpt of any other value', () => {
    const secret = 'c2VjcmV0LXNlY3JldC1zZWNyZXQ='; // 20 bytes: not a valid payload key
    const message = problemsOf({
      AGENT_FLOWS_PAYLOAD_KEY: secret,
      AGENT_FLOWS_PAYLOAD_OLD_KEYS: `${secret},x`,
      MCP_PORT: 'p'.repeat(5000),
    });
    expect(message).toMatch(/AGENT_FLOWS_PAYLOAD_KEY: expected 32 bytes.*not shown: it is a secret/);
    expect(message).toMatch(/AGENT_FLOWS_PAYLOAD_OLD_KEYS: .*not shown: it is a secret/);
    expect(message).not.toContain(secret);
    expect(message).toMatch(/MCP_PORT: .*\(5000 characters\)/);
    expect(message.length).toBeLessThan(1000);
  });

  it('does not echo credentials carried in a rejected URL (a ?key= query, user:password@)', () => {
    const apiKey = 'AIzaSyA1234567890abcdefghijklmnopqrstuv';
    const message = problemsOf({
      // No scheme: not a URL. The key sits within the excerpt's first 80 characters.
      GOOGLE_GEMINI_BASE_URL: `generativelanguage.googleapis.com/v1beta?key=${apiKey}`,
      CONTROL_PLANE_URL: 'http://agent:hunter2-password@control-plane:80 80',
    });
    expect(message).toMatch(/GOOGLE_GEMINI_BASE_URL: .*generativelanguage\.googleapis\.com\/v1beta/);
    expect(message).not.toContain(apiKey.slice(0, 12));
    expect(message).toMatch(/CONTROL_PLANE_URL: .*control-plane:80/);
    expect(message).not.toContain('hunter2');
  });

  /** Runs an entry point with `env` and returns its exit status and stderr. */
  const spawnEntry = (script: string, env: Record<string, string>) =>
    spawnSync(path.join(ROOT, 'node_modules', '.bin', 'tsx'), [script], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
      encoding: 'utf8',
      timeout: 60_000,
    });

  it.each([
    ['workers/worker.ts', { TEMPORAL_ADDRESS: 'garbage' }, /TEMPORAL_ADDRESS: expected host:port/],
    ['workers/stack.ts', { CONTROL_PLANE_PORT: '' }, /CONTROL_PLANE_PORT: expected a whole number/],
    ['standin/main.ts', { STANDIN_FAULTS: '{"rate503":' }, /STANDIN_FAULTS: expected a JSON object/],
    ['standin/main.ts', { STANDIN_PORT: '1e3' }, /STANDIN_PORT: expected a whole number/],
    ['client/mcp/main.ts', { MCP_PORT: 'abc' }, /MCP_PORT: expected a whole number/],
    [
      'workers/worker.ts',
      { AGENT_FLOWS_PAYLOAD_OLD_KEYS: 'bm90LWEta2V5LWF0LWFsbA==' },
      /AGENT_FLOWS_PAYLOAD_OLD_KEYS: key 1 of 1/,
    ],
  ] as const)('%s with %j exits 2 naming the variable', (script, env, pattern) => {
    const result = spawnEntry(script, env);
    expect(result.status, result.stderr).toBe(2);
    expect(result.stderr).toMatch(pattern);
    for (const value of Object.values(env))
      if (value.length >= 8 && /KEY/.test(Object.keys(env)[0])) expect(result.stderr).not.toContain(value);
  });

  it('a bad payload key stops the worker without printing the key', () => {
    const secret = 'dG9vLXNob3J0LWJ1dC1zZWNyZXQ=';
    const result = spawnEntry('workers/worker.ts', { AGENT_FLOWS_PAYLOAD_KEY: secret });
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/AGENT_FLOWS_PAYLOAD_KEY: expected 32 bytes/);
    expect(result.stderr).not.toContain(secret);
  });
});
