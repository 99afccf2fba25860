/**
 * The network-facing security settings (control plane, codec endpoint, MCP HTTP) go through the
 * validated configuration: defaults, parsing, and a clear error naming each bad variable.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../contracts/config';

describe('network security settings', () => {
  it('have safe defaults', () => {
    const config = parseConfig({});
    expect(config.CONTROL_PLANE_REGISTRATION_TOKEN).toBeUndefined();
    expect(config.CODEC_AUTH_TOKEN).toBeUndefined();
    expect(config).toMatchObject({
      CONTROL_PLANE_ALLOWED_HOSTS: [],
      CONTROL_PLANE_MAX_MANIFEST_BYTES: 1024 * 1024,
      CONTROL_PLANE_MAX_SCHEMA_DEPTH: 64,
      MCP_MAX_SESSIONS: 100,
      MCP_SESSION_IDLE_MS: 600_000,
    });
  });

  it('parse host lists and numbers', () => {
    expect(
      parseConfig({
        CONTROL_PLANE_ALLOWED_HOSTS: ' control-plane, CP.Example.com ,[::1]',
        CONTROL_PLANE_MAX_SCHEMA_DEPTH: '32',
        MCP_MAX_SESSIONS: '7',
        MCP_MAX_SESSIONS_PER_CLIENT: '3',
      }),
    ).toMatchObject({
      CONTROL_PLANE_ALLOWED_HOSTS: ['control-plane', 'cp.example.com', '[::1]'],
      CONTROL_PLANE_MAX_SCHEMA_DEPTH: 32,
      MCP_MAX_SESSIONS: 7,
      MCP_MAX_SESSIONS_PER_CLIENT: 3,
    });
    expect(parseConfig({ CODEC_AUTH_TOKEN: '  tok  ', CONTROL_PLANE_REGISTRATION_TOKEN: '' })).toMatchObject({
      CODEC_AUTH_TOKEN: 'tok',
      CONTROL_PLANE_REGISTRATION_TOKEN: undefined,
    });
  });

  it.each([
    ['CONTROL_PLANE_ALLOWED_HOSTS', 'http://cp.example.com'],
    ['CONTROL_PLANE_ALLOWED_HOSTS', 'cp.example.com:8080'],
    ['CONTROL_PLANE_MAX_MANIFEST_BYTES', '1e6'],
    ['CONTROL_PLANE_MAX_MANIFEST_BYTES', '10'],
    ['CONTROL_PLANE_MAX_SCHEMA_DEPTH', 'deep'],
    ['CONTROL_PLANE_MAX_SCHEMA_DEPTH', '100000'],
    ['MCP_MAX_SESSIONS', '0'],
    ['MCP_MAX_SESSIONS', '-1'],
    ['MCP_SESSION_IDLE_MS', '1.5'],
    ['MCP_MAX_SESSIONS_PER_CLIENT', '0'],
  ])('%s=%s stops the process naming the variable', (name, value) => {
    let error: unknown;
    try {
      parseConfig({ [name]: value });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toHaveLength(1);
    expect((error as ConfigError).problems[0]).toMatch(new RegExp(`^${name}: expected`));
  });
});
