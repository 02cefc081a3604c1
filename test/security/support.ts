import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { ConfigInput } from '../../src/config/types.js';
import type { TestDatabase } from '../helpers/test-database.js';
import type { TestServer } from '../helpers/test-server.js';
import { createUser, signedIn, type UserAgent } from '../helpers/end-user.js';
import { createClient, type TestClient } from '../helpers/factories.js';
import { buildAdminServer } from '../integration/applications-support.js';

// Shared by test/security: a server with the admin UI on and the failure lockout off (hostile tests fail
// authentication on purpose and would otherwise lock themselves out; token-scanning.test.ts tests the lockout).

export const CALLBACK = 'https://app.example.com/callback';
export const WITH_QUERY = 'https://app.example.com/q?tenant=1';
export const LOOPBACK = 'http://127.0.0.1:8080/cb';
export const REGISTERED = [CALLBACK, WITH_QUERY, LOOPBACK];

export function securityServer(config: ConfigInput & Record<string, unknown> = {}, testDatabase?: TestDatabase): Promise<TestServer> {
  return buildAdminServer({ rateLimit: { enabled: false }, ...config }, testDatabase);
}

/**
 * SPEC 3 and 9: no response may carry a stack trace or an internal message. A marker that the request itself
 * contained (a 404 names the path it did not find) is a reflection, not a leak.
 */
const LEAK_MARKERS: Array<[string, RegExp]> = [
  ['a stack frame', /\n\s+at \S|\bat (?:async )?[\w$.<>]+ \(|\(?(?:file|node):[^\s)]*:\d+:\d+/],
  ['an error class', /\b(?:Type|Reference|Range|Syntax|Prisma\w*)?Error: /],
  ['node_modules', /node_modules/i],
  ['Prisma', /prisma/i],
  ['PGlite', /pglite/i],
  [
    'SQL',
    /\b(?:SELECT\s.+\sFROM|INSERT INTO|UPDATE\s+\S+\s+SET|DELETE FROM|syntax error at or near|violates \w+ constraint|relation "|column "|duplicate key value)\b/i,
  ],
  ['a source path', /\/(?:src|dist)\/[\w/-]+\.[jt]s\b/],
];

/** The leak markers found in a response body that the request did not itself carry. */
export function leaksIn(body: string, request = ''): string[] {
  return LEAK_MARKERS.filter(([, pattern]) => pattern.test(body) && !pattern.test(request)).map(([name]) => name);
}

export function expectNoLeak(response: LightMyRequestResponse, request = ''): void {
  expect(leaksIn(response.body, request), response.body.slice(0, 300)).toEqual([]);
}

const RESPONSE_PARAMETERS = new Set([
  'code',
  'state',
  'error',
  'error_description',
  'iss',
  'access_token',
  'token_type',
  'expires_in',
  'scope',
]);

/**
 * True when a redirect (Location) goes to exactly one of the registered URIs (or, for a loopback IP, the same
 * URI on another port: RFC 8252 section 7.3) with nothing appended but the authorization response's parameters.
 */
export function locationIsRegistered(location: string, registered: readonly string[]): boolean {
  const withoutPort = (uri: string) => uri.replace(/^(http:\/\/(?:127\.0\.0\.1|\[::1\])):\d+/, '$1');
  return registered.some((uri) => {
    const target = location.startsWith(uri) ? location : withoutPort(location);
    const base = location.startsWith(uri) ? uri : withoutPort(uri);
    if (!target.startsWith(base)) return false;
    const rest = target.slice(base.length);
    if (rest === '') return true;
    if (!'?&#'.includes(rest[0]!)) return false;
    return [...new URLSearchParams(rest.slice(1).replace('#', '&'))].every(([name]) => RESPONSE_PARAMETERS.has(name));
  });
}

export interface SignedInFixture {
  server: TestServer;
  client: TestClient;
  agent: UserAgent;
}

/** The common fixture: a security server, a confidential client on CALLBACK, and alice signed in. */
export async function signedInFixture(): Promise<SignedInFixture> {
  const server = await securityServer();
  const client = await createClient(server.deps, { redirectUri: CALLBACK });
  await createUser(server.deps, 'alice');
  return { server, client, agent: await signedIn(server.app, 'alice') };
}
