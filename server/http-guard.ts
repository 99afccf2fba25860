/**
 * Checks shared by the control plane and the codec endpoint, applied before any route runs:
 * bearer tokens compared in constant time, Host and Origin headers checked against the names
 * the service is meant to be reached by (a DNS-rebinding page sends its own domain as Host),
 * and JSON nesting depth measured without recursion.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';

/** Names every local service answers to, whatever address it listens on. */
const LOCAL_NAMES = ['localhost', '127.0.0.1', '[::1]'];
const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '[::]']);
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

export function isLoopbackHost(host: string): boolean {
  return LOOPBACK_HOSTS.has(host.toLowerCase()) || /^127\.\d+\.\d+\.\d+$/.test(host);
}

const digest = (text: string) => createHash('sha256').update(text).digest();

/**
 * A checker for `Authorization: Bearer <token>` accepting any of the given tokens. The scheme is
 * case-insensitive (RFC 9110); tokens are compared as SHA-256 digests with timingSafeEqual, so
 * neither their content nor their length leaks through timing.
 */
export function bearerCheck(tokens: Array<string | undefined>): (header: string | undefined) => boolean {
  const expected = [...new Set(tokens.filter((t): t is string => !!t))].map(digest);
  return (header) => {
    const match = /^bearer[ \t]+(\S+)[ \t]*$/i.exec(header ?? '');
    if (!match) return false;
    const given = digest(match[1]);
    // Every token is compared, so the time taken does not tell which one matched.
    return expected.reduce((ok, token) => timingSafeEqual(given, token) || ok, false);
  };
}

/** The host name of a Host header (`name:port`, `[v6]:port`), lower-cased; undefined when malformed. */
export function hostNameOf(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^(\[[0-9a-f:.]+\]|[^:[\]/@\s]+)(?::\d{1,5})?$/i.exec(header.trim());
  return match ? match[1].toLowerCase().replace(/\.$/, '') : undefined;
}

export interface HostGuard {
  /** Adds the address the service was told to listen on. */
  addListenHost(host: string): void;
  hostAllowed(header: string | undefined): boolean;
  /**
   * The Host header and, for an absolute-form target (`GET http://name/path`), the name in the
   * target too (RFC 9112 says it takes precedence over Host): both must be allowed.
   */
  requestAllowed(host: string | undefined, target: string | undefined): boolean;
  /** No Origin (a non-browser client) is allowed; a browser's Origin must name an allowed host. */
  originAllowed(origin: string | undefined): boolean;
}

/**
 * Allowed Host names: the local names, the listen address, and `extra` (e.g. the name a reverse
 * proxy or other containers use). When listening on a wildcard address any IP literal is also
 * accepted: DNS rebinding needs a domain name, and the machine's own addresses are unknown here.
 */
export function hostGuard(extra: string[] = []): HostGuard {
  const names = new Set([...LOCAL_NAMES, ...extra.map((h) => hostNameOf(h) ?? h.toLowerCase())]);
  let anyIp = false;
  const hostAllowed = (header: string | undefined): boolean => {
    const name = hostNameOf(header);
    if (!name) return false;
    return names.has(name) || (anyIp && isIP(name.replace(/^\[|\]$/g, '')) !== 0);
  };
  return {
    addListenHost(host) {
      if (WILDCARD_HOSTS.has(host)) anyIp = true;
      else names.add(isIP(host) === 6 ? `[${host.toLowerCase()}]` : host.toLowerCase());
    },
    hostAllowed,
    requestAllowed(host, target) {
      if (!hostAllowed(host)) return false;
      if (!target || target.startsWith('/')) return true;
      try {
        return hostAllowed(new URL(target).host);
      } catch {
        return false;
      }
    },
    originAllowed(origin) {
      if (origin === undefined) return true;
      try {
        const url = new URL(origin);
        return (url.protocol === 'http:' || url.protocol === 'https:') && hostAllowed(url.host);
      } catch {
        return false; // includes the literal "null" sandboxed pages send
      }
    },
  };
}

/**
 * Where a JSON value nests deeper than `limit` levels (arrays and objects), as a dotted path;
 * undefined when it does not. Iterative, so a 100,000-deep value cannot overflow the stack.
 */
export function tooDeepAt(value: unknown, limit: number): string | undefined {
  const stack: Array<{ value: unknown; depth: number; path: string }> = [{ value, depth: 0, path: '' }];
  while (stack.length) {
    const item = stack.pop()!;
    if (!item.value || typeof item.value !== 'object') continue;
    const depth = item.depth + 1;
    if (depth > limit) return item.path || '(body)';
    for (const [key, child] of Object.entries(item.value as Record<string, unknown>)) {
      if (child && typeof child === 'object') {
        stack.push({ value: child, depth, path: item.path ? `${item.path}.${key}` : key });
      }
    }
  }
  return undefined;
}
